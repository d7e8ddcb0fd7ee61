//! Agents: one CPU agent per CPU (NUMA) node and one GPU agent per KFD GPU
//! node, as ROCr builds them from the topology (`amd_topology.cpp`), in
//! topology order (ROCr's iteration order: every node's agent as found).
//! `ROCR_VISIBLE_DEVICES` filters and orders the GPUs as in ROCr.

use kfd::topology::{Capability, HeapType, Node, Topology};
use loader_core::target::TargetId;

use crate::status::{Error, Result, Status};

/// `hsa_device_type_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceType {
    /// `HSA_DEVICE_TYPE_CPU`.
    Cpu = 0,
    /// `HSA_DEVICE_TYPE_GPU`.
    Gpu = 1,
    /// `HSA_DEVICE_TYPE_DSP`.
    Dsp = 2,
}

/// An agent handle (`hsa_agent_t`): valid for the runtime that gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Agent(pub(crate) u32);

/// The tag in the upper half of every agent handle.
pub(crate) const AGENT_TAG: u64 = 0x4147_4e54 << 32;

impl Agent {
    /// The `hsa_agent_t.handle` value.
    pub fn handle(self) -> u64 {
        AGENT_TAG | u64::from(self.0)
    }

    /// The agent of a handle value, if it has the agent tag (the runtime
    /// checks the index).
    pub fn from_handle(handle: u64) -> Option<Self> {
        (handle & !0xffff_ffff == AGENT_TAG).then_some(Agent(handle as u32))
    }

    /// Position in the runtime's agent list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the runtime knows of one agent.
#[derive(Debug, Clone)]
pub struct AgentRecord {
    /// CPU or GPU.
    pub device_type: DeviceType,
    /// The topology node (its id is the HSA node id).
    pub node: Node,
    /// KFD `gpu_id`; 0 for a CPU agent.
    pub gpu_id: u32,
    /// `HSA_AGENT_INFO_NAME`: `gfx90a` for a GPU, the CPU's model name.
    pub name: String,
    /// The ISA (GPU agents).
    pub isa: Option<TargetId>,
    /// The agent's memory pools (indices into the runtime's pool list).
    pub pools: Vec<usize>,
}

impl AgentRecord {
    /// Whether this is a GPU agent.
    pub fn is_gpu(&self) -> bool {
        self.device_type == DeviceType::Gpu
    }

    /// The ISA name, `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`.
    pub fn isa_name(&self) -> Option<String> {
        self.isa.map(|t| t.to_string())
    }

    /// Bytes of VRAM (public + private frame buffer heaps).
    pub fn local_memory_bytes(&self) -> u64 {
        self.node.memory_of(HeapType::FrameBufferPublic)
            + self.node.memory_of(HeapType::FrameBufferPrivate)
    }
}

/// The model name (`/proc/cpuinfo`) of the first processor whose `apicid`
/// is `apicid`, as libhsakmt names a CPU node (its `cpu_core_id_base`
/// against the processors' APIC ids; a processor without one has id 0);
/// empty when none matches, as there.
fn cpu_name(apicid: u32) -> String {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return String::new();
    };
    // (model name, apicid) per processor, in order.
    let mut procs: Vec<(String, u32)> = Vec::new();
    for line in info.lines() {
        let value = || {
            line.split_once(':')
                .map(|(_, v)| v.strip_prefix(' ').unwrap_or(v))
        };
        if line.starts_with("processor") {
            procs.push((String::new(), 0));
        } else if let Some(last) = procs.last_mut() {
            if line.starts_with("model name") {
                last.0 = value().unwrap_or("").chars().take(63).collect();
            } else if line.starts_with("apicid") {
                last.1 = value().and_then(|v| v.trim().parse().ok()).unwrap_or(0);
            }
        }
    }
    procs
        .into_iter()
        .find(|p| p.1 == apicid)
        .map(|p| p.0)
        .unwrap_or_default()
}

/// Builds the agent list from the topology; `visible` is
/// `ROCR_VISIBLE_DEVICES` (if set).
pub(crate) fn discover(
    topology: &Topology,
    flags: &crate::flags::Flags,
    xnack: bool,
) -> Result<Vec<AgentRecord>> {
    let visible = flags.visible_devices.as_deref();
    let mut out = Vec::new();
    for node in topology.nodes.iter().filter(|n| !n.is_gpu()) {
        out.push(AgentRecord {
            device_type: DeviceType::Cpu,
            node: node.clone(),
            gpu_id: 0,
            name: cpu_name(node.properties.cpu_core_id_base),
            isa: None,
            pools: Vec::new(),
        });
    }
    let gpus: Vec<&Node> = topology.gpus().collect();
    let chosen: Vec<&Node> = match visible {
        None => gpus,
        Some(list) => visible_gpus(&gpus, list),
    };
    for node in chosen {
        let version = node.properties.gfx_target_version.unwrap_or(0);
        // sramecc as ROCr reads it: the node's `HSA_CAP_SRAM_EDCSUPPORTED`;
        // xnack the process's mode (`Core::open`, ROCr's `BindXnackMode`).
        let sramecc = node
            .properties
            .capability
            .is_some_and(|c| c.contains(Capability::SRAM_EDCSUPPORTED));
        let isa = TargetId::for_agent(version, xnack, sramecc).ok_or_else(|| {
            Error::new(
                Status::Error,
                format!(
                    "GPU node {}: gfx_target_version {version} names no processor this runtime knows",
                    node.id
                ),
            )
        })?;
        out.push(AgentRecord {
            device_type: DeviceType::Gpu,
            node: node.clone(),
            gpu_id: node.gpu_id,
            name: isa.processor.name.to_string(),
            isa: Some(isa),
            pools: Vec::new(),
        });
    }
    Ok(out)
}

/// ROCr's `ROCR_VISIBLE_DEVICES`: a comma-separated list of GPU indices
/// (in topology order) or UUIDs (`GPU-<hex>`); the list stops at the first
/// invalid entry, and the GPUs come in the list's order, each once.
fn visible_gpus<'t>(gpus: &[&'t Node], list: &str) -> Vec<&'t Node> {
    let mut out: Vec<&Node> = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        let found = if let Some(uuid) = item.strip_prefix("GPU-") {
            u64::from_str_radix(uuid, 16)
                .ok()
                .and_then(|u| gpus.iter().find(|n| n.properties.unique_id == Some(u)))
        } else {
            item.parse::<usize>().ok().and_then(|i| gpus.get(i))
        };
        match found {
            Some(n) if !out.iter().any(|o| o.id == n.id) => out.push(n),
            Some(_) => {}
            None => break,
        }
    }
    out
}
