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
