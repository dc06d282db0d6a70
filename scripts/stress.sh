#!/usr/bin/env bash
# Repeats the tests that exercise threads, signals and processes, to find what fails only now
# and then (opt-in; not part of scripts/test-all.sh). Needs what scripts/test-all.sh installed
# and built.
#
#   scripts/stress.sh [ROUNDS]     (default 10)
#
# Each round runs: the busybox shell tests (emulator/tests/process.rs, every busybox arch), the
# Go program test (emulator/tests/go.rs, itself ten runs per arch), and the guest tests whose
# names start with thread, signal or sig on all seven arches. It stops at the first failure,
# with the round number; `LOAD=1` adds one CPU hog per core for the whole run.
#
#   scripts/stress.sh --suite [ROUNDS]     (default 5)
#
# runs the whole README test command (scripts/test-all.sh) ROUNDS times in a row with one CPU
# hog beside it (issue 15's "5 times in a row under load"), each round's output in
# target/stress/suite-N.log; it stops at the first failing round and prints each round's time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ "${1:-}" = --suite ]; then
    rounds=${2:-5}
    mkdir -p target/stress
    (while :; do :; done) &
    hog=$!
    trap 'kill "$hog" 2>/dev/null || true' EXIT
    for round in $(seq "$rounds"); do
        start=$(date +%s)
        if ! scripts/test-all.sh >"target/stress/suite-$round.log" 2>&1; then
            echo "stress: suite round $round of $rounds failed after $(($(date +%s) - start)) s (target/stress/suite-$round.log)"
            exit 1
        fi
        echo "stress: suite round $round of $rounds passed in $(($(date +%s) - start)) s at commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    done
    echo "stress: $rounds suite rounds passed with a CPU hog beside them"
    exit 0
fi
rounds=${1:-10}
cargo build --release --workspace
hogs=()
if [ "${LOAD:-0}" = 1 ]; then
    for _ in $(seq "$(nproc)"); do
        (while :; do :; done) &
        hogs+=($!)
    done
fi
trap 'kill "${hogs[@]}" 2>/dev/null || true; rm -f "${log:-}"' EXIT
log=$(mktemp)
tests=$(ls guest-tests/programs | sed -n 's/^\(thread[a-z_0-9]*\|signal[a-z_0-9]*\|sig[a-z_0-9]*\)\.c$/\1/p')
for round in $(seq "$rounds"); do
    echo "stress: round $round of $rounds"
    cargo test --release -p endgate --test process --test go -q || { echo "stress: failed in round $round"; exit 1; }
    for t in $tests; do
        target/release/guest-tests run --emulator target/release/endgate --jobs 2 --test "$t" >"$log" 2>&1 ||
            { cat "$log"; echo "stress: $t failed in round $round"; exit 1; }
    done
done
echo "stress: $rounds rounds passed"
