//! The third-party conformance suites (`../shared/conformance`: the official Lua 5.1 suite and
//! LuaJIT's), differentially: every test `lua5.1` passes must pass on `ljr`, under every tier
//! selected by `LJR_TIERS`, except the known failures listed with their reasons in
//! `testsuite/conformance/known-failures.txt` (which must still fail). See
//! `lua51_testsuite::conformance`.
//!
//! `cargo test -p ljr --test conformance`, filtered like any test binary
//! (`-- lua-5.1-tests/`, `-- lib/string`).

use std::path::Path;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let trials = lua51_testsuite::conformance::conformance_trials(Path::new(env!("CARGO_BIN_EXE_ljr")));
    libtest_mimic::run(&args, trials).exit();
}
