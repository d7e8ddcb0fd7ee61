// Blit kernels of the HSA runtime: the copies of hsa_amd_memory_async_copy
// when the SDMA engines are not used (HSA_ENABLE_SDMA=0, or a copy the
// runtime keeps on the shader engines) and the dword fill of
// hsa_amd_memory_fill. Built by build.sh into blit-<gpu>.co; the runtime
// picks the object by the agent's processor (runtime/src/blit.rs), which
// also holds the argument layouts below as constants and the planning
// functions that fill them.
//
// Dispatch contract, all three kernels:
// - a 1D grid of work-groups of exactly BLIT_WG (256) work-items; the grid
//   size (a multiple of 256, at most 2^32 - 256) is passed again as the
//   `workitems` argument, which is the stride of every grid-stride loop, so
//   one dispatch of a bounded grid covers any size (sizes are 64-bit);
// - `workitems` >= 16 (the head/tail phases give one byte or dword per
//   work-item and have fewer than 16 of them);
// - no hidden arguments are read (no get_global_id and friends): the ids
//   come from the work-group and work-item id registers, so the runtime only
//   fills the explicit arguments;
// - the ranges of a copy must not overlap (like memcpy): the result of an
//   overlapping copy is unspecified.
//
// Every explicit argument is 8 bytes at an 8-byte aligned offset (the `fill`
// value is 4 bytes followed by 4 bytes of padding), so the layouts are
// fixed by the order alone:
//
// copy_aligned(dst, src, size, workitems)            32 bytes
//   0  global uchar *dst     destination
//   8  global uchar *src     source; (dst ^ src) & 3 == 0
//   16 ulong size            bytes
//   24 ulong workitems       grid size in work-items
//   Bytes up to the first 16-byte aligned destination address, then 16-byte
//   units (16-byte aligned stores, 4-byte aligned loads), then the last
//   (< 16) bytes one per work-item.
//
// copy_misaligned(dst, src, size, workitems)         32 bytes
//   0  global uchar *dst     destination
//   8  global uchar *src     source, any alignment
//   16 ulong size            bytes
//   24 ulong workitems       grid size in work-items
//   Bytes up to the first 4-byte aligned destination address, then whole
//   destination dwords, each assembled from the two aligned source dwords
//   that hold its bytes (so every load and store is a dword; a load never
//   leaves the dwords that hold source bytes, so it stays on mapped pages),
//   then the last (< 4) bytes one per work-item.
//
// fill(dst, value, count, workitems)                  32 bytes
//   0  global uint *dst      destination, 4-byte aligned
//   8  uint value            the 32-bit pattern (then 4 bytes of padding)
//   16 ulong count           dwords
//   24 ulong workitems       grid size in work-items
//   Dwords up to the first 16-byte aligned address, then 16-byte stores,
//   then the last (< 4) dwords one per work-item.

#define BLIT_WG 256

// A 16-byte vector that is only 4-byte aligned: the source of copy_aligned
// (a dword-aligned dwordx4 access is fine for global memory).
typedef uint4 __attribute__((aligned(4))) uint4_a4;

// The flat work-item id (no hidden arguments: the work-group size is fixed).
static inline ulong blit_id(void) {
    return (ulong)__builtin_amdgcn_workgroup_id_x() * BLIT_WG +
           __builtin_amdgcn_workitem_id_x();
}

kernel __attribute__((reqd_work_group_size(BLIT_WG, 1, 1))) void
copy_aligned(global uchar *restrict dst, global const uchar *restrict src,
             ulong size, ulong workitems) {
    const ulong id = blit_id();
    ulong head = (16 - ((ulong)dst & 15)) & 15;
    if (head > size)
        head = size;
    if (id < head)
        dst[id] = src[id];
    const ulong units = (size - head) >> 4;
    global uint4 *d = (global uint4 *)(dst + head);
    // src + head is 4-byte aligned (same residue mod 4 as dst), not 16.
    global const uint4_a4 *s = (global const uint4_a4 *)(src + head);
    for (ulong i = id; i < units; i += workitems)
        d[i] = s[i];
    const ulong done = head + (units << 4);
    if (id < size - done)
        dst[done + id] = src[done + id];
}

kernel __attribute__((reqd_work_group_size(BLIT_WG, 1, 1))) void
copy_misaligned(global uchar *restrict dst, global const uchar *restrict src,
                ulong size, ulong workitems) {
    const ulong id = blit_id();
    ulong head = (4 - ((ulong)dst & 3)) & 3;
    if (head > size)
        head = size;
    if (id < head)
        dst[id] = src[id];
    const ulong words = (size - head) >> 2;
    global uint *d = (global uint *)(dst + head);
    const ulong first = (ulong)(src + head);
    // The source bytes of destination dword i start at byte `shift` of the
    // aligned source dword i (and run into dword i + 1 when shift != 0).
    const uint shift = (uint)(first & 3) * 8;
    global const uint *s = (global const uint *)(first & ~(ulong)3);
    if (shift == 0) {
        for (ulong i = id; i < words; i += workitems)
            d[i] = s[i];
    } else {
        for (ulong i = id; i < words; i += workitems)
            d[i] = (s[i] >> shift) | (s[i + 1] << (32 - shift));
    }
    const ulong done = head + (words << 2);
    if (id < size - done)
        dst[done + id] = src[done + id];
}

kernel __attribute__((reqd_work_group_size(BLIT_WG, 1, 1))) void
fill(global uint *dst, uint value, ulong count, ulong workitems) {
    const ulong id = blit_id();
    ulong head = ((16 - ((ulong)dst & 15)) & 15) >> 2;
    if (head > count)
        head = count;
    if (id < head)
        dst[id] = value;
    const ulong units = (count - head) >> 2;
    global uint4 *d = (global uint4 *)(dst + head);
    const uint4 v = (uint4)(value);
    for (ulong i = id; i < units; i += workitems)
        d[i] = v;
    const ulong done = head + (units << 2);
    if (id < count - done)
        dst[done + id] = value;
}
