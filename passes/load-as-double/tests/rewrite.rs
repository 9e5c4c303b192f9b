//! The pass on hand-written slot reads (`tests/fixtures/slots.ll`). Review changes with
//! `cargo insta review`.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_load_as_double::LoadAsDouble;
use deegen_pass_test_support::{function_ir, load_fixture, registry};
use inkwell::context::Context;

fn fixture(context: &Context) -> LlvmModule<'_> {
    load_fixture(context, env!("CARGO_MANIFEST_DIR"), "slots.ll")
}

fn run(unit: &mut LlvmModule<'_>, pipeline: &str) -> Result<(), String> {
    deegen_pass_test_support::run(&registry![LoadAsDouble], unit, pipeline)
}

#[test]
fn checked_doubles_are_read_as_doubles() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit, "load-as-double").unwrap();
    let text = unit.print();
    let add = function_ir(&text, "add");
    assert_eq!(add.matches("load double").count(), 2, "{add}");
    assert!(!add.contains("load i64"), "{add}");
    // The checks and the slow path take the bits; the arithmetic the loads themselves.
    assert!(add.contains("icmp ult i64 %a.bits, %bound"), "{add}");
    assert!(add.contains("fadd double %a.double, %b.double"), "{add}");
    assert!(add.contains("@slow(ptr %slots, i64 %a.bits, i64 %b.bits)"), "{add}");
    // Metadata that holds of a double stays; an integer range does not.
    assert!(add.contains("%a.double = load double, ptr %a.slot, align 8, !invariant.load"), "{add}");
    assert!(add.contains("!deegen.hint"), "{add}");
    assert!(!add.contains("!range"), "{add}");
    // A key converted to an index gets a double read of its own, after the integer one.
    let index = function_ir(&text, "index");
    assert!(index.contains("%k = load i64, ptr %slots, align 8\n  %k.double = load double, ptr %slots, align 8"), "{index}");
    assert!(index.contains("fptosi double %k.double to i64"), "{index}");
    assert!(index.contains("and i64 %k, "), "{index}");
    assert!(!index.contains("bitcast"), "{index}");
    let same_block = function_ir(&text, "same_block");
    assert!(same_block.contains("select i1 %c, double %v.double, double 0.0"), "{same_block}");
    for name in ["pointer_use", "left_alone"] {
        let f = function_ir(&text, name);
        assert!(!f.contains("load double"), "{f}");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn a_second_run_changes_nothing() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit, "load-as-double").unwrap();
    let once = unit.print();
    run(&mut unit, "load-as-double").unwrap();
    assert_eq!(unit.print(), once);
}

#[test]
fn it_takes_no_parameters() {
    let context = Context::create();
    let mut unit = fixture(&context);
    let e = run(&mut unit, "load-as-double<x=1>").unwrap_err();
    assert!(e.contains("x"), "{e}");
}
