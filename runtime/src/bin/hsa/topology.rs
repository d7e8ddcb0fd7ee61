//! `hsa topology [--sysfs DIR] [--json]`: prints the KFD topology (nodes,
//! memory banks, caches, IO links) read by `kfd::topology`, from the running
//! kernel's sysfs or from a copy of the tree (`--sysfs`).

use std::fmt::Write as _;
use std::process::ExitCode;

use kfd::topology::{
    Cache, FsReader, IoLink, MemBank, Node, NodeKind, Property, SYSFS_TOPOLOGY, Topology,
};

const USAGE: &str = "usage: hsa topology [--sysfs DIR] [--json]";

/// Runs the subcommand: exit 0 with the topology on standard output, 1 with
/// one line on standard error when it cannot be read, 2 on a usage error.
pub fn main(args: &[String]) -> ExitCode {
    let mut dir: Option<&str> = None;
    let mut json = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--sysfs" => match it.next() {
                Some(d) => dir = Some(d),
                None => return usage_error("--sysfs needs a directory"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage_error(&format!("unexpected argument `{other}`")),
        }
    }
    let root = dir.unwrap_or(SYSFS_TOPOLOGY);
    let topology = match Topology::read(&FsReader::new(root)) {
        Ok(t) => t,
        Err(e) if e.is_absent() && dir.is_none() => {
            eprintln!("hsa: no KFD topology at {root} (the amdgpu kernel driver is not loaded)");
            return ExitCode::FAILURE;
        }
        Err(e) if e.is_absent() => {
            eprintln!("hsa: no KFD topology at {root} (no generation_id there)");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("hsa: {root}/{e}");
            return ExitCode::FAILURE;
        }
    };
    let out = if json {
        to_json(&topology)
    } else {
        to_text(&topology, root)
    };
    print!("{out}");
    ExitCode::SUCCESS
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("hsa topology: {msg}\n{USAGE}");
    ExitCode::from(2)
}

fn kib(bytes: u64) -> String {
    if bytes % 1024 == 0 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

fn extras(out: &mut String, indent: &str, extra: &[Property]) {
    if extra.is_empty() {
        return;
    }
    let list: Vec<String> = extra
        .iter()
        .map(|p| format!("{}={}", p.key, p.value))
        .collect();
    let _ = writeln!(out, "{indent}other keys: {}", list.join(" "));
}

/// The human-readable report.
pub fn to_text(t: &Topology, root: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "KFD topology at {root}: generation {}, {} nodes",
        t.generation_id,
        t.nodes.len()
    );
    let s = &t.system;
    let _ = writeln!(
        out,
        "platform: oem {:#x}, id {:#x}, rev {:#x}",
        s.platform_oem, s.platform_id, s.platform_rev
    );
    extras(&mut out, "", &s.extra);
    for n in &t.nodes {
        out.push('\n');
        node_text(&mut out, t, n);
    }
    for id in &t.inaccessible {
        let _ = writeln!(
            out,
            "\nnode {id}: not readable by this process (outside its device cgroup)"
        );
    }
    out
}

fn node_text(out: &mut String, t: &Topology, n: &Node) {
    let p = &n.properties;
    let numa = t
        .numa_node_of(n.id)
        .map_or_else(|| "none".to_owned(), |v| v.to_string());
    match n.kind() {
        NodeKind::Cpu => {
            let _ = writeln!(out, "node {}: CPU, numa node {numa}", n.id);
            let _ = writeln!(
                out,
                "  {} cores (core id base {}), max clock {} MHz",
                p.cpu_cores_count, p.cpu_core_id_base, p.max_engine_clk_ccompute
            );
        }
        kind => {
            let target = p
                .gfx_target()
                .map_or_else(|| "unknown target".to_owned(), |g| g.to_string());
            let _ = writeln!(
                out,
                "node {}: {} {target} \"{}\", gpu_id {}",
                n.id,
                kind.as_str(),
                n.name,
                n.gpu_id
            );
            let _ = writeln!(
                out,
                "  pci {:04x}:{:02x}:{:02x}.{} device {:#06x}, render minor {}, numa node {numa}",
                p.domain.unwrap_or(0),
                p.pci_bus(),
                p.pci_device(),
                p.pci_function(),
                p.device_id,
                p.drm_render_minor
            );
            let _ = writeln!(
                out,
                "  {} CUs ({} SIMDs, {} per CU), {} XCC, wave {}, {} waves per SIMD, LDS {} KiB, {} MHz",
                p.cu_count(),
                p.simd_count,
                p.simd_per_cu,
                p.num_xcc.unwrap_or(1),
                p.wave_front_size,
                p.max_waves_per_simd,
                p.lds_size_in_kb,
                p.max_engine_clk_fcompute.unwrap_or(0)
            );
            let _ = writeln!(
                out,
                "  {} shader engines, {} arrays per engine, {} CUs per array; sdma {} + {} xgmi, {} cp queues",
                p.shader_engines(),
                p.simd_arrays_per_engine,
                p.cu_per_simd_array,
                p.num_sdma_engines.unwrap_or(0),
                p.num_sdma_xgmi_engines.unwrap_or(0),
                p.num_cp_queues.unwrap_or(0)
            );
            if let Some(cap) = p.capability {
                let names: Vec<&str> = cap.names().collect();
                let _ = writeln!(
                    out,
                    "  capability {:#010x} ({}), doorbell type {}, {} watch points",
                    cap.0,
                    names.join(" "),
                    cap.doorbell_type(),
                    1u32.checked_shl(cap.watch_points_total_bits()).unwrap_or(0)
                );
            }
            if let Some(h) = p.hive_id.filter(|h| *h != 0) {
                let _ = writeln!(out, "  xgmi hive {h:#018x}");
            }
        }
    }
    extras(out, "  ", &p.extra);
    if !n.mem_banks.is_empty() {
        let _ = writeln!(out, "  memory banks:");
        for (i, b) in n.mem_banks.iter().enumerate() {
            mem_text(out, i, b);
        }
    }
    if !n.caches.is_empty() {
        let _ = writeln!(out, "  caches:");
        for (i, c) in n.caches.iter().enumerate() {
            cache_text(out, i, c);
        }
    }
    for (title, links) in [("io links", &n.io_links), ("p2p links", &n.p2p_links)] {
        if !links.is_empty() {
            let _ = writeln!(out, "  {title}:");
            for (i, l) in links.iter().enumerate() {
                link_text(out, i, l);
            }
        }
    }
}

fn mem_text(out: &mut String, i: usize, b: &MemBank) {
    let _ = write!(out, "    {i}: {} {}", b.heap_type, kib(b.size_in_bytes));
    if b.width != 0 {
        let _ = write!(out, ", {} bit", b.width);
    }
    if b.mem_clk_max != 0 {
        let _ = write!(out, ", {} MHz", b.mem_clk_max);
    }
    let names: Vec<&str> = b.flags.names().collect();
    if !names.is_empty() {
        let _ = write!(out, ", {}", names.join(" "));
    }
    out.push('\n');
    extras(out, "       ", &b.extra);
}

fn cache_text(out: &mut String, i: usize, c: &Cache) {
    let kinds: Vec<&str> = c.cache_type.names().collect();
    let _ = writeln!(
        out,
        "    {i}: L{} {} KiB {}, line {} B, shared by {}",
        c.level,
        c.size_kib,
        kinds.join("+").to_lowercase(),
        c.cache_line_size,
        c.sibling_map.count_ones()
    );
    extras(out, "       ", &c.extra);
}

fn link_text(out: &mut String, i: usize, l: &IoLink) {
    let _ = write!(
        out,
        "    {i}: {} -> node {}, weight {}, {}..{} MB/s",
        l.link_type, l.node_to, l.weight, l.min_bandwidth, l.max_bandwidth
    );
    if let Some(m) = l.recommended_sdma_engine_id_mask {
        let _ = write!(out, ", sdma mask {m:#x}");
    }
    let flags: Vec<&str> = l.flags.names().collect();
    if !flags.is_empty() {
        let _ = write!(out, ", {}", flags.join(" "));
    }
    out.push('\n');
    extras(out, "       ", &l.extra);
}

/// A minimal JSON writer: objects and arrays with commas placed for us.
struct Json {
    out: String,
    first: Vec<bool>,
}

impl Json {
    fn new() -> Self {
        Self {
            out: String::new(),
            first: vec![true],
        }
    }
    fn comma(&mut self) {
        if let Some(first) = self.first.last_mut() {
            if !*first {
                self.out.push(',');
            }
            *first = false;
        }
    }
    fn key(&mut self, k: &str) {
        self.comma();
        string(&mut self.out, k);
        self.out.push(':');
        // The value that follows must not add another comma.
        if let Some(first) = self.first.last_mut() {
            *first = true;
        }
    }
    fn open(&mut self, c: char) {
        self.comma();
        self.out.push(c);
        self.first.push(true);
    }
    fn close(&mut self, c: char) {
        self.first.pop();
        self.out.push(c);
        if let Some(first) = self.first.last_mut() {
            *first = false;
        }
    }
    fn raw(&mut self, v: &str) {
        self.comma();
        self.out.push_str(v);
    }
    fn num(&mut self, k: &str, v: impl Into<u64>) {
        self.key(k);
        self.raw(&v.into().to_string());
    }
    fn opt(&mut self, k: &str, v: Option<impl Into<u64>>) {
        self.key(k);
        match v {
            Some(v) => self.raw(&v.into().to_string()),
            None => self.raw("null"),
        }
    }
    fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        self.comma();
        string(&mut self.out, v);
    }
    fn names<'a>(&mut self, k: &str, names: impl Iterator<Item = &'a str>) {
        self.key(k);
        self.open('[');
        for n in names {
            self.comma();
            string(&mut self.out, n);
        }
        self.close(']');
    }
    fn extra(&mut self, extra: &[Property]) {
        self.key("extra");
        self.open('{');
        for p in extra {
            self.str(&p.key, &p.value);
        }
        self.close('}');
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The whole topology as one JSON document (numbers as read; absent
/// optional keys as `null`; unknown keys under `extra` as strings).
pub fn to_json(t: &Topology) -> String {
    let mut j = Json::new();
    j.open('{');
    j.num("generation_id", t.generation_id);
    j.key("system");
    j.open('{');
    j.num("platform_oem", t.system.platform_oem);
    j.num("platform_id", t.system.platform_id);
    j.num("platform_rev", t.system.platform_rev);
    j.extra(&t.system.extra);
    j.close('}');
    j.key("nodes");
    j.open('[');
    for n in &t.nodes {
        node_json(&mut j, t, n);
    }
    j.close(']');
    j.key("inaccessible_nodes");
    j.open('[');
    for id in &t.inaccessible {
        j.raw(&id.to_string());
    }
    j.close(']');
    j.close('}');
    j.out.push('\n');
    j.out
}

fn node_json(j: &mut Json, t: &Topology, n: &Node) {
    let p = &n.properties;
    j.open('{');
    j.num("id", n.id);
    j.str("kind", n.kind().as_str());
    j.num("gpu_id", n.gpu_id);
    j.str("name", &n.name);
    j.key("gfx_target");
    match p.gfx_target() {
        Some(g) => {
            j.comma();
            string(&mut j.out, &g.to_string());
        }
        None => j.raw("null"),
    }
    j.opt("numa_node", t.numa_node_of(n.id));
    j.num("cu_count", p.cu_count());
    j.key("properties");
    j.open('{');
    for (k, v) in [
        ("cpu_cores_count", p.cpu_cores_count),
        ("simd_count", p.simd_count),
        ("mem_banks_count", p.mem_banks_count),
        ("caches_count", p.caches_count),
        ("io_links_count", p.io_links_count),
        ("cpu_core_id_base", p.cpu_core_id_base),
        ("simd_id_base", p.simd_id_base),
        ("max_waves_per_simd", p.max_waves_per_simd),
        ("lds_size_in_kb", p.lds_size_in_kb),
        ("gds_size_in_kb", p.gds_size_in_kb),
        ("wave_front_size", p.wave_front_size),
        ("array_count", p.array_count),
        ("simd_arrays_per_engine", p.simd_arrays_per_engine),
        ("cu_per_simd_array", p.cu_per_simd_array),
        ("simd_per_cu", p.simd_per_cu),
        ("max_slots_scratch_cu", p.max_slots_scratch_cu),
        ("vendor_id", p.vendor_id),
        ("device_id", p.device_id),
        ("location_id", p.location_id),
        ("drm_render_minor", p.drm_render_minor),
        ("max_engine_clk_ccompute", p.max_engine_clk_ccompute),
    ] {
        j.num(k, v);
    }
    for (k, v) in [
        ("p2p_links_count", p.p2p_links_count),
        ("num_gws", p.num_gws),
        ("gfx_target_version", p.gfx_target_version),
        ("domain", p.domain),
        ("num_sdma_engines", p.num_sdma_engines),
        ("num_sdma_xgmi_engines", p.num_sdma_xgmi_engines),
        ("num_sdma_queues_per_engine", p.num_sdma_queues_per_engine),
        ("num_cp_queues", p.num_cp_queues),
        ("max_engine_clk_fcompute", p.max_engine_clk_fcompute),
        ("fw_version", p.fw_version),
        ("capability", p.capability.map(|c| c.0)),
        ("sdma_fw_version", p.sdma_fw_version),
        ("num_xcc", p.num_xcc),
    ] {
        j.opt(k, v);
    }
    for (k, v) in [
        ("hive_id", p.hive_id),
        ("local_mem_size", p.local_mem_size),
        ("debug_prop", p.debug_prop),
        ("unique_id", p.unique_id),
    ] {
        j.opt(k, v);
    }
    if let Some(cap) = p.capability {
        j.names("capability_names", cap.names());
    }
    j.extra(&p.extra);
    j.close('}');

    j.key("mem_banks");
    j.open('[');
    for b in &n.mem_banks {
        j.open('{');
        j.str("heap_type", b.heap_type.c_name());
        j.num("size_in_bytes", b.size_in_bytes);
        j.num("flags", b.flags.0);
        j.num("width", b.width);
        j.num("mem_clk_max", b.mem_clk_max);
        j.extra(&b.extra);
        j.close('}');
    }
    j.close(']');

    j.key("caches");
    j.open('[');
    for c in &n.caches {
        j.open('{');
        j.num("level", c.level);
        j.num("size_kib", c.size_kib);
        j.num("type", c.cache_type.0);
        j.names("type_names", c.cache_type.names());
        j.num("cache_line_size", c.cache_line_size);
        j.num("cache_lines_per_tag", c.cache_lines_per_tag);
        j.num("association", c.association);
        j.num("latency", c.latency);
        j.num("processor_id_low", c.processor_id_low);
        j.num(
            "siblings",
            u64::try_from(c.sibling_map.count_ones()).unwrap_or(u64::MAX),
        );
        j.str("sibling_map", &c.sibling_map.to_kernel_string());
        j.extra(&c.extra);
        j.close('}');
    }
    j.close(']');

    for (k, links) in [("io_links", &n.io_links), ("p2p_links", &n.p2p_links)] {
        j.key(k);
        j.open('[');
        for l in links.iter() {
            link_json(j, l);
        }
        j.close(']');
    }
    j.close('}');
}

fn link_json(j: &mut Json, l: &IoLink) {
    j.open('{');
    j.str("type", l.link_type.c_name());
    j.num("node_from", l.node_from);
    j.num("node_to", l.node_to);
    j.num("weight", l.weight);
    j.num("min_latency", l.min_latency);
    j.num("max_latency", l.max_latency);
    j.num("min_bandwidth", l.min_bandwidth);
    j.num("max_bandwidth", l.max_bandwidth);
    j.num("recommended_transfer_size", l.recommended_transfer_size);
    j.opt(
        "recommended_sdma_engine_id_mask",
        l.recommended_sdma_engine_id_mask,
    );
    j.num("version_major", l.version_major);
    j.num("version_minor", l.version_minor);
    j.num("flags", l.flags.0);
    j.names("flag_names", l.flags.names());
    j.extra(&l.extra);
    j.close('}');
}
