//! File tests of the passes, in the style of LLVM's lit and FileCheck.
//!
//! Every `passes/<pass>/tests/file/*.ll` is one test (named `<pass>/<file>`; deegen-opt's own
//! are in `tools/deegen-opt/tests/file/`), made of its
//! `; RUN:` lines, each a shell pipeline that must exit 0 (`bash -o pipefail`):
//!
//! ```text
//! ; RUN: deegen-opt --passes=hot-cold-split %s | FileCheck %s
//! ; RUN: not deegen-opt --passes=interp-finalize %s 2>&1 | FileCheck %s --check-prefix=ERR
//! ```
//!
//! Substitutions: `%s` the test file, `%S` its folder, `%t` a scratch path unique to the test,
//! `%%` a percent sign; any other `%x` is an error. The words `deegen-opt`, `FileCheck` and
//! `not` name the built `deegen-opt` and LLVM 22's `FileCheck` and `not` (from `llvm-22-tools`,
//! which `scripts/setup.sh` installs). A line ending in `\` continues on the next `; RUN:`
//! line. A file with no RUN line fails. See `passes/FILE_TESTS.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

fn llvm_bin() -> PathBuf {
    std::env::var_os("LLVM_SYS_221_PREFIX").map(PathBuf::from).unwrap_or_else(|| "/usr/lib/llvm-22".into()).join("bin")
}

/// Every file test, sorted: `(pass, path)`.
fn discover(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(passes) = std::fs::read_dir(root.join("passes")) else { return out };
    for pass in passes.flatten() {
        let dir = pass.path().join("tests/file");
        let Ok(files) = std::fs::read_dir(&dir) else { continue };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().is_some_and(|e| e == "ll") {
                out.push((pass.file_name().to_string_lossy().into_owned(), path));
            }
        }
    }
    // deegen-opt's own tests (its errors and options).
    if let Ok(files) = std::fs::read_dir(root.join("tools/deegen-opt/tests/file")) {
        for f in files.flatten() {
            if f.path().extension().is_some_and(|e| e == "ll") {
                out.push(("deegen-opt".to_owned(), f.path()));
            }
        }
    }
    out.sort();
    out
}

/// The RUN lines of `text`, continuations joined.
fn run_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix(';').map(str::trim_start).and_then(|l| l.strip_prefix("RUN:")) else {
            continue;
        };
        let rest = rest.trim();
        let (part, continues) = match rest.strip_suffix('\\') {
            Some(p) => (p.trim_end(), true),
            None => (rest, false),
        };
        let joined = match pending.take() {
            Some(mut p) => {
                p.push(' ');
                p.push_str(part);
                p
            }
            None => part.to_owned(),
        };
        if continues {
            pending = Some(joined);
        } else {
            out.push(joined);
        }
    }
    out.extend(pending);
    out
}

struct Tools {
    deegen_opt: PathBuf,
    file_check: PathBuf,
    not: PathBuf,
}

/// Replaces the substitutions and the tool words of one RUN line.
fn expand(line: &str, file: &Path, scratch: &Path, tools: &Tools) -> Result<String, String> {
    let mut substituted = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            substituted.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => substituted.push_str(&file.display().to_string()),
            Some('S') => substituted.push_str(&file.parent().unwrap_or(Path::new(".")).display().to_string()),
            Some('t') => substituted.push_str(&scratch.display().to_string()),
            Some('%') => substituted.push('%'),
            Some(other) => return Err(format!("unknown substitution '%{other}' in RUN line: {line}")),
            None => return Err(format!("a RUN line ends in '%': {line}")),
        }
    }
    // Tool words are whole whitespace-separated words; the whitespace itself is kept (a sed
    // script in a RUN line may match runs of spaces).
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(&match word.as_str() {
            "deegen-opt" => tools.deegen_opt.display().to_string(),
            "FileCheck" => tools.file_check.display().to_string(),
            "not" => tools.not.display().to_string(),
            other => other.to_owned(),
        });
        word.clear();
    };
    for c in substituted.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    Ok(out)
}

fn run_file(path: &Path, scratch: &Path, tools: &Tools) -> Result<(), Failed> {
    for tool in [&tools.file_check, &tools.not] {
        if !tool.exists() {
            return Err(format!("{} is missing: run ./scripts/setup.sh (it installs llvm-22-tools)", tool.display()).into());
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let lines = run_lines(&text);
    if lines.is_empty() {
        return Err(format!("{} has no '; RUN:' line", path.display()).into());
    }
    for line in lines {
        let command = expand(&line, path, scratch, tools)?;
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &command])
            .current_dir(path.parent().unwrap_or(Path::new(".")))
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "RUN: {line}\ncommand: {command}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let root = workspace();
    let scratch_dir = std::env::temp_dir().join(format!("deegen-file-tests-{}", std::process::id()));
    std::fs::create_dir_all(&scratch_dir).expect("a scratch folder");
    let tests = discover(&root);
    assert!(!tests.is_empty(), "no file tests under {}/passes/*/tests/file", root.display());
    let trials = tests
        .into_iter()
        .map(|(pass, path)| {
            let name = format!("{pass}/{}", path.file_name().unwrap_or_default().to_string_lossy());
            let scratch = scratch_dir.join(name.replace('/', "__"));
            let tools = Tools {
                deegen_opt: PathBuf::from(env!("CARGO_BIN_EXE_deegen-opt")),
                file_check: llvm_bin().join("FileCheck"),
                not: llvm_bin().join("not"),
            };
            Trial::test(name, move || run_file(&path, &scratch, &tools))
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&scratch_dir);
    conclusion.exit();
}
