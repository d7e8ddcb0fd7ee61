#!/usr/bin/env bash
# Rebuilds the code objects of runtime/tests/kernarg.rs and records, next to
# each, what llvm-readelf-19 --notes says of its metadata (the test's oracle for
# the kernarg layouts: offsets, sizes and kinds come from readelf, not from our
# metadata reader).
#
#   kernarg-gfx90a-v4.co, kernarg-gfx90a-v5.co   kernarg.cl, clang-19, gfx90a, COv4 / COv5
#   apertures-gfx803-v5.co                       apertures.cl, clang-19, gfx803, COv5
#                                                (hidden_private_base, hidden_shared_base)
#   hip-gfx90a-default.co                        hip_probe.hip, hipcc (HIP 5.2.3) --genco,
#                                                its default code object version (v4)
#   hip-gfx90a-v5.co                             the same at -mcode-object-version=5
#
# The OpenCL kernels link the ROCm device libraries (Debian rocm-device-libs):
# -nogpulib leaves get_global_id and the other work-item functions undefined,
# and it is the device library's reading of the hidden arguments that matters.
# hipcc writes an offload bundle; the gfx90a code object is unbundled from it.
#
# Usage: runtime/tests/kernels/build.sh  (needs clang-19, llvm-19, hipcc, rocm-device-libs)
set -euo pipefail
cd "$(dirname "$0")"
DL=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
for tool in clang-19 llvm-readelf-19 clang-offload-bundler-19 hipcc; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool not found" >&2; exit 1; }
done
[ -f "$DL/ockl.bc" ] || { echo "build.sh: $DL/ockl.bc not found (apt-get install rocm-device-libs)" >&2; exit 1; }

cl() { # cl SOURCE MCPU COV OUT [EXTRA...]
    local src=$1 mcpu=$2 cov=$3 out=$4; shift 4
    clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$mcpu" -O2 \
        -mcode-object-version="$cov" --rocm-device-lib-path="$DL" "$@" "$src" -o "$out"
}
# -cl-kernel-arg-info: the metadata names the arguments (.name); the
# apertures kernel goes without, so messages for unnamed arguments are tested.
cl kernarg.cl gfx90a 4 kernarg-gfx90a-v4.co -cl-kernel-arg-info
cl kernarg.cl gfx90a 5 kernarg-gfx90a-v5.co -cl-kernel-arg-info
cl apertures.cl gfx803 5 apertures-gfx803-v5.co

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
hip() { # hip OUT [EXTRA...]
    local out=$1; shift
    # hipcc asks rocm_agent_enumerator for the local GPUs even with
    # --offload-arch; without a GPU that prints a traceback and goes on.
    hipcc --offload-arch=gfx90a --genco "$@" hip_probe.hip -o "$TMP/bundle" 2>/dev/null
    clang-offload-bundler-19 --unbundle --type=o --input="$TMP/bundle" \
        --targets=hipv4-amdgcn-amd-amdhsa--gfx90a --output="$out"
}
hip hip-gfx90a-default.co
hip hip-gfx90a-v5.co -mcode-object-version=5

for co in *.co; do
    llvm-readelf-19 --notes "$co" > "${co%.co}.notes.txt"
done
