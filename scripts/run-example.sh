#!/usr/bin/env bash
# Builds endgate (installing the build needs when missing) and runs the example guest kept in
# the repository: an aarch64 static "hello" program. Extra arguments go to the guest.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh --build
cargo build --release -p endgate
exec "${CARGO_TARGET_DIR:-target}/release/endgate" examples/hello-aarch64 "$@"
