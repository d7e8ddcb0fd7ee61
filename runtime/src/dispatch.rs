//! Kernel dispatch: fill a kernel's kernarg segment (explicit arguments in
//! order, hidden arguments from the metadata), write an AQL kernel
//! dispatch packet with a completion signal, ring the doorbell, and wait.

#![allow(unsafe_code)]

use std::time::{Duration, Instant};

use aql::SignalHandle;
use aql::packet::KernelDispatchPacket;
use loader_core::metadata::ValueKind;

use crate::executable::KernelSymbol;
use crate::queue::Queue;
use crate::status::{Error, Result, Status};
use crate::system::Runtime;

/// One explicit kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// A by-value argument: exactly its bytes.
    Bytes(Vec<u8>),
    /// A global buffer: its address.
    Pointer(u64),
    /// An OpenCL `__local` pointer: bytes of group memory to give it.
    Lds(u32),
}

/// The shape of a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Grid size in work-items (the AQL packet's `grid_size`).
    pub grid: [u32; 3],
    /// Workgroup size.
    pub workgroup: [u16; 3],
    /// Dynamic group memory (HIP `extern __shared__`), bytes.
    pub dynamic_lds: u32,
}

impl Geometry {
    /// A 1D dispatch.
    pub fn linear(grid: u32, workgroup: u16) -> Self {
        Self {
            grid: [grid, 1, 1],
            workgroup: [workgroup, 1, 1],
            dynamic_lds: 0,
        }
    }

    fn dimensions(&self) -> u16 {
        if self.grid[2] > 1 || self.workgroup[2] > 1 {
            3
        } else if self.grid[1] > 1 || self.workgroup[1] > 1 {
            2
        } else {
            1
        }
    }
}

/// How a dispatch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Host time from the doorbell to the completion signal reaching 0.
    pub elapsed: Duration,
    /// The packet id in the queue.
    pub packet_id: u64,
}

/// What the runtime fills the kernarg segment's hidden arguments with.
#[derive(Debug, Clone, Copy, Default)]
pub struct HiddenValues {
    /// `hidden_queue_ptr`: the queue's `amd_queue_t`.
    pub queue_ptr: u64,
    /// The private (scratch) aperture base.
    pub private_base: u64,
    /// The shared (LDS) aperture base.
    pub shared_base: u64,
}

/// Builds the kernarg segment of `k` and the dispatch's total group
/// segment size.
pub fn kernargs(
    k: &KernelSymbol,
    args: &[ArgValue],
    g: &Geometry,
    hidden: &HiddenValues,
) -> Result<(Vec<u8>, u32)> {
    let mut seg = vec![0u8; k.kernarg_segment_size.max(16) as usize];
    let mut group = k.group_segment_size;
    let explicit: Vec<&crate::executable::ArgInfo> =
        k.args.iter().filter(|a| is_explicit(a.kind)).collect();
    if explicit.len() != args.len() {
        return Err(Error::invalid_argument(format!(
            "kernel {} takes {} explicit arguments, got {}",
            k.name,
            explicit.len(),
            args.len()
        )));
    }
    let put = |seg: &mut Vec<u8>, off: u32, b: &[u8], what: &str| -> Result<()> {
        let off = off as usize;
        let end = off
            .checked_add(b.len())
            .filter(|&e| e <= seg.len())
            .ok_or_else(|| {
                Error::new(
                    Status::InvalidCodeObject,
                    format!("{what} lies outside the kernarg segment"),
                )
            })?;
        seg[off..end].copy_from_slice(b);
        Ok(())
    };
    for (i, (a, v)) in explicit.iter().zip(args).enumerate() {
        let name = a.name.as_deref().unwrap_or("?");
        let what = format!("kernel argument {i} ({name})");
        match (a.kind, v) {
            (ValueKind::ByValue, ArgValue::Bytes(b)) if b.len() == a.size as usize => {
                put(&mut seg, a.offset, b, &what)?
            }
            (ValueKind::GlobalBuffer, ArgValue::Pointer(p)) => put(
                &mut seg,
                a.offset,
                &p.to_le_bytes()[..(a.size as usize).min(8)],
                &what,
            )?,
            (ValueKind::DynamicSharedPointer, ArgValue::Lds(bytes)) => {
                let align = a.pointee_align.unwrap_or(16).max(16);
                let at = group.next_multiple_of(align);
                group = at.checked_add(*bytes).ok_or_else(|| {
                    Error::invalid_argument(format!("{what}: LDS size overflows"))
                })?;
                put(
                    &mut seg,
                    a.offset,
                    &at.to_le_bytes()[..(a.size as usize).min(4)],
                    &what,
                )?
            }
            (kind, v) => {
                return Err(Error::invalid_argument(format!(
                    "{what} is {} {}{}, got {}",
                    kind.as_str(),
                    a.type_name.as_deref().unwrap_or(""),
                    if kind == ValueKind::ByValue {
                        format!(" ({} bytes)", a.size)
                    } else {
                        String::new()
                    },
                    match v {
                        ArgValue::Bytes(b) => format!("{} bytes by value", b.len()),
                        ArgValue::Pointer(_) => "a buffer".into(),
                        ArgValue::Lds(_) => "group memory".into(),
                    }
                )));
            }
        }
    }
    group = group
        .checked_add(g.dynamic_lds)
        .ok_or_else(|| Error::invalid_argument("group segment size overflows"))?;
    let dims = g.dimensions();
    for a in k.args.iter().filter(|a| !is_explicit(a.kind)) {
        let d = |x: usize| x;
        let bytes: Vec<u8> = match a.kind {
            ValueKind::HiddenBlockCountX => (g.grid[0] / u32::from(g.workgroup[0]))
                .to_le_bytes()
                .to_vec(),
            ValueKind::HiddenBlockCountY => (g.grid[1] / u32::from(g.workgroup[1]))
                .to_le_bytes()
                .to_vec(),
            ValueKind::HiddenBlockCountZ => (g.grid[2] / u32::from(g.workgroup[2]))
                .to_le_bytes()
                .to_vec(),
            ValueKind::HiddenGroupSizeX => g.workgroup[d(0)].to_le_bytes().to_vec(),
            ValueKind::HiddenGroupSizeY => g.workgroup[d(1)].to_le_bytes().to_vec(),
            ValueKind::HiddenGroupSizeZ => g.workgroup[d(2)].to_le_bytes().to_vec(),
            ValueKind::HiddenRemainderX => ((g.grid[0] % u32::from(g.workgroup[0])) as u16)
                .to_le_bytes()
                .to_vec(),
            ValueKind::HiddenRemainderY => ((g.grid[1] % u32::from(g.workgroup[1])) as u16)
                .to_le_bytes()
                .to_vec(),
            ValueKind::HiddenRemainderZ => ((g.grid[2] % u32::from(g.workgroup[2])) as u16)
                .to_le_bytes()
                .to_vec(),
            ValueKind::HiddenGridDims => dims.to_le_bytes().to_vec(),
            ValueKind::HiddenDynamicLdsSize => g.dynamic_lds.to_le_bytes().to_vec(),
            ValueKind::HiddenPrivateBase => {
                ((hidden.private_base >> 32) as u32).to_le_bytes().to_vec()
            }
            ValueKind::HiddenSharedBase => {
                ((hidden.shared_base >> 32) as u32).to_le_bytes().to_vec()
            }
            ValueKind::HiddenQueuePtr => hidden.queue_ptr.to_le_bytes().to_vec(),
            // Global offsets are 0; no printf, hostcall, heap, default
            // queue, completion action or multigrid support: 0 (null) is
            // what the device code checks for.
            _ => vec![0u8; a.size as usize],
        };
        let n = bytes.len().min(a.size as usize);
        put(
            &mut seg,
            a.offset,
            &bytes[..n],
            &format!("hidden argument {}", a.kind.as_str()),
        )?;
    }
    Ok((seg, group))
}

fn is_explicit(kind: ValueKind) -> bool {
    !kind.as_str().starts_with("hidden_")
}

impl Runtime {
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
        if g.grid.contains(&0) || g.workgroup.contains(&0) {
            return Err(Error::invalid_argument(format!(
                "grid {:?} and workgroup {:?} must be nonzero in every dimension",
                g.grid, g.workgroup
            )));
        }
        let ap = self
            .core
            .driver
            .apertures()
            .iter()
            .find(|a| {
                Some(a.gpu_id)
                    == self
                        .core
                        .agents
                        .get(queue.agent().index())
                        .map(|r| r.gpu_id)
            })
            .copied()
            .unwrap_or_default();
        let hidden = HiddenValues {
            queue_ptr: queue.address(),
            private_base: ap.scratch_base,
            shared_base: ap.lds_base,
        };
        let (seg, group) = kernargs(k, args, g, &hidden)?;
        let kernarg = self.allocate(self.kernarg_pool()?, seg.len() as u64)?;
        let result = (|| {
            // SAFETY: a fresh CPU-mapped allocation of at least seg.len() bytes.
            unsafe { core::ptr::copy_nonoverlapping(seg.as_ptr(), kernarg as *mut u8, seg.len()) };
            let signal = self.create_signal(1)?;
            let mut p = KernelDispatchPacket::new(k.kernel_object, kernarg, g.grid, g.workgroup);
            p.completion_signal = SignalHandle {
                handle: signal.handle(),
            };
            p.private_segment_size = k.private_segment_size;
            p.group_segment_size = group;
            let start = Instant::now();
            let packet_id = queue.submit(&zerocopy::transmute!(p))?;
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
    }
}
