#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what it needs (with qemu-user
# 10.0.2 in .cache/qemu-10.0.2/, the reference emulator), fetches the
# Debian busybox-static inputs and the ppc64el kernel, builds endgate and the guest programs, runs every test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
scripts/fetch-inputs.sh
scripts/fetch-ppc-kernel.sh   # Debian's ppc64el kernel for host-shims' real-kernel test
cargo build --release --workspace
cargo clippy --release --workspace --all-targets -- -D warnings
cargo test --release --workspace --no-fail-fast
