//! Dynamic quickening at run time: after a chunk ran, `--dump-bytecode-after` shows each table
//! bytecode rewritten to the quickened variant of the kind its cache holds (the kinds of
//! `lua51_value::string_slot_cached_fused`: 0 inline slots, 1 inline with a metatable, 2 out of
//! line, 3 out of line with a metatable). The answers themselves are the corpus's business
//! (`lang/tables/quickened_field_caches.lua`); this checks the opcodes really change.

use std::process::Command;

const SCRIPT: &str = r#"
local function get_plain(o) return o.x end
local function get_meta(o) return o.x end
local function get_big(o) return o.x end
local function get_big_meta(o) return o.x end
local function set_plain(o) o.x = 5 end
local function globals(v) g = v return g end
local function get_flip(o) return o.x end
local plain = {x = 1}
local meta = setmetatable({x = 2}, {})
local big = {} for i = 1, 10 do big["k" .. i] = i end big.x = 3
local big_meta = setmetatable({}, {}) for i = 1, 10 do big_meta["k" .. i] = i end big_meta.x = 4
for _ = 1, 3 do
  print(get_plain(plain), get_meta(meta), get_big(big), get_big_meta(big_meta), set_plain(plain), globals(7), get_flip(plain), get_flip(big))
end
"#;

/// The opcode of the first instruction of each function the script defines, in order.
fn first_opcodes(dump: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = dump.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("function <") && !line.contains(":0>") {
            let first = lines.peek().expect("a function has instructions");
            out.push(first.split_whitespace().nth(1).expect("pc, then the opcode").to_owned());
        }
    }
    out
}

#[test]
fn table_bytecodes_quicken_to_the_kind_they_cached() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ljr")).args(args).arg("-e").arg(SCRIPT.replace('\n', " ")).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let before = run(&["--dump-bytecode"]);
    assert!(!before.contains("_fused_ic_"), "nothing is quickened before running\n{before}");
    let after = run(&["--dump-bytecode-after"]);
    assert_eq!(
        first_opcodes(&after),
        [
            "GetField_fused_ic_0", // inline, no metatable
            "GetField_fused_ic_1", // inline, metatable
            "GetField_fused_ic_2", // out of line
            "GetField_fused_ic_3", // out of line, metatable
            "SetField_C_fused_ic_0",
            "SetGlobal_fused_ic_2", // the globals are a dictionary
            "GetField_fused_ic_2",  // the last table it saw was `big`
        ],
        "\n{after}"
    );
    assert!(after.contains("GetGlobal_fused_ic_2"), "{after}");
}
