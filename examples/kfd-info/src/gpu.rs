//! What `kfd-info` does on a real GPU: a buffer and a queue, created and
//! destroyed through the `kfd` bindings alone, in the order `libhsakmt`
//! uses (`hsaKmtAcquireSystemProperties`, `hsaKmtAllocMemory`,
//! `hsaKmtMapMemoryToGPU`, `hsaKmtCreateQueue`). Every resource is
//! released on the way out, also after an error.
//!
//! Not run by the tests (there is no GPU here); `main` stops before this
//! when `/dev/kfd` cannot be opened.
#![allow(unsafe_code)]

use kfd::ioctl::{AllocMemFlags, QueuePercentage, QueuePriority, QueueType};
use kfd::topology::Node;
use kfd::{Kfd, QueueDesc};
use std::fmt;
use std::fs::OpenOptions;
use std::os::fd::AsFd;

/// Why the GPU round trip stopped.
#[derive(Debug)]
pub enum GpuError {
    /// The DRM render node could not be opened.
    RenderNode {
        /// Its path.
        path: String,
        /// What `open(2)` said.
        error: std::io::Error,
    },
    /// A KFD call failed.
    Kfd {
        /// What was being done.
        step: &'static str,
        /// The typed error.
        error: kfd::Error,
    },
    /// The driver reported no GPU VM aperture for this GPU.
    NoAperture,
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RenderNode { path, error } => write!(f, "opening {path}: {error}"),
            Self::Kfd { step, error } => write!(f, "{step}: {error} (kfd::Error::{error:?})"),
            Self::NoAperture => write!(
                f,
                "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW lists no aperture for it"
            ),
        }
    }
}

fn step<T>(step: &'static str, r: kfd::Result<T>) -> Result<T, GpuError> {
    r.map_err(|error| GpuError::Kfd { step, error })
}

const PAGE: u64 = 4096;

/// A GPU buffer that is freed (and unmapped, if mapped) when dropped.
struct Buffer<'k> {
    kfd: &'k Kfd,
    gpu_id: u32,
    handle: u64,
    va: u64,
    mapped: bool,
}

impl<'k> Buffer<'k> {
    fn new(
        kfd: &'k Kfd,
        gpu_id: u32,
        va: u64,
        size: u64,
        flags: AllocMemFlags,
    ) -> Result<Self, GpuError> {
        let a = step(
            "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU",
            kfd.alloc_memory_of_gpu(gpu_id, va, size, flags),
        )?;
        let mut b = Self {
            kfd,
            gpu_id,
            handle: a.handle,
            va,
            mapped: false,
        };
        step(
            "AMDKFD_IOC_MAP_MEMORY_TO_GPU",
            kfd.map_memory_to_gpu(b.handle, &[gpu_id]),
        )?;
        b.mapped = true;
        Ok(b)
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        if self.mapped {
            if let Err(e) = self.kfd.unmap_memory_from_gpu(self.handle, &[self.gpu_id]) {
                println!("  buffer {:#x}: unmap failed: {e}", self.va);
            }
        }
        if let Err(e) = self.kfd.free_memory_of_gpu(self.handle) {
            println!("  buffer {:#x}: free failed: {e}", self.va);
        }
    }
}

/// A `u64` value of a key the `kfd` crate keeps in `extra` (newer kernels'
/// `cwsr_size`, `ctl_stack_size`, `debug_memory_size`).
fn extra(gpu: &Node, key: &str) -> Option<u64> {
    gpu.properties
        .extra
        .iter()
        .find(|p| p.key == key)
        .and_then(|p| p.value.parse().ok())
}

/// Allocates, maps and frees a buffer, then creates and destroys a queue.
pub fn exercise(kfd: &Kfd, gpu: &Node) -> Result<(), GpuError> {
    let gpu_id = gpu.gpu_id;
    let path = format!("/dev/dri/renderD{}", gpu.properties.drm_render_minor);
    let drm = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|error| GpuError::RenderNode {
            path: path.clone(),
            error,
        })?;
    step("AMDKFD_IOC_ACQUIRE_VM", kfd.acquire_vm(drm.as_fd(), gpu_id))?;
    let apertures = step(
        "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW",
        kfd.process_apertures(),
    )?;
    let aperture = apertures
        .iter()
        .find(|a| a.gpu_id == gpu_id)
        .ok_or(GpuError::NoAperture)?;
    println!(
        "gpu {gpu_id:#x}: VM acquired through {path}; GPUVM aperture {:#x}..{:#x}",
        aperture.gpuvm_base, aperture.gpuvm_limit
    );
    // Addresses for our buffers: 1 GiB into the aperture, one after another.
    let mut next_va = aperture.gpuvm_base.next_multiple_of(1 << 30) + (1 << 30);
    let mut va = |size: u64| {
        let v = next_va;
        next_va += size.next_multiple_of(1 << 21);
        v
    };
    let gtt = AllocMemFlags::GTT | AllocMemFlags::WRITABLE | AllocMemFlags::NO_SUBSTITUTE;

    {
        let size = 16 * PAGE;
        let b = Buffer::new(kfd, gpu_id, va(size), size, gtt)?;
        println!(
            "gpu {gpu_id:#x}: allocated and mapped a {} KiB GTT buffer at {:#x} (handle {:#x})",
            size >> 10,
            b.va,
            b.handle
        );
    }
    println!("gpu {gpu_id:#x}: unmapped and freed it");

    // A queue: ring, pointers, end-of-pipe buffer, context save area.
    let ring_size: u32 = 64 * 1024;
    let ring = Buffer::new(
        kfd,
        gpu_id,
        va(ring_size.into()),
        ring_size.into(),
        gtt | AllocMemFlags::AQL_QUEUE_MEM,
    )?;
    let pointers = Buffer::new(kfd, gpu_id, va(PAGE), PAGE, gtt)?;
    let eop = Buffer::new(kfd, gpu_id, va(PAGE), PAGE, gtt)?;
    let cwsr_size = extra(gpu, "cwsr_size").unwrap_or(0);
    let ctl_stack_size = extra(gpu, "ctl_stack_size").unwrap_or(0);
    let xcc = u64::from(gpu.properties.num_xcc.unwrap_or(1).max(1));
    let save_bytes =
        ((cwsr_size + extra(gpu, "debug_memory_size").unwrap_or(0)) * xcc).next_multiple_of(PAGE);
    let save = if save_bytes > 0 {
        Some(Buffer::new(kfd, gpu_id, va(save_bytes), save_bytes, gtt)?)
    } else {
        None
    };
    let desc = QueueDesc {
        gpu_id,
        queue_type: QueueType::ComputeAql,
        percentage: QueuePercentage::FULL,
        priority: QueuePriority::NORMAL,
        ring_base_address: ring.va,
        ring_size,
        write_pointer_address: pointers.va,
        read_pointer_address: pointers.va + 8,
        eop_buffer_address: eop.va,
        eop_buffer_size: PAGE,
        ctx_save_restore_address: save.as_ref().map_or(0, |s| s.va),
        ctx_save_restore_size: u32::try_from(cwsr_size).unwrap_or(u32::MAX),
        ctl_stack_size: u32::try_from(ctl_stack_size).unwrap_or(u32::MAX),
        sdma_engine_id: 0,
    };
    // SAFETY: every address in `desc` is a GPU-mapped buffer of the size
    // given, owned here and alive until after `destroy_queue` below (the
    // buffers drop at the end of this function, after it); nothing else
    // uses them.
    let queue = step("AMDKFD_IOC_CREATE_QUEUE", unsafe {
        kfd.create_queue(&desc)
    })?;
    println!(
        "gpu {gpu_id:#x}: created AQL compute queue {} (doorbell offset {:#x})",
        queue.queue_id, queue.doorbell_offset
    );
    step(
        "AMDKFD_IOC_DESTROY_QUEUE",
        kfd.destroy_queue(queue.queue_id),
    )?;
    println!("gpu {gpu_id:#x}: destroyed queue {}", queue.queue_id);
    drop((save, eop, pointers, ring));
    Ok(())
}
