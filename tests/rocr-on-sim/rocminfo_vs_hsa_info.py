#!/usr/bin/env python3
"""Checks AMD's rocminfo on the software GPU against our runtime's view.

Usage: rocminfo_vs_hsa_info.py ROCMINFO_TEXT HSA_INFO_JSON HSA_INFO_TEXT

ROCMINFO_TEXT is `scripts/rocr-on-sim rocminfo` (Debian's rocminfo over
Debian's ROCr 5.2.3 over sim-preload); HSA_INFO_JSON and HSA_INFO_TEXT are
`hsa info --json` and `hsa info` (our runtime over the same sim, in
process). Every agent rocminfo lists must be one of ours with the same key
attributes (name, marketing name, chip id, CUs, SIMDs, engines, clock,
wavefront, workgroup and queue limits, caches, ISA, memory pools), and
`hsa info`'s text, which follows rocminfo 5.2.3's layout, must equal
rocminfo's from its first `=====` line. Exit 0, or 1 naming each mismatch.
"""
import json
import re
import sys


def agents_of(text):
    """The agents of rocminfo's text: a list of (fields, pools, isas)."""
    blocks = re.split(r"\n\*+\s*\nAgent \d+\s*\n\*+\s*\n", text)[1:]
    out = []
    for b in blocks:
        fields, pools, isas = {}, [], []
        section, cur = None, None
        for line in b.splitlines():
            if section == "Pool Info" and re.match(r"^    Pool \d+\s*$", line):
                cur = {}
                pools.append(cur)
                continue
            m = re.match(r"^(\s*)([^:]+?):\s*(.*?)\s*$", line)
            if not m:
                continue
            indent, key, value = len(m.group(1)), m.group(2).strip(), m.group(3)
            if indent == 2 and key in ("Pool Info", "ISA Info", "Cache Info"):
                section = key
                continue
            if indent == 2:
                section = None
                fields.setdefault(key, value)
            elif section == "Cache Info" and indent == 4:
                fields["Cache " + key] = value
            elif section == "Pool Info" and indent == 6 and cur is not None:
                cur[key] = value
            elif section == "ISA Info" and indent == 6 and key == "Name":
                isas.append(value)
        out.append((fields, pools, isas))
    return out


def number(value):
    """rocminfo's `N(0xH)` or `N` or `N KB` forms: the decimal N."""
    m = re.match(r"^(\d+)", value)
    return int(m.group(1)) if m else None


def main():
    rocminfo, info_json, info_text = sys.argv[1:4]
    text = open(rocminfo).read()
    ours = json.load(open(info_json))
    errors = []
    theirs = agents_of(text)
    if len(theirs) != len(ours["agents"]):
        errors.append(f"rocminfo lists {len(theirs)} agents, our runtime {len(ours['agents'])}")
    gpus = 0
    for i, ((f, pools, isas), mine) in enumerate(zip(theirs, ours["agents"])):
        a = mine["attributes"]
        where = f"agent {i + 1} ({f.get('Name')})"

        def same(label, got, want):
            if got != want:
                errors.append(f"{where}: {label}: rocminfo {got!r}, hsa info {want!r}")

        same("Name", f.get("Name"), a["HSA_AGENT_INFO_NAME"])
        same("Marketing Name", f.get("Marketing Name"), a["HSA_AMD_AGENT_INFO_PRODUCT_NAME"])
        same("Vendor Name", f.get("Vendor Name"), a["HSA_AGENT_INFO_VENDOR_NAME"])
        same("Node", number(f.get("Node", "")), a["HSA_AGENT_INFO_NODE"])
        same("Compute Unit", number(f.get("Compute Unit", "")), a["HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT"])
        same("Chip ID", number(f.get("Chip ID", "")), a["HSA_AMD_AGENT_INFO_CHIP_ID"])
        same("Max Clock Freq. (MHz)", number(f.get("Max Clock Freq. (MHz)", "")),
             a["HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY"])
        if f.get("Device Type") != "GPU":
            continue
        gpus += 1
        for label, key in [
            ("SIMDs per CU", "HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU"),
            ("Shader Engines", "HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES"),
            ("Shader Arrs. per Eng.", "HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE"),
            ("Wavefront Size", "HSA_AGENT_INFO_WAVEFRONT_SIZE"),
            ("Workgroup Max Size", "HSA_AGENT_INFO_WORKGROUP_MAX_SIZE"),
            ("Max Waves Per CU", "HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU"),
            ("Max Queue Number", "HSA_AGENT_INFO_QUEUES_MAX"),
            ("Queue Min Size", "HSA_AGENT_INFO_QUEUE_MIN_SIZE"),
            ("Queue Max Size", "HSA_AGENT_INFO_QUEUE_MAX_SIZE"),
            ("BDFID", "HSA_AMD_AGENT_INFO_BDFID"),
        ]:
            same(label, number(f.get(label, "")), a[key])
        same("Cache L1 (KB)", number(f.get("Cache L1", "")), a["HSA_AGENT_INFO_CACHE_SIZE"][0] // 1024)
        same("Cache L2 (KB)", number(f.get("Cache L2", "")), a["HSA_AGENT_INFO_CACHE_SIZE"][1] // 1024)
        same("ISA", isas[:1], [a["HSA_AGENT_INFO_ISA"]])
        same("pool count", len(pools), len(mine["pools"]))
        for j, (p, mp) in enumerate(zip(pools, mine["pools"])):
            pa = mp["attributes"]
            same(f"pool {j + 1} size (KB)", number(p.get("Size", "")), pa["HSA_AMD_MEMORY_POOL_INFO_SIZE"] // 1024)
            same(f"pool {j + 1} allocatable", p.get("Allocatable"),
                 "TRUE" if pa["HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED"] else "FALSE")
            seg = {0: "GLOBAL", 1: "READONLY", 2: "PRIVATE", 3: "GROUP"}[pa["HSA_AMD_MEMORY_POOL_INFO_SEGMENT"]]
            same(f"pool {j + 1} segment", p.get("Segment", "").split(";")[0], seg)
    if gpus == 0:
        errors.append("rocminfo lists no GPU agent")
    start = text.find("=====")
    if start < 0 or text[start:] != open(info_text).read():
        errors.append("hsa info's text differs from rocminfo's (from the first ===== line)")
    for e in errors:
        print(f"rocminfo_vs_hsa_info: {e}", file=sys.stderr)
    if not errors:
        print(f"rocminfo_vs_hsa_info: {len(theirs)} agents ({gpus} GPU) agree, text identical")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
