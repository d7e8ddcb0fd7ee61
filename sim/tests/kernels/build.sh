#!/usr/bin/env bash
# Builds the shader-core conformance code objects from src/*.cl with LLVM 19
# (Debian packages clang-19, lld-19): gfx90a, code object v5, one object per
# source. Usage: sim/tests/kernels/build.sh. The objects are committed.
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-19}
command -v "$CLANG" >/dev/null || { echo "build.sh: $CLANG not found; apt-get install clang-19 lld-19" >&2; exit 1; }
for src in src/*.cl; do
    name=$(basename "$src" .cl)
    # fastdiv.cl keeps OpenCL's default (2.5 ulp) f32 division.
    cr=-cl-fp32-correctly-rounded-divide-sqrt
    [ "$name" = fastdiv ] && cr=
    # ftz.cl flushes f32 denormals.
    [ "$name" = ftz ] && cr="$cr -cl-denorms-are-zero"
    "$CLANG" -x cl -cl-std=CL2.0 -DCOV=5 -I../../../loader-core/corpus/src -Isrc \
        -target amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -mcode-object-version=5 -O2 \
        $cr "$src" -o "$name.co"
done
