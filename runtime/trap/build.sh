#!/usr/bin/env bash
# Assembles the GFX9 trap handler (trap_handler.s) with LLVM 19's llvm-mc
# (Debian package llvm-19) and extracts its code bytes into
# trap_handler_gfx9.bin, which is committed and included by
# runtime/src/trap.rs. Every GFX9 processor the runtime installs it on must
# encode it to the same bytes; the script checks that and fails otherwise.
# Usage: runtime/trap/build.sh [OUT] (default trap_handler_gfx9.bin; rerunning
# it reproduces the committed bytes: check with `git diff --exit-code runtime/trap`).
set -euo pipefail
cd "$(dirname "$0")"
MC=${LLVM_MC:-llvm-mc-19}
OBJCOPY=${LLVM_OBJCOPY:-llvm-objcopy-19}
for tool in "$MC" "$OBJCOPY"; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool not found; apt-get install llvm-19" >&2; exit 1; }
done
OUT=${1:-trap_handler_gfx9.bin}
# Keep this list in step with GFX9_TARGETS in runtime/src/trap.rs.
GPUS="gfx900 gfx906 gfx908 gfx90a"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for gpu in $GPUS; do
    "$MC" -triple amdgcn-amd-amdhsa -mcpu="$gpu" -filetype=obj trap_handler.s -o "$tmp/$gpu.o"
    "$OBJCOPY" -O binary --only-section=.text "$tmp/$gpu.o" "$tmp/$gpu.bin"
done
first=${GPUS%% *}
for gpu in $GPUS; do
    cmp -s "$tmp/$first.bin" "$tmp/$gpu.bin" || {
        echo "build.sh: $gpu encodes the handler differently from $first" >&2; exit 1; }
done
cp "$tmp/$first.bin" "$OUT"
