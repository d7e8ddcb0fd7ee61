#!/usr/bin/env bash
# Rebuilds faults.co from faults.cl (clang-19 from Debian's clang-19 package).
set -euo pipefail
cd "$(dirname "$0")"
clang-19 -x cl -cl-std=CL2.0 -DCOV=5 -I../../loader-core/corpus/src -target amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -O2 \
    -mcode-object-version=5 -o faults.co faults.cl
