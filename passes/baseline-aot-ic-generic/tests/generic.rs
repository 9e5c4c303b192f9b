//! The pass on hand-written stencils (`tests/fixtures/stencils.ll`), between `hot-cold-split`
//! and `baseline-aot-slow-paths`: the fused cache's generic code becomes a helper that reads
//! the record, its stencil a trampoline to it, and the code as it was the stencil of a
//! megamorphic site's own copy; the stub and the other stencil stay as they were. Review with
//! `cargo insta review`.

use deegen_llvm_ir::{function_attr, LlvmModule, HANDLER_KIND_ATTR};
use deegen_pass::IrUnit;
use deegen_pass_baseline_aot_ic_generic::BaselineAotIcGeneric;
use deegen_pass_baseline_aot_slow_paths::{slow_path_data_layout, BaselineAotSlowPaths};
use deegen_pass_hot_cold_split::HotColdSplit;
use deegen_pass_test_support::{function_ir, load_fixture, registry, run};
use inkwell::context::Context;

const PIPELINE: &str = "hot-cold-split,baseline-aot-ic-generic,baseline-aot-slow-paths";

fn compile_generic_once(unit: &mut LlvmModule<'_>) {
    run(&registry![HotColdSplit, BaselineAotIcGeneric, BaselineAotSlowPaths], unit, PIPELINE).unwrap();
}

#[test]
fn the_generic_code_is_compiled_once_behind_a_trampoline() {
    let context = Context::create();
    let mut unit = load_fixture(&context, env!("CARGO_MANIFEST_DIR"), "stencils.ll");
    let before = unit.print();
    compile_generic_once(&mut unit);
    let ir = unit.print();
    insta::assert_snapshot!(ir);

    // The stencil the JIT copies is only the tail call, with the record's address in the pc slot.
    let trampoline = function_ir(&ir, "__deegen_jit_op_GetField");
    assert!(trampoline.contains("leaq __deegen_rc_slow_path_data(%rip)"), "{trampoline}");
    assert!(trampoline.contains("musttail call ghccc void @__deegen_jit_op_GetField__generic(ptr %ctx, ptr %base, ptr %spd,"), "{trampoline}");
    assert!(!trampoline.contains("__deegen_rc_op_table") && !trampoline.contains("__deegen_jit_next"), "{trampoline}");
    let t = unit.module.get_function("__deegen_jit_op_GetField").unwrap();
    assert_eq!(function_attr(t, HANDLER_KIND_ATTR).as_deref(), Some("stencil"));
    assert_eq!(t.get_section().map(|s| s.to_string_lossy().into_owned()).as_deref(), Some(".text.__deegen_jit_op_GetField"));

    // One record for the generic code and the slow path it shares with it: the union of both.
    assert_eq!(slow_path_data_layout(t), ["__deegen_jit_next", "__deegen_rc_op_table", "__deegen_rc_output", "__deegen_rc_pc"]);

    // The generic code is a helper with no per-instruction symbol left, placed once.
    let at = ir.find("define hidden ghccc void @__deegen_jit_op_GetField__generic(").expect("the generic code is defined");
    let generic = function_ir(&ir[at..], "__deegen_jit_op_GetField__generic");
    for symbol in ["@__deegen_jit_next", "@__deegen_rc_output", "@__deegen_rc_op_table", "$$__deegen_rc_pc", "__deegen_rc_slow_path_data"] {
        assert!(!generic.contains(symbol), "{symbol} is still in {generic}");
    }
    // Its slow path gets the record it was given.
    assert!(generic.contains("musttail call ghccc void @__deegen_jit_op_GetField__slow0(ptr %ctx, ptr %base, ptr %pc,"), "{generic}");
    let g = unit.module.get_function("__deegen_jit_op_GetField__generic").unwrap();
    assert!(function_attr(g, HANDLER_KIND_ATTR).is_none(), "a helper, not a stencil");
    assert_eq!(g.get_section().map(|s| s.to_string_lossy().into_owned()).as_deref(), Some(".text.__deegen_jit_op_GetField__generic"));

    // The code as it was is the stencil a megamorphic site copies: its operands and successors
    // still runtime constants, its slow path reached with the same record.
    let mega = function_ir(&ir, "__deegen_jit_op_GetField__megamorphic");
    assert!(mega.contains("ptrtoint (ptr @__deegen_rc_op_table to i64)"), "{mega}");
    assert!(mega.contains("musttail call ghccc void @__deegen_jit_next("), "{mega}");
    assert!(mega.contains("leaq __deegen_rc_slow_path_data(%rip)"), "{mega}");
    assert!(mega.contains("musttail call ghccc void @__deegen_jit_op_GetField__slow0(ptr %ctx, ptr %base, ptr %spd,"), "{mega}");
    let m = unit.module.get_function("__deegen_jit_op_GetField__megamorphic").unwrap();
    assert_eq!(function_attr(m, HANDLER_KIND_ATTR).as_deref(), Some("stencil"));
    assert_eq!(slow_path_data_layout(m), slow_path_data_layout(t));
    assert_eq!(m.get_section().map(|s| s.to_string_lossy().into_owned()).as_deref(), Some(".text.__deegen_jit_op_GetField__megamorphic"));

    // The stub and the stencil without a cache are unchanged.
    for name in ["__deegen_jit_op_GetField_fused_ic_0", "__deegen_jit_op_Jump"] {
        assert_eq!(function_ir(&ir, name), function_ir(&before, name), "{name} changed");
    }
}

#[test]
fn a_module_without_fused_caches_is_unchanged() {
    let context = Context::create();
    let text = deegen_pass_test_support::fixture_text(env!("CARGO_MANIFEST_DIR"), "stencils.ll")
        .replace(" fused=2+2", "")
        .replace(" quickened=0.0", "")
        .replace(" quickened=0.1", "");
    let mut unit = deegen_pass_test_support::load(&context, &text, "stencils.ll");
    let before = unit.print();
    run(&registry![BaselineAotIcGeneric], &mut unit, "baseline-aot-ic-generic").unwrap();
    assert_eq!(unit.print(), before);
}
