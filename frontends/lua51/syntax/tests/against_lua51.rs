//! Differential test against the reference interpreter: thousands of
//! generated programs (valid, mutated, token soups, garbage bytes, truncated
//! prefixes) are compiled by `lua5.1` (`loadstring(src, "=t.lua")`) and by
//! this crate, and the outcomes must be identical: both accept, or both
//! reject with byte-identical messages. Skipped when `lua5.1` is not on PATH.
//!
//! `LUA51_DIFF_SEED` and `LUA51_DIFF_COUNT` change the random inputs for
//! longer runs.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Rng;
use lua51_syntax::{parse_chunk_with, ParseOptions};

/// Compiles every snippet with lua5.1 in one process; `None` = accepted.
/// Snippets and results are length-prefixed so any bytes pass through.
fn lua51_results(snippets: &[Vec<u8>]) -> Option<Vec<Option<Vec<u8>>>> {
    const DRIVER: &str = r#"
local data = io.read("*a")
local pos, out = 1, {}
while pos <= #data do
  local nl = string.find(data, "\n", pos, true)
  local len = tonumber(string.sub(data, pos, nl - 1))
  local src = string.sub(data, nl + 1, nl + len)
  pos = nl + len + 1
  local fn, err = loadstring(src, "=t.lua")
  if fn then out[#out + 1] = "-\n" else out[#out + 1] = #err .. "\n" .. err end
end
io.write(table.concat(out))
"#;
    let mut child = Command::new("lua5.1")
        .arg("-e")
        .arg(DRIVER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut input = Vec::new();
    for s in snippets {
        input.extend_from_slice(format!("{}\n", s.len()).as_bytes());
        input.extend_from_slice(s);
    }
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("lua5.1 runs");
    writer
        .join()
        .expect("writer thread")
        .expect("write to lua5.1");
    assert!(output.status.success(), "lua5.1 driver failed");
    let out = output.stdout;
    let mut results = Vec::new();
    let mut pos = 0;
    while pos < out.len() {
        let nl = pos
            + out[pos..]
                .iter()
                .position(|&b| b == b'\n')
                .expect("framing");
        let head = std::str::from_utf8(&out[pos..nl]).expect("framing");
        if head == "-" {
            results.push(None);
            pos = nl + 1;
        } else {
            let len: usize = head.parse().expect("framing");
            results.push(Some(out[nl + 1..nl + 1 + len].to_vec()));
            pos = nl + 1 + len;
        }
    }
    assert_eq!(results.len(), snippets.len());
    Some(results)
}

fn ours(src: &[u8]) -> Option<Vec<u8>> {
    // loadstring: no shebang skipping; called from lua5.1's main chunk, one
    // C call deeper than a script file.
    let opts = ParseOptions {
        skip_shebang: false,
        c_calls: 2,
    };
    parse_chunk_with(src, "t.lua", &opts)
        .err()
        .map(|e| e.to_bytes())
}

fn compare(snippets: Vec<Vec<u8>>) {
    let Some(expected) = lua51_results(&snippets) else {
        eprintln!("lua5.1 not found on PATH: skipping the differential test");
        return;
    };
    let mut mismatches = Vec::new();
    let mut rejected = 0;
    for (src, want) in snippets.iter().zip(&expected) {
        let got = ours(src);
        rejected += usize::from(want.is_some());
        if &got != want {
            mismatches.push(format!(
                "source {:?}\n  lua5.1: {:?}\n  ours:   {:?}",
                String::from_utf8_lossy(src),
                want.as_ref()
                    .map(|m| String::from_utf8_lossy(m).into_owned()),
                got.as_ref()
                    .map(|m| String::from_utf8_lossy(m).into_owned()),
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} snippets differ from lua5.1:\n{}",
        mismatches.len(),
        snippets.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    let mut kinds: Vec<String> = expected
        .iter()
        .flatten()
        .map(|m| {
            let m = String::from_utf8_lossy(m);
            let m = m.split_once(": ").map_or(&*m, |(_, rest)| rest);
            m.split(" near ").next().unwrap_or(m).to_string()
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    eprintln!(
        "{} snippets, {rejected} rejected, {} distinct messages: {kinds:?}",
        snippets.len(),
        kinds.len()
    );
    // The inputs must exercise both outcomes to mean anything.
    assert!(
        rejected > 0 && rejected < snippets.len(),
        "{rejected} of {}",
        snippets.len()
    );
}

#[test]
fn generated_programs_match_lua51() {
    let seed = std::env::var("LUA51_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(51);
    let count = std::env::var("LUA51_DIFF_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000);
    let mut rng = Rng::new(seed);
    let snippets = (0..count).map(|_| common::program(&mut rng)).collect();
    compare(snippets);
}

#[test]
fn token_soups_and_garbage_match_lua51() {
    let seed = std::env::var("LUA51_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5150);
    let count = std::env::var("LUA51_DIFF_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    let mut rng = Rng::new(seed);
    let mut snippets: Vec<Vec<u8>> = (0..count).map(|_| common::token_soup(&mut rng)).collect();
    snippets.extend((0..count).map(|_| common::garbage(&mut rng)));
    compare(snippets);
}

#[test]
fn truncated_programs_match_lua51() {
    let mut snippets = Vec::new();
    for p in common::VALID_PROGRAMS {
        // loadstring does not skip `#!`, so drop that line here.
        let p = p
            .strip_prefix("#!/usr/bin/env lua\n")
            .unwrap_or(p)
            .as_bytes();
        for end in 0..=p.len() {
            snippets.push(p[..end].to_vec());
        }
    }
    compare(snippets);
}

#[test]
fn nesting_limits_match_lua51() {
    let mut snippets = Vec::new();
    for n in [190, 195, 196, 197, 198, 199, 200, 250] {
        snippets.push(format!("x = {}1{}", "(".repeat(n), ")".repeat(n)).into_bytes());
        snippets.push(format!("{}{}", "do ".repeat(n), " end".repeat(n)).into_bytes());
        snippets.push(format!("x = {}{}", "{".repeat(n), "}".repeat(n)).into_bytes());
        snippets.push(format!("x = 1{}", " .. 1".repeat(n)).into_bytes());
        snippets.push(format!("x = {}", "- ".repeat(n) + "1").into_bytes());
        let names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
        snippets.push(format!("{} = 1", names.join(",")).into_bytes());
        snippets.push(format!("local {}", names.join(",")).into_bytes());
    }
    for n in [48, 49, 50, 51, 98, 99, 100] {
        snippets.push(
            format!("x = {}{}", "function() return ".repeat(n), "end ".repeat(n)).into_bytes(),
        );
    }
    compare(snippets);
}
