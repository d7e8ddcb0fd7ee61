//! Executables (`hsa_executable_*`) over `loader-core`: a code object is
//! picked for the agent's ISA out of whatever container holds it (a code
//! object, an offload bundle, compressed or not, or a HIP host binary's
//! `.hip_fatbin`), loaded into the agent's memory by `loader-core`
//! (allocate, copy, zero, relocate, check the kernel descriptors), and its
//! kernels and variables become the executable's symbols.

#![allow(unsafe_code)]

use std::sync::Arc;

use loader_core::bundle::{Container, FatbinBundles, OffloadBundle, hip_fatbin_section};
use loader_core::load::{AgentMemory, MemoryError, MemoryOp};
use loader_core::metadata::ValueKind;
use loader_core::target::TargetId;

use crate::agent::Agent;
use crate::memory::PoolKind;
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// Largest decompressed bundle accepted (1 GiB).
const MAX_DECOMPRESSED: usize = 1 << 30;

/// One kernel argument, as the code object's metadata describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgInfo {
    /// `.name`.
    pub name: Option<String>,
    /// `.type_name`.
    pub type_name: Option<String>,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.size`.
    pub size: u32,
    /// `.value_kind`.
    pub kind: ValueKind,
    /// `.pointee_align` (dynamic shared pointers).
    pub pointee_align: Option<u32>,
}

/// A kernel symbol of an executable (`HSA_EXECUTABLE_SYMBOL_INFO_*`).
#[derive(Debug, Clone)]
pub struct KernelSymbol {
    /// The kernel's name.
    pub name: String,
    /// The agent it was loaded for.
    pub agent: Agent,
    /// `KERNEL_OBJECT`: the kernel descriptor's address.
    pub kernel_object: u64,
    /// `KERNEL_KERNARG_SEGMENT_SIZE`.
    pub kernarg_segment_size: u32,
    /// `KERNEL_KERNARG_SEGMENT_ALIGNMENT`.
    pub kernarg_segment_alignment: u32,
    /// `KERNEL_GROUP_SEGMENT_SIZE`.
    pub group_segment_size: u32,
    /// `KERNEL_PRIVATE_SEGMENT_SIZE`.
    pub private_segment_size: u32,
    /// `KERNEL_DYNAMIC_CALLSTACK`.
    pub dynamic_callstack: bool,
    /// Wavefront size.
    pub wavefront_size: u8,
    /// Every argument, explicit and hidden, in metadata order.
    pub args: Vec<ArgInfo>,
}

/// A variable symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableSymbol {
    /// Name.
    pub name: String,
    /// Address in agent memory.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
}

/// An executable with its loaded code objects; their memory is freed when
/// it is dropped.
pub struct Executable {
    core: Arc<Core>,
    memory: Vec<u64>,
    kernels: Vec<KernelSymbol>,
    variables: Vec<VariableSymbol>,
    frozen: bool,
}

impl core::fmt::Debug for Executable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Executable")
            .field("kernels", &self.kernels.len())
            .field("variables", &self.variables.len())
            .field("frozen", &self.frozen)
            .finish_non_exhaustive()
    }
}

/// Picks the code object for `target` out of `bytes` (see the module
/// documentation); the result owns its bytes.
pub fn code_object_for(bytes: &[u8], target: &TargetId) -> Result<Vec<u8>> {
    let bad = |m: String| Error::new(Status::InvalidCodeObject, m);
    match Container::parse(bytes).map_err(|e| bad(e.to_string()))? {
        Container::Elf(data) => {
            let machine = data.get(18..20).map(|m| u16::from_le_bytes([m[0], m[1]]));
            if machine == Some(224) {
                return Ok(data.to_vec());
            }
            let section = hip_fatbin_section(data)
                .map_err(|e| bad(format!("host ELF: {e}")))?
                .ok_or_else(|| bad("an ELF file that is neither an AMDGPU code object nor a host binary with .hip_fatbin".into()))?;
            let mut seen = Vec::new();
            for item in FatbinBundles::new(section) {
                let (_, container) = item.map_err(|e| bad(format!(".hip_fatbin: {e}")))?;
                match from_container(container, target, &mut seen)? {
                    Some(co) => return Ok(co),
                    None => continue,
                }
            }
            Err(no_match(target, &seen))
        }
        c => {
            let mut seen = Vec::new();
            from_container(c, target, &mut seen)?.ok_or_else(|| no_match(target, &seen))
        }
    }
}

fn no_match(target: &TargetId, seen: &[String]) -> Error {
    Error::new(
        Status::InvalidIsa,
        format!(
            "no code object for {target} (the file has: {})",
            if seen.is_empty() {
                "none".to_string()
            } else {
                seen.join(", ")
            }
        ),
    )
}

fn from_container(
    c: Container<'_>,
    target: &TargetId,
    seen: &mut Vec<String>,
) -> Result<Option<Vec<u8>>> {
    let bad = |m: String| Error::new(Status::InvalidCodeObject, m);
    match c {
        Container::Bundle(b) => from_bundle(&b, target, seen),
        Container::Compressed(cb) => {
            let data = cb
                .decompress(MAX_DECOMPRESSED)
                .map_err(|e| bad(format!("compressed bundle: {e}")))?;
            let b = OffloadBundle::parse(&data)
                .map_err(|e| bad(format!("decompressed bundle: {e}")))?;
            from_bundle(&b, target, seen)
        }
        Container::Elf(_) => Err(bad("an ELF file where a bundle was expected".into())),
    }
}

fn from_bundle(
    b: &OffloadBundle<'_>,
    target: &TargetId,
    seen: &mut Vec<String>,
) -> Result<Option<Vec<u8>>> {
    for entry in b.entries() {
        let Ok(entry) = entry else { continue };
        if !entry.parsed_id().is_amdhsa() || entry.data.is_empty() {
            continue;
        }
        seen.push(entry.id.to_string());
        let Ok(elf) = loader_core::elf::ElfFile::parse(entry.data) else {
            continue;
        };
        let Ok(flags) = elf.flags() else { continue };
        let Ok(tid) = TargetId::from_flags(&flags) else {
            continue;
        };
        if tid.is_compatible(flags.generic_version, target) {
            return Ok(Some(entry.data.to_vec()));
        }
    }
    Ok(None)
}

/// Agent memory for the loader: allocations in the agent's VRAM, written
/// through their CPU mapping.
struct LoaderMemory<'c> {
    core: &'c Core,
    gpu_id: u32,
    blocks: Vec<(u64, u64)>,
}

impl LoaderMemory<'_> {
    fn find(&self, address: u64, len: u64, op: MemoryOp) -> Result<(), MemoryError> {
        let ok = self.blocks.iter().any(|&(va, size)| {
            address >= va && address.checked_add(len).is_some_and(|e| e <= va + size)
        });
        if ok {
            Ok(())
        } else {
            Err(MemoryError { op, address, len })
        }
    }
}

impl AgentMemory for LoaderMemory<'_> {
    fn allocate(&mut self, size: u64, align: u64) -> Result<u64, MemoryError> {
        let err = MemoryError {
            op: MemoryOp::Allocate,
            address: 0,
            len: size,
        };
        let va = self
            .core
            .allocations
            .allocate(
                &*self.core.driver,
                None,
                PoolKind::Vram,
                Some(self.gpu_id),
                &[],
                size.max(1),
                align,
            )
            .map_err(|_| err)?;
        if self
            .core
            .allocations
            .find(va)
            .is_none_or(|b| !b.host_accessible)
        {
            let _ = self.core.free(va);
            return Err(err);
        }
        self.blocks.push((va, size.max(1).next_multiple_of(4096)));
        Ok(va)
    }

    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), MemoryError> {
        self.find(address, bytes.len() as u64, MemoryOp::Write)?;
        // SAFETY: inside one of our CPU-mapped allocations (checked); no
        // kernel runs from it before the load returns.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), address as *mut u8, bytes.len()) };
        Ok(())
    }

    fn zero(&mut self, address: u64, len: u64) -> Result<(), MemoryError> {
        self.find(address, len, MemoryOp::Zero)?;
        // SAFETY: as for `write`.
        unsafe { core::ptr::write_bytes(address as *mut u8, 0, len as usize) };
        Ok(())
    }

    fn read(&mut self, address: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        self.find(address, out.len() as u64, MemoryOp::Read)?;
        // SAFETY: as for `write`.
        unsafe {
            core::ptr::copy_nonoverlapping(address as *const u8, out.as_mut_ptr(), out.len())
        };
        Ok(())
    }
}

impl Executable {
    /// Loads the code object in `bytes` (any container) for `agent`.
    pub(crate) fn load(core: &Arc<Core>, agent: Agent, bytes: &[u8]) -> Result<Self> {
        let rec = core.agent(agent)?;
        let target = rec.isa.ok_or_else(|| {
            Error::new(
                Status::InvalidAgent,
                format!("agent {} has no ISA (a CPU agent)", agent.index()),
            )
        })?;
        let co = code_object_for(bytes, &target)?;
        let mut mem = LoaderMemory {
            core,
            gpu_id: rec.gpu_id,
            blocks: Vec::new(),
        };
        let result = Self::load_into(&co, &target, agent, &mut mem);
        let blocks: Vec<u64> = mem.blocks.iter().map(|b| b.0).collect();
        match result {
            Ok((kernels, variables)) => Ok(Executable {
                core: Arc::clone(core),
                memory: blocks,
                kernels,
                variables,
                frozen: true,
            }),
            Err(e) => {
                for va in blocks {
                    let _ = core.free(va);
                }
                Err(e)
            }
        }
    }

    fn load_into(
        co: &[u8],
        target: &TargetId,
        agent: Agent,
        mem: &mut LoaderMemory<'_>,
    ) -> Result<(Vec<KernelSymbol>, Vec<VariableSymbol>)> {
        let loaded = loader_core::load::load_for_agent(co, target, mem, |_| None).map_err(|e| {
            let status = if matches!(e, loader_core::load::LoadError::Memory(_)) {
                Status::OutOfResources
            } else {
                Status::InvalidCodeObject
            };
            Error::new(status, format!("loading the code object: {e}"))
        })?;
        let md = loaded.metadata();
        let mut kernels = Vec::new();
        for k in loaded.kernels() {
            let k = k.map_err(|e| {
                Error::new(Status::InvalidCodeObject, format!("kernel symbol: {e}"))
            })?;
            let mut args = Vec::new();
            if let Some(md) = md {
                if let Some(mk) = md.kernel(k.name).map_err(|e| {
                    Error::new(
                        Status::InvalidCodeObject,
                        format!("metadata of {}: {e}", k.name),
                    )
                })? {
                    for a in mk.args() {
                        let a = a.map_err(|e| {
                            Error::new(
                                Status::InvalidCodeObject,
                                format!("metadata of {}: {e}", k.name),
                            )
                        })?;
                        args.push(ArgInfo {
                            name: a.name.map(str::to_string),
                            type_name: a.type_name.map(str::to_string),
                            offset: a.offset,
                            size: a.size,
                            kind: a.value_kind,
                            pointee_align: a.pointee_align,
                        });
                    }
                }
            }
            kernels.push(KernelSymbol {
                name: k.name.to_string(),
                agent,
                kernel_object: k.kernel_object,
                kernarg_segment_size: k.kernarg_segment_size,
                kernarg_segment_alignment: k.kernarg_segment_align,
                group_segment_size: k.group_segment_size,
                private_segment_size: k.private_segment_size,
                dynamic_callstack: k.uses_dynamic_stack,
                wavefront_size: k.wavefront_size,
                args,
            });
        }
        let mut variables = Vec::new();
        for v in loaded.variables() {
            variables.push(VariableSymbol {
                name: v.name.to_string(),
                address: v.address,
                size: v.size,
            });
        }
        Ok((kernels, variables))
    }

    /// The kernel named `name` (with or without the `.kd` suffix).
    pub fn kernel(&self, name: &str) -> Result<&KernelSymbol> {
        let name = name.strip_suffix(".kd").unwrap_or(name);
        self.kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            Error::new(
                Status::InvalidSymbolName,
                format!(
                    "no kernel {name:?} in the executable (it has: {})",
                    self.kernels
                        .iter()
                        .map(|k| k.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
    }

    /// Every kernel.
    pub fn kernels(&self) -> &[KernelSymbol] {
        &self.kernels
    }

    /// Every variable.
    pub fn variables(&self) -> &[VariableSymbol] {
        &self.variables
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        for &va in &self.memory {
            let _ = self.core.free(va);
        }
    }
}

impl Runtime {
    /// Loads the code object in `bytes` (a code object, bundle, or HIP
    /// fat binary) for `agent`, frozen.
    pub fn load_executable(&self, agent: Agent, bytes: &[u8]) -> Result<Executable> {
        Executable::load(&self.core, agent, bytes)
    }
}
