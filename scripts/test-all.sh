#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what it needs (with qemu-user
# 10.0.2 in .cache/qemu-10.0.2/, the reference emulator), fetches the
# Debian busybox-static inputs and the ppc64el kernel, builds endgate and the guest programs, runs every test,
# then runs the fuzz targets for a bounded time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
scripts/fetch-inputs.sh
scripts/fetch-ppc-kernel.sh   # Debian's ppc64el kernel for host-shims' real-kernel test
cargo build --release --workspace
# The static endgate (docs/static.md), target/x86_64-unknown-linux-gnu/release/endgate, which
# emulator/tests/static_chroot.rs runs in a chroot. Its own target dir compiles unicorn once
# more the first time (about as long as the first build); after that only endgate relinks.
cargo build-static
cargo clippy --release --workspace --all-targets -- -D warnings
cargo test --release --workspace --no-fail-fast
# Coverage-guided fuzzing (docs/fuzzing.md): every fuzz target for 20 s (about 2.5 minutes with
# its build once built; the first build compiles unicorn once more, for the instrumented
# target dir). Only a crash fails it.
scripts/fuzz.sh 20
