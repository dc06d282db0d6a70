#!/usr/bin/env bash
# Makes qemu-user 10.0.2, the reference emulator endgate is measured against, available as
# static binaries in .cache/qemu-10.0.2/usr/bin/qemu-<arch> (qemu-aarch64, qemu-x86_64, ...),
# beside Debian 12's installed qemu-user 7.2 (/usr/bin/qemu-*, the second reference), which
# it neither replaces nor touches.
#
# The binaries come from Debian's package `qemu-user` in bookworm-backports (from 10.0 on it
# ships static binaries). The suite is fetched from the Debian mirror the machine's apt
# sources already use (deb822 *.sources or classic *.list), through a private sources file
# and private apt lists and cache in a temporary directory: the system's apt configuration
# and state are left as they are. The package version is the backports candidate whose
# upstream version is 10.0.2; the extracted qemu-aarch64 must say "version 10.0.2".
#
# Binaries already present are kept, so a second run does nothing and needs no network.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
upstream=10.0.2
suite=bookworm-backports
base=bookworm            # the suite whose mirror entry the backports suite is added beside
dest="$top/.cache/qemu-$upstream"
# The guest arches' binaries (guest-tests/src/arch.rs, benches/src/workloads.rs).
bins=(qemu-x86_64 qemu-aarch64 qemu-riscv64 qemu-arm qemu-i386 qemu-s390x qemu-mips64el)

say() { echo "fetch-qemu10: $*" >&2; }

# Whether DIR/usr/bin has every binary and its qemu-aarch64 is qemu $upstream.
good() {
  local b
  for b in "${bins[@]}"; do [ -x "$1/usr/bin/$b" ] || return 1; done
  "$1/usr/bin/qemu-aarch64" --version 2>/dev/null | head -n1 \
    | grep -Eq "version ${upstream//./\\.}( |$)"
}

good "$dest" && exit 0

# The mirror: the first enabled `deb` source that serves $base, as "URI [SIGNED-BY]".
. "$top/scripts/apt-mirror.sh"
found=$(debian_mirror "$base")
if [ -z "$found" ]; then
  say "no apt source for Debian '$base' in /etc/apt/sources.list{,.d/}: cannot find a mirror for $suite"
  exit 1
fi
read -r uri signed <<<"$found"

work=$(mktemp -d)
trap 'rm -rf "$work" "$dest.part"' EXIT
chmod 755 "$work"                      # apt's downloads run as user _apt
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
chmod 777 "$work/dl"
arch=$(dpkg --print-architecture)
opt="arch=$arch${signed:+ signed-by=$signed}"
echo "deb [$opt] $uri $suite main" > "$work/sources.list"
apt_opts=(
  -o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
)
say "reading $suite from the machine's Debian mirror"
apt-get "${apt_opts[@]}" update -qq >/dev/null || { say "apt-get update of $suite failed"; exit 1; }
# madison: "qemu-user | VERSION | URI SUITE/main ARCH Packages", one line per version.
version=$(apt-cache "${apt_opts[@]}" madison qemu-user \
  | awk -F' *[|] *' -v s="$suite/" 'index($3, s) { print $2 }' \
  | grep -E "^([0-9]+:)?${upstream//./\\.}[-+~]" | sort -V | tail -n1 || true)
if [ -z "$version" ]; then
  say "$suite has no qemu-user of upstream version $upstream"
  exit 1
fi
(cd "$work/dl" && apt-get "${apt_opts[@]}" download -q "qemu-user=$version" >/dev/null) || {
  say "cannot download qemu-user=$version"; exit 1; }
deb=$(ls "$work"/dl/qemu-user_*.deb)
# Unpack beside, check, then rename: an interrupted run never leaves something that looks
# fetched.
rm -rf "$dest.part"
mkdir -p "$dest.part"
dpkg-deb -x "$deb" "$dest.part"
if ! good "$dest.part"; then
  say "$(basename "$deb") does not hold qemu $upstream binaries for ${bins[*]}"
  exit 1
fi
basename "$deb" > "$dest.part/PACKAGE"
rm -rf "$dest"
mv "$dest.part" "$dest"
say "$(cat "$dest/PACKAGE") -> .cache/qemu-$upstream/usr/bin/ ($("$dest/usr/bin/qemu-aarch64" --version | head -n1))"
