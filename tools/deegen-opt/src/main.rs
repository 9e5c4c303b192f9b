//! `deegen-opt`: runs a pipeline of registered passes over an IR dump, like LLVM's `opt`.
//!
//! ```text
//! deegen-opt --passes=interp-create-handlers,inline-semantics semantics.ll -o out.ll
//! deegen-opt --list-passes
//! deegen-opt --passes=... --print-after-all --verify-each --time-passes input.bc
//! deegen-opt --passes=... --emit=asm input.ll        (ll | bc | asm | obj)
//! ```
//! Input kind is chosen by content (LLVM bitcode magic, else textual LLVM IR). Every error (an
//! unknown pass, a bad pipeline, a malformed file, a pass that rejects its input) is one
//! message on stderr and exit status 1.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use deegen_llvm_ir::{emit, load_module, LlvmModule};
use deegen_pass::{AnalysisManager, Instrumentation, IrUnit};
use inkwell::context::Context;
use inkwell::targets::FileType;

const USAGE: &str = "usage: deegen-opt [--passes=PIPELINE] [--print-after-all] [--verify-each] [--time-passes] [--emit=ll|bc|asm|obj] [-o OUTPUT] INPUT\n       deegen-opt --list-passes";

#[derive(Default)]
struct Args {
    passes: Option<String>,
    print_after_all: bool,
    verify_each: bool,
    time_passes: bool,
    list: bool,
    emit: String,
    output: Option<PathBuf>,
    input: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { emit: "ll".into(), ..Default::default() };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--print-after-all" => a.print_after_all = true,
            "--verify-each" => a.verify_each = true,
            "--time-passes" => a.time_passes = true,
            "--list-passes" => a.list = true,
            "-h" | "--help" => return Err(USAGE.into()),
            "-o" => a.output = Some(it.next().ok_or("-o needs a file name")?.into()),
            "--passes" => a.passes = Some(it.next().ok_or("--passes needs a pipeline")?),
            _ if arg.starts_with("--passes=") => a.passes = Some(arg["--passes=".len()..].to_owned()),
            _ if arg.starts_with("--emit=") => {
                a.emit = arg["--emit=".len()..].to_owned();
                if !["ll", "bc", "asm", "obj"].contains(&a.emit.as_str()) {
                    return Err(format!("unknown --emit kind '{}' (ll, bc, asm or obj)", a.emit));
                }
            }
            _ if arg.starts_with('-') && arg != "-" => return Err(format!("unknown option '{arg}'\n{USAGE}")),
            _ => {
                if a.input.is_some() {
                    return Err(format!("more than one input file ('{arg}')"));
                }
                a.input = Some(arg.into());
            }
        }
    }
    Ok(a)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    // Created first: the pipeline's passes are typed over modules of this context.
    let context = Context::create();
    let registry = deegen_passes::llvm_registry();
    if args.list {
        print!("{}", registry.describe());
        return Ok(());
    }
    // Validate the pipeline before reading (possibly large) input.
    let mut pm = match &args.passes {
        Some(p) => registry.parse_pipeline(p).map_err(|e| e.to_string())?,
        None => deegen_pass::PassManager::new(),
    };
    let input = args.input.ok_or_else(|| format!("no input file\n{USAGE}"))?;
    let module = load_module(&context, &input).map_err(|e| e.to_string())?;
    let mut unit = LlvmModule::new(module);
    pm.set_instrumentation(Instrumentation {
        print_after_all: args.print_after_all,
        verify_each: args.verify_each,
        time_passes: args.time_passes,
        sink: None,
    });
    pm.run(&mut unit, &mut AnalysisManager::new()).map_err(|e| e.to_string())?;
    if args.time_passes {
        for t in pm.timings() {
            eprintln!("{:>10.3} ms  {}", t.time.as_secs_f64() * 1e3, t.pass);
        }
    }
    let bytes = match args.emit.as_str() {
        "ll" => unit.print().into_bytes(),
        "bc" => unit.module.write_bitcode_to_memory().as_slice().to_vec(),
        "asm" => emit(&unit.module, FileType::Assembly)?,
        _ => emit(&unit.module, FileType::Object)?,
    };
    match &args.output {
        Some(p) if p.as_os_str() != "-" => std::fs::write(p, bytes).map_err(|e| format!("cannot write '{}': {e}", p.display())),
        _ => std::io::stdout().write_all(&bytes).map_err(|e| format!("cannot write output: {e}")),
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
