#!/usr/bin/env bash
# Builds endgate's fuzz targets (fuzz/, libFuzzer through libfuzzer-sys, on stable Rust) and
# runs each for a bounded time: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]].
#   SECONDS_PER_TARGET   default 60; scripts/test-all.sh passes 20
#   TARGET               elf_loader strace_format abi_convert gdb_packets syscall_live (default: all)
# Corpora are seeded at run time (never committed): the ELF target from the guest programs the
# suite builds (target/guest-tests/*/) and the fetched Debian busybox binaries
# (.cache/busybox/*/busybox), every target from its kept inputs (fuzz/inputs/TARGET/). The
# corpora grow in target/fuzz/corpus/TARGET across runs; logs go to target/fuzz/logs/.
# Success is "no crash": a run that finds nothing new passes. A crash, a leak, a hang
# (longer than FUZZ_TIMEOUT seconds on one input, default 60) or an out-of-memory stops that
# target and fails the script, its input saved in target/fuzz/artifacts/TARGET/ (see
# docs/fuzzing.md for reproducing it and keeping it as a test case).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(elf_loader strace_format abi_convert gdb_packets syscall_live)
host=$(rustc -vV | sed -n 's/^host: //p')
out=$top/target/fuzz
# Instrument endgate (and every crate of the targets) for libFuzzer's coverage feedback with
# stable rustc's own options (what cargo-fuzz passes, less its nightly-only -Z ones). Building
# for an explicit --target keeps these flags off build scripts and proc macros, which cannot
# link libFuzzer's hooks.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
export CARGO_TARGET_DIR=$out
(cd fuzz && nice -n 10 cargo build --release --target "$host" --bins)
bin=$out/$host/release

seed_elf() {
  local dir=$1 arch f
  # The smallest few programs of each guest arch (static and dynamic ones), and busybox.
  for arch in target/guest-tests/*/; do
    [ -d "$arch" ] || continue
    find "$arch" -maxdepth 1 -type f -size -2000k -printf '%s %p\n' 2>/dev/null | sort -n | head -n 6 |
      while read -r _ f; do cp -f "$f" "$dir/$(basename "$arch")-$(basename "$f")" || true; done || true
  done
  for f in .cache/busybox/*/busybox; do
    if [ -f "$f" ]; then cp -f "$f" "$dir/busybox-$(basename "$(dirname "$f")")" || true; fi
  done
  return 0
}

mkdir -p "$out/logs"
failed=()
for t in "${targets[@]}"; do
  corpus=$out/corpus/$t
  seeds=$out/seeds/$t
  art=$out/artifacts/$t
  rm -rf "$seeds"
  mkdir -p "$corpus" "$seeds" "$art"
  if [ "$t" = elf_loader ]; then seed_elf "$seeds"; fi
  if [ -d "fuzz/inputs/$t" ]; then cp -f fuzz/inputs/"$t"/* "$seeds"/ 2>/dev/null || true; fi
  max_len=4096
  if [ "$t" = elf_loader ]; then max_len=3000000; fi
  log=$out/logs/$t.log
  echo "fuzz: $t for ${secs}s (log $log)"
  status=0
  nice -n 10 "$bin/$t" -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-60}" -rss_limit_mb=4096 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$art/" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
  summary=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "fuzz: $t: status $status, ${execs:-?} runs; last: ${summary:-none}"
  if [ "$status" != 0 ]; then
    failed+=("$t")
    grep -E 'ERROR|panicked|SUMMARY|Test unit written' "$log" | head -n 20 || true
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $out/artifacts/)" >&2
  exit 1
fi
echo "fuzz: no crash in ${targets[*]}"
