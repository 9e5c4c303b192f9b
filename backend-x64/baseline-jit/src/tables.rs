//! The tables the generator writes (`baseline_stencils.rs` in the language runtime's build
//! output) and the JIT reads: stencils as data, holes in a compact form whose value is an enum
//! the JIT computes without looking at a symbol name.

use deegen_api::runtime_constants::OperandEncoding;
use deegen_stencil::HoleKind;

/// Everything the JIT knows about a language's bytecodes and their stencils.
#[derive(Debug)]
pub struct StencilTables {
    /// Every stencil: main components, return continuations and the helpers they call.
    pub stencils: &'static [StencilRecord],
    /// Indexed by opcode (a quickened variant shares its base's stencils).
    pub variants: &'static [VariantRecord],
    /// Stencil ids of the helper functions stencils call, placed once per code cache;
    /// [`HoleValue::Shared`] indexes this list.
    pub shared: &'static [u16],
    /// The external symbols stencils refer to (runtime functions, the interpreter's thunks,
    /// C library functions), with their addresses as the linker resolved them;
    /// [`HoleValue::External`] indexes this list.
    pub externals: &'static [(&'static str, unsafe extern "C" fn())],
    /// For each derived constant of the inline-cache stubs ([`HoleValue::IcDerived`]), the
    /// helper ([`StencilTables::shared`] index) that computes it from a state:
    /// `extern "C" fn(state: u32) -> u64`.
    pub ic_derive: &'static [u16],
    /// The prologue (`deegen_api::runtime_constants::FUNCTION_ENTRY_STENCIL`): a function's
    /// entry with its parameter count and frame size burnt in, which the JIT puts before the
    /// first instruction of a function without variable arguments. Described as a variant of
    /// no operands and no length, so it is copied and patched like an instruction.
    pub function_entry: Option<&'static VariantRecord>,
    /// Indexed by opcode: each variant's generated emitter ([`crate::emit`]), written by the
    /// generator from the same tables. Empty, or `None` for a variant, where there is none.
    pub emitters: &'static [Option<crate::emit::GeneratedEmitter>],
}

/// One stencil.
#[derive(Debug)]
pub struct StencilRecord {
    /// The function it was compiled from.
    pub name: &'static str,
    pub code: &'static [u8],
    /// Read-only data the code refers to ([`HoleValue::Data`]), placed once per code cache.
    pub data: &'static [u8],
    pub data_align: u32,
    /// Sorted by offset.
    pub holes: &'static [HoleRecord],
    /// The code ends with `jmp <next instruction>` (5 bytes, the last hole), which the JIT
    /// drops when the next instruction's code follows (jump-to-fallthrough).
    pub ends_with_jump_to_next: bool,
    /// The fields of the SlowPathData record each copy of this stencil gets (one `u64` each,
    /// holding what a hole of that value would): what its AOT slow paths read of the
    /// instruction. Empty when it has none; then no [`HoleValue::SlowPathData`] hole either.
    pub slow_path_data: &'static [HoleValue],
    /// Its cold part (the blocks LLVM's machine function splitter moved out of the fast path:
    /// the jumps into its AOT slow paths), a stencil of its own that the JIT places in the
    /// function's cold area and that uses this stencil's SlowPathData record.
    pub cold_part: Option<u16>,
}

/// One hole of a stencil.
#[derive(Debug, Clone, Copy)]
pub struct HoleRecord {
    pub offset: u32,
    pub kind: HoleKind,
    pub value: HoleValue,
    pub addend: i64,
}

/// What a hole holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoleValue {
    /// The instruction's address.
    Pc,
    /// The code block of the function being compiled (a return continuation's code-block
    /// register).
    CodeBlock,
    /// `8 * output slot`.
    Output,
    /// The runtime constant of the variant's operand `i` (an index into
    /// [`VariantRecord::operands`]).
    Operand(u8),
    /// The next instruction's code.
    Next,
    /// The branch target's code.
    Branch,
    /// The code of the variant's return continuation `i` for this instruction.
    Continuation(u8),
    /// The address of this copy's SlowPathData record
    /// ([`StencilRecord::slow_path_data`]).
    SlowPathData,
    /// The stencil's read-only data.
    Data,
    /// A helper's code ([`StencilTables::shared`]).
    Shared(u16),
    /// An external symbol ([`StencilTables::externals`]).
    External(u16),
    /// In a stencil with a cold part: the address of this copy's cold part.
    ColdPart,
    /// In a cold part: the address of the copy of the stencil it belongs to.
    HotPart,
    /// In an inline-cache stub: the key it was made for.
    IcKey,
    /// In an inline-cache stub: the state cached under its key.
    IcState,
    /// Where an inline-cache miss goes: in a stub, the next stub of the chain (or the
    /// instruction's generic code); in the instruction's IC entry, the chain's head.
    IcNext,
    /// In a call inline-cache stub: where its call jumps, the cached callee's entry (repointed
    /// when that entry changes).
    CallTarget,
    /// In an inline-cache stub: derived constant `k` of its state, what the helper
    /// [`StencilTables::ic_derive`]`[k]` returns for it (`ic-state-folding`).
    IcDerived(u16),
    /// In the prologue: the function's number of fixed parameters.
    NumParams,
    /// In the prologue: the size of the function's frame in bytes.
    FrameSize,
}

/// What the JIT needs of one opcode.
#[derive(Debug)]
pub struct VariantRecord {
    pub name: &'static str,
    /// Encoded length in bytes.
    pub length: u32,
    /// The main stencil's id, and the return continuations' in the order
    /// [`HoleValue::Continuation`] indexes them.
    pub main: u16,
    pub continuations: &'static [u16],
    /// The operands that are runtime constants.
    pub operands: &'static [OperandRecord],
    /// Offset of the output slot (`u16`).
    pub output_offset: Option<u32>,
    /// Offset of the branch displacement (`i32`, from the instruction's start).
    pub branch_offset: Option<u32>,
    /// For a variant with a fused inline cache: its IC entry and stubs.
    pub ic: Option<IcRecord>,
}

/// How the JIT lowers a variant's fused inline cache (see `deegen_api::ic`): the instruction's
/// code in line is the IC entry, a `jmp` to the head of a chain of stubs that ends at its
/// generic code (the main stencil, out of line).
#[derive(Debug, Clone, Copy)]
pub struct IcRecord {
    /// The IC entry: `jmp rel32`, whose one hole is [`HoleValue::IcNext`].
    pub entry: u16,
    /// The stub stencil of each kind (the quickened variants' stencils).
    pub stubs: &'static [u16],
    /// Offset of the cache in the instruction: its first entry (key, then state, `u32`s) is
    /// what a fill cached.
    pub cache_offset: u32,
    /// In a quickened variant: the kind of the state its first entry holds (the interpreter
    /// quickened the instruction when it filled the cache), so that a function compiled after
    /// the interpreter warmed its caches starts with a stub for each.
    pub kind: Option<u8>,
    /// The stencil of the variant's generic code with the instruction's operands and
    /// successors as holes, which a site that goes megamorphic copies, like a stub without a
    /// key (`baseline-aot-ic-generic`: the main stencil is a trampoline into the generic code
    /// compiled once, which reads them from the record).
    pub megamorphic: Option<u16>,
    /// A *call* inline cache (`interp-call-ic`) rather than a fused one: its entry (key: the
    /// callee, state: the callee's code block, `u64`s) holds no kind, its one stub calls the
    /// cached callee directly ([`HoleValue::CallTarget`]), and its generic code (the main
    /// stencil) stays in line, right after the IC entry, where the chain ends.
    pub call: bool,
}

/// Where an operand is in the instruction and how its runtime constant is encoded.
#[derive(Debug, Clone, Copy)]
pub struct OperandRecord {
    pub offset: u32,
    /// Field width in bytes (0 for an operand that is not read from the instruction).
    pub width: u8,
    pub signed: bool,
    pub encoding: OperandEncoding,
}
