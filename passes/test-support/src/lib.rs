//! What the passes' snapshot tests share (see the README).

use std::path::{Path, PathBuf};

use deegen_llvm_ir::{parse_module, LlvmModule};
use deegen_pass::{AnalysisManager, IrUnit, PassRegistry};
use inkwell::context::Context;

/// `<crate>/tests/fixtures/<name>`; pass `env!("CARGO_MANIFEST_DIR")`.
pub fn fixture_path(manifest_dir: &str, name: &str) -> PathBuf {
    Path::new(manifest_dir).join("tests/fixtures").join(name)
}

/// The text of a fixture.
pub fn fixture_text(manifest_dir: &str, name: &str) -> String {
    let path = fixture_path(manifest_dir, name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Parses `text` as a module named `name` (the name appears in the printed module).
pub fn load<'c>(context: &'c Context, text: &str, name: &str) -> LlvmModule<'c> {
    let module = parse_module(context, text.as_bytes(), name).unwrap_or_else(|e| panic!("{e}"));
    module.set_source_file_name(name);
    LlvmModule::new(module)
}

/// A fixture, parsed; the module is named after the file.
pub fn load_fixture<'c>(context: &'c Context, manifest_dir: &str, name: &str) -> LlvmModule<'c> {
    load(context, &fixture_text(manifest_dir, name), name)
}

/// A registry holding the given pass types: `registry![HotColdSplit]`.
#[macro_export]
macro_rules! registry {
    ($($pass:ty),+ $(,)?) => {{
        let mut r = ::deegen_pass::PassRegistry::new();
        $(r.register::<$pass>();)+
        r
    }};
}

/// Runs `pipeline` on `unit`, then verifies it. Every failure is returned as its message.
pub fn run<'c>(registry: &PassRegistry<LlvmModule<'c>>, unit: &mut LlvmModule<'c>, pipeline: &str) -> Result<(), String> {
    let mut pm = registry.parse_pipeline(pipeline).map_err(|e| e.to_string())?;
    pm.run(unit, &mut AnalysisManager::new()).map_err(|e| e.to_string())?;
    unit.verify().map_err(|problems| format!("{}\n{}", problems.join("\n"), unit.print()))
}

/// The text of function `name` (from `define` to its closing brace) in printed IR.
pub fn function_ir<'a>(ir: &'a str, name: &str) -> &'a str {
    let at = ir.find(&format!("@{name}(")).unwrap_or_else(|| panic!("no function {name} in:\n{ir}"));
    let start = ir[..at].rfind("define").unwrap_or_else(|| panic!("{name} is not defined"));
    let end = ir[start..].find("\n}\n").map(|e| start + e + 2).unwrap_or(ir.len());
    &ir[start..end]
}
