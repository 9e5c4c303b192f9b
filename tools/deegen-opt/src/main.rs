//! `deegen-opt`: runs a pipeline of registered passes over an IR dump, like LLVM's `opt`.
//!
//! ```text
//! deegen-opt --passes=interp-create-handlers,inline-semantics semantics.ll -o out.ll
//! deegen-opt --list-passes
//! deegen-opt --passes=... --print-after-all --verify-each --time-passes input.bc
//! deegen-opt --passes=... --emit=asm input.ll        (ll | bc | asm | obj)
//! deegen-opt --passes=... --opt-bisect-limit=N input.ll   (run only the first N optimisations)
//! deegen-opt --list-passes=markdown                   (the pass table of passes/README.md)
//! deegen-opt --passes=a x.ll | deegen-opt --passes=b -   (`-` reads standard input)
//! ```
//! Input kind is chosen by content (LLVM bitcode magic, else textual LLVM IR). Every error (an
//! unknown pass, a bad pipeline, a pipeline in the wrong order for the input's phase, a
//! malformed file, a pass that rejects its input, a pipeline whose output fails LLVM's verifier,
//! checked as `opt` checks it unless `--disable-verify`) is one message on stderr and exit
//! status 1.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use deegen_llvm_ir::{emit, load_module, parse_module, LlvmModule};
use deegen_pass::{AnalysisManager, Instrumentation, IrUnit};
use inkwell::context::Context;
use inkwell::targets::FileType;

const USAGE: &str = "usage: deegen-opt [--passes=PIPELINE] [--print-after-all] [--verify-each] [--disable-verify] [--time-passes] [--opt-bisect-limit=N] [--emit=ll|bc|asm|obj] [-o OUTPUT] INPUT\n       deegen-opt --list-passes[=markdown]";

/// Everything `deegen-opt` can fail with, one line each on stderr.
#[derive(Debug, thiserror::Error)]
enum OptError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Pipeline(#[from] deegen_pass::PipelineError),
    #[error(transparent)]
    Load(#[from] deegen_llvm_ir::LoadError),
    #[error(transparent)]
    Run(#[from] deegen_pass::RunError),
    #[error("the pipeline's output is not valid LLVM IR (as `opt`, deegen-opt checks it; --disable-verify skips the check):\n{}", .0.join("\n"))]
    InvalidOutput(Vec<String>),
    #[error("code generation failed: {0}")]
    Emit(String),
    #[error("cannot write '{path}': {source}")]
    Write { path: String, source: std::io::Error },
}

#[derive(Default)]
struct Args {
    passes: Option<String>,
    print_after_all: bool,
    verify_each: bool,
    /// Skip the check of the final module (`opt`'s `-disable-verify`).
    disable_verify: bool,
    time_passes: bool,
    list: Option<String>,
    opt_bisect_limit: Option<usize>,
    emit: String,
    output: Option<PathBuf>,
    input: Option<PathBuf>,
}

fn parse_args() -> Result<Args, OptError> {
    let mut a = Args { emit: "ll".into(), ..Default::default() };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--print-after-all" => a.print_after_all = true,
            "--verify-each" => a.verify_each = true,
            "--disable-verify" => a.disable_verify = true,
            "--time-passes" => a.time_passes = true,
            "--list-passes" => a.list = Some("text".into()),
            "-h" | "--help" => return Err(usage(USAGE)),
            "-o" => a.output = Some(it.next().ok_or_else(|| usage("-o needs a file name"))?.into()),
            "--passes" => a.passes = Some(it.next().ok_or_else(|| usage("--passes needs a pipeline"))?),
            _ if arg.starts_with("--list-passes=") => {
                let format = &arg["--list-passes=".len()..];
                if !["text", "markdown"].contains(&format) {
                    return Err(usage(format!("unknown --list-passes format '{format}' (text or markdown)")));
                }
                a.list = Some(format.to_owned());
            }
            _ if arg.starts_with("--opt-bisect-limit=") => {
                let n = &arg["--opt-bisect-limit=".len()..];
                // LLVM's -1 means "no limit".
                a.opt_bisect_limit = match n.parse::<i64>() {
                    Ok(-1) => None,
                    Ok(n) if n >= 0 => Some(n as usize),
                    _ => return Err(usage(format!("--opt-bisect-limit expects a number of passes (or -1), got '{n}'"))),
                };
            }
            _ if arg.starts_with("--passes=") => a.passes = Some(arg["--passes=".len()..].to_owned()),
            _ if arg.starts_with("--emit=") => {
                a.emit = arg["--emit=".len()..].to_owned();
                if !["ll", "bc", "asm", "obj"].contains(&a.emit.as_str()) {
                    return Err(usage(format!("unknown --emit kind '{}' (ll, bc, asm or obj)", a.emit)));
                }
            }
            _ if arg.starts_with('-') && arg != "-" => return Err(usage(format!("unknown option '{arg}'\n{USAGE}"))),
            _ => {
                if a.input.is_some() {
                    return Err(usage(format!("more than one input file ('{arg}')")));
                }
                a.input = Some(arg.into());
            }
        }
    }
    Ok(a)
}

fn usage(message: impl Into<String>) -> OptError {
    OptError::Usage(message.into())
}

fn run() -> Result<(), OptError> {
    let args = parse_args()?;
    // Created first: the pipeline's passes are typed over modules of this context.
    let context = Context::create();
    let registry = deegen_passes::llvm_registry();
    match args.list.as_deref() {
        Some("markdown") => {
            print!("{}", registry.markdown_table());
            return Ok(());
        }
        Some(_) => {
            print!("{}", registry.describe());
            return Ok(());
        }
        None => {}
    }
    // Validate the pipeline before reading (possibly large) input.
    let mut pm = match &args.passes {
        Some(p) => registry.parse_pipeline(p)?,
        None => deegen_pass::PassManager::new(),
    };
    let input = args.input.ok_or_else(|| usage(format!("no input file\n{USAGE}")))?;
    // `-` reads standard input, so pipelines can be chained: `deegen-opt --passes=a x.ll | deegen-opt --passes=b -`.
    let module = if input.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .map_err(|source| deegen_llvm_ir::LoadError::Io { path: "<stdin>".into(), source })?;
        parse_module(&context, &bytes, "<stdin>")?
    } else {
        load_module(&context, &input)?
    };
    let mut unit = LlvmModule::new(module);
    pm.set_instrumentation(Instrumentation {
        print_after_all: args.print_after_all,
        verify_each: args.verify_each,
        time_passes: args.time_passes,
        opt_bisect_limit: args.opt_bisect_limit,
        sink: None,
    });
    let result = pm.run(&mut unit, &mut AnalysisManager::new());
    // Printed like LLVM's, also when a later pass fails: the last line names the culprit.
    for decision in pm.bisect_log() {
        eprintln!("{decision}");
    }
    result?;
    // As LLVM's `opt`: a pass that leaves invalid IR is an error here, not later in whatever
    // reads the output. (LLVM's verifier only: the phases' own invariants are
    // `--verify-each`'s, and the file tests' small fixtures do not keep them.)
    if !args.disable_verify && !args.passes.as_deref().unwrap_or("").is_empty() {
        unit.module.verify().map_err(|e| OptError::InvalidOutput(e.to_string().lines().map(str::to_owned).filter(|l| !l.is_empty()).collect()))?;
    }
    if args.time_passes {
        for t in pm.timings() {
            eprintln!("{:>10.3} ms  {}", t.time.as_secs_f64() * 1e3, t.pass);
        }
    }
    let bytes = match args.emit.as_str() {
        "ll" => unit.print().into_bytes(),
        "bc" => unit.module.write_bitcode_to_memory().as_slice().to_vec(),
        "asm" => emit(&unit.module, FileType::Assembly).map_err(OptError::Emit)?,
        _ => emit(&unit.module, FileType::Object).map_err(OptError::Emit)?,
    };
    match &args.output {
        Some(p) if p.as_os_str() != "-" => std::fs::write(p, bytes).map_err(|source| OptError::Write { path: p.display().to_string(), source }),
        _ => std::io::stdout().write_all(&bytes).map_err(|source| OptError::Write { path: "<stdout>".into(), source }),
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_env("DEEGEN_LOG")).with_writer(std::io::stderr).init();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("deegen-opt: {message}");
            ExitCode::FAILURE
        }
    }
}
