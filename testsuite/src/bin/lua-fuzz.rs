//! Differential fuzzing campaign:
//! `lua-fuzz [--ljr PATH] [--tier NAME] [--cases N] [--seed S] [--out DIR]` (a tier of
//! `lua51_testsuite::tiers::TIERS`, default `default`).
//! Runs random programs (see `lua51_testsuite::fuzz`) on `ljr` and `lua5.1`; every program
//! whose output differs is saved as `DIR/seed-N.lua` with the difference printed.

use std::path::PathBuf;
use std::process::ExitCode;

/// Programs between two progress lines on stderr.
const PROGRESS_EVERY: u64 = 10_000;

fn main() -> ExitCode {
    let mut ljr = PathBuf::from("target/release/ljr");
    let mut cases = 1000u64;
    let mut seed = 1u64;
    let mut out = PathBuf::from("fuzz-failures");
    let mut tier = lua51_testsuite::tiers::tier(lua51_testsuite::tiers::DEFAULT_TIER).expect("the default tier exists");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match a.as_str() {
            "--ljr" => ljr = value().into(),
            "--cases" => cases = value().parse().unwrap_or(cases),
            "--seed" => seed = value().parse().unwrap_or(seed),
            "--out" => out = value().into(),
            "--tier" => match lua51_testsuite::tiers::tier(&value()) {
                Some(t) => tier = t,
                None => {
                    eprintln!(
                        "lua-fuzz: unknown tier (known: {})",
                        lua51_testsuite::tiers::TIERS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
                    );
                    return ExitCode::FAILURE;
                }
            },
            _ => {
                eprintln!("usage: lua-fuzz [--ljr PATH] [--tier NAME] [--cases N] [--seed S] [--out DIR]");
                return ExitCode::FAILURE;
            }
        }
    }
    let work = std::env::temp_dir().join(format!("lua-fuzz-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&work).and_then(|_| std::fs::create_dir_all(&out)) {
        eprintln!("lua-fuzz: {e}");
        return ExitCode::FAILURE;
    }
    let mut failures = 0;
    let start = std::time::Instant::now();
    for s in seed..seed + cases {
        if let Err(report) = lua51_testsuite::fuzz::check_seed(&ljr, tier.flags, &work, s) {
            failures += 1;
            eprintln!("{report}");
            let _ = std::fs::write(out.join(format!("seed-{s}.lua")), lua51_testsuite::fuzz::program(s));
        }
        // A campaign stopped early (a time limit) still says how far it got.
        let done = s - seed + 1;
        if done.is_multiple_of(PROGRESS_EVERY) {
            eprintln!("lua-fuzz: {done} programs (seeds {seed}..={s}), {failures} differ, {:.0} s", start.elapsed().as_secs_f64());
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!("{} passed, {failures} failed", cases - failures);
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
