//! The pass on hand-written double checks (`tests/fixtures/checks.ll`). Review changes with
//! `cargo insta review`.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_nan_check_fusion::NanCheckFusion;
use deegen_pass_test_support::{fixture_text, load, load_fixture, registry};
use inkwell::context::Context;

const FIXTURE: &str = "checks.ll";

fn fixture(context: &Context) -> LlvmModule<'_> {
    load_fixture(context, env!("CARGO_MANIFEST_DIR"), FIXTURE)
}

fn run(unit: &mut LlvmModule<'_>, pipeline: &str) -> Result<(), String> {
    deegen_pass_test_support::run(&registry![NanCheckFusion], unit, pipeline)
}

#[test]
fn pairs_of_double_checks_get_an_ordered_compare_first() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit, "nan-check-fusion").unwrap();
    let text = unit.print();
    assert_eq!(text.matches("fcmp ord double").count(), 7, "{text}");
    // Only the stencil's recheck is an uncommon path.
    assert_eq!(text.matches("call void @__deegen_uncommon_path()").count(), 1, "{text}");
    assert!(text.split("@less_equal_stencil").nth(1).unwrap().contains("call void @__deegen_uncommon_path()"), "{text}");
    assert!(!text.split("@untouched").nth(1).unwrap().split("define").next().unwrap().contains("fcmp ord"), "{text}");
    // Arithmetic on the pair: the paper's Figure 16 (`ucomisd; jp` before the `addsd`).
    assert!(text.split("@add").nth(1).unwrap().split("@less").next().unwrap().contains("fcmp ord"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_bound_can_be_given_and_must_make_non_doubles_nans() {
    let context = Context::create();
    let mut from_param = fixture(&context);
    run(&mut from_param, "nan-check-fusion<doubles-below=0xfff8000000000001>").unwrap();
    let mut from_metadata = fixture(&context);
    run(&mut from_metadata, "nan-check-fusion").unwrap();
    assert_eq!(from_param.print(), from_metadata.print());
    let mut unit = fixture(&context);
    let e = run(&mut unit, "nan-check-fusion<doubles-below=1000>").unwrap_err();
    assert!(e.contains("leaves non-NaN patterns to non-doubles"), "{e}");
    let e = run(&mut unit, "nan-check-fusion<doubles-below=0xfff0000000000000>").unwrap_err();
    assert!(e.contains("it must be at least 0xfff0000000000001"), "{e}");
    run(&mut unit, "nan-check-fusion<doubles-below=0xfff0000000000001>").unwrap();
    let e = run(&mut unit, "nan-check-fusion<doubles-below=x>").unwrap_err();
    assert!(e.contains("expects an integer"), "{e}");
}

#[test]
fn a_second_run_changes_nothing() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit, "nan-check-fusion").unwrap();
    let once = unit.print();
    run(&mut unit, "nan-check-fusion").unwrap();
    assert_eq!(unit.print(), once);
}

#[test]
fn without_a_declared_boxing_nothing_changes() {
    let context = Context::create();
    let text = fixture_text(env!("CARGO_MANIFEST_DIR"), FIXTURE);
    let text = &text[..text.find("!deegen.nan_boxing").unwrap()];
    let mut unit = load(&context, text, "m");
    let before = unit.print();
    run(&mut unit, "nan-check-fusion").unwrap();
    assert_eq!(unit.print(), before);
}
