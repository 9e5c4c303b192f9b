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

/// Running out of memory while a chunk is parsed and compiled (its tree is Rust's boxed nodes
/// and growing vectors, whose allocations cannot fail gracefully by themselves) is "not enough
/// memory" too: from `loadstring` and from `load` with a reader function, which return it,
/// after which the program loads and runs other chunks; and for the script itself, a file of
/// one statement too large to parse under the limit.
#[test]
fn running_out_of_memory_while_loading_is_an_error() {
    let ljr = env!("CARGO_BIN_EXE_ljr");
    let limited = |args: &[&str]| {
        let out = Command::new("sh").arg("-c").arg("ulimit -v 2000000; exec \"$0\" \"$@\"").arg(ljr).args(args).output().expect("sh runs");
        assert!(out.status.code().is_some(), "{args:?}: killed by a signal; stderr: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    // 24 MB of source: a table constructor of four million small tables.
    let program = "local parts = {} for i = 1, 4000000 do parts[i] = '{1, 2},' end \
        local src = 'return {' .. table.concat(parts) .. '}' parts = nil collectgarbage() \
        print(loadstring(src)) src = nil collectgarbage() \
        print(loadstring('return 1 + 1')()) print(pcall(loadstring, string.rep('x = 1 ', 10)))";
    let out = limited(&["-e", program]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().next(), Some("nil\tnot enough memory"), "stdout {stdout}, stderr {stderr}");
    assert_eq!(stdout.lines().nth(1), Some("2"), "stdout {stdout}, stderr {stderr}");
    assert!(stdout.lines().nth(2).is_some_and(|l| l.starts_with("true\tfunction: ")), "stdout {stdout}, stderr {stderr}");

    // The same through `load` with a reader function, which parses the pieces as it reads
    // them and compiles after.
    let program = "local piece = string.rep('{1, 2},', 100000) local n = 0 \
        local f, e = load(function() n = n + 1 \
          if n == 1 then return 'return {' elseif n <= 42 then return piece elseif n == 43 then return '}' end end) \
        print(f, e) print(loadstring('return 1 + 1')())";
    let out = limited(&["-e", program]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout, "nil\tnot enough memory\n2\n", "stderr {stderr}");

    let dir = std::env::temp_dir().join(format!("ljr-oom-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join("big.lua");
    let mut source = String::with_capacity(25 << 20);
    source.push_str("local data = {\n");
    for _ in 0..4_000_000 {
        source.push_str("{1, 2},\n");
    }
    source.push_str("}\nprint(#data)\n");
    std::fs::write(&path, source).expect("the script is written");
    let out = limited(&[path.to_str().expect("a UTF-8 path")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr {stderr}");
    assert!(stderr.starts_with("ljr: not enough memory"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
