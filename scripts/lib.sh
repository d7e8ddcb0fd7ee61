# Shared helpers for the scripts in this folder (sourced, not run).

# ensure_packages PKG...: installs the Debian packages that are missing.
# Needs root or sudo; otherwise it says exactly what to install and fails.
ensure_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "scripts: installing Debian packages: ${missing[*]}" >&2
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "scripts: these Debian packages are needed and I am not root: ${missing[*]}" >&2
            echo "scripts: run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
            return 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq >&2 || {
        echo "scripts: apt-get update failed; cannot install ${missing[*]}" >&2
        return 1
    }
    "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2 || {
        echo "scripts: apt-get install ${missing[*]} failed" >&2
        return 1
    }
}

# The Debian packages the test suite needs:
# - libhsa-runtime-dev: ROCr 5.2.3's hsa/*.h for the ABI parity tests;
# - linux-libc-dev: linux/kfd_ioctl.h for the KFD ABI test;
# - gcc: the C compiler for those probes; g++: the C++ probes of the C ABI
#   library (hsa_api_trace.h is C++; prototypes read with type traits);
# - clang-19, lld-19, llvm-19: build and decode real AMDGPU code objects;
# - libamd-comgr-dev: ROCm's amd_comgr, the metadata benchmark's reference;
# - python3: a second, outside JSON parser for `hsa topology --json`;
# - python3, python3-pip: `pip download` of the tinygrad wheel whose ctypes
#   files are the outside oracle of the newer KFD structs (fetch_tinygrad).
# - rocminfo, hipcc: Debian's rocminfo 5.2.3 and a hipcc-built HIP 5.2.3 program,
#   run unmodified on the C ABI library
#   (cabi/tests/rocminfo.rs, cabi/tests/hip.rs);
# - qemu-system-arm: qemu-system-aarch64 and qemu-system-arm, which run
#   examples/firmware-aarch64 and examples/emulated-atomics-m4.
# - rocminfo: AMD's rocminfo, run on Debian's ROCr over the sim
#   (scripts/test-rocr-on-sim); libdrm-dev: libdrm's amdgpu_drm.h and
#   drm.h, against which the sim's DRM structs are checked; hipcc,
#   libamdhip64-dev: a HIP program on Debian's HIP 5.2.3 over ROCr over the
#   sim (the same script).
# - librocrand-dev: rocRAND's host API for the HIP rocRAND check
#   (cabi/tests/hip_programs.rs).
TEST_PACKAGES=(gcc g++ libhsa-runtime-dev linux-libc-dev clang-19 lld-19 llvm-19 libamd-comgr-dev python3 python3-pip qemu-system-arm rocminfo libdrm-dev hipcc libamdhip64-dev librocrand-dev)

# fetch_tinygrad DIR: the tinygrad wheel (read as data by
# tests/tests/kfd_tinygrad.rs, never installed or imported) into DIR, once.
TINYGRAD_VERSION=0.14.0
fetch_tinygrad() {
    local dir="$1" wheel="$1/tinygrad-${TINYGRAD_VERSION}-py3-none-any.whl"
    if [ -f "$wheel" ]; then
        echo "scripts: $wheel (cached)"
        return 0
    fi
    mkdir -p "$dir"
    python3 -m pip download --no-deps --quiet "tinygrad==${TINYGRAD_VERSION}" -d "$dir" || {
        echo "scripts: pip download tinygrad==${TINYGRAD_VERSION} failed (needs PyPI)" >&2
        return 1
    }
    [ -f "$wheel" ] || { echo "scripts: $wheel missing after pip download" >&2; return 1; }
}

# The bare-metal targets CI builds the core crates for: with native 64-bit
# atomics, and without (those need the cores' `portable-atomic` feature).
BARE_METAL_TARGETS=(x86_64-unknown-none aarch64-unknown-none riscv64gc-unknown-none-elf)
BARE_METAL_TARGETS_NO_ATOMIC64=(thumbv7em-none-eabihf riscv32imac-unknown-none-elf)

# ensure_rust_targets TARGET...: installs the rustup targets that are missing
# (the bare-metal builds of the cores, the firmware example).
ensure_rust_targets() {
    local installed missing=()
    installed=$(rustup target list --installed)
    for t in "$@"; do
        grep -qxF "$t" <<<"$installed" || missing+=("$t")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "scripts: installing Rust targets: ${missing[*]}" >&2
    rustup target add "${missing[@]}" >&2
}

# Prints a phase heading with the free space of the build's file system and
# the size of the target directory, so that a run which dies of a full disk
# (the linker killed by SIGBUS) shows where the space went.
phase() {
    local target="${CARGO_TARGET_DIR:-target}"
    local free used
    # Never fatal under `set -e -o pipefail` (no target dir yet, say).
    free=$(df -Ph . 2>/dev/null | awk 'NR == 2 { print $4 }' || true)
    used=$(du -sh "$target" 2>/dev/null | cut -f1 || true)
    echo "== $* (disk: ${free:-?} free, ${target} ${used:-0})"
}
