//! Differential testing: run each corpus file on the reference `lua5.1` and on the
//! implementation under test, and require the same observable behaviour.
//!
//! "Observable" is deliberately narrow so that the comparison is exact and still fair:
//!
//! * stdout, byte for byte (this is where test programs put their checks);
//! * the exit status (0 for success, 1 for an uncaught error or a syntax error);
//! * when the reference failed, the first line of stderr — the error message with its
//!   `chunk:line:` position — after removing the `progname: ` prefix that `lua.c` adds.
//!   The stack traceback after the first line is not compared: its shape depends on how
//!   the implementation represents frames and is not part of the language.
//!
//! Each (file, tier) pair is one [`libtest_mimic::Trial`]. The reference result of a file
//! is computed once and shared by all its tiers.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libtest_mimic::{Failed, Trial};

use crate::diff::{escape_line, unified_diff};
use crate::header::{self, TestSettings};
use crate::process::{self, Exit, Invocation, Outcome, RunError};
use crate::tiers::{self, Tier};

/// Name (looked up on `PATH`) of the reference interpreter.
pub const REFERENCE_LUA: &str = "lua5.1";

/// Timeout of one run when the test file does not set its own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Lines of context around each change in a stdout diff.
const DIFF_CONTEXT: usize = 3;
/// Lines of stdout diff shown before it is cut.
const DIFF_MAX_LINES: usize = 60;
/// Lines of the implementation's stderr shown when it failed unexpectedly.
const STDERR_EXCERPT_LINES: usize = 12;

/// The corpus shipped with this crate (`testsuite/lua`).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("lua")
}

/// Everything a differential run needs. [`DifferentialConfig::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct DifferentialConfig {
    /// The implementation under test (normally the `ljr` binary).
    pub implementation: PathBuf,
    /// The reference interpreter: a path or a name on `PATH`.
    pub reference: PathBuf,
    /// Root directory searched recursively for `*.lua` files.
    pub corpus: PathBuf,
    /// Tiers to run every file under.
    pub tiers: Vec<&'static Tier>,
    /// Timeout of one run unless the file's header sets one.
    pub timeout: Duration,
}

impl DifferentialConfig {
    /// Defaults: reference `lua5.1`, this crate's corpus, the `default` tier, 60 s.
    pub fn new(implementation: impl Into<PathBuf>) -> Self {
        DifferentialConfig {
            implementation: implementation.into(),
            reference: PathBuf::from(REFERENCE_LUA),
            corpus: corpus_dir(),
            tiers: vec![tiers::tier(tiers::DEFAULT_TIER).expect("default tier exists")],
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// The trials for `ljr` over the shipped corpus, under the tiers named by `LJR_TIERS`.
///
/// This is what `tools/ljr/tests/differential.rs` hands to [`libtest_mimic::run`].
/// Configuration problems (an unknown tier, an empty corpus) come back as a failing trial
/// so that they can never look like a passing run.
pub fn differential_trials(ljr: &Path) -> Vec<Trial> {
    let mut config = DifferentialConfig::new(ljr);
    match tiers::selected_tiers() {
        Ok(t) => config.tiers = t,
        Err(e) => return vec![TestCase::failing(tiers::TIERS_ENV, e.to_string()).into_trial()],
    }
    trials(&config)
}

/// The trials for an explicit configuration.
pub fn trials(config: &DifferentialConfig) -> Vec<Trial> {
    test_cases(config).into_iter().map(TestCase::into_trial).collect()
}

/// One named check, runnable as a [`Trial`] or directly (which is how this crate's own
/// tests exercise the runner without nesting a second test harness).
pub struct TestCase {
    /// `dir/file.lua [tier]`, or the name of a configuration problem.
    pub name: String,
    run: Box<dyn FnOnce() -> Result<(), String> + Send>,
}

impl std::fmt::Debug for TestCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCase").field("name", &self.name).finish_non_exhaustive()
    }
}

impl TestCase {
    fn failing(name: &str, message: String) -> Self {
        TestCase { name: name.to_owned(), run: Box::new(move || Err(message)) }
    }

    /// Runs the check; `Err` is the failure report.
    pub fn run(self) -> Result<(), String> {
        (self.run)()
    }

    /// Wraps the check as a `libtest-mimic` trial.
    pub fn into_trial(self) -> Trial {
        let run = self.run;
        Trial::test(self.name, move || run().map_err(Failed::from))
    }
}

/// The checks for an explicit configuration: one per (file, tier), files sorted.
pub fn test_cases(config: &DifferentialConfig) -> Vec<TestCase> {
    let files = match discover(&config.corpus) {
        Ok(files) if !files.is_empty() => files,
        Ok(_) => {
            let msg = format!("no *.lua test files found under {}", config.corpus.display());
            return vec![TestCase::failing("corpus", msg)];
        }
        Err(e) => {
            let msg = format!("cannot read the corpus at {}: {e}", config.corpus.display());
            return vec![TestCase::failing("corpus", msg)];
        }
    };
    let mut out = Vec::with_capacity(files.len() * config.tiers.len());
    for rel in files {
        let case = Arc::new(Case::new(config, &rel));
        for &tier in &config.tiers {
            let case = Arc::clone(&case);
            out.push(TestCase { name: format!("{} [{}]", case.name, tier.name), run: Box::new(move || case.check(tier)) });
        }
    }
    out
}

/// Runs one corpus file (`rel`, relative to `config.corpus`) under one tier, without the
/// test harness. `Err` carries the same report a failing trial prints.
pub fn check_file(config: &DifferentialConfig, rel: &Path, tier: &Tier) -> Result<(), String> {
    Case::new(config, rel).check(tier)
}

/// All `*.lua` files under `root`, recursively, as sorted relative paths.
pub fn discover(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            let ty = entry.file_type()?;
            if ty.is_dir() {
                walk(root, &path, out)?;
            } else if path.extension().is_some_and(|e| e == "lua") {
                out.push(path.strip_prefix(root).expect("walked under root").to_path_buf());
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, root, &mut out)?;
    out.sort();
    Ok(out)
}

/// One test file with everything needed to run it, shared by its tiers.
struct Case {
    /// Relative path with `/` separators, used in trial names and messages.
    name: String,
    dir: PathBuf,
    script: OsString,
    implementation: PathBuf,
    reference: PathBuf,
    default_timeout: Duration,
    /// The reference run, done by whichever tier gets there first.
    reference_outcome: OnceLock<Result<Outcome, String>>,
}

impl Case {
    fn new(config: &DifferentialConfig, rel: &Path) -> Self {
        let path = config.corpus.join(rel);
        Case {
            name: rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
            dir: path.parent().expect("a file has a parent").to_path_buf(),
            script: path.file_name().expect("a file has a name").to_os_string(),
            implementation: config.implementation.clone(),
            reference: config.reference.clone(),
            default_timeout: config.timeout,
            reference_outcome: OnceLock::new(),
        }
    }

    fn settings(&self) -> Result<TestSettings, String> {
        let path = self.dir.join(&self.script);
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        // Lua sources may contain arbitrary bytes; the header itself is ASCII.
        header::parse(&String::from_utf8_lossy(&bytes)).map_err(|e| format!("bad `ljr-test:` header, {e}"))
    }

    fn invocation(&self, program: &Path, flags: &[&str], time_scale: u32, settings: &TestSettings) -> Invocation {
        let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
        args.push(self.script.clone());
        args.extend(settings.args.iter().map(OsString::from));
        Invocation {
            program: program.to_path_buf(),
            args,
            cwd: self.dir.clone(),
            stdin: settings.stdin.as_ref().map(|s| self.dir.join(s)),
            timeout: settings.timeout.unwrap_or(self.default_timeout) * time_scale,
            env: Vec::new(),
        }
    }

    fn check(&self, tier: &Tier) -> Result<(), String> {
        let settings = self.settings()?;
        let reference = self.reference_outcome.get_or_init(|| self.run_reference(&settings)).as_ref().map_err(Clone::clone)?;

        let inv = self.invocation(&self.implementation, tier.flags, tier.time_scale(), &settings);
        let actual = process::run(&inv).map_err(|e| match e {
            RunError::NotFound { .. } => format!("implementation under test `{}` was not found (is it built?)", self.implementation.display()),
            e => e.to_string(),
        })?;
        let names = [program_name(&self.reference), program_name(&self.implementation)];
        compare(reference, &actual, &names).map_err(|report| {
            let mut msg = format!(
                "{} [{}] behaves differently from {}\n  implementation: {}{}\n",
                self.name,
                tier.name,
                self.reference.display(),
                self.implementation.display(),
                if tier.flags.is_empty() { String::new() } else { format!(" {}", tier.flags.join(" ")) },
            );
            msg.push_str(&report);
            msg
        })
    }

    fn run_reference(&self, settings: &TestSettings) -> Result<Outcome, String> {
        let out = process::run(&self.invocation(&self.reference, &[], 1, settings)).map_err(|e| match e {
            RunError::NotFound { .. } => format!("the reference interpreter `{}` is not installed: run scripts/setup.sh", self.reference.display()),
            e => format!("cannot run the reference interpreter: {e}"),
        })?;
        match out.exit {
            Exit::TimedOut => {
                Err(format!("the reference `{}` timed out on {}: the test itself is too slow or loops", self.reference.display(), self.name))
            }
            Exit::Signal(_) => Err(format!("the reference `{}` crashed ({})", self.reference.display(), out.exit)),
            _ if out.stdout_truncated => Err(format!("the reference printed more than {} bytes", process::OUTPUT_CAP)),
            _ => Ok(out),
        }
    }
}

/// The name `lua.c` puts before error messages: the program as invoked (argv[0]).
fn program_name(program: &Path) -> String {
    program.to_string_lossy().into_owned()
}

/// The first line of `stderr` without the `progname: ` prefix that `lua.c` prints before an
/// uncaught error, so that `lua5.1: x.lua:1: boom` and `ljr: x.lua:1: boom` compare equal.
///
/// The prefix is argv\[0\], which may be a bare name or any path to the binary, so a
/// prefix is dropped when its file name is the file name of one of `programs` or of a
/// usual interpreter name. A chunk position such as `x.lua:1` is never a program name.
pub fn normalized_error_line(stderr: &[u8], programs: &[String]) -> String {
    let first = stderr.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let line = escape_line(first);
    let base = |p: &str| Path::new(p).file_name().map(|n| n.to_string_lossy().into_owned());
    let mut names: Vec<String> = programs.iter().filter_map(|p| base(p)).collect();
    names.extend(["lua5.1", "lua", "ljr", "luajit"].map(String::from));
    if let Some((prefix, rest)) = line.split_once(": ") {
        if base(prefix).is_some_and(|b| names.contains(&b)) {
            return rest.to_owned();
        }
    }
    line
}

/// Compares an implementation's run with the reference's. `Err` carries a readable report
/// of every difference found.
pub fn compare(reference: &Outcome, actual: &Outcome, programs: &[String]) -> Result<(), String> {
    let mut report = String::new();

    if actual.exit == Exit::TimedOut {
        let _ = writeln!(report, "  the implementation timed out and was killed");
    }
    if actual.exit != reference.exit {
        let _ = writeln!(report, "  exit status: reference {}, implementation {}", reference.exit, actual.exit);
    }

    let ref_err = normalized_error_line(&reference.stderr, programs);
    let act_err = normalized_error_line(&actual.stderr, programs);
    let reference_failed = !reference.exit.success();
    let stderr_differs = reference_failed && ref_err != act_err;
    if stderr_differs || actual.exit != reference.exit {
        let _ = writeln!(report, "  first stderr line:");
        let _ = writeln!(report, "    reference:      {ref_err}");
        let _ = writeln!(report, "    implementation: {act_err}");
    }
    if !reference_failed && !actual.exit.success() && !actual.stderr.is_empty() {
        let _ = writeln!(report, "  implementation stderr (first {STDERR_EXCERPT_LINES} lines):");
        for line in actual.stderr.split(|&b| b == b'\n').take(STDERR_EXCERPT_LINES) {
            let _ = writeln!(report, "    {}", escape_line(line));
        }
    }

    if actual.stdout_truncated {
        let _ = writeln!(report, "  the implementation printed more than {} bytes; output was cut", process::OUTPUT_CAP);
    }
    if reference.stdout != actual.stdout || actual.stdout_truncated {
        let _ = writeln!(report, "  stdout differs ({} bytes from reference, {} from implementation):", reference.stdout.len(), actual.stdout.len());
        let _ = writeln!(report, "  --- reference\n  +++ implementation");
        for line in unified_diff(&reference.stdout, &actual.stdout, DIFF_CONTEXT, DIFF_MAX_LINES).lines() {
            let _ = writeln!(report, "  {line}");
        }
    }

    if report.is_empty() {
        Ok(())
    } else {
        Err(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(stdout: &str, stderr: &str, exit: Exit) -> Outcome {
        Outcome { stdout: stdout.into(), stderr: stderr.into(), stdout_truncated: false, exit, wall: Duration::ZERO }
    }

    fn names() -> Vec<String> {
        vec!["lua5.1".into(), "/work/target/debug/ljr".into()]
    }

    #[test]
    fn identical_runs_pass() {
        let r = outcome("1\n", "", Exit::Code(0));
        assert_eq!(compare(&r, &r.clone(), &names()), Ok(()));
    }

    #[test]
    fn stderr_is_ignored_when_the_reference_succeeded() {
        let r = outcome("1\n", "", Exit::Code(0));
        let a = outcome("1\n", "some warning\n", Exit::Code(0));
        assert_eq!(compare(&r, &a, &names()), Ok(()));
    }

    #[test]
    fn error_lines_compare_without_program_prefix_and_traceback() {
        let r = outcome("a\n", "lua5.1: t.lua:2: boom\nstack traceback:\n\t[C]: ?\n", Exit::Code(1));
        let a = outcome("a\n", "/work/target/debug/ljr: t.lua:2: boom\nno traceback\n", Exit::Code(1));
        assert_eq!(compare(&r, &a, &names()), Ok(()));
        let a = outcome("a\n", "ljr: t.lua:2: boom\n", Exit::Code(1));
        assert_eq!(compare(&r, &a, &names()), Ok(()));
    }

    #[test]
    fn different_error_message_fails() {
        let r = outcome("", "lua5.1: t.lua:2: boom\n", Exit::Code(1));
        let a = outcome("", "ljr: t.lua:3: boom\n", Exit::Code(1));
        let report = compare(&r, &a, &names()).unwrap_err();
        assert!(report.contains("reference:      t.lua:2: boom"), "{report}");
        assert!(report.contains("implementation: t.lua:3: boom"), "{report}");
    }

    #[test]
    fn exit_status_mismatch_fails() {
        let r = outcome("", "lua5.1: t.lua:1: boom\n", Exit::Code(1));
        let a = outcome("", "", Exit::Code(0));
        let report = compare(&r, &a, &names()).unwrap_err();
        assert!(report.contains("exit status: reference exit code 1, implementation exit code 0"), "{report}");
    }

    #[test]
    fn unexpected_crash_shows_implementation_stderr() {
        let r = outcome("1\n2\n", "", Exit::Code(0));
        let a = outcome("1\n", "thread 'main' panicked at vm.rs:1\n", Exit::Signal(6));
        let report = compare(&r, &a, &names()).unwrap_err();
        assert!(report.contains("SIGABRT"), "{report}");
        assert!(report.contains("    thread 'main' panicked at vm.rs:1"), "{report}");
        assert!(report.contains("-2"), "{report}");
    }

    #[test]
    fn stdout_difference_is_diffed() {
        let r = outcome("1\tnan\n", "", Exit::Code(0));
        let a = outcome("1\t-nan\n", "", Exit::Code(0));
        let report = compare(&r, &a, &names()).unwrap_err();
        assert!(report.contains("  -1\tnan\n  +1\t-nan\n"), "{report}");
    }

    #[test]
    fn timeout_is_a_failure_even_with_equal_output() {
        let r = outcome("", "", Exit::Code(0));
        let a = outcome("", "", Exit::TimedOut);
        let report = compare(&r, &a, &names()).unwrap_err();
        assert!(report.contains("timed out"), "{report}");
    }

    #[test]
    fn normalization_only_strips_known_program_names() {
        let n = names();
        assert_eq!(normalized_error_line(b"lua5.1: x.lua:1: e\n", &n), "x.lua:1: e");
        assert_eq!(normalized_error_line(b"ljr: x.lua:1: e", &n), "x.lua:1: e");
        assert_eq!(normalized_error_line(b"x.lua:1: e\n", &n), "x.lua:1: e");
        assert_eq!(normalized_error_line(b"", &n), "");
        assert_eq!(normalized_error_line(b"/abs/path/to/ljr: x.lua:1: e", &n), "x.lua:1: e");
        assert_eq!(normalized_error_line(b"other: x.lua:1: e", &n), "other: x.lua:1: e");
    }
}
