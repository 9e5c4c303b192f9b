//! The third-party conformance suites, run differentially: every test that `lua5.1` passes
//! must pass on the implementation, under every selected tier.
//!
//! The suites live outside the repository, unmodified, in `../shared/conformance` (override
//! with `LJR_CONFORMANCE_DIR`):
//!
//! * `lua-5.1-tests/`, the official PUC-Rio suite: one trial per file, run alone from inside
//!   a private copy of the suite's folder (the files write next to themselves) with the `LUA_PATH`/`LUA_INIT` its README asks for. A file passes when
//!   it exits with status 0 (the files assert; they print progress, not answers).
//! * `luajit-tests/`, LuaJIT's suite: its own runner (`test.lua`) runs every test in one
//!   process; the report is parsed into one trial per test (`file --- name`).
//!
//! The reference decides what is expected: a test `lua5.1` fails is listed as ignored, with
//! the exceptions in [`OFFICIAL_MUST_PASS`] (failures of Debian's build, not of Lua 5.1).
//! Tests the implementation is known to fail are listed, each with its reason, in
//! `testsuite/conformance/known-failures.txt`: they run and must still fail (an expected
//! failure shows as `[xfail]`), a listed test that passes fails the run until its line is
//! removed, and a line naming no test fails the run too, so the list cannot rot.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libtest_mimic::{Failed, Trial};

use crate::process::{self, Exit, Invocation, Outcome};
use crate::tiers::{self, Tier};
use crate::REFERENCE_LUA;

/// Environment variable naming the folder that holds both suites.
pub const CONFORMANCE_DIR_ENV: &str = "LJR_CONFORMANCE_DIR";
/// The official suite's folder, and the prefix of its trial names.
pub const OFFICIAL_SUITE: &str = "lua-5.1-tests";
/// LuaJIT's suite's folder, and the prefix of its trial names.
pub const LUAJIT_SUITE: &str = "luajit-tests";

/// Files of the official suite that are not run as tests, and why.
pub const OFFICIAL_NOT_RUN: &[(&str, &str)] = &[
    ("all.lua", "runs every other file, each of which is its own trial here"),
    ("big.lua", "assumes a 32-bit size_t: lua5.1 itself fails it on x86-64, after 25 s"),
    ("checktable.lua", "a helper that other files load, not a test"),
];

/// Files `lua5.1` fails for reasons of Debian's build rather than of Lua 5.1: the
/// implementation must pass them all the same.
pub const OFFICIAL_MUST_PASS: &[(&str, &str)] = &[("main.lua", "Debian's lua5.1 fails it only because readline echoes the -i input (suite README)")];

/// Time one official file may take (the slowest takes well under a second on `lua5.1`; the
/// limit leaves room for modes such as `--gc-stress`).
const OFFICIAL_TIMEOUT: Duration = Duration::from_secs(120);
/// Time the whole LuaJIT suite may take in one process.
const LUAJIT_TIMEOUT: Duration = Duration::from_secs(600);
/// Lines of output quoted in a failure report.
const EXCERPT_LINES: usize = 20;

/// The folder holding both suites.
pub fn conformance_dir() -> PathBuf {
    match std::env::var_os(CONFORMANCE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        // testsuite/ sits in the workspace, and shared/ beside the workspace.
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    }
}

/// The list of known failures shipped with this crate.
pub fn known_failures_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/known-failures.txt")
}

/// One line of `known-failures.txt`: `[tier] suite/test => reason`, the tier optional (every
/// tier when absent). A reason starting `skip:` names a test not run at all in that tier (one
/// that would only time out there, such as a collector test under `--gc-stress`): its trial is
/// listed as ignored, with the reason, instead of failing after the timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownFailure {
    /// `lua-5.1-tests/gc.lua`, `luajit-tests/lib/contents.lua --- 5.1 string`.
    pub test: String,
    pub tier: Option<String>,
    pub reason: String,
    /// The reason starts `skip:`: the test is not run in its tier.
    pub skip: bool,
    /// Line in the file, for messages.
    pub line: usize,
}

/// Parses the known-failures list. Blank lines and `#` comments are skipped; anything else
/// must be an entry with a reason.
pub fn parse_known_failures(text: &str) -> Result<Vec<KnownFailure>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (tier, rest) = match line.strip_prefix('[') {
            Some(r) => {
                let (t, rest) = r.split_once(']').ok_or_else(|| format!("line {}: unclosed `[tier]`", i + 1))?;
                (Some(t.trim().to_owned()), rest.trim_start())
            }
            None => (None, line),
        };
        let (test, reason) = rest.split_once(" => ").ok_or_else(|| format!("line {}: expected `suite/test => reason`, got `{line}`", i + 1))?;
        let (test, reason) = (test.trim(), reason.trim());
        if reason.is_empty() {
            return Err(format!("line {}: `{test}` has no reason", i + 1));
        }
        if !(test.starts_with(&format!("{OFFICIAL_SUITE}/")) || test.starts_with(&format!("{LUAJIT_SUITE}/"))) {
            return Err(format!("line {}: `{test}` names no suite (`{OFFICIAL_SUITE}/...` or `{LUAJIT_SUITE}/...`)", i + 1));
        }
        if let Some(t) = &tier {
            if tiers::tier(t).is_none() {
                return Err(format!("line {}: unknown tier `{t}`", i + 1));
            }
        }
        let skip = reason.starts_with("skip:");
        out.push(KnownFailure { test: test.to_owned(), tier, reason: reason.to_owned(), skip, line: i + 1 });
    }
    Ok(out)
}

/// What a run of the suites needs.
#[derive(Debug, Clone)]
pub struct ConformanceConfig {
    pub implementation: PathBuf,
    pub reference: PathBuf,
    pub dir: PathBuf,
    pub tiers: Vec<&'static Tier>,
    pub known_failures: Vec<KnownFailure>,
}

/// The trials for `ljr` under the tiers named by `LJR_TIERS`, with the shipped list of known
/// failures. Problems of configuration (no suites, an unknown tier, a malformed list) are
/// failing trials, never a smaller run.
pub fn conformance_trials(ljr: &Path) -> Vec<Trial> {
    let tiers = match tiers::selected_tiers() {
        Ok(t) => t,
        Err(e) => return vec![failing(tiers::TIERS_ENV, e.to_string())],
    };
    let path = known_failures_path();
    let known_failures = match std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|t| parse_known_failures(&t)) {
        Ok(k) => k,
        Err(e) => return vec![failing("known-failures.txt", format!("{}: {e}", path.display()))],
    };
    trials(&ConformanceConfig {
        implementation: ljr.to_path_buf(),
        reference: PathBuf::from(REFERENCE_LUA),
        dir: conformance_dir(),
        tiers,
        known_failures,
    })
}

/// The trials for an explicit configuration.
pub fn trials(config: &ConformanceConfig) -> Vec<Trial> {
    for suite in [OFFICIAL_SUITE, LUAJIT_SUITE] {
        if !config.dir.join(suite).is_dir() {
            return vec![failing(
                suite,
                format!("{} is missing: the suites come with ../shared/conformance (or set {CONFORMANCE_DIR_ENV})", config.dir.join(suite).display()),
            )];
        }
    }
    let mut out = Vec::new();
    let mut names = HashSet::new();
    for trial in official_trials(config).into_iter().chain(luajit_trials(config)) {
        names.insert(trial.0);
        out.push(trial.1);
    }
    // Every entry of the list must name a test that exists, under a selected tier or another.
    let stale: Vec<String> = config
        .known_failures
        .iter()
        .filter(|k| !names.contains(&k.test))
        .map(|k| format!("line {}: `{}` is no test of the suites", k.line, k.test))
        .collect();
    if !stale.is_empty() {
        out.push(failing("known-failures.txt names no test", stale.join("\n")));
    }
    out
}

fn failing(name: &str, message: String) -> Trial {
    Trial::test(name.to_owned(), move || Err(Failed::from(message)))
}

/// How one test ended on the implementation.
#[derive(Debug, Clone)]
enum Verdict {
    Passed,
    Failed(String),
}

/// Turns a verdict into the trial's result, given whether the test is a known failure.
fn judge(verdict: Verdict, known: Option<&KnownFailure>) -> Result<(), Failed> {
    match (verdict, known) {
        (Verdict::Passed, None) | (Verdict::Failed(_), Some(_)) => Ok(()),
        (Verdict::Failed(report), None) => Err(report.into()),
        (Verdict::Passed, Some(k)) => {
            Err(format!("passes now, but is listed as a known failure ({}) at known-failures.txt line {}: remove the line", k.reason, k.line).into())
        }
    }
}

fn known<'a>(config: &'a ConformanceConfig, test: &str, tier: &Tier) -> Option<&'a KnownFailure> {
    config.known_failures.iter().find(|k| k.test == test && k.tier.as_deref().is_none_or(|t| t == tier.name))
}

/// A trial named `test [tier]`, marked `xfail` when it is a known failure.
fn make_trial(
    config: &ConformanceConfig,
    test: &str,
    tier: &'static Tier,
    ignored: Option<&str>,
    run: impl FnOnce() -> Verdict + Send + 'static,
) -> Trial {
    let name = format!("{test} [{}]", tier.name);
    let known = known(config, test, tier).cloned();
    let skipped = known.as_ref().is_some_and(|k| k.skip);
    let kind = if skipped {
        "skip"
    } else if known.is_some() {
        "xfail"
    } else {
        ""
    };
    let trial = Trial::test(name, move || judge(run(), known.as_ref())).with_kind(kind);
    match ignored.or(skipped.then_some("skipped in this tier")) {
        Some(_) => trial.with_ignored_flag(true),
        None => trial,
    }
}

// ---------------------------------------------------------------------------------------------
// The official suite
// ---------------------------------------------------------------------------------------------

/// A private copy of a suite's folder for one run, removed when dropped. The suites write
/// files next to themselves (`attrib.lua` creates modules in `libs/`, `files.lua` temporary
/// files), so runs that share the folder (two tiers of one file, in parallel) would trample
/// each other, and the shared copy must stay as it was shipped.
struct Scratch(PathBuf);

impl Scratch {
    fn of(suite: &Path, label: &str) -> Result<Scratch, String> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let safe: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let dir = std::env::temp_dir().join(format!("ljr-conformance-{}-{n}-{safe}", std::process::id()));
        copy_dir(suite, &dir).map_err(|e| format!("cannot copy {} to {}: {e}", suite.display(), dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
            // Copies of read-only files stay writable: the suites rewrite some of them.
            let mut perms = std::fs::metadata(&target)?.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms)?;
        }
    }
    Ok(())
}

fn official_run(program: &Path, flags: &[&str], time_scale: u32, suite: &Path, file: &str) -> Result<Outcome, String> {
    let scratch = Scratch::of(suite, file)?;
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.push(file.into());
    process::run(&Invocation {
        program: program.to_path_buf(),
        args,
        cwd: scratch.0.clone(),
        stdin: None,
        timeout: OFFICIAL_TIMEOUT * time_scale,
        env: vec![("LUA_PATH".into(), "./?.lua;;".into()), ("LUA_INIT".into(), "package.path = '?;'..package.path".into())],
    })
    .map_err(|e| e.to_string())
}

/// The end of a run's output, for a failure report.
fn report(outcome: &Outcome) -> String {
    let mut r = format!("exit: {}\n", outcome.exit);
    for (label, stream) in [("stderr", &outcome.stderr), ("stdout", &outcome.stdout)] {
        let text = String::from_utf8_lossy(stream);
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(r, "last {} lines of {label}:", lines.len().min(EXCERPT_LINES));
        for l in &lines[lines.len().saturating_sub(EXCERPT_LINES)..] {
            let _ = writeln!(r, "  {l}");
        }
    }
    r
}

fn official_trials(config: &ConformanceConfig) -> Vec<(String, Trial)> {
    let dir = config.dir.join(OFFICIAL_SUITE);
    let mut files: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".lua") && !OFFICIAL_NOT_RUN.iter().any(|(f, _)| f == n))
            .collect(),
        Err(e) => return vec![(String::new(), failing(OFFICIAL_SUITE, format!("{}: {e}", dir.display())))],
    };
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let test = format!("{OFFICIAL_SUITE}/{file}");
        // The reference decides whether the file is a test at all on this machine.
        let must_pass = OFFICIAL_MUST_PASS.iter().any(|(f, _)| *f == file);
        let reference_fails = !must_pass
            && match official_run(&config.reference, &[], 1, &dir, &file) {
                Ok(o) => !(o.exit == Exit::Code(0)),
                Err(e) => {
                    out.push((test.clone(), failing(&test, format!("cannot run the reference {}: {e}", config.reference.display()))));
                    continue;
                }
            };
        for &tier in &config.tiers {
            let (program, dir, file) = (config.implementation.clone(), dir.clone(), file.clone());
            let ignored = reference_fails.then_some("lua5.1 fails it too");
            out.push((
                test.clone(),
                make_trial(config, &test, tier, ignored, move || match official_run(&program, tier.flags, tier.time_scale(), &dir, &file) {
                    Ok(o) if o.exit == Exit::Code(0) => Verdict::Passed,
                    Ok(o) => Verdict::Failed(report(&o)),
                    Err(e) => Verdict::Failed(e),
                }),
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// LuaJIT's suite
// ---------------------------------------------------------------------------------------------

/// One run of `test.lua`, parsed.
#[derive(Debug, Clone, Default)]
pub struct LuajitReport {
    /// Tests in the order the runner announced them (`file --- name`), each with the output
    /// printed while it ran (a failure's message and traceback).
    pub tests: Vec<(String, String)>,
    /// Numbers (1-based) of the tests the runner reported as failed.
    pub failed: HashSet<usize>,
    /// Whether the runner reached its summary (a crash or timeout ends the output early).
    pub finished: bool,
}

impl LuajitReport {
    /// Parses the runner's output: `[ n/N] file --- name` before each test, then whatever the
    /// test printed, and at the end `P passed, F failed` and the failing numbers.
    pub fn parse(stdout: &str) -> LuajitReport {
        let mut r = LuajitReport::default();
        for line in stdout.lines() {
            if let Some(name) = test_header(line) {
                r.tests.push((name.to_owned(), String::new()));
            } else if let Some(list) = line.strip_prefix("to run just failing tests, pass command line arguments:") {
                r.failed = list.split_whitespace().filter_map(|n| n.parse().ok()).collect();
            } else if is_summary(line) {
                r.finished = true;
            } else if let Some((_, out)) = r.tests.last_mut() {
                out.push_str(line);
                out.push('\n');
            }
        }
        r
    }

    /// The verdict on the test named `name`.
    fn verdict(&self, name: &str, outcome: &Outcome) -> Verdict {
        let Some(i) = self.tests.iter().position(|(n, _)| n == name) else {
            return Verdict::Failed(format!("the runner stopped before this test\n{}", report(outcome)));
        };
        if !self.finished && i + 1 == self.tests.len() {
            return Verdict::Failed(format!("the runner died in this test\n{}", report(outcome)));
        }
        if !self.finished {
            return Verdict::Passed;
        }
        if self.failed.contains(&(i + 1)) {
            Verdict::Failed(self.tests[i].1.clone())
        } else {
            Verdict::Passed
        }
    }
}

/// `[ 12/261] lang/andor.lua --- smoke` -> `lang/andor.lua --- smoke`.
fn test_header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?;
    let (count, name) = rest.split_once("] ")?;
    let (n, total) = count.trim().split_once('/')?;
    (n.parse::<usize>().is_ok() && total.parse::<usize>().is_ok() && name.contains(" --- ")).then_some(name)
}

/// `258 passed, 3 failed` (or `261 passed`).
fn is_summary(line: &str) -> bool {
    let mut words = line.split_whitespace();
    matches!((words.next().map(|w| w.parse::<usize>().is_ok()), words.next()), (Some(true), Some(w)) if w.starts_with("passed"))
}

fn luajit_run(program: &Path, flags: &[&str], suite: &Path) -> Result<Outcome, String> {
    let scratch = Scratch::of(suite, "luajit")?;
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.push("test.lua".into());
    process::run(&Invocation { program: program.to_path_buf(), args, cwd: scratch.0.clone(), stdin: None, timeout: LUAJIT_TIMEOUT, env: Vec::new() })
        .map_err(|e| e.to_string())
}

/// The implementation's run of the suite under one tier, shared by that tier's trials: the
/// first trial to need it runs the suite, the others wait for it.
type SharedRun = Arc<OnceLock<Result<(LuajitReport, Outcome), String>>>;

fn luajit_trials(config: &ConformanceConfig) -> Vec<(String, Trial)> {
    let dir = config.dir.join(LUAJIT_SUITE);
    let reference = match luajit_run(&config.reference, &[], &dir) {
        Ok(o) => o,
        Err(e) => return vec![(String::new(), failing(LUAJIT_SUITE, format!("cannot run the reference: {e}")))],
    };
    let reference_report = LuajitReport::parse(&String::from_utf8_lossy(&reference.stdout));
    if !reference_report.finished || reference_report.tests.is_empty() {
        return vec![(String::new(), failing(LUAJIT_SUITE, format!("the reference did not finish the suite\n{}", report(&reference))))];
    }
    let mut runs: HashMap<&'static str, SharedRun> = HashMap::new();
    let mut out = Vec::new();
    for (i, (name, _)) in reference_report.tests.iter().enumerate() {
        let test = format!("{LUAJIT_SUITE}/{name}");
        let reference_fails = reference_report.failed.contains(&(i + 1));
        for &tier in &config.tiers {
            let run = runs.entry(tier.name).or_default().clone();
            let (program, dir, name) = (config.implementation.clone(), dir.clone(), name.clone());
            let ignored = reference_fails.then_some("lua5.1 fails it too");
            out.push((
                test.clone(),
                make_trial(config, &test, tier, ignored, move || {
                    let result = run.get_or_init(|| {
                        let outcome = luajit_run(&program, tier.flags, &dir)?;
                        Ok((LuajitReport::parse(&String::from_utf8_lossy(&outcome.stdout)), outcome))
                    });
                    match result {
                        Ok((report, outcome)) => report.verdict(&name, outcome),
                        Err(e) => Verdict::Failed(e.clone()),
                    }
                }),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_failures_parse_with_and_without_tier() {
        let list = parse_known_failures(
            "# comment\n\nlua-5.1-tests/gc.lua => needs the incremental collector\n[gcstress] luajit-tests/lib/x.lua --- a [0, 1) => skip: slow\n",
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].test, "lua-5.1-tests/gc.lua");
        assert_eq!(list[0].tier, None);
        assert_eq!(list[1].test, "luajit-tests/lib/x.lua --- a [0, 1)");
        assert_eq!(list[1].tier.as_deref(), Some("gcstress"));
        assert_eq!(list[1].line, 4);
        assert!(!list[0].skip && list[1].skip, "`skip:` reasons mark tests not run");
    }

    #[test]
    fn malformed_known_failures_are_errors() {
        assert!(parse_known_failures("lua-5.1-tests/gc.lua\n").is_err());
        assert!(parse_known_failures("lua-5.1-tests/gc.lua => \n").is_err());
        assert!(parse_known_failures("gc.lua => no suite\n").is_err());
        assert!(parse_known_failures("[turbo] lua-5.1-tests/gc.lua => tier\n").is_err());
    }

    #[test]
    fn judging_expected_and_unexpected_results() {
        let k = KnownFailure { test: "t".into(), tier: None, reason: "r".into(), skip: false, line: 3 };
        assert!(judge(Verdict::Passed, None).is_ok());
        assert!(judge(Verdict::Failed("x".into()), Some(&k)).is_ok());
        assert!(judge(Verdict::Failed("x".into()), None).is_err());
        let e = judge(Verdict::Passed, Some(&k)).unwrap_err();
        assert!(format!("{e:?}").contains("line 3"), "{e:?}");
    }

    #[test]
    fn luajit_report_is_parsed() {
        let out = "[  1/3] lang/a.lua --- one\n[  2/3] lang/a.lua --- two\nlang/a.lua:5: boom\nstack traceback:\n[  3/3] lib/b.lua --- three [0, 1)\n2 passed, 1 failed\nto run just failing tests, pass command line arguments: 2\n";
        let r = LuajitReport::parse(out);
        assert!(r.finished);
        assert_eq!(r.tests.len(), 3);
        assert_eq!(r.tests[2].0, "lib/b.lua --- three [0, 1)");
        assert_eq!(r.tests[1].1, "lang/a.lua:5: boom\nstack traceback:\n");
        assert_eq!(r.failed, HashSet::from([2]));
        let ok = Outcome { stdout: vec![], stderr: vec![], stdout_truncated: false, exit: Exit::Code(0), wall: Duration::ZERO };
        assert!(matches!(r.verdict("lang/a.lua --- one", &ok), Verdict::Passed));
        assert!(matches!(r.verdict("lang/a.lua --- two", &ok), Verdict::Failed(_)));
        assert!(matches!(r.verdict("missing", &ok), Verdict::Failed(_)));
    }

    #[test]
    fn a_crashed_luajit_run_fails_the_running_test_and_the_rest() {
        let r = LuajitReport::parse("[  1/3] a.lua --- one\n[  2/3] a.lua --- two\n");
        assert!(!r.finished);
        let crashed = Outcome { stdout: vec![], stderr: vec![], stdout_truncated: false, exit: Exit::Signal(11), wall: Duration::ZERO };
        assert!(matches!(r.verdict("a.lua --- one", &crashed), Verdict::Passed));
        assert!(matches!(r.verdict("a.lua --- two", &crashed), Verdict::Failed(_)));
        assert!(matches!(r.verdict("a.lua --- three", &crashed), Verdict::Failed(_)));
    }
}
