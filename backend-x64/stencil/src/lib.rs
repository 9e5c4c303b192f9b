//! Copy-and-patch stencils (the paper's section 7; `seeds/baseline-jit-copy-and-patch.txt`).
//!
//! A stencil is machine code that LLVM compiled at build time with *holes*: the places where
//! the object file has a relocation record. A runtime constant (a bytecode operand, a constant,
//! a slot offset), a jump to the next bytecode's code or to a slow path, a call to a runtime
//! function, or the address of the stencil's own read-only data are all symbols to the
//! compiler, so each use becomes a relocation, and a relocation is exactly a patch
//! instruction: "at `offset`, write `symbol + addend` (minus the hole's address, for the
//! PC-relative kinds) in `width` bytes".
//!
//! ```text
//!   build time:  ELF object ──extract_stencils──► Stencil { code, data, holes }   (data; printable)
//!   run time:    Stencil ──materialize(code address, data address, values)──► machine code
//!                                └─ one patch routine per HoleKind, range-checked
//!   tests/fuzz:  check_holes: decode the result with iced-x86; every hole must be exactly an
//!                immediate, displacement or branch field of one instruction
//! ```
//!
//! Every relocation kind the extractor does not know is an error, never a silent skip; every
//! value that does not fit its hole is an error, never a truncation.

mod check;
mod extract;
mod fallthrough;
mod patch;

pub use check::{check_holes, disassemble, disassemble_code, CheckError};
pub use extract::{cold_part_of, extract_stencils, ExtractError, COLD_PART_SUFFIX};
pub use fallthrough::{invert_branches_over_jumps, invert_final_branch, sink_final_exit};
pub use patch::{patch_hole, PatchError};

/// How a hole's bytes are computed from its value (ELF x86-64 relocation kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HoleKind {
    /// `S + A` in 8 bytes (`R_X86_64_64`): a 64-bit immediate (`movabs`) or pointer data.
    Abs64,
    /// `S + A` in 4 bytes, zero-extended by its use (`R_X86_64_32`): must fit `u32`.
    Abs32,
    /// `S + A` in 4 bytes, sign-extended by its use (`R_X86_64_32S`): must fit `i32`. A
    /// displacement or an imm32 of a 64-bit instruction.
    Abs32Signed,
    /// `S + A - P` in 4 bytes (`R_X86_64_PC32`, `R_X86_64_PLT32`): a `jmp`/`call`/`jcc` target or
    /// a RIP-relative operand; must fit `i32`.
    PcRel32,
}

impl HoleKind {
    /// The hole's size in bytes.
    pub fn width(self) -> usize {
        match self {
            HoleKind::Abs64 => 8,
            HoleKind::Abs32 | HoleKind::Abs32Signed | HoleKind::PcRel32 => 4,
        }
    }
}

/// What a hole's value is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HoleTarget {
    /// An external symbol, whose value the stencil's user gives: a runtime constant, the code
    /// of a following bytecode or a slow path, a runtime function.
    Symbol(String),
    /// The stencil's own read-only data (constants LLVM put in `.rodata`), copied beside the
    /// code: the value is the data's address (plus the hole's addend).
    Data,
}

/// One place in a stencil's code to patch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hole {
    /// Byte offset in [`Stencil::code`].
    pub offset: usize,
    pub kind: HoleKind,
    pub target: HoleTarget,
    /// The relocation's addend (for [`HoleTarget::Data`], also the offset of the referenced
    /// constant in [`Stencil::data`]).
    pub addend: i64,
}

/// Machine code with holes, and the read-only data it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stencil {
    /// The function (section) it was extracted from.
    pub name: String,
    pub code: Vec<u8>,
    /// Read-only data the code refers to (through [`HoleTarget::Data`] holes).
    pub data: Vec<u8>,
    /// Alignment the data needs (the largest of its sections').
    pub data_align: u64,
    /// Sorted by offset; never overlapping.
    pub holes: Vec<Hole>,
}

impl Stencil {
    /// The external symbols the holes name, each once, in order of first use.
    pub fn symbols(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for h in &self.holes {
            if let HoleTarget::Symbol(s) = &h.target {
                if !out.contains(&s.as_str()) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// Copies the code into `out` (which will run at `code_address`) and patches every hole:
    /// symbols get `resolve(name)`, data holes `data_address`. `out` must be exactly as long as
    /// the code.
    pub fn materialize(
        &self,
        out: &mut [u8],
        code_address: u64,
        data_address: u64,
        resolve: &mut dyn FnMut(&str) -> Option<u64>,
    ) -> Result<(), PatchError> {
        if out.len() != self.code.len() {
            return Err(PatchError::BufferSize { stencil: self.name.clone(), expected: self.code.len(), got: out.len() });
        }
        out.copy_from_slice(&self.code);
        for hole in &self.holes {
            let value = match &hole.target {
                HoleTarget::Data => data_address,
                HoleTarget::Symbol(s) => resolve(s).ok_or_else(|| PatchError::Unresolved { stencil: self.name.clone(), symbol: s.clone() })?,
            };
            patch::apply(out, hole, value, code_address).map_err(|e| e.in_stencil(&self.name))?;
        }
        Ok(())
    }
}
