//! The pass on hand-written handlers (`tests/fixtures/handlers.ll`): what it outlines, what it
//! keeps and why, and that its output verifies. Review changes with `cargo insta review`.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_hot_cold_split::{HotColdSplit, SLOW_PATH_OF_ATTR};
use deegen_pass_test_support::{function_ir, load_fixture, registry, run};
use inkwell::context::Context;

fn fixture(context: &Context) -> LlvmModule<'_> {
    load_fixture(context, env!("CARGO_MANIFEST_DIR"), "handlers.ll")
}

fn split(unit: &mut LlvmModule<'_>) {
    run(&registry![HotColdSplit], unit, "hot-cold-split").unwrap();
}

fn function_names(unit: &LlvmModule<'_>) -> Vec<String> {
    unit.module.get_functions().filter(|f| f.count_basic_blocks() > 0).map(|f| f.get_name().to_string_lossy().into_owned()).collect()
}

#[test]
fn slow_paths_become_tail_called_functions() {
    let context = Context::create();
    let mut unit = fixture(&context);
    split(&mut unit);
    insta::assert_snapshot!(unit.print());
}

#[test]
fn what_is_outlined_and_what_is_kept() {
    let context = Context::create();
    let mut unit = fixture(&context);
    split(&mut unit);
    let names = function_names(&unit);
    for outlined in [
        "rejoin__slow0",
        "entry_phi__slow0",
        "own_alloca__slow0",
        "copies__slow0",
        "hinted_cold__slow0",
        "spills__slow0",
        "weighted_cold__slow0",
        "stated_cold__slow0",
    ] {
        assert!(names.iter().any(|n| n == outlined), "{outlined} missing from {names:?}");
    }
    for kept in ["shared_alloca", "too_many", "always_calls"] {
        assert!(!names.iter().any(|n| n.starts_with(&format!("{kept}__slow"))), "{kept} was split: {names:?}");
    }
    // A hot part keeps no call but musttail ones.
    for hot in ["rejoin", "entry_phi", "own_alloca", "copies", "hinted_cold", "weighted_cold", "stated_cold"] {
        let f = unit.module.get_function(hot).unwrap();
        for call in deegen_llvm_ir::calls_in(f) {
            assert!(call.is_tail_call(), "{hot} still calls {:?}", deegen_llvm_ir::callee_name(call));
        }
    }
    // The value beyond the scratch slots crosses in the context's spill area: stored on the
    // way to the slow path, loaded at its entry.
    let printed = unit.print();
    let spill = format!("i64 {}", deegen_api::offsets::CTX_SLOW_PATH_SPILL);
    assert!(function_ir(&printed, "spills").contains(&spill) && function_ir(&printed, "spills").contains("store i64"), "{printed}");
    assert!(function_ir(&printed, "spills__slow0").contains(&spill), "{printed}");
    // The loop moved whole: its phi starts from the passed value and goes around.
    let at = printed.find("define internal ghccc void @slow_loop__slow0(").expect("outlined");
    let looped = function_ir(&printed[at..], "slow_loop__slow0");
    assert!(looped.contains("%n = phi i64 [ %5, %entry ], [ %r, %retry ]"), "{looped}");
    // The split marker is gone from the handler and its slow path.
    assert!(!function_ir(&printed, "stated_cold").contains("call void @__deegen_split_cold"), "{printed}");
    // The slow path remembers where it came from and is not a handler of its own.
    let slow = unit.module.get_function("rejoin__slow0").unwrap();
    assert_eq!(deegen_llvm_ir::function_attr(slow, SLOW_PATH_OF_ATTR).as_deref(), Some("rejoin"));
    assert!(deegen_llvm_ir::function_attr(slow, deegen_llvm_ir::HANDLER_KIND_ATTR).is_none());
    // The moved stack slot left the handler.
    let own = unit.print();
    let handler = function_ir(&own, "own_alloca");
    assert!(!handler.contains("= alloca"), "{handler}");
}

#[test]
fn a_second_run_changes_nothing() {
    let context = Context::create();
    let mut unit = fixture(&context);
    split(&mut unit);
    let once = unit.print();
    split(&mut unit);
    assert_eq!(unit.print(), once);
}
