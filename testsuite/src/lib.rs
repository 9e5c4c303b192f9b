//! Lua 5.1 conformance corpus, differential test runner and benchmark harness for `ljr`.
//!
//! `ljr` is meant to be a drop-in `lua5.1`, so the oracle for every test is the reference
//! interpreter itself: each program in `testsuite/lua/` is run on both and the observable
//! behaviour (stdout, exit status, first line of the error message) must agree exactly.
//! That keeps the corpus free of hand-written expected outputs, which would drift from the
//! real `lua5.1` on exactly the corner cases (number formatting, NaN signs) that matter.
//!
//! * [`differential_trials`] builds the `libtest-mimic` trials used by
//!   `tools/ljr/tests/differential.rs`; [`differential::trials`] takes a full
//!   [`DifferentialConfig`] (other binary, other corpus, other tiers).
//! * [`conformance`] runs the third-party suites (the official Lua 5.1 suite and LuaJIT's) from
//!   `../shared/conformance` against `lua5.1`, with the list of known failures
//!   (`tools/ljr/tests/conformance.rs`).
//! * [`tiers`] holds the table of execution tiers (`LJR_TIERS`).
//! * [`header`] documents the `-- ljr-test:` settings a test file may carry.
//! * [`bench`] is the library side of the `lua-bench` binary.
//! * [`fuzz`] generates random programs for differential fuzzing (`lua-fuzz`, and a bounded
//!   run in `tools/ljr/tests/fuzz.rs`).
//!
//! See `testsuite/README.md` for how to run everything.

pub mod bench;
pub mod conformance;
pub mod diff;
pub mod differential;
pub mod fuzz;
pub mod header;
pub mod process;
pub mod tiers;

pub use differential::{check_file, corpus_dir, differential_trials, DifferentialConfig, REFERENCE_LUA};
pub use tiers::{Tier, TIERS, TIERS_ENV};
