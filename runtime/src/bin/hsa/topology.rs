//! `hsa topology [--sysfs DIR] [--json]`: prints the KFD topology (nodes,
//! memory banks, caches, IO links) read by `kfd::topology`, from the running
//! kernel's sysfs or from a copy of the tree (`--sysfs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kfd::topology::{
    Cache, FsReader, IoLink, MemBank, Node, NodeKind, Property, SYSFS_TOPOLOGY, Topology,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::json;

/// Arguments of `hsa topology`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Read this tree instead of the running kernel's: a KFD topology
    /// directory (the one holding `generation_id`, like
    /// /sys/devices/virtual/kfd/kfd/topology) or the folder holding such a
    /// `topology/` (like kfd/fixtures/mi250x).
    #[arg(long, value_name = "DIR")]
    sysfs: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// The topology directory `dir` names: `dir` itself when it holds
/// `generation_id`, else its `topology/` when that does, else `dir` (and
/// the read reports what is missing there).
fn topology_dir(dir: &Path) -> PathBuf {
    let nested = dir.join("topology");
    if !dir.join("generation_id").exists() && nested.join("generation_id").exists() {
        nested
    } else {
        dir.to_owned()
    }
}

/// Runs the subcommand: exit 0 with the topology on standard output, 1 with
/// one line on standard error when it cannot be read.
pub fn run(args: &Args) -> ExitCode {
    let root = args
        .sysfs
        .as_deref()
        .map_or_else(|| PathBuf::from(SYSFS_TOPOLOGY), topology_dir);
    let shown = root.display().to_string();
    let topology = match Topology::read(&FsReader::new(&root)) {
        Ok(t) => t,
        Err(e) if e.is_absent() && args.sysfs.is_none() => {
            eprintln!("hsa: no KFD topology at {shown} (the amdgpu kernel driver is not loaded)");
            return ExitCode::FAILURE;
        }
        Err(e) if e.is_absent() => {
            eprintln!(
                "hsa: no KFD topology at {shown} (no generation_id there, nor in its topology/)"
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("hsa: {shown}/{e}");
            return ExitCode::FAILURE;
        }
    };
    let written = if args.json {
        json::print(&to_json(&topology), true)
    } else {
        use std::io::Write as _;
        match std::io::stdout()
            .lock()
            .write_all(to_text(&topology, &shown).as_bytes())
        {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hsa: topology: cannot write the report: {e}");
            ExitCode::FAILURE
        }
    }
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
fn to_text(t: &Topology, root: &str) -> String {
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

/// Unknown keys of a file, as a JSON object of strings in file order.
fn extra(extra: &[Property]) -> Map<String, Value> {
    extra
        .iter()
        .map(|p| (p.key.clone(), Value::from(p.value.as_str())))
        .collect()
}

/// Named numbers (and `null` for absent optional ones) as a JSON object.
fn numbers<'a>(pairs: impl IntoIterator<Item = (&'a str, Option<u64>)>) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.map_or(Value::Null, Value::from)))
        .collect()
}

#[derive(Serialize)]
struct JsonTopology {
    generation_id: u32,
    system: Map<String, Value>,
    nodes: Vec<JsonNode>,
    inaccessible_nodes: Vec<u32>,
}

#[derive(Serialize)]
struct JsonNode {
    id: u32,
    kind: &'static str,
    gpu_id: u32,
    name: String,
    gfx_target: Option<String>,
    numa_node: Option<u32>,
    cu_count: u32,
    properties: Map<String, Value>,
    mem_banks: Vec<Map<String, Value>>,
    caches: Vec<Map<String, Value>>,
    io_links: Vec<Map<String, Value>>,
    p2p_links: Vec<Map<String, Value>>,
}

/// The whole topology as one JSON document (numbers as read; absent
/// optional keys as `null`; unknown keys under `extra` as strings).
fn to_json(t: &Topology) -> JsonTopology {
    let mut system = numbers([
        ("platform_oem", Some(t.system.platform_oem)),
        ("platform_id", Some(t.system.platform_id)),
        ("platform_rev", Some(t.system.platform_rev)),
    ]);
    system.insert("extra".into(), Value::Object(extra(&t.system.extra)));
    JsonTopology {
        generation_id: t.generation_id,
        system,
        nodes: t.nodes.iter().map(|n| node_json(t, n)).collect(),
        inaccessible_nodes: t.inaccessible.clone(),
    }
}

fn node_json(t: &Topology, n: &Node) -> JsonNode {
    let p = &n.properties;
    let mut properties = numbers(
        [
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
        ]
        .map(|(k, v)| (k, Some(u64::from(v)))),
    );
    properties.extend(numbers(
        [
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
        ]
        .map(|(k, v)| (k, v.map(u64::from))),
    ));
    properties.extend(numbers([
        ("hive_id", p.hive_id),
        ("local_mem_size", p.local_mem_size),
        ("debug_prop", p.debug_prop),
        ("unique_id", p.unique_id),
    ]));
    if let Some(cap) = p.capability {
        properties.insert("capability_names".into(), cap.names().collect());
    }
    properties.insert("extra".into(), Value::Object(extra(&p.extra)));

    let mem_banks = n
        .mem_banks
        .iter()
        .map(|b| {
            let mut m = Map::new();
            m.insert("heap_type".into(), b.heap_type.c_name().into());
            m.extend(numbers([
                ("size_in_bytes", Some(b.size_in_bytes)),
                ("flags", Some(u64::from(b.flags.0))),
                ("width", Some(u64::from(b.width))),
                ("mem_clk_max", Some(u64::from(b.mem_clk_max))),
            ]));
            m.insert("extra".into(), Value::Object(extra(&b.extra)));
            m
        })
        .collect();
    let caches = n
        .caches
        .iter()
        .map(|c| {
            let mut m = numbers([
                ("level", Some(u64::from(c.level))),
                ("size_kib", Some(u64::from(c.size_kib))),
                ("type", Some(u64::from(c.cache_type.0))),
            ]);
            m.insert("type_names".into(), c.cache_type.names().collect());
            m.extend(numbers([
                ("cache_line_size", Some(u64::from(c.cache_line_size))),
                (
                    "cache_lines_per_tag",
                    Some(u64::from(c.cache_lines_per_tag)),
                ),
                ("association", Some(u64::from(c.association))),
                ("latency", Some(u64::from(c.latency))),
                ("processor_id_low", Some(u64::from(c.processor_id_low))),
                (
                    "siblings",
                    Some(u64::try_from(c.sibling_map.count_ones()).unwrap_or(u64::MAX)),
                ),
            ]));
            m.insert(
                "sibling_map".into(),
                c.sibling_map.to_kernel_string().into(),
            );
            m.insert("extra".into(), Value::Object(extra(&c.extra)));
            m
        })
        .collect();
    JsonNode {
        id: n.id,
        kind: n.kind().as_str(),
        gpu_id: n.gpu_id,
        name: n.name.clone(),
        gfx_target: p.gfx_target().map(|g| g.to_string()),
        numa_node: t.numa_node_of(n.id),
        cu_count: p.cu_count(),
        properties,
        mem_banks,
        caches,
        io_links: n.io_links.iter().map(link_json).collect(),
        p2p_links: n.p2p_links.iter().map(link_json).collect(),
    }
}

fn link_json(l: &IoLink) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), l.link_type.c_name().into());
    m.extend(numbers(
        [
            ("node_from", Some(l.node_from)),
            ("node_to", Some(l.node_to)),
            ("weight", Some(l.weight)),
            ("min_latency", Some(l.min_latency)),
            ("max_latency", Some(l.max_latency)),
            ("min_bandwidth", Some(l.min_bandwidth)),
            ("max_bandwidth", Some(l.max_bandwidth)),
            (
                "recommended_transfer_size",
                Some(l.recommended_transfer_size),
            ),
            (
                "recommended_sdma_engine_id_mask",
                l.recommended_sdma_engine_id_mask,
            ),
            ("version_major", Some(l.version_major)),
            ("version_minor", Some(l.version_minor)),
            ("flags", Some(l.flags.0)),
        ]
        .map(|(k, v)| (k, v.map(u64::from))),
    ));
    m.insert("flag_names".into(), l.flags.names().collect());
    m.insert("extra".into(), Value::Object(extra(&l.extra)));
    m
}
