#!/usr/bin/env bash
# Rebuilds the example guest from hello.c (needs gcc-aarch64-linux-gnu).
set -euo pipefail
cd "$(dirname "$0")"
aarch64-linux-gnu-gcc -static -Os -s hello.c -o hello-aarch64
