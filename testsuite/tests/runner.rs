//! End-to-end tests of the differential runner against stand-in "implementations": small
//! shell scripts wrapping `lua5.1` that behave correctly or break in one specific way.
//! Each broken stand-in must be caught, so a runner bug cannot make ljr look correct.
//!
//! These need `lua5.1` (scripts/setup.sh installs it); without it they fail loudly.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use lua51_testsuite::differential::{self, check_file, DifferentialConfig};
use lua51_testsuite::tiers::{self, Tier};

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("lua51-testsuite-{}-{}-{tag}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("corpus")).unwrap();
        Scratch(dir)
    }

    fn corpus(&self) -> PathBuf {
        self.0.join("corpus")
    }

    fn lua(&self, rel: &str, source: &str) -> PathBuf {
        let path = self.corpus().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, source).unwrap();
        PathBuf::from(rel)
    }

    /// An executable `#!/bin/sh` script standing in for the implementation.
    fn fake(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.0.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn config(&self, implementation: PathBuf) -> DifferentialConfig {
        let mut c = DifferentialConfig::new(implementation);
        c.corpus = self.corpus();
        c
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn default_tier() -> &'static Tier {
    tiers::tier(tiers::DEFAULT_TIER).unwrap()
}

const OK_PROGRAM: &str = "print(1, 0/0, 'x' .. 2)\nlocal n = 3\nprint(n * 2)\n";
const ERR_PROGRAM: &str = "print('before')\nlocal x = nil + 1\n";

#[test]
fn faithful_wrapper_passes_ok_and_error_programs() {
    let s = Scratch::new("faithful");
    let ok = s.lua("ok.lua", OK_PROGRAM);
    let err = s.lua("sub/err.lua", ERR_PROGRAM);
    let cfg = s.config(s.fake("impl", "exec lua5.1 \"$@\""));
    assert_eq!(check_file(&cfg, &ok, default_tier()), Ok(()));
    assert_eq!(check_file(&cfg, &err, default_tier()), Ok(()));
}

#[test]
fn stdout_difference_is_caught_and_diffed() {
    let s = Scratch::new("stdout");
    let ok = s.lua("ok.lua", OK_PROGRAM);
    // Prints NaN without its sign, as a naive formatter would.
    let cfg = s.config(s.fake("impl", "lua5.1 \"$@\" | sed 's/-nan/nan/'"));
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("stdout differs"), "{report}");
    assert!(report.contains("-1\t-nan\tx2"), "{report}");
    assert!(report.contains("+1\tnan\tx2"), "{report}");
    assert!(!report.contains("exit status"), "{report}");
}

#[test]
fn program_name_prefix_and_traceback_are_not_compared() {
    let s = Scratch::new("prefix");
    let err = s.lua("err.lua", ERR_PROGRAM);
    // Same message under another program name, and a different traceback.
    let body = "lua5.1 \"$@\" 2>\"$0.err\"; rc=$?\nhead -n1 \"$0.err\" | sed 's/^lua5.1:/ljr:/' >&2\necho 'my own traceback' >&2\nexit $rc";
    let cfg = s.config(s.fake("impl", body));
    assert_eq!(check_file(&cfg, &err, default_tier()), Ok(()));
}

#[test]
fn different_error_message_is_caught() {
    let s = Scratch::new("message");
    let err = s.lua("err.lua", ERR_PROGRAM);
    let body = "lua5.1 \"$@\" 2>\"$0.err\"; rc=$?\nsed 's/nil value/nil/' \"$0.err\" >&2\nexit $rc";
    let cfg = s.config(s.fake("impl", body));
    let report = check_file(&cfg, &err, default_tier()).unwrap_err();
    assert!(report.contains("reference:      err.lua:2: attempt to perform arithmetic on a nil value"), "{report}");
    assert!(report.contains("implementation: err.lua:2: attempt to perform arithmetic on a nil\n"), "{report}");
}

#[test]
fn exit_status_difference_is_caught() {
    let s = Scratch::new("status");
    let err = s.lua("err.lua", ERR_PROGRAM);
    let ok = s.lua("ok.lua", OK_PROGRAM);
    // Right output and message, but always exits 0.
    let cfg = s.config(s.fake("impl", "lua5.1 \"$@\"; exit 0"));
    let report = check_file(&cfg, &err, default_tier()).unwrap_err();
    assert!(report.contains("exit status: reference exit code 1, implementation exit code 0"), "{report}");
    // Fails where the reference succeeds: the implementation's stderr is shown.
    let cfg = s.config(s.fake("impl2", "lua5.1 \"$@\"; echo 'internal error: oops' >&2; exit 3"));
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("implementation exit code 3"), "{report}");
    assert!(report.contains("internal error: oops"), "{report}");
}

#[test]
fn crash_is_caught() {
    let s = Scratch::new("crash");
    let ok = s.lua("ok.lua", OK_PROGRAM);
    let cfg = s.config(s.fake("impl", "lua5.1 \"$@\"; kill -SEGV $$"));
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("SIGSEGV"), "{report}");
}

#[test]
fn hanging_implementation_times_out() {
    let s = Scratch::new("timeout");
    let ok = s.lua("ok.lua", OK_PROGRAM);
    let mut cfg = s.config(s.fake("impl", "lua5.1 \"$@\"; exec sleep 30"));
    cfg.timeout = Duration::from_millis(500);
    let start = std::time::Instant::now();
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("timed out"), "{report}");
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn header_timeout_overrides_the_default() {
    let s = Scratch::new("header-timeout");
    let ok = s.lua("ok.lua", "-- ljr-test: timeout=0.3\nprint(1)\n");
    let cfg = s.config(s.fake("impl", "lua5.1 \"$@\"; exec sleep 30"));
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("timed out"), "{report}");
}

#[test]
fn header_args_reach_the_implementation() {
    let s = Scratch::new("args");
    let f = s.lua("args.lua", "-- ljr-test: args=one two\nprint(arg[1], arg[2], arg[3])\n");
    let good = s.config(s.fake("impl", "exec lua5.1 \"$@\""));
    assert_eq!(check_file(&good, &f, default_tier()), Ok(()));
    // Drops everything after the script: must be noticed.
    let bad = s.config(s.fake("impl2", "exec lua5.1 \"$1\""));
    let report = check_file(&bad, &f, default_tier()).unwrap_err();
    assert!(report.contains("-one\ttwo\tnil"), "{report}");
}

#[test]
fn header_stdin_is_fed_and_default_stdin_is_empty() {
    let s = Scratch::new("stdin");
    std::fs::write(s.corpus().join("input.txt"), "first line\nsecond\n").unwrap();
    let f = s.lua("stdin.lua", "-- ljr-test: stdin=input.txt\nprint(io.read('*l'), io.read('*l'), io.read('*l'))\n");
    let good = s.config(s.fake("impl", "exec lua5.1 \"$@\""));
    assert_eq!(check_file(&good, &f, default_tier()), Ok(()));
    let bad = s.config(s.fake("impl2", "exec lua5.1 \"$@\" </dev/null"));
    let report = check_file(&bad, &f, default_tier()).unwrap_err();
    assert!(report.contains("-first line\tsecond\tnil"), "{report}");
    // Without a header the program sees EOF immediately.
    let g = s.lua("nostdin.lua", "print(io.read('*l'))\n");
    let echo = s.config(s.fake("impl3", "exec lua5.1 -e 'print(io.read(\"*l\"))'"));
    assert_eq!(check_file(&echo, &g, default_tier()), Ok(()));
}

#[test]
fn tier_flags_go_before_the_script() {
    let s = Scratch::new("tier");
    let ok = s.lua("ok.lua", OK_PROGRAM);
    let cfg = s.config(PathBuf::from("lua5.1"));
    // lua5.1 runs `-e` chunks before the script only when they precede it.
    let tier: &'static Tier = Box::leak(Box::new(Tier { name: "probe", flags: &["-e", "print(42)"] }));
    let report = check_file(&cfg, &ok, tier).unwrap_err();
    assert!(report.contains("[probe]"), "{report}");
    assert!(report.contains("implementation: lua5.1 -e print(42)"), "{report}");
    assert!(report.contains("+42\n"), "{report}");
}

#[test]
fn bad_header_fails_the_test() {
    let s = Scratch::new("badheader");
    let f = s.lua("h.lua", "-- ljr-test: argz=1\nprint(1)\n");
    let cfg = s.config(PathBuf::from("lua5.1"));
    let report = check_file(&cfg, &f, default_tier()).unwrap_err();
    assert!(report.contains("unknown setting `argz`"), "{report}");
}

#[test]
fn missing_implementation_fails() {
    let s = Scratch::new("noimpl");
    let ok = s.lua("ok.lua", OK_PROGRAM);
    let cfg = s.config(s.0.join("target/debug/ljr"));
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("was not found"), "{report}");
}

#[test]
fn missing_reference_fails_every_trial_with_setup_hint() {
    let s = Scratch::new("noref");
    let ok = s.lua("a/ok.lua", OK_PROGRAM);
    s.lua("b/err.lua", ERR_PROGRAM);
    let mut cfg = s.config(PathBuf::from("lua5.1"));
    cfg.reference = PathBuf::from("lua5.1-is-not-installed-here");
    let report = check_file(&cfg, &ok, default_tier()).unwrap_err();
    assert!(report.contains("run scripts/setup.sh"), "{report}");

    let cases = differential::test_cases(&cfg);
    assert_eq!(cases.len(), 2);
    for case in cases {
        let report = case.run().unwrap_err();
        assert!(report.contains("run scripts/setup.sh"), "{report}");
    }
}

#[test]
fn trials_cover_every_file_and_tier_and_pass_on_the_reference() {
    let s = Scratch::new("trials");
    s.lua("b/two.lua", OK_PROGRAM);
    s.lua("a/one.lua", ERR_PROGRAM);
    s.lua("a/nested/three.lua", "print(3)\n");
    std::fs::write(s.corpus().join("a/notes.txt"), "not a test").unwrap();
    let mut cfg = s.config(PathBuf::from("lua5.1"));
    let probe: &'static Tier = Box::leak(Box::new(Tier { name: "again", flags: &[] }));
    cfg.tiers = vec![default_tier(), probe];
    let trials = differential::trials(&cfg);
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    let cases = differential::test_cases(&cfg);
    assert_eq!(
        names,
        [
            "a/nested/three.lua [default]",
            "a/nested/three.lua [again]",
            "a/one.lua [default]",
            "a/one.lua [again]",
            "b/two.lua [default]",
            "b/two.lua [again]",
        ]
    );
    for case in cases {
        let name = case.name.clone();
        assert_eq!(case.run(), Ok(()), "{name}");
    }
}

#[test]
fn empty_corpus_is_a_failure_not_a_pass() {
    let s = Scratch::new("empty");
    let cfg = s.config(PathBuf::from("lua5.1"));
    let mut cases = differential::test_cases(&cfg);
    assert_eq!(cases.len(), 1);
    let report = cases.pop().unwrap().run().unwrap_err();
    assert!(report.contains("no *.lua test files"), "{report}");
}

#[test]
fn shipped_corpus_is_found() {
    let files = differential::discover(&lua51_testsuite::corpus_dir()).unwrap();
    assert!(files.len() >= 25, "{files:?}");
    assert!(files.iter().any(|f| f.starts_with("errors")));
    assert!(files.windows(2).all(|w| w[0] < w[1]), "discovery must be sorted");
    assert!(Path::new(&lua51_testsuite::corpus_dir()).join(&files[0]).is_file());
}
