//! The pass on `tests/fixtures/hints.ll`: which branch edges a type hint makes slow paths.

use deegen_llvm_ir::LlvmModule;
use deegen_pass::IrUnit;
use deegen_pass_test_support::{load_fixture, registry};
use deegen_pass_type_hint_slow_paths::TypeHintSlowPaths;
use inkwell::context::Context;

fn run(unit: &mut LlvmModule<'_>) {
    deegen_pass_test_support::run(&registry![TypeHintSlowPaths], unit, "type-hint-slow-paths").unwrap();
}

/// The cold successor index each conditional branch carries, by the block it ends.
fn marks(ir: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut block = String::from("entry");
    for line in ir.lines() {
        if let Some(label) = line
            .strip_suffix(':')
            .or_else(|| line.split_once(':').filter(|(l, r)| !l.contains(' ') && r.trim_start().starts_with(';')).map(|(l, _)| l))
        {
            block = label.to_owned();
        }
        if line.trim_start().starts_with("br i1") {
            let mark = line.split("!deegen.cold_edge ").nth(1).map(|m| m.trim().to_owned());
            out.push((block.clone(), mark));
        }
    }
    out
}

#[test]
fn hinted_checks_mark_the_edge_the_hinted_types_do_not_take() {
    let context = Context::create();
    let mut unit = load_fixture(&context, env!("CARGO_MANIFEST_DIR"), "hints.ll");
    run(&mut unit);
    let ir = unit.print();
    let marks = marks(&ir);
    let node = |block: &str| marks.iter().find(|(b, _)| b == block).unwrap_or_else(|| panic!("no branch in {block}: {ir}")).1.clone();
    // Marks name a metadata node; resolve it to the successor index it holds.
    let index = |block: &str| {
        let n = node(block)?;
        let def = ir.lines().find(|l| l.starts_with(&format!("{n} = ")))?;
        Some(def.split("i32 ").nth(1)?.trim_end_matches('}').trim().to_owned())
    };
    assert_eq!(index("entry").as_deref(), Some("1"), "a number check of a number: the false edge is slow\n{ir}");
    assert_eq!(node("unhinted"), None, "no hint, no mark\n{ir}");
    assert_eq!(index("negated").as_deref(), Some("0"), "not(true): the true edge is slow\n{ir}");
    assert_eq!(index("conjunction").as_deref(), Some("0"), "and(false, ?) is false\n{ir}");
    assert_eq!(node("disjunction"), None, "or(false, ?) is unknown\n{ir}");
}

#[test]
fn a_module_without_a_lattice_is_unchanged() {
    let context = Context::create();
    let text = deegen_pass_test_support::fixture_text(env!("CARGO_MANIFEST_DIR"), "hints.ll");
    let without =
        text.split("!deegen.type_lattice").next().unwrap().to_owned() + "!1 = !{!\"number\"}\n!deegen.phase = !{!2}\n!2 = !{!\"handlers\"}\n";
    let mut unit = deegen_pass_test_support::load(&context, &without, "hints-no-lattice.ll");
    let before = unit.print();
    run(&mut unit);
    assert_eq!(unit.print(), before);
}
