//! Doorbells: how a producer tells the packet processor that packets up to
//! some packet id are ready.
//!
//! In ROCr, `hsa_signal_store_screlease(queue->doorbell_signal, id)` does
//! it: for a hardware queue the doorbell signal's store is a 64-bit MMIO
//! write to the doorbell page that KFD mapped; for a software queue it is a
//! store to the signal's value that the packet-processor thread waits on.
//! [`MmioDoorbell`] and [`AtomicDoorbell`] are those two; any other (a
//! `signal-core` signal, a hypervisor's notification) implements
//! [`Doorbell`] or wraps a closure in [`FnDoorbell`].

use crate::sync::{AtomicU64, Ordering};
use core::marker::PhantomData;
use core::ptr::NonNull;

/// Tells the packet processor that packets up to `packet_id` are published.
pub trait Doorbell {
    /// Rings the doorbell with the id of the last packet published.
    fn ring(&self, packet_id: u64);
}

impl<T: Doorbell + ?Sized> Doorbell for &T {
    fn ring(&self, packet_id: u64) {
        (**self).ring(packet_id);
    }
}

/// No doorbell: for packet processors that poll the packet headers (the
/// protocol never depends on the doorbell for correctness).
#[derive(Debug, Clone, Copy, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NoDoorbell;

impl Doorbell for NoDoorbell {
    fn ring(&self, _packet_id: u64) {}
}

/// A doorbell that is a 64-bit word in memory, stored with release
/// semantics (the value of a software queue's doorbell signal).
#[derive(Debug, Clone, Copy)]
pub struct AtomicDoorbell<'a>(pub &'a AtomicU64);

impl Doorbell for AtomicDoorbell<'_> {
    fn ring(&self, packet_id: u64) {
        // Several producers may ring: not `store_index`, whose two word
        // stores need a single writer where 64-bit atomics are emulated.
        self.0.store(packet_id, Ordering::Release);
    }
}

/// A doorbell that calls a closure with the packet id.
#[derive(Debug, Clone, Copy)]
pub struct FnDoorbell<F>(pub F);

impl<F: Fn(u64)> Doorbell for FnDoorbell<F> {
    fn ring(&self, packet_id: u64) {
        (self.0)(packet_id);
    }
}

/// A memory-mapped hardware doorbell: each ring is one volatile 64-bit
/// write of the packet id (the AQL doorbells of GFX9 and later).
///
/// Writes go through `volatile`'s `VolatilePtr`, never through a reference,
/// because a reference to MMIO would let the compiler invent or elide
/// accesses.
#[derive(Debug)]
pub struct MmioDoorbell<'a> {
    register: NonNull<u64>,
    _mapping: PhantomData<&'a mut u64>,
}

impl<'a> MmioDoorbell<'a> {
    /// Wraps the doorbell register at `register`.
    ///
    /// # Safety
    ///
    /// `register` must be 8-byte aligned and valid for volatile 64-bit
    /// writes for all of `'a` (a mapped doorbell page that outlives the
    /// doorbell), and writing any packet id there must be harmless to the
    /// memory safety of this process.
    #[allow(unsafe_code)]
    pub const unsafe fn new(register: NonNull<u64>) -> Self {
        Self {
            register,
            _mapping: PhantomData,
        }
    }
}

#[allow(unsafe_code)]
// SAFETY: the doorbell only ever performs volatile writes of whole 64-bit
// words to a register that `new`'s contract keeps valid for `'a`; such
// writes from several threads are what a multi-producer queue does.
unsafe impl Send for MmioDoorbell<'_> {}
#[allow(unsafe_code)]
// SAFETY: as for `Send`: `ring` takes `&self` and does one volatile write.
unsafe impl Sync for MmioDoorbell<'_> {}

impl Doorbell for MmioDoorbell<'_> {
    #[allow(unsafe_code)]
    fn ring(&self, packet_id: u64) {
        // SAFETY: `new`'s contract: the register is aligned and valid for
        // volatile writes for `'a`, and `self` does not outlive `'a`.
        let register = unsafe { volatile::VolatilePtr::new(self.register) };
        register.write(packet_id);
    }
}
