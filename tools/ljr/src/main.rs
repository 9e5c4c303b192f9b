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
//!   --tier=T             interpreter (never compile), baseline (compile every function when
//!                        loaded) or auto (compile hot functions; the default)
//!   --tier-up-threshold=N  hotness countdown (back edges and calls) before auto compiles
//!   -joff, -jon          --tier=interpreter, --tier=auto (LuaJIT's spelling)
//!   --jit-stats          print the baseline JIT's totals at exit, on stderr, as one JSON object
//!   --jit-verify         check every compiled function with the JIT's checker (iced-x86)
//!   --jit-cache-limit=N  bytes of executable memory the baseline JIT may use (default 128 MiB)
//!   --dump-jit           disassemble every compiled function at exit, by bytecode
//!   --dump-stencils      print the baseline JIT's stencils with their holes and exit
//!   --perf-map           write /tmp/perf-PID.map at exit, naming the JIT code (each bytecode's
//!                        code, its out-of-line part, each helper) for `perf report`; the
//!                        code cache is then one anonymous mapping (perf reads the map for
//!                        anonymous memory only), its pages flipped writable while written
//!   --gc-stress          collect garbage at every safe point (finds missing roots)
//!   --gc-verify          a small collector step at every safe point, each followed by a check
//!                        that no black object refers to a white one (finds missing barriers)
//!   --stats              print tier-up requests and collections at exit
//! ```
//!
//! The order of events is `lua.c`'s (`pmain`): `LUA_INIT` (a chunk, or `@file`), then the
//! whole command line is checked (a malformed one prints the usage and runs nothing), then
//! `-v`, the `-e` and `-l` options in order, the script with `arg` (which does not exist
//! before it), and the interactive loop (`-i`, or no script on a terminal) or stdin.

use std::io::{Read, Write};
use std::process::ExitCode;

use lua51_value::TValue;
use lua51_vm::object::function::{proto_of, Proto};
use lua51_vm::LuaState;

const PROGNAME: &str = "ljr";

/// lua.c's `print_usage`, on stderr.
fn print_usage() {
    eprintln!(
        "usage: {PROGNAME} [options] [script [args]].\nAvailable options are:\n  -e stat  execute string 'stat'\n  -l name  require library 'name'\n  -i       enter interactive mode after executing 'script'\n  -v       show version information\n  --       stop handling options\n  -        execute stdin and stop handling options\nljr's own options:\n  --tier=T               interpreter, baseline or auto (default)\n  --tier-up-threshold=N  hotness countdown before auto compiles a function\n  -joff, -jon            --tier=interpreter, --tier=auto\n  --jit-stats            print the baseline JIT's totals (JSON) at exit\n  --jit-verify           check every compiled function (decoding it)\n  --jit-cache-limit=N    bytes of code the baseline JIT may use\n  --dump-jit             disassemble compiled functions at exit\n  --dump-stencils        print the baseline JIT's stencils and exit\n  --perf-map             write /tmp/perf-PID.map (JIT code symbols) at exit\n  --dump-bytecode        print the bytecode of compiled functions\n  --dump-bytecode-after  print it after running (quickened opcodes, filled caches)\n  --dump-interpreter     print the generated interpreter's assembly and exit\n  --gc-stress            collect garbage at every safe point\n  --gc-verify            step the collector at every safe point, checking its invariant\n  --stats                print tier-up requests and collections at exit"
    );
}

/// lua.c's `print_version`, on stderr.
fn print_version() {
    eprintln!("ljr 0.1.0 (Lua 5.1 on a Deegen-generated interpreter)");
}

/// `ljr`'s own options, which lua.c does not have: they may stand anywhere among the options
/// and take no argument.
const LJR_OPTIONS: &[&str] = &[
    "--dump-bytecode",
    "--dump-bytecode-after",
    "--dump-interpreter",
    "--dump-stencils",
    "--dump-jit",
    "--perf-map",
    "--jit-stats",
    "--jit-verify",
    "--gc-stress",
    "--gc-verify",
    "--stats",
    "-joff",
    "-jon",
];

/// `ljr`'s own options that take a value (`--name=value`), applied by [`apply_value_option`].
const LJR_VALUE_OPTIONS: &[&str] = &["--tier", "--tier-up-threshold", "--jit-cache-limit"];

fn is_value_option(a: &str) -> bool {
    a.split_once('=').is_some_and(|(name, _)| LJR_VALUE_OPTIONS.contains(&name))
}

fn is_ljr_option(a: &str) -> bool {
    LJR_OPTIONS.contains(&a) || is_value_option(a)
}

/// Applies one of [`LJR_VALUE_OPTIONS`], or says what is wrong with its value.
fn apply_value_option(st: &mut LuaState, a: &str) -> Result<(), String> {
    let (name, value) = a.split_once('=').unwrap_or((a, ""));
    let bad = |what: &str| format!("{name} takes {what}, got '{value}'");
    match name {
        "--tier" => st.tiering.mode = value.parse()?,
        "--tier-up-threshold" => st.tiering.threshold = value.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| bad("a count (0 or more)"))?,
        "--jit-cache-limit" => st.tiering.cache_limit = value.parse().map_err(|_| bad("a number of bytes"))?,
        _ => return Err(format!("unknown option '{name}'")),
    }
    Ok(())
}

/// What lua.c's `collectargs` finds before running anything.
#[derive(Debug, Default)]
struct Args {
    /// The index of the script (`-` for stdin), if any.
    script: Option<usize>,
    interactive: bool,
    version: bool,
    has_e: bool,
}

/// lua.c's `collectargs`: `Err(())` for a malformed command line (an unknown option, `-e` or
/// `-l` without its argument, a tail after `--`, `-i` or `-v`).
fn collect_args(argv: &[String]) -> Result<Args, ()> {
    let mut args = Args::default();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_bytes();
        if a.first() != Some(&b'-') {
            args.script = Some(i);
            return Ok(args);
        }
        if is_ljr_option(&argv[i]) {
            i += 1;
            continue;
        }
        match a.get(1) {
            None => {
                args.script = Some(i);
                return Ok(args);
            }
            Some(b'-') => {
                if a.len() > 2 {
                    return Err(());
                }
                args.script = (i + 1 < argv.len()).then_some(i + 1);
                return Ok(args);
            }
            Some(b'i') | Some(b'v') => {
                if a.len() > 2 {
                    return Err(());
                }
                // `-i` implies `-v`, as in lua.c.
                args.interactive |= a[1] == b'i';
                args.version = true;
            }
            Some(b'e') | Some(b'l') => {
                args.has_e |= a[1] == b'e';
                if a.len() == 2 {
                    i += 1;
                    if i >= argv.len() {
                        return Err(());
                    }
                }
            }
            _ => return Err(()),
        }
        i += 1;
    }
    Ok(args)
}

/// The global `arg` table, as lua.c builds it for a script: the script at 0, its arguments
/// from 1, the interpreter and its options at negative indices.
fn set_arg_table(st: &mut LuaState, argv: &[String], script: usize) {
    let Ok(t) = lua51_vm::object::table::Table::new_in(&mut st.heap) else { return };
    for (i, a) in argv.iter().enumerate() {
        if let Ok(v) = st.intern(a.as_bytes()) {
            let _ = lua51_vm::object::table::table_mut(t).set(TValue::from_f64(i as f64 - script as f64), v);
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

/// The prompt lua.c shows: the global `_PROMPT` (first line) or `_PROMPT2` (continuation)
/// when it is a string or number, else `> ` and `>> `.
fn prompt(st: &mut LuaState, first_line: bool) -> String {
    let (name, default) = if first_line { ("_PROMPT", "> ") } else { ("_PROMPT2", ">> ") };
    string_or_number_text(global(st, name)).unwrap_or_else(|| default.to_owned())
}

/// The global `name` (raw, as lua.c's `lua_getfield` of the globals table reads it).
fn global(st: &mut LuaState, name: &str) -> TValue {
    st.intern(name.as_bytes()).map(|k| lua51_vm::object::table::table_mut(st.globals).get(k)).unwrap_or(TValue::NIL)
}

/// The text of a string or number (`lua_tostring`), `None` for other values.
fn string_or_number_text(v: TValue) -> Option<String> {
    (v.is_string() || v.is_double()).then(|| {
        let mut out = Vec::new();
        lua51_value::number::tostring_bytes(v, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    })
}

/// Reads one line of stdin (without its newline) after showing `prompt`; `None` at the end.
fn read_line(st: &mut LuaState, prompt: &str, input: &mut impl std::io::BufRead) -> Option<Vec<u8>> {
    st.flush();
    print!("{prompt}");
    let _ = std::io::stdout().flush();
    let mut line = Vec::new();
    match input.read_until(b'\n', &mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            Some(line)
        }
    }
}

/// lua.c's `dotty`: reads statements with prompts, continues a statement while it is an
/// incomplete chunk, takes `=expr` on a first line as `return expr`, runs each and prints its
/// results with the global `print`.
fn dotty(st: &mut LuaState, opts: &Options) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        let p = prompt(st, true);
        let Some(first) = read_line(st, &p, &mut input) else { break };
        let mut code = match first.strip_prefix(b"=") {
            Some(rest) => [b"return ".as_slice(), rest].concat(),
            None => first,
        };
        let f = loop {
            match st.load(&code, "=stdin", false) {
                Err(e) if e.ends_with(b"'<eof>'") => {
                    let p = prompt(st, false);
                    match read_line(st, &p, &mut input) {
                        Some(more) => {
                            code.push(b'\n');
                            code.extend_from_slice(&more);
                        }
                        None => break Err(e),
                    }
                }
                other => break other,
            }
        };
        let f = match f {
            Ok(f) => f,
            Err(message) => {
                report(st, &message);
                continue;
            }
        };
        if opts.dump_bytecode {
            dump_chunk(st, f);
        }
        let Some(results) = docall(st, f, &[]) else { continue };
        if results.is_empty() {
            continue;
        }
        let print = global(st, "print");
        if let Err(e) = st.call(print, &results) {
            let msg = format!("error calling 'print' ({})", value_message(e.value));
            report(st, &msg);
        }
    }
    st.flush();
    println!();
    let _ = std::io::stdout().flush();
}

struct Options {
    dump_bytecode: bool,
    /// Dump after running: what the interpreter made of the bytecode (dynamic quickening
    /// rewrote opcodes, inline caches filled).
    dump_bytecode_after: bool,
}

/// Reports an error like `lua.c`'s `l_message`, and flushes what the program printed first.
fn report(st: &mut LuaState, msg: impl AsRef<[u8]>) {
    st.flush();
    // The message's own bytes: a chunk name or quoted source need not be UTF-8.
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(format!("{PROGNAME}: ").as_bytes());
    let _ = err.write_all(msg.as_ref());
    let _ = err.write_all(b"\n");
}

/// The text `lua.c` reports for an error value: strings and numbers as themselves.
fn value_message(v: TValue) -> String {
    string_or_number_text(v).unwrap_or_else(|| "(error object is not a string)".to_owned())
}

/// Prints the bytecode of chunk `f` and every function inside it.
fn dump_chunk(st: &mut LuaState, f: TValue) {
    let cb = unsafe { (*f.as_closure()).code_block };
    let mut text = String::new();
    dump_protos(proto_of(cb), &mut text);
    let _ = st.stdout.write_all(text.as_bytes());
    // Before the chunk runs: the listing is what one reads when it goes wrong.
    st.flush();
}

fn dump_protos(p: &Proto, out: &mut String) {
    out.push_str(&format!(
        "function <{}:{}> ({} bytes, {} slots, {} constants)\n",
        p.source,
        p.line_defined,
        p.code.len(),
        p.frame_slots,
        p.constants.len()
    ));
    // A `NewClosure` constant is the address of a child prototype, not a Lua value.
    let child = |v: &TValue| p.children.iter().position(|c| &**c as *const Proto as u64 == v.raw());
    let describe = |k: u16| match p.constants.get(usize::from(k)) {
        Some(v) if let Some(i) = child(v) => format!("<{}:{}> (child {i})", p.children[i].source, p.children[i].line_defined),
        Some(v) if v.is_string() || v.is_double() || v.is_nil() || v.is_bool() => {
            let mut b = Vec::new();
            lua51_value::number::tostring_bytes(*v, &mut b);
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
            report(st, &message);
            return false;
        }
    };
    if opts.dump_bytecode {
        dump_chunk(st, f);
    }
    let _span = tracing::info_span!("run", chunk = %display_name).entered();
    let ok = docall(st, f, args).is_some();
    if opts.dump_bytecode_after {
        dump_chunk(st, f);
    }
    ok
}

/// lua.c's `docall` and `report`: calls `f`, and reports an error the way lua.c's message
/// handler and `l_message` do. `None` after an error.
fn docall(st: &mut LuaState, f: TValue, args: &[TValue]) -> Option<Vec<TValue>> {
    match st.call(f, args) {
        Ok(results) => Some(results),
        Err(e) => {
            // lua.c: a nil error prints nothing; only string (and number) errors get the
            // traceback its message handler appends.
            if e.value.is_nil() {
                st.flush();
            } else if e.value.is_string() || e.value.is_double() {
                report(st, value_message(e.value));
                eprintln!("{}", st.error_traceback());
            } else {
                report(st, value_message(e.value));
            }
            None
        }
    }
}

/// Reads all of stdin, or reports why not.
fn read_stdin(st: &mut LuaState) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    match std::io::stdin().read_to_end(&mut buf) {
        Ok(_) => Some(buf),
        Err(e) => {
            report(st, format!("cannot read stdin: {}", lua51_vm::native::os_error_text(&e)));
            None
        }
    }
}

/// lua.c's `handle_luainit`: runs `LUA_INIT`, a chunk, or `@file` to run a file.
fn handle_luainit(st: &mut LuaState, opts: &Options) -> bool {
    let Some(init) = std::env::var_os("LUA_INIT") else { return true };
    let init = init.into_encoded_bytes();
    match init.strip_prefix(b"@") {
        Some(file) => run_file(st, &String::from_utf8_lossy(file), opts, &[]),
        None => run_chunk(st, &init, "=LUA_INIT", false, opts, &[]),
    }
}

/// Runs a Lua file as `luaL_loadfile` loads it (a first line starting with `#` skipped).
fn run_file(st: &mut LuaState, name: &str, opts: &Options, args: &[TValue]) -> bool {
    match std::fs::read(name) {
        Ok(source) => run_chunk(st, &source, &format!("@{name}"), true, opts, args),
        Err(e) => {
            report(st, format!("cannot open {name}: {}", lua51_vm::native::os_error_text(&e)));
            false
        }
    }
}

/// lua.c's `runargs`: the `-e` and `-l` options before the script, in order.
fn run_args(st: &mut LuaState, argv: &[String], end: usize, opts: &Options) -> bool {
    let mut i = 1;
    while i < end {
        let a = argv[i].as_str();
        if let Some(rest) = a.strip_prefix("-e").or_else(|| a.strip_prefix("-l")) {
            let value = if rest.is_empty() {
                i += 1;
                argv[i].as_str()
            } else {
                rest
            };
            let ok =
                if a.starts_with("-e") { run_chunk(st, value.as_bytes(), "=(command line)", false, opts, &[]) } else { require(st, value, opts) };
            if !ok {
                return false;
            }
        }
        i += 1;
    }
    true
}

/// lua.c's `handle_script`: the `arg` table, then the script (`-` is stdin unless it came
/// after `--`) with the arguments after it.
fn handle_script(st: &mut LuaState, argv: &[String], script: usize, opts: &Options) -> bool {
    set_arg_table(st, argv, script);
    let extra: Vec<TValue> = argv[script + 1..].iter().filter_map(|s| st.intern(s.as_bytes()).ok()).collect();
    if argv[script] == "-" && argv[script - 1] != "--" {
        let Some(source) = read_stdin(st) else { return false };
        return run_chunk(st, &source, "=stdin", true, opts, &extra);
    }
    run_file(st, &argv[script], opts, &extra)
}

/// Stack of the thread that parses, compiles and runs: the compiler recurses on the AST, and a
/// long operator chain (`a+b+c+...`) is as deep as it is long. Untouched stack pages cost nothing.
const MAIN_STACK_BYTES: usize = 1 << 30;

extern "C" {
    fn signal(signum: i32, handler: usize) -> usize;
    #[cfg(target_env = "gnu")]
    fn mallopt(param: i32, value: i32) -> i32;
}

/// The VM runs on a thread of its own (for its stack), and glibc gives a second thread an arena
/// of its own, grown by `mprotect` one page range at a time: a compile-heavy run spent an eighth
/// of its time in `mprotect` (about 14,000 calls). One arena, the main one, grows by `brk`.
fn single_malloc_arena() {
    #[cfg(target_env = "gnu")]
    {
        const M_ARENA_MAX: i32 = -8;
        // SAFETY: a malloc tuning call before any other thread exists; a refusal changes nothing.
        unsafe { mallopt(M_ARENA_MAX, 1) };
    }
}

/// Rust ignores SIGPIPE, so a write to a closed pipe (`ljr script | head`) would fail (and
/// `print!` panic); lua5.1, a C program, is killed by the signal. Restore that default.
fn default_sigpipe() {
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: sets the signal's disposition before any other thread exists.
    unsafe { signal(SIGPIPE, SIG_DFL) };
}

/// The system allocator with a reserve, so that running out of memory while a chunk is
/// parsed and compiled is "not enough memory", not an abort (see the module's documentation).
#[global_allocator]
static ALLOCATOR: lua51_vm::object::cushion::CushionedAllocator = lua51_vm::object::cushion::CushionedAllocator;

fn main() -> ExitCode {
    default_sigpipe();
    single_malloc_arena();
    lua51_vm::object::cushion::renew();
    match std::thread::Builder::new().name("ljr".into()).stack_size(MAIN_STACK_BYTES).spawn(real_main) {
        Ok(t) => t.join().unwrap_or(ExitCode::FAILURE),
        Err(e) => {
            eprintln!("{PROGNAME}: cannot start: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> ExitCode {
    // Spans report their time when they close (`LJR_LOG=lua51_vm::gc=debug`: each atomic phase).
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("LJR_LOG"))
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_writer(std::io::stderr)
        .init();
    let argv: Vec<String> = std::env::args().collect();
    let mut st = match LuaState::new().and_then(|mut st| lua51_vm::open_libs(&mut st).map(|()| st)) {
        Ok(st) => st,
        Err(_) => {
            eprintln!("{PROGNAME}: cannot create state: not enough memory");
            return ExitCode::FAILURE;
        }
    };
    let ok = run(&mut st, &argv);
    st.close();
    st.flush();
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `--dump-jit`: every compiled function's machine code, each instruction's under its bytecode.
fn jit_listing(st: &LuaState) -> String {
    let variants = lua51_vm::bytecode::variants();
    let mut out = String::new();
    for p in st.compiled_functions() {
        let Some(code) = &p.jit else { continue };
        out.push_str(&format!(
            "function <{}:{}> ({} bytecodes, {} bytes of code at {:#x})\n",
            p.source,
            p.line_defined,
            code.instructions.len(),
            code.code_size,
            code.start()
        ));
        if let Some(pro) = &code.prologue {
            out.push_str("[    ] prologue (the function's entry: parameters, stack check)\n");
            out.push_str(&listing_of(pro));
        }
        for ins in &code.instructions {
            let name = variants.get(ins.opcode as usize).map_or("?", |v| v.name.as_str());
            out.push_str(&format!("[{:4}] {name} (line {})\n", ins.bytecode_offset, p.line_at(ins.bytecode_offset)));
            out.push_str(&listing_of(ins));
            // An inline cache's stubs, the chain's head first.
            if let Some(jit) = st.tiering.jit() {
                let pc = p.code.as_ptr() as u64 + u64::from(ins.bytecode_offset);
                for stub in jit.ic_stubs(pc) {
                    // A stub in the slab is the instruction's own code, listed above.
                    let place = if stub.in_line {
                        format!(" in line above ({} bytes), {} bytes out of line with its record\n", stub.code_size, stub.size)
                    } else {
                        format!(", {} bytes with its record:\n", stub.size)
                    };
                    let name = jit.stencil_name(stub.stencil);
                    out.push_str(&format!("       inline-cache stub {name} (key {:#x}, state {:#x}){place}", stub.key, stub.state));
                    out.push_str(&stub_listing(stub));
                }
                if let Some(copy) = jit.ic_megamorphic_copy(pc) {
                    let name = jit.stencil_name(copy.stencil);
                    out.push_str(&format!("       megamorphic: its own copy of the generic code, {name}, {} bytes with its record:\n", copy.size));
                    out.push_str(&stub_listing(copy));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// The disassembly of an inline-cache stub's code out of line (a stub in the slab is its
/// instruction's, listed with it) and of its cold part.
fn stub_listing(stub: &deegen_baseline_jit::IcStub) -> String {
    let mut out = String::new();
    if !stub.in_line {
        // SAFETY: stubs stay mapped while their function lives.
        let code = unsafe { std::slice::from_raw_parts(stub.address as *const u8, stub.code_size as usize) };
        out.push_str(&deegen_stencil::disassemble_code(code, stub.address));
    }
    if stub.cold != 0 {
        out.push_str("         its cold part:\n");
        // SAFETY: as above.
        let cold = unsafe { std::slice::from_raw_parts(stub.cold as *const u8, stub.cold_size as usize) };
        out.push_str(&deegen_stencil::disassemble_code(cold, stub.cold));
    }
    out
}

/// The disassembly of one instruction's code (or the prologue's), in line and out of line.
fn listing_of(ins: &deegen_baseline_jit::CompiledInstruction) -> String {
    // SAFETY: the code stays mapped (readable) while its function lives.
    let bytes = unsafe { std::slice::from_raw_parts(ins.address as *const u8, ins.size as usize) };
    let mut out = deegen_stencil::disassemble_code(bytes, ins.address);
    if ins.cold_size > 0 {
        out.push_str("       out of line:\n");
        // SAFETY: as above.
        let cold = unsafe { std::slice::from_raw_parts(ins.cold_address as *const u8, ins.cold_size as usize) };
        out.push_str(&deegen_stencil::disassemble_code(cold, ins.cold_address));
    }
    out
}

/// `--perf-map`: the JIT code's symbols in perf's map format (`START SIZE NAME`, hexadecimal),
/// one per bytecode's code and out-of-line part, and one per helper, so `perf report` names
/// JIT code the way `--dump-jit` lists it. Written at exit: functions collected before then
/// are missing (their code is not reused, so nothing is misnamed).
fn perf_map_text(st: &LuaState) -> String {
    let variants = lua51_vm::bytecode::variants();
    let mut out = String::new();
    if let Some(jit) = st.tiering.jit() {
        for (address, size, name) in jit.helpers() {
            out.push_str(&format!("{address:x} {size:x} jit-helper {name}\n"));
        }
    }
    for p in st.compiled_functions() {
        let Some(code) = &p.jit else { continue };
        if let Some(pro) = &code.prologue {
            let place = format!("{}:{} prologue", p.source, p.line_defined);
            out.push_str(&format!("{:x} {:x} lua {place}\n", pro.address, pro.size));
            if pro.cold_size > 0 {
                out.push_str(&format!("{:x} {:x} lua {place} out of line\n", pro.cold_address, pro.cold_size));
            }
        }
        for ins in &code.instructions {
            let name = variants.get(ins.opcode as usize).map_or("?", |v| v.name.as_str());
            let line = p.line_at(ins.bytecode_offset);
            let place = format!("{}:{} [{}] {name} (line {line})", p.source, p.line_defined, ins.bytecode_offset);
            out.push_str(&format!("{:x} {:x} lua {place}\n", ins.address, ins.size));
            if ins.cold_size > 0 {
                out.push_str(&format!("{:x} {:x} lua {place} out of line\n", ins.cold_address, ins.cold_size));
            }
            if let Some(jit) = st.tiering.jit() {
                let pc = p.code.as_ptr() as u64 + u64::from(ins.bytecode_offset);
                if let Some(copy) = jit.ic_megamorphic_copy(pc) {
                    out.push_str(&format!("{:x} {:x} lua {place} generic code (megamorphic)\n", copy.address, copy.code_size));
                    if copy.cold != 0 {
                        out.push_str(&format!("{:x} {:x} lua {place} generic code (megamorphic) cold part\n", copy.cold, copy.cold_size));
                    }
                }
                for stub in jit.ic_stubs(pc) {
                    if !stub.in_line {
                        out.push_str(&format!("{:x} {:x} lua {place} inline-cache stub {:#x}\n", stub.address, stub.code_size, stub.key));
                    }
                    if stub.cold != 0 {
                        out.push_str(&format!("{:x} {:x} lua {place} inline-cache stub {:#x} cold part\n", stub.cold, stub.cold_size, stub.key));
                    }
                }
            }
        }
    }
    out
}

/// lua.c's `pmain`, with ljr's own options applied before anything runs.
fn run(st: &mut LuaState, argv: &[String]) -> bool {
    let mut opts = Options { dump_bytecode: false, dump_bytecode_after: false };
    let mut show_stats = false;
    let mut jit_stats = false;
    let mut dump_jit = false;
    let mut perf_map = false;
    let Ok(args) = collect_args(argv) else {
        print_usage();
        return false;
    };
    let end = args.script.unwrap_or(argv.len());
    for a in &argv[1..end] {
        match a.as_str() {
            "--dump-bytecode" => opts.dump_bytecode = true,
            "--dump-bytecode-after" => opts.dump_bytecode_after = true,
            "--gc-stress" => st.heap.threshold_floor = 0,
            "--gc-verify" => st.heap.verify = true,
            "--stats" => show_stats = true,
            "--jit-stats" => jit_stats = true,
            "--jit-verify" => st.tiering.verify = true,
            "--dump-jit" => dump_jit = true,
            "--perf-map" => {
                perf_map = true;
                // perf reads the map file only for samples in anonymous memory.
                st.tiering.mapping = lua51_vm::tiering::Mapping::Anonymous;
            }
            "-joff" => st.tiering.mode = lua51_vm::tiering::TierMode::Interpreter,
            "-jon" => st.tiering.mode = lua51_vm::tiering::TierMode::Auto,
            _ if is_value_option(a) => {
                if let Err(e) = apply_value_option(st, a) {
                    eprintln!("{PROGNAME}: {e}");
                    print_usage();
                    return false;
                }
            }
            // Listings the build wrote, kept in the binary.
            "--dump-stencils" => {
                print!("{}", lua51_vm::tiering::STENCILS_DISASSEMBLY);
                return true;
            }
            "--dump-interpreter" => {
                print!("{}", lua51_vm::INTERPRETER_ASSEMBLY);
                return true;
            }
            _ => {}
        }
    }
    let ok = handle_luainit(st, &opts)
        && {
            if args.version {
                print_version();
            }
            run_args(st, argv, end, &opts)
        }
        && args.script.is_none_or(|script| handle_script(st, argv, script, &opts));
    if ok {
        if args.interactive {
            dotty(st, &opts);
        } else if args.script.is_none() && !args.has_e && !args.version {
            if unsafe { isatty(0) } != 0 {
                print_version();
                dotty(st, &opts);
            } else if let Some(source) = read_stdin(st) {
                if !run_chunk(st, &source, "=stdin", true, &opts, &[]) {
                    return false;
                }
            } else {
                return false;
            }
        }
    }
    if dump_jit {
        st.flush();
        print!("{}", jit_listing(st));
    }
    if perf_map {
        let path = format!("/tmp/perf-{}.map", std::process::id());
        if let Err(e) = std::fs::write(&path, perf_map_text(st)) {
            eprintln!("{PROGNAME}: cannot write {path}: {e}");
        }
    }
    if jit_stats {
        st.flush();
        let s = st.tiering.stats();
        eprintln!(
            "{{\"tier\": \"{:?}\", \"functions\": {}, \"bytecodes\": {}, \"code_bytes\": {}, \"cold_code_bytes\": {}, \"slow_path_data_bytes\": {}, \"compile_seconds\": {:.6}, \"memory_seconds\": {:.6}, \"background_memory_seconds\": {:.6}, \"failures\": {}, \"bytecodes_per_second\": {:.0}, \"code_bytes_per_bytecode\": {:.1}, \"ic_stubs\": {}, \"ic_stubs_in_line\": {}, \"ic_stub_bytes\": {}, \"ic_megamorphic_sites\": {}, \"ic_megamorphic_fills\": {}, \"call_ic_stubs\": {}, \"call_ic_closure_sites\": {}, \"freed_functions\": {}, \"freed_code_bytes\": {}}}",
            st.tiering.mode,
            s.functions,
            s.bytecodes,
            s.code_bytes,
            s.cold_code_bytes,
            s.slow_path_data_bytes,
            s.compile_seconds,
            s.memory_seconds,
            s.background_memory_seconds,
            s.failures,
            if s.compile_seconds > 0.0 { s.bytecodes as f64 / s.compile_seconds } else { 0.0 },
            if s.bytecodes > 0 { s.code_bytes as f64 / s.bytecodes as f64 } else { 0.0 },
            s.ic_stubs,
            s.ic_stubs_in_line,
            s.ic_stub_bytes,
            s.ic_megamorphic_sites,
            s.ic_megamorphic_fills,
            s.call_ic_stubs,
            s.call_ic_closure_sites,
            s.freed_functions,
            s.freed_code_bytes,
        );
    }
    if show_stats {
        st.flush();
        eprintln!(
            "ljr stats: {} tier-up requests, {} collections, {} KiB allocated",
            st.stats.tier_up_requests,
            st.stats.collections,
            st.heap.bytes_allocated / 1024
        );
    }
    ok
}
