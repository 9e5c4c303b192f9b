//! How `ljr` reports uncaught errors, where the differential corpus cannot look (it needs a
//! located message on stderr): `lua.c` prints nothing for a nil error value, and a non-string
//! error value as "(error object is not a string)" without a traceback. Each case is also run
//! on `lua5.1` (scripts/setup.sh installs it), so the expectation is the reference's.

use std::process::Command;

fn run(program: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(program).args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn uncaught_error_values_are_reported_like_lua_c() {
    for chunk in ["print('before') error()", "error({})", "error(setmetatable({}, {__tostring = function() return 'x' end}))", "error('text', 0)", "error(42)"] {
        let (ref_code, ref_out, ref_err) = run("lua5.1", &["-e", chunk]);
        let (code, out, err) = run(env!("CARGO_BIN_EXE_ljr"), &["-e", chunk]);
        assert_eq!(code, ref_code, "{chunk}");
        assert_eq!(out, ref_out, "{chunk}");
        // Same stderr once the program name is dropped; string errors add a traceback, whose
        // frames are not compared.
        let strip = |s: &str, prefix: &str| s.lines().next().map(|l| l.strip_prefix(prefix).unwrap_or(l).to_owned());
        assert_eq!(strip(&err, "ljr: "), strip(&ref_err, "lua5.1: "), "{chunk}");
        assert_eq!(err.is_empty(), ref_err.is_empty(), "{chunk}: {err:?} vs {ref_err:?}");
        assert_eq!(err.contains("stack traceback"), ref_err.contains("stack traceback"), "{chunk}: {err:?} vs {ref_err:?}");
    }
}

/// Runs `program args` with stdout into a pipe whose reader has gone; returns how it ended
/// (the signal, if any) and its stderr.
fn run_into_closed_pipe(program: &str, args: &[&str]) -> (Option<i32>, Option<i32>, String) {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = Command::new(program).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{program}: {e}"));
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), out.status.signal(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_closed_stdout_pipe_ends_the_program_like_lua_c() {
    // `ljr script | head`: lua5.1 dies of SIGPIPE on the first write, silently.
    let chunk = "for i = 1, 100000 do print(i) end";
    let (ref_code, ref_signal, ref_err) = run_into_closed_pipe("lua5.1", &["-e", chunk]);
    let (code, signal, err) = run_into_closed_pipe(env!("CARGO_BIN_EXE_ljr"), &["-e", chunk]);
    assert_eq!((code, signal), (ref_code, ref_signal));
    assert_eq!(err, ref_err);
    // The generator's assembly dump is one big write: no panic either.
    let (_, signal, err) = run_into_closed_pipe(env!("CARGO_BIN_EXE_ljr"), &["--dump-interpreter"]);
    assert_eq!((signal, err.as_str()), (Some(13), ""));
}
