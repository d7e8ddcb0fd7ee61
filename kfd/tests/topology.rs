//! The topology reader against the fixture trees in `kfd/fixtures/` (each
//! one's `SOURCES.md` cites the real machines its figures come from), and
//! against broken, truncated and changing trees.

use std::cell::Cell;
use std::io;
use std::path::PathBuf;

use kfd::topology::{
    CacheType, FsReader, GfxTargetVersion, HeapType, IoLinkType, MemReader, NodeKind, SysfsFile,
    SysfsReader, Topology, TopologyErrorKind, ValueProblem,
};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
        .join("topology")
}

fn read(name: &str) -> Topology {
    Topology::read(&FsReader::new(fixture(name))).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn mem_fixture(name: &str) -> MemReader {
    MemReader::from_dir(&fixture(name)).expect("load fixture")
}

#[test]
fn cpu_only_machine() {
    let t = read("cpu-only");
    assert_eq!(t.generation_id, 1);
    assert_eq!(t.nodes.len(), 1);
    let n = &t.nodes[0];
    assert_eq!(n.kind(), NodeKind::Cpu);
    assert_eq!(n.name, "");
    assert_eq!(n.properties.cpu_cores_count, 12);
    assert_eq!(n.properties.max_engine_clk_ccompute, 3200);
    // rocminfo: "Size: 8096068KB" for the CPU's global pool.
    assert_eq!(n.memory_of(HeapType::System), 8_096_068 * 1024);
    assert_eq!(
        n.properties.capability, None,
        "capability is printed for GPU nodes only"
    );
    assert!(n.io_links.is_empty() && n.caches.is_empty());
    assert_eq!(t.gpus().count(), 0);
    assert_eq!(n.local_memory_bytes(), 0);
    assert_eq!(t.numa_node_of(0), Some(0));
}

#[test]
fn apu_machine() {
    let t = read("apu-renoir");
    let kinds: Vec<_> = t.nodes.iter().map(|n| n.kind()).collect();
    assert_eq!(kinds, [NodeKind::Cpu, NodeKind::Gpu]);
    let g = &t.nodes[1];
    assert_eq!(g.name, "renoir");
    assert_eq!(
        g.properties.gfx_target().map(|v| v.to_string()).as_deref(),
        Some("gfx90c")
    );
    assert_eq!(g.properties.cu_count(), 8);
    assert_eq!(
        g.properties.max_waves_per_simd * g.properties.simd_per_cu,
        40,
        "rocminfo: Max Waves Per CU 40"
    );
    // The UMA carve-out rocminfo shows as a 524288 KB coarse-grained pool.
    assert_eq!(g.memory_of(HeapType::FrameBufferPublic), 512 << 20);
    assert_eq!(t.numa_node_of(1), Some(0));
    // kfd_device_info_set_sdma_info: Renoir's SDMA 4.1.2 has 2 queues per engine.
    assert_eq!(
        (
            g.properties.num_sdma_engines,
            g.properties.num_sdma_queues_per_engine
        ),
        (Some(1), Some(2))
    );
}

#[test]
fn mi250x_machine() {
    let t = read("mi250x");
    assert_eq!(t.cpus().count(), 2);
    assert_eq!(t.gpus().count(), 8, "four MI250X cards, two GCD nodes each");
    for g in t.gpus() {
        let p = &g.properties;
        assert_eq!(g.name, "aldebaran");
        assert_eq!(p.gfx_target(), Some(GfxTargetVersion(90010)));
        assert_eq!(p.gfx_target().unwrap().to_string(), "gfx90a");
        assert_eq!(p.cu_count(), 110, "110 CUs per MI250X GCD");
        assert_eq!(p.device_id, 0x740c, "rocminfo: Chip ID 29708(0x740c)");
        assert_eq!(p.max_engine_clk_fcompute, Some(1700));
        assert_eq!(p.wave_front_size, 64);
        assert_eq!(p.lds_size_in_kb, 64);
        // rocminfo: "Size: 67092480(0x3ffc000) KB" (64 GiB less the driver reserve).
        assert_eq!(g.memory_of(HeapType::FrameBufferPublic), 67_092_480 * 1024);
        let l2: Vec<_> = g.caches_at(2).collect();
        assert_eq!(l2.len(), 1);
        assert_eq!(l2[0].size_kib, 8192, "rocminfo: L2 8192 KB");
        assert!(
            l2[0]
                .cache_type
                .contains(CacheType::DATA | CacheType::HSACU)
        );
        assert_eq!(
            g.caches_at(1).map(|c| c.size_kib).next(),
            Some(16),
            "rocminfo: L1 16 KB"
        );
        // One PCIe link to its socket, XGMI to the seven other GCDs.
        assert_eq!(g.io_links_of(IoLinkType::PciExpress).count(), 1);
        let xgmi: Vec<_> = g.io_links_of(IoLinkType::Xgmi).collect();
        assert_eq!(xgmi.len(), 7);
        assert!(xgmi.iter().all(|l| l.weight == 15 && l.node_from == g.id));
        // The other GCD of the same card: four links of 16 lanes at 25 Gbit/s.
        let twin = if g.id % 2 == 0 { g.id + 1 } else { g.id - 1 };
        let to_twin = xgmi.iter().find(|l| l.node_to == twin).unwrap();
        assert_eq!(to_twin.max_bandwidth, 200_000);
        assert_eq!(to_twin.min_bandwidth, 50_000);
        assert_eq!(t.numa_node_of(g.id), Some(if g.id < 6 { 0 } else { 1 }));
        assert_eq!(g.properties.hive_id, t.nodes[2].properties.hive_id);
    }
    let socket0 = &t.nodes[0];
    assert_eq!(
        socket0
            .io_links_of(IoLinkType::HyperTransport)
            .map(|l| (l.node_to, l.weight))
            .collect::<Vec<_>>(),
        [(1, 32)]
    );
    assert_eq!(
        socket0
            .io_links_of(IoLinkType::PciExpress)
            .map(|l| l.node_to)
            .collect::<Vec<_>>(),
        [2, 3, 4, 5]
    );
}

#[test]
fn mi300x_machine() {
    let t = read("mi300x");
    assert_eq!(t.nodes.len(), 10);
    for g in t.gpus() {
        let p = &g.properties;
        assert_eq!(g.name, "ip discovery");
        assert_eq!(p.gfx_target().unwrap().to_string(), "gfx942");
        assert_eq!(p.cu_count(), 304);
        assert_eq!(p.num_xcc, Some(8));
        assert_eq!(p.device_id, 0x74a1);
        // rocminfo: 201310208 KB (192 GiB less the driver's reservation).
        assert_eq!(g.memory_of(HeapType::FrameBufferPublic), 201_310_208 * 1024);
        assert_eq!(g.local_memory_bytes(), 201_310_208 * 1024);
        assert_eq!(
            g.caches_at(3).map(|c| c.size_kib).collect::<Vec<_>>(),
            [262_144]
        );
        let xgmi: Vec<_> = g.io_links_of(IoLinkType::Xgmi).collect();
        assert_eq!(xgmi.len(), 7);
        // GC 9.4.3 XGMI: 16 lanes at 32 Gbit/s, 64000 MB/s per link.
        assert!(
            xgmi.iter()
                .all(|l| (l.min_bandwidth, l.max_bandwidth) == (64_000, 64_000))
        );
        assert!(xgmi.iter().all(|l| {
            l.recommended_sdma_engine_id_mask
                .is_some_and(|m| m.count_ones() == 1)
        }));
        let pcie = g.io_links_of(IoLinkType::PciExpress).next().unwrap();
        assert_eq!(
            (pcie.min_bandwidth, pcie.max_bandwidth),
            (0, 64_000),
            "x16 Gen5"
        );
        // The newest kernels' keys this crate has no field for are kept, in order.
        let extra: Vec<_> = p
            .extra
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(
            extra,
            [
                ("cwsr_size", "23203840"),
                ("ctl_stack_size", "12288"),
                ("capability2", "1")
            ]
        );
        assert_eq!(p.capability.map(|c| c.0), Some(2_893_521_536));
        let cap = p.capability.unwrap();
        assert_eq!(cap.doorbell_type(), 2);
        assert_eq!(cap.watch_points_total_bits(), 2);
        assert!(cap.contains(kfd::topology::Capability::SVMAPI_SUPPORTED));
    }
}

#[test]
fn rdna3_desktop() {
    let t = read("rdna3-7900xtx");
    let g = &t.nodes[1];
    let p = &g.properties;
    assert_eq!(p.gfx_target().unwrap().to_string(), "gfx1100");
    assert_eq!(p.wave_front_size, 32, "rocminfo: Wavefront Size 32");
    assert_eq!(p.cu_count(), 96);
    assert_eq!(p.simd_per_cu, 2, "rocminfo: SIMDs per CU 2");
    assert_eq!(p.shader_engines(), 6, "rocminfo: Shader Engines 6");
    assert_eq!(
        p.simd_arrays_per_engine, 2,
        "rocminfo: Shader Arrs. per Eng. 2"
    );
    assert_eq!(
        p.max_waves_per_simd * p.simd_per_cu,
        32,
        "rocminfo: Max Waves Per CU 32"
    );
    assert_eq!(p.location_id, 2304, "rocminfo: BDFID 2304");
    assert_eq!((p.pci_bus(), p.pci_device(), p.pci_function()), (9, 0, 0));
    let sizes: Vec<_> = [1, 2, 3]
        .iter()
        .map(|l| g.caches_at(*l).map(|c| c.size_kib).max())
        .collect();
    assert_eq!(
        sizes,
        [Some(32), Some(6144), Some(98304)],
        "rocminfo: L1 32, L2 6144, L3 98304 KB"
    );
    assert_eq!(
        g.memory_of(HeapType::FrameBufferPublic) >> 20,
        24560,
        "24560 MiB"
    );
}

#[test]
fn unknown_keys_are_kept_in_order() {
    let mut m = mem_fixture("mi300x");
    let path = "nodes/2/properties";
    let mut text = String::from_utf8(m.read(path).unwrap()).unwrap();
    text.push_str("future_key 77\nanother_key 1,2\n");
    m.insert(path, text);
    let link = "nodes/2/io_links/0/properties";
    let mut text = String::from_utf8(m.read(link).unwrap()).unwrap();
    text.insert_str(0, "link_future 5\n");
    m.insert(link, text);
    let t = Topology::read(&m).unwrap();
    let extra: Vec<_> = t.nodes[2]
        .properties
        .extra
        .iter()
        .map(|p| (p.key.as_str(), p.value.as_str()))
        .collect();
    assert_eq!(
        extra,
        [
            ("cwsr_size", "23203840"),
            ("ctl_stack_size", "12288"),
            ("capability2", "1"),
            ("future_key", "77"),
            ("another_key", "1,2")
        ]
    );
    assert_eq!(t.nodes[2].io_links[0].extra[0].key, "link_future");
    assert_eq!(t.nodes[2].io_links[0].extra[0].line, 1);
}

fn with_file(fixture_name: &str, path: &str, contents: &[u8]) -> kfd::topology::TopologyError {
    let mut m = mem_fixture(fixture_name);
    m.insert(path, contents.to_vec());
    Topology::read(&m).expect_err("broken tree must not parse")
}

#[test]
fn malformed_files_name_file_and_line() {
    let e = with_file(
        "rdna3-7900xtx",
        "nodes/1/properties",
        b"cpu_cores_count 0\nsimd_count x\n",
    );
    assert_eq!(e.file, SysfsFile::NodeProperties { node: 1 });
    assert_eq!(
        e.kind,
        TopologyErrorKind::BadValue {
            line: 2,
            key: "simd_count",
            problem: ValueProblem::NotDecimal
        }
    );
    assert_eq!(
        e.to_string(),
        "nodes/1/properties: line 2: value of `simd_count` is not an unsigned decimal"
    );

    let e = with_file("mi250x", "nodes/3/io_links/2/properties", b"type 99\n");
    assert_eq!(
        e.to_string(),
        "nodes/3/io_links/2/properties: line 1: value of `type` is not a value linux/kfd_sysfs.h defines"
    );

    let e = with_file(
        "mi250x",
        "nodes/3/mem_banks/0/properties",
        b"heap_type 1\nsize_in_bytes 1\nflags 0\nwidth 4294967296\nmem_clk_max 1\n",
    );
    assert_eq!(
        e.to_string(),
        "nodes/3/mem_banks/0/properties: line 4: value of `width` does not fit in 32 bits"
    );

    let e = with_file("apu-renoir", "nodes/1/caches/0/properties", b"processor_id_low 0\nlevel 1\nsize 16\ncache_line_size 64\ncache_lines_per_tag 1\nassociation 0\nlatency 0\ntype 9\nsibling_map 1,2\n");
    assert_eq!(
        e.to_string(),
        "nodes/1/caches/0/properties: line 9: value of `sibling_map` is not a comma-separated list of 0 and 1"
    );

    let e = with_file(
        "cpu-only",
        "system_properties",
        b"platform_oem 1\nplatform_id 2\n",
    );
    assert_eq!(
        e.to_string(),
        "system_properties: missing key `platform_rev`"
    );

    let e = with_file(
        "cpu-only",
        "nodes/0/properties",
        b"cpu_cores_count 1\ncpu_cores_count 2\n",
    );
    assert_eq!(
        e.to_string(),
        "nodes/0/properties: line 2: key appears twice"
    );

    let e = with_file("cpu-only", "generation_id", b"seven\n");
    assert_eq!(
        e.to_string(),
        "generation_id: line 1: not an unsigned 32-bit decimal"
    );

    let e = with_file(
        "rdna3-7900xtx",
        "nodes/1/name",
        b"a name that is far longer than thirty-one bytes\n",
    );
    assert_eq!(e.file, SysfsFile::Name { node: 1 });
}

#[test]
fn counts_and_numbering_are_checked() {
    // A count pointing past the banks that exist names the missing file.
    let mut m = mem_fixture("rdna3-7900xtx");
    let text = String::from_utf8(m.read("nodes/1/properties").unwrap()).unwrap();
    m.insert(
        "nodes/1/properties",
        text.replace("mem_banks_count 1\n", "mem_banks_count 2\n"),
    );
    let e = Topology::read(&m).unwrap_err();
    assert_eq!(e.file, SysfsFile::MemBank { node: 1, index: 1 });
    assert_eq!(e.kind, TopologyErrorKind::Io(io::ErrorKind::NotFound));

    // A count no machine has is refused before any allocation or read.
    let mut m = mem_fixture("rdna3-7900xtx");
    m.insert(
        "nodes/1/properties",
        text.replace("caches_count 5\n", "caches_count 4294967295\n"),
    );
    let e = Topology::read(&m).unwrap_err();
    assert_eq!(
        e.kind,
        TopologyErrorKind::TooMany {
            key: "caches_count"
        }
    );

    // A hole in the node numbers.
    let mut m = mem_fixture("mi250x");
    let paths: Vec<String> = m
        .paths()
        .filter(|p| p.starts_with("nodes/4/"))
        .map(str::to_owned)
        .collect();
    for p in paths {
        m.remove(&p);
    }
    let e = Topology::read(&m).unwrap_err();
    assert_eq!(
        (e.file, e.kind),
        (
            SysfsFile::NodesDir,
            TopologyErrorKind::NodeNumbering { missing: 4 }
        )
    );

    let mut m = mem_fixture("cpu-only");
    m.insert("nodes/zero/gpu_id", b"0\n".to_vec());
    assert_eq!(
        Topology::read(&m).unwrap_err().kind,
        TopologyErrorKind::UnexpectedEntry
    );
}

#[test]
fn every_truncated_file_is_an_error() {
    // Cut every file of a tree at every length short of its end: each cut
    // must be reported (never a panic, never a silently shorter topology).
    let base = mem_fixture("rdna3-7900xtx");
    let paths: Vec<String> = base
        .paths()
        .filter(|p| !p.ends_with(".keep"))
        .map(str::to_owned)
        .collect();
    let mut cuts = 0;
    for path in &paths {
        let full = base.read(path).unwrap();
        for len in 0..full.len() {
            let mut m = base.clone();
            m.insert(path.clone(), full[..len].to_vec());
            let e = Topology::read(&m).expect_err("truncated tree parsed");
            assert_eq!(e.file.to_string(), *path, "cut {path} at {len}: {e}");
            cuts += 1;
        }
    }
    assert!(cuts > 1000, "{cuts}");
}

#[test]
fn absent_topology_is_recognised() {
    let e = Topology::read(&FsReader::new("/nonexistent/kfd/topology")).unwrap_err();
    assert!(e.is_absent(), "{e}");
    let e = Topology::read(&MemReader::new()).unwrap_err();
    assert!(e.is_absent(), "{e}");
}

/// A reader that plays the driver adding a GPU: `generation_id` reads
/// `base` for the first `stable_reads` reads of it, then a new value each
/// time, as long as `changes` allows.
struct ChangingGeneration {
    inner: MemReader,
    generation_reads: Cell<u32>,
    changes: u32,
    stable_reads: u32,
}

impl SysfsReader for ChangingGeneration {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        if path == "generation_id" {
            let n = self.generation_reads.get();
            self.generation_reads.set(n + 1);
            let bumps = (n + 1).saturating_sub(self.stable_reads).min(self.changes);
            return Ok(format!("{}\n", 10 + bumps).into_bytes());
        }
        self.inner.read(path)
    }
    fn list(&self, path: &str) -> io::Result<Vec<String>> {
        self.inner.list(path)
    }
}

#[test]
fn generation_change_during_read_rereads_the_tree() {
    // Reads: 1 (before) -> 10, 2 (after) -> 11: changed, so read again;
    // 3 -> 12, 4 -> 12 (changes exhausted): consistent.
    let r = ChangingGeneration {
        inner: mem_fixture("mi250x"),
        generation_reads: Cell::new(0),
        changes: 2,
        stable_reads: 1,
    };
    let t = Topology::read(&r).unwrap();
    assert_eq!(t.generation_id, 12);
    assert_eq!(r.generation_reads.get(), 4);
    assert_eq!(
        t,
        Topology {
            generation_id: 12,
            ..read("mi250x")
        }
    );
}

#[test]
fn generation_that_never_settles_is_an_error() {
    let r = ChangingGeneration {
        inner: mem_fixture("cpu-only"),
        generation_reads: Cell::new(0),
        changes: u32::MAX,
        stable_reads: 0,
    };
    let e = Topology::read(&r).unwrap_err();
    assert_eq!(
        e.kind,
        TopologyErrorKind::GenerationUnstable {
            attempts: kfd::topology::MAX_READ_ATTEMPTS
        }
    );
    assert_eq!(e.file, SysfsFile::GenerationId);
}

/// A reader where a node vanishes mid-read (hot-unplug) and the generation
/// moves: the failed pass is retried, and the second pass sees the new tree.
struct Unplug {
    before: MemReader,
    after: MemReader,
    reads: Cell<u32>,
}

impl SysfsReader for Unplug {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        let n = self.reads.get();
        self.reads.set(n + 1);
        // The first generation read sees the old tree, every later read the
        // new one; `nodes/` is listed from the old tree until then, so pass 1
        // lists 2 nodes and finds node 1 gone.
        if n == 0 {
            self.before.read(path)
        } else {
            self.after.read(path)
        }
    }
    fn list(&self, path: &str) -> io::Result<Vec<String>> {
        if self.reads.get() <= 2 {
            self.before.list(path)
        } else {
            self.after.list(path)
        }
    }
}

#[test]
fn failed_read_during_generation_change_is_retried() {
    let before = mem_fixture("rdna3-7900xtx");
    let mut after = mem_fixture("rdna3-7900xtx");
    let paths: Vec<String> = after
        .paths()
        .filter(|p| p.starts_with("nodes/1/"))
        .map(str::to_owned)
        .collect();
    for p in paths {
        after.remove(&p);
    }
    let text = String::from_utf8(after.read("nodes/0/properties").unwrap()).unwrap();
    after.insert(
        "nodes/0/properties",
        text.replace("io_links_count 1\n", "io_links_count 0\n"),
    );
    after.remove("nodes/0/io_links/0/properties");
    after.insert("generation_id", b"3\n".to_vec());
    let t = Topology::read(&Unplug {
        before,
        after,
        reads: Cell::new(0),
    })
    .unwrap();
    assert_eq!(t.generation_id, 3);
    assert_eq!(t.nodes.len(), 1);
}

/// The kernel answers `EPERM` for the files of a GPU outside the caller's
/// device cgroup (`kfd_devcgroup_check_permission`).
struct Cgroup {
    inner: MemReader,
    hidden: &'static str,
}

impl SysfsReader for Cgroup {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        if path.starts_with(self.hidden) {
            return Err(io::ErrorKind::PermissionDenied.into());
        }
        self.inner.read(path)
    }
    fn list(&self, path: &str) -> io::Result<Vec<String>> {
        self.inner.list(path)
    }
}

#[test]
fn gpus_outside_the_device_cgroup_are_listed_as_inaccessible() {
    let t = Topology::read(&Cgroup {
        inner: mem_fixture("mi300x"),
        hidden: "nodes/3/",
    })
    .unwrap();
    assert_eq!(t.inaccessible, [3]);
    let ids: Vec<u32> = t.nodes.iter().map(|n| n.id).collect();
    assert_eq!(ids, [0, 1, 2, 4, 5, 6, 7, 8, 9]);
    assert_eq!(t.node(4).map(|n| n.name.as_str()), Some("ip discovery"));
    assert!(t.node(3).is_none());
    // A refusal on any other file is an error naming it.
    let e = Topology::read(&Cgroup {
        inner: mem_fixture("mi300x"),
        hidden: "system_properties",
    })
    .unwrap_err();
    assert_eq!(
        (e.file, e.kind),
        (
            SysfsFile::SystemProperties,
            TopologyErrorKind::Io(io::ErrorKind::PermissionDenied)
        )
    );
}

#[test]
fn p2p_links_are_read_when_counted() {
    let mut m = mem_fixture("rdna3-7900xtx");
    let text = String::from_utf8(m.read("nodes/1/properties").unwrap()).unwrap();
    m.insert(
        "nodes/1/properties",
        text.replace("p2p_links_count 0\n", "p2p_links_count 1\n"),
    );
    m.insert(
        "nodes/1/p2p_links/0/properties",
        b"type 2\nversion_major 0\nversion_minor 0\nnode_from 1\nnode_to 0\nweight 20\nmin_latency 0\nmax_latency 0\nmin_bandwidth 312\nmax_bandwidth 32000\nrecommended_transfer_size 0\nflags 3\n".to_vec(),
    );
    let t = Topology::read(&m).unwrap();
    let l = &t.nodes[1].p2p_links[0];
    assert_eq!(
        (l.link_type, l.node_to, l.max_bandwidth),
        (IoLinkType::PciExpress, 0, 32000)
    );
    assert!(l.flags.contains(kfd::topology::IoLinkFlags::NON_COHERENT));
    // Counted but absent: the error names the missing file.
    m.remove("nodes/1/p2p_links/0/properties");
    let e = Topology::read(&m).unwrap_err();
    assert_eq!(
        e.to_string(),
        "nodes/1/p2p_links/0/properties: cannot read (entity not found)"
    );
}

/// `path` of fixture `name` with `from` replaced by `to` (which must occur).
fn edited(name: &str, path: &str, from: &str, to: &str) -> MemReader {
    let mut m = mem_fixture(name);
    let text = String::from_utf8(m.read(path).unwrap()).unwrap();
    assert!(text.contains(from), "{path} has no {from:?}");
    m.insert(path, text.replacen(from, to, 1));
    m
}

#[test]
fn numbers_at_their_limits_are_exact_or_typed_errors() {
    // Issue 17 audit: every number read from sysfs goes through a checked
    // decimal parser, narrowing is `try_from`, derived values divide with
    // `checked_div`; here each limit is met from outside.
    let sys = "system_properties";
    let from = "platform_oem 71791775140929";

    // u64::MAX is a valid `%llu`; one more is not.
    let m = edited(
        "rdna3-7900xtx",
        sys,
        from,
        "platform_oem 18446744073709551615",
    );
    assert_eq!(Topology::read(&m).unwrap().system.platform_oem, u64::MAX);
    for too_big in ["18446744073709551616", "99999999999999999999999999999999"] {
        let m = edited(
            "rdna3-7900xtx",
            sys,
            from,
            &format!("platform_oem {too_big}"),
        );
        let e = Topology::read(&m).unwrap_err();
        assert_eq!(
            e.kind,
            TopologyErrorKind::BadValue {
                line: 1,
                key: "platform_oem",
                problem: ValueProblem::TooLarge
            },
            "{too_big}"
        );
        assert_eq!(
            e.to_string(),
            "system_properties: line 1: value of `platform_oem` does not fit in 64 bits"
        );
    }

    // A 32-bit key at u32::MAX is exact; 2^32 is out of range.
    let node = "nodes/1/properties";
    let m = edited(
        "rdna3-7900xtx",
        node,
        "simd_count 192",
        "simd_count 4294967295",
    );
    assert_eq!(
        Topology::read(&m).unwrap().nodes[1].properties.simd_count,
        u32::MAX
    );
    let m = edited(
        "rdna3-7900xtx",
        node,
        "simd_count 192",
        "simd_count 4294967296",
    );
    assert!(matches!(
        Topology::read(&m).unwrap_err().kind,
        TopologyErrorKind::BadValue {
            key: "simd_count",
            problem: ValueProblem::OutOfRange,
            ..
        }
    ));

    // Divisors of zero give 0, not a panic.
    let m = edited("rdna3-7900xtx", node, "simd_per_cu 2", "simd_per_cu 0");
    let m2 = {
        let mut m2 = m.clone();
        let text = String::from_utf8(m2.read(node).unwrap()).unwrap();
        m2.insert(
            node,
            text.replace("simd_arrays_per_engine 2", "simd_arrays_per_engine 0"),
        );
        m2
    };
    let t = Topology::read(&m2).unwrap();
    assert_eq!(
        (
            t.nodes[1].properties.cu_count(),
            t.nodes[1].properties.shader_engines()
        ),
        (0, 0)
    );

    // Bit-field accessors and the target name take any u32.
    let m = edited(
        "rdna3-7900xtx",
        node,
        "location_id 2304",
        "location_id 4294967295",
    );
    let t = Topology::read(&m).unwrap();
    let p = &t.nodes[1].properties;
    assert_eq!(
        (p.pci_bus(), p.pci_device(), p.pci_function()),
        (0xff, 0x1f, 7)
    );
    let m = edited(
        "rdna3-7900xtx",
        node,
        "gfx_target_version 110000",
        "gfx_target_version 4294967295",
    );
    let t = Topology::read(&m).unwrap();
    let g = t.nodes[1].properties.gfx_target().unwrap();
    assert_eq!((g.major(), g.minor(), g.stepping()), (429_496, 72, 95));
    assert_eq!(g.to_string(), "gfx429496485f");

    // Counts: 4096 is the cap, 4097 is refused before any read.
    let m = edited("rdna3-7900xtx", node, "caches_count 5", "caches_count 4097");
    assert_eq!(
        Topology::read(&m).unwrap_err().kind,
        TopologyErrorKind::TooMany {
            key: "caches_count"
        }
    );
    let m = edited("rdna3-7900xtx", node, "caches_count 5", "caches_count 4096");
    assert_eq!(
        Topology::read(&m).unwrap_err().file,
        SysfsFile::Cache { node: 1, index: 5 }
    );

    // A node directory numbered past u32 is not a node.
    let mut m = mem_fixture("cpu-only");
    m.insert("nodes/4294967296/gpu_id", b"0\n".to_vec());
    assert_eq!(
        Topology::read(&m).unwrap_err().kind,
        TopologyErrorKind::UnexpectedEntry
    );
}
