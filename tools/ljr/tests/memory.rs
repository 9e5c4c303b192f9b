//! Allocation-heavy programs must run in bounded memory: each runs in a child `ljr` whose peak
//! resident set (`getrusage`'s `ru_maxrss`) must stay under a bound far below what a leak of
//! the objects involved would reach. Each program creates garbage that used to leak:
//! suspended coroutines (their stacks), compiled chunks (`loadstring`), native iterator
//! closures (`gmatch`), plain tables and strings, and large tables grown element by element.

use std::process::Command;

#[repr(C)]
struct RUsage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss: i64,
    rest: [i64; 13],
}

extern "C" {
    fn getrusage(who: i32, usage: *mut RUsage) -> i32;
}

const RUSAGE_CHILDREN: i32 = -1;

/// Peak RSS in KiB of the largest child waited for so far.
fn children_max_rss_kib() -> i64 {
    let mut u = RUsage { utime: [0; 2], stime: [0; 2], maxrss: 0, rest: [0; 13] };
    assert_eq!(unsafe { getrusage(RUSAGE_CHILDREN, &mut u) }, 0);
    u.maxrss
}

fn run(name: &str, program: &str) -> i64 {
    let out = Command::new(env!("CARGO_BIN_EXE_ljr")).arg("-e").arg(program).output().expect("ljr runs");
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "done", "{name}");
    children_max_rss_kib()
}

#[test]
fn garbage_heavy_programs_run_in_bounded_memory() {
    // 150 MiB: each program below allocates at least ten times that over its run.
    const BOUND_KIB: i64 = 150 * 1024;
    let programs = [
        ("suspended coroutines", "for i = 1, 30000 do local co = coroutine.wrap(function() coroutine.yield(i) end) co() end print('done')"),
        (
            "compiled chunks",
            "for i = 1, 30000 do local f = loadstring('local a = ... return function() return a + ' .. i .. ' end') f(i)() end print('done')",
        ),
        ("native iterators", "for i = 1, 2000000 do local it = ('ab'):gmatch('%a') it() end print('done')"),
        ("tables and strings", "for i = 1, 3000000 do local t = {i, tostring(i), {x = i}} end print('done')"),
        // Big arrays made by few allocations: their storage must count toward the debt.
        ("large tables", "for i = 1, 300 do local t = {} for j = 1, 300000 do t[j] = j end end print('done')"),
    ];
    for (name, program) in programs {
        let peak = run(name, program);
        assert!(peak < BOUND_KIB, "{name}: peak RSS {peak} KiB (bound {BOUND_KIB} KiB)");
    }
}
