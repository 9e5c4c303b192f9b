//! Differential tests against the reference interpreter (skipped when
//! `lua5.1` is not on PATH):
//!
//! * thousands of generated programs (valid, mutated, token soups, garbage
//!   bytes, truncated prefixes, nesting limits) are compiled by `lua5.1`
//!   (`loadstring(src, "=t.lua")`) and by this crate: both must accept, or
//!   both reject with byte-identical messages;
//! * random numeric/boolean expressions are evaluated by lua5.1 and by a tiny
//!   evaluator over our AST, which checks precedence and associativity;
//! * numerals and string literals (every escape, long brackets, all bytes)
//!   must produce the values lua5.1 produces.
//!
//! `LUA51_DIFF_SEED` and `LUA51_DIFF_COUNT` change the random inputs for
//! longer runs.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Rng;
use lua51_syntax::*;

/// Runs `per_snippet` (Lua code that turns the local `src` into the string
/// `res`) on every snippet in one lua5.1 process and returns the results.
/// Snippets and results are length-prefixed so any bytes pass through.
/// `None` when lua5.1 is not installed.
fn run_lua51(per_snippet: &str, snippets: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    let driver = format!(
        r#"
local data = io.read("*a")
local pos, out = 1, {{}}
while pos <= #data do
  local nl = string.find(data, "\n", pos, true)
  local len = tonumber(string.sub(data, pos, nl - 1))
  local src = string.sub(data, nl + 1, nl + len)
  pos = nl + len + 1
  local res
  {per_snippet}
  out[#out + 1] = #res .. "\n" .. res
end
io.write(table.concat(out))
"#
    );
    let mut child = Command::new("lua5.1").arg("-e").arg(driver).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().ok()?;
    let mut input = Vec::new();
    for s in snippets {
        input.extend_from_slice(format!("{}\n", s.len()).as_bytes());
        input.extend_from_slice(s);
    }
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("lua5.1 runs");
    writer.join().expect("writer thread").expect("write to lua5.1");
    assert!(output.status.success(), "lua5.1 driver failed");
    let out = output.stdout;
    let mut results = Vec::new();
    let mut pos = 0;
    while pos < out.len() {
        let nl = pos + out[pos..].iter().position(|&b| b == b'\n').expect("framing");
        let len: usize = std::str::from_utf8(&out[pos..nl]).expect("framing").parse().expect("framing");
        results.push(out[nl + 1..nl + 1 + len].to_vec());
        pos = nl + 1 + len;
    }
    assert_eq!(results.len(), snippets.len());
    Some(results)
}

/// Compiles every snippet with lua5.1; `None` = accepted, else the message.
fn lua51_results(snippets: &[Vec<u8>]) -> Option<Vec<Option<Vec<u8>>>> {
    let results = run_lua51(
        r#"local fn, err = loadstring(src, "=t.lua")
  res = fn and "" or ("E" .. err)"#,
        snippets,
    )?;
    Some(results.into_iter().map(|r| (!r.is_empty()).then(|| r[1..].to_vec())).collect())
}

/// A number from the environment (for longer differential runs), or `default`.
fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn ours(src: &[u8]) -> Option<Vec<u8>> {
    // loadstring: no shebang skipping; called from lua5.1's main chunk, one
    // C call deeper than a script file.
    let opts = ParseOptions { skip_shebang: false, c_calls: 2, out_of_memory: None };
    parse_chunk_with(src, "t.lua", &opts).err().map(|e| e.to_bytes())
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
                want.as_ref().map(|m| String::from_utf8_lossy(m).into_owned()),
                got.as_ref().map(|m| String::from_utf8_lossy(m).into_owned()),
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
    eprintln!("{} snippets, {rejected} rejected, {} distinct messages: {kinds:?}", snippets.len(), kinds.len());
    // The inputs must exercise both outcomes to mean anything.
    assert!(rejected > 0 && rejected < snippets.len(), "{rejected} of {}", snippets.len());
}

#[test]
fn generated_programs_match_lua51() {
    let mut rng = Rng::new(env_or("LUA51_DIFF_SEED", 51));
    let count = env_or("LUA51_DIFF_COUNT", 4000);
    let snippets = (0..count).map(|_| common::program(&mut rng)).collect();
    compare(snippets);
}

#[test]
fn token_soups_and_garbage_match_lua51() {
    let mut rng = Rng::new(env_or("LUA51_DIFF_SEED", 5150));
    let count = env_or("LUA51_DIFF_COUNT", 3000);
    let mut snippets: Vec<Vec<u8>> = (0..count).map(|_| common::token_soup(&mut rng)).collect();
    snippets.extend((0..count).map(|_| common::garbage(&mut rng)));
    compare(snippets);
}

#[test]
fn truncated_programs_match_lua51() {
    let mut snippets = Vec::new();
    for p in common::VALID_PROGRAMS {
        // loadstring does not skip `#!`, so drop that line here.
        let p = p.strip_prefix("#!/usr/bin/env lua\n").unwrap_or(p).as_bytes();
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
        snippets.push(format!("x = {}{}", "function() return ".repeat(n), "end ".repeat(n)).into_bytes());
    }
    compare(snippets);
}

/// Evaluates `return <expr>` snippets in lua5.1: `n` + `%.17g` for numbers,
/// `b` + `true`/`false` for booleans, `s` + the bytes for strings, `e` for a
/// runtime error, `c` + the message for a compile error (chunk name `t`).
fn lua51_values(snippets: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    run_lua51(
        r#"local f, err = loadstring(src, "=t")
  local ok, v
  if f then ok, v = pcall(f) end
  if not f then res = "c" .. err
  elseif not ok then res = "e"
  elseif type(v) == "number" then res = "n" .. string.format("%.17g", v)
  elseif type(v) == "boolean" then res = "b" .. tostring(v)
  elseif type(v) == "string" then res = "s" .. v
  else res = "x" .. tostring(v) end"#,
        snippets,
    )
}

#[derive(Debug, Clone, Copy)]
enum Value {
    Num(f64),
    Bool(bool),
}

/// A tiny evaluator for numeric/boolean expressions with Lua 5.1 semantics,
/// to check that precedence and associativity match the reference. `None`
/// is a runtime type error (arithmetic or ordering on booleans).
fn eval(e: &Expr) -> Option<Value> {
    use Value::*;
    let num = |e: &Expr| match eval(e)? {
        Num(n) => Some(n),
        Bool(_) => None,
    };
    let truthy = |v: Value| !matches!(v, Bool(false));
    Some(match &e.kind {
        ExprKind::Number(n) => Num(*n),
        ExprKind::True => Bool(true),
        ExprKind::False => Bool(false),
        ExprKind::Paren(inner) => eval(inner)?,
        ExprKind::Unary { op, operand } => match op {
            UnOp::Neg => Num(-num(operand)?),
            UnOp::Not => Bool(!truthy(eval(operand)?)),
            UnOp::Len => panic!("no # in generated expressions"),
        },
        ExprKind::Binary { op, lhs, rhs } => match op {
            BinOp::And => {
                let l = eval(lhs)?;
                if truthy(l) {
                    eval(rhs)?
                } else {
                    l
                }
            }
            BinOp::Or => {
                let l = eval(lhs)?;
                if truthy(l) {
                    l
                } else {
                    eval(rhs)?
                }
            }
            BinOp::Eq | BinOp::Ne => {
                let eq = match (eval(lhs)?, eval(rhs)?) {
                    (Num(a), Num(b)) => a == b,
                    (Bool(a), Bool(b)) => a == b,
                    _ => false,
                };
                Bool(eq == (*op == BinOp::Eq))
            }
            _ => {
                let (a, b) = (num(lhs)?, num(rhs)?);
                match op {
                    BinOp::Add => Num(a + b),
                    BinOp::Sub => Num(a - b),
                    BinOp::Mul => Num(a * b),
                    BinOp::Div => Num(a / b),
                    BinOp::Mod => Num(a - (a / b).floor() * b),
                    BinOp::Pow => Num(a.powf(b)),
                    BinOp::Lt => Bool(a < b),
                    BinOp::Le => Bool(a <= b),
                    BinOp::Gt => Bool(a > b),
                    BinOp::Ge => Bool(a >= b),
                    _ => unreachable!(),
                }
            }
        },
        other => panic!("unexpected expression {other:?}"),
    })
}

/// Random expressions that are well typed in Lua: numbers with arithmetic,
/// booleans with comparisons, `==`/`~=`, `not`, `and`/`or`.
fn gen_num(rng: &mut Rng, depth: usize, out: &mut String) {
    let leaf = depth == 0 || rng.chance(25);
    if leaf {
        out.push_str(rng.pick_str(&["1", "2", "3", "0.5", "10", "0x10", "2e1", ".25", "7"]));
        return;
    }
    match rng.below(4) {
        0 => {
            out.push('-');
            let mut operand = String::new();
            gen_num(rng, depth - 1, &mut operand);
            // `--` would start a comment.
            if operand.starts_with('-') || rng.chance(50) {
                out.push(' ');
            }
            out.push_str(&operand);
        }
        1 => {
            out.push('(');
            gen_num(rng, depth - 1, out);
            out.push(')');
        }
        _ => {
            gen_num(rng, depth - 1, out);
            out.push_str(rng.pick_str(&[" + ", " - ", " * ", " / ", " % ", " ^ ", "+", "-", "*", "^"]));
            let mut rhs = String::new();
            gen_num(rng, depth - 1, &mut rhs);
            if out.ends_with('-') && rhs.starts_with('-') {
                out.push(' ');
            }
            out.push_str(&rhs);
        }
    }
}

fn gen_bool(rng: &mut Rng, depth: usize, out: &mut String) {
    if depth == 0 || rng.chance(15) {
        out.push_str(rng.pick_str(&["true", "false"]));
        return;
    }
    match rng.below(6) {
        0 => {
            out.push_str("not ");
            gen_bool(rng, depth - 1, out);
        }
        1 => {
            out.push('(');
            gen_bool(rng, depth - 1, out);
            out.push(')');
        }
        2 => {
            gen_num(rng, depth - 1, out);
            out.push_str(rng.pick_str(&[" < ", " <= ", " > ", " >= ", " == ", " ~= "]));
            gen_num(rng, depth - 1, out);
        }
        3 => {
            gen_bool(rng, depth - 1, out);
            out.push_str(rng.pick_str(&[" == ", " ~= "]));
            gen_bool(rng, depth - 1, out);
        }
        _ => {
            gen_bool(rng, depth - 1, out);
            out.push_str(rng.pick_str(&[" and ", " or "]));
            gen_bool(rng, depth - 1, out);
        }
    }
}

fn same_value(ours: Option<Value>, lua: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&lua[1..]);
    match (ours, lua[0]) {
        (None, b'e') => true,
        (Some(Value::Num(n)), b'n') => {
            if text.contains("nan") {
                n.is_nan()
            } else {
                text.parse::<f64>().is_ok_and(|l| l.to_bits() == n.to_bits())
            }
        }
        (Some(Value::Bool(b)), b'b') => text == if b { "true" } else { "false" },
        _ => false,
    }
}

#[test]
fn precedence_evaluates_like_lua51() {
    let mut rng = Rng::new(env_or("LUA51_DIFF_SEED", 99));
    let mut sources = Vec::new();
    for i in 0..env_or("LUA51_DIFF_COUNT", 3000) {
        let mut e = String::new();
        if i % 2 == 0 {
            gen_num(&mut rng, 5, &mut e);
        } else {
            gen_bool(&mut rng, 4, &mut e);
        }
        sources.push(format!("return {e}").into_bytes());
    }
    let Some(expected) = lua51_values(&sources) else {
        eprintln!("lua5.1 not found on PATH: skipping");
        return;
    };
    let mut bad = Vec::new();
    let mut errors = 0;
    for (src, lua) in sources.iter().zip(&expected) {
        errors += usize::from(lua[0] == b'e');
        let chunk = parse_chunk(src, "t").expect("generated expressions are valid");
        let StatKind::Return(values) = &chunk.body.stats[0].kind else { panic!() };
        let v = eval(&values[0]);
        if !same_value(v, lua) {
            bad.push(format!("{} => lua5.1 {:?}, ours {v:?} from {}", String::from_utf8_lossy(src), String::from_utf8_lossy(lua), values[0]));
        }
    }
    assert!(bad.is_empty(), "{} differ:\n{}", bad.len(), bad[..bad.len().min(10)].join("\n"));
    // Most expressions must evaluate (type errors are compared too, but say less).
    assert!(errors < sources.len() / 3, "{errors} of {} are type errors", sources.len());
}

#[test]
fn literals_match_lua51() {
    let mut rng = Rng::new(1234);
    let mut sources: Vec<Vec<u8>> = Vec::new();
    // Numerals in every accepted form.
    for lit in [
        "0",
        "1",
        "007",
        "3.",
        ".5",
        "3.25",
        "1e10",
        "1E+10",
        "1e-10",
        "2.5e3",
        "0x0",
        "0xff",
        "0XAB",
        "0x7fffffffffffffff",
        "0x1p4",
        "0xAP2",
        "1e308",
        "1e309",
        "4.9e-324",
        "1e-400",
        "123456789012345678901234567890",
        "0.1",
        "0.30000000000000004",
        "9007199254740993",
        "0x1fffffffffffff",
        "0x20000000000001",
        "2.2250738585072011e-308",
    ] {
        sources.push(format!("return {lit}").into_bytes());
    }
    // Random short strings with escapes, and long strings, over all bytes.
    for _ in 0..500 {
        let mut src = b"return ".to_vec();
        let quote = *rng.pick(b"'\"");
        src.push(quote);
        for _ in 0..rng.below(12) {
            match rng.below(6) {
                0 => src.extend_from_slice(rng.pick::<&[u8]>(&[
                    &b"\\a"[..],
                    b"\\b",
                    b"\\f",
                    b"\\n",
                    b"\\r",
                    b"\\t",
                    b"\\v",
                    b"\\\\",
                    b"\\\"",
                    b"\\'",
                    b"\\\n",
                    b"\\\r\n",
                    b"\\q",
                    b"\\[",
                ])),
                // A short decimal escape must not run into a following digit.
                1 => src.extend_from_slice(format!("\\{}z", rng.below(256)).as_bytes()),
                2 => src.extend_from_slice(format!("\\{:03}", rng.below(256)).as_bytes()),
                _ => {
                    let c = rng.below(256) as u8;
                    if c != quote && c != b'\\' && c != b'\n' && c != b'\r' {
                        src.push(c);
                    }
                }
            }
        }
        src.push(quote);
        sources.push(src);
    }
    for _ in 0..200 {
        let level = "=".repeat(rng.below(3));
        let mut src = format!("return [{level}[").into_bytes();
        for _ in 0..rng.below(12) {
            let piece: &[u8] = rng.pick::<&[u8]>(&[&b"a"[..], b"\n", b"\r\n", b"\n\r", b"\r", b"]", b"]=]", b"\\", b"\0", b"\xff"]);
            src.extend_from_slice(piece);
        }
        src.extend_from_slice(format!("]{level}]").as_bytes());
        sources.push(src);
    }
    let Some(expected) = lua51_values(&sources) else {
        eprintln!("lua5.1 not found on PATH: skipping");
        return;
    };
    let mut compile_errors = 0;
    for (src, lua) in sources.iter().zip(&expected) {
        let opts = ParseOptions { skip_shebang: false, c_calls: 2, out_of_memory: None };
        let parsed = parse_chunk_with(src, "t", &opts);
        if lua[0] == b'c' {
            // Random long-string contents can close the string early or nest `[[`.
            compile_errors += 1;
            let ours = parsed.err().map(|e| e.to_bytes());
            assert_eq!(ours.as_deref(), Some(&lua[1..]), "{:?}", String::from_utf8_lossy(src));
            continue;
        }
        let chunk = parsed.unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(src)));
        let StatKind::Return(values) = &chunk.body.stats[0].kind else { panic!() };
        let ok = match &values[0].kind {
            ExprKind::Number(n) => same_value(Some(Value::Num(*n)), lua),
            ExprKind::String(s) => lua[0] == b's' && &lua[1..] == s.as_bytes(),
            _ => false,
        };
        assert!(ok, "{:?}: lua5.1 {:?}, ours {}", String::from_utf8_lossy(src), String::from_utf8_lossy(lua), values[0]);
    }
    assert!(compile_errors < sources.len() / 10, "{compile_errors} compile errors");
}
