//! The build-time generator driver.
//!
//! ```text
//!  semantics crate ──cargo rustc --emit=llvm-bc──► semantics.bc
//!  specs (data) ──resolve_variants──► variants ──embedded as !deegen.variants──┐
//!                                                                               ▼
//!        LLVM module ──INTERPRETER_PIPELINE (deegen-passes)──► interpreter module
//!                                                                 │ TargetMachine (llc)
//!                                                                 ▼
//!                        interpreter.o, libdeegen_interp.a, interpreter.s, bytecode_builder.rs
//! ```
//!
//! Used by the language runtime's build script; every intermediate IR can be written out
//! (`DEEGEN_DUMP_IR=1`) and fed to `deegen-opt`.

mod baseline;
mod builder_gen;

use std::path::{Path, PathBuf};
use std::process::Command;

use deegen_bytecode_spec::{resolve_variants, BytecodeSpec, Variant};
use deegen_llvm_ir::{
    emit, parse_module, read_variants, write_library, write_nan_boxing, write_tag_registers, write_type_lattice, write_variants, LlvmModule,
};
use deegen_pass::{AnalysisManager, Instrumentation, IrUnit};
use inkwell::context::Context;
use inkwell::targets::FileType;

pub use baseline::{generate_baseline_jit, BaselineOutputs};
pub use builder_gen::builder_source;

/// Everything that can go wrong while generating.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("compiling the semantics crate to bitcode failed: {0}")]
    Bitcode(String),
    #[error("invalid bytecode specs: {0}")]
    Spec(#[from] deegen_bytecode_spec::SpecError),
    #[error("{0}")]
    Llvm(String),
    #[error(transparent)]
    Run(#[from] deegen_pass::RunError),
    #[error(transparent)]
    Pipeline(#[from] deegen_pass::PipelineError),
    #[error("i/o on '{path}': {source}")]
    Io { path: String, source: std::io::Error },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GenerateError + '_ {
    move |source| GenerateError::Io { path: path.display().to_string(), source }
}

/// Environment variables of an outer cargo build that must not leak into the nested one.
const CARGO_ENV_TO_CLEAR: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_MAKEFLAGS",
    "MAKEFLAGS",
    "MFLAGS",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_BUILD_RUSTFLAGS",
];

/// Compiles `package` of the workspace at `workspace_manifest` to one LLVM bitcode file, with the
/// `deegen-semantics` profile (opt-level 0, panic=abort, no overflow checks).
///
/// Uses its own `target_dir`: a build script that runs cargo on the outer build's target dir
/// would wait forever on its lock.
pub fn compile_semantics_to_bitcode(workspace_manifest: &Path, package: &str, target_dir: &Path) -> Result<PathBuf, GenerateError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    for var in CARGO_ENV_TO_CLEAR {
        cmd.env_remove(var);
    }
    cmd.arg("rustc")
        .arg("--manifest-path")
        .arg(workspace_manifest)
        .args(["-p", package, "--profile", "deegen-semantics", "--lib", "--offline", "--target-dir"])
        .arg(target_dir)
        .args(["--", "--emit=llvm-bc"]);
    tracing::info!(?cmd, "compiling semantics to bitcode");
    let out = cmd.output().map_err(|e| GenerateError::Bitcode(format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        return Err(GenerateError::Bitcode(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    let deps = target_dir.join("deegen-semantics").join("deps");
    let stem = format!("{}-", package.replace('-', "_"));
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&deps)
        .map_err(io(&deps))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bc") && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&stem)))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p).ok_or_else(|| GenerateError::Bitcode(format!("no {stem}*.bc in {}", deps.display())))
}

/// Options of [`generate_interpreter`].
#[derive(Debug, Clone, Default)]
pub struct GenerateOptions {
    /// Write the IR before and after every pass to `<out>/ir/NN-<pass>.ll`.
    pub dump_ir: bool,
    /// The language's tag-register values (its boxing scheme's hottest constants), embedded
    /// as `!deegen.tag_registers` for the `tag-register-rewrite` pass; `None` leaves the
    /// registers unused.
    pub tag_registers: Option<[u64; 2]>,
    /// The language's type lattice, embedded as `!deegen.type_lattice` for the
    /// `type-check-strength-reduction` pass; `None` leaves the type checks as written.
    pub type_lattice: Option<deegen_bytecode_spec::TypeLattice>,
    /// The NaN-boxing bound (boxed values below it are doubles), embedded as
    /// `!deegen.nan_boxing` for the `nan-check-fusion` pass; `None` leaves the checks as they are.
    pub nan_boxed_doubles_below: Option<u64>,
    /// Run only the first N optimisations of the pipeline (`--opt-bisect-limit`); the
    /// decisions are returned in [`InterpreterOutputs::bisect_log`].
    pub opt_bisect_limit: Option<usize>,
    /// The library functions the language writes in its semantics, embedded as
    /// `!deegen.library` into the interpreter's module (they run in the interpreter's code;
    /// every tier calls them through their code blocks' entries).
    pub library: Vec<deegen_bytecode_spec::LibFunctionSpec>,
}

/// Files written by [`generate_interpreter`].
#[derive(Debug, Clone)]
pub struct InterpreterOutputs {
    pub variants: Vec<Variant>,
    /// The input of the pipeline (semantics with variants embedded), runnable in `deegen-opt`.
    pub input_ir: PathBuf,
    pub object: PathBuf,
    /// `lib<ARCHIVE_NAME>.a`, holding `object`.
    pub archive: PathBuf,
    /// The generated handlers as assembly text, for reading.
    pub assembly: PathBuf,
    /// The generated bytecode builder (Rust source).
    pub builder: PathBuf,
    /// With an `opt_bisect_limit`: `BISECT: running pass (1) x` lines, as LLVM prints them.
    pub bisect_log: Vec<String>,
}

/// Name of the static library holding the interpreter.
pub const ARCHIVE_NAME: &str = "deegen_interp";

/// Alignment of the interpreter's handlers and continuations in bytes (a cache line).
const HANDLER_ALIGNMENT: u32 = 64;

/// Runs the whole interpreter generation on semantics bitcode.
pub fn generate_interpreter(
    bitcode: &Path,
    specs: &[BytecodeSpec],
    out_dir: &Path,
    options: &GenerateOptions,
) -> Result<InterpreterOutputs, GenerateError> {
    let _span = tracing::info_span!("generate_interpreter").entered();
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let context = Context::create();
    let mut unit = load_semantics(&context, bitcode, specs, options)?;
    write_library(&unit.module, &options.library).map_err(GenerateError::Llvm)?;
    let input_ir = out_dir.join("semantics.ll");
    write_atomically(&input_ir, unit.print().as_bytes())?;

    let mut pm = deegen_passes::llvm_registry().parse_pipeline(deegen_passes::INTERPRETER_PIPELINE)?;
    let mut instrumentation = Instrumentation { verify_each: true, opt_bisect_limit: options.opt_bisect_limit, ..Default::default() };
    if options.dump_ir {
        let dir = out_dir.join("ir");
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut n = 0;
        instrumentation.print_after_all = true;
        instrumentation.sink = Some(Box::new(move |label: &str, text: &str| {
            let name = label.strip_prefix("after ").unwrap_or(label);
            let _ = std::fs::write(dir.join(format!("{n:02}-{name}.ll")), text);
            n += 1;
        }));
    }
    pm.set_instrumentation(instrumentation);
    pm.run(&mut unit, &mut AnalysisManager::new())?;
    let bisect_log: Vec<String> = pm.bisect_log().iter().map(ToString::to_string).collect();

    // Every handler and continuation starts a cache line (LLVM's default is 16 bytes). Where
    // a hot handler's first instructions fall within its line moved with every change to
    // unrelated code linked before the interpreter, and with it the speed of whole programs:
    // adding the baseline JIT's generated emitters to the runtime made fannkuch 11% slower
    // in the interpreter with the same instructions. Aligned, where a handler starts within
    // its line no longer depends on what precedes the interpreter (side by side: fannkuch,
    // mandelbrot, matmul, heapsort, primes 4-12% faster, list and methodcall 2-3% slower,
    // 11 KB more code). The slow paths (`__slow<k>`), cold, keep the default.
    for f in deegen_llvm_ir::defined_functions(&unit.module) {
        if !f.get_name().to_string_lossy().contains("__slow") {
            f.as_global_value().set_alignment(HANDLER_ALIGNMENT);
        }
    }
    let object = out_dir.join("interpreter.o");
    write_atomically(&object, &emit(&unit.module, FileType::Object).map_err(GenerateError::Llvm)?)?;
    let assembly = out_dir.join("interpreter.s");
    write_atomically(&assembly, &emit(&unit.module, FileType::Assembly).map_err(GenerateError::Llvm)?)?;
    let archive = out_dir.join(format!("lib{ARCHIVE_NAME}.a"));
    make_archive(&archive, &object)?;
    // Passes extend layouts (a call inline cache is appended to the variants that make calls),
    // so the builder encodes what the generated handlers decode: the module's final variants.
    let variants = read_variants(&unit.module).map_err(GenerateError::Llvm)?;
    let builder = out_dir.join("bytecode_builder.rs");
    write_atomically(&builder, builder_source(specs, &variants).as_bytes())?;
    Ok(InterpreterOutputs { variants, input_ir, object, archive, assembly, builder, bisect_log })
}

/// The semantics bitcode with the language's variants, tag registers, NaN boxing and type
/// lattice embedded: the input of every tier's pipeline.
fn load_semantics<'ctx>(
    context: &'ctx Context,
    bitcode: &Path,
    specs: &[BytecodeSpec],
    options: &GenerateOptions,
) -> Result<LlvmModule<'ctx>, GenerateError> {
    let variants = resolve_variants(specs)?;
    let bytes = std::fs::read(bitcode).map_err(io(bitcode))?;
    let module = parse_module(context, &bytes, "semantics").map_err(|e| GenerateError::Llvm(e.to_string()))?;
    write_variants(&module, &variants).map_err(GenerateError::Llvm)?;
    if let Some(tags) = options.tag_registers {
        write_tag_registers(&module, tags).map_err(GenerateError::Llvm)?;
    }
    if let Some(bound) = options.nan_boxed_doubles_below {
        write_nan_boxing(&module, bound).map_err(GenerateError::Llvm)?;
    }
    if let Some(lattice) = &options.type_lattice {
        write_type_lattice(&module, lattice).map_err(GenerateError::Llvm)?;
    }
    Ok(LlvmModule::new(module))
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), GenerateError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// LLVM's own archiver, from the same installation the generator links (no second toolchain).
fn llvm_tool(name: &str) -> PathBuf {
    let prefix = std::env::var_os("LLVM_SYS_221_PREFIX").map(PathBuf::from).unwrap_or_else(|| "/usr/lib/llvm-22".into());
    prefix.join("bin").join(name)
}

fn make_archive(archive: &Path, object: &Path) -> Result<(), GenerateError> {
    let _ = std::fs::remove_file(archive);
    let ar = llvm_tool("llvm-ar");
    let status = Command::new(&ar)
        .arg("crs")
        .arg(archive)
        .arg(object)
        .status()
        .map_err(|e| GenerateError::Llvm(format!("cannot run {}: {e}", ar.display())))?;
    if !status.success() {
        return Err(GenerateError::Llvm(format!("{} failed on {}", ar.display(), archive.display())));
    }
    Ok(())
}
