//! The generated interpreter's calling convention and the IR snippets every interpreter pass
//! writes with it (operand decoding, dispatch, tail calls).
//!
//! Every handler is `ghccc void(ctx, base, pc, cb, tag1, a0, a1, a2, a3, tag2)`. Under LLVM's GHC
//! convention the arguments land in R13, RBP, R12, RBX, R14, RSI, RDI, R8, R9, R15: the pinned VM
//! state (ctx, base, pc, code block, two tag registers) sits in registers that C calls preserve,
//! so calling a runtime helper spills none of it, and `a0..a3` carry per-transfer values
//! (argument counts, return values, error values).

use deegen_bytecode_spec::{OperandAccess, ResolvedOperand};
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::module::{Linkage, Module};
use inkwell::types::FunctionType;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;

/// A call of this function (no arguments, no result) says the rest of its block, and what only
/// it reaches, is a slow path nothing branches to: `type-hint-slow-paths` turns a
/// `deegen_api::cold_path()` marker whose block no branch leads to into it (a continuation
/// only a metamethod returns to), the optimizer keeps it in place as an opaque call, and
/// `hot-cold-split` splits the block there and erases it.
pub const COLD_SPLIT_MARKER: &str = "__deegen_split_cold";

/// A call of this function (no arguments, no result) in a baseline JIT stencil says its block,
/// and every block that block dominates, is an uncommon path (`deegen_api::uncommon_path()`):
/// `type-hint-slow-paths` turns the marker into it in stencils (and erases it elsewhere), the
/// optimizer keeps it in place as an opaque call that needs no frame (`Block::needs_frame`),
/// and `baseline-cold-split` gives those blocks a profile count of 0, so that llc moves them
/// into the stencil's cold part, and erases it.
pub const UNCOMMON_PATH_DIRECTIVE: &str = "__deegen_uncommon_path";

/// Declares [`UNCOMMON_PATH_DIRECTIVE`] (`nounwind willreturn`, so the optimizer keeps its
/// calls in place without treating them as calls that may unwind), or returns it.
pub fn uncommon_path_directive<'ctx>(module: &Module<'ctx>) -> FunctionValue<'ctx> {
    module.get_function(UNCOMMON_PATH_DIRECTIVE).unwrap_or_else(|| {
        let ctx = module.get_context();
        let d = module.add_function(UNCOMMON_PATH_DIRECTIVE, ctx.void_type().fn_type(&[], false), Some(Linkage::External));
        for name in ["nounwind", "willreturn"] {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(name);
            d.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
        }
        d
    })
}

/// States that `block` (of a baseline JIT stencil) begins an uncommon path: a call of
/// [`UNCOMMON_PATH_DIRECTIVE`] before its first instruction that is not a phi.
pub fn mark_uncommon_path(module: &Module<'_>, block: inkwell::basic_block::BasicBlock<'_>) -> BuildResult<()> {
    let builder = module.get_context().create_builder();
    let mut first = block.get_first_instruction();
    while let Some(i) = first.filter(|i| i.get_opcode() == inkwell::values::InstructionOpcode::Phi) {
        first = i.get_next_instruction();
    }
    match first {
        Some(first) => builder.position_before(&first),
        None => builder.position_at_end(block),
    }
    builder.build_call(uncommon_path_directive(module), &[], "").map(|_| ()).map_err(|e| e.to_string())
}

/// Branch weights (`!prof`) of an edge into an uncommon path against the other edge of its
/// branch, in an interpreter handler: enough for llc to lay the uncommon side out after the
/// common one (so the common path falls through instead of jumping over it), and far above the
/// 1/1000 at which `hot-cold-split` takes an edge for a slow path and outlines it.
pub const UNCOMMON_BRANCH_WEIGHTS: (u32, u32) = (1, 64);

/// Gives the two-way branch `br` [`UNCOMMON_BRANCH_WEIGHTS`]: successor `uncommon` the small
/// weight. A branch that already has weights keeps them.
pub fn weigh_uncommon_successor(br: inkwell::values::InstructionValue<'_>, uncommon: u32) -> Result<(), String> {
    let ctx = br.get_parent().ok_or("the branch is in no block")?.get_context();
    if br.get_metadata(ctx.get_kind_id("prof")).is_some() {
        return Ok(());
    }
    weigh_rare_successor(br, uncommon, UNCOMMON_BRANCH_WEIGHTS)
}

/// Gives the two-way branch `br` the weights `(rare, usual)`: successor `rare_index` the rare
/// one, replacing any it had.
pub fn weigh_rare_successor(br: inkwell::values::InstructionValue<'_>, rare_index: u32, (rare, usual): (u32, u32)) -> Result<(), String> {
    set_branch_weights(br, &if rare_index == 0 { [rare, usual] } else { [usual, rare] })
}

/// Sets the terminator `br`'s branch weights (`!prof !{!"branch_weights", i32 w0, ...}`), one per
/// successor.
pub fn set_branch_weights(br: inkwell::values::InstructionValue<'_>, weights: &[u32]) -> Result<(), String> {
    let ctx = br.get_parent().ok_or("the branch is in no block")?.get_context();
    let mut ops: Vec<BasicMetadataValueEnum<'_>> = vec![ctx.metadata_string("branch_weights").into()];
    ops.extend(weights.iter().map(|&w| BasicMetadataValueEnum::from(ctx.i32_type().const_int(u64::from(w), false))));
    br.set_metadata(ctx.metadata_node(&ops), ctx.get_kind_id("prof")).map_err(|e| e.to_string())
}

/// Metadata kind on the load of an operand with a type hint: a node of the hinted type names.
pub const HINT_METADATA: &str = "deegen.hint";

/// Metadata kind on the load of a constant whose type the variant knows (a constant-type
/// specialisation): a node of the type names it may have. A fact, unlike a hint:
/// `type-check-strength-reduction` starts from it.
pub const KNOWN_TYPES_METADATA: &str = "deegen.known_types";

/// The lattice mask of a node of type names (`what` names the metadata in errors).
pub fn type_names_mask(
    lattice: &deegen_bytecode_spec::TypeLattice,
    values: Option<Vec<BasicMetadataValueEnum<'_>>>,
    what: &str,
) -> Result<deegen_bytecode_spec::TypeMask, String> {
    let values = values.ok_or_else(|| format!("!{what} must be a node of type names"))?;
    let mut names = Vec::new();
    for v in values {
        let BasicMetadataValueEnum::MetadataValue(m) = v else { return Err(format!("!{what} must hold strings")) };
        let s = m.get_string_value().ok_or_else(|| format!("!{what} must hold strings"))?;
        names.push(String::from_utf8_lossy(s).into_owned());
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mask = lattice.mask(&refs).map_err(|e| format!("!{what}: {e}"))?;
    if mask.is_empty() {
        return Err(format!("!{what} names no type"));
    }
    Ok(mask)
}

/// Metadata kind on a conditional branch: a node holding the index of the successor whose edge
/// is a slow path (`type-hint-slow-paths` sets it, `hot-cold-split` reads it). Not LLVM's branch
/// weights, on purpose: those made SimplifyCFG merge a handler's two type checks into one
/// `setb`/`and` sequence on the fast path.
pub const COLD_EDGE_METADATA: &str = "deegen.cold_edge";

/// Generator-internal API markers (`interp-call-ic` writes them, `lower-interp-api` lowers them):
/// `make_call` / `make_tail_call` with the callee's code block already known, as a fourth
/// (third) argument, from a call inline cache.
pub const MAKE_CALL_WITH_CODE_BLOCK: &str = "__deegen_api_make_call_with_code_block";
pub const MAKE_TAIL_CALL_WITH_CODE_BLOCK: &str = "__deegen_api_make_tail_call_with_code_block";

/// The same call to a callee whose code block and entry are known (in a call inline-cache
/// stub: the runtime constants `CALL_IC_CODE_BLOCK`, `CALL_IC_TARGET`): `(frame, n, k, cb,
/// entry)` or, for a tail call, `(frame, n, cb, entry)`. Lowered to a direct jump to `entry`.
pub const MAKE_CALL_DIRECT: &str = "__deegen_api_make_call_direct";
pub const MAKE_TAIL_CALL_DIRECT: &str = "__deegen_api_make_tail_call_direct";

/// LLVM's number for the GHC calling convention.
pub const GHC_CALLING_CONV: u32 = 10;
/// `musttail` in LLVM's C API (`LLVMTailCallKindMustTail`).
pub const MUST_TAIL: inkwell::values::LLVMTailCallKind = inkwell::values::LLVMTailCallKind::LLVMTailCallKindMustTail;

/// Function attribute naming what a generated function is.
pub const HANDLER_KIND_ATTR: &str = "deegen-handler";
/// Function attribute holding the opcode of the variant a handler implements.
pub const VARIANT_ATTR: &str = "deegen-variant";
/// Function attribute on the functions generated for a library function (its entry, catch
/// handler and continuations, instead of [`VARIANT_ATTR`]): the library function's name.
pub const LIBRARY_ATTR: &str = "deegen-library";
/// Function attribute on a baseline JIT stencil that is the *call inline-cache stub* of its
/// variant's main component (`baseline-create-stencils`; `interp-call-ic` lowers its call).
pub const CALL_IC_STUB_ATTR: &str = "deegen-call-ic-stub";

/// Values of [`CALL_IC_STUB_ATTR`]: what a copy of a main component is for.
pub mod call_ic_stub {
    /// A stub keyed by the callee (the paper's direct call mode).
    pub const DIRECT: &str = "direct";
    /// A stub keyed by the callee's code block (closure call mode).
    pub const CLOSURE: &str = "closure";
    /// The generic code a megamorphic site runs: the main component, whose fills do not
    /// report to the JIT.
    pub const GENERIC: &str = "generic";
}
/// Function attribute on continuation handlers: the semantic function they run.
pub const CONTINUATION_ATTR: &str = "deegen-continuation";

/// Values of [`HANDLER_KIND_ATTR`].
pub mod handler_kind {
    pub const BYTECODE: &str = "bytecode";
    pub const CONTINUATION: &str = "continuation";
    pub const THUNK: &str = "thunk";
    /// The body a continuation handler tail-calls once it restored the caller's frame.
    pub const CONTINUATION_BODY: &str = "continuation-body";
    /// A library function's entry or catch handler: runs its semantics in its own frame (the
    /// function's continuations are [`CONTINUATION`] and [`CONTINUATION_BODY`] functions marked
    /// with `LIBRARY_ATTR`).
    pub const LIBRARY: &str = "library";
    /// A baseline JIT stencil of a bytecode's main component: operands, the instruction's
    /// address and the code that follows are runtime constants (`deegen_api::runtime_constants`).
    pub const STENCIL: &str = "stencil";
    /// A baseline JIT stencil of a return continuation, and the body it tail-calls.
    pub const STENCIL_CONTINUATION: &str = "stencil-continuation";
    pub const STENCIL_CONTINUATION_BODY: &str = "stencil-continuation-body";

    /// Whether functions of this kind run a bytecode's semantics.
    pub fn runs_semantics(kind: &str) -> bool {
        matches!(kind, BYTECODE | CONTINUATION_BODY | STENCIL | STENCIL_CONTINUATION_BODY | LIBRARY)
    }

    /// Whether functions of this kind are a bytecode's main component (in either tier).
    pub fn is_main_component(kind: &str) -> bool {
        matches!(kind, BYTECODE | STENCIL)
    }

    /// Whether functions of this kind are baseline JIT stencils (or their bodies).
    pub fn is_stencil(kind: &str) -> bool {
        matches!(kind, STENCIL | STENCIL_CONTINUATION | STENCIL_CONTINUATION_BODY)
    }

    /// Whether functions of this kind are the stencils the JIT copies per instruction (a
    /// continuation's body is inlined into its stencil; anything else a stencil calls is a
    /// helper placed once).
    pub fn is_stencil_entry(kind: &str) -> bool {
        matches!(kind, STENCIL | STENCIL_CONTINUATION)
    }
}

/// Whether `f` is a baseline JIT stencil or part of one (its `deegen-handler` kind is a
/// stencil's, [`handler_kind::is_stencil`]): the passes that treat JIT code differently from
/// interpreter handlers ask this.
pub fn is_stencil_function(f: FunctionValue<'_>) -> bool {
    crate::function_attr(f, HANDLER_KIND_ATTR).is_some_and(|k| handler_kind::is_stencil(&k))
}

/// Where a generated function finds its instruction's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandSource {
    /// Decoded from the bytecode at the pinned `pc` (the interpreter).
    Bytecode,
    /// Runtime constants the JIT patches in (`deegen_api::runtime_constants`); `pc` is one too.
    RuntimeConstants,
}

/// Positions of the handler parameters.
pub mod param {
    pub const CTX: u32 = 0;
    pub const BASE: u32 = 1;
    pub const PC: u32 = 2;
    pub const CODE_BLOCK: u32 = 3;
    pub const TAG1: u32 = 4;
    pub const A0: u32 = 5;
    pub const A1: u32 = 6;
    pub const A2: u32 = 7;
    pub const A3: u32 = 8;
    pub const TAG2: u32 = 9;
    pub const COUNT: u32 = 10;
}

/// The handler function type.
pub fn handler_type<'ctx>(ctx: ContextRef<'ctx>) -> FunctionType<'ctx> {
    let p = ctx.ptr_type(AddressSpace::default());
    let i = ctx.i64_type();
    ctx.void_type().fn_type(&[p.into(), p.into(), p.into(), p.into(), i.into(), i.into(), i.into(), i.into(), i.into(), i.into()], false)
}

/// Name of the continuation handler for `variant` running semantic function `continuation`.
pub fn continuation_handler_name(variant: &str, continuation: &str) -> String {
    format!("{}{variant}__ret__{continuation}", deegen_api::symbols::HANDLER_PREFIX)
}

/// Entry point of library function `name` (the code block entry of its function values).
pub fn library_entry_name(name: &str) -> String {
    format!("{}{name}", deegen_api::symbols::LIBRARY_PREFIX)
}

/// Catch handler of library function `name`.
pub fn library_catch_name(name: &str) -> String {
    format!("{}{name}{}", deegen_api::symbols::LIBRARY_PREFIX, deegen_api::symbols::LIBRARY_CATCH_SUFFIX)
}

/// Return continuation `continuation` of library function `name`.
pub fn library_continuation_name(name: &str, continuation: &str) -> String {
    format!("{}{name}__ret__{continuation}", deegen_api::symbols::LIBRARY_PREFIX)
}

/// Name of the handler of `variant`.
pub fn bytecode_handler_name(variant: &str) -> String {
    format!("{}{variant}", deegen_api::symbols::HANDLER_PREFIX)
}

/// Adds (or returns) a handler-typed function with the GHC convention.
pub fn declare_handler<'ctx>(module: &Module<'ctx>, name: &str) -> FunctionValue<'ctx> {
    if let Some(f) = module.get_function(name) {
        return f;
    }
    let f = module.add_function(name, handler_type(module.get_context()), Some(Linkage::External));
    f.set_call_conventions(GHC_CALLING_CONV);
    f
}

/// The VM state a handler has in its pinned registers.
#[derive(Clone, Copy, Debug)]
pub struct PinnedState<'ctx> {
    pub ctx: BasicValueEnum<'ctx>,
    pub base: PointerValue<'ctx>,
    /// The instruction's address in a handler (the `pc` register). Poison in a stencil, where
    /// it is a runtime constant: use [`Self::pc_here`], which works in both.
    pub pc: PointerValue<'ctx>,
    pub code_block: PointerValue<'ctx>,
    pub tag1: BasicValueEnum<'ctx>,
    pub tag2: BasicValueEnum<'ctx>,
    pub source: OperandSource,
}

impl<'ctx> PinnedState<'ctx> {
    /// The state as received by `handler`. In a stencil the instruction's address is not a
    /// register but the runtime constant `deegen_api::runtime_constants::PC`.
    pub fn of(module: &Module<'ctx>, handler: FunctionValue<'ctx>) -> Self {
        let p = |i| handler.get_nth_param(i).expect("handler-typed function");
        let stencil = is_stencil_function(handler);
        let (pc, source) = if stencil {
            (module.get_context().ptr_type(AddressSpace::default()).get_poison(), OperandSource::RuntimeConstants)
        } else if crate::function_attr(handler, LIBRARY_ATTR).is_some() {
            // A library function runs no bytecode: its calls record no instruction, so a
            // walk of the stack sees it as a native function's frame.
            (module.get_context().ptr_type(AddressSpace::default()).const_null(), OperandSource::Bytecode)
        } else {
            (p(param::PC).into_pointer_value(), OperandSource::Bytecode)
        };
        PinnedState {
            ctx: p(param::CTX),
            base: p(param::BASE).into_pointer_value(),
            pc,
            code_block: p(param::CODE_BLOCK).into_pointer_value(),
            tag1: p(param::TAG1),
            tag2: p(param::TAG2),
            source,
        }
    }
}

impl<'ctx> PinnedState<'ctx> {
    /// The instruction's address, for use where `builder` stands: the `pc` register in a
    /// handler; in a stencil the runtime constant, materialized right here (a `movabs` where
    /// the value is needed, usually a slow path, rather than one at the top of every stencil).
    pub fn pc_here(&self, module: &Module<'ctx>, builder: &Builder<'ctx>) -> BuildResult<PointerValue<'ctx>> {
        match self.source {
            OperandSource::Bytecode => Ok(self.pc),
            OperandSource::RuntimeConstants => wide_runtime_constant(module, builder, deegen_api::runtime_constants::PC, "rc.pc"),
        }
    }
}

/// A runtime constant that may need all 64 bits (an address into the bytecode, the address
/// of JIT code), materialized by an inline `movabs` whose immediate is the hole. Not a symbol
/// address in the IR: under the small code model LLVM would address such a symbol
/// RIP-relative or store it as a sign-extended `imm32` (it ignores `!absolute_symbol` in both
/// places), which would truncate the value.
pub fn wide_runtime_constant<'ctx>(module: &Module<'ctx>, builder: &Builder<'ctx>, symbol: &str, name: &str) -> BuildResult<PointerValue<'ctx>> {
    runtime_constant_asm(module, builder, format!("{WIDE_ASM_PREFIX}{symbol}{WIDE_ASM_SUFFIX}"), name, false)
}

/// The address of `symbol`, which lies within `rel32` reach of the code that uses it (the
/// JIT places it in the same code cache: a SlowPathData record), materialized by an inline
/// RIP-relative `lea` (a 32-bit PC-relative hole). Not a symbol address in the IR: under the
/// static relocation model LLVM would materialize it as an absolute `imm32`.
///
/// With `pinned`, the `lea` stays where it is written (an asm with side effects): LLVM would
/// otherwise sink it into the block that uses it, which keeps that block from being a bare
/// tail call it can fold into a conditional jump.
pub fn near_runtime_constant<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    symbol: &str,
    name: &str,
    pinned: bool,
) -> BuildResult<PointerValue<'ctx>> {
    runtime_constant_asm(module, builder, format!("leaq {symbol}(%rip), $0"), name, pinned)
}

/// An inline asm without inputs that yields a pointer, free of effects: LLVM may merge copies
/// and move them, like a constant.
fn runtime_constant_asm<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    text: String,
    name: &str,
    pinned: bool,
) -> BuildResult<PointerValue<'ctx>> {
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let ty = ptr.fn_type(&[], false);
    let asm = ctx.create_inline_asm(ty, text, "=r".to_owned(), pinned, false, None, false);
    let call = b(builder.build_indirect_call(ty, asm, &[], name))?;
    for (attr, value) in [("memory", 0), ("nounwind", 0), ("willreturn", 0)] {
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
        call.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_enum_attribute(kind, value));
    }
    Ok(call.try_as_basic_value().basic().ok_or("inline asm returns a value")?.into_pointer_value())
}

const WIDE_ASM_PREFIX: &str = "movabsq $$";
const WIDE_ASM_SUFFIX: &str = ", $0";

/// The symbol a [`wide_runtime_constant`] materializes, read back from its inline asm's text
/// (`None` for any other assembly).
pub fn wide_runtime_constant_symbol(asm: &str) -> Option<&str> {
    asm.strip_prefix(WIDE_ASM_PREFIX)?.strip_suffix(WIDE_ASM_SUFFIX)
}

/// The address of the runtime-constant (or JIT code) symbol `name`: an external, hidden
/// byte array the stencil's code refers to, declared on first use. Its value range is
/// `runtime-constant-range`'s to give (`!absolute_symbol`).
pub fn runtime_constant_symbol<'ctx>(module: &Module<'ctx>, name: &str) -> PointerValue<'ctx> {
    let g = module.get_global(name).unwrap_or_else(|| {
        let ty = module.get_context().i8_type().array_type(0);
        let g = module.add_global(ty, None, name);
        g.set_linkage(Linkage::External);
        // Hidden: defined in the same image, so LLVM uses the symbol's value directly rather
        // than loading it from the GOT (hidden implies `dso_local`).
        g.set_visibility(inkwell::GlobalVisibility::Hidden);
        g
    });
    g.as_pointer_value()
}

/// IR-building helpers over one builder.
pub struct InterpBuilder<'a, 'ctx> {
    pub module: &'a Module<'ctx>,
    pub builder: &'a Builder<'ctx>,
}

type BuildResult<T> = Result<T, String>;

fn b<T>(r: Result<T, inkwell::builder::BuilderError>) -> BuildResult<T> {
    r.map_err(|e| format!("LLVM builder: {e}"))
}

impl<'a, 'ctx> InterpBuilder<'a, 'ctx> {
    pub fn new(module: &'a Module<'ctx>, builder: &'a Builder<'ctx>) -> Self {
        Self { module, builder }
    }

    fn ctx(&self) -> ContextRef<'ctx> {
        self.module.get_context()
    }

    pub fn i64(&self, v: u64) -> IntValue<'ctx> {
        self.ctx().i64_type().const_int(v, false)
    }

    /// `ptr + offset` in bytes.
    pub fn byte_offset(&self, ptr: PointerValue<'ctx>, offset: IntValue<'ctx>, name: &str) -> BuildResult<PointerValue<'ctx>> {
        unsafe { b(self.builder.build_gep(self.ctx().i8_type(), ptr, &[offset], name)) }
    }

    /// `ptr + index * 8`.
    pub fn slot_address(&self, base: PointerValue<'ctx>, index: IntValue<'ctx>, name: &str) -> BuildResult<PointerValue<'ctx>> {
        unsafe { b(self.builder.build_gep(self.ctx().i64_type(), base, &[index], name)) }
    }

    pub fn load_i64(&self, ptr: PointerValue<'ctx>, name: &str) -> BuildResult<IntValue<'ctx>> {
        Ok(b(self.builder.build_load(self.ctx().i64_type(), ptr, name))?.into_int_value())
    }

    /// Copies `count` stack slots from `src` to `dest`, one word at a time upwards, at the
    /// insertion point (which moves to the block after the copy). Correct where `dest <= src`
    /// or the ranges do not overlap (a tail call's arguments moving down over the frame, a
    /// vararg entry's parameters moving up past the arguments).
    ///
    /// A loop rather than `memmove`: a frame moves a few words, and the call made every tail
    /// call and every vararg entry leave the handler's fast path (`hot-cold-split` outlines what
    /// calls), with a stack frame and a trip through the C library: 70 instructions around a
    /// move of one or two arguments. The accesses are volatile so that LLVM's loop idioms do not
    /// make the call again.
    pub fn copy_slots_upwards(&self, dest: PointerValue<'ctx>, src: PointerValue<'ctx>, count: IntValue<'ctx>, name: &str) -> BuildResult<()> {
        let bd = self.builder;
        let entry = bd.get_insert_block().ok_or("the builder has no block")?;
        let f = entry.get_parent().ok_or("a block outside a function")?;
        let ctx = self.ctx();
        let head = ctx.append_basic_block(f, &format!("{name}.head"));
        let body = ctx.append_basic_block(f, &format!("{name}.body"));
        let done = ctx.append_basic_block(f, &format!("{name}.done"));
        b(bd.build_unconditional_branch(head))?;
        bd.position_at_end(head);
        let i = b(bd.build_phi(ctx.i64_type(), &format!("{name}.i")))?;
        let index = i.as_basic_value().into_int_value();
        let more = b(bd.build_int_compare(inkwell::IntPredicate::ULT, index, count, &format!("{name}.more")))?;
        b(bd.build_conditional_branch(more, body, done))?;
        bd.position_at_end(body);
        let from = self.slot_address(src, index, &format!("{name}.from"))?;
        let v = self.load_i64(from, &format!("{name}.value"))?;
        let load = v.as_instruction().ok_or("a load that is not an instruction")?;
        load.set_volatile(true).and_then(|()| load.set_alignment(8)).map_err(|e| e.to_string())?;
        let to = self.slot_address(dest, index, &format!("{name}.to"))?;
        let store = b(bd.build_store(to, v))?;
        store.set_volatile(true).and_then(|()| store.set_alignment(8)).map_err(|e| e.to_string())?;
        let next = b(bd.build_int_add(index, self.i64(1), &format!("{name}.next")))?;
        let back_edge = b(bd.build_unconditional_branch(head))?;
        self.forbid_unrolling(back_edge)?;
        i.add_incoming(&[(&self.i64(0), entry), (&next, body)]);
        bd.position_at_end(done);
        Ok(())
    }

    /// Marks the loop whose back edge is `back_edge` not to be unrolled for a count known only
    /// at run time (`llvm.loop` with `llvm.loop.unroll.runtime.disable`): a frame move copies a
    /// few words, and LLVM's runtime unrolling by four made every tail-call stencil about 100
    /// bytes longer. A count the optimizer knows (a variant specialised on it, as `TailCall`
    /// is on 0 to 3 arguments) is still unrolled in full: one load and store per slot, no
    /// loop (the whole of `llvm.loop.unroll.disable` forbade that too). A loop ID must
    /// refer to itself, which inkwell's metadata builder cannot make: a temporary node stands
    /// for it until the node exists.
    pub fn forbid_unrolling(&self, back_edge: inkwell::values::InstructionValue<'ctx>) -> BuildResult<()> {
        use inkwell::context::AsContextRef;
        use inkwell::llvm_sys::core::{LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMMetadataAsValue, LLVMSetMetadata};
        use inkwell::llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
        use inkwell::values::AsValueRef;
        let ctx = self.ctx();
        let kind = ctx.get_kind_id("llvm.loop");
        // SAFETY: plain metadata construction in the builder's context; the temporary node
        // is replaced (and freed) by the RAUW before anything else sees it.
        unsafe {
            let raw_ctx = ctx.as_ctx_ref();
            let text = "llvm.loop.unroll.runtime.disable";
            let name = LLVMMDStringInContext2(raw_ctx, text.as_ptr() as *const _, text.len());
            let mut disable_ops = [name];
            let disable = LLVMMDNodeInContext2(raw_ctx, disable_ops.as_mut_ptr(), 1);
            let temp = LLVMTemporaryMDNode(raw_ctx, std::ptr::null_mut(), 0);
            let mut ops = [temp, disable];
            let loop_id = LLVMMDNodeInContext2(raw_ctx, ops.as_mut_ptr(), 2);
            LLVMMetadataReplaceAllUsesWith(temp, loop_id);
            LLVMSetMetadata(back_edge.as_value_ref(), kind, LLVMMetadataAsValue(raw_ctx, loop_id));
        }
        Ok(())
    }

    /// Counts the hotness of `code_block` (`CodeBlock::hotness`) down by one, at the insertion
    /// point in a block named `hotness.count`, and branches to `hot` when it ran out (went
    /// negative), to `done` otherwise: the tier-up count of a back edge and of an entry.
    pub fn count_down_hotness(
        &self,
        code_block: PointerValue<'ctx>,
        hot: inkwell::basic_block::BasicBlock<'ctx>,
        done: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> BuildResult<()> {
        let addr = self.byte_offset(code_block, self.i64(deegen_api::offsets::CB_HOTNESS as u64), "hotness.addr")?;
        let h = self.load_i64(addr, "hotness")?;
        let h1 = b(self.builder.build_int_sub(h, self.i64(1), "hotness.next"))?;
        b(self.builder.build_store(addr, h1))?;
        let ran_out = b(self.builder.build_int_compare(inkwell::IntPredicate::SLT, h1, self.i64(0), "hotness.ran_out"))?;
        b(self.builder.build_conditional_branch(ran_out, hot, done))?;
        Ok(())
    }

    /// A load of a function's constant table, which never changes once the function exists
    /// (`!invariant.load`): `hot-cold-split` may then load it again in a slow path instead of
    /// the fast path loading it for the slow path's sake.
    pub fn load_constant(&self, ptr: PointerValue<'ctx>, name: &str) -> BuildResult<IntValue<'ctx>> {
        let v = self.load_i64(ptr, name)?;
        self.mark_invariant(v.as_instruction().ok_or("a load that is not an instruction")?)?;
        Ok(v)
    }

    /// Says of `load` that the memory it reads never changes (`!invariant.load`).
    fn mark_invariant(&self, load: inkwell::values::InstructionValue<'ctx>) -> BuildResult<()> {
        let ctx = self.ctx();
        load.set_metadata(ctx.metadata_node(&[]), ctx.get_kind_id("invariant.load")).map_err(|e| e.to_string())
    }

    pub fn load_ptr(&self, ptr: PointerValue<'ctx>, name: &str) -> BuildResult<PointerValue<'ctx>> {
        Ok(b(self.builder.build_load(self.ctx().ptr_type(AddressSpace::default()), ptr, name))?.into_pointer_value())
    }

    /// The address of header slot `offset` (see `deegen_api::frame`) of the frame at `base`.
    pub fn header_slot(&self, base: PointerValue<'ctx>, offset: i64, name: &str) -> BuildResult<PointerValue<'ctx>> {
        self.slot_address(base, self.i64(offset as u64), name)
    }

    /// The caller's frame base recorded in the header of the frame at `base`, without the
    /// tail-call count kept in the slot's top bits (`deegen_api::frame::caller_base`).
    pub fn load_caller_base(&self, base: PointerValue<'ctx>, name: &str) -> BuildResult<PointerValue<'ctx>> {
        let slot = self.load_i64(self.header_slot(base, deegen_api::frame::CALLER_BASE, "hdr.caller_base")?, &format!("{name}.slot"))?;
        let bits = b(self.builder.build_and(slot, self.i64(deegen_api::frame::CALLER_BASE_MASK), &format!("{name}.bits")))?;
        b(self.builder.build_int_to_ptr(bits, self.ctx().ptr_type(AddressSpace::default()), name))
    }

    /// Loads a `width`-byte integer at `pc + offset` and extends it to i64. An `immutable` field
    /// (an operand, the output slot, a branch offset: everything but the opcode, which
    /// quickening rewrites, and inline caches, which are not read this way) never changes once
    /// the bytecode exists, and its load says so (`!invariant.load`): `hot-cold-split` may then
    /// decode it again in a slow path instead of the fast path decoding it for the slow path.
    pub fn load_field(
        &self,
        pc: PointerValue<'ctx>,
        offset: u32,
        width: u32,
        signed: bool,
        immutable: bool,
        name: &str,
    ) -> BuildResult<IntValue<'ctx>> {
        let ty = match width {
            1 => self.ctx().i8_type(),
            2 => self.ctx().i16_type(),
            4 => self.ctx().i32_type(),
            8 => self.ctx().i64_type(),
            _ => return Err(format!("operand '{name}' has width {width}")),
        };
        let addr = self.byte_offset(pc, self.i64(u64::from(offset)), &format!("{name}.addr"))?;
        let load = b(self.builder.build_load(ty, addr, &format!("{name}.raw")))?;
        if let Some(inst) = inkwell::values::AnyValue::as_any_value_enum(&load).into_int_value().as_instruction() {
            inst.set_alignment(1).map_err(|e| e.to_string())?;
            if immutable {
                self.mark_invariant(inst)?;
            }
        }
        let raw = load.into_int_value();
        if width == 8 {
            return Ok(raw);
        }
        if signed {
            b(self.builder.build_int_s_extend(raw, self.ctx().i64_type(), name))
        } else {
            b(self.builder.build_int_z_extend(raw, self.ctx().i64_type(), name))
        }
    }

    /// Decodes one operand of the instruction at `state.pc` into what the semantics receive. A
    /// value operand with a type hint carries it as [`HINT_METADATA`] on its load.
    pub fn decode_operand(&self, state: &PinnedState<'ctx>, op: &ResolvedOperand) -> BuildResult<BasicMetadataValueEnum<'ctx>> {
        if state.source == OperandSource::RuntimeConstants {
            return self.operand_from_runtime_constant(state, op);
        }
        if op.access == OperandAccess::InlineCache {
            // The cache's address in the instruction (the semantics read and write it).
            return Ok(self.byte_offset(state.pc, self.i64(u64::from(op.offset)), &format!("{}.ic", op.name))?.into());
        }
        if let Some(v) = op.fixed {
            // A literal the variant is specialised on: a constant of the handler.
            return Ok(self.ctx().i64_type().const_int(v as u64, true).into());
        }
        let signed = matches!(op.access, OperandAccess::Literal { signed: true });
        let raw = self.load_field(state.pc, op.offset, op.width, signed, true, &op.name)?;
        let value = match op.access {
            OperandAccess::Literal { .. } => return Ok(raw.into()),
            OperandAccess::SlotRef => return Ok(self.slot_address(state.base, raw, &format!("{}.slot", op.name))?.into()),
            OperandAccess::Slot => {
                let addr = self.slot_address(state.base, raw, &format!("{}.slot", op.name))?;
                self.load_i64(addr, &format!("{}.value", op.name))?
            }
            OperandAccess::InlineCache => unreachable!("returned above"),
            OperandAccess::Constant => {
                // Constant i lives at cb - 8 * (i + 1).
                let neg = b(self.builder.build_int_sub(self.i64(u64::MAX), raw, &format!("{}.negidx", op.name)))?;
                let addr = self.slot_address(state.code_block, neg, &format!("{}.const", op.name))?;
                self.load_constant(addr, &format!("{}.value", op.name))?
            }
        };
        self.annotate_operand(value, op)?;
        Ok(value.into())
    }

    /// The operand of a stencil: its runtime constant, read back as the semantics expect it
    /// (see `deegen_api::runtime_constants::OperandEncoding`).
    fn operand_from_runtime_constant(&self, state: &PinnedState<'ctx>, op: &ResolvedOperand) -> BuildResult<BasicMetadataValueEnum<'ctx>> {
        use deegen_api::runtime_constants::{OperandEncoding, CONSTANT_BIAS};
        let Some(encoding) = op.runtime_constant_encoding() else {
            let v = op.fixed.expect("only fixed operands have no runtime constant");
            return Ok(self.ctx().i64_type().const_int(v as u64, true).into());
        };
        if encoding.needs_64_bits(op.width) {
            let p = wide_runtime_constant(self.module, self.builder, &op.runtime_constant_symbol(), &format!("{}.rc", op.name))?;
            // An inline cache is its address; a literal the address's value.
            if let OperandEncoding::Address { .. } = encoding {
                return Ok(p.into());
            }
            return Ok(b(self.builder.build_ptr_to_int(p, self.ctx().i64_type(), &op.name))?.into());
        }
        let symbol = runtime_constant_symbol(self.module, &op.runtime_constant_symbol());
        let rc = b(self.builder.build_ptr_to_int(symbol, self.ctx().i64_type(), &format!("{}.rc", op.name)))?;
        let value = match encoding {
            OperandEncoding::Unsigned => return Ok(rc.into()),
            OperandEncoding::Signed { .. } => {
                return Ok(b(self.builder.build_int_sub(rc, self.i64(encoding.signed_bias()), &op.name))?.into());
            }
            OperandEncoding::SlotOffset => {
                let addr = self.byte_offset(state.base, rc, &format!("{}.slot", op.name))?;
                if op.access == OperandAccess::SlotRef {
                    return Ok(addr.into());
                }
                self.load_i64(addr, &format!("{}.value", op.name))?
            }
            OperandEncoding::ConstantOffset => {
                let offset = b(self.builder.build_int_sub(rc, self.i64(CONSTANT_BIAS), &format!("{}.offset", op.name)))?;
                let addr = self.byte_offset(state.code_block, offset, &format!("{}.const", op.name))?;
                self.load_constant(addr, &format!("{}.value", op.name))?
            }
            OperandEncoding::Address { .. } => unreachable!("returned above"),
        };
        self.annotate_operand(value, op)?;
        Ok(value.into())
    }

    /// The operand's type hint (`type-hint-slow-paths`) and known types
    /// (`type-check-strength-reduction`) ride on the load that decodes it.
    fn annotate_operand(&self, value: IntValue<'ctx>, op: &ResolvedOperand) -> BuildResult<()> {
        for (types, kind) in [(&op.hint, HINT_METADATA), (&op.known, KNOWN_TYPES_METADATA)] {
            if types.is_empty() {
                continue;
            }
            let ctx = self.ctx();
            let names: Vec<_> = types.iter().map(|t| ctx.metadata_string(t).into()).collect();
            let inst = value.as_instruction().ok_or("a decoded operand is a load")?;
            inst.set_metadata(ctx.metadata_node(&names), ctx.get_kind_id(kind)).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The address of the output slot of the instruction `variant` (at `output_offset`).
    pub fn output_slot(&self, state: &PinnedState<'ctx>, output_offset: u32) -> BuildResult<PointerValue<'ctx>> {
        match state.source {
            OperandSource::Bytecode => {
                let idx = self.load_field(state.pc, output_offset, 2, false, true, "output")?;
                self.slot_address(state.base, idx, "output.slot")
            }
            OperandSource::RuntimeConstants => {
                let symbol = runtime_constant_symbol(self.module, deegen_api::runtime_constants::OUTPUT);
                let rc = b(self.builder.build_ptr_to_int(symbol, self.ctx().i64_type(), "output.rc"))?;
                self.byte_offset(state.base, rc, "output.slot")
            }
        }
    }

    /// `musttail` to the JIT code named by the symbol `name` (the next instruction's, the
    /// branch target's) with the pinned state.
    pub fn jump_to_code_symbol(&self, state: &PinnedState<'ctx>, name: &str) -> BuildResult<()> {
        let target = declare_handler(self.module, name);
        let poison = self.ctx().ptr_type(AddressSpace::default()).get_poison();
        self.tail_call(TailTarget::Function(target), state, poison.into(), state.code_block.into(), [None; 4])
    }

    /// `musttail` GHC call to `target` with the pinned state and four transfer values, then
    /// `ret void`. Terminates the current block.
    pub fn tail_call(
        &self,
        target: TailTarget<'ctx>,
        state: &PinnedState<'ctx>,
        pc: BasicValueEnum<'ctx>,
        code_block: BasicValueEnum<'ctx>,
        extra: [Option<BasicValueEnum<'ctx>>; 4],
    ) -> BuildResult<()> {
        let i64t = self.ctx().i64_type();
        let poison_i64: BasicValueEnum<'ctx> = i64t.get_poison().into();
        let mut args: Vec<BasicMetadataValueEnum<'ctx>> = vec![state.ctx.into(), state.base.into(), pc.into(), code_block.into(), state.tag1.into()];
        args.extend(extra.iter().map(|e| BasicMetadataValueEnum::from(e.unwrap_or(poison_i64))));
        args.push(state.tag2.into());
        self.tail_call_args(target, &args)
    }

    /// Like [`Self::tail_call`] with every argument given.
    pub fn tail_call_args(&self, target: TailTarget<'ctx>, args: &[BasicMetadataValueEnum<'ctx>]) -> BuildResult<()> {
        let call = match target {
            TailTarget::Function(f) => b(self.builder.build_call(f, args, ""))?,
            TailTarget::Pointer(p) => b(self.builder.build_indirect_call(handler_type(self.ctx()), p, args, ""))?,
        };
        call.set_call_convention(GHC_CALLING_CONV);
        call.set_tail_call_kind(MUST_TAIL);
        b(self.builder.build_return(None))?;
        Ok(())
    }

    /// Dispatches to the instruction at `pc`: loads its opcode, looks up the handler, tail-calls it.
    pub fn dispatch(&self, state: &PinnedState<'ctx>, pc: PointerValue<'ctx>) -> BuildResult<()> {
        self.dispatch_through(deegen_api::symbols::DISPATCH_TABLE, state, pc)
    }

    /// [`Self::dispatch`] through the table named `table`.
    pub fn dispatch_through(&self, table: &str, state: &PinnedState<'ctx>, pc: PointerValue<'ctx>) -> BuildResult<()> {
        let table = self.module.get_global(table).ok_or_else(|| format!("the module has no table '{table}': run interp-create-handlers first"))?;
        let opcode = self.load_field(pc, 0, 2, false, false, "next.opcode")?;
        let slot = self.slot_address(table.as_pointer_value(), opcode, "next.handler.addr")?;
        let handler = self.load_ptr(slot, "next.handler")?;
        self.tail_call(TailTarget::Pointer(handler), state, pc.into(), state.code_block.into(), [None; 4])
    }
}

/// What a tail call goes to.
#[derive(Clone, Copy, Debug)]
pub enum TailTarget<'ctx> {
    Function(FunctionValue<'ctx>),
    Pointer(PointerValue<'ctx>),
}
