//! Running out of memory is Lua's "not enough memory" error, never an abort (its own test
//! binary: `memory.rs` measures its children's peak RSS, which these would spoil).

use std::process::Command;

/// Running out of memory is Lua's "not enough memory" error, never an abort: each program
/// grows one kind of storage (a table's array part, its hash part, its named slots, strings)
/// or a string builder's result, until a 2 GiB address-space limit (`ulimit -v`) makes an
/// allocation fail, first at the top
/// level and then under `pcall`, which catches the error and lets the program go on.
#[test]
fn running_out_of_memory_is_an_error() {
    let ljr = env!("CARGO_BIN_EXE_ljr");
    let growths = [
        "local t = {} for i = 1, 1e9 do t[i] = i end",
        "local t = {} for i = 1, 1e9 do t[i * 2] = i end",
        "local t = {} for i = 1, 1e9 do t['k' .. i] = i end",
        "local t = {} for i = 1, 1e9 do table.insert(t, i) end",
        "local s = 'x' for i = 1, 64 do s = s .. s end",
        "local t = {} for i = 1, 40 do t[i] = string.rep('y', 2^i) end print(#table.concat(t))",
        // The library's string builders (5.1's luaL_Buffer) grow fallibly too.
        "local s = string.rep('y', 2^20) for i = 1, 40 do s = s:gsub('y+', '%0%0') end",
        "local s = string.rep('y', 2^20) for i = 1, 40 do s = string.format('%s%q', s, s) end",
        "local s = string.rep('y', 2^24) local t = {} for i = 1, 1000 do t[i] = (s .. i):upper():reverse() end",
    ];
    for growth in growths {
        for program in [growth.to_owned(), format!("print(pcall(function() {growth} end)) print('after')")] {
            let out = Command::new("sh").arg("-c").arg("ulimit -v 2000000; exec \"$0\" -e \"$1\"").arg(ljr).arg(&program).output().expect("sh runs");
            let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.code().is_some(), "{program}: killed by a signal; stderr: {stderr}");
            if program.starts_with("print(pcall") {
                assert_eq!(stdout, "false\tnot enough memory\nafter\n", "{program}: stderr {stderr}");
            } else {
                assert_eq!(out.status.code(), Some(1), "{program}");
                assert!(stderr.starts_with("ljr: not enough memory"), "{program}: {stderr}");
            }
        }
    }
}
