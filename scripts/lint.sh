#!/usr/bin/env bash
# Formatting and lints, as CI checks them: `cargo fmt` must change nothing and clippy (with
# the workspace's lint levels from Cargo.toml) must warn about nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
