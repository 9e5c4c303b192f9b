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
//! `%%` a percent sign; any other `%x` is an error. The commands `deegen-opt`, `FileCheck` and
//! `not` are shell functions the runner defines before the line: the built `deegen-opt`, LLVM
//! 22's `FileCheck` (from `llvm-22-tools`, which `scripts/setup.sh` installs), and LLVM's `not`
//! made to know Rust: it succeeds when its command exits with a non-zero status, but not when
//! the command crashed (a signal, or a panic's status 101), so a negative test never passes on
//! a panic. A line ending in `\` continues on the next `; RUN:` line. A file with no RUN line
//! fails, and so does a check line whose prefix no RUN line gives FileCheck (it would never be
//! checked). See `passes/FILE_TESTS.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

fn llvm_bin() -> PathBuf {
    std::env::var_os("LLVM_SYS_221_PREFIX").map(PathBuf::from).unwrap_or_else(|| "/usr/lib/llvm-22".into()).join("bin")
}

/// The `.ll` files of `dir` (none when it does not exist).
fn ll_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(files) = std::fs::read_dir(dir) else { return Vec::new() };
    files.flatten().map(|f| f.path()).filter(|p| p.extension().is_some_and(|e| e == "ll")).collect()
}

/// Every file test, sorted: `(pass, path)`; deegen-opt's own (its errors and options) as
/// pass `deegen-opt`.
fn discover(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Ok(passes) = std::fs::read_dir(root.join("passes")) {
        for pass in passes.flatten() {
            let name = pass.file_name().to_string_lossy().into_owned();
            out.extend(ll_files(&pass.path().join("tests/file")).into_iter().map(|p| (name.clone(), p)));
        }
    }
    out.extend(ll_files(&root.join("tools/deegen-opt/tests/file")).into_iter().map(|p| ("deegen-opt".to_owned(), p)));
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
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The shell functions a RUN line calls its tools by, so that the line itself runs verbatim
/// (a tool's name inside a sed script stays text).
fn preamble(tools: &Tools) -> String {
    format!(
        "deegen-opt() {{ {} \"$@\"; }}\n\
         FileCheck() {{ {} \"$@\"; }}\n\
         not() {{\n\
           \"$@\"; local status=$?\n\
           if [ $status -eq 0 ]; then echo \"not: '$1' succeeded\" >&2; return 1; fi\n\
           if [ $status -eq 101 ] || [ $status -gt 128 ]; then echo \"not: '$1' crashed (exit status $status)\" >&2; return 1; fi\n\
         }}\n",
        shell_quote(&tools.deegen_opt.display().to_string()),
        shell_quote(&tools.file_check.display().to_string()),
    )
}

/// Replaces the substitutions of one RUN line.
fn expand(line: &str, file: &Path, scratch: &Path) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push_str(&file.display().to_string()),
            Some('S') => out.push_str(&file.parent().unwrap_or(Path::new(".")).display().to_string()),
            Some('t') => out.push_str(&scratch.display().to_string()),
            Some('%') => out.push('%'),
            Some(other) => return Err(format!("unknown substitution '%{other}' in RUN line: {line}")),
            None => return Err(format!("a RUN line ends in '%': {line}")),
        }
    }
    Ok(out)
}

/// The check prefixes the FileCheck commands of `lines` look for (`CHECK` when one gives none).
fn check_prefixes(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines {
        for command in line.split('|') {
            let words: Vec<&str> = command.split_whitespace().collect();
            let Some(at) = words.iter().position(|w| *w == "FileCheck") else { continue };
            let mut given = Vec::new();
            let mut args = words[at + 1..].iter();
            while let Some(arg) = args.next() {
                let arg = arg.trim_start_matches('-');
                let value = match arg.split_once('=') {
                    Some(("check-prefix" | "check-prefixes", value)) => Some(value),
                    None if arg == "check-prefix" || arg == "check-prefixes" => args.next().copied(),
                    _ => None,
                };
                if let Some(value) = value {
                    given.extend(value.trim_matches(|c| c == '\'' || c == '"').split(',').map(str::to_owned));
                }
            }
            if given.is_empty() {
                given.push("CHECK".to_owned());
            }
            out.extend(given);
        }
    }
    out
}

/// Check lines (`; PREFIX:`, `; PREFIX-NEXT:`, ...) whose prefix no RUN line gives FileCheck:
/// FileCheck would never look at them.
fn unchecked_lines(text: &str, prefixes: &[String]) -> Vec<String> {
    const SUFFIXES: [&str; 6] = ["-NEXT", "-SAME", "-NOT", "-DAG", "-LABEL", "-EMPTY"];
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(comment) = line.trim_start().strip_prefix(';') else { continue };
        let Some((word, _)) = comment.trim_start().split_once(':') else { continue };
        if word.is_empty() || !word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '_') || word == "RUN" {
            continue;
        }
        let mut prefix = word;
        for suffix in SUFFIXES {
            if let Some(p) = word.strip_suffix(suffix) {
                prefix = p;
            }
        }
        // `-COUNT-<n>`
        if let Some((p, n)) = word.rsplit_once("-COUNT-") {
            if n.chars().all(|c| c.is_ascii_digit()) {
                prefix = p;
            }
        }
        if !prefixes.iter().any(|p| p == prefix || p == word) {
            out.push(format!("line {}: {}", i + 1, line.trim()));
        }
    }
    out
}

fn run_file(path: &Path, scratch: &Path, tools: &Tools) -> Result<(), Failed> {
    if !tools.file_check.exists() {
        return Err(format!("{} is missing: run ./scripts/setup.sh (it installs llvm-22-tools)", tools.file_check.display()).into());
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let lines = run_lines(&text);
    if lines.is_empty() {
        return Err(format!("{} has no '; RUN:' line", path.display()).into());
    }
    let unchecked = unchecked_lines(&text, &check_prefixes(&lines));
    if !unchecked.is_empty() {
        return Err(format!("check lines with a prefix no RUN line gives FileCheck (--check-prefix):\n  {}", unchecked.join("\n  ")).into());
    }
    let preamble = preamble(tools);
    for line in lines {
        let command = expand(&line, path, scratch)?;
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &format!("{preamble}{command}")])
            .current_dir(path.parent().unwrap_or(Path::new(".")))
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A panic whose message went to the runner rather than into FileCheck.
        let panicked = stderr.contains("panicked at");
        if !out.status.success() || panicked {
            return Err(format!(
                "RUN: {line}\ncommand: {command}\nexit: {}{}\n--- stdout\n{}--- stderr\n{stderr}",
                out.status,
                if panicked { " (a command panicked)" } else { "" },
                String::from_utf8_lossy(&out.stdout),
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
            let tools = Tools { deegen_opt: PathBuf::from(env!("CARGO_BIN_EXE_deegen-opt")), file_check: llvm_bin().join("FileCheck") };
            Trial::test(name, move || run_file(&path, &scratch, &tools))
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&scratch_dir);
    conclusion.exit();
}
