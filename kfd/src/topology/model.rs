//! Typed views of the topology files, decoded from [`Properties`].
//!
//! Keys and their widths follow the kernel's show functions in
//! `drivers/gpu/drm/amd/amdkfd/kfd_topology.c` (`sysprops_show`,
//! `node_show`, `mem_show`, `kfd_cache_show`, `iolink_show`). Keys every
//! kernel since KFD's first release prints are required; keys added later
//! (`gfx_target_version`, `num_xcc`, ...) are `Option`s; keys this crate
//! does not know are kept in each struct's `extra`, in file order.

use super::error::{SysfsFile, TopologyError, TopologyErrorKind, ValueProblem};
use super::properties::{Properties, Property, SyntaxError, parse_decimal};
use super::types::{
    CacheType, Capability, GfxTargetVersion, HeapType, IoLinkFlags, IoLinkType, MemFlags,
};

/// Decodes typed values out of one [`Properties`], remembering which keys
/// were used so the rest can be kept as `extra`.
struct Fields<'a> {
    props: &'a Properties,
    used: Vec<&'static str>,
    file: SysfsFile,
}

impl<'a> Fields<'a> {
    fn new(props: &'a Properties, file: SysfsFile) -> Self {
        Self {
            props,
            used: Vec::new(),
            file,
        }
    }

    fn err(&self, kind: TopologyErrorKind) -> TopologyError {
        TopologyError::new(self.file, kind)
    }

    fn bad(&self, p: &Property, key: &'static str, problem: ValueProblem) -> TopologyError {
        self.err(TopologyErrorKind::BadValue {
            line: p.line,
            key,
            problem,
        })
    }

    fn raw(&mut self, key: &'static str) -> Option<&'a Property> {
        self.used.push(key);
        self.props.get(key)
    }

    fn opt_u64(&mut self, key: &'static str) -> Result<Option<u64>, TopologyError> {
        match self.raw(key) {
            None => Ok(None),
            Some(p) => parse_decimal(&p.value).map(Some).ok_or_else(|| {
                let digits = !p.value.is_empty() && p.value.bytes().all(|b| b.is_ascii_digit());
                let problem = if digits {
                    ValueProblem::TooLarge
                } else {
                    ValueProblem::NotDecimal
                };
                self.bad(p, key, problem)
            }),
        }
    }

    fn opt_u32(&mut self, key: &'static str) -> Result<Option<u32>, TopologyError> {
        let Some(v) = self.opt_u64(key)? else {
            return Ok(None);
        };
        match u32::try_from(v) {
            Ok(v) => Ok(Some(v)),
            Err(_) => {
                let p = self.props.get(key);
                Err(match p {
                    Some(p) => self.bad(p, key, ValueProblem::OutOfRange),
                    None => self.err(TopologyErrorKind::MissingKey(key)),
                })
            }
        }
    }

    fn u64(&mut self, key: &'static str) -> Result<u64, TopologyError> {
        self.opt_u64(key)?
            .ok_or_else(|| self.err(TopologyErrorKind::MissingKey(key)))
    }

    fn u32(&mut self, key: &'static str) -> Result<u32, TopologyError> {
        self.opt_u32(key)?
            .ok_or_else(|| self.err(TopologyErrorKind::MissingKey(key)))
    }

    /// A required 32-bit number decoded into an enum with `TryFrom<u32>`.
    fn enumerated<T: TryFrom<u32>>(&mut self, key: &'static str) -> Result<T, TopologyError> {
        let v = self.u32(key)?;
        T::try_from(v).map_err(|_| match self.props.get(key) {
            Some(p) => self.bad(p, key, ValueProblem::Undefined),
            None => self.err(TopologyErrorKind::MissingKey(key)),
        })
    }

    /// The entries no typed field took, in file order.
    fn extra(self) -> Vec<Property> {
        self.props
            .iter()
            .filter(|p| !self.used.contains(&p.key.as_str()))
            .cloned()
            .collect()
    }
}

fn parse_props(bytes: &[u8], file: SysfsFile) -> Result<Properties, TopologyError> {
    Properties::parse(bytes)
        .map_err(|e: SyntaxError| TopologyError::new(file, TopologyErrorKind::Syntax(e)))
}

/// `system_properties`: the platform identification from the ACPI CRAT
/// table (all zero on machines without one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemProperties {
    /// `platform_oem`: the CRAT OEM ID bytes as a number.
    pub platform_oem: u64,
    /// `platform_id`: the CRAT OEM table ID bytes as a number.
    pub platform_id: u64,
    /// `platform_rev`: the CRAT OEM revision.
    pub platform_rev: u64,
    /// Keys this crate does not know, as read.
    pub extra: Vec<Property>,
}

impl SystemProperties {
    /// Decodes the bytes of a `system_properties` file.
    pub fn parse(bytes: &[u8]) -> Result<Self, TopologyError> {
        let file = SysfsFile::SystemProperties;
        let props = parse_props(bytes, file)?;
        let mut f = Fields::new(&props, file);
        Ok(Self {
            platform_oem: f.u64("platform_oem")?,
            platform_id: f.u64("platform_id")?,
            platform_rev: f.u64("platform_rev")?,
            extra: f.extra(),
        })
    }
}

/// A node's `properties` file (`node_show` in `kfd_topology.c`).
///
/// A CPU node has `cpu_cores_count` > 0 and `simd_count` 0; a GPU node the
/// reverse; the keys in the `if (dev->gpu)` block of `node_show` are only
/// printed for GPU nodes and are `None` on CPU nodes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeProperties {
    /// `cpu_cores_count`: CPU cores of a CPU (NUMA) node.
    pub cpu_cores_count: u32,
    /// `simd_count`: SIMDs of a GPU node (compute units * `simd_per_cu`).
    pub simd_count: u32,
    /// `mem_banks_count`.
    pub mem_banks_count: u32,
    /// `caches_count`.
    pub caches_count: u32,
    /// `io_links_count`.
    pub io_links_count: u32,
    /// `p2p_links_count` (newer kernels; absent on older ones).
    pub p2p_links_count: Option<u32>,
    /// `cpu_core_id_base`: first CPU core (APIC) ID of the node.
    pub cpu_core_id_base: u32,
    /// `simd_id_base`: first SIMD ID of a GPU node, unique system-wide.
    pub simd_id_base: u32,
    /// `max_waves_per_simd`.
    pub max_waves_per_simd: u32,
    /// `lds_size_in_kb`: LDS (group segment) per work-group, in KiB.
    pub lds_size_in_kb: u32,
    /// `gds_size_in_kb`.
    pub gds_size_in_kb: u32,
    /// `num_gws`: global wave sync resources.
    pub num_gws: Option<u32>,
    /// `wave_front_size`: 64, or 32 on RDNA.
    pub wave_front_size: u32,
    /// `array_count`: shader arrays (times the XCC count on multi-XCC parts).
    pub array_count: u32,
    /// `simd_arrays_per_engine`: shader arrays per shader engine.
    pub simd_arrays_per_engine: u32,
    /// `cu_per_simd_array`: compute units per shader array.
    pub cu_per_simd_array: u32,
    /// `simd_per_cu`.
    pub simd_per_cu: u32,
    /// `max_slots_scratch_cu`.
    pub max_slots_scratch_cu: u32,
    /// `gfx_target_version` (newer kernels; 0 on CPU nodes).
    pub gfx_target_version: Option<u32>,
    /// `vendor_id`: PCI vendor (0x1002 for AMD GPUs).
    pub vendor_id: u32,
    /// `device_id`: PCI device ID.
    pub device_id: u32,
    /// `location_id`: PCI bus/device/function as `bus << 8 | devfn`.
    pub location_id: u32,
    /// `domain`: PCI domain (segment).
    pub domain: Option<u32>,
    /// `drm_render_minor`: N of `/dev/dri/renderDN`.
    pub drm_render_minor: u32,
    /// `hive_id`: XGMI hive shared by GPUs of one fabric (0 when none).
    pub hive_id: Option<u64>,
    /// `num_sdma_engines`.
    pub num_sdma_engines: Option<u32>,
    /// `num_sdma_xgmi_engines`.
    pub num_sdma_xgmi_engines: Option<u32>,
    /// `num_sdma_queues_per_engine`.
    pub num_sdma_queues_per_engine: Option<u32>,
    /// `num_cp_queues`.
    pub num_cp_queues: Option<u32>,
    /// `max_engine_clk_fcompute`: GPU engine clock in MHz (GPU nodes).
    pub max_engine_clk_fcompute: Option<u32>,
    /// `local_mem_size` (the kernel prints 0; sizes are in the memory banks).
    pub local_mem_size: Option<u64>,
    /// `fw_version`: MEC firmware version (GPU nodes).
    pub fw_version: Option<u32>,
    /// `capability` (GPU nodes).
    pub capability: Option<Capability>,
    /// `debug_prop` (GPU nodes, kernels with the debugger API).
    pub debug_prop: Option<u64>,
    /// `sdma_fw_version` (GPU nodes).
    pub sdma_fw_version: Option<u32>,
    /// `unique_id` (GPU nodes): the ASIC serial the driver reads.
    pub unique_id: Option<u64>,
    /// `num_xcc`: accelerated compute dies in this node (GPU nodes).
    pub num_xcc: Option<u32>,
    /// `max_engine_clk_ccompute`: CPU clock in MHz (printed on every node).
    pub max_engine_clk_ccompute: u32,
    /// Keys this crate does not know, as read.
    pub extra: Vec<Property>,
}

impl NodeProperties {
    /// Decodes the bytes of `nodes/N/properties` (`node` names the file in
    /// errors).
    pub fn parse(bytes: &[u8], node: u32) -> Result<Self, TopologyError> {
        let file = SysfsFile::NodeProperties { node };
        let props = parse_props(bytes, file)?;
        let mut f = Fields::new(&props, file);
        Ok(Self {
            cpu_cores_count: f.u32("cpu_cores_count")?,
            simd_count: f.u32("simd_count")?,
            mem_banks_count: f.u32("mem_banks_count")?,
            caches_count: f.u32("caches_count")?,
            io_links_count: f.u32("io_links_count")?,
            p2p_links_count: f.opt_u32("p2p_links_count")?,
            cpu_core_id_base: f.u32("cpu_core_id_base")?,
            simd_id_base: f.u32("simd_id_base")?,
            max_waves_per_simd: f.u32("max_waves_per_simd")?,
            lds_size_in_kb: f.u32("lds_size_in_kb")?,
            gds_size_in_kb: f.u32("gds_size_in_kb")?,
            num_gws: f.opt_u32("num_gws")?,
            wave_front_size: f.u32("wave_front_size")?,
            array_count: f.u32("array_count")?,
            simd_arrays_per_engine: f.u32("simd_arrays_per_engine")?,
            cu_per_simd_array: f.u32("cu_per_simd_array")?,
            simd_per_cu: f.u32("simd_per_cu")?,
            max_slots_scratch_cu: f.u32("max_slots_scratch_cu")?,
            gfx_target_version: f.opt_u32("gfx_target_version")?,
            vendor_id: f.u32("vendor_id")?,
            device_id: f.u32("device_id")?,
            location_id: f.u32("location_id")?,
            domain: f.opt_u32("domain")?,
            drm_render_minor: f.u32("drm_render_minor")?,
            hive_id: f.opt_u64("hive_id")?,
            num_sdma_engines: f.opt_u32("num_sdma_engines")?,
            num_sdma_xgmi_engines: f.opt_u32("num_sdma_xgmi_engines")?,
            num_sdma_queues_per_engine: f.opt_u32("num_sdma_queues_per_engine")?,
            num_cp_queues: f.opt_u32("num_cp_queues")?,
            max_engine_clk_fcompute: f.opt_u32("max_engine_clk_fcompute")?,
            local_mem_size: f.opt_u64("local_mem_size")?,
            fw_version: f.opt_u32("fw_version")?,
            capability: f.opt_u32("capability")?.map(Capability),
            debug_prop: f.opt_u64("debug_prop")?,
            sdma_fw_version: f.opt_u32("sdma_fw_version")?,
            unique_id: f.opt_u64("unique_id")?,
            num_xcc: f.opt_u32("num_xcc")?,
            max_engine_clk_ccompute: f.u32("max_engine_clk_ccompute")?,
            extra: f.extra(),
        })
    }

    /// Compute units: `simd_count / simd_per_cu` (0 on CPU nodes).
    pub fn cu_count(&self) -> u32 {
        self.simd_count.checked_div(self.simd_per_cu).unwrap_or(0)
    }

    /// The GFX target, when the kernel reports a non-zero one.
    pub fn gfx_target(&self) -> Option<GfxTargetVersion> {
        self.gfx_target_version
            .filter(|&v| v != 0)
            .map(GfxTargetVersion)
    }

    /// Shader engines: `array_count / simd_arrays_per_engine`.
    pub fn shader_engines(&self) -> u32 {
        self.array_count
            .checked_div(self.simd_arrays_per_engine)
            .unwrap_or(0)
    }

    /// PCI bus number, from `location_id`.
    pub fn pci_bus(&self) -> u32 {
        (self.location_id >> 8) & 0xff
    }

    /// PCI device number, from `location_id`.
    pub fn pci_device(&self) -> u32 {
        (self.location_id >> 3) & 0x1f
    }

    /// PCI function number, from `location_id`.
    pub fn pci_function(&self) -> u32 {
        self.location_id & 0x7
    }
}

/// `nodes/N/mem_banks/I/properties` (`mem_show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemBank {
    /// `heap_type`.
    pub heap_type: HeapType,
    /// `size_in_bytes`.
    pub size_in_bytes: u64,
    /// `flags`.
    pub flags: MemFlags,
    /// `width`: memory bus width in bits.
    pub width: u32,
    /// `mem_clk_max`: memory clock in MHz.
    pub mem_clk_max: u32,
    /// Keys this crate does not know, as read.
    pub extra: Vec<Property>,
}

impl MemBank {
    /// Decodes the bytes of a memory bank's properties; `file` names it in
    /// errors.
    pub fn parse(bytes: &[u8], file: SysfsFile) -> Result<Self, TopologyError> {
        let props = parse_props(bytes, file)?;
        let mut f = Fields::new(&props, file);
        Ok(Self {
            heap_type: f.enumerated("heap_type")?,
            size_in_bytes: f.u64("size_in_bytes")?,
            flags: MemFlags(f.u32("flags")?),
            width: f.u32("width")?,
            mem_clk_max: f.u32("mem_clk_max")?,
            extra: f.extra(),
        })
    }
}

/// The `sibling_map` of a cache: which processors (CPU cores, or GPU CUs
/// counted from `processor_id_low`) share it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiblingMap {
    bits: Vec<bool>,
}

impl SiblingMap {
    fn parse(value: &str) -> Option<Self> {
        let mut bits = Vec::new();
        for item in value.split(',') {
            match item {
                "0" => bits.push(false),
                "1" => bits.push(true),
                _ => return None,
            }
        }
        Some(Self { bits })
    }

    /// Number of entries the kernel printed.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Whether entry `i` is set.
    pub fn get(&self, i: usize) -> bool {
        self.bits.get(i).copied().unwrap_or(false)
    }

    /// How many processors share the cache.
    pub fn count_ones(&self) -> usize {
        self.bits.iter().filter(|b| **b).count()
    }

    /// The entries as the kernel prints them (`1,0,0,...`).
    pub fn to_kernel_string(&self) -> String {
        let mut s = String::with_capacity(self.bits.len() * 2);
        for (i, b) in self.bits.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push(if *b { '1' } else { '0' });
        }
        s
    }
}

/// `nodes/N/caches/I/properties` (`kfd_cache_show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    /// `processor_id_low`: first CPU core / SIMD the cache serves.
    pub processor_id_low: u32,
    /// `level`: 1, 2, 3.
    pub level: u32,
    /// `size`: in KiB.
    pub size_kib: u32,
    /// `cache_line_size`: in bytes.
    pub cache_line_size: u32,
    /// `cache_lines_per_tag`.
    pub cache_lines_per_tag: u32,
    /// `association`: ways.
    pub association: u32,
    /// `latency`: in ns.
    pub latency: u32,
    /// `type`.
    pub cache_type: CacheType,
    /// `sibling_map`.
    pub sibling_map: SiblingMap,
    /// Keys this crate does not know, as read.
    pub extra: Vec<Property>,
}

impl Cache {
    /// Decodes the bytes of a cache's properties; `file` names it in errors.
    pub fn parse(bytes: &[u8], file: SysfsFile) -> Result<Self, TopologyError> {
        let props = parse_props(bytes, file)?;
        let mut f = Fields::new(&props, file);
        let processor_id_low = f.u32("processor_id_low")?;
        let level = f.u32("level")?;
        let size_kib = f.u32("size")?;
        let cache_line_size = f.u32("cache_line_size")?;
        let cache_lines_per_tag = f.u32("cache_lines_per_tag")?;
        let association = f.u32("association")?;
        let latency = f.u32("latency")?;
        let cache_type = CacheType(f.u32("type")?);
        let sibling_map = match f.raw("sibling_map") {
            None => return Err(f.err(TopologyErrorKind::MissingKey("sibling_map"))),
            Some(p) => SiblingMap::parse(&p.value)
                .ok_or_else(|| f.bad(p, "sibling_map", ValueProblem::BadSiblingMap))?,
        };
        Ok(Self {
            processor_id_low,
            level,
            size_kib,
            cache_line_size,
            cache_lines_per_tag,
            association,
            latency,
            cache_type,
            sibling_map,
            extra: f.extra(),
        })
    }
}

/// `nodes/N/io_links/I/properties` or `nodes/N/p2p_links/I/properties`
/// (`iolink_show`): a directed link from `node_from` to `node_to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoLink {
    /// `type`.
    pub link_type: IoLinkType,
    /// `version_major`.
    pub version_major: u32,
    /// `version_minor`.
    pub version_minor: u32,
    /// `node_from`.
    pub node_from: u32,
    /// `node_to`.
    pub node_to: u32,
    /// `weight`: relative cost, as NUMA distances (the kernel uses 20 for a
    /// PCIe hop and 15 per XGMI hop).
    pub weight: u32,
    /// `min_latency`.
    pub min_latency: u32,
    /// `max_latency`.
    pub max_latency: u32,
    /// `min_bandwidth`: MB/s.
    pub min_bandwidth: u32,
    /// `max_bandwidth`: MB/s.
    pub max_bandwidth: u32,
    /// `recommended_transfer_size`.
    pub recommended_transfer_size: u32,
    /// `recommended_sdma_engine_id_mask` (newer kernels): bit `e`
    /// recommends SDMA engine `e` for copies over this link.
    pub recommended_sdma_engine_id_mask: Option<u32>,
    /// `flags`.
    pub flags: IoLinkFlags,
    /// Keys this crate does not know, as read.
    pub extra: Vec<Property>,
}

impl IoLink {
    /// Decodes the bytes of a link's properties; `file` names it in errors.
    pub fn parse(bytes: &[u8], file: SysfsFile) -> Result<Self, TopologyError> {
        let props = parse_props(bytes, file)?;
        let mut f = Fields::new(&props, file);
        Ok(Self {
            link_type: f.enumerated("type")?,
            version_major: f.u32("version_major")?,
            version_minor: f.u32("version_minor")?,
            node_from: f.u32("node_from")?,
            node_to: f.u32("node_to")?,
            weight: f.u32("weight")?,
            min_latency: f.u32("min_latency")?,
            max_latency: f.u32("max_latency")?,
            min_bandwidth: f.u32("min_bandwidth")?,
            max_bandwidth: f.u32("max_bandwidth")?,
            recommended_transfer_size: f.u32("recommended_transfer_size")?,
            recommended_sdma_engine_id_mask: f.opt_u32("recommended_sdma_engine_id_mask")?,
            flags: IoLinkFlags(f.u32("flags")?),
            extra: f.extra(),
        })
    }
}
