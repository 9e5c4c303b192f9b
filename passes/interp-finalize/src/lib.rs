#![doc = include_str!("../README.md")]

use deegen_api::symbols;
use deegen_llvm_ir::{callee_name, calls_in, defined_functions, run_llvm_pipeline, set_function_attr, LlvmModule, LlvmPhase, TARGET_CPU};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::module::Linkage;

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct InterpFinalize;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "interp-finalize",
    description: "checks every API marker is lowered, internalizes all but the exports (or the stencils), forbids jump tables, optimizes at O3",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Lowered],
    produces: Some(LlvmPhase::Finalized),
};

/// Symbols the runtime (and the baseline JIT's code) links against.
pub const EXPORTED: [&str; 11] = [
    symbols::ENTER,
    // JIT code throws through the interpreter's thunk; the JIT entries exist with a tier-up hook.
    symbols::THROW,
    symbols::JIT_ENTRY_BYTECODE,
    symbols::JIT_ENTRY_BYTECODE_VARARG,
    symbols::RESUME,
    symbols::EXIT,
    symbols::ENTRY_BYTECODE,
    symbols::ENTRY_BYTECODE_VARARG,
    symbols::ENTRY_NATIVE,
    // Only with an instruction hook: the thunks the runtime installs.
    symbols::HOOK_THUNK,
    symbols::HOOK_ENTRY_THUNK,
];

/// Tables the runtime reads or writes (only with an instruction hook: otherwise the dispatch
/// table is read-only and internal, and the optimiser may treat it as a constant).
pub const EXPORTED_TABLES: [&str; 7] = [
    symbols::DISPATCH_TABLE,
    symbols::ENTRY_DISPATCH_TABLE,
    symbols::HANDLER_TABLE,
    symbols::CONTINUATION_TABLE,
    symbols::CONTINUATION_INDEX,
    symbols::LIBRARY_CATCH_TABLE,
    symbols::LIBRARY_CATCH_COUNT,
];

impl<'ctx> Pass<LlvmModule<'ctx>> for InterpFinalize {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        // A baseline JIT module holds stencils instead of an interpreter: they are its exports,
        // each compiled into its own section for the stencil extractor, and so are the helpers
        // they call (which the JIT places once, beside them).
        let is_stencil = |f: inkwell::values::FunctionValue<'_>| {
            deegen_llvm_ir::function_attr(f, deegen_llvm_ir::HANDLER_KIND_ATTR).is_some_and(|k| deegen_llvm_ir::handler_kind::is_stencil_entry(&k))
        };
        let stencil_module = defined_functions(module).into_iter().any(is_stencil);
        if !stencil_module && module.get_function(symbols::ENTER).is_none() {
            return Err(PassError::invalid_input(
                "the module has no interpreter or stencils: run interp-create-handlers or baseline-create-stencils first",
            ));
        }
        let mut leftovers = Vec::new();
        for f in defined_functions(module) {
            if deegen_llvm_ir::function_attr(f, deegen_llvm_ir::HANDLER_KIND_ATTR).is_none() {
                continue;
            }
            for call in calls_in(f) {
                if let Some(name) = callee_name(call).filter(|n| n.starts_with(symbols::API_PREFIX)) {
                    leftovers.push(format!("{} calls {name}", f.get_name().to_string_lossy()));
                }
            }
        }
        if let Some(lattice) = deegen_llvm_ir::read_type_lattice(module).map_err(PassError::invalid_input)? {
            let noinline = inkwell::attributes::Attribute::get_named_enum_kind_id("noinline");
            for (f, _) in deegen_llvm_ir::type_checker_functions(module, &lattice) {
                if f.count_basic_blocks() > 0 && f.get_enum_attribute(inkwell::attributes::AttributeLoc::Function, noinline).is_some() {
                    leftovers.push(format!(
                        "type checker {} is not inlined (run type-check-strength-reduction after inline-semantics)",
                        f.get_name().to_string_lossy()
                    ));
                }
            }
        }
        if !leftovers.is_empty() {
            leftovers.sort();
            leftovers.dedup();
            return Err(PassError::invalid_input(format!("API markers were not lowered or checkers not inlined:\n  {}", leftovers.join("\n  "))));
        }
        if stencil_module {
            // Every function a stencil calls is found beside it or in the same image (the
            // runtime, the interpreter's thunks): hidden, so each call is a direct `rel32` the JIT
            // patches, never an indirect call through a GOT the JIT does not have.
            for f in module.get_functions().filter(|f| f.count_basic_blocks() == 0 && !f.get_name().to_string_lossy().starts_with("llvm.")) {
                f.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
            }
        }
        for f in defined_functions(module) {
            let name = f.get_name().to_string_lossy().into_owned();
            // A library function's entry is its function values' code block entry; its return
            // continuations are what the runtime finds in frame headers (a coroutine's
            // outermost frame returns to `resume`'s).
            let kind = deegen_llvm_ir::function_attr(f, deegen_llvm_ir::HANDLER_KIND_ATTR);
            let library_entry = matches!(kind.as_deref(), Some(deegen_llvm_ir::handler_kind::LIBRARY | deegen_llvm_ir::handler_kind::CONTINUATION))
                && name.starts_with(symbols::LIBRARY_PREFIX)
                && !name.ends_with(symbols::LIBRARY_CATCH_SUFFIX);
            if !(EXPORTED.contains(&name.as_str()) || is_stencil(f) || library_entry) {
                f.set_linkage(Linkage::Internal);
            }
            set_function_attr(f, "no-jump-tables", "true");
            set_function_attr(f, "frame-pointer", "none");
            set_function_attr(f, "target-cpu", TARGET_CPU);
        }
        let mut g = module.get_first_global();
        while let Some(global) = g {
            let exported = EXPORTED_TABLES.contains(&global.get_name().to_string_lossy().as_ref()) && global.get_linkage() == Linkage::External;
            if global.get_initializer().is_some() && !exported {
                global.set_linkage(Linkage::Internal);
            }
            g = global.get_next_global();
        }
        run_llvm_pipeline(module, "default<O3>,globaldce").map_err(|message| PassError::Tool { tool: "LLVM", message })?;
        let markers: Vec<_> = module
            .get_functions()
            .filter(|f| f.count_basic_blocks() == 0 && f.get_name().to_string_lossy().starts_with(symbols::API_PREFIX))
            .collect();
        for m in markers {
            if inkwell::values::BasicValue::get_first_use(&m.as_global_value().as_pointer_value()).is_none() {
                unsafe { m.delete() };
            }
        }
        if stencil_module {
            direct_memory_libcalls(module).map_err(PassError::invalid_input)?;
            for f in defined_functions(module) {
                let section = format!(".text.{}", f.get_name().to_string_lossy());
                f.set_section(Some(&section));
            }
        }
        Ok(PreservedAnalyses::none())
    }
}

/// The code generator turns a `memmove`/`memcpy`/`memset` intrinsic it does not expand into a
/// libcall, through the GOT when the module says so (`RtLibUseGOT`, which rustc sets). A
/// stencil has no GOT: such intrinsics become direct calls of hidden declarations of the C
/// functions, which the JIT patches like any call into the runtime.
fn direct_memory_libcalls(module: &inkwell::module::Module<'_>) -> Result<(), String> {
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
    let i64t = ctx.i64_type();
    let i32t = ctx.i32_type();
    let builder = ctx.create_builder();
    for intrinsic in module.get_functions().filter(|f| f.count_basic_blocks() == 0) {
        let name = intrinsic.get_name().to_string_lossy().into_owned();
        let (libc, is_set) = if name.starts_with("llvm.memmove.p0.p0.i64") {
            ("memmove", false)
        } else if name.starts_with("llvm.memcpy.p0.p0.i64") {
            ("memcpy", false)
        } else if name.starts_with("llvm.memset.p0.i64") {
            ("memset", true)
        } else {
            continue;
        };
        let second: inkwell::types::BasicMetadataTypeEnum<'_> = if is_set { i32t.into() } else { ptr.into() };
        let ty = ptr.fn_type(&[ptr.into(), second, i64t.into()], false);
        let f = module.get_function(libc).unwrap_or_else(|| module.add_function(libc, ty, Some(Linkage::External)));
        f.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
        let calls: Vec<_> = intrinsic_calls(intrinsic);
        for call in calls {
            let args: Vec<_> = (0..3).filter_map(|i| call.get_operand(i).and_then(|o| o.value())).collect();
            if args.len() != 3 {
                return Err(format!("a call of {name} lacks its arguments"));
            }
            builder.position_before(&call);
            let second = if is_set {
                builder.build_int_z_extend(args[1].into_int_value(), i32t, "fill").map_err(|e| e.to_string())?.into()
            } else {
                args[1].into()
            };
            builder.build_call(f, &[args[0].into(), second, args[2].into()], "").map_err(|e| e.to_string())?;
            call.erase_from_basic_block();
        }
    }
    Ok(())
}

/// The call instructions of `f`.
fn intrinsic_calls<'ctx>(f: inkwell::values::FunctionValue<'ctx>) -> Vec<inkwell::values::InstructionValue<'ctx>> {
    let mut out = Vec::new();
    let mut use_ = inkwell::values::BasicValue::get_first_use(&f.as_global_value().as_pointer_value());
    while let Some(u) = use_ {
        use_ = u.get_next_use();
        if let inkwell::values::AnyValueEnum::InstructionValue(inst) = u.get_user() {
            if inst.get_opcode() == inkwell::values::InstructionOpcode::Call {
                out.push(inst);
            }
        }
    }
    out
}

impl RegisteredPass<LlvmModule<'_>> for InterpFinalize {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(InterpFinalize)
    }
}
