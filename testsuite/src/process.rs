//! Runs one interpreter process: captured stdout/stderr, stdin from a file or nothing, a
//! working directory and a deadline after which the child is killed.
//!
//! Both the differential runner and the benchmark harness go through [`run`], so a test and
//! a benchmark see the interpreter under exactly the same conditions.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use thiserror::Error;
use wait_timeout::ChildExt;

/// At most this many bytes of each output stream are kept. A runaway implementation that
/// prints in an endless loop would otherwise fill memory before its timeout; the rest of
/// the stream is still drained (so the child never blocks on a full pipe) but discarded.
pub const OUTPUT_CAP: usize = 64 << 20;

/// What to run.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// Program to start: a path, or a bare name looked up on `PATH`.
    pub program: PathBuf,
    /// Arguments, including the script.
    pub args: Vec<OsString>,
    /// Working directory of the child.
    pub cwd: PathBuf,
    /// File fed to the child's stdin; `None` gives it `/dev/null` so an implementation that
    /// wrongly reads stdin sees EOF instead of hanging on the terminal.
    pub stdin: Option<PathBuf>,
    /// Wall-clock limit; the child is killed when it is exceeded.
    pub timeout: Duration,
    /// Environment variables set for the child on top of the inherited ones (a suite's
    /// `LUA_PATH`, say).
    pub env: Vec<(OsString, OsString)>,
}

/// How a finished (or abandoned) child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Normal exit with this status code.
    Code(i32),
    /// Killed by this signal (a crash such as SIGSEGV, or SIGABRT from a failed assert).
    Signal(i32),
    /// Exceeded the deadline and was killed by us.
    TimedOut,
}

impl Exit {
    fn from_status(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(sig)) => Exit::Signal(sig),
            // Neither a code nor a signal cannot happen for a reaped child on Unix.
            (None, None) => Exit::Code(-1),
        }
    }

    /// Whether this is a clean `exit(0)`.
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit code {c}"),
            Exit::Signal(s) => write!(f, "killed by signal {s}{}", signal_name(*s)),
            Exit::TimedOut => f.write_str("timed out (killed)"),
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

/// Everything observed about one run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Captured stdout (at most [`OUTPUT_CAP`] bytes).
    pub stdout: Vec<u8>,
    /// Captured stderr (at most [`OUTPUT_CAP`] bytes).
    pub stderr: Vec<u8>,
    /// Whether stdout exceeded [`OUTPUT_CAP`] and was cut.
    pub stdout_truncated: bool,
    /// How the process ended.
    pub exit: Exit,
    /// Wall time from just before spawning to the child being reaped.
    pub wall: Duration,
}

/// The child could not be run at all (as opposed to running and failing).
#[derive(Debug, Error)]
pub enum RunError {
    /// The program does not exist.
    #[error("`{}` was not found", program.display())]
    NotFound {
        /// The program as given.
        program: PathBuf,
    },
    /// The stdin file could not be opened.
    #[error("cannot open stdin file {}: {source}", path.display())]
    Stdin {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Spawning failed for another reason (permissions, bad working directory, ...).
    #[error("cannot start `{}` in {}: {source}", program.display(), cwd.display())]
    Spawn {
        /// The program as given.
        program: PathBuf,
        /// Its intended working directory.
        cwd: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Waiting for or killing the child failed.
    #[error("waiting for `{}` failed: {source}", program.display())]
    Wait {
        /// The program as given.
        program: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// Runs `inv` to completion or to its deadline.
pub fn run(inv: &Invocation) -> Result<Outcome, RunError> {
    let stdin = match &inv.stdin {
        Some(path) => Stdio::from(File::open(path).map_err(|source| RunError::Stdin { path: path.clone(), source })?),
        None => Stdio::null(),
    };
    let mut cmd = Command::new(anchored(&inv.program));
    cmd.args(&inv.args).current_dir(&inv.cwd).envs(inv.env.iter().map(|(k, v)| (k, v))).stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped());

    tracing::debug!(program = %inv.program.display(), args = ?inv.args, cwd = %inv.cwd.display(), "spawn");
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| {
        // A missing working directory also reports NotFound; only blame the program when
        // the directory is really there.
        if source.kind() == io::ErrorKind::NotFound && inv.cwd.is_dir() {
            RunError::NotFound { program: inv.program.clone() }
        } else {
            RunError::Spawn { program: inv.program.clone(), cwd: inv.cwd.clone(), source }
        }
    })?;

    let stdout_reader = drain(child.stdout.take().expect("stdout is piped"));
    let stderr_reader = drain(child.stderr.take().expect("stderr is piped"));
    let waited = wait_with_deadline(&mut child, inv.timeout);
    let wall = start.elapsed();
    let (stdout, stdout_truncated) = join_reader(stdout_reader);
    let (stderr, _) = join_reader(stderr_reader);
    let exit = waited.map_err(|source| RunError::Wait { program: inv.program.clone(), source })?;
    Ok(Outcome { stdout, stderr, stdout_truncated, exit, wall })
}

/// A relative path like `target/release/ljr` means "relative to where we were started",
/// but the child runs in another directory; anchor such paths to our current directory.
/// Bare names (`lua5.1`) are left for the `PATH` lookup.
fn anchored(program: &Path) -> PathBuf {
    if program.is_relative() && program.components().count() > 1 {
        std::path::absolute(program).unwrap_or_else(|_| program.to_path_buf())
    } else {
        program.to_path_buf()
    }
}

fn wait_with_deadline(child: &mut Child, timeout: Duration) -> io::Result<Exit> {
    match child.wait_timeout(timeout)? {
        Some(status) => Ok(Exit::from_status(status)),
        None => {
            // The child may have exited between the timeout and the kill; either way it
            // must be reaped so no zombie is left behind.
            let _ = child.kill();
            child.wait()?;
            Ok(Exit::TimedOut)
        }
    }
}

type Reader = JoinHandle<(Vec<u8>, bool)>;

/// Reads a pipe to EOF on its own thread, so a child that fills one pipe while we wait on
/// the other cannot deadlock.
fn drain(mut pipe: impl Read + Send + 'static) -> Reader {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut truncated = false;
        let mut buf = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = OUTPUT_CAP - kept.len();
                    if n > room {
                        truncated = true;
                    }
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        (kept, truncated)
    })
}

fn join_reader(reader: Reader) -> (Vec<u8>, bool) {
    reader.join().unwrap_or_else(|_| (b"<output reader thread panicked>".to_vec(), true))
}

/// Resolves `program` the way `Command` will: a name containing `/` is a path (relative to
/// the current directory), a bare name is searched on `PATH`. Returns `None` when there is
/// no such executable file, so callers can say "not installed" before trying to run it.
pub fn locate(program: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let is_exe = |p: &Path| p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false);
    if program.components().count() > 1 || program.is_absolute() {
        let program = anchored(program);
        return is_exe(&program).then_some(program);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| is_exe(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Result<Outcome, RunError> {
        run(&Invocation {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: std::env::temp_dir(),
            stdin: None,
            timeout,
            env: Vec::new(),
        })
    }

    #[test]
    fn captures_streams_and_exit_code() {
        let out = sh("printf out; printf err >&2; exit 3", Duration::from_secs(10)).unwrap();
        assert_eq!(out.stdout, b"out");
        assert_eq!(out.stderr, b"err");
        assert_eq!(out.exit, Exit::Code(3));
        assert!(!out.stdout_truncated);
    }

    #[test]
    fn stdin_is_empty_not_inherited() {
        let out = sh("cat; echo done", Duration::from_secs(10)).unwrap();
        assert_eq!(out.stdout, b"done\n");
    }

    #[test]
    fn timeout_kills_the_child() {
        let start = Instant::now();
        let out = sh("echo before; exec sleep 30", Duration::from_millis(300)).unwrap();
        assert_eq!(out.exit, Exit::TimedOut);
        assert_eq!(out.stdout, b"before\n");
        assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    }

    #[test]
    fn crash_reports_the_signal() {
        let out = sh("kill -SEGV $$", Duration::from_secs(10)).unwrap();
        assert_eq!(out.exit, Exit::Signal(11));
        assert!(out.exit.to_string().contains("SIGSEGV"));
    }

    #[test]
    fn relative_program_paths_are_anchored_before_changing_directory() {
        // A relative path to /bin/sh from our working directory, which does not resolve
        // from the child's working directory (a deeper temporary directory).
        let here = std::env::current_dir().unwrap();
        let mut rel = PathBuf::new();
        for _ in here.components().skip(1) {
            rel.push("..");
        }
        rel.push("bin/sh");
        let cwd = std::env::temp_dir().join(format!("anchor-{}", std::process::id())).join("a/b/c/d/e/f/g/h");
        std::fs::create_dir_all(&cwd).unwrap();
        let out = run(&Invocation {
            program: rel.clone(),
            args: vec!["-c".into(), "echo ok".into()],
            cwd: cwd.clone(),
            stdin: None,
            timeout: Duration::from_secs(10),
            env: Vec::new(),
        });
        let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("anchor-{}", std::process::id())));
        assert_eq!(out.unwrap().stdout, b"ok\n", "{}", rel.display());
        assert!(locate(&rel).is_some_and(|p| p.is_absolute()));
    }

    #[test]
    fn missing_program_is_not_found() {
        let err = run(&Invocation {
            program: "definitely-not-an-installed-lua".into(),
            args: vec![],
            cwd: std::env::temp_dir(),
            stdin: None,
            timeout: Duration::from_secs(1),
            env: Vec::new(),
        })
        .unwrap_err();
        assert!(matches!(err, RunError::NotFound { .. }), "{err:?}");
        assert!(locate(Path::new("definitely-not-an-installed-lua")).is_none());
        assert!(locate(Path::new("sh")).is_some());
    }
}
