#!/usr/bin/env bash
# Builds the blit kernels (blit.cl) into one code object per processor,
# blit-<gpu>.co, with LLVM 19 (Debian packages clang-19, lld-19): code object
# v5, xnack and sramecc "any", so one object serves every variant of a
# processor. The objects are committed; runtime/src/blit.rs includes them.
# Usage: runtime/blit/build.sh (rerunning it reproduces the committed bytes:
# check with `git diff --exit-code runtime/blit`).
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-19}
command -v "$CLANG" >/dev/null || { echo "build.sh: $CLANG not found; apt-get install clang-19 lld-19" >&2; exit 1; }
# gfx90a (MI210, MI250X) and gfx942 (MI300X) are the sim's boards; the others
# are GPUs users may have. Keep this list in step with GPUS in runtime/src/blit.rs.
GPUS="gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100"
for gpu in $GPUS; do
    "$CLANG" -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu="$gpu" -nogpulib -O3 \
        -mcode-object-version=5 blit.cl -o "blit-$gpu.co"
done
