#!/usr/bin/env bash
# Fetches the real-world test inputs nobody here wrote: Debian bookworm's busybox-static for
# each guest architecture, into .cache/busybox/<debian-arch>/busybox (kept between runs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache="$top/.cache/busybox"
arches=(${ENDGATE_BUSYBOX_ARCHES:-amd64 arm64})
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
# Foreign-arch indexes: refresh when an arch was added or the package is unknown.
if [ $added = 1 ] || ! apt-cache show "busybox-static:${need[0]}" >/dev/null 2>&1; then
  $SUDO apt-get update -qq || true   # security indexes of added arches may fail; main ones work
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
for a in "${need[@]}"; do
  (cd "$work" && apt-get download -q "busybox-static:$a" >/dev/null 2>&1) || {
    echo "fetch-inputs: cannot download busybox-static:$a" >&2; exit 1; }
  deb=$(ls "$work"/busybox-static_*_"$a".deb)
  mkdir -p "$work/x-$a" "$cache/$a"
  dpkg-deb -x "$deb" "$work/x-$a"
  cp "$work/x-$a/bin/busybox" "$cache/$a/busybox"
  basename "$deb" > "$cache/$a/PACKAGE"
  echo "fetch-inputs: $(cat "$cache/$a/PACKAGE") -> .cache/busybox/$a/busybox"
done
