//! A GPU agent's coherency type (`hsa_amd_coherency_get_type` /
//! `hsa_amd_coherency_set_type`, `hsa_ext_amd.h`).
//!
//! ROCr 5.2.3 keeps one `hsa_amd_coherency_type_t` per GPU agent, initially
//! `HSA_AMD_COHERENCY_TYPE_COHERENT` for a full-profile GPU (an APU) and
//! `HSA_AMD_COHERENCY_TYPE_NONCOHERENT` for a base-profile one (a discrete
//! GPU: what AMD's ROCr answers on the sim's gfx90a, checked by
//! tests/c/hsa_smoke.c in scripts/test-rocr-on-sim). Only on Kaveri APUs does setting it
//! change hardware state (the APE1 aperture's caching policy, through
//! `hsaKmtSetMemoryPolicy`); on every other GPU, gfx9 among them,
//! `GpuAgent::current_coherency_type` records the type and the call
//! succeeds, because coherency is chosen per allocation there (fine or
//! coarse grained pools, `hsa_amd_svm_attributes_set`'s global flag). This
//! runtime presents gfx9 GPUs only, so it does what ROCr does for them:
//! the type is recorded and reported back, and it changes no mapping.

use core::sync::atomic::{AtomicU8, Ordering};

use crate::agent::{Agent, AgentRecord};
use crate::status::{Error, Result, Status};
use crate::system::Runtime;

/// `hsa_amd_coherency_type_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum CoherencyType {
    /// `HSA_AMD_COHERENCY_TYPE_COHERENT`.
    Coherent = 0,
    /// `HSA_AMD_COHERENCY_TYPE_NONCOHERENT`.
    NonCoherent = 1,
}

impl CoherencyType {
    /// The enum value `raw` names, or `INVALID_ARGUMENT` naming it.
    pub fn from_raw(raw: u32) -> Result<Self> {
        match raw {
            0 => Ok(Self::Coherent),
            1 => Ok(Self::NonCoherent),
            _ => Err(Error::new(
                Status::InvalidArgument,
                format!("{raw} is no hsa_amd_coherency_type_t (COHERENT = 0, NONCOHERENT = 1)"),
            )),
        }
    }
}

/// Every agent's recorded type (indexed by agent; CPU slots unused).
#[derive(Debug)]
pub(crate) struct Coherency {
    types: Vec<AtomicU8>,
}

impl Coherency {
    /// ROCr's initial types: coherent for full-profile GPUs (the node has
    /// CPU cores: an APU, the profile `info` reports), else non-coherent.
    pub(crate) fn new(agents: &[AgentRecord]) -> Self {
        Self {
            types: agents
                .iter()
                .map(|a| {
                    let ty = if a.node.properties.cpu_cores_count > 0 {
                        CoherencyType::Coherent
                    } else {
                        CoherencyType::NonCoherent
                    };
                    AtomicU8::new(ty as u8)
                })
                .collect(),
        }
    }
}

impl Runtime {
    fn coherency_slot(&self, agent: Agent) -> Result<&AtomicU8> {
        if !self.agent(agent)?.is_gpu() {
            return Err(Error::new(
                Status::InvalidAgent,
                format!(
                    "agent {} is not a GPU: coherency types are GPU agents'",
                    agent.index()
                ),
            ));
        }
        self.core
            .coherency
            .types
            .get(agent.index())
            .ok_or_else(|| Error::new(Status::InvalidAgent, format!("no agent {}", agent.index())))
    }

    /// `hsa_amd_coherency_get_type`.
    pub fn coherency_type(&self, agent: Agent) -> Result<CoherencyType> {
        let raw = self.coherency_slot(agent)?.load(Ordering::Acquire);
        CoherencyType::from_raw(u32::from(raw))
    }

    /// `hsa_amd_coherency_set_type`: records `ty` for the GPU `agent`, as
    /// ROCr does for every GPU but Kaveri (see the module's documentation).
    pub fn set_coherency_type(&self, agent: Agent, ty: CoherencyType) -> Result<()> {
        self.coherency_slot(agent)?
            .store(ty as u8, Ordering::Release);
        Ok(())
    }
}
