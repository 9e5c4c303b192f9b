//! `ljr`: runs Lua 5.1 programs on the generated VM, with `lua5.1`'s command line.
//!
//! ```text
//! usage: ljr [options] [script [args]].
//!   -e stat   execute string 'stat'
//!   -l name   require library 'name'
//!   -i        enter interactive mode after executing 'script'
//!   -v        show version information
//!   --        stop handling options
//!   -         execute stdin and stop handling options
//!   --dump-bytecode      print the bytecode of every compiled function before running
//!   --dump-bytecode-after  print it after the chunk ran: quickened opcodes, filled caches
//!   --dump-interpreter   print the generated interpreter (assembly) and exit
//!   -joff                interpreter only (the only tier so far; accepted for LuaJIT parity)
//!   --gc-stress          collect garbage at every safe point (finds missing roots)
//!   --stats              print tier-up requests and collections at exit
//! ```

use std::io::{Read, Write};
use std::process::ExitCode;

use lua51_value::TValue;
use lua51_vm::function::{proto_of, Proto};
use lua51_vm::LuaState;

const PROGNAME: &str = "ljr";

fn usage(bad: &str) -> ExitCode {
    eprintln!("{PROGNAME}: unrecognized option '{bad}'");
    eprintln!(
        "usage: {PROGNAME} [options] [script [args]].\nAvailable options are:\n  -e stat  execute string 'stat'\n  -l name  require library 'name'\n  -i       enter interactive mode after executing 'script'\n  -v       show version information\n  --       stop handling options\n  -        execute stdin and stop handling options\n  --dump-bytecode     print the bytecode of compiled functions\n  --dump-bytecode-after  print it after running (quickened opcodes, filled caches)\n  --dump-interpreter  print the generated interpreter's assembly\n  --gc-stress         collect garbage at every safe point"
    );
    ExitCode::FAILURE
}

/// The global `arg` table, as lua.c builds it: the script at 0, its arguments from 1, the
/// interpreter and its options at negative indices.
fn set_arg_table(st: &mut LuaState, argv: &[String], script: usize) {
    let Ok(t) = lua51_vm::table::Table::new_in(&mut st.heap) else { return };
    for (i, a) in argv.iter().enumerate() {
        if let Ok(v) = st.intern(a.as_bytes()) {
            let _ = lua51_vm::table::table_mut(t).set(TValue::from_f64(i as f64 - script as f64), v);
        }
    }
    let _ = st.set_global("arg", t);
}

/// `-l name`: `require(name)`.
fn require(st: &mut LuaState, name: &str, opts: &Options) -> bool {
    let code = format!("require({name:?})");
    run_chunk(st, code.as_bytes(), "=(command line)", false, opts, &[])
}

extern "C" {
    fn isatty(fd: std::ffi::c_int) -> std::ffi::c_int;
}

/// The interactive loop of lua.c: `> ` and `>> ` prompts, statements continued while they end
/// in an incomplete chunk, `=expr` for `return expr`, and results printed.
fn repl(st: &mut LuaState, opts: &Options) {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        st.flush();
        print!("> ");
        let _ = std::io::stdout().flush();
        let Some(Ok(first)) = lines.next() else { break };
        let mut code = match first.strip_prefix('=') {
            Some(rest) => format!("return {rest}"),
            None => first,
        };
        loop {
            match lua51_syntax::parse_chunk(code.as_bytes(), "stdin") {
                Err(e) if e.to_string().ends_with("'<eof>'") => {
                    print!(">> ");
                    let _ = std::io::stdout().flush();
                    match lines.next() {
                        Some(Ok(more)) => {
                            code.push('\n');
                            code.push_str(&more);
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        let print_results = format!("local r = {{ (function(...) {code}\n end)() }} if #r > 0 then print(unpack(r)) end");
        let wraps = lua51_syntax::parse_chunk(print_results.as_bytes(), "stdin").is_ok() && code.starts_with("return ");
        let chunk = if wraps { print_results } else { code };
        run_chunk(st, chunk.as_bytes(), "=stdin", false, opts, &[]);
    }
    println!();
}

struct Options {
    dump_bytecode: bool,
    /// Dump after running: what the interpreter made of the bytecode (dynamic quickening
    /// rewrote opcodes, inline caches filled).
    dump_bytecode_after: bool,
}

/// Reports an error like `lua.c`'s `l_message`, and flushes what the program printed first.
fn report(st: &mut LuaState, msg: &str) {
    st.flush();
    eprintln!("{PROGNAME}: {msg}");
}

/// The text `lua.c` reports for an error value: strings and numbers as themselves.
fn value_message(v: TValue) -> String {
    if v.is_string() || v.is_double() {
        let mut out = Vec::new();
        lua51_vm::stdlib::tostring_bytes(v, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    } else {
        "(error object is not a string)".to_owned()
    }
}

/// Prints the bytecode of chunk `f` and every function inside it.
fn dump_chunk(st: &mut LuaState, f: TValue) {
    let cb = unsafe { (*f.as_closure()).code_block };
    let mut text = String::new();
    dump_protos(proto_of(cb), &mut text);
    let _ = st.stdout.write_all(text.as_bytes());
}

fn dump_protos(p: &Proto, out: &mut String) {
    out.push_str(&format!("function <{}:{}> ({} bytes, {} slots, {} constants)\n", p.source, p.line_defined, p.code.len(), p.frame_slots, p.constants.len()));
    // A `NewClosure` constant is the address of a child prototype, not a Lua value.
    let child = |v: &TValue| p.children.iter().position(|c| &**c as *const Proto as u64 == v.raw());
    let describe = |k: u16| match p.constants.get(usize::from(k)) {
        Some(v) if let Some(i) = child(v) => format!("<{}:{}> (child {i})", p.children[i].source, p.children[i].line_defined),
        Some(v) if v.is_string() || v.is_double() || v.is_nil() || v.is_bool() => {
            let mut b = Vec::new();
            lua51_vm::stdlib::tostring_bytes(*v, &mut b);
            if v.is_string() {
                format!("{:?}", String::from_utf8_lossy(&b))
            } else {
                String::from_utf8_lossy(&b).into_owned()
            }
        }
        Some(_) => format!("k{k}:<function>"),
        None => format!("k{k}:?"),
    };
    out.push_str(&lua51_vm::bytecode::disassemble(&p.code, &describe));
    for c in &p.children {
        out.push('\n');
        dump_protos(c, out);
    }
}

/// Loads (parses and compiles, or reads a `string.dump`) and runs one chunk. `skip_shebang`
/// for files, as `luaL_loadfile` does. Returns false after reporting an error.
fn run_chunk(st: &mut LuaState, source: &[u8], chunk_name: &str, skip_shebang: bool, opts: &Options, args: &[TValue]) -> bool {
    let display_name = lua51_syntax::chunk_id(chunk_name);
    let f = match st.load(source, chunk_name, skip_shebang) {
        Ok(f) => f,
        Err(message) => {
            report(st, &String::from_utf8_lossy(&message));
            return false;
        }
    };
    if opts.dump_bytecode {
        dump_chunk(st, f);
    }
    let _span = tracing::info_span!("run", chunk = %display_name).entered();
    let result = st.call(f, args);
    if opts.dump_bytecode_after {
        dump_chunk(st, f);
    }
    match result {
        Ok(_) => true,
        Err(e) => {
            // lua.c: a nil error prints nothing; only string (and number) errors get the
            // traceback its message handler appends.
            if e.value.is_nil() {
                st.flush();
            } else if e.value.is_string() || e.value.is_double() {
                report(st, &value_message(e.value));
                eprintln!("{}", st.error_traceback());
            } else {
                report(st, &value_message(e.value));
            }
            false
        }
    }
}

/// Stack of the thread that parses, compiles and runs: the compiler recurses on the AST, and a
/// long operator chain (`a+b+c+...`) is as deep as it is long. Untouched stack pages cost nothing.
const MAIN_STACK_BYTES: usize = 1 << 30;

extern "C" {
    fn signal(signum: i32, handler: usize) -> usize;
}

/// Rust ignores SIGPIPE, so a write to a closed pipe (`ljr script | head`) would fail (and
/// `print!` panic); lua5.1, a C program, is killed by the signal. Restore that default.
fn default_sigpipe() {
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: sets the signal's disposition before any other thread exists.
    unsafe { signal(SIGPIPE, SIG_DFL) };
}

fn main() -> ExitCode {
    default_sigpipe();
    match std::thread::Builder::new().name("ljr".into()).stack_size(MAIN_STACK_BYTES).spawn(real_main) {
        Ok(t) => t.join().unwrap_or(ExitCode::FAILURE),
        Err(e) => {
            eprintln!("{PROGNAME}: cannot start: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> ExitCode {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_env("LJR_LOG")).with_writer(std::io::stderr).init();
    let argv: Vec<String> = std::env::args().collect();
    let mut st = match LuaState::new() {
        Ok(st) => st,
        Err(_) => {
            eprintln!("{PROGNAME}: cannot create state: not enough memory");
            return ExitCode::FAILURE;
        }
    };
    let mut opts = Options { dump_bytecode: false, dump_bytecode_after: false };
    let mut interactive = false;
    let mut show_stats = false;
    let script_index = {
        // lua.c finds the script before running any option, to build `arg` first.
        let mut j = 1;
        while j < argv.len() {
            let a = argv[j].as_str();
            if a == "--" {
                j += 1;
                break;
            }
            if a == "-" || !a.starts_with('-') {
                break;
            }
            if a == "-e" || a == "-l" {
                j += 1;
            }
            j += 1;
        }
        j.min(argv.len())
    };
    set_arg_table(&mut st, &argv, script_index);
    let mut i = 1;
    let mut ran_something = false;
    let mut script: Option<usize> = None;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "--" => {
                i += 1;
                if i < argv.len() {
                    script = Some(i);
                }
                break;
            }
            "-" => {
                script = Some(i);
                break;
            }
            "-v" => {
                println!("ljr 0.1.0 (Lua 5.1 on a Deegen-generated interpreter)");
                ran_something = true;
            }
            "--dump-bytecode" => opts.dump_bytecode = true,
            "--dump-bytecode-after" => opts.dump_bytecode_after = true,
            "-i" => {
                interactive = true;
                ran_something = true;
            }
            "-l" => {
                i += 1;
                let Some(name) = argv.get(i) else { return usage("-l") };
                ran_something = true;
                if !require(&mut st, name, &opts) {
                    return ExitCode::FAILURE;
                }
            }
            _ if a.starts_with("-l") && a.len() > 2 => {
                ran_something = true;
                if !require(&mut st, &a[2..], &opts) {
                    return ExitCode::FAILURE;
                }
            }
            "--gc-stress" => st.heap.threshold_floor = 0,
            "--stats" => show_stats = true,
            "--dump-interpreter" => {
                return match std::fs::read_to_string(lua51_vm::INTERPRETER_ASSEMBLY_PATH) {
                    Ok(text) => {
                        print!("{text}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("{PROGNAME}: cannot read {}: {e}", lua51_vm::INTERPRETER_ASSEMBLY_PATH);
                        ExitCode::FAILURE
                    }
                };
            }
            "-joff" | "-jon" => {}
            "-e" => {
                i += 1;
                let Some(code) = argv.get(i) else { return usage("-e") };
                ran_something = true;
                if !run_chunk(&mut st, code.as_bytes(), "=(command line)", false, &opts, &[]) {
                    return ExitCode::FAILURE;
                }
            }
            _ if a.starts_with("-e") => {
                ran_something = true;
                if !run_chunk(&mut st, &a.as_bytes()[2..], "=(command line)", false, &opts, &[]) {
                    return ExitCode::FAILURE;
                }
            }
            _ if a.starts_with('-') && a.len() > 1 => return usage(a),
            _ => {
                script = Some(i);
                break;
            }
        }
        i += 1;
    }
    let ok = match script {
        Some(idx) => {
            let name = &argv[idx];
            let extra: Vec<TValue> = argv[idx + 1..].iter().filter_map(|s| st.intern(s.as_bytes()).ok()).collect();
            let (source, chunk_name) = if name == "-" {
                let mut buf = Vec::new();
                if std::io::stdin().read_to_end(&mut buf).is_err() {
                    report(&mut st, "cannot read stdin");
                    return ExitCode::FAILURE;
                }
                (buf, "=stdin".to_owned())
            } else {
                match std::fs::read(name) {
                    Ok(b) => (b, format!("@{name}")),
                    Err(e) => {
                        report(&mut st, &format!("cannot open {name}: {}", lua51_vm::stdlib::os_error_text(&e)));
                        return ExitCode::FAILURE;
                    }
                }
            };
            run_chunk(&mut st, &source, &chunk_name, true, &opts, &extra)
        }
        None if !ran_something && unsafe { isatty(0) } != 0 => {
            println!("ljr 0.1.0 (Lua 5.1 on a Deegen-generated interpreter)");
            interactive = true;
            true
        }
        None if !ran_something => {
            let mut buf = Vec::new();
            if std::io::stdin().read_to_end(&mut buf).is_err() {
                report(&mut st, "cannot read stdin");
                return ExitCode::FAILURE;
            }
            run_chunk(&mut st, &buf, "=stdin", true, &opts, &[])
        }
        None => true,
    };
    if ok && interactive {
        repl(&mut st, &opts);
    }
    st.flush();
    if show_stats {
        eprintln!(
            "ljr stats: {} tier-up requests (no tier above the interpreter yet), {} collections, {} KiB allocated",
            st.stats.tier_up_requests,
            st.stats.collections,
            st.heap.bytes_allocated / 1024
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
