//! Differential tests: every program of the Lua corpus in `testsuite/lua/` is run on the
//! reference `lua5.1` and on this crate's `ljr` binary, once per tier selected by
//! `LJR_TIERS` (default: `default`), and must print the same stdout, exit with the same
//! status and, when it fails, report the same error message.
//!
//! Run with `cargo test -p ljr --test differential`; filter like any test binary, e.g.
//! `cargo test -p ljr --test differential -- arith`. See `testsuite/README.md`.

use std::path::Path;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let trials = lua51_testsuite::differential_trials(Path::new(env!("CARGO_BIN_EXE_ljr")));
    libtest_mimic::run(&args, trials).exit();
}
