#!/usr/bin/env bash
# Makes a foreign first-stage Debian 12 (bookworm) tree for ARCH (a Debian arch name: arm64,
# s390x, ...) whose second stage is then run under endgate (issue 14, item 6):
#
#   scripts/fetch-debian-root.sh ARCH [DIR]
#
# DIR (default .cache/debian-root/ARCH) is made again from scratch, as
# `debootstrap --foreign --arch=ARCH --variant=minbase bookworm DIR` makes it: the essential
# packages unpacked, their .debs in DIR/var/cache/apt/archives/ and DIR/debootstrap/ ready for
# `/debootstrap/debootstrap --second-stage` run inside the tree. Beside them, DIR/root/debs/
# holds the extra packages the tests install in the new system with `dpkg -i`: hello and less
# (two small packages whose dependencies are all essential), and python3 with every package it
# needs that minbase lacks.
#
# Downloads are kept in .cache/debian-root/debs/ARCH/: base.tgz (debootstrap --make-tarball,
# the essential set and the suite's index) and extra/*.deb, so a second run reads no network
# and takes seconds. Packages come from the Debian mirror the machine's apt sources already
# use (scripts/apt-mirror.sh; nothing here names a host), fetched through private apt lists in
# a temporary directory: the system's apt configuration and state are left alone.
#
# debootstrap is installed with apt-get when missing; when that fails (a host whose dpkg
# cannot install anything), its .deb is unpacked into .cache/debootstrap/ and run from there.
# The first stage must run as root (it makes device nodes and chowns files).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
extras=(hello less python3)

say() { echo "fetch-debian-root: $*" >&2; }

arch=${1:-}
if [ -z "$arch" ] || [ $# -gt 2 ]; then
  echo "usage: $0 ARCH [DIR]   (ARCH: a Debian arch name, e.g. arm64 or s390x)" >&2
  exit 2
fi
case "$arch" in *[!a-z0-9]*) say "bad arch name '$arch'"; exit 2 ;; esac
dir=${2:-$top/.cache/debian-root/$arch}
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
cache="$top/.cache/debian-root/debs/$arch"
if [ "$(id -u)" != 0 ]; then
  say "the first stage needs root (debootstrap makes device nodes and chowns files)"
  exit 1
fi

# debootstrap: the installed one, else one unpacked into .cache/debootstrap/.
debootstrap=(debootstrap)
own="$top/.cache/debootstrap"
if ! command -v debootstrap >/dev/null && [ ! -x "$own/usr/sbin/debootstrap" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null 2>&1 || true
fi
if ! command -v debootstrap >/dev/null; then
  if [ ! -x "$own/usr/sbin/debootstrap" ]; then
    say "apt-get cannot install debootstrap here: unpacking its package into .cache/debootstrap/"
    w=$(mktemp -d)
    chmod 777 "$w"
    (cd "$w" && apt-get download -q debootstrap >/dev/null 2>&1) || {
      say "cannot download debootstrap"; rm -rf "$w"; exit 1; }
    rm -rf "$own.part"
    dpkg-deb -x "$w"/debootstrap_*.deb "$own.part"
    rm -rf "$w" "$own"
    mv "$own.part" "$own"
  fi
  export DEBOOTSTRAP_DIR="$own/usr/share/debootstrap"
  debootstrap=("$own/usr/sbin/debootstrap")
fi

# The mirror, only needed while something is missing from the cache.
mirror() {
  [ -z "${uri:-}" ] || return 0
  . "$top/scripts/apt-mirror.sh"
  local found
  found=$(debian_mirror "$suite")
  if [ -z "$found" ]; then
    say "no apt source for Debian '$suite' in /etc/apt/sources.list{,.d/}: cannot find a mirror"
    exit 1
  fi
  read -r uri signed <<<"$found"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$cache"
start=$SECONDS

# 1. The essential set, downloaded once: debootstrap --make-tarball.
if [ ! -s "$cache/base.tgz" ]; then
  mirror
  say "downloading bookworm's minbase set for $arch"
  keyring=()
  [ -z "$signed" ] || keyring=(--keyring="$signed")
  "${debootstrap[@]}" --arch="$arch" --variant=minbase "${keyring[@]}" \
    --make-tarball="$cache/base.tgz.part" "$suite" "$work/tarball" "$uri" >"$work/log" 2>&1 || {
    tail -n 20 "$work/log" >&2; say "debootstrap --make-tarball failed"; exit 1; }
  mv "$cache/base.tgz.part" "$cache/base.tgz"
fi

# 2. The first stage, from the tarball alone (no network).
rm -rf "$dir"
mkdir -p "$dir"
"${debootstrap[@]}" --foreign --arch="$arch" --variant=minbase \
  --unpack-tarball="$cache/base.tgz" "$suite" "$dir" >"$work/log" 2>&1 || {
  tail -n 20 "$work/log" >&2; say "debootstrap --foreign (first stage) failed"; exit 1; }

# 3. The extra packages: what apt would fetch for them on top of the essential set.
if [ ! -f "$cache/extra/DONE" ]; then
  mirror
  say "downloading ${extras[*]} for $arch with what they need beyond minbase"
  # An apt status file saying the first stage's packages are installed, so apt fetches only
  # the rest.
  for deb in "$dir"/var/cache/apt/archives/*.deb; do
    dpkg-deb -f "$deb" Package Version Architecture Multi-Arch Essential Provides \
      Depends Pre-Depends
    echo "Status: install ok installed"
    echo
  done >"$work/status"
  mkdir -p "$work/lists/partial" "$work/archives/partial"
  chmod -R 777 "$work/archives"
  echo "deb [arch=$arch${signed:+ signed-by=$signed}] $uri $suite main" >"$work/sources.list"
  apt_opts=(
    -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
    -o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-"
    -o "Dir::Etc::preferencesparts=-" -o "Dir::State::Lists=$work/lists"
    -o "Dir::State::status=$work/status" -o "Dir::Cache::archives=$work/archives"
    -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
    -o "APT::Install-Recommends=false" -o "Debug::NoLocking=true"
  )
  apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || { say "apt-get update failed"; exit 1; }
  apt-get "${apt_opts[@]}" install -qq -y --download-only "${extras[@]}" >"$work/log" 2>&1 || {
    tail -n 20 "$work/log" >&2; say "cannot download ${extras[*]}"; exit 1; }
  rm -rf "$cache/extra"
  mkdir -p "$cache/extra"
  cp "$work"/archives/*.deb "$cache/extra/"
  date -u +%FT%TZ >"$cache/extra/DONE"
fi
mkdir -p "$dir/root/debs"
cp "$cache"/extra/*.deb "$dir/root/debs/"

say "$arch first stage in $dir ($(du -sh "$dir" | cut -f1), $(ls "$dir"/var/cache/apt/archives/*.deb | wc -l) essential packages, $(ls "$dir"/root/debs/*.deb | wc -l) extra .debs) in $((SECONDS - start)) s"
