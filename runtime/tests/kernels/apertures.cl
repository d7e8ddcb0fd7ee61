// GFX8 has no SRC_{PRIVATE,SHARED}_BASE registers: at code object v5 a
// segment-to-flat cast reads hidden_private_base / hidden_shared_base.
__kernel void apertures(__global ulong *out, __local int *l) {
    __private int x[4];
    x[get_local_id(0) & 3] = 1;
    out[0] = (ulong)(__generic int *)&x[get_local_id(0) & 3];
    out[1] = (ulong)(__generic int *)l;
}
