//! The pass on `tests/fixtures/fused.ll`: the kinds of hits, the quickening stores, and the
//! errors for caches the lowering would get wrong.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_interp_ic_quickening::InterpIcQuickening;
use deegen_pass_test_support::{function_ir as function, load, registry};
use inkwell::context::Context;

fn fixture_text() -> String {
    deegen_pass_test_support::fixture_text(env!("CARGO_MANIFEST_DIR"), "fused.ll")
}

fn run(unit: &mut LlvmModule<'_>) -> Result<(), String> {
    deegen_pass_test_support::run(&registry![InterpIcQuickening], unit, "interp-ic-quickening")
}

#[test]
fn quickened_hits_run_their_kind_and_every_fill_quickens() {
    let context = Context::create();
    let mut unit = deegen_pass_test_support::load_fixture(&context, env!("CARGO_MANIFEST_DIR"), "fused.ll");
    run(&mut unit).unwrap();
    let ir = unit.print();
    assert!(!ir.contains("call i32 @__deegen_api_ic_fused_kind") && !ir.contains("call void @__deegen_api_ic_quicken"), "markers left\n{ir}");

    let inline = function(&ir, "__deegen_interp_op_GetField_fused_ic_0");
    let outline = function(&ir, "__deegen_interp_op_GetField_fused_ic_1");
    let base = function(&ir, "__deegen_interp_op_GetField");
    let continuation = function(&ir, "__deegen_interp_op_GetField_fused_ic_1__ret__k__body");
    // Kind 0's hit reads inline, never through the slots pointer; kind 1's the other way round.
    assert!(!inline.contains("%slots = load"), "{inline}");
    assert!(!outline.contains("%in.value = load"), "{outline}");
    // The base variant and the continuation still choose by the cached state.
    for f in [base, continuation] {
        assert!(f.contains("%slots = load") && f.contains("%in.value = load"), "{f}");
    }
    // Every fill stores opcode 2 + kind over the instruction's opcode.
    for f in [inline, outline, base, continuation] {
        assert!(f.contains("%quicken.opcode = or disjoint i16 %quicken.kind, 2") && f.contains("store i16 %quicken.opcode, ptr %pc, align 2"), "{f}");
    }
    insta::assert_snapshot!("quickened_kind_0", inline);
}

/// The baseline JIT's IC stub (the stencil of a quickened variant) compares with the
/// runtime-constant key, runs its kind's effect with the runtime-constant state and, on a
/// miss, only jumps on; the generic code (the base's stencil) reads the cache and reports
/// each fill to the JIT; the interpreter's handler reads the cache and does not.
#[test]
fn stubs_take_the_entry_as_constants_and_the_generic_code_reports_fills() {
    let context = Context::create();
    let mut unit = deegen_pass_test_support::load_fixture(&context, env!("CARGO_MANIFEST_DIR"), "stub.ll");
    run(&mut unit).unwrap();
    let ir = unit.print();
    for marker in ["@__deegen_api_ic_entry_key(", "@__deegen_api_ic_entry_state(", "@__deegen_api_ic_in_stub("] {
        assert!(!ir.contains(&format!("call i32 {marker}")), "{marker} left\n{ir}");
    }
    let interp = function(&ir, "__deegen_interp_op_GetField");
    let generic = function(&ir, "__deegen_jit_op_GetField");
    let stub = function(&ir, "__deegen_jit_op_GetField_fused_ic_1");
    for f in [interp, generic] {
        assert!(f.contains("load i32, ptr %ic, align 1") && f.contains("@lookup") && !f.contains("@__deegen_api_ic_next"), "{f}");
    }
    assert!(!interp.contains("@__deegen_jit_ic_filled"), "{interp}");
    assert!(generic.contains("call void @__deegen_jit_ic_filled(ptr %ctx"), "{generic}");
    assert!(stub.contains("@__deegen_rc_ic_key") && stub.contains("@__deegen_rc_ic_state"), "{stub}");
    assert!(!stub.contains("@lookup") && !stub.contains("store i16") && !stub.contains("@__deegen_jit_ic_filled"), "{stub}");
    assert!(stub.contains("call void @__deegen_api_ic_next()"), "{stub}");
    insta::assert_snapshot!("ic_stub_kind_1", stub);
}

#[test]
fn a_module_without_fused_caches_is_left_alone() {
    let context = Context::create();
    let text = fixture_text()
        .replace("%kind = call i32 @__deegen_api_ic_fused_kind(i32 %computed, i32 2)", "%kind = add i32 %computed, 0")
        .replace("call void @__deegen_api_ic_quicken(i32 %new.kind, i32 2)", "");
    let mut unit = load(&context, &text, "plain");
    let before = unit.print();
    run(&mut unit).unwrap();
    assert_eq!(unit.print(), before);
}

#[test]
fn functions_other_than_handlers_keep_their_markers() {
    // Semantic functions after inline-semantics: inlined already, dropped by interp-finalize.
    let context = Context::create();
    let text = fixture_text().replacen(r#"attributes #1 = { "deegen-handler"="bytecode" "deegen-variant"="0" }"#, "attributes #1 = { nounwind }", 1);
    let mut unit = load(&context, &text, "semantics");
    run(&mut unit).unwrap();
    let ir = unit.print();
    assert!(function(&ir, "__deegen_interp_op_GetField").contains("@__deegen_api_ic_fused_kind"), "{ir}");
    assert!(!function(&ir, "__deegen_interp_op_GetField_fused_ic_0").contains("@__deegen_api_ic_fused_kind"), "{ir}");
}

#[test]
fn caches_the_lowering_would_get_wrong_are_errors() {
    let cases = [
        // A bytecode that declares no fused cache.
        (fixture_text().replace(r#""deegen-variant"="0""#, r#""deegen-variant"="1""#), "declares none"),
        // A kind count other than the declared one.
        (fixture_text().replacen("(i32 %computed, i32 2)", "(i32 %computed, i32 3)", 1), "declares 2"),
        // The cache run in a loop: a hit could see the kind of a fill made earlier in the loop.
        (
            fixture_text().replacen(
                "%in.value = load i64, ptr %in.slot\n  br label %done",
                "%in.value = load i64, ptr %in.slot\n  br i1 %outline, label %hit, label %done",
                1,
            ),
            "in a loop",
        ),
        // A marker of the wrong type (an IR dump edited by hand): an error, not a panic.
        (
            fixture_text()
                .replace("declare i32 @__deegen_api_ic_fused_kind(i32, i32)", "declare i32 @__deegen_api_ic_fused_kind(i64, i32)")
                .replace("@__deegen_api_ic_fused_kind(i32 %computed, i32 2)", "@__deegen_api_ic_fused_kind(i64 0, i32 2)"),
            "i32 kind",
        ),
        // Two uses of the cache in one execution.
        (
            fixture_text().replacen(
                "  %miss.value = call i64 @effect(ptr %obj, i32 %new)",
                "  call void @__deegen_api_ic_quicken(i32 %new.kind, i32 2)\n  %miss.value = call i64 @effect(ptr %obj, i32 %new)",
                1,
            ),
            "at most once",
        ),
    ];
    for (text, expected) in cases {
        let context = Context::create();
        let mut unit = load(&context, &text, "bad");
        let e = run(&mut unit).unwrap_err();
        assert!(e.contains(expected), "expected '{expected}' in: {e}");
    }
}
