#!/usr/bin/env python3
"""Compares two SIM_TRACE files of one program: AMD's ROCr's and ours.

Usage: trace_compare.py ROCR_TRACE OURS_TRACE ARCHITECTURE_MD

A call kind is a trace line's first two fields ("kfd AMDKFD_IOC_MAP_MEMORY_TO_GPU",
"mmap render", "open renderD128"). Prints, per kind, the count and the failed
calls (a result "-> -E...") on each side. Exits 1 when a kind differs between
the sides (one side only, other counts, failures on one side only) and
ARCHITECTURE.md's paragraph "ROCr's ioctl sequence and ours" does not name
it: the request name without its AMDKFD_IOC_/DRM_IOCTL_ prefix in
backticks, or for mmap/open the words "mmap of /dev/kfd", "mmap of the
render node", "render-node open".
"""
import re
import sys
from collections import Counter


def kinds(path):
    count, failed = Counter(), Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2:
                continue
            kind = " ".join(parts[:2])
            if parts[0] == "open":
                kind = "open " + re.sub(r"\d+$", "", parts[1])
            count[kind] += 1
            if re.search(r"-> -E[A-Z]+$", line.strip()):
                failed[kind] += 1
    return count, failed


def section(md):
    text = open(md, encoding="utf-8").read()
    start = text.find("**ROCr's ioctl sequence and ours.**")
    if start < 0:
        sys.exit(f"{md}: no paragraph \"ROCr's ioctl sequence and ours\"")
    end = text.find("\n## ", start)
    return text[start:end]


def named(kind, text):
    what, name = kind.split(" ", 1)
    if what in ("kfd", "drm"):
        short = re.sub(r"^(AMDKFD_IOC_|DRM_IOCTL_)", "", name)
        if short == "?":
            return "`DBG_TRAP`" in text
        return f"`{short}`" in text
    if kind == "mmap kfd":
        return "mmap of /dev/kfd" in text
    if kind == "mmap render":
        return "mmap of the render node" in text
    if what == "open":
        return "render-node open" in text
    return False


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    (rc, rf), (oc, of) = kinds(sys.argv[1]), kinds(sys.argv[2])
    text = section(sys.argv[3])
    rows, unexplained = [], []
    for kind in sorted(set(rc) | set(oc)):
        same = rc[kind] == oc[kind] and rf[kind] == of[kind]
        rows.append((kind, rc[kind], rf[kind], oc[kind], of[kind], same))
        if not same and not named(kind, text):
            unexplained.append(kind)
    w = max(len(r[0]) for r in rows)
    print(f"{'call':<{w}}  {'ROCr':>6} {'failed':>6}  {'ours':>6} {'failed':>6}")
    for kind, a, af, b, bf, same in rows:
        mark = "" if same else "  differs"
        print(f"{kind:<{w}}  {a:>6} {af:>6}  {b:>6} {bf:>6}{mark}")
    print(f"ROCr {sum(rc.values())} calls, ours {sum(oc.values())}")
    if unexplained:
        print("not explained in ARCHITECTURE.md (\"ROCr's ioctl sequence and ours\"): "
              + ", ".join(unexplained))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
