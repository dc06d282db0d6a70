#!/usr/bin/env bash
# Fetches Debian bookworm's ppc64el kernel for host-shims' real-kernel test (a pseries guest in
# qemu-system-ppc64): linux-image-6.1.0-<N>-powerpc64le:ppc64el, N taken from the
# linux-image-powerpc64le metapackage's dependency, unpacked to .cache/ppc64el-kernel/vmlinux (and its boot/config-* to config)
# (the package's boot/vmlinux-*; its name goes to .cache/ppc64el-kernel/PACKAGE). Kept between runs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache="$top/.cache/ppc64el-kernel"
[ -s "$cache/vmlinux" ] && [ -s "$cache/config" ] && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx ppc64el; then
  $SUDO dpkg --add-architecture ppc64el
  $SUDO apt-get update -qq || true   # security indexes of added arches may fail; main ones work
fi
pkg() { apt-cache depends linux-image-powerpc64le:ppc64el 2>/dev/null \
  | sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*-powerpc64le\).*/\1/p' | head -1; }
name=$(pkg)
if [ -z "$name" ]; then
  $SUDO apt-get update -qq || true
  name=$(pkg)
fi
[ -n "$name" ] || { echo "fetch-ppc-kernel: linux-image-powerpc64le:ppc64el not found in the apt indexes" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
(cd "$work" && apt-get download -q "$name:ppc64el" >/dev/null 2>&1) || {
  echo "fetch-ppc-kernel: cannot download $name:ppc64el" >&2; exit 1; }
deb=$(ls "$work"/"$name"_*_ppc64el.deb)
dpkg-deb -x "$deb" "$work/x"
vm=$(ls "$work"/x/boot/vmlinux-* | head -1)
cfg=$(ls "$work"/x/boot/config-* 2>/dev/null | head -1 || true)
[ -n "$vm" ] || { echo "fetch-ppc-kernel: no boot/vmlinux-* in $(basename "$deb")" >&2; exit 1; }
mkdir -p "$cache"
cp "$vm" "$cache/vmlinux.tmp" && mv "$cache/vmlinux.tmp" "$cache/vmlinux"
[ -n "$cfg" ] && cp "$cfg" "$cache/config"   # the kernel build configuration, for the tests
basename "$deb" > "$cache/PACKAGE"
echo "fetch-ppc-kernel: $(cat "$cache/PACKAGE") -> .cache/ppc64el-kernel/vmlinux"
