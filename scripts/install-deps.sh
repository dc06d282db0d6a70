#!/usr/bin/env bash
# Installs what building and testing endgate need on Debian 12, skipping what is present.
#   --build   only the build needs (cmake, ninja, patch, libclang for unicorn's bindings, a C
#             compiler and glibc's static libraries; unicorn/sys builds unicorn from its published source with endgate's
#             patches)
#   (default) build needs + cross compilers + Debian 12's qemu-user 7.2 (the second reference
#             emulator) and, through scripts/fetch-qemu10.sh, qemu-user 10.0.2's static binaries
#             in .cache/qemu-10.0.2/ (the reference; not installed), and for host-shims' POWER tests
#             the ppc64/ppc64le cross compilers, qemu-system-ppc, cpio (the ppc64el kernel
#             itself comes from scripts/fetch-ppc-kernel.sh), golang-go (the Go guest test),
#             gdb-multiarch (the -g test), g++ (libFuzzer, for scripts/fuzz.sh)
# Never installs Debian's libunicorn-dev: endgate builds its own patched unicorn (unicorn/sys) and
# does not look for a system library, but other tools might pick that old 2.0.1 library up.
set -euo pipefail
mode=${1:-all}
# libc6-dev: glibc's headers and its static libc.a, which `cargo build-static` links
# (docs/static.md).
pkgs=(cmake ninja-build patch libclang-dev clang gcc libc6-dev make)
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if [ "$mode" != "--build" ]; then
  # g++: scripts/fuzz.sh's libfuzzer-sys compiles libFuzzer (C++).
  pkgs+=(g++)
  # libasan8-arm64-cross: emulator/tests/sanitizers.rs builds an AddressSanitizer aarch64 guest.
  pkgs+=(libasan8-arm64-cross)
  pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user binutils file xz-utils musl-tools musl-dev:arm64)
  pkgs+=(gcc-mips64el-linux-gnuabi64 libc6-dev-mips64el-cross)
  pkgs+=(gcc-powerpc64-linux-gnu gcc-powerpc64le-linux-gnu qemu-system-ppc cpio)
  # guest-tests' arm (armhf), i386, s390x and mips64el programs: cross gcc + static glibc.
  pkgs+=(gcc-arm-linux-gnueabihf libc6-dev-armhf-cross gcc-i686-linux-gnu libc6-dev-i386-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross gcc-mips64el-linux-gnuabi64 libc6-dev-mips64el-cross)
  # emulator/tests/go.rs: a Go program cross-built (CGO off, static) for every guest arch.
  pkgs+=(golang-go)
  # emulator/tests/gdb.rs: Debian's gdb-multiarch drives endgate -g PORT.
  pkgs+=(gdb-multiarch)
  # musl-dev:arm64 (static musl for aarch64 guests) is a foreign-architecture package.
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
  fi
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if dpkg-query -W -f='${Status}' libunicorn-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "install-deps: note: Debian's libunicorn-dev (unicorn 2.0.1) is installed; endgate does not use it" >&2
  echo "install-deps: (unicorn/sys builds unicorn 2.1.5 with endgate's patches and never asks pkg-config)." >&2
fi
if [ "$mode" != "--build" ]; then
  # qemu-user 10.0.2, the peer endgate is measured against, beside the installed 7.2.
  "$(dirname "$0")/fetch-qemu10.sh"
fi
