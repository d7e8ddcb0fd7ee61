//! Kernel dispatch: fill a kernel's kernarg segment with [`kernarg::build`]
//! (explicit arguments in order, every hidden argument the metadata asks
//! for), write an AQL kernel dispatch packet with a completion signal, ring
//! the doorbell, and wait.
//!
//! [`Runtime::dispatch`] does all of it; [`Runtime::build_kernarg`] and
//! [`Runtime::submit_dispatch`] are its two halves, for callers that keep
//! a kernarg segment across dispatches or wait themselves.

#![allow(unsafe_code)]

use std::time::{Duration, Instant};

use aql::SignalHandle;
use aql::packet::KernelDispatchPacket;

use crate::executable::KernelSymbol;
use crate::kernarg::{self, Kernarg};
pub use crate::kernarg::{ArgValue, Geometry, HiddenValues};
use crate::queue::Queue;
use crate::signal::Signal;
use crate::status::{Error, Result, Status};
use crate::system::Runtime;

/// How a dispatch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Host time from the doorbell to the completion signal reaching 0.
    pub elapsed: Duration,
    /// The packet id in the queue.
    pub packet_id: u64,
}

/// `INCOMPATIBLE_ARGUMENTS` unless `k` was loaded for `queue`'s agent.
fn same_agent(queue: &Queue, k: &KernelSymbol) -> Result<()> {
    if k.agent == queue.agent() {
        return Ok(());
    }
    Err(Error::new(
        Status::IncompatibleArguments,
        format!(
            "kernel {} was loaded for agent {}, the queue belongs to agent {}",
            k.name,
            k.agent.index(),
            queue.agent().index()
        ),
    ))
}

impl Runtime {
    /// The hidden argument values of a dispatch on `queue`: its
    /// `amd_queue_t` and its GPU's private and shared aperture bases.
    pub fn hidden_values(&self, queue: &Queue) -> HiddenValues {
        let gpu_id = self
            .core
            .agents
            .get(queue.agent().index())
            .map(|r| r.gpu_id);
        let ap = self
            .core
            .driver
            .apertures()
            .iter()
            .find(|a| Some(a.gpu_id) == gpu_id)
            .copied()
            .unwrap_or_default();
        HiddenValues {
            queue_ptr: queue.address(),
            private_base: ap.scratch_base,
            shared_base: ap.lds_base,
            ..HiddenValues::default()
        }
    }

    /// Builds the kernarg segment of one dispatch of `k` on `queue`: the
    /// layout read at load time, `args`, the geometry's hidden values and
    /// [`hidden_values`](Self::hidden_values). Errors name the argument
    /// (`INVALID_ARGUMENT`), or the kernel whose metadata could not be read
    /// (`INVALID_CODE_OBJECT`); a kernel loaded for another agent than the
    /// queue's is `INCOMPATIBLE_ARGUMENTS`.
    pub fn build_kernarg(
        &self,
        queue: &Queue,
        k: &KernelSymbol,
        args: &[ArgValue],
        g: &Geometry,
    ) -> Result<Kernarg> {
        same_agent(queue, k)?;
        let layout = k.layout.as_ref().map_err(|e| {
            Error::new(
                Status::InvalidCodeObject,
                format!("kernel {}: kernarg layout: {e}", k.name),
            )
        })?;
        kernarg::build(
            layout,
            args,
            g,
            &self.hidden_values(queue),
            k.group_segment_size,
        )
        .map_err(|e| Error::invalid_argument(format!("kernel {}: {e}", k.name)))
    }

    /// Writes a kernel dispatch packet of `k` on `queue` with the kernarg
    /// segment at `kernarg_address` (built by
    /// [`build_kernarg`](Self::build_kernarg), in kernarg memory),
    /// `group_segment_size` bytes of LDS and `completion` as its completion
    /// signal, and rings the doorbell. Returns the packet id; does not wait.
    /// A kernel loaded for another agent than the queue's is
    /// `INCOMPATIBLE_ARGUMENTS`.
    pub fn submit_dispatch(
        &self,
        queue: &Queue,
        k: &KernelSymbol,
        kernarg_address: u64,
        g: &Geometry,
        group_segment_size: u32,
        completion: &Signal,
    ) -> Result<u64> {
        crate::trace::api_call!("submit_dispatch", queue = queue.address(), {
            same_agent(queue, k)?;
            let mut p =
                KernelDispatchPacket::new(k.kernel_object, kernarg_address, g.grid, g.workgroup);
            p.setup = aql::KernelDispatchSetup::with_dimensions(g.dims);
            p.completion_signal = SignalHandle {
                handle: completion.handle(),
            };
            p.private_segment_size = g.private_segment_for(k.private_segment_size);
            p.group_segment_size = group_segment_size;
            queue.submit(&zerocopy::transmute!(p))
        })
    }

    /// Dispatches `k` on `queue` with `args` and waits for it, at most
    /// `timeout`. A queue error ends the wait with that error.
    pub fn dispatch(
        &self,
        queue: &Queue,
        k: &KernelSymbol,
        args: &[ArgValue],
        g: &Geometry,
        timeout: Duration,
    ) -> Result<Completion> {
        crate::trace::api_call!("dispatch", queue = queue.address(), {
            let seg = self.build_kernarg(queue, k, args, g)?;
            // At least 16 bytes: a kernel without arguments still gets a
            // kernarg address (AMDGPUUsage: 16-byte aligned).
            let kernarg = self.allocate(self.kernarg_pool()?, seg.bytes.len().max(16) as u64)?;
            let result = (|| {
                // SAFETY: a fresh CPU-mapped allocation of at least
                // seg.bytes.len() bytes, that nothing else refers to yet.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        seg.bytes.as_ptr(),
                        kernarg as *mut u8,
                        seg.bytes.len(),
                    )
                };
                let signal = self.create_signal(1)?;
                let start = Instant::now();
                let packet_id =
                    self.submit_dispatch(queue, k, kernarg, g, seg.group_segment_size, &signal)?;
                loop {
                    if signal.wait_zero(Duration::from_millis(5))? {
                        return Ok(Completion {
                            elapsed: start.elapsed(),
                            packet_id,
                        });
                    }
                    if let Some(s) = queue.error() {
                        return Err(Error::new(
                            s,
                            format!("the queue stopped while kernel {} ran", k.name),
                        ));
                    }
                    if start.elapsed() > timeout {
                        return Err(Error::new(
                            Status::Error,
                            format!("kernel {} did not complete within {timeout:?}", k.name),
                        ));
                    }
                }
            })();
            let _ = self.free(kernarg);
            result
        })
    }
}
