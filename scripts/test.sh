#!/usr/bin/env bash
# The whole test suite: every crate's tests, then the loom models of the
# buffer manager's state word and of the commit instant. Installs nothing
# beyond the Rust toolchain's own components; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install the Rust toolchain (rustup) first" >&2
    exit 1
fi

echo "== cargo test (workspace) =="
cargo test --workspace --no-fail-fast

echo "== loom model of the buffer state word =="
cargo test -p folio-buffer --features loom --release -- loom

echo "== loom model of the commit instant =="
cargo test -p folio-txn --features loom --release -- loom
