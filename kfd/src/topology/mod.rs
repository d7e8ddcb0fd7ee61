//! The KFD sysfs topology: the nodes (CPU NUMA nodes and GPUs) the driver
//! exports under [`SYSFS_TOPOLOGY`], with their memory banks, caches and IO
//! links.
//!
//! The tree, as `drivers/gpu/drm/amd/amdkfd/kfd_topology.c` builds it:
//!
//! ```text
//! generation_id                       bumped on every change of the tree
//! system_properties                   platform_oem / platform_id / platform_rev
//! nodes/N/gpu_id                      0 on CPU nodes
//! nodes/N/name                        lower-case ASIC name, empty on CPU nodes
//! nodes/N/properties                  node_show(): counts, CUs, waves, LDS, ...
//! nodes/N/mem_banks/I/properties      heap_type, size_in_bytes, width, ...
//! nodes/N/caches/I/properties         level, size, type, sibling_map, ...
//! nodes/N/io_links/I/properties       type, node_from/to, weight, bandwidth
//! nodes/N/p2p_links/I/properties      the same, for peer links (newer kernels)
//! ```
//!
//! [`Topology::read`] reads it from any [`SysfsReader`] and follows the
//! driver's consistency protocol, the one `libhsakmt`'s
//! `topology_take_snapshot` uses: read `generation_id`, read the tree, read
//! `generation_id` again, and start over if it changed (a GPU was added or
//! removed meanwhile).
//!
//! Every file is parsed from bytes ([`Properties::parse`] and the `parse`
//! functions of the typed structs), so a fuzzer or a test can feed them
//! without a filesystem. Bad input gives a [`TopologyError`] that names the
//! file and, inside a properties file, the line.

mod error;
mod model;
mod properties;
mod reader;
mod types;

pub use error::{SysfsFile, TopologyError, TopologyErrorKind, ValueProblem};
pub use model::{Cache, IoLink, MemBank, NodeProperties, SiblingMap, SystemProperties};
pub use properties::{
    MAX_FILE_SIZE, Properties, Property, SyntaxError, SyntaxErrorKind, ValueFileError,
    parse_name_file, parse_u32_file,
};
pub use reader::{FsReader, MemReader, SysfsReader};
pub use types::{
    CAP_ASIC_REVISION_SHIFT, CAP_DOORBELL_TYPE_TOTALBITS_SHIFT, CAP_WATCH_POINTS_TOTALBITS_SHIFT,
    CacheType, Capability, GfxTargetVersion, HeapType, IoLinkFlags, IoLinkType, MemFlags,
};

/// Where the kernel publishes the topology
/// (`/sys/class/kfd/kfd/topology` is a symlink to the same directory).
pub const SYSFS_TOPOLOGY: &str = "/sys/devices/virtual/kfd/kfd/topology";

/// Most memory banks, caches or links one node may list. The largest real
/// nodes (MI300X: one L1 per CU, 304 CUs, plus L2 and MALL slices) stay well
/// below; a count above it is a corrupt file, not a machine.
pub const MAX_ITEMS_PER_NODE: u32 = 4096;

/// How many full reads [`Topology::read`] tries while `generation_id` keeps
/// changing before it gives up with [`TopologyErrorKind::GenerationUnstable`].
pub const MAX_READ_ATTEMPTS: u32 = 8;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A CPU (NUMA) node: `gpu_id` 0.
    Cpu,
    /// A GPU node (a discrete GPU, a GCD of a multi-die card, the GPU of
    /// an APU, or one partition of a partitioned GPU).
    Gpu,
    /// A combined CPU+GPU node, as first-generation APUs (Kaveri, Carrizo)
    /// reported: `gpu_id` set and CPU cores counted in the same node.
    CpuGpu,
}

impl NodeKind {
    /// `CPU`, `GPU` or `CPU+GPU`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Cpu => "CPU",
            Self::Gpu => "GPU",
            Self::CpuGpu => "CPU+GPU",
        }
    }
}

/// One node of the topology, `nodes/N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// N, the node's number (its HSA proximity domain).
    pub id: u32,
    /// `gpu_id`: the handle the ioctls take for this GPU; 0 on CPU nodes.
    pub gpu_id: u32,
    /// `name`: the lower-case ASIC name (`aldebaran`, `ip discovery`, ...);
    /// empty on CPU nodes.
    pub name: String,
    /// `properties`.
    pub properties: NodeProperties,
    /// `mem_banks/*`, in index order.
    pub mem_banks: Vec<MemBank>,
    /// `caches/*`, in index order.
    pub caches: Vec<Cache>,
    /// `io_links/*`, in index order.
    pub io_links: Vec<IoLink>,
    /// `p2p_links/*`, in index order (empty on kernels without them).
    pub p2p_links: Vec<IoLink>,
}

impl Node {
    /// CPU, GPU, or a combined node.
    pub fn kind(&self) -> NodeKind {
        match (self.gpu_id, self.properties.cpu_cores_count) {
            (0, _) => NodeKind::Cpu,
            (_, 0) => NodeKind::Gpu,
            _ => NodeKind::CpuGpu,
        }
    }

    /// Whether the node has a GPU.
    pub fn is_gpu(&self) -> bool {
        self.gpu_id != 0
    }

    /// Total bytes of the node's memory banks of `heap`.
    pub fn memory_of(&self, heap: HeapType) -> u64 {
        self.mem_banks
            .iter()
            .filter(|b| b.heap_type == heap)
            .fold(0u64, |acc, b| acc.saturating_add(b.size_in_bytes))
    }

    /// Bytes of device-local memory: the `FB_PUBLIC` and `FB_PRIVATE` banks
    /// (0 on CPU nodes, whose memory is `SYSTEM`).
    pub fn local_memory_bytes(&self) -> u64 {
        self.memory_of(HeapType::FrameBufferPublic)
            .saturating_add(self.memory_of(HeapType::FrameBufferPrivate))
    }

    /// Caches at `level`, in index order.
    pub fn caches_at(&self, level: u32) -> impl Iterator<Item = &Cache> {
        self.caches.iter().filter(move |c| c.level == level)
    }

    /// IO links of `link_type`, in index order.
    pub fn io_links_of(&self, link_type: IoLinkType) -> impl Iterator<Item = &IoLink> {
        self.io_links
            .iter()
            .filter(move |l| l.link_type == link_type)
    }
}

/// A consistent snapshot of the KFD topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// `generation_id` the snapshot was taken at (the same before and after).
    pub generation_id: u32,
    /// `system_properties`.
    pub system: SystemProperties,
    /// The nodes this process may read, `nodes/0` first. A node keeps its
    /// sysfs number in [`Node::id`] even when an earlier one is missing here.
    pub nodes: Vec<Node>,
    /// Nodes whose files the kernel refused to this process (`EPERM`): GPUs
    /// outside the device cgroup of a container, which
    /// `kfd_devcgroup_check_permission` hides. `libhsakmt` skips them too.
    pub inaccessible: Vec<u32>,
}

impl Topology {
    /// Reads the topology the running kernel publishes at [`SYSFS_TOPOLOGY`].
    /// Without the KFD driver, the error's [`TopologyError::is_absent`] is
    /// true.
    pub fn read_system() -> Result<Self, TopologyError> {
        Self::read(&FsReader::new(SYSFS_TOPOLOGY))
    }

    /// Reads a consistent snapshot from `reader`.
    ///
    /// Follows the driver's protocol: the snapshot is kept only if
    /// `generation_id` is the same before and after reading the tree; else
    /// the whole tree is read again, up to [`MAX_READ_ATTEMPTS`] times. A
    /// read that fails while the generation moved is retried too (a node
    /// that disappears mid-read is the usual case of hot-unplug).
    pub fn read<R: SysfsReader + ?Sized>(reader: &R) -> Result<Self, TopologyError> {
        if let Err(e) = reader.list("") {
            return Err(TopologyError::new(
                SysfsFile::Root,
                TopologyErrorKind::Io(e.kind()),
            ));
        }
        let mut attempts = 0;
        loop {
            attempts += 1;
            let before = read_generation(reader)?;
            let result = read_tree(reader, before);
            let after = read_generation(reader)?;
            if before == after {
                return result;
            }
            if attempts >= MAX_READ_ATTEMPTS {
                return Err(TopologyError::new(
                    SysfsFile::GenerationId,
                    TopologyErrorKind::GenerationUnstable { attempts },
                ));
            }
        }
    }

    /// The node numbered `id`.
    pub fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The GPU nodes, in node order.
    pub fn gpus(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.is_gpu())
    }

    /// The CPU nodes (NUMA nodes), in node order.
    pub fn cpus(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.kind() == NodeKind::Cpu)
    }

    /// The NUMA node a node belongs to: a CPU node is its own; a GPU node
    /// belongs to the CPU node its lightest direct IO link reaches (its PCIe
    /// root, or the socket an XGMI-to-CPU part hangs off). `None` for a GPU
    /// with no link to a CPU node.
    pub fn numa_node_of(&self, id: u32) -> Option<u32> {
        let node = self.node(id)?;
        if node.kind() != NodeKind::Gpu {
            return Some(node.id);
        }
        node.io_links
            .iter()
            .filter(|l| {
                self.node(l.node_to)
                    .is_some_and(|n| n.kind() != NodeKind::Gpu)
            })
            .min_by_key(|l| l.weight)
            .map(|l| l.node_to)
    }
}

fn read_generation<R: SysfsReader + ?Sized>(reader: &R) -> Result<u32, TopologyError> {
    let file = SysfsFile::GenerationId;
    let bytes = reader
        .read("generation_id")
        .map_err(|e| TopologyError::new(file, TopologyErrorKind::Io(e.kind())))?;
    parse_u32_file(&bytes).map_err(|e| TopologyError::new(file, TopologyErrorKind::ValueFile(e)))
}

fn read_file<R: SysfsReader + ?Sized>(
    reader: &R,
    file: SysfsFile,
) -> Result<Vec<u8>, TopologyError> {
    reader
        .read(&file.to_string())
        .map_err(|e| TopologyError::new(file, TopologyErrorKind::Io(e.kind())))
}

fn read_tree<R: SysfsReader + ?Sized>(
    reader: &R,
    generation_id: u32,
) -> Result<Topology, TopologyError> {
    let system = SystemProperties::parse(&read_file(reader, SysfsFile::SystemProperties)?)?;
    let count = node_count(reader)?;
    let mut nodes = Vec::new();
    let mut inaccessible = Vec::new();
    for id in 0..count {
        match read_node(reader, id)? {
            Some(node) => nodes.push(node),
            None => inaccessible.push(id),
        }
    }
    Ok(Topology {
        generation_id,
        system,
        nodes,
        inaccessible,
    })
}

/// The number of nodes: the entries of `nodes/`, which must be `0..n`.
fn node_count<R: SysfsReader + ?Sized>(reader: &R) -> Result<u32, TopologyError> {
    let dir = SysfsFile::NodesDir;
    let names = reader
        .list("nodes")
        .map_err(|e| TopologyError::new(dir, TopologyErrorKind::Io(e.kind())))?;
    let mut ids = Vec::new();
    for name in &names {
        // `%d` names: no sign, no leading zeros.
        let id = (!name.starts_with('0') || name == "0")
            .then(|| properties::parse_decimal(name))
            .flatten()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| TopologyError::new(dir, TopologyErrorKind::UnexpectedEntry))?;
        ids.push(id);
    }
    ids.sort_unstable();
    for (expected, id) in (0u32..).zip(&ids) {
        if *id != expected {
            return Err(TopologyError::new(
                dir,
                TopologyErrorKind::NodeNumbering { missing: expected },
            ));
        }
    }
    u32::try_from(ids.len())
        .map_err(|_| TopologyError::new(dir, TopologyErrorKind::UnexpectedEntry))
}

fn checked_count(n: u32, key: &'static str, node: u32) -> Result<u32, TopologyError> {
    if n > MAX_ITEMS_PER_NODE {
        return Err(TopologyError::new(
            SysfsFile::NodeProperties { node },
            TopologyErrorKind::TooMany { key },
        ));
    }
    Ok(n)
}

/// Reads node `id`; `None` when the kernel refuses its `gpu_id` to this
/// process (a GPU outside the caller's device cgroup).
fn read_node<R: SysfsReader + ?Sized>(reader: &R, id: u32) -> Result<Option<Node>, TopologyError> {
    let gpu_file = SysfsFile::GpuId { node: id };
    let gpu_bytes = match reader.read(&gpu_file.to_string()) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Ok(None),
        Err(e) => {
            return Err(TopologyError::new(
                gpu_file,
                TopologyErrorKind::Io(e.kind()),
            ));
        }
    };
    let gpu_id = parse_u32_file(&gpu_bytes)
        .map_err(|e| TopologyError::new(gpu_file, TopologyErrorKind::ValueFile(e)))?;
    let name_file = SysfsFile::Name { node: id };
    let name = parse_name_file(&read_file(reader, name_file)?)
        .map_err(|e| TopologyError::new(name_file, TopologyErrorKind::ValueFile(e)))?;
    let properties = NodeProperties::parse(
        &read_file(reader, SysfsFile::NodeProperties { node: id })?,
        id,
    )?;

    let banks = checked_count(properties.mem_banks_count, "mem_banks_count", id)?;
    let caches = checked_count(properties.caches_count, "caches_count", id)?;
    let links = checked_count(properties.io_links_count, "io_links_count", id)?;
    let p2p = checked_count(
        properties.p2p_links_count.unwrap_or(0),
        "p2p_links_count",
        id,
    )?;

    let mut node = Node {
        id,
        gpu_id,
        name,
        properties,
        mem_banks: Vec::new(),
        caches: Vec::new(),
        io_links: Vec::new(),
        p2p_links: Vec::new(),
    };
    for index in 0..banks {
        let file = SysfsFile::MemBank { node: id, index };
        node.mem_banks
            .push(MemBank::parse(&read_file(reader, file)?, file)?);
    }
    for index in 0..caches {
        let file = SysfsFile::Cache { node: id, index };
        node.caches
            .push(Cache::parse(&read_file(reader, file)?, file)?);
    }
    for index in 0..links {
        let file = SysfsFile::IoLink { node: id, index };
        node.io_links
            .push(IoLink::parse(&read_file(reader, file)?, file)?);
    }
    for index in 0..p2p {
        let file = SysfsFile::P2pLink { node: id, index };
        node.p2p_links
            .push(IoLink::parse(&read_file(reader, file)?, file)?);
    }
    Ok(Some(node))
}
