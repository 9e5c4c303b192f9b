//! The pass on hand-written stencils (`tests/fixtures/stencils.ll`), after `hot-cold-split`:
//! the slow path reads every per-instruction value from the record, the stencil passes the
//! record's address, and the slow path is a helper placed once. Review with `cargo insta review`.

use deegen_llvm_ir::{function_attr, LlvmModule};
use deegen_pass::IrUnit;
use deegen_pass_baseline_aot_slow_paths::{slow_path_data_layout, BaselineAotSlowPaths};
use deegen_pass_hot_cold_split::HotColdSplit;
use deegen_pass_test_support::{function_ir, load_fixture, registry, run};
use inkwell::context::Context;

fn split_and_compile_once(unit: &mut LlvmModule<'_>) {
    run(&registry![HotColdSplit, BaselineAotSlowPaths], unit, "hot-cold-split,baseline-aot-slow-paths").unwrap();
}

#[test]
fn slow_paths_read_the_slow_path_data() {
    let context = Context::create();
    let mut unit = load_fixture(&context, env!("CARGO_MANIFEST_DIR"), "stencils.ll");
    split_and_compile_once(&mut unit);
    insta::assert_snapshot!(unit.print());
    let ir = unit.print();

    // The record holds what the slow path uses, sorted by name.
    let neg = unit.module.get_function("__deegen_jit_op_Neg").unwrap();
    assert_eq!(slow_path_data_layout(neg), ["__deegen_jit_next", "__deegen_rc_output", "__deegen_rc_pc"]);
    let jump = unit.module.get_function("__deegen_jit_op_Jump").unwrap();
    assert!(slow_path_data_layout(jump).is_empty());

    // The stencil passes the record's address RIP-relative in the pc slot.
    let stencil = function_ir(&ir, "__deegen_jit_op_Neg");
    assert!(stencil.contains("leaq __deegen_rc_slow_path_data(%rip)"), "{stencil}");

    // The slow path has no per-instruction symbol left: it loads each from the record, and
    // goes on through an indirect tail call.
    // (Its definition, not the stencil's call of it.)
    let at = ir.find("define hidden ghccc void @__deegen_jit_op_Neg__slow0(").expect("the slow path is defined");
    let slow = function_ir(&ir[at..], "__deegen_jit_op_Neg__slow0");
    for symbol in ["@__deegen_jit_next", "@__deegen_rc_output", "$$__deegen_rc_pc"] {
        assert!(!slow.contains(symbol), "{symbol} is still in {slow}");
    }
    assert!(slow.contains("!invariant.load"), "{slow}");
    let f = unit.module.get_function("__deegen_jit_op_Neg__slow0").unwrap();
    assert_eq!(f.get_section().map(|s| s.to_string_lossy().into_owned()).as_deref(), Some(".text.__deegen_jit_op_Neg__slow0"));
    assert!(function_attr(f, deegen_llvm_ir::HANDLER_KIND_ATTR).is_none(), "a helper, not a stencil");
}

#[test]
fn a_slow_path_reading_the_pc_slot_is_an_error() {
    let context = Context::create();
    let text = deegen_pass_test_support::fixture_text(env!("CARGO_MANIFEST_DIR"), "stencils.ll")
        .replace("%r = call i64 @rt_slow(ptr %ctx, i64 %v)", "%r = call i64 @rt_slow(ptr %pc, i64 %v)");
    let mut unit = deegen_pass_test_support::load(&context, &text, "stencils.ll");
    let e = run(&registry![HotColdSplit, BaselineAotSlowPaths], &mut unit, "hot-cold-split,baseline-aot-slow-paths").unwrap_err();
    assert!(e.contains("reads the pc argument slot"), "{e}");
}
