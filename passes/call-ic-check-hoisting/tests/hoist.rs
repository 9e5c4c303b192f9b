//! The pass on `tests/fixtures/checked_calls.ll`, after `interp-call-ic` cached the calls.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_call_ic_check_hoisting::CallIcCheckHoisting;
use deegen_pass_interp_call_ic::InterpCallIc;
use deegen_pass_test_support::{function_ir as function, load, registry};
use inkwell::context::Context;

fn run(unit: &mut LlvmModule<'_>, pipeline: &str) {
    deegen_pass_test_support::run(&registry![InterpCallIc, CallIcCheckHoisting], unit, pipeline).unwrap();
}

fn fixture_text() -> String {
    deegen_pass_test_support::fixture_text(env!("CARGO_MANIFEST_DIR"), "checked_calls.ll")
}

/// Whether the entry block ends in the cache probe (the check then comes after a miss).
fn probe_in_entry(f: &str) -> bool {
    let entry = &f[f.find("entry:").unwrap()..];
    let entry = &entry[..entry.find("\n\n").unwrap_or(entry.len())];
    entry.contains("!deegen.call_ic_probe") && entry.lines().last().unwrap().contains("label %call_ic.check")
}

#[test]
fn probes_move_above_the_checks_a_hit_decides() {
    let context = Context::create();
    let mut unit = load(&context, &fixture_text(), "checked-calls");
    run(&mut unit, "interp-call-ic,call-ic-check-hoisting");
    let ir = unit.print();
    let call = function(&ir, "__deegen_interp_op_Call");
    assert!(probe_in_entry(call), "{call}");
    let check = &call[call.find("call_ic.check:").unwrap()..];
    assert!(check.contains("@is_function"), "the check runs after a miss only\n{call}");
    assert_eq!(call.matches("!deegen.call_ic_probe").count(), 1, "the old probe is gone\n{call}");
    assert!(probe_in_entry(function(&ir, "__deegen_interp_op_CallNegated")), "through `not`\n{ir}");
    for kept in ["__deegen_interp_op_CallAfterStore", "__deegen_interp_op_CallIfNumber"] {
        let f = function(&ir, kept);
        assert!(!probe_in_entry(f) && f.contains("!deegen.call_ic_probe"), "{kept} keeps its probe under the check\n{f}");
    }
    insta::assert_snapshot!("hoisted_call", call);
}

#[test]
fn without_callable_types_nothing_moves() {
    let context = Context::create();
    let text = fixture_text().replace(", !\"callable function\"", "");
    let mut unit = load(&context, &text, "checked-calls-no-callable");
    run(&mut unit, "interp-call-ic");
    let cached = unit.print();
    run(&mut unit, "call-ic-check-hoisting");
    assert_eq!(unit.print(), cached);
}
