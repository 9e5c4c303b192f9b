//! The registry of every pass, per IR kind (LLVM's `PassRegistry.def`), and the standard
//! pipelines. `deegen-opt`, the build-time generator and (later) the DFG tier build their
//! pipelines from here, so a pipeline printed by one parses in the others.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::PassRegistry;

/// The pipeline that turns semantics bitcode (with embedded variants) into the interpreter.
pub const INTERPRETER_PIPELINE: &str = "interp-create-handlers,inline-semantics,interp-ic-quickening,type-hint-slow-paths,type-check-strength-reduction<keep-checkers>,interp-call-ic,call-ic-check-hoisting,type-check-strength-reduction,lower-interp-api,interp-finalize,nan-check-fusion,hot-cold-split,tag-register-rewrite,load-as-double";

/// The pipeline that turns the same semantics into the baseline JIT's stencils: the
/// interpreter's passes where the transformation is the same (inlining, type checks, call
/// inline caches, API lowering, finalization), its own where it differs (stencil creation,
/// runtime-constant ranges, the inline-cache stubs' derived constants, AOT slow paths). The hot-cold split outlines each stencil's slow
/// paths; `baseline-aot-ic-generic` makes the generic code of each instruction with a fused
/// inline cache (which runs only when its stubs miss) one more of them, behind a trampoline;
/// `baseline-aot-slow-paths` then makes them functions compiled once that read the
/// instruction's SlowPathData, so the JIT copies only the fast path per instruction; and
/// `baseline-cold-split` has llc move what is left of them (the jumps into those functions)
/// into each stencil's cold part.
pub const BASELINE_PIPELINE: &str = "baseline-create-stencils,inline-semantics,interp-ic-quickening,type-hint-slow-paths,type-check-strength-reduction<keep-checkers>,interp-call-ic,call-ic-check-hoisting,type-check-strength-reduction,lower-interp-api,runtime-constant-range,interp-finalize,ic-state-folding,nan-check-fusion,hot-cold-split,baseline-aot-ic-generic,baseline-aot-slow-paths,tag-register-rewrite,load-as-double,baseline-cold-split";

/// Every pass over LLVM modules, in the order the interpreter pipeline runs them. Each pass
/// is declared once, by its crate's `DESCRIPTOR`: this list, `deegen-opt --list-passes` and the
/// pass table of `passes/README.md` come from it.
pub fn llvm_registry<'ctx>() -> PassRegistry<LlvmModule<'ctx>> {
    let mut r = PassRegistry::new();
    r.register::<deegen_pass_interp_create_handlers::CreateHandlers>()
        .register::<deegen_pass_inline_semantics::InlineSemantics>()
        .register::<deegen_pass_interp_ic_quickening::InterpIcQuickening>()
        .register::<deegen_pass_type_hint_slow_paths::TypeHintSlowPaths>()
        .register::<deegen_pass_type_check_strength_reduction::TypeCheckStrengthReduction>()
        .register::<deegen_pass_interp_call_ic::InterpCallIc>()
        .register::<deegen_pass_call_ic_check_hoisting::CallIcCheckHoisting>()
        .register::<deegen_pass_lower_interp_api::LowerInterpApi>()
        .register::<deegen_pass_baseline_create_stencils::BaselineCreateStencils>()
        .register::<deegen_pass_runtime_constant_range::RuntimeConstantRange>()
        .register::<deegen_pass_interp_finalize::InterpFinalize>()
        .register::<deegen_pass_ic_state_folding::IcStateFolding>()
        .register::<deegen_pass_nan_check_fusion::NanCheckFusion>()
        .register::<deegen_pass_hot_cold_split::HotColdSplit>()
        .register::<deegen_pass_baseline_aot_ic_generic::BaselineAotIcGeneric>()
        .register::<deegen_pass_baseline_aot_slow_paths::BaselineAotSlowPaths>()
        .register::<deegen_pass_tag_register_rewrite::TagRegisterRewrite>()
        .register::<deegen_pass_load_as_double::LoadAsDouble>()
        .register::<deegen_pass_baseline_cold_split::BaselineColdSplit>();
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn standard_pipeline_parses_and_prints_back() {
        let pm = super::llvm_registry().parse_pipeline(super::INTERPRETER_PIPELINE).unwrap();
        assert_eq!(pm.pipeline_text(), super::INTERPRETER_PIPELINE);
    }

    #[test]
    fn standard_pipelines_take_semantics_to_finalized() {
        use deegen_llvm_ir::LlvmPhase;
        for pipeline in [super::INTERPRETER_PIPELINE, super::BASELINE_PIPELINE] {
            let pm = super::llvm_registry().parse_pipeline(pipeline).unwrap();
            assert_eq!(pm.pipeline_text(), pipeline);
            assert_eq!(pm.check_phases(LlvmPhase::Semantics), Ok(LlvmPhase::Finalized));
        }
    }

    /// The pass table in `passes/README.md` is the registry's: `BLESS=1 cargo test -p
    /// deegen-passes` rewrites it after a pass is added or its descriptor changes.
    #[test]
    fn readme_pass_table_is_the_registry() {
        const BEGIN: &str = "<!-- pass-table: generated from the registry by `BLESS=1 cargo test -p deegen-passes` -->\n";
        const END: &str = "<!-- pass-table end -->\n";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) else {
            panic!("{} lacks the pass-table markers", path.display());
        };
        let table = super::llvm_registry().markdown_table();
        let current = &readme[b + BEGIN.len()..e];
        if current != table {
            if std::env::var_os("BLESS").is_some() {
                let updated = format!("{}{table}{}", &readme[..b + BEGIN.len()], &readme[e..]);
                std::fs::write(&path, updated).unwrap();
            } else {
                panic!("the pass table of {} is out of date: run `BLESS=1 cargo test -p deegen-passes`", path.display());
            }
        }
    }
}
