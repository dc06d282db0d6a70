#!/usr/bin/env bash
# Fetches the real-world test inputs nobody here wrote: Debian bookworm's busybox-static for
# each guest architecture, into .cache/busybox/<debian-arch>/busybox (kept between runs).
#
# ENDGATE_BUSYBOX_ARCHES (space-separated Debian arch names) selects the arches; the default is
# every arch the tests use: the guests (amd64 arm64 armhf i386 s390x mips64el) and ppc64el, which
# endgate's CPU engine does not run (emulator/tests/unsupported.rs). Files already present are
# kept, so a second run does nothing and needs no network.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache="$top/.cache/busybox"
arches=(${ENDGATE_BUSYBOX_ARCHES:-amd64 arm64 armhf i386 s390x mips64el ppc64el})
mkdir -p "$cache"
need=()
for a in "${arches[@]}"; do
  [ -x "$cache/$a/busybox" ] || need+=("$a")
done
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
native=$(dpkg --print-architecture)
added=0
for a in "${need[@]}"; do
  if [ "$a" != "$native" ] && ! dpkg --print-foreign-architectures | grep -qx "$a"; then
    $SUDO dpkg --add-architecture "$a"
    added=1
  fi
done
# Foreign-arch indexes: refresh when an arch was added or any needed package is unknown.
known=1
for a in "${need[@]}"; do
  apt-cache show "busybox-static:$a" >/dev/null 2>&1 || known=0
done
if [ $added = 1 ] || [ $known = 0 ]; then
  $SUDO apt-get update -qq || true   # security indexes of added arches may fail; main ones work
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"   # apt-get download runs as user _apt and writes here
for a in "${need[@]}"; do
  (cd "$work" && apt-get download -q "busybox-static:$a" >/dev/null 2>&1) || {
    echo "fetch-inputs: cannot download busybox-static:$a" >&2; exit 1; }
  deb=$(ls "$work"/busybox-static_*_"$a".deb)
  mkdir -p "$work/x-$a" "$cache/$a"
  dpkg-deb -x "$deb" "$work/x-$a"
  # Copy then rename, so an interrupted run never leaves a partial busybox that looks fetched.
  cp "$work/x-$a/bin/busybox" "$cache/$a/busybox.part"
  mv "$cache/$a/busybox.part" "$cache/$a/busybox"
  basename "$deb" > "$cache/$a/PACKAGE"
  echo "fetch-inputs: $(cat "$cache/$a/PACKAGE") -> .cache/busybox/$a/busybox"
done
