//! The text a person reads: the queue's state and one line per packet.

use crate::queue::{PacketRecord, QueueSnapshot, SlotProblem};
use aql::queue::QueueType;
use aql::{FenceScope, Packet, PacketHeader, SignalHandle};
use core::fmt::{self, Write};

fn scope(s: Result<FenceScope, aql::PacketError>) -> &'static str {
    match s {
        Ok(FenceScope::None) => "none",
        Ok(FenceScope::Agent) => "agent",
        Ok(FenceScope::System) => "system",
        Err(_) => "invalid",
    }
}

fn header(h: PacketHeader) -> String {
    format!(
        "barrier={} acquire={} release={}",
        u8::from(h.barrier()),
        scope(h.acquire_fence_scope()),
        scope(h.release_fence_scope())
    )
}

fn signal(s: SignalHandle) -> String {
    if s.is_null() {
        "none".to_owned()
    } else {
        format!("{:#x}", s.handle)
    }
}

/// One line describing a decoded packet.
pub fn describe(p: &Packet) -> String {
    match p {
        Packet::KernelDispatch(k) => format!(
            "KERNEL_DISPATCH dims={} grid={:?} workgroup={:?} kernel_object={:#x} kernarg_address={:#x} private={} group={} completion={} {}",
            k.setup.dimensions().unwrap_or(0),
            k.grid_size(),
            k.workgroup_size(),
            k.kernel_object,
            k.kernarg_address,
            k.private_segment_size,
            k.group_segment_size,
            signal(k.completion_signal),
            header(k.header)
        ),
        Packet::AgentDispatch(a) => format!(
            "AGENT_DISPATCH type={} arg=[{:#x}, {:#x}, {:#x}, {:#x}] return_address={:#x} completion={} {}",
            a.type_,
            a.arg[0],
            a.arg[1],
            a.arg[2],
            a.arg[3],
            a.return_address,
            signal(a.completion_signal),
            header(a.header)
        ),
        Packet::BarrierAnd(b) => format!(
            "BARRIER_AND deps=[{}] completion={} {}",
            b.dependencies().map(signal).collect::<Vec<_>>().join(", "),
            signal(b.completion_signal),
            header(b.header)
        ),
        Packet::BarrierOr(b) => format!(
            "BARRIER_OR deps=[{}] completion={} {}",
            b.dependencies().map(signal).collect::<Vec<_>>().join(", "),
            signal(b.completion_signal),
            header(b.header)
        ),
        Packet::AmdBarrierValue(v) => format!(
            "AMD_BARRIER_VALUE (signal {} & {:#x}) {} {:#x} completion={} {}",
            signal(v.signal),
            v.mask,
            v.condition()
                .map_or_else(|_| "?".to_owned(), |c| format!("{c:?}")),
            v.value,
            signal(v.completion_signal),
            header(v.header.header)
        ),
        Packet::AmdPm4Ib(v) => format!(
            "AMD_PM4_IB ib={:?} completion={} {}",
            v.indirect_buffer().map(|(va, n)| format!("{va:#x}+{n}dw")),
            signal(v.completion_signal),
            header(v.header.header)
        ),
    }
}

fn packet_line(out: &mut impl Write, p: &PacketRecord) -> fmt::Result {
    write!(out, "  packet {} @ {:#x}: ", p.id, p.address)?;
    match &p.packet {
        Ok(packet) => write!(out, "{}", describe(packet))?,
        Err(e @ SlotProblem::NotPublished) => write!(out, "{e}")?,
        Err(e) => write!(out, "ERROR {e}")?,
    }
    if p.consumed_while_read {
        write!(
            out,
            " (consumed by the guest while read: the slot may hold a newer packet)"
        )?;
    }
    writeln!(out)
}

/// Writes the whole report.
pub fn write_report(out: &mut impl Write, s: &QueueSnapshot) -> fmt::Result {
    let q = &s.state;
    let h = &q.hsa_queue;
    let queue_type = match h.queue_type() {
        Ok(QueueType::Multi) => "MULTI".to_owned(),
        Ok(QueueType::Single) => "SINGLE".to_owned(),
        Ok(QueueType::Cooperative) => "COOPERATIVE".to_owned(),
        Err(t) => format!("unknown ({t})"),
    };
    writeln!(out, "amd_queue_t @ {:#x}", q.address)?;
    writeln!(
        out,
        "  hsa_queue: type {queue_type}, features {:?}, id {}, size {} packets, ring @ {:#x}, doorbell signal {}",
        h.queue_features(),
        h.id,
        h.size,
        h.base_address,
        signal(h.doorbell_signal)
    )?;
    writeln!(
        out,
        "  write_dispatch_id {}, read_dispatch_id {} ({} pending)",
        q.write_dispatch_id,
        q.read_dispatch_id,
        q.write_dispatch_id.wrapping_sub(q.read_dispatch_id)
    )?;
    writeln!(
        out,
        "  properties {:?}, max_cu_id {}, max_wave_id {}, compute_tmpring_size {:#x}, scratch {:#x} ({} bytes), queue_inactive_signal {}",
        q.properties,
        q.max_cu_id,
        q.max_wave_id,
        q.compute_tmpring_size,
        q.scratch_backing_memory_location,
        q.scratch_backing_memory_byte_size,
        signal(q.queue_inactive_signal)
    )?;
    for f in &q.findings {
        writeln!(out, "  warning: {f}")?;
    }
    for p in &s.packets {
        packet_line(out, p)?;
    }
    if s.not_listed > 0 {
        writeln!(
            out,
            "  ... {} more pending packets not listed",
            s.not_listed
        )?;
    }
    if s.read_index_after != q.read_dispatch_id {
        writeln!(
            out,
            "  read_dispatch_id moved to {} while the packets were read",
            s.read_index_after
        )?;
    }
    Ok(())
}

/// The report as a string.
pub fn report(s: &QueueSnapshot) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_report(&mut out, s);
    out
}
