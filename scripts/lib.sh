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
# - gcc: the C compiler for those probes;
# - clang-19, lld-19, llvm-19: build and decode real AMDGPU code objects;
# - libamd-comgr-dev: ROCm's amd_comgr, the metadata benchmark's reference;
# - python3: a second, outside JSON parser for `hsa topology --json`;
# - qemu-system-arm: qemu-system-aarch64, which runs examples/firmware-aarch64.
TEST_PACKAGES=(gcc libhsa-runtime-dev linux-libc-dev clang-19 lld-19 llvm-19 libamd-comgr-dev python3 qemu-system-arm)

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
