#![doc = include_str!("../README.md")]

use std::collections::BTreeSet;

use deegen_api::{frame, offsets, runtime_constants as rc, symbols, FRAME_HEADER_SLOTS};
use deegen_bytecode_spec::{LibFunctionSpec, OperandAccess, Variant};
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, PointerValue};
use inkwell::GlobalVisibility;
use inkwell::{AddressSpace, IntPredicate};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct CreateHandlers;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "interp-create-handlers",
    description: "creates one interpreter handler per bytecode variant and continuation, the thunks and the dispatch table",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Semantics],
    produces: Some(LlvmPhase::Handlers),
};

use deegen_api::hooks::{
    CODE_BLOCK as HOOK_CODE_BLOCK, INSTRUCTION as INSTRUCTION_HOOK, NIL as HOOK_NIL, ON_THROW as HOOK_ON_THROW,
    STACK_OVERFLOW as HOOK_STACK_OVERFLOW, TIER_UP as TIER_UP_HOOK,
};

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for CreateHandlers {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let variants = read_variants(module).map_err(err)?;
        if variants.is_empty() {
            return Err(err("the module carries no !deegen.variants: nothing to generate"));
        }
        if module.get_global(symbols::DISPATCH_TABLE).is_some() {
            return Err(err("the module already has interpreter handlers"));
        }
        for hook in [HOOK_CODE_BLOCK, HOOK_NIL, HOOK_STACK_OVERFLOW, HOOK_ON_THROW] {
            if module.get_function(hook).is_none_or(|f| f.count_basic_blocks() == 0) {
                return Err(err(format!("the semantics do not define the hook '{hook}'")));
            }
        }
        let overflow = module.get_function(HOOK_STACK_OVERFLOW).expect("checked above");
        if overflow.count_params() != 2 || overflow.get_params().iter().any(|p| !p.is_pointer_value()) {
            return Err(err(format!("'{HOOK_STACK_OVERFLOW}' must take the context and the base of the frame that does not fit (two pointers)")));
        }
        let gen = HandlerBuilder::new(module);
        let mut handlers = Vec::new();
        let mut continuations = Vec::new();
        for v in &variants {
            handlers.push(gen.bytecode_handler(v)?);
            let mut these = Vec::new();
            for k in continuations_of(module, &v.semantics) {
                these.push(gen.continuation_handler(v, &k)?);
            }
            continuations.push(these);
        }
        gen.dispatch_table(&handlers);
        if module.get_function(TIER_UP_HOOK).is_some() {
            gen.continuation_table(&continuations);
        }
        let mut catch_table = Vec::new();
        for lib in read_library(module).map_err(err)? {
            catch_table.extend(gen.library_function(&lib)?);
        }
        gen.catch_table(&catch_table);
        gen.thunks().map_err(err)?;
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for CreateHandlers {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(CreateHandlers)
    }
}

/// Continuations passed to `make_call` (or `make_call_in`) by `semantics` or any function it
/// calls, sorted by name.
pub fn continuations_of(module: &Module<'_>, semantics: &str) -> BTreeSet<String> {
    let make_call = format!("{}make_call", symbols::API_PREFIX);
    let make_call_in = format!("{}make_call_in", symbols::API_PREFIX);
    let mut seen = BTreeSet::new();
    let mut work = vec![semantics.to_owned()];
    let mut out = BTreeSet::new();
    while let Some(name) = work.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(f) = module.get_function(&name) else { continue };
        for call in calls_in(f) {
            let Some(callee) = callee_name(call) else { continue };
            let continuation_operand = if callee == make_call {
                Some(2)
            } else if callee == make_call_in {
                Some(3)
            } else {
                None
            };
            if let Some(operand) = continuation_operand {
                if let Some(arg) = call_instruction(call).get_operand(operand).and_then(|o| o.value()) {
                    functions_reaching(module, arg, &mut out, 0);
                }
            } else {
                work.push(callee);
            }
        }
    }
    out
}

/// The functions a value may be: itself, or through `select` and `phi` (optimisation may later
/// fold such a choice into a direct reference, which then needs its handler).
fn functions_reaching<'ctx>(module: &Module<'ctx>, value: inkwell::values::BasicValueEnum<'ctx>, out: &mut BTreeSet<String>, depth: usize) {
    use inkwell::values::{BasicValue, InstructionOpcode};
    if depth > 8 || !value.is_pointer_value() {
        return;
    }
    if let Some(f) = deegen_llvm_ir::as_function(module, value.into_pointer_value()) {
        out.insert(f.get_name().to_string_lossy().into_owned());
        return;
    }
    let Some(inst) = value.as_instruction_value() else { return };
    if matches!(inst.get_opcode(), InstructionOpcode::Select | InstructionOpcode::Phi) {
        for i in 0..inst.get_num_operands() {
            if let Some(v) = inst.get_operand(i).and_then(|o| o.value()) {
                functions_reaching(module, v, out, depth + 1);
            }
        }
    }
}

/// An IR builder's error as this crate's builders report it.
fn be<T>(r: Result<T, inkwell::builder::BuilderError>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

/// How a function entry built by [`HandlerBuilder::function_entry`] runs the first instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryEnd {
    /// Dispatches it in the interpreter.
    Dispatch,
    /// Jumps to the function's baseline JIT code (`CodeBlock::jit_code`).
    JitCode,
    /// Falls through to the first instruction's code: the baseline JIT's prologue stencil.
    Stencil,
}

/// Builds the functions that run a variant's semantics: a bytecode's main component and its
/// return continuations, for the interpreter (handlers) or, with other names and kinds, for the
/// baseline JIT (stencils, `baseline-create-stencils`).
pub struct HandlerBuilder<'a, 'ctx> {
    module: &'a Module<'ctx>,
    builder: inkwell::builder::Builder<'ctx>,
}

impl<'a, 'ctx> HandlerBuilder<'a, 'ctx> {
    pub fn new(module: &'a Module<'ctx>) -> Self {
        HandlerBuilder { module, builder: module.get_context().create_builder() }
    }

    fn ib(&self) -> InterpBuilder<'_, 'ctx> {
        InterpBuilder::new(self.module, &self.builder)
    }

    fn ptr_ty(&self) -> inkwell::types::PointerType<'ctx> {
        self.module.get_context().ptr_type(AddressSpace::default())
    }

    fn semantics(&self, v: &Variant, name: &str) -> Result<FunctionValue<'ctx>, PassError> {
        let f = self
            .module
            .get_function(name)
            .filter(|f| f.count_basic_blocks() > 0)
            .ok_or_else(|| err(format!("variant {}: semantic function '{name}' is not defined in the module", v.name)))?;
        let params: Vec<BasicTypeEnum<'ctx>> = f.get_type().get_param_types().into_iter().filter_map(|t| BasicTypeEnum::try_from(t).ok()).collect();
        if params.len() != v.operands.len() {
            return Err(err(format!(
                "variant {}: '{name}' takes {} parameters but the bytecode has {} operands",
                v.name,
                params.len(),
                v.operands.len()
            )));
        }
        for (ty, op) in params.iter().zip(&v.operands) {
            let ok = match op.access {
                OperandAccess::SlotRef | OperandAccess::InlineCache => ty.is_pointer_type(),
                _ => ty.is_int_type() && ty.into_int_type().get_bit_width() == 64,
            };
            if !ok {
                return Err(err(format!(
                    "variant {}: parameter for operand '{}' of '{name}' must be {}",
                    v.name,
                    op.name,
                    if matches!(op.access, OperandAccess::SlotRef | OperandAccess::InlineCache) { "a pointer" } else { "a 64-bit integer" }
                )));
            }
        }
        Ok(f)
    }

    /// Decodes `v`'s operands with `state` and calls `semantics`; the block ends in `unreachable`.
    fn call_semantics(&self, state: &PinnedState<'ctx>, v: &Variant, semantics: FunctionValue<'ctx>) -> Result<(), PassError> {
        let ib = self.ib();
        let mut args: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
        for op in &v.operands {
            args.push(ib.decode_operand(state, op).map_err(err)?);
        }
        self.builder.build_call(semantics, &args, "").map_err(|e| err(e.to_string()))?;
        self.builder.build_unreachable().map_err(|e| err(e.to_string()))?;
        Ok(())
    }

    fn new_handler(&self, name: &str, kind: &str, opcode: Option<u16>) -> FunctionValue<'ctx> {
        let f = declare_handler(self.module, name);
        set_function_attr(f, HANDLER_KIND_ATTR, kind);
        if let Some(op) = opcode {
            set_function_attr(f, VARIANT_ATTR, &op.to_string());
        }
        let entry = self.module.get_context().append_basic_block(f, "entry");
        self.builder.position_at_end(entry);
        f
    }

    fn bytecode_handler(&self, v: &Variant) -> Result<FunctionValue<'ctx>, PassError> {
        self.main_component(v, &bytecode_handler_name(&v.name), handler_kind::BYTECODE)
    }

    fn continuation_handler(&self, v: &Variant, k: &str) -> Result<FunctionValue<'ctx>, PassError> {
        self.continuation(v, k, &continuation_handler_name(&v.name, k), [handler_kind::CONTINUATION, handler_kind::CONTINUATION_BODY])
    }

    /// [`symbols::CONTINUATION_TABLE`] and [`symbols::CONTINUATION_INDEX`].
    fn continuation_table(&self, per_variant: &[Vec<FunctionValue<'ctx>>]) {
        let ctx = self.module.get_context();
        let ptrs: Vec<PointerValue<'ctx>> = per_variant.iter().flatten().map(|f| f.as_global_value().as_pointer_value()).collect();
        let mut index = vec![0u64];
        for these in per_variant {
            index.push(index.last().copied().unwrap_or(0) + these.len() as u64);
        }
        let index: Vec<_> = index.iter().map(|&i| ctx.i32_type().const_int(i, false)).collect();
        for (name, init) in
            [(symbols::CONTINUATION_TABLE, self.ptr_ty().const_array(&ptrs)), (symbols::CONTINUATION_INDEX, ctx.i32_type().const_array(&index))]
        {
            let g = self.module.add_global(init.get_type(), None, name);
            g.set_initializer(&init);
            g.set_constant(true);
            g.set_linkage(Linkage::External);
            g.set_visibility(GlobalVisibility::Hidden);
        }
    }

    /// A function `name` of kind `kind` that decodes `v`'s operands and runs its semantics.
    pub fn main_component(&self, v: &Variant, name: &str, kind: &str) -> Result<FunctionValue<'ctx>, PassError> {
        let sem = self.semantics(v, &v.semantics)?;
        let h = self.new_handler(name, kind, Some(v.opcode));
        self.call_semantics(&PinnedState::of(self.module, h), v, sem)?;
        Ok(h)
    }

    /// The function `name` a callee returns to (of `kinds[0]`): it restores the caller's state
    /// from the callee's frame header, then tail-calls the body (of `kinds[1]`) that runs the
    /// continuation `k` of `v` with it.
    pub fn continuation(&self, v: &Variant, k: &str, name: &str, kinds: [&str; 2]) -> Result<FunctionValue<'ctx>, PassError> {
        let sem = self.semantics(v, k)?;
        let body = self.new_handler(&format!("{name}__body"), kinds[1], Some(v.opcode));
        body.set_linkage(Linkage::Internal);
        set_function_attr(body, CONTINUATION_ATTR, k);
        self.call_semantics(&PinnedState::of(self.module, body), v, sem)?;
        let h = self.new_handler(name, kinds[0], Some(v.opcode));
        self.restore_caller_and_run(h, k, body)?;
        Ok(h)
    }

    /// Fills `h`, the return continuation running semantic function `k` in `body`: restores the
    /// caller's state (base, instruction, code block) from the returning callee's frame
    /// header and tail-calls `body` with it.
    fn restore_caller_and_run(&self, h: FunctionValue<'ctx>, k: &str, body: FunctionValue<'ctx>) -> Result<(), PassError> {
        set_function_attr(h, CONTINUATION_ATTR, k);
        let state = PinnedState::of(self.module, h);
        let ib = self.ib();
        fn e<T>(r: Result<T, String>) -> Result<T, PassError> {
            r.map_err(err)
        }
        let callee_base = state.base;
        let caller_base = e(ib.load_caller_base(callee_base, "caller.base"))?;
        let caller_pc = e(ib.load_ptr(e(ib.header_slot(callee_base, frame::CALLER_PC, "hdr.caller_pc"))?, "caller.pc"))?;
        // A stencil's continuation belongs to code compiled for one function: its code block
        // is a runtime constant (a `movabs`), not three dependent loads through the frame.
        let cb = if is_stencil_function(h) {
            e(wide_runtime_constant(self.module, &self.builder, deegen_api::runtime_constants::CODE_BLOCK, "caller.cb"))?
        } else {
            let caller_fn_addr = e(ib.header_slot(caller_base, frame::CALLEE, "caller.fn.addr"))?;
            let caller_fn = e(ib.load_i64(caller_fn_addr, "caller.fn"))?;
            self.call_hook_code_block(caller_fn.into())?
        };
        let p = |i| h.get_nth_param(i).expect("handler param");
        let args: Vec<BasicMetadataValueEnum<'ctx>> = vec![
            state.ctx.into(),
            caller_base.into(),
            caller_pc.into(),
            cb.into(),
            state.tag1.into(),
            p(param::A0).into(),
            p(param::A1).into(),
            p(param::A2).into(),
            p(param::A3).into(),
            state.tag2.into(),
        ];
        e(ib.tail_call_args(TailTarget::Function(body), &args))
    }

    /// A library function's semantic function `name`, checked to take `num_params` 64-bit
    /// integers (1 for the body: the number of arguments; 0 for continuations and the catch).
    fn library_semantics(&self, lib: &LibFunctionSpec, name: &str, num_params: usize) -> Result<FunctionValue<'ctx>, PassError> {
        let f = self
            .module
            .get_function(name)
            .filter(|f| f.count_basic_blocks() > 0)
            .ok_or_else(|| err(format!("library function {}: semantic function '{name}' is not defined in the module", lib.name)))?;
        let params = f.get_type().get_param_types();
        let ints = params.iter().all(|t| t.is_int_type() && t.into_int_type().get_bit_width() == 64);
        if params.len() != num_params || !ints {
            let want = if num_params == 1 { "one 64-bit integer (the number of arguments)" } else { "no parameters" };
            return Err(err(format!("library function {}: '{name}' must take {want}", lib.name)));
        }
        Ok(f)
    }

    /// A function of kind `kind` named `name` belonging to library function `lib` that runs
    /// `sem`, passing the number of arguments (`a0`) when `pass_num_args`.
    fn library_handler(
        &self,
        lib: &LibFunctionSpec,
        name: &str,
        kind: &str,
        sem: FunctionValue<'ctx>,
        pass_num_args: bool,
    ) -> Result<FunctionValue<'ctx>, PassError> {
        let h = self.new_handler(name, kind, None);
        set_function_attr(h, LIBRARY_ATTR, &lib.name);
        if pass_num_args {
            // As every entry but a vararg function's: no stale value in the `#varargs` slot,
            // which lies below the frame's top (a precise collector scans it).
            let ib = self.ib();
            let base = PinnedState::of(self.module, h).base;
            let slot = ib.header_slot(base, frame::NUM_VARARGS, "hdr.num_varargs").map_err(err)?;
            self.builder.build_store(slot, ib.i64(0)).map_err(|e| err(e.to_string()))?;
        }
        let args: Vec<BasicMetadataValueEnum<'ctx>> =
            if pass_num_args { vec![h.get_nth_param(param::A0).expect("handler param").into()] } else { Vec::new() };
        self.builder.build_call(sem, &args, "").map_err(|e| err(e.to_string()))?;
        self.builder.build_unreachable().map_err(|e| err(e.to_string()))?;
        Ok(h)
    }

    /// The functions of library function `lib`: its entry (entered like any function, the
    /// number of arguments in `a0`), its return continuations and its catch handler. Returns
    /// the (continuation, catch handler) pairs of the catch table.
    pub fn library_function(&self, lib: &LibFunctionSpec) -> Result<Vec<(FunctionValue<'ctx>, FunctionValue<'ctx>)>, PassError> {
        let sem = self.library_semantics(lib, &lib.semantics, 1)?;
        self.library_handler(lib, &library_entry_name(&lib.name), handler_kind::LIBRARY, sem, true)?;
        let mut continuations = Vec::new();
        let mut reached: BTreeSet<String> = continuations_of(self.module, &lib.semantics);
        if let Some(catch) = &lib.catch {
            reached.extend(continuations_of(self.module, catch));
        }
        for k in reached {
            let k_sem = self.library_semantics(lib, &k, 0)?;
            let name = library_continuation_name(&lib.name, &k);
            let body = self.library_handler(lib, &format!("{name}__body"), handler_kind::CONTINUATION_BODY, k_sem, false)?;
            body.set_linkage(Linkage::Internal);
            set_function_attr(body, CONTINUATION_ATTR, &k);
            let h = self.new_handler(&name, handler_kind::CONTINUATION, None);
            set_function_attr(h, LIBRARY_ATTR, &lib.name);
            self.restore_caller_and_run(h, &k, body)?;
            continuations.push(h);
        }
        let Some(catch) = &lib.catch else { return Ok(Vec::new()) };
        let catch_sem = self.library_semantics(lib, catch, 0)?;
        let catch_handler = self.library_handler(lib, &library_catch_name(&lib.name), handler_kind::LIBRARY, catch_sem, false)?;
        Ok(continuations.into_iter().map(|k| (k, catch_handler)).collect())
    }

    /// [`symbols::LIBRARY_CATCH_TABLE`] and [`symbols::LIBRARY_CATCH_COUNT`].
    fn catch_table(&self, pairs: &[(FunctionValue<'ctx>, FunctionValue<'ctx>)]) {
        let ctx = self.module.get_context();
        let pair_ty = self.ptr_ty().array_type(2);
        let entries: Vec<_> = pairs
            .iter()
            .map(|(k, c)| self.ptr_ty().const_array(&[k.as_global_value().as_pointer_value(), c.as_global_value().as_pointer_value()]))
            .collect();
        let table = pair_ty.const_array(&entries);
        let count = ctx.i32_type().const_int(pairs.len() as u64, false);
        for (name, init) in [(symbols::LIBRARY_CATCH_TABLE, table.into()), (symbols::LIBRARY_CATCH_COUNT, count.into())] {
            let init: BasicValueEnum<'ctx> = init;
            let g = self.module.add_global(init.get_type(), None, name);
            g.set_initializer(&init);
            g.set_constant(true);
            g.set_linkage(Linkage::External);
            g.set_visibility(GlobalVisibility::Hidden);
        }
    }

    fn call_hook_code_block(&self, callee: BasicValueEnum<'ctx>) -> Result<PointerValue<'ctx>, PassError> {
        let hook = self.module.get_function(HOOK_CODE_BLOCK).expect("checked in run");
        let v = self.builder.build_call(hook, &[callee.into()], "cb").map_err(|e| err(e.to_string()))?;
        v.try_as_basic_value()
            .basic()
            .filter(|v| v.is_pointer_value())
            .map(|v| v.into_pointer_value())
            .ok_or_else(|| err(format!("'{HOOK_CODE_BLOCK}' must return a pointer")))
    }

    /// The dispatch table. A language with an instruction hook gets three: the two the
    /// interpreter dispatches through, writable and exported so the runtime can point their
    /// entries at the hook thunks, and a read-only copy of the handlers.
    fn dispatch_table(&self, handlers: &[FunctionValue<'ctx>]) {
        let ptrs: Vec<PointerValue<'ctx>> = handlers.iter().map(|h| h.as_global_value().as_pointer_value()).collect();
        let init = self.ptr_ty().const_array(&ptrs);
        let hookable = self.module.get_function(INSTRUCTION_HOOK).is_some();
        let tables: &[&str] =
            if hookable { &[symbols::DISPATCH_TABLE, symbols::ENTRY_DISPATCH_TABLE, symbols::HANDLER_TABLE] } else { &[symbols::DISPATCH_TABLE] };
        for &name in tables {
            let g = self.module.add_global(init.get_type(), None, name);
            g.set_initializer(&init);
            let read_only = !hookable || name == symbols::HANDLER_TABLE;
            g.set_constant(read_only);
            if hookable {
                // Exported to the runtime linked into the same binary only: hidden, so that a
                // dispatch addresses the table directly instead of loading its address from
                // the GOT.
                g.set_linkage(Linkage::External);
                g.set_visibility(GlobalVisibility::Hidden);
            } else {
                g.set_linkage(Linkage::Internal);
            }
        }
    }

    /// The table the first instruction of a call dispatches through.
    fn entry_dispatch_table(&self) -> &'static str {
        if self.module.get_function(INSTRUCTION_HOOK).is_some() {
            symbols::ENTRY_DISPATCH_TABLE
        } else {
            symbols::DISPATCH_TABLE
        }
    }

    /// Branches on `failed` to a new block that loads the error a runtime function left in the
    /// context, and positions the builder there (for the caller to throw it); returns the error
    /// and the block the success path goes on in.
    fn branch_to_context_error(
        &self,
        f: FunctionValue<'ctx>,
        failed: inkwell::values::IntValue<'ctx>,
        state: &PinnedState<'ctx>,
    ) -> Result<(inkwell::values::IntValue<'ctx>, inkwell::basic_block::BasicBlock<'ctx>), String> {
        let ctx = self.module.get_context();
        let b = &self.builder;
        let ib = self.ib();
        let on_error = ctx.append_basic_block(f, "error");
        let on_ok = ctx.append_basic_block(f, "ok");
        b.build_conditional_branch(failed, on_error, on_ok).map_err(|e| e.to_string())?;
        b.position_at_end(on_error);
        let err_addr =
            ib.byte_offset(state.ctx.into_pointer_value(), ib.i64(std::mem::offset_of!(deegen_api::InterpContext, error) as u64), "ctx.error")?;
        Ok((ib.load_i64(err_addr, "error")?, on_ok))
    }

    /// A function's entry (`entry_bytecode(ctx, base, _, cb, tag1, num_args)`): fills missing
    /// parameters with nil, checks that the frame fits the stack, then runs the first
    /// instruction as `end` says. The vararg entry first moves the header and the fixed
    /// parameters above the extra arguments. With [`EntryEnd::Stencil`] (not vararg) it is the
    /// baseline JIT's per-function prologue, its parameter count and frame size runtime
    /// constants ([`rc::NUM_PARAMS`], [`rc::FRAME_SIZE`]).
    pub fn function_entry(&self, name: &str, kind: &str, vararg: bool, end: EntryEnd) -> Result<FunctionValue<'ctx>, String> {
        if vararg && end == EntryEnd::Stencil {
            return Err(format!("'{name}': a vararg entry is not a stencil"));
        }
        let m = self.module;
        let ctx = m.get_context();
        let i64t = ctx.i64_type();
        let i32t = ctx.i32_type();
        let ib = self.ib();
        let b = &self.builder;
        let throw = declare_handler(m, symbols::THROW);
        let hook = |name: &str| m.get_function(name).ok_or_else(|| format!("the semantics do not define the hook '{name}'"));
        let f = self.new_handler(name, kind, None);
        let state0 = PinnedState::of(self.module, f);
        let p = |i| f.get_nth_param(i).expect("param");
        let base0 = state0.base;
        let cb = state0.code_block;
        // A stencil is copied for one function: its parameter count and frame size are
        // runtime constants (an `imm32` and a `disp32`), not loads from the code block.
        let nparams = if end == EntryEnd::Stencil {
            be(b.build_ptr_to_int(runtime_constant_symbol(m, rc::NUM_PARAMS), i64t, "nparams"))?
        } else {
            let nparams_addr = ib.byte_offset(cb, ib.i64(offsets::CB_NUM_FIXED_PARAMS as u64), "nparams.addr")?;
            be(b.build_int_z_extend(be(b.build_load(i32t, nparams_addr, "nparams32"))?.into_int_value(), i64t, "nparams"))?
        };
        let nil = be(b.build_call(hook(HOOK_NIL)?, &[], "nil"))?.try_as_basic_value().basic().ok_or("nil hook returns a value")?;
        let mut nargs = p(param::A0).into_int_value();
        let mut base = base0;
        if !vararg {
            // The slot is no count here, but it lies below the frame's top: clear what a
            // callee's registers left there, or a precise collector scanning the stack
            // would keep it alive.
            be(b.build_store(ib.header_slot(base0, frame::NUM_VARARGS, "hdr.num_varargs")?, ib.i64(0)))?;
        }
        if vararg {
            let entry_bb = b.get_insert_block().expect("block");
            let move_bb = ctx.append_basic_block(f, "move_frame");
            let join_bb = ctx.append_basic_block(f, "frame_ready");
            let extra = be(b.build_int_compare(IntPredicate::UGT, nargs, nparams, "has_varargs"))?;
            let num_varargs_slot = ib.header_slot(base0, frame::NUM_VARARGS, "hdr.num_varargs")?;
            be(b.build_store(num_varargs_slot, ib.i64(0)))?;
            be(b.build_conditional_branch(extra, move_bb, join_bb))?;
            // [callee hdr | fixed params | extra args]  ->  [.. | extra args | callee hdr | fixed params]
            b.position_at_end(move_bb);
            let shift = be(b.build_int_add(nargs, ib.i64(FRAME_HEADER_SLOTS as u64), "shift"))?;
            let moved = ib.slot_address(base0, shift, "moved.base")?;
            for (offset, what) in
                [(frame::CALLEE, "callee"), (frame::CALLER_BASE, "caller_base"), (frame::RETURN_CONTINUATION, "ret"), (frame::CALLER_PC, "caller_pc")]
            {
                let v = ib.load_i64(ib.header_slot(base0, offset, &format!("old.{what}"))?, what)?;
                be(b.build_store(ib.header_slot(moved, offset, &format!("new.{what}"))?, v))?;
            }
            let num_varargs = be(b.build_int_sub(nargs, nparams, "num_varargs"))?;
            be(b.build_store(ib.header_slot(moved, frame::NUM_VARARGS, "new.num_varargs")?, num_varargs))?;
            // Up past the arguments: the ranges do not overlap (`nparams < nargs`).
            ib.copy_slots_upwards(moved, base0, nparams, "params")?;
            let move_end = b.get_insert_block().expect("block");
            be(b.build_unconditional_branch(join_bb))?;
            b.position_at_end(join_bb);
            let base_phi = be(b.build_phi(self.ptr_ty(), "base"))?;
            base_phi.add_incoming(&[(&base0, entry_bb), (&moved, move_end)]);
            let nargs_phi = be(b.build_phi(i64t, "nargs"))?;
            nargs_phi.add_incoming(&[(&nargs, entry_bb), (&nparams, move_end)]);
            base = base_phi.as_basic_value().into_pointer_value();
            nargs = nargs_phi.as_basic_value().into_int_value();
        }
        let state0 = PinnedState { base, ..state0 };
        let pre = b.get_insert_block().expect("block");
        let fill = ctx.append_basic_block(f, "fill");
        let check = ctx.append_basic_block(f, "check_stack");
        let overflow = ctx.append_basic_block(f, "overflow");
        let run = ctx.append_basic_block(f, "run");
        let needs_fill = be(b.build_int_compare(IntPredicate::ULT, nargs, nparams, "needs_fill"))?;
        let to_fill = be(b.build_conditional_branch(needs_fill, fill, check))?;
        // Calls usually pass every parameter: the fill is laid out of the way, not jumped over.
        deegen_llvm_ir::weigh_uncommon_successor(to_fill, 0)?;
        b.position_at_end(fill);
        let i = be(b.build_phi(i64t, "i"))?;
        let slot = ib.slot_address(base, i.as_basic_value().into_int_value(), "slot")?;
        // Missing arguments are one or two words: a loop as the frame moves' (volatile, not
        // unrolled for a count known at run time). Vectorised, its trip count made every
        // entry compute `nparams - nargs` before the test, two instructions on every call.
        let store = be(b.build_store(slot, nil))?;
        store.set_volatile(true).and_then(|()| store.set_alignment(8)).map_err(|e| e.to_string())?;
        let next = be(b.build_int_add(i.as_basic_value().into_int_value(), ib.i64(1), "i.next"))?;
        i.add_incoming(&[(&nargs, pre), (&next, fill)]);
        let more = be(b.build_int_compare(IntPredicate::ULT, next, nparams, "more"))?;
        let back_edge = be(b.build_conditional_branch(more, fill, check))?;
        ib.forbid_unrolling(back_edge)?;
        b.position_at_end(check);
        let frame_end = if end == EntryEnd::Stencil {
            let bytes = be(b.build_ptr_to_int(runtime_constant_symbol(m, rc::FRAME_SIZE), i64t, "frame_bytes"))?;
            ib.byte_offset(base, bytes, "frame_end")?
        } else {
            let slots_addr = ib.byte_offset(cb, ib.i64(offsets::CB_FRAME_SLOTS as u64), "frame_slots.addr")?;
            let slots = be(b.build_int_z_extend(be(b.build_load(i32t, slots_addr, "frame_slots32"))?.into_int_value(), i64t, "frame_slots"))?;
            ib.slot_address(base, slots, "frame_end")?
        };
        let limit_addr = ib.byte_offset(state0.ctx.into_pointer_value(), ib.i64(offsets::CTX_STACK_LIMIT as u64), "limit.addr")?;
        let limit = ib.load_ptr(limit_addr, "limit")?;
        let end_i = be(b.build_ptr_to_int(frame_end, i64t, "end.i"))?;
        let limit_i = be(b.build_ptr_to_int(limit, i64t, "limit.i"))?;
        let too_big = be(b.build_int_compare(IntPredicate::UGT, end_i, limit_i, "too_big"))?;
        let record = ctx.append_basic_block(f, "record_high_water");
        let fits = ctx.append_basic_block(f, "fits");
        let branch = be(b.build_conditional_branch(too_big, overflow, fits))?;
        // An overflow is once per program at most: out of the way of the call.
        deegen_llvm_ir::set_branch_weights(branch, &[1, 1 << 20])?;
        // Keep the stack's high-water mark (rarely raised, so a predictable branch).
        b.position_at_end(fits);
        let hw_addr = ib.byte_offset(state0.ctx.into_pointer_value(), ib.i64(offsets::CTX_STACK_HIGH_WATER as u64), "high_water.addr")?;
        let hw = be(b.build_ptr_to_int(ib.load_ptr(hw_addr, "high_water")?, i64t, "high_water.i"))?;
        let higher = be(b.build_int_compare(IntPredicate::UGT, end_i, hw, "higher"))?;
        let to_record = be(b.build_conditional_branch(higher, record, run))?;
        // Out of the way, so the usual entry falls through instead of jumping over the store.
        deegen_llvm_ir::weigh_uncommon_successor(to_record, 0)?;
        b.position_at_end(record);
        be(b.build_store(hw_addr, frame_end))?;
        be(b.build_unconditional_branch(run))?;
        // Stack overflow: the error belongs to the caller's frame and instruction.
        b.position_at_end(overflow);
        let error = be(b.build_call(hook(HOOK_STACK_OVERFLOW)?, &[state0.ctx.into(), base.into()], "overflow.error"))?
            .try_as_basic_value()
            .basic()
            .ok_or("stack overflow hook returns a value")?;
        let caller_base = ib.load_caller_base(base, "caller.base")?;
        let caller_pc = ib.load_ptr(ib.header_slot(base, frame::CALLER_PC, "hdr.caller_pc")?, "caller.pc")?;
        let caller_state = PinnedState { base: caller_base, ..state0 };
        ib.tail_call(TailTarget::Function(throw), &caller_state, caller_pc.into(), cb.into(), [Some(error), Some(ib.i64(1).into()), None, None])?;
        b.position_at_end(run);
        match end {
            EntryEnd::Dispatch => {
                // With a baseline JIT, every entry counts the function's hotness down (a call
                // and a tail call alike: a function that only ever leaves by a tail call, such
                // as `function(x) return f(g(x)) end`, never returns); when it runs out, the
                // tier-up thunk compiles it and continues in its code at the first instruction
                // (which it loads itself: live across the branch, the first instruction's
                // address cost a register move on every call).
                if m.get_function(TIER_UP_HOOK).is_some() {
                    let count = ctx.append_basic_block(f, "hotness.count");
                    let hot = ctx.append_basic_block(f, "hotness.tier_up");
                    let done = ctx.append_basic_block(f, "hotness.done");
                    be(b.build_unconditional_branch(count))?;
                    b.position_at_end(count);
                    ib.count_down_hotness(cb, hot, done)?;
                    b.position_at_end(hot);
                    let tier_up = declare_handler(m, symbols::TIER_UP_ENTRY);
                    let poison = self.ptr_ty().get_poison();
                    ib.tail_call(TailTarget::Function(tier_up), &state0, poison.into(), cb.into(), [None; 4])?;
                    b.position_at_end(done);
                }
                let first = ib.load_ptr(ib.byte_offset(cb, ib.i64(offsets::CB_BYTECODE as u64), "bytecode.addr")?, "bytecode")?;
                ib.dispatch_through(self.entry_dispatch_table(), &PinnedState { code_block: cb, pc: first, ..state0 }, first)?;
            }
            EntryEnd::JitCode => {
                let first = ib.load_ptr(ib.byte_offset(cb, ib.i64(offsets::CB_BYTECODE as u64), "bytecode.addr")?, "bytecode")?;
                let code = ib.load_ptr(ib.byte_offset(cb, ib.i64(offsets::CB_JIT_CODE as u64), "jit_code.addr")?, "jit_code")?;
                ib.tail_call(TailTarget::Pointer(code), &state0, first.into(), cb.into(), [None; 4])?;
            }
            // JIT code knows its instructions' addresses: the pc register is not read.
            EntryEnd::Stencil => {
                ib.jump_to_code_symbol(&state0, rc::NEXT)?;
                // A call with fewer arguments than parameters, a frame above the stack's
                // high-water mark: uncommon paths, in the prologue's cold part (out of every
                // function's in-line code, still on the prologue's holes).
                mark_uncommon_path(m, fill)?;
                mark_uncommon_path(m, record)?;
            }
        }
        Ok(f)
    }

    fn thunks(&self) -> Result<(), String> {
        let m = self.module;
        let ctx = m.get_context();
        let i64t = ctx.i64_type();
        let ib = self.ib();
        let b = &self.builder;
        let throw = declare_handler(m, symbols::THROW);
        let hook = |name: &str| m.get_function(name).expect("hooks checked in run");

        // throw(ctx, base, pc, cb, tag1, value, add_position): record; then either continue
        // at the catch handler the hook chose (a library function that catches errors, with
        // its frame), or leave the interpreter.
        {
            set_function_attr(throw, HANDLER_KIND_ATTR, handler_kind::THUNK);
            b.position_at_end(ctx.append_basic_block(throw, "entry"));
            let p = |i| throw.get_nth_param(i).expect("param");
            be(b.build_call(
                hook(HOOK_ON_THROW),
                &[p(param::CTX).into(), p(param::BASE).into(), p(param::PC).into(), p(param::A0).into(), p(param::A1).into()],
                "",
            ))?;
            let state = PinnedState::of(self.module, throw);
            let c = state.ctx.into_pointer_value();
            let entry_addr = ib.byte_offset(c, ib.i64(offsets::CTX_CATCH_ENTRY as u64), "ctx.catch_entry")?;
            let entry = ib.load_ptr(entry_addr, "catch.entry")?;
            let caught = ctx.append_basic_block(throw, "caught");
            let leave = ctx.append_basic_block(throw, "leave");
            be(b.build_conditional_branch(be(b.build_is_null(entry, "uncaught"))?, leave, caught))?;
            b.position_at_end(leave);
            be(b.build_return(None))?;
            b.position_at_end(caught);
            be(b.build_store(entry_addr, self.ptr_ty().const_null()))?;
            let catch_base = ib.load_ptr(ib.byte_offset(c, ib.i64(offsets::CTX_CATCH_BASE as u64), "ctx.catch_base")?, "catch.base")?;
            let callee = ib.load_i64(ib.header_slot(catch_base, frame::CALLEE, "catch.callee.addr")?, "catch.callee")?;
            let cb = self.call_hook_code_block(callee.into()).map_err(|e| e.to_string())?;
            let null = self.ptr_ty().const_null();
            ib.tail_call(TailTarget::Pointer(entry), &PinnedState { base: catch_base, ..state }, null.into(), cb.into(), [None; 4])?;
        }

        // exit(ctx, base, _, _, tag1, ret_ptr, ret_count): hand the results to native code.
        {
            let f = self.new_handler(symbols::EXIT, handler_kind::THUNK, None);
            let p = |i| f.get_nth_param(i).expect("param");
            let c = p(param::CTX).into_pointer_value();
            let ret_ptr = ib.byte_offset(c, ib.i64(offsets::CTX_RET_PTR as u64), "ctx.ret_ptr")?;
            be(b.build_store(ret_ptr, be(b.build_int_to_ptr(p(param::A0).into_int_value(), self.ptr_ty(), "retp"))?))?;
            let ret_count = ib.byte_offset(c, ib.i64(offsets::CTX_RET_COUNT as u64), "ctx.ret_count")?;
            be(b.build_store(ret_count, p(param::A1)))?;
            let status = ib.byte_offset(c, ib.i64(offsets::CTX_STATUS as u64), "ctx.status")?;
            be(b.build_store(status, ib.i64(deegen_api::STATUS_OK)))?;
            be(b.build_return(None))?;
        }

        // entry_bytecode(ctx, base, _, cb, tag1, num_args): see `function_entry`. With a tier-up
        // hook there is a baseline JIT to enter: its entries set up the frame the same way and
        // then jump to the function's compiled code.
        let jit = m.get_function(TIER_UP_HOOK).is_some();
        let mut entries = vec![(symbols::ENTRY_BYTECODE, false, EntryEnd::Dispatch), (symbols::ENTRY_BYTECODE_VARARG, true, EntryEnd::Dispatch)];
        if jit {
            entries.extend([(symbols::JIT_ENTRY_BYTECODE, false, EntryEnd::JitCode), (symbols::JIT_ENTRY_BYTECODE_VARARG, true, EntryEnd::JitCode)]);
        }
        for (name, vararg, end) in entries {
            self.function_entry(name, handler_kind::THUNK, vararg, end)?;
        }

        // entry_native(ctx, base, _, cb, tag1, num_args): call the native function with the C
        // convention, then return its results like a bytecode function would. Every entry gets
        // the callee's code block in the pinned register: the caller just loaded it to find the
        // entry, and reloading it through the frame's callee was two dependent loads per call.
        {
            let f = self.new_handler(symbols::ENTRY_NATIVE, handler_kind::THUNK, None);
            let state0 = PinnedState::of(self.module, f);
            let base = state0.base;
            let cb = state0.code_block;
            // As for a bytecode function without variable arguments: no stale value in the
            // `#varargs` slot.
            be(b.build_store(ib.header_slot(base, frame::NUM_VARARGS, "hdr.num_varargs")?, ib.i64(0)))?;
            let native = ib.load_ptr(ib.byte_offset(cb, ib.i64(offsets::CB_NATIVE as u64), "native.addr")?, "native")?;
            let native_ty = i64t.fn_type(&[self.ptr_ty().into(), self.ptr_ty().into(), i64t.into()], false);
            let n = be(b.build_indirect_call(
                native_ty,
                native,
                &[state0.ctx.into(), base.into(), f.get_nth_param(param::A0).expect("param").into()],
                "nresults",
            ))?
            .try_as_basic_value()
            .basic()
            .ok_or("native call returns a value")?
            .into_int_value();
            let failed = be(b.build_int_compare(IntPredicate::SLT, n, ib.i64(0), "failed"))?;
            let (error, on_ok) = self.branch_to_context_error(f, failed, &state0)?;
            // The error is raised in the native's own frame (no pc: it runs no bytecode), so
            // a message handler and a traceback see the native as the innermost frame, as in
            // 5.1 ("[C]: in function 'error'").
            let no_pc = self.ptr_ty().const_null();
            ib.tail_call(TailTarget::Function(throw), &state0, no_pc.into(), cb.into(), [Some(error.into()), Some(ib.i64(0).into()), None, None])?;
            b.position_at_end(on_ok);
            let cont = ib.load_ptr(ib.header_slot(base, frame::RETURN_CONTINUATION, "hdr.ret")?, "ret.cont")?;
            let base_i = be(b.build_ptr_to_int(base, i64t, "retp"))?;
            let poison = self.ptr_ty().get_poison();
            ib.tail_call(TailTarget::Pointer(cont), &state0, poison.into(), poison.into(), [Some(base_i.into()), Some(n.into()), None, None])?;
        }

        // Tier-up thunks: the hook call lives here, out of the handlers, so nothing in a
        // handler's hot path stays live across a call.
        if let Some(tier_up) = m.get_function(TIER_UP_HOOK) {
            for (name, at_entry) in [(symbols::TIER_UP_AT, false), (symbols::TIER_UP_ENTRY, true)] {
                let f = self.new_handler(name, handler_kind::THUNK, None);
                // Not inlined into the entry's slow path: there its load of the first
                // instruction merged with the entry's own, which then stayed live across the
                // branch (a register move on every call).
                let noinline = inkwell::attributes::Attribute::get_named_enum_kind_id("noinline");
                f.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_enum_attribute(noinline, 0));
                let mut state = PinnedState::of(self.module, f);
                if at_entry {
                    // From a function's entry: its first instruction.
                    let first = ib.load_ptr(ib.byte_offset(state.code_block, ib.i64(offsets::CB_BYTECODE as u64), "bytecode.addr")?, "bytecode")?;
                    state = PinnedState { pc: first, ..state };
                }
                let code = be(b.build_call(tier_up, &[state.ctx.into(), state.code_block.into(), state.pc.into()], "jit.code"))?
                    .try_as_basic_value()
                    .basic()
                    .filter(|v| v.is_pointer_value())
                    .ok_or_else(|| format!("'{TIER_UP_HOOK}' must return a pointer (JIT code to continue at, or null)"))?
                    .into_pointer_value();
                // OSR entry: the hook compiled the function and answered the code of `pc`.
                let enter = ctx.append_basic_block(f, "osr_entry");
                let stay = ctx.append_basic_block(f, "stay");
                let compiled = be(b.build_is_not_null(code, "compiled"))?;
                be(b.build_conditional_branch(compiled, enter, stay))?;
                b.position_at_end(enter);
                ib.tail_call(TailTarget::Pointer(code), &state, state.pc.into(), state.code_block.into(), [None; 4])?;
                b.position_at_end(stay);
                if at_entry {
                    // A function's first instruction, as its entry would have dispatched it (an
                    // instruction hook tells a call from a jump by the table).
                    ib.dispatch_through(self.entry_dispatch_table(), &state, state.pc)?;
                } else {
                    ib.dispatch(&state, state.pc)?;
                }
            }
        }

        // Hook thunks (a language with an instruction hook): the hook call lives here, so the
        // handlers pay nothing for it; the runtime points the dispatch tables here while a
        // hook is set. A non-zero result throws the error the hook left in the context.
        if let Some(hook) = m.get_function(INSTRUCTION_HOOK) {
            for (name, entry) in [(symbols::HOOK_THUNK, 0), (symbols::HOOK_ENTRY_THUNK, 1)] {
                let f = self.new_handler(name, handler_kind::THUNK, None);
                let state = PinnedState::of(self.module, f);
                let status = be(b.build_call(
                    hook,
                    &[state.ctx.into(), state.base.into(), state.pc.into(), state.code_block.into(), ib.i64(entry).into()],
                    "hook.status",
                ))?
                .try_as_basic_value()
                .basic()
                .ok_or("the instruction hook returns a value")?
                .into_int_value();
                let failed = be(b.build_int_compare(IntPredicate::NE, status, ib.i64(0), "hook.failed"))?;
                let (error, run) = self.branch_to_context_error(f, failed, &state)?;
                ib.tail_call(
                    TailTarget::Function(throw),
                    &state,
                    state.pc.into(),
                    state.code_block.into(),
                    [Some(error.into()), Some(ib.i64(0).into()), None, None],
                )?;
                b.position_at_end(run);
                ib.dispatch_through(symbols::HANDLER_TABLE, &state, state.pc)?;
            }
        }

        // resume(ctx, base, values, count): continue a frame suspended in a native call.
        {
            let ty = ctx.void_type().fn_type(&[self.ptr_ty().into(), self.ptr_ty().into(), self.ptr_ty().into(), i64t.into()], false);
            let f = m.add_function(symbols::RESUME, ty, Some(Linkage::External));
            set_function_attr(f, HANDLER_KIND_ATTR, handler_kind::THUNK);
            b.position_at_end(ctx.append_basic_block(f, "entry"));
            let p = |i| f.get_nth_param(i).expect("param");
            let base = p(1).into_pointer_value();
            let cont = ib.load_ptr(ib.header_slot(base, frame::RETURN_CONTINUATION, "hdr.ret")?, "ret.cont")?;
            let values = be(b.build_ptr_to_int(p(2).into_pointer_value(), i64t, "values"))?;
            let poison = self.ptr_ty().get_poison();
            let zero = ib.i64(0);
            let pi = i64t.get_poison();
            let call = be(b.build_indirect_call(
                handler_type(ctx),
                cont,
                &[p(0).into(), base.into(), poison.into(), poison.into(), zero.into(), values.into(), p(3).into(), pi.into(), pi.into(), zero.into()],
                "",
            ))?;
            call.set_call_convention(GHC_CALLING_CONV);
            be(b.build_return(None))?;
        }

        // enter(ctx, base, num_args): the C-convention door into the interpreter.
        {
            let ty = ctx.void_type().fn_type(&[self.ptr_ty().into(), self.ptr_ty().into(), i64t.into()], false);
            let f = m.add_function(symbols::ENTER, ty, Some(Linkage::External));
            set_function_attr(f, HANDLER_KIND_ATTR, handler_kind::THUNK);
            b.position_at_end(ctx.append_basic_block(f, "entry"));
            let p = |i| f.get_nth_param(i).expect("param");
            let base = p(1).into_pointer_value();
            let callee = ib.load_i64(ib.header_slot(base, frame::CALLEE, "callee.addr")?, "callee")?;
            let cb = self.call_hook_code_block(callee.into()).map_err(|e| e.to_string())?;
            let entry = ib.load_ptr(ib.byte_offset(cb, ib.i64(offsets::CB_ENTRY as u64), "entry.addr")?, "entry")?;
            let poison = self.ptr_ty().get_poison();
            let zero = ib.i64(0);
            let pi = i64t.get_poison();
            let call = be(b.build_indirect_call(
                handler_type(ctx),
                entry,
                &[p(0).into(), base.into(), poison.into(), cb.into(), zero.into(), p(2).into(), pi.into(), pi.into(), pi.into(), zero.into()],
                "",
            ))?;
            call.set_call_convention(GHC_CALLING_CONV);
            be(b.build_return(None))?;
        }
        Ok(())
    }
}
