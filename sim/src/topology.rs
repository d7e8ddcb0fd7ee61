//! The sysfs-shaped topology the simulated GPUs present.
//!
//! The tree is generated in memory as a [`MemReader`], the `kfd` parser's
//! own in-memory source, so [`kfd::topology::Topology::read`] reads it
//! unchanged and nothing touches the filesystem; [`SimTopology::write_to`]
//! writes the same files under a directory for a client that reads a path
//! (`hsa topology --sysfs DIR`, a libhsakmt pointed at a copy).
//!
//! The figures are those of real boards (`kfd/fixtures/*/SOURCES.md` cites
//! the dumps); the derived queue sizes follow the driver's
//! `kfd_queue_ctx_save_restore_size`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use kfd::topology::MemReader;

/// Which real board the simulated GPUs imitate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Board {
    /// One AMD Instinct MI210 (gfx90a, "aldebaran", 104 CUs, 64 GiB).
    Mi210,
    /// AMD Instinct MI250X GCDs (gfx90a, 110 CUs each, 64 GiB each), all
    /// joined by XGMI, as `kfd/fixtures/mi250x`.
    Mi250x,
    /// AMD Instinct MI300X (gfx942, 8 XCCs, 304 CUs, 192 GiB), XGMI
    /// joined, as `kfd/fixtures/mi300x`.
    Mi300x,
}

impl Board {
    /// The name used by `SIM_BOARD`: `mi210`, `mi250x`, `mi300x`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Mi210 => "mi210",
            Self::Mi250x => "mi250x",
            Self::Mi300x => "mi300x",
        }
    }

    /// Parses [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Mi210, Self::Mi250x, Self::Mi300x]
            .into_iter()
            .find(|b| b.name() == name)
    }

    /// GPUs on the board by default (one MI210; one MI250X module: two GCDs; one MI300X).
    pub const fn default_gpus(self) -> u32 {
        match self {
            Self::Mi210 | Self::Mi300x => 1,
            Self::Mi250x => 2,
        }
    }

    pub(crate) fn spec(self) -> GpuSpec {
        match self {
            Self::Mi210 => GpuSpec {
                name: "aldebaran",
                gfx_target_version: 90010,
                device_id: 0x740f,
                simd_count: 416,
                array_count: 8,
                cu_per_simd_array: 13,
                num_xcc: 1,
                vram: 64 << 30,
                l2_kib: 8192,
                l3_kib: 0,
                max_engine_clk: 1700,
                num_sdma_engines: 2,
                num_sdma_xgmi_engines: 3,
                fw_version: 78,
                capability: 746_037_888,
                local_mem_width: 4096,
                mem_clk_max: 1600,
                pci_rev: 0x02,
            },
            Self::Mi250x => GpuSpec {
                name: "aldebaran",
                gfx_target_version: 90010,
                device_id: 0x740c,
                simd_count: 440,
                array_count: 8,
                cu_per_simd_array: 14,
                num_xcc: 1,
                vram: 68_702_699_520,
                l2_kib: 8192,
                l3_kib: 0,
                max_engine_clk: 1700,
                num_sdma_engines: 2,
                num_sdma_xgmi_engines: 3,
                fw_version: 78,
                capability: 746_037_888,
                local_mem_width: 4096,
                mem_clk_max: 1600,
                pci_rev: 0x01,
            },
            Self::Mi300x => GpuSpec {
                name: "ip discovery",
                gfx_target_version: 90402,
                device_id: 0x74a1,
                simd_count: 1216,
                array_count: 32,
                cu_per_simd_array: 10,
                num_xcc: 8,
                vram: 206_141_652_992,
                l2_kib: 4096,
                l3_kib: 262_144,
                max_engine_clk: 2100,
                num_sdma_engines: 2,
                num_sdma_xgmi_engines: 14,
                fw_version: 192,
                capability: 2_893_521_536,
                local_mem_width: 8192,
                mem_clk_max: 1300,
                pci_rev: 0x00,
            },
        }
    }
}

/// The figures of one simulated GPU node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GpuSpec {
    pub(crate) name: &'static str,
    pub(crate) gfx_target_version: u32,
    pub(crate) device_id: u32,
    pub(crate) simd_count: u32,
    pub(crate) array_count: u32,
    pub(crate) cu_per_simd_array: u32,
    pub(crate) num_xcc: u32,
    pub(crate) vram: u64,
    pub(crate) l2_kib: u32,
    pub(crate) l3_kib: u32,
    pub(crate) max_engine_clk: u32,
    pub(crate) num_sdma_engines: u32,
    pub(crate) num_sdma_xgmi_engines: u32,
    pub(crate) fw_version: u32,
    pub(crate) capability: u32,
    pub(crate) local_mem_width: u32,
    pub(crate) mem_clk_max: u32,
    /// The PCI revision (`/usr/share/libdrm/amdgpu.ids` names the board by
    /// device id and revision: 740F rev 02 is the MI210, 740C rev 01 the
    /// MI250X).
    pub(crate) pci_rev: u32,
}

/// SIMDs per CU on GFX9 (4 SIMD16 units).
pub(crate) const SIMD_PER_CU: u32 = 4;
/// Waves per SIMD on gfx90a/gfx942.
pub(crate) const MAX_WAVES_PER_SIMD: u32 = 8;
/// LDS per workgroup (and per CU) on GFX9: 64 KiB.
pub(crate) const LDS_SIZE_KIB: u32 = 64;
/// The end-of-pipe buffer size KFD requires on GFX9+ (`eop_buffer_size`).
pub(crate) const EOP_BUFFER_SIZE: u64 = 4096;
/// The doorbell page of a process on SOC15: 2 pages of 64-bit doorbells
/// (`kfd_doorbell_process_slice`).
pub(crate) const DOORBELL_PROCESS_SLICE: usize = 8192;

impl GpuSpec {
    /// Compute units per XCC, as `kfd_queue_ctx_save_restore_size` counts them.
    fn cu_per_xcc(&self) -> u32 {
        self.simd_count / SIMD_PER_CU / self.num_xcc.max(1)
    }

    /// The waves `kfd_queue_ctx_save_restore_size` sizes the save area
    /// for: on GFX9 (before GFX10.1) 40 per CU, at most 512 per shader
    /// array (`min(cu_num * 40, array_count / simd_arrays_per_engine *
    /// 512)`), the formula libhsakmt 5.2.3's `update_ctx_save_restore_size`
    /// also uses; not the CU's wave slots (`MAX_WAVES_PER_SIMD`).
    fn waves_per_xcc(&self) -> u32 {
        // simd_arrays_per_engine is 1 on every board the sim imitates.
        (self.cu_per_xcc() * 40).min(self.array_count * 512)
    }

    /// `node_props.ctl_stack_size` (`kfd_queue_ctx_save_restore_size`):
    /// 8 bytes per wave plus 8, after the 40-byte save-area header,
    /// page aligned.
    pub(crate) fn ctl_stack_size(&self) -> u32 {
        align(40 + self.waves_per_xcc() * 8 + 8, 4096)
    }

    /// `node_props.cwsr_size`: the control stack plus the workgroup data
    /// (VGPRs, SGPRs, LDS, HW registers of every CU).
    pub(crate) fn cwsr_size(&self) -> u32 {
        let vgpr = if matches!(self.gfx_target_version, 90010 | 90402 | 90008 | 90500) {
            0x8_0000
        } else {
            0x4_0000
        };
        let per_cu = vgpr + 0x4000 + 0x1_0000 + 0x1000;
        self.ctl_stack_size() + align(self.cu_per_xcc() * per_cu, 4096)
    }

    /// `node_props.debug_memory_size`: 32 bytes per wave, 64-byte aligned.
    pub(crate) fn debug_memory_size(&self) -> u32 {
        align(self.waves_per_xcc() * 32, 64)
    }

    /// The CWSR area a compute queue with the node's save-area size must
    /// map (`kfd_queue_acquire_buffers`): `(cwsr_size + debug_memory_size)
    /// * num_xcc`, page aligned.
    pub(crate) fn cwsr_area_size(&self) -> Option<u64> {
        self.cwsr_area_size_for(self.cwsr_size())
    }

    /// The CWSR area of a queue whose save area is `ctx_save_restore_size`
    /// bytes (the driver sizes it from the queue's figure, which may exceed
    /// the node's).
    pub(crate) fn cwsr_area_size_for(&self, ctx_save_restore_size: u32) -> Option<u64> {
        let per_xcc = u64::from(ctx_save_restore_size) + u64::from(self.debug_memory_size());
        per_xcc
            .checked_mul(u64::from(self.num_xcc.max(1)))?
            .checked_next_multiple_of(4096)
    }
}

fn align(v: u32, a: u32) -> u32 {
    v.div_ceil(a) * a
}

/// What the topology holds: the board, how many GPUs, their VRAM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopologyConfig {
    /// The board imitated.
    pub board: Board,
    /// Number of GPU nodes.
    pub gpus: u32,
    /// VRAM per GPU in bytes (`None`: the board's).
    pub vram: Option<u64>,
}

/// One GPU as the device model needs it.
#[derive(Debug, Clone)]
pub(crate) struct GpuNode {
    pub(crate) gpu_id: u32,
    pub(crate) drm_render_minor: u32,
    pub(crate) spec: GpuSpec,
}

/// The generated tree and the GPUs it describes.
#[derive(Debug, Clone)]
pub struct SimTopology {
    reader: MemReader,
    pub(crate) gpus: Vec<GpuNode>,
}

/// Host memory reported for the CPU node (illustrative: 256 GiB).
const HOST_MEMORY: u64 = 256 << 30;

impl SimTopology {
    /// Generates the tree: node 0 is the CPU, nodes 1.. the GPUs.
    pub fn generate(config: &TopologyConfig) -> Self {
        let mut spec = config.board.spec();
        if let Some(v) = config.vram {
            spec.vram = v;
        }
        let mut files = MemReader::new();
        let n = config.gpus;
        files.insert("generation_id", format!("{}\n", 1 + n));
        files.insert(
            "system_properties",
            "platform_oem 0\nplatform_id 0\nplatform_rev 0\n",
        );
        // The CPU node.
        let cpu_props = node_properties(None, 0, 1, n);
        files.insert("nodes/0/gpu_id", "0\n");
        files.insert("nodes/0/name", "\n");
        files.insert("nodes/0/properties", cpu_props);
        files.insert(
            "nodes/0/mem_banks/0/properties",
            format!("heap_type 0\nsize_in_bytes {HOST_MEMORY}\nflags 0\nwidth 0\nmem_clk_max 0\n"),
        );
        for g in 0..n {
            files.insert(
                format!("nodes/0/io_links/{g}/properties"),
                io_link(1, 0, g + 1, 20, 0, 32000),
            );
        }
        let mut gpus = Vec::new();
        for g in 0..n {
            let node = g + 1;
            // gpu_id is a hash in the kernel; any stable non-zero 16-bit value works.
            let gpu_id = 0x1002_u32.wrapping_mul(node * 7919 + 1) & 0xffff | 0x1000;
            let minor = 128 + g;
            let base = format!("nodes/{node}");
            files.insert(format!("{base}/gpu_id"), format!("{gpu_id}\n"));
            files.insert(format!("{base}/name"), format!("{}\n", spec.name));
            files.insert(
                format!("{base}/properties"),
                node_properties(Some((&spec, minor)), node, 4, n),
            );
            files.insert(
                format!("{base}/mem_banks/0/properties"),
                format!(
                    "heap_type 1\nsize_in_bytes {}\nflags 0\nwidth {}\nmem_clk_max {}\n",
                    spec.vram, spec.local_mem_width, spec.mem_clk_max
                ),
            );
            let caches: &[(u32, u32, u32, u32)] = &[
                // (level, size KiB, line size, type: 9 = data+HSA CU, 10 = instruction+HSA CU)
                (1, 16, 64, 9),
                (1, 16, 64, 9),
                (1, 64, 64, 10),
                (2, spec.l2_kib, 128, 9),
                (3, spec.l3_kib, 64, 9),
            ];
            let caches = if spec.l3_kib == 0 {
                &caches[..4]
            } else {
                caches
            };
            for (i, (level, size, line, ty)) in caches.iter().enumerate() {
                files.insert(
                    format!("{base}/caches/{i}/properties"),
                    format!(
                        "processor_id_low {}\nlevel {level}\nsize {size}\ncache_line_size {line}\n\
                         cache_lines_per_tag 1\nassociation 0\nlatency 0\ntype {ty}\nsibling_map 1\n",
                        0x8000_1000u32 + g * 0x1000
                    ),
                );
            }
            let mut links = vec![io_link(2, node, 0, 20, 0, 32000)];
            for peer in 0..n {
                if peer != g {
                    links.push(io_link(11, node, peer + 1, 15, 50000, 50000));
                }
            }
            for (i, l) in links.iter().enumerate() {
                files.insert(format!("{base}/io_links/{i}/properties"), l.clone());
            }
            gpus.push(GpuNode {
                gpu_id,
                drm_render_minor: minor,
                spec: spec.clone(),
            });
        }
        Self {
            reader: files,
            gpus,
        }
    }

    /// The tree, for [`kfd::topology::Topology::read`].
    pub fn reader(&self) -> &MemReader {
        &self.reader
    }

    /// The DRM render minor of each GPU, in node order (the
    /// `drm_render_minor` of its properties: `/dev/dri/renderD<minor>`).
    pub fn render_minors(&self) -> Vec<u32> {
        self.gpus.iter().map(|g| g.drm_render_minor).collect()
    }

    /// Writes the tree under `dir` (created if needed), as sysfs lays it out.
    pub fn write_to(&self, dir: &Path) -> io::Result<()> {
        for path in self.reader.paths() {
            let file = dir.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let bytes = kfd::topology::SysfsReader::read(&self.reader, path)?;
            std::fs::write(file, bytes)?;
        }
        Ok(())
    }
}

fn io_link(ty: u32, from: u32, to: u32, weight: u32, min_bw: u32, max_bw: u32) -> String {
    format!(
        "type {ty}\nversion_major 0\nversion_minor 0\nnode_from {from}\nnode_to {to}\nweight {weight}\n\
         min_latency 0\nmax_latency 0\nmin_bandwidth {min_bw}\nmax_bandwidth {max_bw}\n\
         recommended_transfer_size 0\nflags 1\n"
    )
}

/// `node_show()`'s key order. `gpu` is `None` for the CPU node.
fn node_properties(gpu: Option<(&GpuSpec, u32)>, node: u32, caches: u32, gpus: u32) -> String {
    let mut s = String::new();
    let mut kv = |k: &str, v: u64| {
        let _ = writeln!(s, "{k} {v}");
    };
    match gpu {
        None => {
            kv("cpu_cores_count", 16);
            kv("simd_count", 0);
            kv("mem_banks_count", 1);
            kv("caches_count", 0);
            kv("io_links_count", u64::from(gpus));
            kv("p2p_links_count", 0);
            kv("cpu_core_id_base", 0);
            kv("simd_id_base", 0);
            kv("max_waves_per_simd", 0);
            kv("lds_size_in_kb", 0);
            kv("gds_size_in_kb", 0);
            kv("num_gws", 0);
            kv("wave_front_size", 0);
            kv("array_count", 0);
            kv("simd_arrays_per_engine", 0);
            kv("cu_per_simd_array", 0);
            kv("simd_per_cu", 0);
            kv("max_slots_scratch_cu", 0);
            kv("gfx_target_version", 0);
            kv("vendor_id", 0);
            kv("device_id", 0);
            kv("location_id", 0);
            kv("domain", 0);
            kv("drm_render_minor", 0);
            kv("hive_id", 0);
            kv("num_sdma_engines", 0);
            kv("num_sdma_xgmi_engines", 0);
            kv("num_sdma_queues_per_engine", 0);
            kv("num_cp_queues", 0);
            kv("max_engine_clk_ccompute", 3500);
        }
        Some((g, minor)) => {
            let l3 = u32::from(g.l3_kib != 0);
            kv("cpu_cores_count", 0);
            kv("simd_count", g.simd_count.into());
            kv("mem_banks_count", 1);
            kv("caches_count", (caches + l3).into());
            kv("io_links_count", gpus.into());
            kv("p2p_links_count", 0);
            kv("cpu_core_id_base", 0);
            kv(
                "simd_id_base",
                (0x8000_1000u32 + (node - 1) * 0x1000).into(),
            );
            kv("max_waves_per_simd", MAX_WAVES_PER_SIMD.into());
            kv("lds_size_in_kb", LDS_SIZE_KIB.into());
            kv("gds_size_in_kb", 0);
            kv("num_gws", 64);
            kv("wave_front_size", 64);
            kv("array_count", g.array_count.into());
            kv("simd_arrays_per_engine", 1);
            kv("cu_per_simd_array", g.cu_per_simd_array.into());
            kv("simd_per_cu", SIMD_PER_CU.into());
            kv("max_slots_scratch_cu", 32);
            kv("gfx_target_version", g.gfx_target_version.into());
            kv("vendor_id", 0x1002);
            kv("device_id", g.device_id.into());
            kv("location_id", (0x100 * node).into());
            kv("domain", 0);
            kv("drm_render_minor", minor.into());
            kv("hive_id", if gpus > 1 { 0x51_4d00 } else { 0 });
            kv("num_sdma_engines", g.num_sdma_engines.into());
            kv("num_sdma_xgmi_engines", g.num_sdma_xgmi_engines.into());
            kv("num_sdma_queues_per_engine", 8);
            kv("num_cp_queues", 24);
            kv("cwsr_size", g.cwsr_size().into());
            kv("ctl_stack_size", g.ctl_stack_size().into());
            kv("max_engine_clk_fcompute", g.max_engine_clk.into());
            kv("local_mem_size", 0);
            kv("fw_version", g.fw_version.into());
            kv("capability", g.capability.into());
            kv("debug_prop", 1494);
            kv("sdma_fw_version", 9);
            kv("unique_id", 0x5a5a_0000 + u64::from(node));
            kv("num_xcc", g.num_xcc.into());
            kv("max_engine_clk_ccompute", 3500);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use kfd::topology::{HeapType, Topology};

    #[test]
    fn the_default_tree_is_an_mi210_the_kfd_parser_reads() {
        let t = SimTopology::generate(&TopologyConfig {
            board: Board::Mi210,
            gpus: 1,
            vram: None,
        });
        let topo = Topology::read(t.reader()).expect("the kfd parser reads the sim's tree");
        assert_eq!(topo.nodes.len(), 2);
        let gpu = topo.gpus().next().unwrap();
        assert_eq!(gpu.properties.simd_count / gpu.properties.simd_per_cu, 104);
        assert_eq!(gpu.properties.gfx_target_version, Some(90010));
        assert_eq!(gpu.memory_of(HeapType::FrameBufferPublic), 64 << 30);
        assert_eq!(gpu.properties.lds_size_in_kb, 64);
        assert_eq!(gpu.caches_at(2).next().unwrap().size_kib, 8192);
        assert_eq!(topo.numa_node_of(gpu.id), Some(0));
        // kfd_queue_ctx_save_restore_size for 104 CUs in 8 arrays:
        // min(104 * 40, 8 * 512) = 4096 waves. libhsakmt 5.2.3 computes the
        // same figures itself and passes them to CREATE_QUEUE (seen under
        // scripts/rocr-on-sim): ctl_stack_size 0x9000, ctx_save_restore_size
        // 0x3c91000, a 0x3cb1000-byte CWSR BO.
        assert_eq!(t.gpus[0].spec.ctl_stack_size(), 0x9000);
        assert_eq!(t.gpus[0].spec.cwsr_size(), 0x3c9_1000);
        assert_eq!(t.gpus[0].spec.debug_memory_size(), 4096 * 32);
        assert_eq!(t.gpus[0].spec.cwsr_area_size(), Some(0x3cb_1000));
    }

    /// The MI300X figures a real board's sysfs reports
    /// (`kfd/fixtures/mi300x`: `ctl_stack_size 12288`, `cwsr_size
    /// 23203840`): 38 CUs per XCC, min(38 * 40, arrays * 512) waves.
    #[test]
    fn mi300x_save_area_is_the_real_boards() {
        let t = SimTopology::generate(&TopologyConfig {
            board: Board::Mi300x,
            gpus: 1,
            vram: None,
        });
        assert_eq!(t.gpus[0].spec.ctl_stack_size(), 12288);
        assert_eq!(t.gpus[0].spec.cwsr_size(), 23_203_840);
    }

    #[test]
    fn boards_and_counts() {
        for board in [Board::Mi210, Board::Mi250x, Board::Mi300x] {
            for gpus in [1, 2, 8] {
                let t = SimTopology::generate(&TopologyConfig {
                    board,
                    gpus,
                    vram: Some(1 << 30),
                });
                let topo = Topology::read(t.reader()).unwrap();
                assert_eq!(topo.gpus().count(), gpus as usize);
                for g in topo.gpus() {
                    assert_eq!(g.local_memory_bytes(), 1 << 30);
                    assert_eq!(
                        g.io_links_of(kfd::topology::IoLinkType::Xgmi).count(),
                        gpus as usize - 1
                    );
                }
                let ids: std::collections::BTreeSet<u32> = topo.gpus().map(|g| g.gpu_id).collect();
                assert_eq!(ids.len(), gpus as usize, "gpu_ids are distinct");
            }
        }
        let t = SimTopology::generate(&TopologyConfig {
            board: Board::Mi300x,
            gpus: 1,
            vram: None,
        });
        let topo = Topology::read(t.reader()).unwrap();
        let g = topo.gpus().next().unwrap();
        assert_eq!(g.properties.gfx_target_version, Some(90402));
        assert_eq!(g.properties.num_xcc, Some(8));
        assert_eq!(g.caches_at(3).count(), 1);
    }
}
