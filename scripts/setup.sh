#!/usr/bin/env bash
# Installs what the project needs on a fresh x86-64 Debian machine, idempotently:
# LLVM 22 (build-time only: the generator reads bitcode and compiles handlers with it),
# and the reference implementations the tests and benchmarks compare against.
set -euo pipefail

need=()
[ -x /usr/lib/llvm-22/bin/llc ] && [ -f /usr/lib/llvm-22/include/llvm-c/Core.h ] || need+=(llvm-22-dev llvm-22)
# FileCheck, for the passes' file tests (`tools/deegen-opt/tests/file_tests.rs`).
[ -x /usr/lib/llvm-22/bin/FileCheck ] || need+=(llvm-22-tools)
dpkg -s libpolly-22-dev >/dev/null 2>&1 || need+=(libpolly-22-dev)
dpkg -s libzstd-dev >/dev/null 2>&1 || need+=(libzstd-dev)
command -v lua5.1 >/dev/null 2>&1 || need+=(lua5.1)
command -v luajit >/dev/null 2>&1 || need+=(luajit)

if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

# rustfmt and clippy, which `scripts/lint.sh` (and CI) run; rustup's default profile has them,
# a minimal one does not.
if command -v rustup >/dev/null 2>&1; then
    for component in rustfmt clippy; do
        rustup component list --installed 2>/dev/null | grep -q "^$component" || rustup component add "$component" >&2
    done
fi
