//! PSCI (Arm DEN 0022, "Power State Coordination Interface") `CPU_ON`.
//!
//! QEMU `virt` without `-bios` implements PSCI itself. Its device tree
//! (`-M virt,dumpdtb=virt.dtb`) says `method = "hvc"` for the default
//! machine, where the kernel starts at EL1, and `method = "smc"` with
//! `virtualization=on`, where it starts at EL2 (an HVC from EL2 would trap
//! to itself): so the conduit follows the exception level we booted at.
#![allow(unsafe_code)]

/// `CPU_ON`, SMC64 calling convention.
const CPU_ON: u64 = 0xc400_0003;

/// How PSCI calls reach the firmware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conduit {
    /// `HVC #0`.
    Hvc,
    /// `SMC #0`.
    Smc,
}

impl Conduit {
    /// The conduit QEMU `virt` uses for a kernel started at `booted_el`.
    pub fn for_boot_el(booted_el: u64) -> Self {
        if booted_el >= 2 { Self::Smc } else { Self::Hvc }
    }

    /// Its instruction's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hvc => "HVC",
            Self::Smc => "SMC",
        }
    }
}

/// A PSCI return code that is not `SUCCESS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PsciError(pub i64);

impl PsciError {
    /// The PSCI name of the code.
    pub fn name(self) -> &'static str {
        match self.0 {
            -1 => "NOT_SUPPORTED",
            -2 => "INVALID_PARAMETERS",
            -3 => "DENIED",
            -4 => "ALREADY_ON",
            -5 => "ON_PENDING",
            -6 => "INTERNAL_FAILURE",
            -7 => "NOT_PRESENT",
            -8 => "DISABLED",
            -9 => "INVALID_ADDRESS",
            _ => "unknown PSCI error",
        }
    }
}

/// Starts the core `target_mpidr` at the physical address `entry`, at our
/// exception level, with `x0 = context_id`.
pub fn cpu_on(
    conduit: Conduit,
    target_mpidr: u64,
    entry: u64,
    context_id: u64,
) -> Result<(), PsciError> {
    let ret: u64;
    match conduit {
        // SAFETY: PSCI CPU_ON changes no memory of ours; the started core
        // runs `entry`, which (`boot.rs`) sets up its own stack and MMU and
        // never returns. Registers follow SMCCC: x0-x17 may be clobbered.
        Conduit::Hvc => unsafe {
            core::arch::asm!(
                "hvc #0",
                inout("x0") CPU_ON => ret,
                inout("x1") target_mpidr => _,
                inout("x2") entry => _,
                inout("x3") context_id => _,
                clobber_abi("C"),
                options(nostack),
            )
        },
        // SAFETY: as above.
        Conduit::Smc => unsafe {
            core::arch::asm!(
                "smc #0",
                inout("x0") CPU_ON => ret,
                inout("x1") target_mpidr => _,
                inout("x2") entry => _,
                inout("x3") context_id => _,
                clobber_abi("C"),
                options(nostack),
            )
        },
    }
    match ret as i64 {
        0 => Ok(()),
        e => Err(PsciError(e)),
    }
}
