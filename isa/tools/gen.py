"""Turns the probe results of collect.py into our decoder tables
(isa/src/tables.rs): for every encoding class, every opcode and every GFX9
processor, the printed mnemonic, the operand slots in print order with their
kind, the bits that must be zero, and the modifiers the instruction prints.
Entries equal on several processors are merged into one with a processor
mask.

Usage: python3 isa/tools/gen.py PROBE_DIR > isa/src/tables.rs"""

import json
import os
import re
import sys

import probe
from collect import CLASSES, CPUS, TABLE_OF

PROC_BIT = {c: 1 << i for i, c in enumerate(CPUS)}


def strip_comment(text):
    return re.sub(r"/\*.*?\*/", "", text)


def parse(r):
    if r is None:
        return None
    text = strip_comment(r[0])
    m, ops, mods = probe.split_text(text)
    return m, ops, mods, r[1]


def bare(tok):
    """Removes source modifiers: '-|v1|' -> 'v1'."""
    t = tok
    for pre in ("neg(", "sext(", "-", "|"):
        if t.startswith(pre):
            t = t[len(pre):]
    t = t.rstrip(")|")
    return t


def imm_type(t248, tlit16, tlit64):
    if t248 is None:
        return None
    if t248 == "0.15915494309189532":
        if tlit64 == "1.0":
            return "F64"
        return "I64"
    if t248 == "0x3118":
        return "I16"
    if tlit16 == "1.0":
        return "F16"
    return "B32"


def simm_style(vals):
    a, b, c, z = vals
    joined = " ".join(x or "" for x in vals)
    if "cnt(" in joined:
        return "Waitcnt"
    if "sendmsg(" in joined:
        return "Sendmsg"
    if "hwreg(" in joined:
        return "Hwreg"
    if "gpr_idx(" in joined:
        return "GprIdx"
    if (a, b, z) == ("0x1234", "0xfff0", "0"):
        return "Imm"
    if (a, b, z) == ("0x1234", "0xfff0", "0x0"):
        return "Hex16"
    if (a, b, z) == ("4660", "65520", "0"):
        return "Dec16"
    if (a, b, z) == ("4660", "65520", None):
        return "EndpgmImm"
    raise ValueError("simm16 style %r" % (vals,))


def analyse(cls, op, t):
    bits, fixed, fmask, oplo, opw, opn, fields = CLASSES[cls]
    base = parse(t["base"])
    if base is None:
        return None
    mnem, bops, bmods, bextra = base
    must_zero = 0
    mods = set()
    acc_bits = {}
    op_sel_len = None
    opmask = ((1 << opw) - 1) << oplo
    for b in range(bits):
        if (fmask >> b) & 1 or (opmask >> b) & 1:
            continue
        r = parse(t.get("bit%d" % b))
        if r is None:
            # A bit the base has set is probed by clearing it: no constraint.
            if not (fixed >> b) & 1:
                must_zero |= 1 << b
            continue
        _, ops, ms, _ = r
        for mm in ms:
            if mm not in bmods:
                mods.add(re.sub(r"[:\[].*", "", mm))
            if mm.startswith("op_sel:["):
                op_sel_len = mm.count(",") + 1
        if len(ops) == len(bops):
            for i, (x, y) in enumerate(zip(ops, bops)):
                # The bit turns this operand's VGPRs into AGPRs.
                if x != y and re.sub(r"^a", "v", bare(x)) == bare(y) and bare(x).startswith("a"):
                    acc_bits.setdefault(i, b)
                if x != y and bare(x) == bare(y):
                    if x.startswith("-") or x.startswith("neg("):
                        mods.add("neg%d" % i)
                    if "|" in x:
                        mods.add("abs%d" % i)
                    if x.startswith("sext("):
                        mods.add("sext%d" % i)
    slots = [None] * len(bops)
    for f, (lo, w, vals) in fields.items():
        for v in vals:
            r = parse(t.get("%s=%d" % (f, v)))
            if r is None or len(r[1]) != len(bops):
                continue
            for i, (x, y) in enumerate(zip(r[1], bops)):
                if x == y:
                    continue
                rg = probe.reg(bare(x))
                if slots[i] is None:
                    slots[i] = {"field": f}
                s = slots[i]
                if s["field"] != f:
                    continue
                if rg and v in (16, 32, 48, 64, 80, 24, 40, 4, 144) and (v < 256):
                    s["file"] = rg[0]
                    s["width"] = rg[2]
                if rg and v >= 256:
                    s["vwidth"] = rg[2]
                    s["vfile"] = rg[0]
    # Fields the probes did not move: sdata of simm fields etc.
    for i, s in enumerate(slots):
        tok = bare(bops[i])
        if s is None:
            if tok == "off":
                slots[i] = {"field": "off"}
            elif tok == "0x11223344":
                slots[i] = {"field": "literal"}
            else:
                slots[i] = {"field": "fixed", "name": tok}
    for i, b in acc_bits.items():
        slots[i]["acc"] = b
    # With no operands, split_text takes the first modifier for one (`v_nop_dpp`).
    extra_mods = [s["name"] for s in slots if s["field"] == "fixed" and ":" in s["name"]]
    slots = [s for s in slots if not (s["field"] == "fixed" and ":" in s["name"])]
    bmods = list(bmods) + extra_mods
    for i, s in enumerate(slots):
        f = s["field"]
        if f in ("src0", "src1", "src2", "ssrc0", "ssrc1"):
            def tok(key):
                r = parse(t.get(key))
                if r is None or len(r[1]) != len(bops):
                    return None
                return bare(r[1][i])
            if bare(bops[i]).startswith("gpr_idx("):
                # s_set_gpr_idx_on's mask: an immediate, not a source.
                s["style"] = "GprIdx"
            ty = imm_type(tok("%s=248" % f), tok("%s=255:3c00" % f), tok("%s=255:3ff00000" % f))
            s["ty"] = ty
            w = s.get("width") or s.get("vwidth") or 1
            s["width"] = w
        if f == "simm16":
            vals = []
            for v in (0x1234, 0xFFF0, 2):
                r = parse(t.get("simm16=%d" % v))
                vals.append(r and (r[1][i] if i < len(r[1]) else None))
            vals.append(bops[i])
            s["style"] = simm_style(vals)
        if f == "literal":
            s["ty"] = "Lit"
    # simm16 operands that print nothing when zero (s_endpgm).
    if cls in ("sopp",) and not any(s["field"] == "simm16" for s in slots):
        r = parse(t.get("simm16=4660"))
        if r and r[1]:
            slots.append({"field": "simm16", "style": "EndpgmImm"})
    literal = bextra == 0 and bits == 32
    # How the memory offset field prints (13-bit signed, or unsigned).
    offset = None
    for key in ("offset=8176", "offset=4080"):
        r = parse(t.get(key))
        if r:
            for mm in r[2]:
                if mm.startswith("offset:"):
                    offset = "signed" if mm.startswith("offset:-") else "unsigned"
    return {
        "mnem": mnem,
        "slots": slots,
        "must_zero": must_zero,
        "mods": sorted(mods),
        "base_mods": sorted(re.sub(r"[:\[].*", "", m) for m in bmods),
        "offset": offset,
        "op_sel_len": op_sel_len,
        "literal": literal,
    }


def main():
    d = {cpu: json.load(open(os.path.join(sys.argv[1], cpu + ".json"))) for cpu in CPUS}
    out = {}
    done = set()
    for cls in CLASSES:
        table, variant = TABLE_OF[cls]
        if (table, variant) in done:
            continue
        done.add((table, variant))
        same = [c for c in CLASSES if TABLE_OF[c] == (table, variant)]
        entries = out.setdefault(table, [])
        for op in range(CLASSES[cls][5]):
            per = []
            for cpu in CPUS:
                for c in same:
                    a = analyse(c, op, d[cpu][c][str(op)])
                    if a is not None:
                        a["cls"] = c
                        per.append((cpu, a))
                        break
            groups = []
            for cpu, a in per:
                for g in groups:
                    if g[1] == a:
                        g[0].append(cpu)
                        break
                else:
                    groups.append(([cpu], a))
            for cpus, a in groups:
                a = dict(a)
                a["code"] = op | variant << 10
                a["cpus"] = cpus
                entries.append(a)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
