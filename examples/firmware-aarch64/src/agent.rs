//! Core 1: the packet processor, playing the agent. It consumes the ring
//! through `aql`'s `PacketProcessor` (acquire of the header, barrier bit,
//! reset to INVALID, release of the read index, validation), runs kernel
//! dispatches work-item by work-item, honours barrier-AND, barrier-OR and
//! AMD barrier-value packets, and decrements completion signals through
//! `signal-core`.

use crate::host::{Firmware, counter, counter_frequency, wait_for_event};
use crate::memory::{self, QUEUE, RING, SIGNALS};
use crate::println;
use aql::doorbell::NoDoorbell;
use aql::queue::Ring;
use aql::{Packet, SignalHandle};
use core::sync::atomic::{AtomicU32, Ordering};
use signal_core::{Condition, LoadOrder, RmwOrder, Signal, WaitOutcome, WaitState};

/// Packets processed (decoded and executed) so far.
pub static PROCESSED: AtomicU32 = AtomicU32::new(0);
/// Packets rejected as malformed so far.
pub static REJECTED: AtomicU32 = AtomicU32::new(0);

/// How long a barrier may wait for its dependencies before the agent gives
/// up on it (seconds).
const BARRIER_TIMEOUT_S: u64 = 5;

fn signal(handle: SignalHandle) -> Result<(usize, Signal<'static, Firmware>), u64> {
    memory::signal_index(handle.handle)
        .map(|i| (i, SIGNALS[i].bind(&Firmware)))
        .ok_or(handle.handle)
}

fn timeout_ticks() -> u64 {
    BARRIER_TIMEOUT_S * counter_frequency()
}

/// Runs the packet processor forever (core 0 ends the machine).
pub fn run() -> ! {
    let Some(queue) = QUEUE.get() else {
        println!("core 1: the queue was not set up before this core started");
        crate::semihosting::exit(4);
    };
    if queue.hsa_queue.base_address != RING.as_ptr().addr() as u64 {
        println!(
            "core 1: amd_queue_t base_address {:#x} is not the ring",
            queue.hsa_queue.base_address
        );
        crate::semihosting::exit(4);
    }
    let ring = match Ring::from_amd_queue(queue, &RING, NoDoorbell) {
        Ok(r) => r,
        Err(e) => {
            println!("core 1: bad queue: {e}");
            crate::semihosting::exit(4);
        }
    };
    let Some(mut pp) = ring.packet_processor() else {
        println!("core 1: packet processor already claimed");
        crate::semihosting::exit(4);
    };
    let doorbell = memory::DOORBELL.bind(&Firmware);
    println!(
        "core 1: packet processor up, amd_queue_t at {:#x}, read index {}",
        core::ptr::from_ref(queue).addr(),
        pp.read_index()
    );
    loop {
        let fetched = pp.next(|pp, _| {
            // Sleep until the doorbell reaches our read index (a store to
            // the doorbell signal wakes us through signal-core).
            let _ = doorbell.wait(
                Condition::Gte,
                pp.read_index() as i64,
                timeout_ticks(),
                WaitState::Blocked,
                LoadOrder::Acquire,
            );
        });
        let id = fetched.id;
        match &fetched.packet {
            Err(e) => {
                REJECTED.fetch_add(1, Ordering::Relaxed);
                println!(
                    "core 1: packet {id}: rejected: {e} (HSA status {:#x})",
                    e.hsa_status()
                );
                complete(&mut pp, fetched.completion);
                continue;
            }
            Ok(packet) => {
                if let Err(what) = execute(id, packet) {
                    println!("core 1: packet {id}: failed: {what}");
                    REJECTED.fetch_add(1, Ordering::Relaxed);
                    complete(&mut pp, fetched.completion);
                    continue;
                }
            }
        }
        let packet = fetched.packet.as_ref().ok();
        PROCESSED.fetch_add(1, Ordering::Relaxed);
        if let Some(c) = packet
            .map(|p| p.completion_signal())
            .filter(|c| !c.is_null())
        {
            match signal(c) {
                Ok((i, s)) => {
                    let old = s.subtract(1, RmwOrder::Release);
                    println!(
                        "core 1: packet {id}: completion signal S{i}: {old} -> {}",
                        old - 1
                    );
                }
                Err(h) => println!(
                    "core 1: packet {id}: completion signal {h:#x} is no signal of this machine"
                ),
            }
        }
        complete(&mut pp, fetched.completion);
    }
}

/// Hands a packet's token back; a token of another processor cannot occur
/// here, so it would be a bug: stop the machine.
fn complete<D: aql::Doorbell>(
    pp: &mut aql::queue::PacketProcessor<'_, '_, D>,
    token: aql::queue::Completion,
) {
    if let Err(e) = pp.complete(token) {
        println!("core 1: completing a packet: {e}");
        crate::semihosting::exit(4);
    }
}

fn execute(id: u64, packet: &Packet) -> Result<(), &'static str> {
    match packet {
        Packet::KernelDispatch(p) => {
            let kernel = memory::kernel_at(p.kernel_object)
                .ok_or("kernel_object is no kernel of this machine")?;
            let args = memory::kernargs_at(p.kernarg_address)
                .ok_or("kernarg_address is no kernarg segment")?;
            let [x, y, z] = p.grid_size();
            let items = u64::from(x) * u64::from(y) * u64::from(z);
            if items > memory::ELEMENTS as u64 {
                return Err("grid larger than the buffers");
            }
            for i in 0..items as usize {
                (kernel.work_item)(args, i)?;
            }
            println!(
                "core 1: packet {id}: KERNEL_DISPATCH {} grid {:?} workgroup {:?} ({} workgroups) barrier={}",
                kernel.name,
                p.grid_size(),
                p.workgroup_size(),
                p.workgroup_count().iter().product::<u32>(),
                p.header.barrier() as u8,
            );
        }
        Packet::BarrierAnd(p) => {
            for dep in p.dependencies() {
                let (_, s) = signal(dep).map_err(|_| "barrier-AND dependency is no signal")?;
                match s.wait(
                    Condition::Eq,
                    0,
                    timeout_ticks(),
                    WaitState::Blocked,
                    LoadOrder::Acquire,
                ) {
                    Ok(WaitOutcome::Satisfied(_)) => {}
                    Ok(_) => return Err("barrier-AND timed out"),
                    Err(_) => return Err("barrier-AND wait failed"),
                }
            }
            let deps = names(p.dependencies());
            println!(
                "core 1: packet {id}: BARRIER_AND on {} : all 0",
                deps.as_str()
            );
        }
        Packet::BarrierOr(p) => {
            let deadline = counter() + timeout_ticks();
            let fired = loop {
                let mut fired = None;
                for dep in p.dependencies() {
                    let (i, s) = signal(dep).map_err(|_| "barrier-OR dependency is no signal")?;
                    if s.load(LoadOrder::Acquire) == 0 {
                        fired = Some(i);
                        break;
                    }
                }
                if let Some(i) = fired {
                    break i;
                }
                if counter() >= deadline {
                    return Err("barrier-OR timed out");
                }
                wait_for_event();
            };
            let deps = names(p.dependencies());
            println!(
                "core 1: packet {id}: BARRIER_OR on {} : S{fired} is 0",
                deps.as_str()
            );
        }
        Packet::AmdBarrierValue(p) => {
            let (i, s) = signal(p.signal).map_err(|_| "barrier-value signal is no signal")?;
            let deadline = counter() + timeout_ticks();
            let value = loop {
                let v = s.load(LoadOrder::Acquire);
                if p.satisfied_by(v).map_err(|_| "barrier-value condition")? {
                    break v;
                }
                if counter() >= deadline {
                    return Err("barrier-value timed out");
                }
                wait_for_event();
            };
            println!(
                "core 1: packet {id}: AMD_BARRIER_VALUE (S{i} & {:#x}) {:?} {:#x}: satisfied by {value:#x}",
                p.mask,
                p.condition().map_err(|_| "barrier-value condition")?,
                p.value,
            );
        }
        Packet::AgentDispatch(_) => return Err("no agent functions are registered"),
        Packet::AmdPm4Ib(_) => return Err("this agent has no PM4 command processor"),
    }
    Ok(())
}

/// "S0 S1 ..." for a list of signals, in a fixed buffer.
fn names(deps: impl Iterator<Item = SignalHandle>) -> Names {
    let mut n = Names {
        buf: [0; 40],
        len: 0,
    };
    for d in deps {
        match memory::signal_index(d.handle) {
            Some(i) => {
                let _ = core::fmt::write(&mut n, format_args!("S{i} "));
            }
            None => {
                let _ = core::fmt::write(&mut n, format_args!("? "));
            }
        }
    }
    n
}

struct Names {
    buf: [u8; 40],
    len: usize,
}

impl Names {
    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len])
            .unwrap_or("?")
            .trim_end()
    }
}

impl core::fmt::Write for Names {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self
            .len
            .checked_add(s.len())
            .filter(|&e| e <= self.buf.len())
            .ok_or(core::fmt::Error)?;
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
