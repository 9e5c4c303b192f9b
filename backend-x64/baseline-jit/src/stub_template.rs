//! Templates of inline-cache stubs: what [`crate::BaselineJit::add_ic_stub`] copies and
//! patches for a stub of one kind at an instruction of one variant, built once per JIT.
//!
//! Resolving a stub's holes each time one was made (which value each names, an operand read
//! through the variant's record, the instruction's pieces laid out again to find its
//! continuations, helpers and externals looked up) cost about 5200 instructions per stub, as
//! much as compiling a function of 27 instructions. A template answers all of that once, as
//! [`crate::template`] does for instructions: the stub's bytes with every absolute hole of a
//! fixed value already written, and the rest as a short list of [`StubFill`]s.

use deegen_api::runtime_constants::OperandEncoding;
use deegen_stencil::{patch_hole, HoleKind};

use crate::compile::{piece_offsets, plan_pieces};
use crate::tables::{HoleValue, StencilTables, VariantRecord};
use crate::template::{Placed, Write};

/// Which part of a stub a fill writes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StubPart {
    /// The stub's hot part (in the instruction's slab, or outlined with other stubs' hot parts).
    Hot = 0,
    /// Its cold part and SlowPathData record, placed together away from the hot parts.
    Cold = 1,
}

/// Where a stub fill's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StubSource {
    /// Known when the JIT was made (a helper, an external, the stencil's data), in a hole
    /// relative to where it is written, so it cannot be written in advance.
    Fixed(u64),
    /// The instruction's address.
    Pc,
    /// A field of the instruction (an operand or the output slot), then encoded.
    Operand {
        offset: u32,
        width: u8,
        signed: bool,
        encoding: OperandEncoding,
    },
    /// The next instruction's code.
    Next,
    /// The branch target's code (an error when the instruction has none).
    Branch,
    /// A piece of the stub's instruction as compiled: `offset` bytes from its IC entry, or,
    /// out of line, from its generic code (its first out-of-line piece).
    SitePiece {
        out_of_line: bool,
        offset: u32,
    },
    /// The stub's SlowPathData record.
    Record,
    /// The stub's cold part (its hot part when it has none).
    ColdPart,
    /// The stub's hot part.
    HotPart,
    /// The cache entry's key and state.
    Key,
    State,
    /// A call stub's target: its callee's entry (or a jump stub to it, when that is beyond
    /// `rel32` reach).
    CallTarget,
    /// Where a miss goes: the chain's head before this stub.
    IcNext,
    /// Derived constant `k` of the state (`ic-state-folding`'s helpers).
    Derived(u16),
}

/// One hole or SlowPathData field of a stub template.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StubFill {
    pub part: StubPart,
    /// Offset in its part.
    pub at: u32,
    pub write: Write,
    pub addend: i64,
    pub source: StubSource,
}

/// What [`crate::BaselineJit::add_ic_stub`] emits for a stub of one kind at one variant.
#[derive(Debug)]
pub(crate) struct StubTemplate {
    /// The stub stencil.
    pub stencil: u16,
    pub hot: Box<[u8]>,
    /// The cold part's code (when the stub has one), padding to 8 bytes, then the record.
    pub cold: Box<[u8]>,
    pub has_cold_part: bool,
    /// Bytes of cold code (the record starts at the next multiple of 8).
    pub cold_code_len: usize,
    /// Where the record starts in [`StubTemplate::cold`].
    pub records_at: usize,
    /// The fills of each [`StubPart`] (hot, cold).
    pub fills: [Box<[StubFill]>; 2],
}

/// The stub templates of every variant, by opcode and kind (or why a stub has none, reported
/// when such a stub is asked for); after the kinds, the template of the megamorphic copy of
/// the generic code (`IcRecord::megamorphic`), when the variant has one.
pub(crate) fn build_all(tables: &'static StencilTables, placed: &Placed<'_>) -> Vec<Vec<Result<StubTemplate, String>>> {
    tables
        .variants
        .iter()
        .map(|v| match v.ic {
            Some(ic) => ic.stubs.iter().chain(&ic.megamorphic).map(|&stencil| build(tables, v, stencil, placed)).collect(),
            None => Vec::new(),
        })
        .collect()
}

fn build(tables: &'static StencilTables, v: &'static VariantRecord, stencil: u16, placed: &Placed<'_>) -> Result<StubTemplate, String> {
    let hot = tables.stencils.get(stencil as usize).ok_or_else(|| format!("{} has no stub stencil {stencil}", v.name))?;
    let cold = match hot.cold_part {
        Some(c) => Some(tables.stencils.get(c as usize).ok_or_else(|| format!("{} has no cold part {c}", hot.name))?),
        None => None,
    };
    let cold_code_len = cold.map_or(0, |c| c.code.len());
    let records_at = cold_code_len.next_multiple_of(8);
    let mut hot_bytes = hot.code.to_vec();
    let mut cold_bytes = vec![0u8; records_at + 8 * hot.slow_path_data.len()];
    if let Some(c) = cold {
        cold_bytes[..c.code.len()].copy_from_slice(c.code);
    }
    // Where each piece of the instruction is, from its IC entry (in line) or from its generic
    // code (out of line): continuation `k` is piece `k + 1`.
    let plans = plan_pieces(tables, v);
    let starts: Vec<StubSource> =
        plans.iter().zip(piece_offsets(&plans)).map(|(p, offset)| StubSource::SitePiece { out_of_line: p.out_of_line, offset }).collect();
    let operand = |offset: Option<u32>, width: u8, signed: bool, encoding: OperandEncoding, what: &str| -> Result<StubSource, String> {
        let offset = offset.ok_or_else(|| format!("{} has no {what}", v.name))?;
        if width > 8 || (width > 0 && offset as usize + width as usize > v.length as usize) {
            return Err(format!("the {what} of {} ({width} bytes at {offset}) is not in its {} bytes", v.name, v.length));
        }
        Ok(StubSource::Operand { offset, width, signed, encoding })
    };
    // Where the value of `value` comes from (`None`: a fixed value, from `fixed`).
    let source = |value: HoleValue| -> Result<Option<StubSource>, String> {
        Ok(Some(match value {
            HoleValue::Pc => StubSource::Pc,
            HoleValue::Output => operand(v.output_offset, 2, false, OperandEncoding::SlotOffset, "output")?,
            HoleValue::Operand(k) => {
                let op = v.operands.get(k as usize).ok_or_else(|| format!("{} has no operand {k}", v.name))?;
                operand(Some(op.offset), op.width, op.signed, op.encoding, "operand")?
            }
            HoleValue::Next => StubSource::Next,
            HoleValue::Branch => StubSource::Branch,
            HoleValue::Continuation(k) => *starts.get(1 + k as usize).ok_or_else(|| format!("{} has no continuation {k}", v.name))?,
            HoleValue::SlowPathData => StubSource::Record,
            HoleValue::ColdPart if cold.is_some() => StubSource::ColdPart,
            HoleValue::HotPart | HoleValue::ColdPart => StubSource::HotPart,
            HoleValue::IcKey => StubSource::Key,
            HoleValue::IcState => StubSource::State,
            HoleValue::IcNext => StubSource::IcNext,
            HoleValue::CallTarget => StubSource::CallTarget,
            HoleValue::IcDerived(k) => StubSource::Derived(k),
            HoleValue::Data | HoleValue::Shared(_) | HoleValue::External(_) => return Ok(None),
            // The generator gives stubs (which make no calls) no continuations of their own.
            HoleValue::CodeBlock => return Err(format!("the stub of {} names its function's code block", v.name)),
            HoleValue::NumParams | HoleValue::FrameSize => return Err(format!("the stub of {} has the function prologue's {value:?}", v.name)),
        }))
    };
    let fixed = |id: u16, value: HoleValue, kind: HoleKind| placed.fixed(tables, value, id, kind);
    let mut fills = Vec::new();
    let parts = [(StubPart::Hot, Some((stencil, hot))), (StubPart::Cold, hot.cold_part.zip(cold))];
    for (part, s) in parts {
        let Some((id, s)) = s else { continue };
        let out = if part == StubPart::Hot { &mut hot_bytes[..] } else { &mut cold_bytes[..cold_code_len] };
        for h in s.holes {
            if h.offset as usize + h.kind.width() > out.len() {
                return Err(format!("a hole of {} at {} runs past its code", s.name, h.offset));
            }
            match source(h.value)? {
                Some(source) => fills.push(StubFill { part, at: h.offset, write: Write::Hole(h.kind), addend: h.addend, source }),
                None if h.kind == HoleKind::PcRel32 => {
                    let source = StubSource::Fixed(fixed(id, h.value, h.kind)?);
                    fills.push(StubFill { part, at: h.offset, write: Write::Hole(h.kind), addend: h.addend, source });
                }
                // Absolute: the same bytes in every stub.
                None => patch_hole(out, h.offset as usize, h.kind, h.addend, fixed(id, h.value, h.kind)?, 0)
                    .map_err(|e| e.in_stencil(s.name).to_string())?,
            }
        }
    }
    for (k, &value) in hot.slow_path_data.iter().enumerate() {
        let at = records_at + 8 * k;
        match source(value)? {
            Some(source) => fills.push(StubFill { part: StubPart::Cold, at: at as u32, write: Write::Field, addend: 0, source }),
            None => cold_bytes[at..at + 8].copy_from_slice(&fixed(stencil, value, HoleKind::Abs64)?.to_le_bytes()),
        }
    }
    Ok(StubTemplate {
        stencil,
        hot: hot_bytes.into(),
        cold: cold_bytes.into(),
        has_cold_part: cold.is_some(),
        cold_code_len,
        records_at,
        fills: [StubPart::Hot, StubPart::Cold].map(|part| fills.iter().filter(|f| f.part == part).copied().collect()),
    })
}

/// The values a stub's fills are computed from.
pub(crate) struct StubValues<'a> {
    /// The instruction's bytes (from its address `pc`).
    pub instruction: &'a [u8],
    pub pc: u64,
    pub next: u64,
    /// The branch target's code (0: the instruction does not branch).
    pub branch: u64,
    /// The instruction's IC entry, and its first out-of-line piece (its generic code).
    pub entry: u64,
    pub out_of_line: u64,
    /// Where the stub's parts go.
    pub hot: u64,
    pub cold: u64,
    /// The entry's key and state (a fused cache's are `u32`s).
    pub key: u64,
    pub state: u64,
    pub next_in_chain: u64,
    /// A call stub's target (0 in any other stub).
    pub call_target: u64,
    /// Derived constant `k` of a state.
    pub derive: &'a dyn Fn(u16, u32) -> Result<u64, String>,
}

impl StubTemplate {
    /// Writes the template's `part` into `out` (its bytes, at `address`) and patches its fills
    /// with `values`.
    pub(crate) fn write(&self, part: StubPart, out: &mut [u8], values: &StubValues<'_>) -> Result<(), String> {
        let bytes = if part == StubPart::Hot { &self.hot } else { &self.cold };
        let address = if part == StubPart::Hot { values.hot } else { values.cold };
        let len = out.len();
        out.copy_from_slice(bytes.get(..len).ok_or("the stub's part is shorter than where it goes")?);
        // (A stub in its slab leaves out its trailing jump, and the jump's hole.)
        for f in self.fills[part as usize].iter().filter(|f| (f.at as usize) < len) {
            let value = match f.source {
                StubSource::Fixed(value) => value,
                StubSource::Pc => values.pc,
                StubSource::Operand { offset, width, signed, encoding } => {
                    let raw = crate::compile::read_field(values.instruction, offset as usize, width, signed)
                        .ok_or("an operand runs past the instruction")?;
                    encoding.encode(raw, values.pc)
                }
                StubSource::Next => values.next,
                StubSource::Branch if values.branch != 0 => values.branch,
                StubSource::Branch => return Err("the stub has a branch hole and its instruction does not branch".into()),
                StubSource::SitePiece { out_of_line, offset } => (if out_of_line { values.out_of_line } else { values.entry }) + u64::from(offset),
                StubSource::Record => values.cold + self.records_at as u64,
                StubSource::ColdPart => values.cold,
                StubSource::HotPart => values.hot,
                StubSource::Key => values.key,
                StubSource::State => values.state,
                StubSource::IcNext => values.next_in_chain,
                StubSource::CallTarget => values.call_target,
                StubSource::Derived(k) => (values.derive)(k, values.state as u32)?,
            };
            match f.write {
                Write::Hole(kind) => patch_hole(out, f.at as usize, kind, f.addend, value, address).map_err(|e| e.to_string())?,
                Write::Field => {
                    out.get_mut(f.at as usize..f.at as usize + 8).ok_or("a record field runs past the record")?.copy_from_slice(&value.to_le_bytes())
                }
            }
        }
        Ok(())
    }
}
