#!/usr/bin/env bash
# Rebuilds kernels-host.o from kernels.hip with Debian bookworm's hipcc
# (packages hipcc, libamdhip64-dev: HIP 5.2, clang 15): an x86-64 host
# object whose .hip_fatbin section is a clang offload bundle of code objects
# (v4) for gfx90a and gfx1030, the form the HIP runtime hands to the loader.
# Usage: runtime/tests/hip/build.sh
set -euo pipefail
cd "$(dirname "$0")"
command -v hipcc >/dev/null || {
    echo "build.sh: hipcc not found; apt-get install hipcc" >&2
    exit 1
}
# HIP_PLATFORM/ROCM path probing is skipped by naming the targets.
hipcc --offload-arch=gfx90a --offload-arch=gfx1030 -O2 -c kernels.hip -o kernels-host.o 2>/dev/null
echo "build.sh: $(stat -c %s kernels-host.o) bytes, sha256 $(sha256sum kernels-host.o | cut -d' ' -f1)"
