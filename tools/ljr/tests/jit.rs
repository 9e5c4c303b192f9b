//! The baseline JIT under inputs that stress it: each program must behave under
//! `--tier=baseline` (every function compiled at load) and `--tier=auto` with a threshold of 1
//! exactly as `lua5.1` runs it, and a code cache too small for the program leaves functions in
//! the interpreter instead of failing.

use std::process::Command;

fn run(program: &str, flags: &[&str]) -> (String, String, Option<i32>) {
    let ljr = env!("CARGO_BIN_EXE_ljr");
    let out = Command::new(ljr).args(flags).arg("-e").arg(program).output().expect("ljr runs");
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

fn reference(program: &str) -> (String, Option<i32>) {
    let out = Command::new(lua51_testsuite::REFERENCE_LUA).arg("-e").arg(program).output().expect("lua5.1 runs");
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code())
}

/// The program prints the same under every JIT configuration as under lua5.1.
fn same_as_reference(program: &str) {
    let (expected, code) = reference(program);
    for flags in [&["--tier=baseline", "--jit-verify"][..], &["--tier=auto", "--tier-up-threshold=1", "--jit-verify"]] {
        let (stdout, stderr, status) = run(program, flags);
        assert_eq!(status, code, "{flags:?}: exit status; stderr: {stderr}");
        assert_eq!(stdout, expected, "{flags:?}: stdout; stderr: {stderr}");
    }
}

#[test]
fn thousands_of_functions() {
    // 3000 closures from `load`, each compiled, each called.
    same_as_reference("local s = 0 for i = 1, 3000 do local f = loadstring('local a = ... return a * ' .. i .. ' + 1') s = s + f(2) end print(s)");
}

#[test]
fn a_function_of_sixty_thousand_bytecodes() {
    // One straight-line function with 60000 statements (and a loop around it).
    same_as_reference(
        "local parts = {'local x = 0 for r = 1, 3 do'} for i = 1, 60000 do parts[#parts + 1] = 'x = x + ' .. (i % 7) end \
         parts[#parts + 1] = 'end return x' print(loadstring(table.concat(parts, '\\n'))())",
    );
}

#[test]
fn deep_recursion_in_jit_code() {
    same_as_reference("local function f(n) return f(n + 1) + 1 end print(pcall(f, 1))");
    same_as_reference("local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end print(f(15000))");
}

/// Calls enter a compiled function without variable arguments at its prologue: missing
/// parameters are nil, extra arguments dropped, a frame too large for the stack is "stack
/// overflow" in the caller, a debug hook set and removed while compiled functions run sends
/// their calls through the interpreter and back, and a coroutine's body starts there too.
#[test]
fn calls_enter_at_the_prologue() {
    same_as_reference(
        "local function f0() return 'none' end local function f3(a, b, c) return tostring(a) .. tostring(b) .. tostring(c) end          print(f0(1, 2), f3(), f3(1), f3(1, 2, 3, 4, 5), select('#', f3(1, 2)))",
    );
    same_as_reference(
        "local function big(n) local a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q, r, s, t, u = n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n          if n == 0 then return 0 end return 1 + big(n - 1) end          print(pcall(big, 1e7)) print(big(100))",
    );
    same_as_reference(
        "local function add(a, b) return a + b end local n = 0 local function count() n = n + 1 end          local s = 0 for i = 1, 100 do s = s + add(i, 1) end          debug.sethook(count, 'c') for i = 1, 100 do s = s + add(i, 2) end debug.sethook()          for i = 1, 100 do s = s + add(i, 3) end print(s, n > 0)",
    );
    same_as_reference("local co = coroutine.wrap(function(a, b) coroutine.yield(tostring(a) .. tostring(b)) return 'done' end) print(co(), co())");
}

#[test]
fn errors_thrown_through_jit_frames() {
    same_as_reference(
        "local function g(t) return t.x.y end local function f(t) return g(t) + 1 end \
         print(pcall(f, {})) print(pcall(f, {x = {y = 2}})) \
         print(select(2, xpcall(function() return f({}) end, debug.traceback)) ~= nil) \
         local ok, e = pcall(error, {code = 7}) print(ok, type(e), e.code)",
    );
}

#[test]
fn coroutines_switch_through_jit_frames() {
    same_as_reference(
        "local co = coroutine.wrap(function(a) for i = 1, 3 do a = a + coroutine.yield(a * i) end return a end) \
         print(co(1), co(2), co(3), co(4))",
    );
}

#[test]
fn a_full_code_cache_leaves_functions_in_the_interpreter() {
    let program =
        "local s = 0 for i = 1, 200 do local f = loadstring('local a = ... for j = 1, 3 do a = a + j end return a') s = s + f(i) end print(s)";
    let (expected, _) = reference(program);
    // Room for the helpers (the AOT slow paths, about 130 KiB: they grow with the bytecode
    // set) and a few functions only.
    let (stdout, stderr, status) = run(program, &["--tier=baseline", "--jit-cache-limit=163840", "--jit-stats"]);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(stdout, expected);
    let stats = stderr.lines().last().unwrap_or_default();
    assert!(
        stats.contains("\"failures\": ") && !stats.contains("\"failures\": 0,") && !stats.contains("\"functions\": 0,"),
        "some compilations must have succeeded and some failed (if none ran, the helpers outgrew the limit): {stats}"
    );
    // A cache too small even for the JIT's own helpers: nothing is compiled, everything runs.
    let (stdout, stderr, status) = run(program, &["--tier=baseline", "--jit-cache-limit=0", "--jit-stats"]);
    assert_eq!((status, stdout.as_str()), (Some(0), expected.as_str()), "{stderr}");
}

/// Functions made, run and dropped over and over in a code cache that holds a few of them at a
/// time: the collector gives a dead function's code (and its inline-cache stubs) back and later
/// compilations reuse it, so none fails; the functions kept alive across every collection still
/// run their own code.
#[test]
fn freed_functions_give_their_code_back() {
    let program = "\
        local kept, s = {}, 0 \
        for i = 1, 400 do \
          local f = loadstring('local a = ... return function(x) local t = {} for j = 1, 3 do t[j] = x * j + a end local o = {p = t[1], q = a} return t[1] + t[2] + t[3] + o.p + o.q end')(i) \
          s = s + f(i) \
          if i % 50 == 0 then kept[#kept + 1] = f end \
          if i % 10 == 0 then collectgarbage() end \
        end \
        for k, f in ipairs(kept) do s = s + f(k) end \
        local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(kept[i](i)) end end) \
        print(s, co(), co(), co())";
    let (expected, _) = reference(program);
    same_as_reference(program);
    // Room for the helpers and a few functions (the 800 compilations take about 1 MB; 256 KiB
    // was the edge, 260-270 KB, after code sizes moved): reused code is what lets every one
    // compile.
    for flags in [
        &["--tier=baseline", "--jit-cache-limit=327680", "--jit-stats", "--jit-verify"][..],
        &["--tier=baseline", "--jit-cache-limit=327680", "--jit-stats", "--gc-stress"],
    ] {
        let (stdout, stderr, status) = run(program, flags);
        assert_eq!((status, stdout.as_str()), (Some(0), expected.as_str()), "{flags:?}: {stderr}");
        let stats = stderr.lines().last().unwrap_or_default();
        assert!(stats.contains("\"failures\": 0,") && !stats.contains("\"freed_functions\": 0,"), "{flags:?}: {stats}");
    }
}

/// Field and global accesses whose sites see one, a few and many hidden classes: the JIT's
/// inline caches (chains of patched stubs, `deegen_baseline_jit::BaselineJit::add_ic_stub`)
/// must answer as the interpreter does, for every kind of cached state (inline or
/// out-of-line slots, with a metatable, an absent key cached for a store), past the
/// megamorphic limit, and when a site that has stubs sees a value they were not made for.
#[test]
fn polymorphic_inline_caches() {
    let program = "\
        local function get(o) return o.x end \
        local function set(o, v) o.x = v end \
        local shapes = {} \
        for i = 1, 9 do local o = {} for j = 1, i do o['f' .. j] = j end o.x = i * 10 shapes[i] = o end \
        local s = 0 \
        for r = 1, 3 do for i = 1, 9 do s = s + get(shapes[i]) end end \
        for r = 1, 3 do for i = 1, 2 do s = s + get(shapes[i]) end end \
        print(s) \
        for i = 1, 9 do set(shapes[i], i) set(shapes[i], i + 1) end \
        for i = 1, 9 do s = s + get(shapes[i]) end print(s) \
        local dict = {} for i = 1, 100 do dict['k' .. i] = i end dict.x = 5 \
        print(get(dict), get(dict)) \
        local base = {x = 'from base'} local derived = setmetatable({}, {__index = base}) \
        print(get(derived), get(derived)) \
        local fresh = {} for i = 1, 3 do local o = {} set(o, i) fresh[i] = o end print(fresh[3].x) \
        g1 = 1 local function bump() g1 = g1 + 1 return g1 end for i = 1, 5 do bump() end print(g1) \
        print(pcall(get, 5)) print(pcall(get, nil)) print(pcall(set, 'str', 1)) \
        print(get(setmetatable({}, {__index = function(t, k) return k .. '!' end}))) \
        local function gety(o) return o.y end \
        local o = setmetatable({y = 1}, {__index = function(t, k) return k .. '?' end}) \
        print(gety(o), gety(o)) o.y = nil print(gety(o), gety(o)) o.y = 3 print(gety(o)) \
        local function sety(o, v) o.y = v end \
        local p = setmetatable({y = 1}, {__newindex = function(t, k, v) rawset(t, k, v * 2) end}) \
        sety(p, 2) sety(p, 3) p.y = nil sety(p, 4) print(p.y)";
    same_as_reference(program);
    let (_, stderr, status) = run(program, &["--tier=baseline", "--jit-stats"]);
    assert_eq!(status, Some(0), "{stderr}");
    let stats = stderr.lines().last().unwrap_or_default();
    assert!(!stats.contains("\"ic_stubs\": 0,") && stats.contains("\"ic_stubs\": "), "no inline-cache stub was made: {stats}");
    assert!(!stats.contains("\"ic_megamorphic_fills\": 0}") && stats.contains("\"ic_megamorphic_fills\": "), "no site went megamorphic: {stats}");
}

#[test]
fn jit_stats_and_dumps() {
    let (_, stderr, status) = run("local function f(x) return x + 1 end print(f(1))", &["--tier=baseline", "--jit-stats"]);
    assert_eq!(status, Some(0));
    let stats = stderr.lines().last().unwrap_or_default();
    for key in ["\"functions\": 2", "\"bytecodes\": ", "\"code_bytes\": ", "\"compile_seconds\": "] {
        assert!(stats.contains(key), "{key} missing from {stats}");
    }
    let (stdout, _, status) = run("local function f(x) return x + 1 end print(f(1))", &["--tier=baseline", "--dump-jit"]);
    assert_eq!(status, Some(0));
    assert!(stdout.contains("function <") && stdout.contains("Return") && stdout.contains("jmp"), "{stdout}");
    let (stdout, _, status) = run("", &["--dump-stencils"]);
    assert_eq!(status, Some(0));
    assert!(stdout.contains("__deegen_jit_op_") && stdout.contains("# hole: "), "the stencils are listed with their holes");
}

/// `--perf-map` names every compiled bytecode's code (and the helpers) in perf's map format,
/// `/tmp/perf-PID.map`, at the addresses `--dump-jit` would list, in anonymous memory (perf
/// reads the map only for samples there: in the usual memory-file mapping they stay unnamed).
#[test]
fn perf_map_names_the_jit_code() {
    use std::io::Write as _;
    let ljr = env!("CARGO_BIN_EXE_ljr");
    // Waits for a line on stdin once its code is compiled, so that its mappings can be read.
    let program = "local function add(x) return x + 1 end print(add(1)) io.stdout:flush() io.read()";
    let mut child = Command::new(ljr)
        .args(["--tier=baseline", "--perf-map", "-e", program])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("ljr runs");
    let path = format!("/tmp/perf-{}.map", child.id());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.as_mut().expect("piped")), &mut first).expect("ljr prints");
    assert_eq!(first, "2\n");
    // Each mapping's range and path (empty for anonymous memory).
    let maps: Vec<(u64, u64, String)> = std::fs::read_to_string(format!("/proc/{}/maps", child.id()))
        .expect("ljr's mappings")
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (a, b) = parts.next()?.split_once('-')?;
            Some((u64::from_str_radix(a, 16).ok()?, u64::from_str_radix(b, 16).ok()?, parts.nth(4).unwrap_or("").to_owned()))
        })
        .collect();
    child.stdin.take().expect("piped").write_all(b"\n").expect("ljr reads");
    let status = child.wait_with_output().expect("ljr exits").status;
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(&path).expect("the map is written at exit");
    let _ = std::fs::remove_file(&path);
    let mut previous_end = 0;
    let mut entries: Vec<(u64, u64, &str)> = Vec::new();
    for line in text.lines() {
        let mut fields = line.splitn(3, ' ');
        let (start, size, name) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        let (Ok(start), Ok(size)) = (u64::from_str_radix(start, 16), u64::from_str_radix(size, 16)) else { panic!("{line}") };
        assert!(size > 0 && (name.starts_with("lua ") || name.starts_with("jit-helper ")), "{line}");
        entries.push((start, size, name));
    }
    entries.sort();
    for (start, size, name) in &entries {
        assert!(*start >= previous_end, "symbols overlap at {name}");
        previous_end = start + size;
        let mapping = maps.iter().find(|(lo, hi, _)| lo <= start && start + size <= *hi);
        assert!(mapping.is_some_and(|(_, _, path)| path.is_empty()), "{name} is not in anonymous memory: {mapping:?}");
    }
    assert!(entries.iter().any(|(_, _, n)| n.contains("] Add_SC") && n.contains("(line 1)")), "{text}");
    assert!(entries.iter().any(|(_, _, n)| n.starts_with("jit-helper __deegen_jit_op_")), "{text}");
}
