"""Probe harness: feeds encodings to llvm-mc-19 --disassemble and returns
the printed text of each, or None when LLVM rejects the encoding.

Each probe is a list of little-endian dwords written on its own line,
followed by two separator lines (`s_nop 0x2a5`); llvm-mc decodes its input
as one stream, so the separators re-synchronise after a probe that LLVM
rejects or that decodes to a different length than given."""

import re
import subprocess

SEP = 0xBF8002A5
SEP_TEXT = "s_nop 0x2a5"


def _line(dwords):
    out = []
    for d in dwords:
        for i in range(4):
            out.append("0x%02x" % ((d >> (8 * i)) & 0xFF))
    return " ".join(out)


def disassemble(cpu, probes):
    """Returns, per probe, (text, extra_lines) or None if invalid.
    extra_lines counts what LLVM decoded from the probe's bytes after the
    first instruction (0 when it used all the bytes)."""
    lines = []
    probe_line = []
    for p in probes:
        probe_line.append(len(lines) + 1)
        lines.append(_line(p))
        lines.append(_line([SEP]))
        lines.append(_line([SEP]))
    r = subprocess.run(
        ["llvm-mc-19", "--disassemble", "-triple", "amdgcn-amd-amdhsa", "-mcpu=" + cpu],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
    )
    invalid = set()
    for m in re.finditer(r"<stdin>:(\d+):1: warning: invalid instruction encoding", r.stderr):
        invalid.add(int(m.group(1)))
    out = [l.strip() for l in r.stdout.splitlines()]
    out = [l for l in out if l and not l.startswith(".")]
    groups = []
    cur = []
    i = 0
    while i < len(out):
        if out[i] == SEP_TEXT:
            run = 0
            while i < len(out) and out[i] == SEP_TEXT:
                run += 1
                i += 1
            groups.append(cur)
            cur = []
            # Later probes of this run were rejected whole (2 separators each).
            for _ in range((run + 1) // 2 - 1):
                groups.append([])
            continue
        cur.append(out[i])
        i += 1
    if cur:
        groups.append(cur)
    # A probe whose bytes are all rejected leaves an empty group.
    if len(groups) != len(probes):
        raise RuntimeError("%s: %d groups for %d probes" % (cpu, len(groups), len(probes)))
    res = []
    for p, g, ln in zip(probes, groups, probe_line):
        if ln in invalid or not g:
            res.append(None)
        else:
            res.append((g[0], len(g) - 1))
    return res


def split_text(text):
    """'mnem a, b, c mods' -> (mnem, [operands], [modifiers])."""
    if " " not in text:
        return text, [], []
    mnem, rest = text.split(" ", 1)
    parts = []
    depth = 0
    cur = ""
    for ch in rest:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    parts.append(cur.strip())
    # Modifiers follow the last operand, separated by spaces.
    last = parts[-1]
    toks = []
    depth = 0
    cur = ""
    for ch in last:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == " " and depth == 0:
            toks.append(cur)
            cur = ""
            continue
        cur += ch
    toks.append(cur)
    toks = [t for t in toks if t]
    parts[-1] = toks[0] if toks else ""
    # An instruction without operands prints its modifiers right after the
    # mnemonic (`buffer_wbl2 sc1`, `v_nop_dpp quad_perm:...`).
    if len(parts) == 1 and toks and (toks[0] in MODWORDS or re.match(r"^[a-z_0-9]+:", toks[0])):
        return mnem, [], toks
    return mnem, [p for p in parts if p], toks[1:]


MODWORDS = {"glc", "slc", "scc", "sc0", "sc1", "nt", "lds", "tfe", "gds", "offen", "idxen",
            "clamp", "high"}


REG = re.compile(r"^(-?\|?)?([sva])(\d+)(\|?)$")
RANGE = re.compile(r"^([sva])\[(\d+):(\d+)\]$")


def reg(tok):
    """'v12' -> ('v', 12, 1); 's[4:5]' -> ('s', 4, 2); else None."""
    m = re.match(r"^([sva])(\d+)$", tok)
    if m:
        return m.group(1), int(m.group(2)), 1
    m = RANGE.match(tok)
    if m:
        a, b = int(m.group(2)), int(m.group(3))
        return m.group(1), a, b - a + 1
    return None
