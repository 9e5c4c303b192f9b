//! The pass on `tests/fixtures/calls.ll`: which calls get a cache, the IR of one, and the layouts.

use deegen_llvm_ir::{read_variants, LlvmModule};
use deegen_pass::IrUnit;
use deegen_pass_interp_call_ic::InterpCallIc;
use deegen_pass_test_support::{function_ir as function, load_fixture, registry};
use inkwell::context::Context;

fn run(unit: &mut LlvmModule<'_>) {
    deegen_pass_test_support::run(&registry![InterpCallIc], unit, "interp-call-ic").unwrap();
}

fn fixture(context: &Context) -> LlvmModule<'_> {
    load_fixture(context, env!("CARGO_MANIFEST_DIR"), "calls.ll")
}

#[test]
fn hot_calls_of_bytecodes_are_cached_and_layouts_grow() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit);
    let ir = unit.print();
    let call = function(&ir, "__deegen_interp_op_Call");
    assert_eq!(call.matches("!deegen.call_ic_probe").count(), 2, "both calls of Call are cached\n{call}");
    assert!(!call.contains("@__deegen_api_make_call("), "no uncached call is left\n{call}");
    let tail = function(&ir, "__deegen_interp_op_TailCall");
    assert!(tail.contains("@__deegen_api_make_tail_call_with_code_block("), "{tail}");
    let add = function(&ir, "__deegen_interp_op_Add");
    assert!(add.contains("@__deegen_api_make_call(") && !add.contains("call_ic"), "a call past a cold edge stays uncached\n{add}");
    let body = function(&ir, "__deegen_interp_op_Call__ret__continuation__body");
    assert!(!body.contains("call_ic"), "a continuation's call stays uncached\n{body}");

    let layouts: Vec<String> = read_variants(&unit.module).unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(
        layouts,
        [
            "opcode=0 name=Call bytecode=Call semantics=call result=none length=20 frame:slotref@2:2 callic@4",
            "opcode=1 name=TailCall bytecode=TailCall semantics=tail_call result=none length=18 callic@2",
            "opcode=2 name=Add bytecode=Add semantics=add result=value length=8 lhs:slot@2:2:number rhs:slot@4:2 output@6",
        ]
    );
    insta::assert_snapshot!("call_handler", call);
}

#[test]
fn running_twice_changes_nothing() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit);
    let once = unit.print();
    run(&mut unit);
    assert_eq!(unit.print(), once);
}

#[test]
fn calls_behind_a_decided_check_get_no_cache() {
    // `Add` with its metamethod edge no longer marked cold, but the check decided (as
    // type-check-strength-reduction leaves a check a variant's known types answer): the call
    // can never run, so its instruction gets no cache; undecided, it would.
    let text = deegen_pass_test_support::fixture_text(env!("CARGO_MANIFEST_DIR"), "calls.ll");
    for (branch, cached) in [("br i1 true, label %fast, label %metamethod", false), ("br i1 %num, label %fast, label %metamethod", true)] {
        let context = Context::create();
        let edited = text.replace("br i1 %num, label %fast, label %metamethod, !deegen.cold_edge !10", branch);
        let mut unit = deegen_pass_test_support::load(&context, &edited, "calls");
        run(&mut unit);
        let add = read_variants(&unit.module).unwrap().remove(2);
        assert_eq!(add.call_ic_offset.is_some(), cached, "{branch}: {add}");
    }
}
