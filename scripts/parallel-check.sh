#!/usr/bin/env bash
# Repeats the guest tests of issue 12's "correctness under parallelism" point, to show that they
# pass every time and not only most times (opt-in; not part of scripts/test-all.sh). Needs what
# scripts/test-all.sh installed and built.
#
#   scripts/parallel-check.sh [ROUNDS]     (default 100)
#
# Each round runs, under endgate on aarch64, x86_64, s390x, arm and riscv64: thread_counter
# (4 threads x 1,000,000 atomic increments) and, on aarch64, thread_counter_llsc (the same with
# inline LDXR/STXR loops instead of LSE), thread_condvar (mutex and condition-variable
# ping-pong), thread_seqlock, thread_unmap (a thread reads memory another unmaps: SIGSEGV, never
# the old data) and thread_jit (a thread runs code another rewrites). It stops at the first
# failure, with the round number and the runner's output, and prints the total time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rounds=${1:-100}
arches=aarch64,x86_64,s390x,arm,riscv64
tests=(--test thread_counter --test thread_counter_llsc --test thread_condvar --test thread_seqlock
    --test thread_unmap --test thread_jit)
cargo build --release --workspace
target/release/guest-tests build --arch "$arches" "${tests[@]}"
trap 'rm -f "${log:-}"' EXIT
log=$(mktemp)
start=$(date +%s)
for round in $(seq "$rounds"); do
    echo "parallel-check: round $round of $rounds"
    target/release/guest-tests run --emulator target/release/endgate --arch "$arches" --jobs 2 "${tests[@]}" \
        >"$log" 2>&1 || {
        cat "$log"
        echo "parallel-check: failed in round $round after $(($(date +%s) - start)) s"
        exit 1
    }
done
secs=$(($(date +%s) - start))
echo "parallel-check: $rounds rounds passed"
echo "parallel-check: total time $((secs / 60)) min $((secs % 60)) s"
