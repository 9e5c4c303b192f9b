//! The baseline JIT's generated emitters (`deegen_baseline_jit::emit`): the generator writes one
//! per variant from the same tables the JIT's general path reads. Every Lua variant must have
//! one, each must write exactly what the general path writes, and the general path, which
//! compiles nothing but the prologue once the emitters exist, must stay right on its own.

use std::path::{Path, PathBuf};

use lua51_vm::tiering::TierMode;
use lua51_vm::LuaState;

/// Every Lua file of the differential corpus.
fn corpus() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("the corpus directory").map(|e| e.expect("an entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "lua") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testsuite/lua"), &mut out);
    assert!(out.len() > 100, "the corpus is there");
    out
}

/// A state that compiles every function as it is loaded, its JIT made.
fn baseline_state() -> Box<LuaState> {
    let mut st = LuaState::new().expect("memory");
    st.tiering.mode = TierMode::Baseline;
    st.load(b"return 1", "=first", false).expect("a chunk that compiles");
    assert!(st.tiering.jit().is_some(), "the JIT ran");
    st
}

/// Loads (compiles, under [`TierMode::Baseline`]) every corpus file that parses.
fn load_corpus(st: &mut LuaState) -> usize {
    let mut loaded = 0;
    for path in corpus() {
        let source = std::fs::read(&path).expect("a corpus file");
        if st.load(&source, format!("@{}", path.display()), true).is_ok() {
            loaded += 1;
        }
    }
    loaded
}

#[test]
fn every_variant_has_a_generated_emitter() {
    let st = baseline_state();
    let jit = st.tiering.jit().expect("the JIT ran");
    assert_eq!(jit.variants_without_generated_emitter(), Vec::<&str>::new());
    assert!(jit.generated_emitter_count() > 100, "{} emitters", jit.generated_emitter_count());
}

#[test]
fn generated_emitters_write_what_the_general_path_writes() {
    let mut st = baseline_state();
    assert!(load_corpus(&mut st) > 100);
    let jit = st.tiering.jit().expect("the JIT ran");
    let mut compared = 0;
    for p in st.compiled_functions() {
        compared += jit.check_generated_emitters(&p.code).unwrap_or_else(|e| panic!("{}: {e}", p.chunkname));
    }
    assert!(compared > 10_000, "{compared} instructions compared");
}

#[test]
fn the_general_path_alone_compiles_what_the_checker_accepts() {
    let mut st = baseline_state();
    st.tiering.jit_mut().expect("the JIT ran").use_generated_emitters(false);
    assert_eq!(st.tiering.jit().expect("the JIT ran").generated_emitter_count(), 0);
    assert!(load_corpus(&mut st) > 100);
    let jit = st.tiering.jit().expect("the JIT ran");
    let functions = st.compiled_functions();
    assert!(functions.len() > 1000, "{} functions compiled", functions.len());
    for p in functions {
        let code = p.jit.as_ref().expect("compiled");
        jit.verify(&p.code, code).unwrap_or_else(|e| panic!("{}: {e}", p.chunkname));
    }
}
