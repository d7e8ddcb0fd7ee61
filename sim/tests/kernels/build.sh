#!/usr/bin/env bash
# Builds the shader-core conformance code objects from src/*.cl with LLVM 19
# (Debian packages clang-19, lld-19) and src/*.s with llvm-mc-19: gfx90a
# (src/*_gfx942.s: gfx942),
# code object v5, one object per source. Usage: sim/tests/kernels/build.sh. The objects are committed.
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

# GFX9 assembly: llvm-mc-19 and ld.lld-19 (Debian packages llvm-19, lld-19).
MC=${MC:-llvm-mc-19}
LLD=${LLD:-ld.lld-19}
for src in src/*.s; do
    [ -e "$src" ] || continue
    name=$(basename "$src" .s)
    # *_gfx942.s: MI300 code (gfx942-only instructions), the rest gfx90a.
    mcpu=gfx90a
    case "$name" in *_gfx942) mcpu=gfx942 ;; esac
    tmp=$(mktemp)
    "$MC" -triple=amdgcn-amd-amdhsa -mcpu="$mcpu" -filetype=obj "$src" -o "$tmp"
    "$LLD" -shared "$tmp" -o "$name.co"
    rm -f "$tmp"
done
# The tests find trap_handler at trap_kernel's entry + 0x100, ttmp_handler at + 0x200.
readelf=${READELF:-llvm-readelf-19}
k=$("$readelf" -s trap.co | awk '$8 == "trap_kernel" { print $2; exit }')
h=$("$readelf" -s trap.co | awk '$8 == "trap_handler" { print $2; exit }')
[ $((16#$h - 16#$k)) -eq 256 ] || { echo "build.sh: trap_handler is not at trap_kernel + 0x100" >&2; exit 1; }
h=$("$readelf" -s trap.co | awk '$8 == "ttmp_handler" { print $2; exit }')
[ $((16#$h - 16#$k)) -eq 512 ] || { echo "build.sh: ttmp_handler is not at trap_kernel + 0x200" >&2; exit 1; }

# HIP sources: Debian's hipcc (HIP 5.2.3, its clang 15) for gfx90a, code
# object v4 (hipcc's default); --genco gives a clang offload bundle, whose
# gfx90a code object is unbundled into $name.co.
HIPCC=${HIPCC:-hipcc}
BUNDLER=${BUNDLER:-clang-offload-bundler-15}
for src in src/*.hip; do
    [ -e "$src" ] || continue
    command -v "$HIPCC" >/dev/null || { echo "build.sh: $HIPCC not found; apt-get install hipcc" >&2; exit 1; }
    name=$(basename "$src" .hip)
    tmp=$(mktemp)
    # hipcc asks rocm_agent_enumerator for local GPUs first; with
    # --offload-arch given, its complaint about a missing /sys/class/kfd is noise.
    "$HIPCC" --offload-arch=gfx90a --genco -O2 "$src" -o "$tmp" 2>/dev/null \
        || { "$HIPCC" --offload-arch=gfx90a --genco -O2 "$src" -o "$tmp"; rm -f "$tmp"; exit 1; }
    "$BUNDLER" --type=o --targets=hipv4-amdgcn-amd-amdhsa--gfx90a --input="$tmp" \
        --output="$name.co" --unbundle
    rm -f "$tmp"
done
