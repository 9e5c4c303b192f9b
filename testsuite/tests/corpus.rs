//! Checks the shipped corpus itself, with `lua5.1` standing in for the implementation:
//!
//! * `self/<file> [default]`: the differential check of `lua5.1` against itself must pass,
//!   which catches non-deterministic programs (printing addresses, timing) that would make
//!   every future ljr run flaky, and exercises the runner on every real file;
//! * `expect/<file>`: files under `errors/` must fail (exit status 1 with an error message
//!   naming the file), every other file must succeed quietly and print something, so an
//!   accidental error in a "basic" test cannot hide as an agreed-upon failure.
//!
//! Needs `lua5.1` (scripts/setup.sh); without it every trial fails.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};
use lua51_testsuite::differential::{self, DifferentialConfig};
use lua51_testsuite::process::{self, Exit, Invocation, RunError};
use lua51_testsuite::{corpus_dir, REFERENCE_LUA};

fn expectation(rel: &Path) -> Result<(), String> {
    let path = corpus_dir().join(rel);
    let source = std::fs::read(&path).map_err(|e| e.to_string())?;
    // The file's own settings (arguments, stdin), as the differential runner uses them.
    let settings = lua51_testsuite::header::parse(&String::from_utf8_lossy(&source)).map_err(|e| e.to_string())?;
    let dir = path.parent().unwrap().to_path_buf();
    let mut args = vec![OsString::from(path.file_name().unwrap())];
    args.extend(settings.args.iter().map(OsString::from));
    let out = process::run(&Invocation {
        program: PathBuf::from(REFERENCE_LUA),
        args,
        cwd: dir.clone(),
        stdin: settings.stdin.as_ref().map(|s| dir.join(s)),
        timeout: Duration::from_secs(60),
        env: Vec::new(),
    })
    .map_err(|e| match e {
        RunError::NotFound { .. } => {
            format!("`{REFERENCE_LUA}` is not installed: run scripts/setup.sh")
        }
        e => e.to_string(),
    })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or("");
    let file_name = path.file_name().unwrap().to_string_lossy();
    if rel.starts_with("errors") {
        if out.exit != Exit::Code(1) {
            return Err(format!("an error test must exit with status 1 on lua5.1, got {}", out.exit));
        }
        if !first.starts_with(&format!("{REFERENCE_LUA}: {file_name}:")) {
            return Err(format!("an error test must report an error located in the file, got: {first}"));
        }
    } else {
        if out.exit != Exit::Code(0) || !out.stderr.is_empty() {
            return Err(format!("a basic test must run cleanly on lua5.1, got {} and stderr:\n{stderr}", out.exit));
        }
        if out.stdout.is_empty() {
            return Err("a basic test must print its results; it printed nothing".into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let files = differential::discover(&corpus_dir()).expect("the corpus directory is readable");
    let mut trials: Vec<Trial> = files
        .iter()
        .map(|rel| {
            let rel = rel.clone();
            Trial::test(format!("expect/{}", rel.display()), move || expectation(&rel).map_err(Failed::from))
        })
        .collect();
    let config = DifferentialConfig::new(REFERENCE_LUA);
    trials.extend(differential::test_cases(&config).into_iter().map(|mut case| {
        case.name = format!("self/{}", case.name);
        case.into_trial()
    }));
    libtest_mimic::run(&args, trials).exit();
}
