//! Typed errors: what was wrong with a packet or a queue operation, and where.

use core::fmt;

/// `HSA_STATUS_ERROR_INVALID_PACKET_FORMAT` (`hsa.h`): the status a packet
/// processor reports for every [`PacketError`].
pub const HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: u32 = 0x1009;
/// `HSA_STATUS_ERROR_INVALID_ARGUMENT` (`hsa.h`).
pub const HSA_STATUS_ERROR_INVALID_ARGUMENT: u32 = 0x1001;
/// `HSA_STATUS_ERROR_OUT_OF_RESOURCES` (`hsa.h`).
pub const HSA_STATUS_ERROR_OUT_OF_RESOURCES: u32 = 0x1008;

/// Which of the two fences of a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FenceKind {
    /// The acquire (scacquire) fence, header bits 9-10.
    Acquire,
    /// The release (screlease) fence, header bits 11-12.
    Release,
}

/// A grid or workgroup dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Axis {
    /// The `x` dimension.
    X,
    /// The `y` dimension.
    Y,
    /// The `z` dimension.
    Z,
}

impl Axis {
    /// The axes in order, indexable by dimension number minus one.
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    const fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

/// A packet that a packet processor must reject with
/// `HSA_STATUS_ERROR_INVALID_PACKET_FORMAT`. Each variant names the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PacketError {
    /// Header bits 0-7 hold no `hsa_packet_type_t`.
    UnknownPacketType(u8),
    /// A fence scope field holds 3, which HSA does not define.
    InvalidFenceScope {
        /// Which fence.
        which: FenceKind,
        /// The raw 2-bit value.
        raw: u8,
    },
    /// Header bits 13-15 (reserved) are set; the value is those bits.
    ReservedHeaderBits(u16),
    /// Kernel-dispatch setup bits 2-15 (reserved) are set.
    ReservedSetupBits(u16),
    /// The setup dimensions are not 1, 2 or 3.
    InvalidDimensions(u8),
    /// A used workgroup dimension is 0.
    ZeroWorkgroupSize(Axis),
    /// A used grid dimension is 0.
    ZeroGridSize(Axis),
    /// A dimension beyond `dimensions` has a workgroup size other than 1.
    UnusedWorkgroupDimension {
        /// The dimension.
        axis: Axis,
        /// Its workgroup size.
        size: u16,
    },
    /// A dimension beyond `dimensions` has a grid size other than 1.
    UnusedGridDimension {
        /// The dimension.
        axis: Axis,
        /// Its grid size.
        size: u32,
    },
    /// The grid is smaller than one workgroup in a used dimension.
    GridSmallerThanWorkgroup {
        /// The dimension.
        axis: Axis,
        /// Grid size in work-items.
        grid: u32,
        /// Workgroup size in work-items.
        workgroup: u16,
    },
    /// A reserved field is not zero.
    ReservedField {
        /// The packet's C type, e.g. `hsa_kernel_dispatch_packet_t`.
        packet: &'static str,
        /// The field, e.g. `reserved2`.
        field: &'static str,
    },
    /// A vendor-specific packet whose `AmdFormat` is not an
    /// `hsa_amd_packet_type_t` this crate knows.
    UnknownVendorFormat(u8),
    /// A barrier-value packet's `cond` is not an `hsa_signal_condition_t`.
    InvalidSignalCondition(u32),
    /// Bytes decoded as one packet type carry another type in their header.
    UnexpectedPacketType {
        /// The type the caller asked for.
        expected: crate::PacketType,
        /// The raw type byte found.
        found: u8,
    },
}

impl PacketError {
    /// The HSA status a packet processor reports for this error:
    /// always `HSA_STATUS_ERROR_INVALID_PACKET_FORMAT`.
    pub const fn hsa_status(&self) -> u32 {
        HSA_STATUS_ERROR_INVALID_PACKET_FORMAT
    }
}

impl fmt::Display for PacketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownPacketType(t) => {
                write!(f, "header: packet type {t} is not an hsa_packet_type_t")
            }
            Self::InvalidFenceScope { which, raw } => {
                let w = match which {
                    FenceKind::Acquire => "acquire",
                    FenceKind::Release => "release",
                };
                write!(
                    f,
                    "header: {w} fence scope {raw} is not an hsa_fence_scope_t"
                )
            }
            Self::ReservedHeaderBits(b) => write!(f, "header: reserved bits {b:#06x} are set"),
            Self::ReservedSetupBits(b) => write!(f, "setup: reserved bits {b:#06x} are set"),
            Self::InvalidDimensions(d) => write!(f, "setup: dimensions is {d}, must be 1, 2 or 3"),
            Self::ZeroWorkgroupSize(a) => write!(f, "workgroup_size_{} is 0", a.name()),
            Self::ZeroGridSize(a) => write!(f, "grid_size_{} is 0", a.name()),
            Self::UnusedWorkgroupDimension { axis, size } => write!(
                f,
                "workgroup_size_{} is {size} but the dimension is unused (must be 1)",
                axis.name()
            ),
            Self::UnusedGridDimension { axis, size } => write!(
                f,
                "grid_size_{} is {size} but the dimension is unused (must be 1)",
                axis.name()
            ),
            Self::GridSmallerThanWorkgroup {
                axis,
                grid,
                workgroup,
            } => write!(
                f,
                "grid_size_{0} ({grid}) is smaller than workgroup_size_{0} ({workgroup})",
                axis.name()
            ),
            Self::ReservedField { packet, field } => {
                write!(f, "{packet}.{field} is reserved and not 0")
            }
            Self::UnknownVendorFormat(v) => {
                write!(
                    f,
                    "vendor packet: AmdFormat {v} is not an hsa_amd_packet_type_t"
                )
            }
            Self::InvalidSignalCondition(c) => {
                write!(
                    f,
                    "barrier-value packet: cond {c} is not an hsa_signal_condition_t"
                )
            }
            Self::UnexpectedPacketType { expected, found } => {
                write!(f, "header: packet type {found}, expected {expected:?}")
            }
        }
    }
}

impl core::error::Error for PacketError {}

/// An error of a queue-ring operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum QueueError {
    /// The ring's slot count is not a non-zero power of two (HSA requires it).
    SizeNotPowerOfTwo(usize),
    /// The ring is larger than `u32::MAX` packets, which `hsa_queue_t::size` cannot hold.
    SizeTooLarge(usize),
    /// The slots given do not match `hsa_queue_t::size`.
    SizeMismatch {
        /// Slots given.
        slots: usize,
        /// The queue's `size`.
        queue_size: u32,
    },
    /// A reservation of zero packets.
    ZeroReservation,
    /// The ring's write and read indices are not consistent (the read index
    /// is ahead of the write index, or behind it by more than the size):
    /// the shared memory is corrupt.
    CorruptIndices {
        /// The write index seen.
        write_index: u64,
        /// The read index seen.
        read_index: u64,
    },
    /// A reservation larger than the whole ring could never be satisfied.
    ReservationTooLarge {
        /// Packets asked for.
        count: u64,
        /// Ring size in packets.
        size: u64,
    },
    /// Not enough free slots right now (compare-and-swap style reservation).
    Full {
        /// Packets asked for.
        count: u64,
        /// Free slots seen.
        free: u64,
    },
    /// Every packet of the reservation is already published.
    ReservationExhausted {
        /// Packets in the reservation.
        count: u64,
    },
    /// A packet whose header type is `HSA_PACKET_TYPE_INVALID` would never be
    /// consumed: the packet processor waits for the header to leave INVALID.
    PublishInvalid,
}

impl QueueError {
    /// The HSA status closest to this error.
    pub const fn hsa_status(&self) -> u32 {
        match self {
            Self::Full { .. } => HSA_STATUS_ERROR_OUT_OF_RESOURCES,
            _ => HSA_STATUS_ERROR_INVALID_ARGUMENT,
        }
    }
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::SizeNotPowerOfTwo(n) => {
                write!(f, "queue size {n} is not a non-zero power of two")
            }
            Self::SizeTooLarge(n) => {
                write!(f, "queue size {n} does not fit hsa_queue_t.size (u32)")
            }
            Self::SizeMismatch { slots, queue_size } => {
                write!(f, "{slots} slots given for a queue of size {queue_size}")
            }
            Self::ZeroReservation => f.write_str("reservation of 0 packets"),
            Self::CorruptIndices {
                write_index,
                read_index,
            } => write!(
                f,
                "corrupt queue indices: write index {write_index}, read index {read_index}"
            ),
            Self::ReservationTooLarge { count, size } => {
                write!(
                    f,
                    "reservation of {count} packets exceeds the queue size {size}"
                )
            }
            Self::Full { count, free } => {
                write!(f, "queue full: {count} packets asked, {free} free")
            }
            Self::ReservationExhausted { count } => {
                write!(
                    f,
                    "all {count} packets of the reservation are already published"
                )
            }
            Self::PublishInvalid => {
                f.write_str("cannot publish a packet whose header type is HSA_PACKET_TYPE_INVALID")
            }
        }
    }
}

impl core::error::Error for QueueError {}

/// A [`Completion`](crate::queue::Completion) token given back to a packet
/// processor that did not hand it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CompletionError {
    /// The token belongs to another packet processor (of another ring, or
    /// an earlier processor of the same ring). Nothing was completed: the
    /// in-flight count that barrier packets wait on is unchanged.
    ForeignToken {
        /// The packet the token completes.
        packet_id: u64,
        /// [`PacketProcessor::processor_id`](crate::queue::PacketProcessor::processor_id)
        /// of the processor that handed the token out.
        token_processor: u64,
        /// The id of the processor it was given to.
        processor: u64,
    },
}

impl fmt::Display for CompletionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::ForeignToken {
                packet_id,
                token_processor,
                processor,
            } => write!(
                f,
                "completion of packet {packet_id}: the token was handed out by another packet \
                 processor (#{token_processor}), not by this one (#{processor})"
            ),
        }
    }
}

impl core::error::Error for CompletionError {}
