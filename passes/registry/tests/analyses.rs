//! The CFG analysis through the manager: computed once, kept by passes that declare they keep
//! it, dropped by a pass that changes blocks or edges.

use deegen_llvm_ir::{load_module, ControlFlow, LlvmModule};
use deegen_pass::AnalysisManager;
use inkwell::context::Context;

fn run<'ctx>(pipeline: &str, unit: &mut LlvmModule<'ctx>, am: &mut AnalysisManager<LlvmModule<'ctx>>) {
    deegen_passes::llvm_registry().parse_pipeline(pipeline).unwrap().run(unit, am).unwrap();
}

#[test]
fn control_flow_is_cached_preserved_and_invalidated() {
    let context = Context::create();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/add_and_branch.ll");
    let mut unit = LlvmModule::new(load_module(&context, &path).unwrap());
    let mut am = AnalysisManager::new();
    run("interp-create-handlers,inline-semantics", &mut unit, &mut am);

    let handler = unit.module.get_function("__deegen_interp_op_JumpIfLt_SS").expect("the branch handler");
    let blocks = {
        let cfg = am.get::<ControlFlow>(&unit);
        let f = cfg.function(deegen_llvm_ir::raw::Value(inkwell::values::AsValueRef::as_value_ref(&handler))).expect("a defined function");
        let entry = f.blocks()[0];
        assert!(f.predecessors(entry).is_empty());
        assert!(f.blocks().iter().all(|b| f.dominates(entry, *b) || f.reverse_post_order().iter().all(|r| r != b)));
        f.blocks().len()
    };
    assert!(blocks > 1, "the branch handler has several blocks");
    assert_eq!(am.computations(), 1);

    // Marking cold edges and deciding type checks keep blocks and edges: the result stays.
    run("type-hint-slow-paths,type-check-strength-reduction<keep-checkers>", &mut unit, &mut am);
    assert!(am.cached::<ControlFlow>().is_some(), "passes that keep the CFG must not drop it");
    am.get::<ControlFlow>(&unit);
    assert_eq!(am.computations(), 1, "a preserved result is not recomputed");

    // Lowering the API rewrites the handlers' control flow: the result goes.
    run("lower-interp-api", &mut unit, &mut am);
    assert!(am.cached::<ControlFlow>().is_none(), "a pass that changes the CFG must invalidate it");
    am.get::<ControlFlow>(&unit);
    assert_eq!(am.computations(), 2);

    // A pass that changes instructions (constants become tag-register reads) but says it keeps
    // the CFG: the module changes, the result stays.
    run("interp-finalize", &mut unit, &mut am);
    am.get::<ControlFlow>(&unit);
    assert_eq!(am.computations(), 3);
    let before = deegen_pass::IrUnit::print(&unit);
    run("tag-register-rewrite", &mut unit, &mut am);
    assert_ne!(deegen_pass::IrUnit::print(&unit), before, "the rewrite changed the module");
    assert!(am.cached::<ControlFlow>().is_some());
}
