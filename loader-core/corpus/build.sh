#!/usr/bin/env bash
# Rebuilds every fixture of the loader-core code-object corpus from the
# OpenCL C sources in src/, with LLVM 19 (Debian packages clang-19, lld-19,
# llvm-19). Usage: loader-core/corpus/build.sh
#
# Outputs (all committed; see README.md):
#   co/<target>-v<N>[-<variant>].co   AMDGPU code objects (ELF shared objects, as
#                                     ROCr loads them), all kernels of src/*.cl
#   relocations/*.co                  objects with dynamic relocations / an undefined symbol
#   bundle/*.bundle                   clang offload bundles of some of them,
#                                     uncompressed and compressed (CCOB)
#   bundle/fatbin-host.o              an x86-64 host ELF with a .hip_fatbin section
#   MANIFEST                          tool versions, sizes and sha256 of every output
#   ../../fuzz/corpus/loader_*/       seeds for the loader fuzz targets
set -euo pipefail
cd "$(dirname "$0")"

CLANG=${CLANG:-clang-19}
BUNDLER=${BUNDLER:-clang-offload-bundler-19}
OBJCOPY=${OBJCOPY:-llvm-objcopy-19}
for tool in "$CLANG" "$BUNDLER" "$OBJCOPY" ld.lld-19; do
    command -v "$tool" >/dev/null || {
        echo "build.sh: $tool not found; apt-get install clang-19 lld-19 llvm-19" >&2
        exit 1
    }
done

SOURCES=(src/vector_add.cl src/saxpy.cl src/reduce_lds.cl src/atomics.cl src/implicit_args.cl
    src/metadata_stress.cl)

rm -rf co bundle relocations
mkdir -p co bundle relocations

# build NAME TARGET_ID COV [EXTRA CLANG FLAGS...]
# -flto links all sources as one module, so the object has a single
# NT_AMDGPU_METADATA note, as hipcc/clang's offload linker produces.
build() {
    local name=$1 target=$2 cov=$3
    shift 3
    "$CLANG" -x cl -cl-std=CL2.0 -Isrc -DCOV="$cov" -target amdgcn-amd-amdhsa -mcpu="$target" \
        -nogpulib -mcode-object-version="$cov" -flto -O2 "$@" "${SOURCES[@]}" -o "co/$name.co" \
        2> >(grep -v 'code object v6 is still in development' >&2)
}

# Every required processor with every code-object version clang-19 emits.
for gpu in gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1200; do
    for cov in 4 5 6; do
        build "$gpu-v$cov" "$gpu" "$cov"
    done
done

# Generic targets (code-object v6 only).
for gpu in gfx9-generic gfx10-1-generic gfx10-3-generic gfx11-generic gfx12-generic; do
    build "$gpu-v6" "$gpu" 6
done

# xnack / sramecc target features: on, off, and (by omission above) any.
build "gfx900-v5-xnack+" "gfx900:xnack+" 5
build "gfx906-v4-xnack-" "gfx906:xnack-" 4
build "gfx908-v4-sramecc+" "gfx908:sramecc+" 4
build "gfx90a-v5-xnack+" "gfx90a:xnack+" 5
build "gfx90a-v5-sramecc-xnack-" "gfx90a:sramecc-:xnack-" 5
build "gfx942-v6-sramecc+xnack+" "gfx942:sramecc+:xnack+" 6
build "gfx9-generic-v6-xnack+" "gfx9-generic:xnack+" 6

# Code-generation variants that change kernel descriptors and metadata.
build "gfx1030-v5-wave64" gfx1030 5 -mwavefrontsize64
build "gfx1100-v5-cumode" gfx1100 5 -mcumode
build "gfx942-v5-kernarg-preload" gfx942 5 -mllvm -amdgpu-kernarg-preload-count=8
build "gfx90a-v5-O0" gfx90a 5 -O0

# Small single-source objects: bases for the hand-made malformed inputs
# (loader-core/tests/malformed.rs) and fuzz seeds, where size matters.
build_small() {
    local name=$1 target=$2 cov=$3
    "$CLANG" -x cl -cl-std=CL2.0 -Isrc -DCOV="$cov" -target amdgcn-amd-amdhsa -mcpu="$target" \
        -nogpulib -mcode-object-version="$cov" -O2 src/vector_add.cl -o "co/$name.co" \
        2> >(grep -v 'code object v6 is still in development' >&2)
}
build_small "small-gfx900-v4" gfx900 4
build_small "small-gfx90a-v5" gfx90a 5
build_small "small-gfx1100-v6" gfx1100 6

# Objects with dynamic relocations (globals.cl: R_AMDGPU_ABS64 against
# exported variables), and with an undefined symbol the loader must resolve
# (-DEXTERNAL_SYMBOL, linked with -z undefs). Kept out of co/, whose objects
# have no relocations and load with no resolver.
reloc() {
    local name=$1 target=$2 cov=$3
    shift 3
    "$CLANG" -x cl -cl-std=CL2.0 -Isrc -DCOV="$cov" -target amdgcn-amd-amdhsa -mcpu="$target" \
        -nogpulib -mcode-object-version="$cov" -flto -O2 "$@" src/globals.cl \
        -o "relocations/$name.co" 2> >(grep -v 'code object v6 is still in development' >&2)
}
reloc globals-gfx90a-v5 gfx90a 5
reloc globals-gfx1030-v4 gfx1030 4
reloc globals-external-gfx90a-v5 gfx90a 5 -DEXTERNAL_SYMBOL -Wl,-z,undefs
reloc globals-external-gfx1100-v6 gfx1100 6 -DEXTERNAL_SYMBOL -Wl,-z,undefs

# Offload bundles: entries named as hipcc names them
# (<offload kind>-<triple>-<target id>), plus the host entry.
HOST_STUB=$(mktemp --suffix=.o)
trap 'rm -f "$HOST_STUB"' EXIT
echo 'int corpus_host_stub(void) { return 0; }' |
    "$CLANG" -x c -target x86_64-unknown-linux-gnu -c - -o "$HOST_STUB"
BUNDLE_TARGETS="host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+,hipv4-amdgcn-amd-amdhsa--gfx1030,hipv4-amdgcn-amd-amdhsa--gfx11-generic"
# As the HIP driver does: an empty host entry, 4 KiB-aligned device entries,
# which makes the bundler write the binary (__CLANG_OFFLOAD_BUNDLE__) format.
BUNDLE_INPUTS=(--bundle-align=4096 --input=/dev/null --input=co/gfx90a-v5-xnack+.co --input=co/gfx1030-v5.co
    --input=co/gfx11-generic-v6.co)
"$BUNDLER" --type=o --targets="$BUNDLE_TARGETS" "${BUNDLE_INPUTS[@]}" --output=bundle/three-targets.bundle
"$BUNDLER" --type=o --targets="$BUNDLE_TARGETS" "${BUNDLE_INPUTS[@]}" --compress \
    --output=bundle/three-targets-compressed.bundle

# A host ELF that carries the bundle in .hip_fatbin, as a HIP program does.
cp "$HOST_STUB" bundle/fatbin-host.o
"$OBJCOPY" --add-section .hip_fatbin=bundle/three-targets-compressed.bundle \
    --set-section-flags .hip_fatbin=alloc,readonly \
    bundle/fatbin-host.o

# Small bundles (default 8-byte alignment) of the small objects.
SMALL_INPUTS=(--input=/dev/null --input=co/small-gfx90a-v5.co --input=co/small-gfx1100-v6.co)
SMALL_TARGETS="host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1100"
"$BUNDLER" --type=o --targets="$SMALL_TARGETS" "${SMALL_INPUTS[@]}" --output=bundle/small.bundle
"$BUNDLER" --type=o --targets="$SMALL_TARGETS" "${SMALL_INPUTS[@]}" --compress \
    --output=bundle/small-compressed.bundle
cp "$HOST_STUB" bundle/small-fatbin-host.o
"$OBJCOPY" --add-section .hip_fatbin=bundle/small-compressed.bundle \
    --set-section-flags .hip_fatbin=alloc,readonly bundle/small-fatbin-host.o

# Fuzz seeds (fuzz/corpus/loader_<target>/), kept small: a few hundred KB.
FUZZ=../../fuzz/corpus
# Only the seeds at the top of each folder are rewritten; `found/` keeps the
# small inputs the fuzzers discovered (see README.md).
mkdir -p "$FUZZ"/loader_code_object
find "$FUZZ"/loader_* -maxdepth 1 -type f -delete
mkdir -p "$FUZZ"/loader_code_object "$FUZZ"/loader_metadata "$FUZZ"/loader_kernel_descriptor \
    "$FUZZ"/loader_bundle "$FUZZ"/loader_load
for f in co/small-*.co co/gfx942-v5-kernarg-preload.co relocations/*.co; do
    cp "$f" "$FUZZ/loader_code_object/"
    cp "$f" "$FUZZ/loader_load/"
done
cp bundle/small.bundle bundle/small-compressed.bundle bundle/small-fatbin-host.o "$FUZZ/loader_bundle/"
# Metadata seeds: the NT_AMDGPU_METADATA descriptor of each object's first
# note (12-byte header, name "AMDGPU\0" padded to 8).
for f in co/small-gfx90a-v5.co co/gfx90a-v5.co co/gfx1100-v4.co co/gfx90a-v5-O0.co; do
    "$OBJCOPY" --dump-section .note="$FUZZ/loader_metadata/.note" "$f" /dev/null
    descsz=$(od -An -t u4 -j 4 -N 4 "$FUZZ/loader_metadata/.note" | tr -d ' ')
    dd if="$FUZZ/loader_metadata/.note" of="$FUZZ/loader_metadata/$(basename "$f" .co).msgpack" \
        bs=1 skip=20 count="$descsz" status=none
    rm "$FUZZ/loader_metadata/.note"
done
# Kernel-descriptor seeds: a selector byte (GpuFamily index | (version - 3) << 4,
# see loader-core/tests/malformed/walk.rs) and the first descriptor in .rodata.
kd_seed() {
    local f=$1 selector=$2
    "$OBJCOPY" --dump-section .rodata="$FUZZ/loader_kernel_descriptor/.rodata" "$f" /dev/null
    {
        printf "\\$(printf '%03o' "$selector")"
        head -c 64 "$FUZZ/loader_kernel_descriptor/.rodata"
    } > "$FUZZ/loader_kernel_descriptor/$(basename "$f" .co).kd"
    rm "$FUZZ/loader_kernel_descriptor/.rodata"
}
kd_seed co/gfx900-v4.co $((3 | 1 << 4))
kd_seed co/gfx90a-v5.co $((4 | 2 << 4))
kd_seed co/gfx942-v5-kernarg-preload.co $((5 | 2 << 4))
kd_seed co/gfx1030-v5.co $((6 | 2 << 4))
kd_seed co/gfx1030-v5-wave64.co $((6 | 2 << 4))
kd_seed co/gfx1100-v6.co $((7 | 3 << 4))
kd_seed co/gfx1200-v6.co $((8 | 3 << 4))

{
    echo "# Generated by loader-core/corpus/build.sh; do not edit."
    echo "# $("$CLANG" --version | head -1)"
    echo "# $(ld.lld-19 --version | head -1)"
    echo "# $("$BUNDLER" --version 2>&1 | grep -i version | head -1 | sed 's/^ *//')"
    echo "# sha256  size  file"
    for f in co/*.co relocations/*.co bundle/*; do
        printf '%s  %s  %s\n' "$(sha256sum "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "$f"
    done
} > MANIFEST
echo "build.sh: $(ls co | wc -l) code objects, $(ls bundle | wc -l) bundle files, $(du -sh co bundle | awk '{print $1}' | paste -sd' ')"
