//! The pass on a hand-written module (`tests/fixtures/handlers.ll`): what it rewrites, what it
//! leaves, and the invariant it refuses to break. Review changes with `cargo insta review`.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_tag_register_rewrite::TagRegisterRewrite;
use deegen_pass_test_support::{fixture_text, load, load_fixture, registry};
use inkwell::context::Context;

const TAGS: &str = "tag-register-rewrite<tag1=0xFFF8000000000001;tag2=0x0000FFFFFFFFFFFF>";
const FIXTURE: &str = "handlers.ll";

fn fixture(context: &Context) -> LlvmModule<'_> {
    load_fixture(context, env!("CARGO_MANIFEST_DIR"), FIXTURE)
}

fn run(unit: &mut LlvmModule<'_>, pipeline: &str) -> Result<(), String> {
    deegen_pass_test_support::run(&registry![TagRegisterRewrite], unit, pipeline)
}

#[test]
fn constants_become_the_tag_parameters() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit, TAGS).unwrap();
    insta::assert_snapshot!(unit.print());
}

#[test]
fn values_come_from_the_module_metadata_by_default() {
    let context = Context::create();
    let text = fixture_text(env!("CARGO_MANIFEST_DIR"), FIXTURE)
        + "!deegen.tag_registers = !{!0}\n!0 = !{!\"tag1=0xfff8000000000001\", !\"tag2=0xffffffffffff\"}\n";
    let mut from_metadata = load(&context, &text, "m");
    run(&mut from_metadata, "tag-register-rewrite").unwrap();
    let mut from_params = load(&context, &text, "m");
    run(&mut from_params, TAGS).unwrap();
    assert_eq!(from_metadata.print(), from_params.print());
    assert!(from_metadata.print().contains("icmp ult i64 %v, %tag1"));
}

#[test]
fn a_module_without_tag_values_is_left_alone() {
    let context = Context::create();
    let mut unit = fixture(&context);
    let before = unit.print();
    run(&mut unit, "tag-register-rewrite").unwrap();
    assert_eq!(unit.print(), before);
}

#[test]
fn a_handler_that_does_not_pass_its_tags_on_is_rejected() {
    let context = Context::create();
    let text = fixture_text(env!("CARGO_MANIFEST_DIR"), FIXTURE).replacen(
        "i64 %a3, i64 %tag2)\n  ret void\n\nobject",
        "i64 %a3, i64 7)\n  ret void\n\nobject",
        1,
    );
    let mut unit = load(&context, &text, "edited");
    let e = run(&mut unit, TAGS).unwrap_err();
    assert_eq!(e, "pass 'tag-register-rewrite': __deegen_interp_op_A: a call into the interpreter does not pass tag parameter 9 through");
}

#[test]
fn bad_parameters_are_reported() {
    for (pipeline, expected) in [
        ("tag-register-rewrite<tag1=1>", "give both tag1 and tag2, or neither"),
        ("tag-register-rewrite<tag1=x;tag2=1>", "parameter 'tag1' expects an integer (decimal or 0x hex), got 'x'"),
        ("tag-register-rewrite<tag3=1>", "unknown parameter 'tag3'"),
    ] {
        let e = registry![TagRegisterRewrite].parse_pipeline(pipeline).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(expected), "{pipeline}: {e}");
    }
    let context = Context::create();
    let mut unit = fixture(&context);
    let e = run(&mut unit, "tag-register-rewrite<tag1=5;tag2=5>").unwrap_err();
    assert!(e.contains("tag1 and tag2 are both 0x5"), "{e}");
}
