#![doc = include_str!("../README.md")]

use deegen_api::{runtime_constants, symbols, FRAME_HEADER_SLOTS};
use deegen_bytecode_spec::Variant;
use deegen_llvm_ir::*;
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::values::{BasicValueEnum, CallSiteValue, FunctionValue, PointerValue};

/// The callee of a call whose code block is known (a call inline cache hit): from the cache,
/// or, in a call inline-cache stub (`direct`), the stub's constants, entered by a direct jump.
#[derive(Clone, Copy)]
struct KnownCallee<'ctx> {
    code_block: PointerValue<'ctx>,
    direct: bool,
}

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct LowerInterpApi;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "lower-interp-api",
    description: "lowers the API markers to interpreter code: output stores, dispatch, throw, calls and returns",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Handlers],
    produces: Some(LlvmPhase::Lowered),
};

use deegen_api::hooks::TIER_UP as TIER_UP_HOOK;
use handler_kind::CONTINUATION_BODY;

fn err(message: impl Into<String>) -> PassError {
    PassError::invalid_input(message)
}

impl<'ctx> Pass<LlvmModule<'ctx>> for LowerInterpApi {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let variants = read_variants(module).map_err(err)?;
        let library = read_library(module).map_err(err)?;
        let builder = module.get_context().create_builder();
        let mut changed = false;
        for f in defined_functions(module) {
            let Some(kind) = function_attr(f, HANDLER_KIND_ATTR) else { continue };
            let markers: Vec<CallSiteValue<'ctx>> =
                calls_in(f).into_iter().filter(|c| callee_name(*c).is_some_and(|n| n.starts_with(symbols::API_PREFIX))).collect();
            if markers.is_empty() {
                continue;
            }
            if !handler_kind::runs_semantics(&kind) {
                return Err(err(format!("'{}' is a {kind} function and may not use the API", f.get_name().to_string_lossy())));
            }
            let owner = match function_attr(f, LIBRARY_ATTR) {
                Some(name) => match library.iter().find(|l| l.name == name) {
                    Some(l) => Owner::Library(&l.name),
                    None => {
                        return Err(err(format!(
                            "'{}' belongs to library function '{name}', which !deegen.library does not list",
                            f.get_name().to_string_lossy()
                        )))
                    }
                },
                None => {
                    let opcode: usize = function_attr(f, VARIANT_ATTR)
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| err(format!("'{}' has no valid \"{VARIANT_ATTR}\" attribute", f.get_name().to_string_lossy())))?;
                    Owner::Variant(variants.get(opcode).ok_or_else(|| err(format!("opcode {opcode} has no variant")))?)
                }
            };
            let is_continuation = kind == CONTINUATION_BODY || kind == handler_kind::STENCIL_CONTINUATION_BODY;
            let lowerer = Lowerer { module, builder: &builder, function: f, owner, is_continuation };
            for call in markers {
                lowerer.lower(call)?;
            }
            changed = true;
        }
        Ok(if changed { PreservedAnalyses::none() } else { PreservedAnalyses::all() })
    }
}

impl RegisteredPass<LlvmModule<'_>> for LowerInterpApi {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(LowerInterpApi)
    }
}

struct Lowerer<'a, 'ctx> {
    module: &'a Module<'ctx>,
    builder: &'a Builder<'ctx>,
    function: FunctionValue<'ctx>,
    owner: Owner<'a>,
    is_continuation: bool,
}

/// Whose semantics a function runs: a bytecode variant's, or a library function's (which has
/// no instruction: no output, no next instruction, no branch).
#[derive(Clone, Copy)]
enum Owner<'a> {
    Variant(&'a Variant),
    Library(&'a str),
}

impl<'a, 'ctx> Lowerer<'a, 'ctx> {
    /// The bytecode variant, or an error naming `what` a library function cannot do.
    fn variant(&self, what: &str) -> Result<&'a Variant, PassError> {
        match &self.owner {
            Owner::Variant(v) => Ok(v),
            Owner::Library(name) => {
                Err(self.fail(format!("{what} in library function '{name}', which has no instruction: end it with return_from_function")))
            }
        }
    }

    fn fail(&self, message: impl std::fmt::Display) -> PassError {
        err(format!("{}: {message}", self.function.get_name().to_string_lossy()))
    }

    fn arg(&self, call: CallSiteValue<'ctx>, i: u32) -> Result<BasicValueEnum<'ctx>, PassError> {
        deegen_llvm_ir::call_argument(call, i).map_err(|m| self.fail(m))
    }

    fn arg_ptr(&self, call: CallSiteValue<'ctx>, i: u32) -> Result<PointerValue<'ctx>, PassError> {
        deegen_llvm_ir::pointer_argument(call, i).map_err(|m| self.fail(m))
    }

    fn lower(&self, call: CallSiteValue<'ctx>) -> Result<(), PassError> {
        let marker = callee_name(call).expect("filtered on name");
        let op = &marker[symbols::API_PREFIX.len()..];
        let inst = call_instruction(call);
        self.builder.position_before(&inst);
        let state = PinnedState::of(self.module, self.function);
        let ib = InterpBuilder::new(self.module, self.builder);
        let e = |r: Result<(), String>| r.map_err(|m| self.fail(m));
        let replace = |with: BasicValueEnum<'ctx>| -> Result<(), PassError> {
            let value = call.try_as_basic_value().basic().ok_or_else(|| self.fail(format!("{marker} must return a value")))?;
            if value.get_type() != with.get_type() {
                return Err(self.fail(format!(
                    "{marker} returns {}, expected {}",
                    value.get_type().print_to_string().to_string_lossy(),
                    with.get_type().print_to_string().to_string_lossy()
                )));
            }
            match value {
                BasicValueEnum::PointerValue(p) => p.replace_all_uses_with(with.into_pointer_value()),
                BasicValueEnum::IntValue(i) => i.replace_all_uses_with(with.into_int_value()),
                _ => return Err(self.fail(format!("{marker} has an unexpected type"))),
            }
            inst.erase_from_basic_block();
            Ok(())
        };
        // The interpreter dispatches the next instruction; a stencil jumps to its code.
        let next = |v: &Variant| match state.source {
            OperandSource::Bytecode => ib.byte_offset(state.pc, ib.i64(u64::from(v.length)), "next.pc").and_then(|pc| ib.dispatch(&state, pc)),
            OperandSource::RuntimeConstants => ib.jump_to_code_symbol(&state, runtime_constants::NEXT),
        };
        match op {
            "context" => return replace(state.ctx),
            "stack_base" => return replace(state.base.into()),
            "code_block" => return replace(state.code_block.into()),
            "return_values_ptr" | "return_values_count" => {
                if !self.is_continuation {
                    return Err(self.fail("return_values() is only available in a return continuation"));
                }
                let p = |i| self.function.get_nth_param(i).expect("handler param");
                let value: BasicValueEnum<'ctx> = if op == "return_values_ptr" {
                    self.builder
                        .build_int_to_ptr(p(param::A0).into_int_value(), self.module.get_context().ptr_type(Default::default()), "retvals")
                        .map_err(|x| self.fail(x))?
                        .into()
                } else {
                    p(param::A1)
                };
                return replace(value);
            }
            "return" => {
                let v = self.variant("return(value)")?;
                let out = v.output_offset.ok_or_else(|| self.fail("return(value) in a bytecode that has no output"))?;
                let value = self.arg(call, 0)?;
                let slot = ib.output_slot(&state, out).map_err(|m| self.fail(m))?;
                self.builder.build_store(slot, value).map_err(|x| self.fail(x))?;
                e(next(v))?;
            }
            "fallthrough" => e(next(self.variant("fallthrough()")?))?,
            // An IC stub's miss (`interp-ic-quickening` left it only in stubs).
            "ic_next" if state.source == OperandSource::RuntimeConstants => e(ib.jump_to_code_symbol(&state, runtime_constants::IC_NEXT))?,
            "ic_next" => return Err(self.fail("an inline-cache stub's miss outside a baseline JIT stencil")),
            "take_branch" if state.source == OperandSource::RuntimeConstants => {
                self.variant("take_branch()")?.branch_offset.ok_or_else(|| self.fail("take_branch() in a bytecode that does not branch"))?;
                e(ib.jump_to_code_symbol(&state, runtime_constants::BRANCH))?;
            }
            "take_branch" => {
                let off =
                    self.variant("take_branch()")?.branch_offset.ok_or_else(|| self.fail("take_branch() in a bytecode that does not branch"))?;
                e((|| {
                    let d = ib.load_field(state.pc, off, 4, true, true, "branch.offset")?;
                    let pc = ib.byte_offset(state.pc, d, "branch.target")?;
                    self.count_back_edge(&ib, &state, d, pc)?;
                    ib.dispatch(&state, pc)
                })())?;
            }
            "throw" => {
                let throw = declare_handler(self.module, symbols::THROW);
                let (value, add_position) = (self.arg(call, 0)?, self.arg(call, 1)?);
                let pc = state.pc_here(self.module, self.builder).map_err(|m| self.fail(m))?;
                e(ib.tail_call(
                    TailTarget::Function(throw),
                    &state,
                    pc.into(),
                    state.code_block.into(),
                    [Some(value), Some(add_position), None, None],
                ))?;
            }
            "make_call" => self.lower_make_call(call, &state, &ib, None)?,
            "make_call_in" => {
                let ctx = self.arg(call, 0)?;
                self.lower_make_call_at(call, 1, &PinnedState { ctx, ..state }, &ib, None)?
            }
            "make_tail_call" => {
                self.variant("make_tail_call")?;
                self.lower_make_tail_call(call, &state, &ib, None)?
            }
            _ if marker == MAKE_CALL_WITH_CODE_BLOCK || marker == MAKE_CALL_DIRECT => {
                let known = self.known_callee(call, 3, marker == MAKE_CALL_DIRECT, &state)?;
                self.lower_make_call(call, &state, &ib, Some(known))?
            }
            _ if marker == MAKE_TAIL_CALL_WITH_CODE_BLOCK || marker == MAKE_TAIL_CALL_DIRECT => {
                let known = self.known_callee(call, 2, marker == MAKE_TAIL_CALL_DIRECT, &state)?;
                self.lower_make_tail_call(call, &state, &ib, Some(known))?
            }
            "return_in" => {
                let (ctx, base, values, count) = (self.arg(call, 0)?, self.arg_ptr(call, 1)?, self.arg_ptr(call, 2)?, self.arg(call, 3)?);
                e((|| {
                    let values_i = self.builder.build_ptr_to_int(values, self.module.get_context().i64_type(), "retp").map_err(|x| x.to_string())?;
                    let poison = self.module.get_context().ptr_type(Default::default()).get_poison();
                    let cont = ib.load_ptr(ib.header_slot(base, deegen_api::frame::RETURN_CONTINUATION, "hdr.ret")?, "ret.cont")?;
                    let there = PinnedState { ctx, base, ..state };
                    ib.tail_call(TailTarget::Pointer(cont), &there, poison.into(), poison.into(), [Some(values_i.into()), Some(count), None, None])
                })())?;
            }
            "return_from_function" => {
                let values = self.arg_ptr(call, 0)?;
                let count = self.arg(call, 1)?;
                e((|| {
                    let values_i = self.builder.build_ptr_to_int(values, self.module.get_context().i64_type(), "retp").map_err(|x| x.to_string())?;
                    let poison = self.module.get_context().ptr_type(Default::default()).get_poison();
                    let cont = ib.load_ptr(ib.header_slot(state.base, deegen_api::frame::RETURN_CONTINUATION, "hdr.ret")?, "ret.cont")?;
                    ib.tail_call(TailTarget::Pointer(cont), &state, poison.into(), poison.into(), [Some(values_i.into()), Some(count), None, None])
                })())?;
            }
            "copy_slots" => {
                let (to, from, count) = (self.arg_ptr(call, 0)?, self.arg_ptr(call, 1)?, self.arg(call, 2)?.into_int_value());
                e(self.lower_copy_slots(inst, to, from, count, &ib))?;
                return Ok(());
            }
            // A slow-path statement `type-hint-slow-paths` did not act on (it is an
            // optimisation, which `--opt-bisect-limit` may skip): a hint, no code.
            "cold_path" | "jit_cold_path" => {
                inst.erase_from_basic_block();
                return Ok(());
            }
            _ => return Err(self.fail(format!("unknown API marker '{marker}'"))),
        }
        erase_from(inst);
        Ok(())
    }

    /// `copy_slots(to, from, count)` at `marker`, in the middle of a block: what follows the
    /// marker moves to a block of its own, which the copy's loop (`copy_slots_upwards`) ends
    /// in, and the marker goes.
    fn lower_copy_slots(
        &self,
        marker: inkwell::values::InstructionValue<'ctx>,
        to: PointerValue<'ctx>,
        from: PointerValue<'ctx>,
        count: inkwell::values::IntValue<'ctx>,
        ib: &InterpBuilder<'_, 'ctx>,
    ) -> Result<(), String> {
        use inkwell::values::AsValueRef;
        let at = raw::Value(marker.as_value_ref());
        let block = at.parent();
        let rest = block.split_after(at, "copy.rest", &raw::Builder::new(self.module));
        // `block` is now [.., marker, br rest]; the loop's entry branch goes before the marker.
        let old_branch = block.terminator_value().ok_or("a split block without its branch")?;
        self.builder.position_before(&marker);
        ib.copy_slots_upwards(to, from, count, "copy")?;
        // SAFETY: `rest` is a block of this function, made by the split above.
        let rest = unsafe { inkwell::basic_block::BasicBlock::new(rest.0) }.ok_or("the split made no block")?;
        self.builder.build_unconditional_branch(rest).map_err(|x| x.to_string())?;
        old_branch.erase();
        marker.erase_from_basic_block();
        Ok(())
    }

    /// Moves the callee and its arguments over the current frame (keeping the header, so the
    /// callee returns to our caller) and jumps to the callee's entry. `known_cb` is the callee's
    /// code block when a call inline cache (`interp-call-ic`) already has it.
    fn lower_make_tail_call(
        &self,
        call: CallSiteValue<'ctx>,
        state: &PinnedState<'ctx>,
        ib: &InterpBuilder<'_, 'ctx>,
        known_cb: Option<KnownCallee<'ctx>>,
    ) -> Result<(), PassError> {
        let frame = self.arg_ptr(call, 0)?;
        let num_args = deegen_llvm_ir::int_argument(call, 1).map_err(|m| self.fail(m))?;
        let hook = self.code_block_hook()?;
        (|| -> Result<(), String> {
            let b = self.builder;
            let e = |x: inkwell::builder::BuilderError| x.to_string();
            // The callee's frame replaces the caller's where the caller's own caller put it. A
            // vararg function's entry moved its frame above its extra arguments
            // (`[hdr | params | extras | hdr' | params']`); reusing the moved frame would climb
            // the stack by the arguments at every tail call of a vararg function. The frame
            // header's `#varargs` slot tells: every entry writes it (the count of extra
            // arguments where a vararg entry moved the frame, 0 everywhere else, as the
            // collector and `debug` need), so a count above 0 is a moved frame, without
            // asking which entry the running function has.
            //
            // A branch, not a select: a moved frame is uncommon (a tail call from a vararg
            // function), and computing its original position on every tail call took five
            // instructions and a load more than the test.
            let ctx = self.module.get_context();
            let i64t = ctx.i64_type();
            let num_varargs = ib.load_i64(ib.header_slot(state.base, deegen_api::frame::NUM_VARARGS, "hdr.num_varargs")?, "num_varargs")?;
            let moved = b.build_int_compare(inkwell::IntPredicate::UGT, num_varargs, ib.i64(0), "frame.moved").map_err(e)?;
            let here = b.get_insert_block().ok_or("the builder has no block")?;
            let moved_bb = ctx.append_basic_block(self.function, "tail.frame_moved");
            let join_bb = ctx.append_basic_block(self.function, "tail.frame");
            let branch = b.build_conditional_branch(moved, moved_bb, join_bb).map_err(e)?;
            // Past LLVM's threshold of a predictable branch (99%), which SimplifyCFG does not
            // turn into a select, and above the 1/1000 of a slow path `hot-cold-split` outlines.
            deegen_llvm_ir::weigh_rare_successor(branch, 0, (1, 200))?;
            b.position_at_end(moved_bb);
            let nparams_addr = ib.byte_offset(state.code_block, ib.i64(deegen_api::offsets::CB_NUM_FIXED_PARAMS as u64), "self.nparams.addr")?;
            let nparams32 = b.build_load(ctx.i32_type(), nparams_addr, "self.nparams32").map_err(e)?.into_int_value();
            let nparams = b.build_int_z_extend(nparams32, i64t, "self.nparams").map_err(e)?;
            let below = b
                .build_int_add(b.build_int_add(num_varargs, nparams, "below.args").map_err(e)?, ib.i64(FRAME_HEADER_SLOTS as u64), "below")
                .map_err(e)?;
            let back = b.build_int_neg(below, "back").map_err(e)?;
            let original = ib.slot_address(state.base, back, "original.base")?;
            b.build_unconditional_branch(join_bb).map_err(e)?;
            b.position_at_end(join_bb);
            let phi = b.build_phi(ctx.ptr_type(Default::default()), "tail.base").map_err(e)?;
            phi.add_incoming(&[(&original, moved_bb), (&state.base, here)]);
            let target = phi.as_basic_value().into_pointer_value();
            let callee = ib.load_i64(frame, "callee")?;
            let callee_slot = ib.header_slot(target, deegen_api::frame::CALLEE, "hdr.callee")?;
            b.build_store(callee_slot, callee).map_err(e)?;
            // One more frame lost between the callee and our caller (the count debuggers show
            // as `(tail call)` levels), saturating so it never spills into the base bits.
            let caller_slot = ib.header_slot(target, deegen_api::frame::CALLER_BASE, "hdr.caller_base")?;
            let caller = ib.load_i64(caller_slot, "caller.slot")?;
            // The count is the slot's top bits, so it is saturated exactly when adding one
            // carries out of the word: an add with overflow and a select on its carry (`add;
            // cmovc`). A compare of the count with its maximum was a 64-bit constant that llc
            // then shared with the callee's type check, which grew by two instructions.
            const _: () = assert!(deegen_api::frame::MAX_TAIL_CALLS == u64::MAX >> deegen_api::frame::TAIL_CALLS_SHIFT);
            let add = inkwell::intrinsics::Intrinsic::find("llvm.uadd.with.overflow")
                .and_then(|i| i.get_declaration(self.module, &[i64t.into()]))
                .ok_or("no llvm.uadd.with.overflow.i64")?;
            let sum = b
                .build_call(add, &[caller.into(), ib.i64(1 << deegen_api::frame::TAIL_CALLS_SHIFT).into()], "caller.slot.add")
                .map_err(e)?
                .try_as_basic_value()
                .basic()
                .ok_or("uadd.with.overflow returns a value")?
                .into_struct_value();
            let bumped = b.build_extract_value(sum, 0, "caller.slot.counted").map_err(e)?.into_int_value();
            let saturated = b.build_extract_value(sum, 1, "tail_calls.saturated").map_err(e)?.into_int_value();
            let counted = b.build_select(saturated, caller, bumped, "caller.slot.new").map_err(e)?;
            b.build_store(caller_slot, counted).map_err(e)?;
            let args = ib.slot_address(frame, ib.i64(FRAME_HEADER_SLOTS as u64), "args")?;
            // Down over the frame (`target` is below `args`).
            ib.copy_slots_upwards(target, args, num_args, "tail.args")?;
            self.enter_callee(ib, hook, callee, known_cb, &PinnedState { base: target, ..*state }, num_args.into())
        })()
        .map_err(|m| self.fail(m))
    }

    /// A taken branch's hotness accounting (when the language defines the tier-up hook): when
    /// the branch goes backward (`offset < 0`), decrements the code block's countdown; when it goes
    /// negative, `musttail` to the tier-up thunk with the branch target `pc`, which calls the
    /// hook out of line and goes on there (OSR entry). Leaves the builder where execution
    /// continues otherwise. (Entries count in `interp-create-handlers`' entry thunks.)
    fn count_back_edge(
        &self,
        ib: &InterpBuilder<'_, 'ctx>,
        state: &PinnedState<'ctx>,
        offset: inkwell::values::IntValue<'ctx>,
        pc: PointerValue<'ctx>,
    ) -> Result<(), String> {
        if self.module.get_function(TIER_UP_HOOK).is_none() {
            return Ok(());
        }
        let target = declare_handler(self.module, symbols::TIER_UP_AT);
        let ctx = self.module.get_context();
        let b = self.builder;
        let backward = b.build_int_compare(inkwell::IntPredicate::SLT, offset, ib.i64(0), "backward").map_err(|x| x.to_string())?;
        let count = ctx.append_basic_block(self.function, "hotness.count");
        let hot = ctx.append_basic_block(self.function, "hotness.tier_up");
        let done = ctx.append_basic_block(self.function, "hotness.done");
        b.build_conditional_branch(backward, count, done).map_err(|x| x.to_string())?;
        b.position_at_end(count);
        ib.count_down_hotness(state.code_block, hot, done)?;
        b.position_at_end(hot);
        ib.tail_call(TailTarget::Function(target), state, pc.into(), state.code_block.into(), [None; 4])?;
        b.position_at_end(done);
        Ok(())
    }

    /// Tail-calls the entry point of `callee`'s code block (`known_cb`, or the language hook's
    /// answer) with the frame of `state`.
    fn enter_callee(
        &self,
        ib: &InterpBuilder<'_, 'ctx>,
        hook: FunctionValue<'ctx>,
        callee: inkwell::values::IntValue<'ctx>,
        known_cb: Option<KnownCallee<'ctx>>,
        state: &PinnedState<'ctx>,
        num_args: BasicValueEnum<'ctx>,
    ) -> Result<(), String> {
        let cb = match known_cb {
            Some(k) => k.code_block,
            None => self
                .builder
                .build_call(hook, &[callee.into()], "callee.cb")
                .map_err(|x| x.to_string())?
                .try_as_basic_value()
                .basic()
                .filter(|v| v.is_pointer_value())
                .ok_or("deegen_hook_code_block must return a pointer")?
                .into_pointer_value(),
        };
        let target = match known_cb {
            // A call inline-cache stub's callee: a direct jump to the entry it cached.
            Some(KnownCallee { direct: true, .. }) => TailTarget::Function(declare_handler(self.module, runtime_constants::CALL_IC_TARGET)),
            _ => TailTarget::Pointer(ib.load_ptr(cb, "callee.entry")?),
        };
        let poison = self.module.get_context().ptr_type(Default::default()).get_poison();
        // The entry receives the callee's code block in the pinned register.
        ib.tail_call(target, state, poison.into(), cb.into(), [Some(num_args), None, None, None])
    }

    /// The callee of a cached call marker: its code block is argument `at`; `direct` (a call
    /// stub's) only in a baseline JIT stencil, where the stub's target is a runtime constant.
    fn known_callee(&self, call: CallSiteValue<'ctx>, at: u32, direct: bool, state: &PinnedState<'ctx>) -> Result<KnownCallee<'ctx>, PassError> {
        if direct && state.source != OperandSource::RuntimeConstants {
            return Err(self.fail("a call inline-cache stub's direct call outside a baseline JIT stencil"));
        }
        Ok(KnownCallee { code_block: self.arg_ptr(call, at)?, direct })
    }

    /// The language hook that maps a callee to its code block.
    fn code_block_hook(&self) -> Result<FunctionValue<'ctx>, PassError> {
        self.module
            .get_function(deegen_api::hooks::CODE_BLOCK)
            .ok_or_else(|| self.fail(format!("the semantics do not define {}", deegen_api::hooks::CODE_BLOCK)))
    }

    fn lower_make_call(
        &self,
        call: CallSiteValue<'ctx>,
        state: &PinnedState<'ctx>,
        ib: &InterpBuilder<'_, 'ctx>,
        known_cb: Option<KnownCallee<'ctx>>,
    ) -> Result<(), PassError> {
        self.lower_make_call_at(call, 0, state, ib, known_cb)
    }

    /// `make_call` whose (frame, number of arguments, continuation) are the call's arguments
    /// from `first` on; the callee runs with `state`'s context (`make_call_in` passes another).
    fn lower_make_call_at(
        &self,
        call: CallSiteValue<'ctx>,
        first: u32,
        state: &PinnedState<'ctx>,
        ib: &InterpBuilder<'_, 'ctx>,
        known_cb: Option<KnownCallee<'ctx>>,
    ) -> Result<(), PassError> {
        let frame = self.arg_ptr(call, first)?;
        let num_args = self.arg(call, first + 1)?;
        let k = self.arg_ptr(call, first + 2)?;
        if deegen_llvm_ir::as_function(self.module, k).is_none() {
            return Err(self.fail(
                "the continuation passed to make_call must be a function named at the call (`f as *const ()`), not a value computed at run time",
            ));
        }
        let k_name = k.get_name().to_string_lossy().into_owned();
        // The interpreter returns to the continuation's handler; a stencil to the code the JIT
        // placed for this instruction's continuation.
        let cont = match state.source {
            OperandSource::Bytecode => {
                let handler_name = match self.owner {
                    Owner::Variant(v) => continuation_handler_name(&v.name, &k_name),
                    Owner::Library(lib) => library_continuation_name(lib, &k_name),
                };
                self.module
                    .get_function(&handler_name)
                    .ok_or_else(|| self.fail(format!("no continuation handler '{handler_name}': run interp-create-handlers first")))?
                    .as_global_value()
                    .as_pointer_value()
            }
            OperandSource::RuntimeConstants => {
                wide_runtime_constant(self.module, self.builder, &format!("{}{k_name}", runtime_constants::CONTINUATION_PREFIX), "continuation.code")
                    .map_err(|m| self.fail(m))?
            }
        };
        let hook = self.code_block_hook()?;
        (|| -> Result<(), String> {
            let b = self.builder;
            let new_base = ib.slot_address(frame, ib.i64(FRAME_HEADER_SLOTS as u64), "callee.base")?;
            let hdr = |offset: i64, name: &str| ib.header_slot(new_base, offset, name);
            b.build_store(hdr(deegen_api::frame::CALLER_BASE, "hdr.caller_base")?, state.base).map_err(|x| x.to_string())?;
            b.build_store(hdr(deegen_api::frame::RETURN_CONTINUATION, "hdr.ret")?, cont).map_err(|x| x.to_string())?;
            b.build_store(hdr(deegen_api::frame::CALLER_PC, "hdr.caller_pc")?, state.pc_here(self.module, b)?).map_err(|x| x.to_string())?;
            let callee = ib.load_i64(frame, "callee")?;
            let callee_state = PinnedState { base: new_base, ..*state };
            self.enter_callee(ib, hook, callee, known_cb, &callee_state, num_args)
        })()
        .map_err(|m| self.fail(m))
    }
}
