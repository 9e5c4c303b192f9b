//! Generates the Lua interpreter and the baseline JIT's stencils from the bytecode specs and
//! semantics, at build time.
//! LLVM runs here (through the `deegen` generator), never in the built runtime.

use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.join("../../..").canonicalize().expect("workspace root");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for watched in ["frontends/lua51/semantics", "frontends/lua51/value", "frontends/lua51/specs", "api"] {
        println!("cargo:rerun-if-changed={}", workspace.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=DEEGEN_DUMP_IR");
    println!("cargo:rerun-if-env-changed=DEEGEN_OPT_BISECT_LIMIT");

    let bitcode = deegen::compile_semantics_to_bitcode(&workspace.join("Cargo.toml"), "lua51-semantics", &out.join("semantics-target"))
        .unwrap_or_else(|e| panic!("{e}"));
    let options = deegen::GenerateOptions {
        dump_ir: std::env::var_os("DEEGEN_DUMP_IR").is_some(),
        // Bisecting a miscompiled interpreter: `DEEGEN_OPT_BISECT_LIMIT=N cargo build`.
        opt_bisect_limit: std::env::var("DEEGEN_OPT_BISECT_LIMIT")
            .ok()
            .map(|n| n.parse().unwrap_or_else(|_| panic!("DEEGEN_OPT_BISECT_LIMIT must be a number, got '{n}'"))),
        tag_registers: Some(lua51_specs::TAG_REGISTERS),
        nan_boxed_doubles_below: Some(lua51_specs::NAN_BOXED_DOUBLES_BELOW),
        type_lattice: Some(lua51_specs::type_lattice().unwrap_or_else(|e| panic!("{e}"))),
        library: lua51_specs::library(),
    };
    let generated = deegen::generate_interpreter(&bitcode, &lua51_specs::bytecodes(), &out.join("interpreter"), &options)
        .unwrap_or_else(|e| panic!("generating the interpreter failed: {e}"));
    let baseline = deegen::generate_baseline_jit(&bitcode, &lua51_specs::bytecodes(), &generated.variants, &out.join("baseline"), &options)
        .unwrap_or_else(|e| panic!("generating the baseline JIT failed: {e}"));
    println!("cargo:rustc-env=DEEGEN_BASELINE_STENCILS={}", baseline.tables.display());
    println!("cargo:rustc-env=DEEGEN_BASELINE_STENCILS_TXT={}", baseline.disassembly.display());
    for decision in &generated.bisect_log {
        println!("cargo:warning={decision}");
    }
    println!("cargo:rustc-link-search=native={}", generated.archive.parent().expect("archive dir").display());
    println!("cargo:rustc-link-lib=static={}", deegen::ARCHIVE_NAME);
    // The generated code addresses its tables absolutely (see deegen_llvm_ir::target_machine):
    // this package's tests link non-PIE, and so must every package that links it (their build
    // scripts say so too: `tools/ljr/build.rs`).
    println!("cargo:rustc-link-arg=-no-pie");
    println!("cargo:rustc-env=DEEGEN_INTERPRETER_ASM={}", generated.assembly.display());
    println!("cargo:rustc-env=DEEGEN_INTERPRETER_IR={}", generated.input_ir.display());
}
