//! The pass on hand-written checks (`tests/fixtures/checks.ll`) over a four-type lattice. Review
//! changes with `cargo insta review`.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_test_support::{fixture_text, load, load_fixture, registry};
use deegen_pass_type_check_strength_reduction::TypeCheckStrengthReduction;
use inkwell::context::Context;

const FIXTURE: &str = "checks.ll";

fn fixture(context: &Context) -> LlvmModule<'_> {
    load_fixture(context, env!("CARGO_MANIFEST_DIR"), FIXTURE)
}

fn run(unit: &mut LlvmModule<'_>) -> Result<(), String> {
    deegen_pass_test_support::run(&registry![TypeCheckStrengthReduction], unit, "type-check-strength-reduction")
}

/// One function's text, without its closing brace (as the snapshots were taken).
fn function_text(module: &str, name: &str) -> String {
    deegen_pass_test_support::function_ir(module, name).trim_end_matches("}\n").trim_end_matches('\n').to_owned()
}

#[test]
fn checks_are_removed_or_reduced() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit).unwrap();
    insta::assert_snapshot!(unit.print());
}

#[test]
fn what_each_case_becomes() {
    let context = Context::create();
    let mut unit = fixture(&context);
    run(&mut unit).unwrap();
    let text = unit.print();
    let f = |name| function_text(&text, name);
    assert!(f("repeated").contains("call void @use(i1 true)") && f("repeated").contains("call void @use(i1 false)"), "{}", f("repeated"));
    assert!(f("excluded").contains("call void @use(i1 true)") && f("excluded").contains("@heap_is_string(i64 %v)"), "{}", f("excluded"));
    assert!(!f("excluded").contains("@is_string("), "{}", f("excluded"));
    assert!(f("negated").contains("call void @use(i1 true)") && f("negated").contains("call void @use(i1 false)"), "{}", f("negated"));
    assert!(f("joined").contains("call void @use(i1 false)") && f("joined").contains("%s2 = call i1 @is_heap(i64 %v)"), "{}", f("joined"));
    assert!(f("decided_edge").contains("br i1 true, label %body") && f("decided_edge").contains("call void @use(i1 false)"), "{}", f("decided_edge"));
    let c = f("conjunction");
    assert!(c.contains("yes:") && c.split("no:").next().unwrap().matches("call void @use(i1 true)").count() == 2, "{c}");
    assert!(c.contains("%a3 = call i1 @is_number(i64 %v)") && c.split("neither:").nth(1).unwrap().contains("call void @use(i1 false)"), "{c}");
    assert!(f("untouched").contains("%b = call i1 @is_number(i64 %w)"), "{}", f("untouched"));
    let k = f("known_constant");
    assert!(k.contains("call void @use(i1 false)") && k.contains("call void @use(i1 true)") && k.contains("call i1 @is_heap(i64 %c)"), "{k}");
}

#[test]
fn known_types_must_name_lattice_types() {
    let context = Context::create();
    let text = fixture_text(env!("CARGO_MANIFEST_DIR"), FIXTURE).replace(r#"!1 = !{!"nil", !"string"}"#, r#"!1 = !{!"nil", !"strong"}"#);
    let mut unit = load(&context, &text, "m");
    let e = run(&mut unit).unwrap_err();
    assert!(e.contains("deegen.known_types") && e.contains("strong"), "{e}");
}

#[test]
fn without_a_lattice_nothing_changes() {
    let context = Context::create();
    let text = fixture_text(env!("CARGO_MANIFEST_DIR"), FIXTURE);
    let text = &text[..text.find("!deegen.type_lattice").unwrap()];
    let mut unit = load(&context, text, "m");
    let before = unit.print();
    run(&mut unit).unwrap();
    assert_eq!(unit.print(), before);
}

#[test]
fn a_malformed_lattice_is_an_error() {
    let context = Context::create();
    let text = fixture_text(env!("CARGO_MANIFEST_DIR"), FIXTURE).replace("proves=nil cost=1", "proves=none cost=1");
    let mut unit = load(&context, &text, "m");
    let e = run(&mut unit).unwrap_err();
    assert!(e.contains("unknown type 'none'"), "{e}");
}
