//! Precompiled chunks from outside cannot crash `ljr`: dumps of real functions are damaged at
//! random (bytes flipped, replaced, swapped), and every damaged dump the loader accepts is run
//! in its own `ljr` process, which must end with an exit status (a Lua error is fine; a loop
//! that never ends is stopped after a few seconds), never by a signal. This is the run-time
//! half of the verifier's tests (`lua51_vm::dump`): it checks that what the verifier lets
//! through is safe to run. `LJR_DUMP_FUZZ_CASES` sets how many damaged dumps are tried
//! (default 3000; a few dozen are accepted and run).

use std::path::Path;
use std::time::Duration;

use lua51_testsuite::process::{run, Exit, Invocation};

const DRIVER: &str = r#"
local out, cases, seed = ...
cases, seed = tonumber(cases), tonumber(seed)
math.randomseed(seed)
local sources = {
  "local a, b = ... local t = {a, b, ...} for i = 1, #t do b = (b or 0) .. tostring(t[i]) end return b, select('#', ...)",
  "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end return fib(10)",
  "local t = setmetatable({}, {__index = function(_, k) return k * 2 end}) local s = 0 for i = 1, 10 do s = s + t[i] end return s",
  "local x = 0 for k, v in pairs({a = 1, b = 2, 3}) do x = x + v end local s = string.rep('a', 3) .. x return s:upper(), #s",
  "local function f(...) return ... end local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return f(a, b) end) return co(1), co(2)",
  "local up = 1 local function g(y) up = up + y return up end return g(2), g(3), pcall(error, {})",
}
local dumps = {}
for i, s in ipairs(sources) do dumps[i] = string.dump(assert(loadstring(s))) end
local accepted = 0
for case = 1, cases do
  local d = dumps[math.random(#dumps)]
  local bytes = {d:byte(1, -1)}
  for _ = 1, math.random(1, 4) do
    local i = math.random(7, #bytes)
    local r = math.random(3)
    if r == 1 then bytes[i] = math.random(0, 255)
    elseif r == 2 then bytes[i] = (bytes[i] + math.random(1, 3)) % 256
    else local j = math.random(7, #bytes) bytes[i], bytes[j] = bytes[j], bytes[i] end
  end
  local m = string.char(unpack(bytes))
  if loadstring(m) then
    accepted = accepted + 1
    local f = assert(io.open(out .. "/case" .. accepted .. ".luac", "wb"))
    f:write(m)
    f:close()
  end
end
print(accepted)
"#;

#[test]
fn damaged_dumps_that_load_run_without_crashing() {
    let ljr = Path::new(env!("CARGO_BIN_EXE_ljr"));
    let cases: u64 = std::env::var("LJR_DUMP_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let dir = std::env::temp_dir().join(format!("ljr-dump-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let driver = dir.join("driver.lua");
    std::fs::write(&driver, DRIVER).unwrap();
    let invocation = |args: Vec<std::ffi::OsString>, timeout| Invocation {
        program: ljr.to_path_buf(),
        args,
        cwd: dir.clone(),
        stdin: None,
        timeout,
        env: Vec::new(),
    };
    let made = run(&invocation(vec![driver.into(), dir.clone().into(), cases.to_string().into(), "7".into()], Duration::from_secs(120))).unwrap();
    assert_eq!(made.exit, Exit::Code(0), "the driver failed: {}", String::from_utf8_lossy(&made.stderr));
    let accepted: usize = String::from_utf8_lossy(&made.stdout).trim().parse().unwrap();
    let mut crashes = Vec::new();
    for i in 1..=accepted {
        let case = dir.join(format!("case{i}.luac"));
        let out = run(&invocation(vec![case.clone().into()], Duration::from_secs(5))).unwrap();
        if let Exit::Signal(s) = out.exit {
            crashes.push(format!("{} died of signal {s}: {}", case.display(), String::from_utf8_lossy(&out.stderr)));
        }
    }
    if crashes.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        crashes.is_empty(),
        "{} of {accepted} accepted damaged dumps crashed ljr (kept in {}):\n{}",
        crashes.len(),
        dir.display(),
        crashes.join("\n")
    );
    assert!(accepted > 0, "no damaged dump was accepted: the test ran nothing");
}
