//! System events (`hsa_amd_register_system_event_handler`,
//! `hsa_ext_amd.h`): a GPU memory fault the driver reports is handed to
//! every registered handler as `HSA_AMD_GPU_MEMORY_FAULT_EVENT` (the
//! faulting agent, the address, the reason flags).
//!
//! When no handler returns `HSA_STATUS_SUCCESS` (none registered, or all
//! failed), ROCr's `Runtime::VMFaultHandler` prints
//! `Memory access fault by GPU node-N (Agent handle: 0x...) on address
//! 0x...(may not be exact address). Reason: ....` on stderr (unless
//! `HSA_ENABLE_VM_FAULT_MESSAGE=0`) and aborts the process. This runtime
//! prints the same line; whether it then aborts is
//! [`Runtime::set_abort_on_unhandled_memory_fault`]: the C drop-in turns
//! it on (a C program sees what it sees on ROCr: `SIGABRT`), a Rust user
//! keeps the default off and gets the fault through the queues' error
//! callbacks and [`Runtime::dispatch`]'s error
//! ([`crate::events::FAULT_STATUS`]), as in both cases every queue of the
//! GPU stops.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::agent::Agent;
use crate::events::MemoryFault;
use crate::status::Status;
use crate::system::{Core, Runtime};

/// `HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT`: page not present or supervisor
/// privilege.
pub const MEMORY_FAULT_PAGE_NOT_PRESENT: u32 = 1 << 0;
/// `HSA_AMD_MEMORY_FAULT_READ_ONLY`: write to a read-only page.
pub const MEMORY_FAULT_READ_ONLY: u32 = 1 << 1;
/// `HSA_AMD_MEMORY_FAULT_NX`: execute of a page marked NX.
pub const MEMORY_FAULT_NX: u32 = 1 << 2;
/// `HSA_AMD_MEMORY_FAULT_HOST_ONLY`: a host-only page.
pub const MEMORY_FAULT_HOST_ONLY: u32 = 1 << 3;
/// `HSA_AMD_MEMORY_FAULT_DRAMECC`: DRAM ECC failure.
pub const MEMORY_FAULT_DRAMECC: u32 = 1 << 4;
/// `HSA_AMD_MEMORY_FAULT_IMPRECISE`: the address is not exact.
pub const MEMORY_FAULT_IMPRECISE: u32 = 1 << 5;
/// `HSA_AMD_MEMORY_FAULT_SRAMECC`: SRAM ECC failure.
pub const MEMORY_FAULT_SRAMECC: u32 = 1 << 6;
/// `HSA_AMD_MEMORY_FAULT_HANG`: GPU reset after a hang.
pub const MEMORY_FAULT_HANG: u32 = 1 << 31;

/// `KFD_MEM_ERR_SRAM_ECC` (`kfd_ioctl.h`, `ErrorType`).
const KFD_MEM_ERR_SRAM_ECC: u32 = 1;
/// `KFD_MEM_ERR_POISON_CONSUMED`.
const KFD_MEM_ERR_POISON_CONSUMED: u32 = 2;
/// `KFD_MEM_ERR_GPU_HANG`.
const KFD_MEM_ERR_GPU_HANG: u32 = 3;

/// `hsa_amd_gpu_memory_fault_info_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryFaultInfo {
    /// The GPU agent that faulted.
    pub agent: Agent,
    /// The faulting address (page granular, as the driver reports it).
    pub virtual_address: u64,
    /// `HSA_AMD_MEMORY_FAULT_*` bits.
    pub fault_reason_mask: u32,
}

/// `hsa_amd_event_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemEvent {
    /// `HSA_AMD_GPU_MEMORY_FAULT_EVENT`.
    GpuMemoryFault(MemoryFaultInfo),
}

/// A system event handler: `HSA_STATUS_SUCCESS` says it handled the event.
pub type SystemEventHandler = Box<dyn Fn(&SystemEvent) -> Status + Send + Sync>;

/// The handlers of a runtime and what happens when none handles a fault.
#[derive(Default)]
pub(crate) struct SystemEvents {
    handlers: Mutex<Vec<Arc<SystemEventHandler>>>,
    abort_unhandled: AtomicBool,
}

impl std::fmt::Debug for SystemEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemEvents")
            .field(
                "handlers",
                &self
                    .handlers
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .len(),
            )
            .finish_non_exhaustive()
    }
}

/// The reason bits of a driver-reported fault, as ROCr packs them.
pub fn fault_reason_mask(f: &MemoryFault) -> u32 {
    let mut m = 0;
    if f.not_present {
        m |= MEMORY_FAULT_PAGE_NOT_PRESENT;
    }
    if f.read_only {
        m |= MEMORY_FAULT_READ_ONLY;
    }
    if f.no_execute {
        m |= MEMORY_FAULT_NX;
    }
    if f.imprecise {
        m |= MEMORY_FAULT_IMPRECISE;
    }
    m |= match f.error_type {
        KFD_MEM_ERR_SRAM_ECC => MEMORY_FAULT_SRAMECC,
        KFD_MEM_ERR_POISON_CONSUMED => MEMORY_FAULT_DRAMECC,
        KFD_MEM_ERR_GPU_HANG => MEMORY_FAULT_HANG,
        _ => 0,
    };
    m
}

/// ROCr's reason text (the first that applies).
fn reason_text(f: &MemoryFault) -> &'static str {
    if f.not_present {
        "Page not present or supervisor privilege"
    } else if f.read_only {
        "Write access to a read-only page"
    } else if f.no_execute {
        "Execute access to a page marked NX"
    } else if f.error_type == KFD_MEM_ERR_POISON_CONSUMED {
        "DRAM ECC failure"
    } else if f.error_type == KFD_MEM_ERR_SRAM_ECC {
        "SRAM ECC failure"
    } else if f.error_type == KFD_MEM_ERR_GPU_HANG {
        "Generic hang recovery"
    } else {
        "Unknown"
    }
}

/// The line ROCr prints for an unhandled fault of GPU node `node`.
pub fn fault_message(node: u32, agent: Agent, f: &MemoryFault) -> String {
    format!(
        "Memory access fault by GPU node-{node} (Agent handle: {:#x}) on address {:#x}{}. Reason: {}.",
        agent.handle(),
        f.address,
        if f.imprecise {
            "(may not be exact address)"
        } else {
            ""
        },
        reason_text(f)
    )
}

/// A memory fault the event thread read: handlers first, then (unhandled)
/// ROCr's message and, if asked, abort. Runs with no runtime lock held.
pub(crate) fn memory_fault(core: &Core, f: &MemoryFault) {
    let Some((agent, node)) = core
        .agents
        .iter()
        .enumerate()
        .find(|(_, a)| a.is_gpu() && a.gpu_id == f.gpu_id)
        .map(|(i, a)| (Agent(i as u32), a.node.id))
    else {
        return;
    };
    let event = SystemEvent::GpuMemoryFault(MemoryFaultInfo {
        agent,
        virtual_address: f.address,
        fault_reason_mask: fault_reason_mask(f),
    });
    let sys = &core.events.system;
    let handlers: Vec<_> = sys
        .handlers
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let mut handled = false;
    for h in handlers {
        // A handler that panics has not handled the event.
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| h(&event)));
        handled |= matches!(r, Ok(Status::Success));
    }
    if handled {
        return;
    }
    if core.flags.enable_vm_fault_message {
        eprintln!("{}", fault_message(node, agent, f));
    }
    if sys.abort_unhandled.load(Ordering::Acquire) {
        std::process::abort();
    }
}

impl Runtime {
    /// `hsa_amd_register_system_event_handler`: `handler` is called, on the
    /// runtime's event thread, for every system event from now on (every
    /// handler registered, in order, as ROCr keeps a list).
    pub fn register_system_event_handler(&self, handler: SystemEventHandler) {
        self.core
            .events
            .system
            .handlers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Arc::new(handler));
    }

    /// Whether a memory fault no handler handled aborts the process after
    /// ROCr's message, as ROCr does (default: no; the C drop-in: yes).
    pub fn set_abort_on_unhandled_memory_fault(&self, abort: bool) {
        self.core
            .events
            .system
            .abort_unhandled
            .store(abort, Ordering::Release);
    }
}
