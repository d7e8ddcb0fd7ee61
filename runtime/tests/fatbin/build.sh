#!/usr/bin/env bash
# Builds newer-targets-host.o, the HIP fat binary of runtime/tests/inspect_fatbin.rs:
# an x86-64 host ELF whose .hip_fatbin holds one compressed offload bundle in
# the CCOB version 3 format (64-bit sizes, as LLVM 20+ and ROCm 7 write it),
# with the entries of a current fat binary, two of them beyond LLVM 19:
#
#   host-x86_64-unknown-linux--        the empty host entry HIP writes
#   hipv4-amdgcn-amd-amdhsa--gfx90a    clang-19 code object
#   hipv4-amdgcn-amd-amdhsa--gfx1201   clang-19 code object
#   hipv4-amdgcn-amd-amdhsa--gfx1250   a clang-19 gfx1200 code object whose e_flags
#                                      are set to what LLVM main writes for gfx1250
#                                      (0x549: EF_AMDGPU_MACH 0x49, xnack any,
#                                      sramecc any; LLVM 19 calls 0x49 reserved) and
#                                      whose metadata's amdhsa.target says gfx1250
#   hipv4-amdgcn-amd-amdhsa--gfx1299   a clang-19 gfx1200 code object whose
#                                      EF_AMDGPU_MACH is 0x70, a number no LLVM
#                                      assigns (and xnack any set, as a newer
#                                      processor with xnack would have it)
#
# The code objects and the bundle table are LLVM 19's (clang-19,
# clang-offload-bundler-19). clang-offload-bundler-19 writes CCOB version 2 only
# and rewrites ids of processors it does not know ("...--gfx1250-"), so the
# bundle is made with same-length placeholder ids (gfx1200, gfx1100), the two ids
# are patched in the table, and the CCOB v3 header (OffloadBundler.cpp in
# LLVM 20+: magic, u16 version 3, u16 method 0 = zlib, u64 total size, u64
# uncompressed size, u64 low half of the MD5 of the bundle) is written here
# around Python's zlib. The test checks the inner bundle with
# clang-offload-bundler-19 --list.
#
# Usage: runtime/tests/fatbin/build.sh   (needs clang-19, llvm-19, python3)
set -euo pipefail
cd "$(dirname "$0")"
SRC=../../../loader-core/corpus/src
for tool in clang-19 clang-offload-bundler-19 llvm-objcopy-19 python3; do
    command -v "$tool" >/dev/null || {
        echo "build.sh: $tool not found; apt-get install clang-19 llvm-19 python3" >&2
        exit 1
    }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for gpu in gfx90a gfx1201 gfx1200; do
    clang-19 -x cl -cl-std=CL2.0 -I"$SRC" -DCOV=5 -target amdgcn-amd-amdhsa -mcpu="$gpu" \
        -nogpulib -mcode-object-version=5 -O2 "$SRC/vector_add.cl" -o "$TMP/$gpu.co"
done

# patch IN OUT E_FLAGS OLD NEW: sets e_flags (ELF64 offset 48) and renames the
# metadata target (same length, so nothing moves).
patch() {
    python3 - "$@" <<'PY'
import struct, sys
src, dst, flags, old, new = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
b[48:52] = struct.pack('<I', int(flags, 0))
old, new = old.encode(), new.encode()
assert len(old) == len(new) and b.count(old) == 1, (old, b.count(old))
b = b.replace(old, new)
open(dst, 'wb').write(b)
PY
}
patch "$TMP/gfx1200.co" "$TMP/gfx1250.co" 0x549 amdgcn-amd-amdhsa--gfx1200 amdgcn-amd-amdhsa--gfx1250
patch "$TMP/gfx1200.co" "$TMP/gfx1299.co" 0x170 amdgcn-amd-amdhsa--gfx1200 amdgcn-amd-amdhsa--gfx1299

clang-offload-bundler-19 --type=o --bundle-align=4096 \
    --targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1201,hipv4-amdgcn-amd-amdhsa--gfx1200,hipv4-amdgcn-amd-amdhsa--gfx1100 \
    --input=/dev/null --input="$TMP/gfx90a.co" --input="$TMP/gfx1201.co" \
    --input="$TMP/gfx1250.co" --input="$TMP/gfx1299.co" --output="$TMP/plain.bundle"

python3 - "$TMP/plain.bundle" "$TMP/v3.ccob" <<'PY'
import hashlib, struct, sys, zlib
raw = bytearray(open(sys.argv[1], 'rb').read())
for old, new in ((b'hipv4-amdgcn-amd-amdhsa--gfx1200', b'hipv4-amdgcn-amd-amdhsa--gfx1250'),
                 (b'hipv4-amdgcn-amd-amdhsa--gfx1100', b'hipv4-amdgcn-amd-amdhsa--gfx1299')):
    assert raw.count(old) == 1, old
    raw = raw.replace(old, new)
raw = bytes(raw)
z = zlib.compress(raw, 9)
h = struct.unpack('<Q', hashlib.md5(raw).digest()[:8])[0]
hdr = b'CCOB' + struct.pack('<HHQQQ', 3, 0, 32 + len(z), len(raw), h)
open(sys.argv[2], 'wb').write(hdr + z)
PY

echo 'int newer_targets_host_stub(void) { return 0; }' |
    clang-19 -x c -target x86_64-unknown-linux-gnu -c - -o newer-targets-host.o
llvm-objcopy-19 --add-section .hip_fatbin="$TMP/v3.ccob" \
    --set-section-flags .hip_fatbin=alloc,readonly newer-targets-host.o
echo "build.sh: $(stat -c %s newer-targets-host.o) bytes, sha256 $(sha256sum newer-targets-host.o | cut -d' ' -f1)"
