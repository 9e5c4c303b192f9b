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
    description: "checks every API marker is lowered, internalizes, forbids jump tables, optimizes at O3",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Lowered],
    produces: Some(LlvmPhase::Finalized),
};

/// Symbols the runtime links against.
pub const EXPORTED: [&str; 8] = [
    symbols::ENTER,
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
pub const EXPORTED_TABLES: [&str; 3] = [symbols::DISPATCH_TABLE, symbols::ENTRY_DISPATCH_TABLE, symbols::HANDLER_TABLE];

impl<'ctx> Pass<LlvmModule<'ctx>> for InterpFinalize {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        if module.get_function(symbols::ENTER).is_none() {
            return Err(PassError::invalid_input("the module has no interpreter: run interp-create-handlers first"));
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
        for f in defined_functions(module) {
            let name = f.get_name().to_string_lossy().into_owned();
            if !EXPORTED.contains(&name.as_str()) {
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
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for InterpFinalize {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(InterpFinalize)
    }
}
