//! The pass on hand-written checks (`tests/fixtures/checks.ll`) over a four-type lattice. Review
//! changes with `cargo insta review`.

use deegen_llvm_ir::{load_module, parse_module, LlvmModule};
use deegen_pass::{AnalysisManager, IrUnit, PassRegistry};
use deegen_pass_type_check_strength_reduction::TypeCheckStrengthReduction;
use inkwell::context::Context;

fn fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/checks.ll")
}

fn run(unit: &mut LlvmModule<'_>) -> Result<(), String> {
    let mut r = PassRegistry::new();
    r.register::<TypeCheckStrengthReduction>();
    r.parse_pipeline("type-check-strength-reduction").unwrap().run(unit, &mut AnalysisManager::new()).map_err(|e| e.to_string())?;
    unit.verify().map_err(|e| e.join("\n"))
}

fn function_text(module: &str, name: &str) -> String {
    let start = module.find(&format!("@{name}(")).unwrap();
    let rest = &module[start..];
    rest[..rest.find("\n}\n").unwrap()].to_owned()
}

#[test]
fn checks_are_removed_or_reduced() {
    let context = Context::create();
    let mut unit = LlvmModule::new(load_module(&context, &fixture()).unwrap());
    run(&mut unit).unwrap();
    insta::assert_snapshot!(unit.print());
}

#[test]
fn what_each_case_becomes() {
    let context = Context::create();
    let mut unit = LlvmModule::new(load_module(&context, &fixture()).unwrap());
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
    let text = std::fs::read_to_string(fixture()).unwrap().replace(r#"!1 = !{!"nil", !"string"}"#, r#"!1 = !{!"nil", !"strong"}"#);
    let mut unit = LlvmModule::new(parse_module(&context, text.as_bytes(), "m").unwrap());
    let e = run(&mut unit).unwrap_err();
    assert!(e.contains("deegen.known_types") && e.contains("strong"), "{e}");
}

#[test]
fn without_a_lattice_nothing_changes() {
    let context = Context::create();
    let text = std::fs::read_to_string(fixture()).unwrap();
    let text = &text[..text.find("!deegen.type_lattice").unwrap()];
    let mut unit = LlvmModule::new(parse_module(&context, text.as_bytes(), "m").unwrap());
    let before = unit.print();
    run(&mut unit).unwrap();
    assert_eq!(unit.print(), before);
}

#[test]
fn a_malformed_lattice_is_an_error() {
    let context = Context::create();
    let text = std::fs::read_to_string(fixture()).unwrap().replace("proves=nil cost=1", "proves=none cost=1");
    let mut unit = LlvmModule::new(parse_module(&context, text.as_bytes(), "m").unwrap());
    let e = run(&mut unit).unwrap_err();
    assert!(e.contains("unknown type 'none'"), "{e}");
}
