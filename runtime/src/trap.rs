//! The trap handler the runtime installs on every GFX9.0 GPU at init, as
//! ROCr's `GpuAgent::BindTrapHandler` does on a KFD without exception
//! debugging: its code (`runtime/trap/trap_handler.s`, assembled by
//! `runtime/trap/build.sh` with llvm-mc-19) and its trap memory, the
//! doorbell-to-queue map, both in system memory every GPU can read, bound
//! with `AMDKFD_IOC_SET_TRAP_HANDLER` before any queue exists. KFD's
//! first-level handler enters it on `s_trap` and on the wave exceptions
//! (illegal instruction, memory violation); it reports a queue error the
//! way the packet processor does, through the queue's inactive signal (see
//! the source for the ABI), so [`crate::queue`] needs nothing else.
//!
//! Each queue enters its `amd_queue_t` address in the map at its doorbell
//! id (the doorbell's 64-bit slot in the 8 KiB doorbell page, what
//! `s_sendmsg sendmsg(MSG_GET_DOORBELL)` returns; ROCr
//! `GpuAgent::QueueCreate`: `(doorbell_addr >> 3) & (MAX_NUM_DOORBELLS - 1)`)
//! and clears it when destroyed.

#![allow(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::status::{Error, Result, Status};
use crate::system::Core;

/// The handler's code bytes (`.text` of `trap_handler.s`, the same for
/// every GFX9 processor: `build.sh` checks it).
pub const TRAP_HANDLER_GFX9: &[u8] = include_bytes!("../trap/trap_handler_gfx9.bin");

/// The GFX9 processors `build.sh` assembles the handler for; the runtime
/// installs it on any GPU whose `gfx_target_version` is 9.0.x (9.4 and
/// 9.5 get none, as in ROCr).
pub const GFX9_TARGETS: &[&str] = &["gfx900", "gfx906", "gfx908", "gfx90a"];

/// Doorbell ids the map covers (ROCr's `MAX_NUM_DOORBELLS`; the handler
/// masks the id to 10 bits).
pub const MAX_NUM_DOORBELLS: u64 = 0x400;

/// A GPU's installed handler.
#[derive(Debug, Clone, Copy)]
struct Installed {
    gpu_id: u32,
    /// The handler's code (TBA).
    code: u64,
    /// The doorbell-to-queue map (TMA): `MAX_NUM_DOORBELLS` u64s.
    doorbell_queue_map: u64,
}

/// The handlers of the runtime's GPUs.
#[derive(Debug, Default)]
pub(crate) struct TrapHandlers {
    installed: Mutex<Vec<Installed>>,
}

/// The doorbell id of the queue whose `CREATE_QUEUE` returned
/// `doorbell_offset` (the mmap offset of its doorbell in an 8 KiB page).
pub(crate) fn doorbell_id(doorbell_offset: u64) -> u64 {
    ((doorbell_offset & 8191) >> 3) & (MAX_NUM_DOORBELLS - 1)
}

impl TrapHandlers {
    /// Installs the handler on every GFX9 GPU of `core` (GPUs of other
    /// generations run without one). Any failure is an init error.
    pub(crate) fn install(core: &Core) -> Result<()> {
        for a in core.agents.iter().filter(|a| a.is_gpu()) {
            let version = a.node.properties.gfx_target_version.unwrap_or(0);
            // ROCr: no handler without KFD exception debugging on GFX10+
            // or on GFX9.4/9.5 (gfx940..gfx950), whose first-level handler
            // reports exceptions only through that interface.
            let (major, minor) = (version / 10000, version / 100 % 100);
            if major != 9 || matches!(minor, 4 | 5) {
                continue;
            }
            let code = core.allocate_system(TRAP_HANDLER_GFX9.len() as u64, true)?;
            // SAFETY: a fresh CPU-mapped allocation of at least the
            // handler's length that no GPU runs yet.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    TRAP_HANDLER_GFX9.as_ptr(),
                    code as *mut u8,
                    TRAP_HANDLER_GFX9.len(),
                )
            };
            let map = match core.allocate_system(MAX_NUM_DOORBELLS * 8, true) {
                Ok(m) => m,
                Err(e) => {
                    let _ = core.free(code);
                    return Err(e);
                }
            };
            // SAFETY: a fresh CPU-mapped allocation of MAX_NUM_DOORBELLS u64s.
            unsafe { core::ptr::write_bytes(map as *mut u8, 0, (MAX_NUM_DOORBELLS * 8) as usize) };
            let installed = Installed {
                gpu_id: a.gpu_id,
                code,
                doorbell_queue_map: map,
            };
            core.trap
                .installed
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(installed);
            core.driver
                .set_trap_handler(a.gpu_id, code, map)
                .map_err(|e| {
                    Error::new(
                        Status::Error,
                        format!("SET_TRAP_HANDLER on GPU {:#x}: {e}", a.gpu_id),
                    )
                })?;
        }
        Ok(())
    }

    fn map_slot(&self, gpu_id: u32, doorbell_id: u64) -> Option<&AtomicU64> {
        let map = self
            .installed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|i| i.gpu_id == gpu_id)?
            .doorbell_queue_map;
        let id = doorbell_id & (MAX_NUM_DOORBELLS - 1);
        // SAFETY: the map is a live, CPU-mapped, 8-byte aligned allocation
        // of MAX_NUM_DOORBELLS u64s, freed only with the Core that owns
        // `self`; the trap handler reads it concurrently, hence the atomic.
        Some(unsafe { &*((map + id * 8) as *const AtomicU64) })
    }

    /// Enters the queue whose `amd_queue_t` is at `amd_queue` in the map of
    /// GPU `gpu_id` at `doorbell_id` (no-op on a GPU without a handler).
    pub(crate) fn register(&self, gpu_id: u32, doorbell_id: u64, amd_queue: u64) {
        if let Some(slot) = self.map_slot(gpu_id, doorbell_id) {
            slot.store(amd_queue, Ordering::Release);
        }
    }

    /// Clears the entry of the queue at `amd_queue`, if it is still there.
    pub(crate) fn unregister(&self, gpu_id: u32, doorbell_id: u64, amd_queue: u64) {
        if let Some(slot) = self.map_slot(gpu_id, doorbell_id) {
            let _ = slot.compare_exchange(amd_queue, 0, Ordering::AcqRel, Ordering::Relaxed);
        }
    }

    /// The handler's addresses on GPU `gpu_id`: (TBA, TMA).
    pub fn addresses(&self, gpu_id: u32) -> Option<(u64, u64)> {
        self.installed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|i| i.gpu_id == gpu_id)
            .map(|i| (i.code, i.doorbell_queue_map))
    }
}
