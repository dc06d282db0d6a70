#!/usr/bin/env bash
# Runs COMMAND inside a foreign Debian tree (scripts/fetch-debian-root.sh) under endgate, as
# root, the way `chroot TREE COMMAND` runs it on a native system:
#
#   scripts/chroot-under-endgate.sh TREE COMMAND [ARGS...]
#   e.g. scripts/chroot-under-endgate.sh .cache/debian-root/arm64 /debootstrap/debootstrap --second-stage
#
# endgate runs the tree's own `chroot` program (/usr/sbin/chroot, under `-L TREE` so that its
# ELF interpreter and libraries are the tree's); its chroot(2) is the host's, so from there on
# every path the guest names is a path in TREE, and every later execve re-runs endgate from the
# host's root, which then enters TREE again (emulator/src/syscall/exec.rs, selfref.rs). Nothing
# on the host can be written: all of it runs in a private mount namespace (`unshare -m`) in
# which TREE is a bind mount of its own and the host's `/` is remounted read-only (a bind
# remount changes that one mount only; /proc, /sys and /dev stay as they are). When TREE/proc
# is a directory (not the `proc -> /proc` link debootstrap's first stage leaves, which its
# second stage replaces itself), a proc file system is mounted there.
#
# ENDGATE: the endgate binary (default target/release/endgate); ENDGATE_OPTS: more endgate
# options, split on spaces (e.g. "--strace -D /some/rw/bind/log"); ENDGATE_RW: a host directory
# to keep writable too (for a -D log). The exit status is COMMAND's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: $0 TREE COMMAND [ARGS...]" >&2
  exit 2
fi
tree=$(cd "$1" && pwd)
shift
endgate=${ENDGATE:-$top/target/release/endgate}
if [ "$(id -u)" != 0 ]; then
  echo "chroot-under-endgate: needs root (chroot(2), mounts)" >&2
  exit 1
fi
[ -x "$tree/usr/sbin/chroot" ] || { echo "chroot-under-endgate: $tree has no usr/sbin/chroot" >&2; exit 1; }
[ -x "$endgate" ] || { echo "chroot-under-endgate: no endgate at $endgate" >&2; exit 1; }
# Inside the namespace: $1 tree, $2 endgate, $3 endgate options, $4 a directory kept
# writable, then the command.
exec unshare -m --propagation private sh -ec '
  tree=$1 endgate=$2 opts=$3 rw=$4
  shift 4
  mount --bind "$tree" "$tree"
  [ -z "$rw" ] || mount --bind "$rw" "$rw"
  mount -o remount,bind,ro /
  if [ -d "$tree/proc" ] && [ ! -L "$tree/proc" ]; then mount -t proc proc "$tree/proc"; fi
  # $opts is split on spaces on purpose.
  exec "$endgate" $opts -L "$tree" "$tree/usr/sbin/chroot" "$tree" "$@"
' chroot-under-endgate "$tree" "$endgate" "${ENDGATE_OPTS:-}" "${ENDGATE_RW:-}" "$@"
