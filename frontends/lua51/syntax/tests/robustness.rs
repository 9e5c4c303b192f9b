//! The parser must return (never panic, never overflow the stack) on any
//! input: garbage bytes, truncated programs, absurd nesting, and very long
//! operator or suffix chains, which lua5.1 accepts without a depth limit.

mod common;

use common::Rng;
use lua51_syntax::{parse_chunk, parse_chunk_with, tokenize, ParseOptions};

/// Parses and, on success, walks the result through the derived and
/// hand-written traits so they get exercised too.
fn exercise(src: &[u8]) {
    let _ = tokenize(src, "t");
    for skip_shebang in [false, true] {
        let opts = ParseOptions { skip_shebang, ..ParseOptions::default() };
        match parse_chunk_with(src, "t", &opts) {
            Ok(chunk) => {
                let copy = chunk.clone();
                assert_eq!(copy, chunk);
                let _ = chunk.to_string();
                let _ = format!("{chunk:?}");
            }
            Err(e) => {
                assert!(e.line >= 1);
                let _ = e.to_string();
            }
        }
    }
}

#[test]
fn random_bytes_do_not_panic() {
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        exercise(&common::garbage(&mut rng));
    }
    // Fully uniform bytes as well.
    for _ in 0..5_000 {
        let n = rng.below(64);
        let bytes: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
        exercise(&bytes);
    }
}

#[test]
fn token_soups_and_mutated_programs_do_not_panic() {
    let mut rng = Rng::new(8);
    for _ in 0..10_000 {
        exercise(&common::token_soup(&mut rng));
        exercise(&common::program(&mut rng));
    }
}

#[test]
fn every_prefix_of_valid_programs() {
    for p in common::VALID_PROGRAMS {
        let p = p.as_bytes();
        assert!(parse_chunk(p, "t").is_ok(), "{}", String::from_utf8_lossy(p));
        for end in 0..p.len() {
            exercise(&p[..end]);
        }
    }
}

/// Runs `f` on a thread with a deliberately small stack, so that the tests
/// catch any growth of the parser's per-level stack use.
fn with_stack<T: Send + 'static>(bytes: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(bytes).spawn(f).expect("spawn").join().expect("no panic")
}

#[test]
fn deepest_accepted_nesting_fits_in_a_small_stack() {
    // The nesting limit bounds the recursion; at the limit every construct
    // must parse within 1 MiB of stack, even in debug builds.
    let cases: Vec<String> = vec![
        format!("x = {}1{}", "(".repeat(197), ")".repeat(197)),
        format!("x = {}{}", "{".repeat(198), "}".repeat(198)),
        format!("x = {}1{}", "a[".repeat(197), "]".repeat(197)),
        format!("x = {}1{}", "f(".repeat(197), ")".repeat(197)),
        format!("x = {}1{}", "{x = ".repeat(197), "}".repeat(197)),
        format!("{}{}", "do ".repeat(198), " end".repeat(198)),
        format!("{}{}", "if x then ".repeat(198), " end".repeat(198)),
        format!("{}{}", "while x do ".repeat(198), " end".repeat(198)),
        format!("{}{}", "repeat ".repeat(198), " until x".repeat(198)),
        format!("x = {}{}", "function() return ".repeat(99), "end ".repeat(99)),
        format!("{}{}", "local function f() ".repeat(99), "end ".repeat(99)),
        format!("x = {}1", "- ".repeat(197)),
        format!("x = 1{}", " ^ 1".repeat(197)),
        format!("x = 1{}", " .. 1".repeat(197)),
        format!("x = {}1{}", "o:m(".repeat(197), ")".repeat(197)),
        format!("x = {}1{}", "{[".repeat(197), "]=1}".repeat(197)),
        format!("{}{}", "f(function() ".repeat(99), "end)".repeat(99)),
        format!("{}{}", "x = function() ".repeat(99), "end ".repeat(99)),
        // Loops declare hidden locals, so the local limit stops them first.
        format!("{}{}", "for i = 1, 2 do ".repeat(49), " end".repeat(49)),
        format!("{}{}", "for k, v in x do ".repeat(39), " end".repeat(39)),
    ];
    for src in cases {
        let shown = src[..40.min(src.len())].to_string();
        let ok = with_stack(1 << 20, move || parse_chunk(src.as_bytes(), "t").map(|_| ()));
        assert_eq!(ok, Ok(()), "{shown}");
    }
}

#[test]
fn absurd_nesting_is_an_error_not_a_crash() {
    let cases: Vec<String> = vec![
        "(".repeat(1_000_000),
        format!("x = {}", "(".repeat(1_000_000)),
        format!("x = {}", "{".repeat(1_000_000)),
        format!("x = {}", "- ".repeat(1_000_000)),
        format!("x = 1{}", " ^ 1".repeat(1_000_000)),
        "do ".repeat(1_000_000),
        format!("x = {}", "function() return ".repeat(1_000_000)),
    ];
    for src in cases {
        let msg = with_stack(1 << 20, move || parse_chunk(src.as_bytes(), "t").unwrap_err().to_string());
        assert_eq!(msg, "t:1: chunk has too many syntax levels");
    }
}

#[test]
fn long_left_associative_chains_parse_and_drop() {
    // lua5.1 accepts these at any length; the AST nests along the left
    // operand, so building and dropping it must not recurse.
    let n = 300_000;
    let cases: Vec<String> = vec![
        format!("x = 1{}", " + 1".repeat(n)),
        format!("x = a{}", ".b".repeat(n)),
        format!("x = a{}", "[1]".repeat(n)),
        format!("x = a{}", "()".repeat(n)),
        format!("x = a{}", ":m()".repeat(n)),
        format!("x = a{}", " and b".repeat(n)),
        format!("f{}", "{}".repeat(n)),
    ];
    for src in cases {
        with_stack(1 << 20, move || {
            let chunk = parse_chunk(src.as_bytes(), "t").expect("valid");
            drop(chunk);
        });
    }
}

#[test]
fn many_statements() {
    let src = "x = 1\n".repeat(200_000);
    let chunk = with_stack(1 << 20, move || parse_chunk(src.as_bytes(), "t").map(|c| c.body.stats.len()));
    assert_eq!(chunk, Ok(200_000));
}
