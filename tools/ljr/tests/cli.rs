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
    for chunk in
        ["print('before') error()", "error({})", "error(setmetatable({}, {__tostring = function() return 'x' end}))", "error('text', 0)", "error(42)"]
    {
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
    let mut child =
        Command::new(program).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{program}: {e}"));
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

/// Runs `program args` with `stdin` piped in and extra environment variables; returns the exit
/// code, stdout and stderr.
fn run_with(program: &str, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).env_remove("LUA_INIT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{program}: {e}"));
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Command lines whose stdout and exit status must be lua5.1's: the order `LUA_INIT`, `-e`,
/// `-l` and the script run in, `arg` (absent before the script), `-` for stdin, `--`, and
/// malformed command lines (usage, exit 1, nothing run).
#[test]
fn command_lines_behave_like_lua_c() {
    let dir = std::env::temp_dir().join(format!("ljr-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("s.lua");
    std::fs::write(&script, "print('script', ..., arg and #arg, arg and arg[0] ~= nil)").unwrap();
    let module = dir.join("m.lua");
    std::fs::write(&module, "print('module', arg == nil)").unwrap();
    let init_file = dir.join("init.lua");
    std::fs::write(&init_file, "print('init file')").unwrap();
    let path = format!("{}/?.lua", dir.display());
    let (script, init_at) = (script.to_str().unwrap(), format!("@{}", init_file.display()));
    // (arguments, standard input, environment)
    type Case<'a> = (&'a [&'a str], &'a str, &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        (&["-e", "print(1)", "-e", "print(arg)", script, "a", "b"], "", &[]),
        (&["-eprint(2)", "-lm", script], "", &[("LUA_PATH", &path)]),
        (&["-l", "m", "-", "x"], "print('stdin', ...) print(arg[0], arg[-1])", &[("LUA_PATH", &path)]),
        (&["--", script, "z"], "", &[]),
        (&["-"], "print('dash')", &[]),
        (&[], "print('piped stdin')", &[]),
        (&["-e", "print(x)"], "", &[("LUA_INIT", "x = 'from init'")]),
        (&["-e", "print(y)"], "", &[("LUA_INIT", &init_at)]),
        (&[script], "", &[("LUA_INIT", "error('init fails')")]),
        (&["-e"], "", &[]),
        (&["-h"], "", &[]),
        (&["-e", "print(1)", "-x"], "", &[]),
        (&["--x"], "", &[]),
        (&["-iv"], "", &[]),
        (&["-e", "error('boom')", "-e", "print('not reached')"], "", &[]),
        (&["does-not-exist.lua"], "", &[]),
    ];
    for (args, stdin, env) in cases {
        let reference = run_with("lua5.1", args, stdin, env);
        let ours = run_with(env!("CARGO_BIN_EXE_ljr"), args, stdin, env);
        assert_eq!((ours.0, &ours.1), (reference.0, &reference.1), "{args:?} {env:?}: stderr {:?} vs {:?}", ours.2, reference.2);
        assert_eq!(ours.2.is_empty(), reference.2.is_empty(), "{args:?}: {:?} vs {:?}", ours.2, reference.2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The interactive mode with stdin from a file, as the official suite's main.lua checks it (the
/// expectations are that file's: Debian's lua5.1 is built with readline, which echoes the
/// input, so it cannot be the reference here). Prompts come from `_PROMPT`/`_PROMPT2`, a first
/// line `=expr` is `return expr`, incomplete statements continue on the next line, results
/// are printed, errors reported on stderr, and the end of input prints a newline.
#[test]
fn interactive_mode_reads_statements_like_lua_c() {
    let ljr = env!("CARGO_BIN_EXE_ljr");
    let quiet = ["-e_PROMPT='' _PROMPT2=''", "-i"];
    let cases: &[(&[&str], &str, &str)] = &[
        (&quiet, "= (6*2-6) -- ===\na \n= 10\nprint(a)\n= a", "6\n10\n10\n\n"),
        (&quiet, "a = [[b\nc\nd\ne]]\n=a", "b\nc\nd\ne\n\n"),
        (&["-e_PROMPT='alo'", "-i"], " --\na = 2\n", "aloaloalo\n"),
        (&quiet, "=1, nil, 3\n=nil\nx = 1", "1\tnil\t3\nnil\n\n"),
        (&["-i"], "=1\nlocal t = {\n2}\n", "> 1\n> >> > \n"),
        (&quiet, "error('e')\n= 'after'", "after\n\n"),
        (&quiet, "x = = 1\n= 'after'", "after\n\n"),
    ];
    for (args, stdin, expected) in cases {
        let (code, out, err) = run_with(ljr, args, stdin, &[]);
        assert_eq!((code, out.as_str()), (Some(0), *expected), "{args:?} {stdin:?}: stderr {err:?}");
    }
    // The version banner goes to stderr, errors too.
    let (_, _, err) = run_with(ljr, &quiet, "error('e')", &[]);
    assert!(err.starts_with("ljr 0.1.0") && err.contains("stdin:1: e"), "{err:?}");
}

/// A chunk is compiled a statement at a time as it is parsed (as lua5.1's one-pass compiler
/// does), so an error the compiler finds in a statement is reported before a syntax error in
/// a later one, as `lua5.1` reports it; and a syntax error before it, first.
#[test]
fn a_compile_error_comes_before_a_later_syntax_error() {
    let dir = std::env::temp_dir().join(format!("ljr-cli-compile-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    // 300 arguments: more registers than a function has ("function or expression too complex").
    let call = format!("f({})", (0..300).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    for (name, program) in [("compile_first.lua", format!("{call}\nx = = 1\n")), ("syntax_first.lua", format!("x = = 1\n{call}\n"))] {
        let path = dir.join(name);
        std::fs::write(&path, program).expect("the script is written");
        let path = path.to_str().expect("a UTF-8 path");
        let (ref_code, _, ref_err) = run("lua5.1", &[path]);
        let (code, _, err) = run(env!("CARGO_BIN_EXE_ljr"), &[path]);
        assert_eq!(code, ref_code, "{name}");
        // (5.1 names the token it was reading, "near '249'"; `ljr`'s compiler runs after the
        // statement is parsed, and names none.)
        let message =
            |s: &str, prefix: &str| s.lines().next().map(|l| l.strip_prefix(prefix).unwrap_or(l).split(" near ").next().unwrap_or("").to_owned());
        assert_eq!(message(&err, "ljr: "), message(&ref_err, "lua5.1: "), "{name}: {err:?} vs {ref_err:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
