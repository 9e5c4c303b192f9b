#![doc = include_str!("../README.md")]

use deegen_llvm_ir::{
    defined_functions, function_attr, read_type_lattice, run_llvm_pipeline, type_checker_functions, LlvmModule, LlvmPhase, HANDLER_KIND_ATTR,
};
use deegen_pass::{AnalysisManager, Pass, PassDescriptor, PassError, PassParams, PipelineError, PreservedAnalyses, RegisteredPass};
use inkwell::attributes::{Attribute, AttributeLoc};

/// See the crate documentation.
#[derive(Debug, Default)]
pub struct InlineSemantics;

/// The pass's one declaration (name, description, parameters, phases).
pub static DESCRIPTOR: PassDescriptor<LlvmPhase> = PassDescriptor {
    name: "inline-semantics",
    description: "inlines semantics and helpers into the generated functions and cleans up (SROA, InstCombine, SimplifyCFG)",
    params: "",
    required: true,
    runs_in: &[LlvmPhase::Handlers],
    produces: None,
};

/// The cleanup run after inlining. InstCombine may need more than one round on the folded
/// specialisations (a literal the variant fixes); reaching its fixpoint is not required.
pub const CLEANUP_PIPELINE: &str = "always-inline,function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg)";

impl<'ctx> Pass<LlvmModule<'ctx>> for InlineSemantics {
    fn run(&mut self, unit: &mut LlvmModule<'ctx>, _: &mut AnalysisManager<LlvmModule<'ctx>>) -> Result<PreservedAnalyses, PassError> {
        let module = &unit.module;
        let functions = defined_functions(module);
        if !functions.iter().any(|f| function_attr(*f, HANDLER_KIND_ATTR).is_some()) {
            return Err(PassError::invalid_input("the module has no generated functions: run interp-create-handlers first"));
        }
        // With a type lattice, the checkers stay calls for type-check-strength-reduction.
        let lattice = read_type_lattice(module).map_err(PassError::invalid_input)?;
        let checkers: Vec<_> = lattice.map(|l| type_checker_functions(module, &l).into_iter().map(|(f, _)| f).collect()).unwrap_or_default();
        let ctx = module.get_context();
        let kind = |name| Attribute::get_named_enum_kind_id(name);
        for f in functions {
            if function_attr(f, HANDLER_KIND_ATTR).is_some() || checkers.contains(&f) {
                continue;
            }
            f.remove_enum_attribute(AttributeLoc::Function, kind("noinline"));
            f.remove_enum_attribute(AttributeLoc::Function, kind("optnone"));
            f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind("alwaysinline"), 0));
        }
        run_llvm_pipeline(module, CLEANUP_PIPELINE).map_err(|message| PassError::Tool { tool: "LLVM", message })?;
        Ok(PreservedAnalyses::none())
    }
}

impl RegisteredPass<LlvmModule<'_>> for InlineSemantics {
    const DESCRIPTOR: &'static PassDescriptor<LlvmPhase> = &DESCRIPTOR;
    fn from_params(params: &PassParams) -> Result<Self, PipelineError> {
        params.expect_only(&[])?;
        Ok(InlineSemantics)
    }
}
