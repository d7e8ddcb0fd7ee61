"""Collects, for every GFX9 processor and every opcode of every encoding
class, what llvm-mc-19's disassembler prints for a base encoding (all
operand fields zero), for the base with each single non-opcode bit set, and
for the base with each operand field set to a distinct probe value. The
result (target/isa-probe/<cpu>.json) is what gen.py turns into our tables.

Usage: python3 isa/tools/collect.py OUT_DIR"""

import json
import os
import sys

import probe

CPUS = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942"]
FILLER = 0x11223344

# name: (size in bits, fixed bits value, fixed mask, opcode lo, opcode width,
#        opcode count, {field: (lo, width, probe values)})
# Bit positions count from bit 0 of the first dword; the second dword's bit
# 0 is bit 32.
CLASSES = {
    "sop2": (32, 0x80000000, 0xC0000000, 23, 7, 0x60,
             {"sdst": (16, 7, [16]), "ssrc1": (8, 8, [48, 248, 255]), "ssrc0": (0, 8, [32, 248, 255])}),
    "sopk": (32, 0xB0000000, 0xF0000000, 23, 5, 0x18,
             {"sdst": (16, 7, [16]), "simm16": (0, 16, [0x1234, 0xFFF0])}),
    "sop1": (32, 0xBE800000, 0xFF800000, 8, 8, 0x100,
             {"sdst": (16, 7, [16]), "ssrc0": (0, 8, [32, 248, 255])}),
    "sopc": (32, 0xBF000000, 0xFF800000, 16, 7, 0x80,
             {"ssrc1": (8, 8, [48, 248, 255]), "ssrc0": (0, 8, [32, 248, 255])}),
    "sopp": (32, 0xBF800000, 0xFF800000, 16, 7, 0x80,
             {"simm16": (0, 16, [0x1234, 0xFFF0, 0x0002])}),
    "smem": (64, 0xC0000000, 0xFC000000, 18, 8, 0x100,
             {"sdata": (6, 7, [16]), "sbase": (0, 6, [24]), "offset": (32, 21, [0x1234]),
              "soffset": (57, 7, [40])}),
    "vop2": (32, 0x00000000, 0x80000000, 25, 6, 0x3E,
             {"vdst": (17, 8, [16]), "vsrc1": (9, 8, [48]), "src0": (0, 9, [288, 32, 248, 255])}),
    "vop1": (32, 0x7E000000, 0xFE000000, 9, 8, 0x100,
             {"vdst": (17, 8, [16]), "src0": (0, 9, [288, 32, 248, 255])}),
    "vopc": (32, 0x7C000000, 0xFE000000, 17, 8, 0x100,
             {"vsrc1": (9, 8, [48]), "src0": (0, 9, [288, 32, 248, 255])}),
    "ds": (64, 0xD8000000, 0xFC000000, 17, 8, 0x100,
           {"addr": (32, 8, [16]), "data0": (40, 8, [32]), "data1": (48, 8, [48]), "vdst": (56, 8, [64])}),
    "vop3": (64, 0xD0000000, 0xFC000000, 16, 10, 0x380,
             {"vdst": (0, 8, [16]), "sdst": (8, 7, [80]), "src0": (32, 9, [288, 32, 248]),
              "src1": (41, 9, [304, 48, 248]), "src2": (50, 9, [320, 64, 248])}),
}

# The DS operations that exist only with the gds bit set (the `ds_gws_*`
# global wave sync ones, which LLVM prints with a fixed `gds`): probed with
# bit 16 set, in the same table (gen.py takes the first class that decodes).
CLASSES["ds_gds"] = (64, 0xD8010000, 0xFC010000, 17, 8, 0x100,
                     {"addr": (32, 8, [16]), "data0": (40, 8, [32]), "data1": (48, 8, [48]),
                      "vdst": (56, 8, [64])})

# Classes that share one decoder table, told apart by selector bits the
# decoder reads (FLAT segment, lds/sve bit, `saddr` = off, the returning
# atomics' glc; MUBUF offen/idxen/lds; SDWA and DPP by the VOP encoding they
# extend). TABLE_OF[class] = (table, variant): an entry's key in its table
# is opcode | variant << 10.
TABLE_OF = {c: (c, 0) for c in CLASSES}
TABLE_OF["ds_gds"] = ("ds", 0)

MEM_FIELDS = {"vaddr": (32, 8, [16]), "vdata": (40, 8, [32]), "vdst": (56, 8, [64])}


def _flat_variants():
    for seg, segname in ((0, "flat"), (1, "scratch"), (2, "global")):
        for b13 in (0, 1):
            for off in (0, 1):
                if seg == 0 and off:
                    continue
                for glc in (0, 1):
                    fixed = 0xDC000000 | seg << 14 | b13 << 13 | glc << 16
                    fmask = 0xFC000000 | 3 << 14 | 1 << 13 | 1 << 16
                    fields = dict(MEM_FIELDS)
                    fields["offset"] = (0, 13, [0x1FF0])
                    if off:
                        fixed |= 0x7F << 48
                        fmask |= 0x7F << 48
                    elif seg != 0:
                        fields["saddr"] = (48, 7, [48])
                    name = "%s_b13%d_off%d_glc%d" % (segname, b13, off, glc)
                    CLASSES[name] = (64, fixed, fmask, 18, 7, 0x80, fields)
                    TABLE_OF[name] = ("flat", seg | b13 << 2 | off << 3 | glc << 4)


def _buf_variants():
    for offen in (0, 1):
        for idxen in (0, 1):
            for lds in (0, 1):
                fields = dict(MEM_FIELDS)
                del fields["vdst"]
                fields["srsrc"] = (48, 5, [4])
                fields["soffset"] = (56, 8, [40, 129])
                fields["offset"] = (0, 12, [0xFF0])
                fixed = 0xE0000000 | offen << 12 | idxen << 13 | lds << 16
                fmask = 0xFC000000 | 1 << 12 | 1 << 13 | 1 << 16
                name = "mubuf_offen%d_idxen%d_lds%d" % (offen, idxen, lds)
                CLASSES[name] = (64, fixed, fmask, 18, 7, 0x80, fields)
                TABLE_OF[name] = ("mubuf", offen | idxen << 1 | lds << 2)
                if lds:
                    continue
                fixed = 0xE8000000 | offen << 12 | idxen << 13
                fmask = 0xFC000000 | 1 << 12 | 1 << 13
                name = "mtbuf_offen%d_idxen%d" % (offen, idxen)
                CLASSES[name] = (64, fixed, fmask, 15, 4, 0x10, fields)
                TABLE_OF[name] = ("mtbuf", offen | idxen << 1)


def _vop_ext_variants():
    # src0 = 249 selects the SDWA dword, 250 the DPP dword; the extension
    # dword's first byte is src0.
    vop = {
        "vop1": (0x7E000000, 0xFE000000, 9, 8, 0x100, {"vdst": (17, 8, [16])}),
        "vop2": (0x00000000, 0x80000000, 25, 6, 0x3E, {"vdst": (17, 8, [16]), "vsrc1": (9, 8, [48])}),
        "vopc": (0x7C000000, 0xFE000000, 17, 8, 0x100, {"vsrc1": (9, 8, [48])}),
    }
    for ext, code in (("sdwa", 249), ("dpp", 250)):
        for i, (v, (fixed, fmask, oplo, opw, opn, fields)) in enumerate(vop.items()):
            fields = dict(fields)
            fields["src0"] = (32, 8, [32])
            if ext == "sdwa" and v == "vopc":
                fields["sdst"] = (40, 8, [0x90])
            name = "%s_%s" % (v, ext)
            CLASSES[name] = (64, fixed | code, fmask | 0x1FF, oplo, opw, opn, fields)
            TABLE_OF[name] = (ext, i)


# Sources are v0 in the base of `vop3p_v`, so the MAI `acc` bits (AGPR
# sources) show; instructions with fewer sources need the unused source
# fields zero (`vop3p`, src0 = v0 only). gen.py takes the first class of a
# table and variant that decodes.
CLASSES["vop3p_v"] = (64, 0xD3800000 | 0x100 << 32 | 0x100 << 41 | 0x100 << 50, 0xFF800000, 16, 7, 0x80,
                      {"vdst": (0, 8, [16]), "src0": (32, 9, [288, 32, 248]),
                       "src1": (41, 9, [304, 48, 248]), "src2": (50, 9, [320, 64, 248])})
TABLE_OF["vop3p_v"] = ("vop3p", 0)
CLASSES["vop3p"] = (64, 0xD3800000 | 0x100 << 32, 0xFF800000, 16, 7, 0x80,
                    {"vdst": (0, 8, [16]), "src0": (32, 9, [288, 32, 248]),
                     "src1": (41, 9, [304, 48, 248]), "src2": (50, 9, [320, 64, 248])})
TABLE_OF["vop3p"] = ("vop3p", 0)
_flat_variants()
_buf_variants()
_vop_ext_variants()

# Literal values probed for a source field set to 255 (0x3c00: f16 1.0;
# 0x3ff00000: the high half of f64 1.0).
LITERALS = [0x3C00, 0x3FF00000]


def dwords(value, bits):
    return [(value >> (32 * i)) & 0xFFFFFFFF for i in range(bits // 32)]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    only = sys.argv[2:]  # optional class names: re-probe just these
    for cpu in CPUS:
        path = os.path.join(out_dir, cpu + ".json")
        result = json.load(open(path)) if only and os.path.exists(path) else {}
        for cls, (bits, fixed, fmask, oplo, opw, opn, fields) in CLASSES.items():
            if only and cls not in only and TABLE_OF[cls][0] not in only:
                continue
            probes = []
            keys = []
            opmask = ((1 << opw) - 1) << oplo
            for op in range(opn):
                base = fixed | (op << oplo)
                free = [b for b in range(bits) if not (fmask >> b) & 1 and not (opmask >> b) & 1]
                variants = [("base", base)]
                variants += [("bit%d" % b, base ^ (1 << b)) for b in free]
                for f, (lo, w, vals) in fields.items():
                    for v in vals:
                        fm = ((1 << w) - 1) << lo
                        variants.append(("%s=%d" % (f, v), (base & ~fm) | (v << lo)))
                for name, enc in variants:
                    d = dwords(enc, bits)
                    lits = [FILLER]
                    if name.endswith("=255"):
                        lits = LITERALS
                    for lit in lits:
                        probes.append(d + [lit])
                        keys.append((op, name if lit == FILLER else "%s:%x" % (name, lit)))
            res = probe.disassemble(cpu, probes)
            table = {}
            for (op, name), r in zip(keys, res):
                table.setdefault(op, {})[name] = r
            result[cls] = table
            print(cpu, cls, sum(1 for t in table.values() if t["base"]), file=sys.stderr)
        with open(path, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
