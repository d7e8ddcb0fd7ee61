//! The static memory the two cores share: the `amd_queue_t`, its ring, the
//! signals, kernel arguments, buffers and the kernel "descriptors".
//!
//! Packets carry addresses (kernel object, kernarg segment, signals, the
//! buffers inside kernel arguments), as they do for a GPU. The packet
//! processor never turns an address back into a pointer: it looks it up
//! among the objects of this module and refuses anything else, so a wrong
//! address in a packet is an error message, not a wild access.
#![allow(unsafe_code)]

use aql::queue::{AmdQueue, PacketSlot};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};
use signal_core::SignalStorage;

/// Packets in the ring: small, so the producer must wait for the packet
/// processor to free slots (the ring wraps twice).
pub const QUEUE_SIZE: usize = 4;
/// Elements per buffer; one work-item each.
pub const ELEMENTS: usize = 256;

/// The ring `amd_queue_t::hsa_queue.base_address` points to.
pub static RING: [PacketSlot; QUEUE_SIZE] = [const { PacketSlot::invalid() }; QUEUE_SIZE];

/// The queue descriptor, written once by core 0 before core 1 starts.
pub static QUEUE: InitOnce<AmdQueue> = InitOnce::new();

/// The queue's doorbell signal: producers store the last packet id with
/// release (`hsa_signal_store_screlease`), the packet processor waits for
/// it to reach its read index. -1: nothing rung yet.
pub static DOORBELL: SignalStorage = SignalStorage::new(-1);

/// The signals the packets use, by index (`S0`..`S7`), with their initial
/// values: completion signals start at 1, `S5` (the barrier-value packet's
/// signal) at 0, `S3` is a host signal that stays 1 (a barrier-OR input
/// that never fires).
pub static SIGNALS: [SignalStorage; 8] = [
    SignalStorage::new(1),
    SignalStorage::new(1),
    SignalStorage::new(1),
    SignalStorage::new(1),
    SignalStorage::new(1),
    SignalStorage::new(0),
    SignalStorage::new(1),
    SignalStorage::new(1),
];

/// Which of [`SIGNALS`] has this `hsa_signal_t` handle.
pub fn signal_index(handle: u64) -> Option<usize> {
    SIGNALS.iter().position(|s| s.handle() == handle)
}

/// A buffer of the "device memory".
pub type Buffer = [AtomicU32; ELEMENTS];

/// Buffers `a`..`e`.
pub static BUFFERS: [Buffer; 5] = [const { [const { AtomicU32::new(0) }; ELEMENTS] }; 5];

/// The address of buffer `i`, as a packet's kernel arguments carry it.
pub fn buffer_address(i: usize) -> u64 {
    BUFFERS[i].as_ptr().addr() as u64
}

/// The buffer at `address`, and its index.
pub fn buffer_at(address: u64) -> Option<(usize, &'static Buffer)> {
    BUFFERS
        .iter()
        .enumerate()
        .find(|(i, _)| buffer_address(*i) == address)
}

/// Words of one kernarg segment.
pub const KERNARG_WORDS: usize = 4;
/// One kernarg segment: written by the producer before it publishes the
/// packet (the packet's release store orders it), read after the acquire.
pub type Kernargs = [AtomicU64; KERNARG_WORDS];

/// One kernarg segment per dispatch.
pub static KERNARGS: [Kernargs; 3] = [const { [const { AtomicU64::new(0) }; KERNARG_WORDS] }; 3];

/// The address of kernarg segment `i`.
pub fn kernarg_address(i: usize) -> u64 {
    KERNARGS[i].as_ptr().addr() as u64
}

/// The kernarg segment at `address`.
pub fn kernargs_at(address: u64) -> Option<&'static Kernargs> {
    (0..KERNARGS.len())
        .find(|&i| kernarg_address(i) == address)
        .map(|i| &KERNARGS[i])
}

/// What a kernel does for one work-item: `Err` names what was wrong.
pub type WorkItem = fn(&Kernargs, usize) -> Result<(), &'static str>;

/// A kernel: the packet's `kernel_object` is the address of one of these,
/// as it is the address of a kernel descriptor for a GPU.
pub struct Kernel {
    /// Its name.
    pub name: &'static str,
    /// One work-item.
    pub work_item: WorkItem,
}

/// The kernels this machine runs.
pub static KERNELS: [Kernel; 2] = [
    Kernel {
        name: "vector_add",
        work_item: vector_add,
    },
    Kernel {
        name: "scale",
        work_item: scale,
    },
];

/// `KERNELS` index of `vector_add`.
pub const VECTOR_ADD: usize = 0;
/// `KERNELS` index of `scale`.
pub const SCALE: usize = 1;

/// The `kernel_object` of kernel `i`.
pub fn kernel_object(i: usize) -> u64 {
    core::ptr::from_ref(&KERNELS[i]).addr() as u64
}

/// The kernel whose `kernel_object` is `address`.
pub fn kernel_at(address: u64) -> Option<&'static Kernel> {
    (0..KERNELS.len())
        .find(|&i| kernel_object(i) == address)
        .map(|i| &KERNELS[i])
}

fn arg_buffer(args: &Kernargs, word: usize) -> Result<&'static Buffer, &'static str> {
    buffer_at(args[word].load(Ordering::Relaxed))
        .map(|(_, b)| b)
        .ok_or("a kernel argument is not the address of a buffer")
}

/// `out[i] = x[i] + y[i]`; arguments: x, y, out.
fn vector_add(args: &Kernargs, i: usize) -> Result<(), &'static str> {
    let (x, y, out) = (
        arg_buffer(args, 0)?,
        arg_buffer(args, 1)?,
        arg_buffer(args, 2)?,
    );
    let v = x[i]
        .load(Ordering::Relaxed)
        .wrapping_add(y[i].load(Ordering::Relaxed));
    out[i].store(v, Ordering::Relaxed);
    Ok(())
}

/// `out[i] = x[i] * factor`; arguments: x, unused, out, factor.
fn scale(args: &Kernargs, i: usize) -> Result<(), &'static str> {
    let (x, out) = (arg_buffer(args, 0)?, arg_buffer(args, 2)?);
    let factor = args[3].load(Ordering::Relaxed) as u32;
    out[i].store(
        x[i].load(Ordering::Relaxed).wrapping_mul(factor),
        Ordering::Relaxed,
    );
    Ok(())
}

/// A value written once by one core and then shared read-only: the
/// `amd_queue_t`, whose plain fields must not change while it is shared.
pub struct InitOnce<T> {
    value: UnsafeCell<MaybeUninit<T>>,
    /// 0 empty, 1 being written, 2 ready.
    state: AtomicU8,
}

// SAFETY: the value is written only by the one caller that moved `state`
// from 0 to 1, and shared references exist only after the release store of
// 2 that follows the write (acquired in `get`); `T: Sync` for sharing them.
unsafe impl<T: Sync> Sync for InitOnce<T> {}

impl<T> InitOnce<T> {
    /// Empty.
    pub const fn new() -> Self {
        Self {
            value: UnsafeCell::new(MaybeUninit::uninit()),
            state: AtomicU8::new(0),
        }
    }

    /// Stores `value` and shares it; `None` if it was already set.
    pub fn init(&self, value: T) -> Option<&T> {
        if self
            .state
            .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return None;
        }
        // SAFETY: the compare-and-swap made us the only writer and no
        // reference to the value exists before `state` is 2.
        unsafe { (*self.value.get()).write(value) };
        self.state.store(2, Ordering::Release);
        self.get()
    }

    /// The value, once [`InitOnce::init`] finished.
    pub fn get(&self) -> Option<&T> {
        if self.state.load(Ordering::Acquire) != 2 {
            return None;
        }
        // SAFETY: state 2 is stored (release) after the write, and the
        // value is never written again: a shared reference is sound.
        let value = unsafe { &*self.value.get() };
        // SAFETY: state 2 means `init` wrote the value.
        Some(unsafe { value.assume_init_ref() })
    }
}
