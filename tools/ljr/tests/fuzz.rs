//! Differential fuzzing, bounded: random programs (`lua51_testsuite::fuzz`) must print the same
//! on `ljr` (under each tier `LJR_TIERS` selects) and `lua5.1`. `LJR_FUZZ_CASES` sets how many
//! (default 200, a few seconds per tier); long campaigns:
//! `cargo run --release -p lua51-testsuite --bin lua-fuzz -- --tier baseline --cases 100000`.

use std::path::Path;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let cases: u64 = std::env::var("LJR_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let tiers = lua51_testsuite::tiers::selected_tiers().unwrap_or_else(|e| panic!("{e}"));
    let trials = tiers.into_iter().map(|tier| {
        libtest_mimic::Trial::test(format!("random programs match lua5.1 ({cases} seeds) [{}]", tier.name), move || {
            let ljr = Path::new(env!("CARGO_BIN_EXE_ljr"));
            let work = std::env::temp_dir().join(format!("ljr-fuzz-test-{}-{}", std::process::id(), tier.name));
            std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
            let failures: Vec<String> =
                (1..=cases).filter_map(|seed| lua51_testsuite::fuzz::check_seed(ljr, tier.flags, &work, seed).err()).collect();
            let _ = std::fs::remove_dir_all(&work);
            match failures.first() {
                None => Ok(()),
                Some(first) => Err(format!("{} of {cases} programs differ; the first:\n{first}", failures.len()).into()),
            }
        })
    });
    libtest_mimic::run(&args, trials.collect()).exit();
}
