#!/usr/bin/env bash
# Rebuilds isa/corpus/co/*.co: code objects for the decoder's objdump
# differential (isa/tests/objdump.rs) that exercise encodings the other
# corpora lack (MFMA and AGPRs, DPP, SDWA from 8/16-bit code, scratch).
# OpenCL C in src/, LLVM 19 (Debian packages clang-19, lld-19).
# Usage: isa/corpus/build.sh
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-19}
command -v "$CLANG" >/dev/null || { echo "build.sh: $CLANG not found; apt-get install clang-19 lld-19" >&2; exit 1; }
mkdir -p co
for gpu in gfx908 gfx90a gfx942; do
    "$CLANG" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$gpu" -nogpulib -O2 \
        src/classes.cl -o "co/classes-$gpu.co"
done
