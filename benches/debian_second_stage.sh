#!/usr/bin/env bash
# Times Debian 12 arm64's `debootstrap --second-stage` under endgate and under qemu-user-static
# 10.0.2 on the same machine, in one run (issue 14; opt-in, not part of the test command):
#
#   benches/debian_second_stage.sh [RUNS]      (as root; RUNS, default 3, rounds)
#
# Method. Every run starts from a fresh first-stage tree made by
# `scripts/fetch-debian-root.sh arm64 TREE` (debootstrap --foreign --variant=minbase bookworm,
# from the packages cached in .cache/debian-root/debs/arm64: offline, a few seconds, not timed),
# then runs, timed, `/bin/sh /debootstrap/debootstrap --second-stage` in it (the tree's sh
# named, since endgate takes an ELF program as its own argument) one of two ways:
#
#  endgate: `endgate --root TREE /bin/sh /debootstrap/debootstrap --second-stage` as root, in a
#    private mount namespace (`unshare -m --propagation private`) where TREE is a bind mount of
#    its own and the host's `/` is remounted read-only, as emulator/tests/debian_root.rs does.
#  qemu-user-static: the way people use it: qemu-aarch64 10.0.2 (Debian's static build,
#    .cache/qemu-10.0.2/usr/bin/qemu-aarch64, scripts/fetch-qemu10.sh) registered in
#    binfmt_misc for aarch64 ELF programs with Debian's flags `OPF` (F: the kernel opens qemu at
#    registration, so it runs inside the chroot; P: argv[0] preserved; O: the program handed
#    over as an open file), then the host's `chroot TREE /bin/sh /debootstrap/debootstrap
#    --second-stage`. The machine's global binfmt_misc is left alone: since Linux 6.7 every user
#    namespace can have a binfmt_misc instance of its own, so the run happens in a new user
#    namespace mapping ids 0-65535 to themselves (written to uid_map/gid_map by this script, as
#    root, from outside: util-linux 2.38's --map-users needs newuidmap; the identity map lets
#    dpkg's chowns work), with a private mount namespace and a pid namespace of its own (so
#    that debootstrap's `mount -t proc` in the tree is allowed), where binfmt_misc is mounted
#    afresh on /proc/sys/fs/binfmt_misc, the entry registered, TREE bind-mounted on itself and
#    `/` remounted read-only before the chroot. The entry's magic and mask are the ELF header's
#    first 20 bytes: ELFCLASS64, little-endian, version 1, any OS ABI, e_type ET_EXEC or ET_DYN,
#    e_machine EM_AARCH64 (183); the padding bytes must be zero, as in Debian's entry.
#    A process in a user namespace other than the first cannot make device nodes, so
#    debootstrap's sanity check of the target (check_sane_mount: `mknod TREE/test-dev-null`)
#    fails there with "Cannot install into target '/' mounted with noexec or nodev". The run
#    sets container=lxc, debootstrap's switch for unprivileged containers: it skips only that
#    probe and has setup_devices make the nodes only if missing (the first stage made them all);
#    no maintainer script of the 88 packages reads $container. The endgate run, as real root,
#    needs no such switch.
#
# Rounds alternate which of the two goes first. Each run is wrapped in `/usr/bin/time`: wall
# time, and user and system time of the run and every process reaped below it (CPU time below
# is user+sys). (`perf stat -e task-clock` is not used: its inherited counters counted 0.02 s of
# a qemu-user-static run whose processes used 88 s, losing them at the binfmt_misc execs.)
# A run counts only if it exits 0, its output ends with "I: Base system installed
# successfully." and dpkg lists every package of the first stage's list
# (TREE/debootstrap/debpaths) as installed. The medians and their ratios endgate /
# qemu-user-static go to the terminal and to OUT (default benches/results/debian-second-stage.md).
#
# ENDGATE (default target/release/endgate), QEMU (default the 10.0.2 binary above), WORK (where
# the tree, each run's log and runs.tsv go, default target/debian-second-stage; made again at
# the start, the tree removed at the end), OUT; ONLY=endgate or
# ONLY=qemu runs just one of the two (for trying the script out).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
self="$top/benches/$(basename "$0")"
endgate=${ENDGATE:-$top/target/release/endgate}
qemu=${QEMU:-$top/.cache/qemu-10.0.2/usr/bin/qemu-aarch64}
ok_line="I: Base system installed successfully."
# The binfmt_misc entry (kernel format :name:type:offset:magic:mask:interpreter:flags).
magic='\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'

say() { echo "debian_second_stage: $*" >&2; }

# Internal entry points, each one run (timed) per measurement.
case "${1:-}" in
  --endgate-run)
    exec unshare -m --propagation private sh -ec '
      mount --bind "$1" "$1"
      mount -o remount,bind,ro /
      exec "$2" --root "$1" /bin/sh /debootstrap/debootstrap --second-stage
    ' endgate-run "$2" "$endgate"
    ;;
  --qemu-run)
    # A new user namespace whose id maps are written from outside once it exists; its process
    # waits on a fifo until then, and then makes the mount and pid namespaces.
    tree=$2
    fifo=$(mktemp -u "${TMPDIR:-/tmp}/second-stage-fifo.XXXXXX")
    mkfifo -m 600 "$fifo"
    unshare --user sh -c 'read -r _ <"$1"; shift; exec "$@"' go "$fifo" \
      unshare --mount --propagation private --pid --fork "$self" --qemu-inside "$tree" &
    pid=$!
    me=$(readlink /proc/self/ns/user)
    while ns=$(readlink "/proc/$pid/ns/user" 2>/dev/null) && [ "$ns" = "$me" ]; do sleep 0.01; done
    if [ -z "${ns:-}" ]; then rm -f "$fifo"; wait "$pid"; exit 1; fi
    echo "0 0 65536" >"/proc/$pid/uid_map"
    echo "0 0 65536" >"/proc/$pid/gid_map"
    echo go >"$fifo"
    rm -f "$fifo"
    st=0
    wait "$pid" || st=$?
    exit "$st"
    ;;
  --qemu-inside)
    tree=$2
    b=/proc/sys/fs/binfmt_misc
    mount -t binfmt_misc binfmt_misc "$b" || {
      say "cannot mount a binfmt_misc of this user namespace's own on $b (Linux 6.7 or later needed; this is $(uname -r))"
      exit 1
    }
    printf ':qemu-aarch64:M::%s:%s:%s:OPF' "$magic" "$mask" "$qemu" >"$b/register"
    mount --bind "$tree" "$tree"
    mount -o remount,bind,ro /
    # Only the initial user namespace may make device nodes (mknod is EPERM here), so
    # debootstrap's probe of the target (`mknod TREE/test-dev-null c 1 3`) would fail:
    # container=lxc is its own switch for such unprivileged containers (see the header).
    export container=lxc
    exec chroot "$tree" /bin/sh /debootstrap/debootstrap --second-stage
    ;;
esac

runs=${1:-3}
case "$runs" in '' | *[!0-9]* | 0)
  echo "usage: $0 [RUNS]   (RUNS: rounds, default 3)" >&2
  exit 2
  ;;
esac
if [ "$(id -u)" != 0 ]; then
  say "needs root (debootstrap's first stage, chroot, namespaces)"
  exit 1
fi
[ -x "$endgate" ] || { say "no endgate at $endgate (cargo build --release -p endgate)"; exit 1; }
[ -x "$qemu" ] || { say "no qemu-aarch64 at $qemu (scripts/fetch-qemu10.sh)"; exit 1; }
[ -x /usr/bin/time ] || { say "needs /usr/bin/time (Debian package time)"; exit 1; }
case "${ONLY:-}" in
  '') runners=(endgate qemu) ;;
  endgate | qemu) runners=("$ONLY") ;;
  *) say "ONLY must be endgate or qemu"; exit 2 ;;
esac

work=${WORK:-$top/target/debian-second-stage}
out=${OUT:-$top/benches/results/debian-second-stage.md}
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work/tree"' EXIT
results="$work/runs.tsv"
: >"$results"

# One timed run of runner $1 (round $2) in a fresh tree.
measure() {
  local who=$1 round=$2 tree="$work/tree" log="$work/$1-$2.log" st=0
  "$top/scripts/fetch-debian-root.sh" arm64 "$tree" 2>"$work/fetch.log" || {
    cat "$work/fetch.log" >&2; say "fetch-debian-root.sh failed"; exit 1; }
  # The first stage's list of packages, which the second stage installs and then removes.
  local expected
  expected=$(wc -l <"$tree/debootstrap/debpaths")
  say "round $round: $who..."
  /usr/bin/time -f '%e %U %S' -o "$work/time" \
    "$self" "--$who-run" "$tree" >"$log" 2>&1 </dev/null || st=$?
  local wall user sys last installed
  read -r wall user sys < <(tail -n 1 "$work/time")
  last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
  installed=$(grep -c '^Status: install ok installed' "$tree/var/lib/dpkg/status" || true)
  if [ "$st" != 0 ] || [ "$last" != "$ok_line" ] || [ "$installed" != "$expected" ]; then
    tail -n 30 "$log" >&2
    say "$who (round $round) failed: status $st, last line '$last', $installed of $expected packages installed (log kept: $log)"
    exit 1
  fi
  say "round $round: $who: ${wall} s wall, ${user} s user, ${sys} s sys, $installed packages installed"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$who" "$round" "$wall" "$user" "$sys" "$installed" >>"$results"
}

start=$SECONDS
for ((r = 1; r <= runs; r++)); do
  if ((r % 2)); then order=("${runners[@]}"); else order=(); for ((i = ${#runners[@]} - 1; i >= 0; i--)); do order+=("${runners[i]}"); done; fi
  for who in "${order[@]}"; do measure "$who" "$r"; done
done

# The medians (of wall and user+sys) per runner.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -F'\t' -v w="$1" -v c="$2" '$1 == w { if (c == "cpu") printf "%.2f\n", $4 + $5; else print $c }' "$results"; }
declare -A med
for who in "${runners[@]}"; do
  med[$who.wall]=$(col "$who" 3 | median)
  med[$who.cpu]=$(col "$who" cpu | median)
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

{
  echo "# Debian 12 arm64 \`debootstrap --second-stage\`: endgate and qemu-user-static"
  echo
  echo "benches/debian_second_stage.sh $runs, $(date -u +%F), $(nproc) cores ($(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), Linux $(uname -r),"
  echo "endgate $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?') ($endgate), $("$qemu" --version | head -n 1)."
  echo "Each run: a fresh first-stage tree, then the second stage to \"$ok_line\"; times in seconds."
  echo
  echo "| runner | round | wall | user | sys | packages installed |"
  echo "| --- | --- | --- | --- | --- | --- |"
  sed 's/\t/ | /g; s/^/| /; s/$/ |/; s/^| qemu |/| qemu-user-static |/' "$results"
  echo
  echo "| median | wall | CPU (user+sys) |"
  echo "| --- | --- | --- |"
  for who in "${runners[@]}"; do
    name=$who; [ "$who" != qemu ] || name=qemu-user-static
    echo "| $name | ${med[$who.wall]} | ${med[$who.cpu]} |"
  done
  if [ ${#runners[@]} = 2 ]; then
    echo "| endgate / qemu-user-static | $(ratio "${med[endgate.wall]}" "${med[qemu.wall]}") | $(ratio "${med[endgate.cpu]}" "${med[qemu.cpu]}") |"
  fi
  echo
  echo "Total time of this script: $((SECONDS - start)) s."
} >"$work/results.md"
cat "$work/results.md"
if [ ${#runners[@]} = 2 ]; then
  mkdir -p "$(dirname "$out")"
  cp "$work/results.md" "$out"
  say "written to $out"
fi
rm -rf "$work/tree"
