//! A dispatch's initial state, as the CP/ADC/SPI set it up: AMDGPUUsage,
//! "Initial Kernel Execution State" (SGPR set-up order, packed work-item
//! IDs on gfx90a), "Flat Scratch" (gfx90a: absolute flat scratch) and
//! "Preloaded Kernel Arguments", from the kernel descriptor as
//! `loader-core` decodes it.

use std::sync::atomic::Ordering;

use isa::Processor;
use loader_core::kernel_descriptor::{
    DecodedKernelDescriptor, GpuFamily, KernelDescriptor, WorkitemIdVgprs,
};

use super::program::{Resolve, SCALAR_FILE};
use super::shape::Affine;
use super::wave::{LANES, Wave};
use crate::dispatch::{Dispatch, ShaderFault};
use crate::memory::{DeviceMemory, GpuMemory};

/// The shared (LDS) aperture, as `AMDKFD_IOC_GET_PROCESS_APERTURES_NEW`
/// reports it for GFX9 (kfd `MAKE_LDS_APP_BASE_V9`).
pub(crate) const SHARED_BASE: u64 = crate::device::LDS_BASE_V9;
/// The private (scratch) aperture (kfd `MAKE_SCRATCH_APP_BASE_V9`).
pub(crate) const PRIVATE_BASE: u64 = crate::device::SCRATCH_BASE_V9;

/// What the CP computed once for all waves of a dispatch.
#[derive(Debug)]
pub(crate) struct Launch {
    /// Address of the first instruction.
    pub entry: u64,
    /// The descriptor.
    pub kd: DecodedKernelDescriptor,
    /// User SGPRs, in set-up order (preloaded kernargs included).
    pub user_sgprs: Vec<u32>,
    /// Every wave's scalar file before its own values: the user SGPRs,
    /// the rest zero.
    pub scalar_init: [u32; SCALAR_FILE],
    /// Work-group id X/Y/Z SGPRs enabled.
    pub workgroup_id: [bool; 3],
    /// Work-group info SGPR enabled.
    pub workgroup_info: bool,
    /// Scratch wavefront offset SGPR enabled.
    pub scratch_wave_offset: bool,
    /// Architected flat scratch (gfx940-gfx942, AMDGPUUsage's processor
    /// table): the SPI sets each wave's FLAT_SCRATCH to this base of the
    /// queue's scratch backing memory plus the wave's scratch offset (there
    /// is no flat scratch init SGPR to add it from).
    pub architected_scratch_base: Option<u64>,
    /// Work-item id dimensions loaded (1-3).
    pub workitem_dims: u8,
    /// Work-item ids packed into v0 (gfx90a, gfx94x).
    pub packed_workitem_ids: bool,
    /// VGPRs of a wave (AGPRs included).
    pub vgprs: usize,
    /// The initial MODE register.
    pub mode: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: usize,
    /// Work-group size.
    pub workgroup_size: [u32; 3],
    /// Grid size.
    pub grid_size: [u32; 3],
    /// Work-groups per dimension.
    pub groups: [u32; 3],
    /// Bytes of scratch per wave (0: the kernel has none).
    pub scratch_wave_bytes: u64,
    /// Scratch wave slots: `COMPUTE_TMPRING_SIZE.WAVES`, at most what the
    /// backing memory holds.
    pub scratch_slots: u64,
    /// The CUs the queue's CU mask enables.
    pub compute_units: Vec<crate::cu::ComputeUnit>,
    /// Operand constants for the decoder.
    pub resolve: Resolve,
    /// The queue id (HW_ID).
    pub queue_id: u32,
    /// The GPU's trap handler, if installed.
    pub trap: Option<crate::dispatch::TrapHandler>,
    /// The queue's doorbell id (`MSG_GET_DOORBELL`).
    pub doorbell_id: u32,
    /// The trap temporaries the SPI sets up, when the process asked for
    /// them ([`Dispatch::ttmp_setup`]).
    pub ttmp: Option<TtmpSetup>,
    /// Every wave of a work-group starts with the same scalar file: no
    /// trap temporaries, no work-group info (its first-wave bit), and no
    /// scratch offset or flat scratch base of its own (`super::lockstep`).
    pub same_scalars: bool,
}

/// The SPI's trap temporary set-up for the waves of a dispatch
/// ([`Dispatch::ttmp_setup`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TtmpSetup {
    /// The dispatch packet's index in its queue (25 bits).
    pub dispatch_packet_index: u32,
    /// gfx94x's layout (the index in `ttmp11[30:6]`), else gfx9's (in
    /// `ttmp6[24:0]`).
    pub gfx94x: bool,
}

impl TtmpSetup {
    /// The trap temporaries of wave `k` of work-group `id`: (register,
    /// value) pairs, `ttmp8..ttmp10` the work-group id and the wave's
    /// position in the group in `ttmp11[5:0]` (ROCdbgapi `architecture.cpp`
    /// `group_ids`/`position_in_group`; ROCr `trap_handler.s`'s ABI
    /// comment for gfx9 and gfx940-942).
    pub fn registers(self, id: [u32; 3], k: u32) -> [(u8, u32); 5] {
        let index = self.dispatch_packet_index & 0x1ff_ffff;
        let wave = k & 0x3f;
        let (ttmp6, ttmp11) = if self.gfx94x {
            (0, (index << 6) | wave)
        } else {
            (index, wave)
        };
        [
            (6, ttmp6),
            (8, id[0]),
            (9, id[1]),
            (10, id[2]),
            (11, ttmp11),
        ]
    }
}

fn family(p: Processor) -> GpuFamily {
    match p {
        Processor::Gfx90a => GpuFamily::Gfx90a,
        Processor::Gfx942 => GpuFamily::Gfx94x,
        _ => GpuFamily::Gfx9,
    }
}

fn abort(what: impl std::fmt::Display) -> ShaderFault {
    ShaderFault::Abort(what.to_string())
}

impl Launch {
    /// A launch of nothing in particular (a zero gfx90a descriptor, one
    /// work-item, 16 VGPRs): the context unit tests run single
    /// instructions in.
    #[cfg(test)]
    pub(crate) fn for_tests() -> Launch {
        let kd = KernelDescriptor::parse(&[0u8; 64])
            .and_then(|k| k.decode(GpuFamily::Gfx90a))
            .expect("a zero descriptor decodes");
        Launch {
            entry: 0,
            kd,
            user_sgprs: Vec::new(),
            scalar_init: [0; SCALAR_FILE],
            workgroup_id: [false; 3],
            workgroup_info: false,
            scratch_wave_offset: false,
            architected_scratch_base: None,
            workitem_dims: 1,
            packed_workitem_ids: true,
            vgprs: 16,
            mode: 0,
            lds_bytes: 0,
            workgroup_size: [1; 3],
            grid_size: [1; 3],
            groups: [1; 3],
            scratch_wave_bytes: 0,
            scratch_slots: 0,
            compute_units: Vec::new(),
            resolve: Resolve {
                accum_offset: 16,
                shared_base: SHARED_BASE,
                private_base: PRIVATE_BASE,
            },
            queue_id: 0,
            trap: None,
            doorbell_id: 0,
            ttmp: None,
            same_scalars: true,
        }
    }

    /// The dispatch's state, from its packet, descriptor and queue.
    pub fn new(d: &Dispatch<'_>, processor: Processor) -> Result<Self, ShaderFault> {
        let family = family(processor);
        let kd = KernelDescriptor::parse(&d.kernel_descriptor)
            .and_then(|k| k.decode(family))
            .map_err(|e| abort(format_args!("kernel descriptor: {e}")))?;
        if kd.wavefront_size != 64 {
            return Err(abort("wave32 kernels do not run on GFX9"));
        }
        let mut entry = d
            .kernel_object
            .checked_add_signed(kd.raw.kernel_code_entry_byte_offset)
            .ok_or_else(|| abort("kernel entry offset overflows"))?;
        let p = kd.properties;
        let mut user: Vec<u32> = Vec::with_capacity(16);
        let pair = |u: &mut Vec<u32>, v: u64| {
            u.push(v as u32);
            u.push((v >> 32) as u32);
        };
        if p.private_segment_buffer {
            user.extend_from_slice(&d.scratch.resource_descriptor);
        }
        if p.dispatch_ptr {
            pair(&mut user, d.packet_address);
        }
        if p.queue_ptr {
            pair(&mut user, d.queue_address);
        }
        if p.kernarg_segment_ptr {
            pair(&mut user, d.kernarg_address);
        }
        if p.dispatch_id {
            pair(&mut user, d.packet_id);
        }
        if p.flat_scratch_init {
            // Absolute flat scratch (GFX9): the 64-bit base of the queue's
            // scratch backing memory; the prolog adds the wave offset.
            pair(&mut user, d.scratch.backing_memory_location);
        }
        let preload = kd.kernarg_preload;
        if preload.length > 0 {
            for i in 0..u64::from(preload.length) {
                let at = d.kernarg_address + (u64::from(preload.offset) + i) * 4;
                user.push(
                    d.memory
                        .load_u32(at, Ordering::Relaxed)
                        .map_err(ShaderFault::Memory)?,
                );
            }
            // The CP skips the 256-byte compatibility prologue.
            entry += 256;
        }
        let private_size = d.private_segment_size.next_multiple_of(4);
        if p.private_segment_size {
            user.push(private_size);
        }
        // Only the first 16 user SGPRs are initialised; the rest is the
        // descriptor's user SGPR count (checked >= required by decode).
        user.truncate(16);
        user.resize(usize::from(kd.rsrc2.user_sgpr_count).min(16), 0);

        let r1 = kd.rsrc1;
        let mode = (r1.float_round_mode_32 as u32)
            | ((r1.float_round_mode_16_64 as u32) << 2)
            | ((r1.float_denorm_mode_32 as u32) << 4)
            | ((r1.float_denorm_mode_16_64 as u32) << 6)
            | (u32::from(r1.dx10_clamp.unwrap_or(false)) << 8)
            | (u32::from(r1.ieee_mode.unwrap_or(false)) << 9)
            | (u32::from(r1.fp16_overflow.unwrap_or(false)) << 23);

        let wg = d.workgroup_size.map(|v| v.max(1));
        let grid = d.grid_size;
        let groups = [0, 1, 2].map(|i| grid[i].div_ceil(wg[i]));

        // Scratch: each wave slot gets WAVESIZE KiB (COMPUTE_TMPRING_SIZE
        // [24:12]) of the queue's backing memory, else 64 lanes' worth.
        let tmpring = d.scratch.compute_tmpring_size;
        let lane = u64::from(d.scratch.wave64_lane_byte_size.max(private_size));
        let wave_bytes = match (tmpring >> 12) & 0x1fff {
            0 => lane * LANES as u64,
            kib => u64::from(kib) * 1024,
        };
        let uses_scratch = d.private_segment_size > 0 || kd.raw.private_segment_fixed_size > 0;
        // The wave slots: COMPUTE_TMPRING_SIZE.WAVES [11:0], never more
        // than the backing memory holds.
        let (scratch_wave_bytes, scratch_slots) = if uses_scratch && wave_bytes > 0 {
            (
                wave_bytes,
                (d.scratch.backing_memory_byte_size / wave_bytes.max(1))
                    .min(u64::from(tmpring & 0xfff)),
            )
        } else {
            (0, 0)
        };

        let accum_offset = kd.rsrc3.accum_offset().unwrap_or(0);
        let dims = match kd.rsrc2.workitem_id {
            WorkitemIdVgprs::X => 1,
            WorkitemIdVgprs::XY => 2,
            WorkitemIdVgprs::XYZ => 3,
        };
        let ttmp = d.ttmp_setup.then_some(TtmpSetup {
            dispatch_packet_index: d.dispatch_packet_index,
            gfx94x: family == GpuFamily::Gfx94x,
        });
        let architected_scratch_base =
            (family == GpuFamily::Gfx94x).then_some(d.scratch.backing_memory_location);
        let same_scalars = ttmp.is_none()
            && !kd.rsrc2.workgroup_info
            && (scratch_wave_bytes == 0
                || (!kd.rsrc2.enable_private_segment && architected_scratch_base.is_none()));
        Ok(Self {
            entry,
            same_scalars,
            trap: d.trap_handler,
            doorbell_id: d.doorbell_id,
            ttmp,
            scalar_init: {
                let mut s = [0; SCALAR_FILE];
                // At most 16 user SGPRs (truncated above).
                s[..user.len()].copy_from_slice(&user);
                s
            },
            user_sgprs: user,
            workgroup_id: [
                kd.rsrc2.workgroup_id_x,
                kd.rsrc2.workgroup_id_y,
                kd.rsrc2.workgroup_id_z,
            ],
            workgroup_info: kd.rsrc2.workgroup_info,
            scratch_wave_offset: kd.rsrc2.enable_private_segment,
            architected_scratch_base,
            workitem_dims: dims,
            packed_workitem_ids: family.has_gfx90a_insts(),
            vgprs: usize::from(kd.next_free_vgpr).max(1),
            mode,
            lds_bytes: d.group_segment_size as usize,
            workgroup_size: wg,
            grid_size: grid,
            groups,
            scratch_wave_bytes,
            scratch_slots,
            resolve: Resolve {
                accum_offset,
                shared_base: SHARED_BASE,
                private_base: PRIVATE_BASE,
            },
            queue_id: d.queue_id,
            compute_units: d.compute_units.clone(),
            kd,
        })
    }

    /// Total work-groups.
    pub fn group_count(&self) -> u64 {
        self.groups.iter().map(|&g| u64::from(g)).product()
    }

    /// The work-group id of linear group `n` (X fastest).
    pub fn group_id(&self, n: u64) -> [u32; 3] {
        let gx = u64::from(self.groups[0]);
        let gy = u64::from(self.groups[1]);
        if n < gx {
            // The first row: no division.
            return [n as u32, 0, 0];
        }
        [
            (n % gx) as u32,
            ((n / gx) % gy) as u32,
            (n / (gx * gy)) as u32,
        ]
    }

    /// The size of work-group `id` (partial at the grid's far edges).
    pub fn group_size(&self, id: [u32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|i| {
            let start = id[i] * self.workgroup_size[i];
            (self.grid_size[i] - start).min(self.workgroup_size[i])
        })
    }

    /// Sets up wave `w` (index `k` of work-group `id`, `waves` in all, of
    /// `size` work-items) for launch in scratch slot `slot`.
    pub fn init_wave(
        &self,
        w: &mut Wave,
        id: [u32; 3],
        size: [u32; 3],
        k: u32,
        waves: u32,
        slot: u64,
    ) -> Result<(), ShaderFault> {
        w.reset_with(self.vgprs, &self.scalar_init);
        w.mode = self.mode;
        w.id_in_group = k;
        if let Some(t) = self.ttmp {
            for (r, v) in t.registers(id, k) {
                w.s[usize::from(super::program::TTMP + r)] = v;
            }
        }
        let mut s = self.user_sgprs.len();
        for (enabled, id) in self.workgroup_id.iter().zip(id) {
            if *enabled {
                w.s[s] = id;
                s += 1;
            }
        }
        if self.workgroup_info {
            w.s[s] = (u32::from(k == 0) << 31) | (waves & 0x3f);
            s += 1;
        }
        // The wave's scratch offset in the queue's backing memory.
        let offset = if self.scratch_wave_bytes > 0 {
            if slot >= self.scratch_slots {
                return Err(abort(format_args!(
                    "scratch backing memory holds {} waves of {} bytes; wave slot {slot} does not fit",
                    self.scratch_slots, self.scratch_wave_bytes
                )));
            }
            slot * self.scratch_wave_bytes
        } else {
            0
        };
        if self.scratch_wave_offset {
            w.s[s] = offset as u32;
        }
        if let Some(base) = self.architected_scratch_base {
            w.set_s64(super::program::FLAT_SCRATCH, base.wrapping_add(offset));
        }
        // Work-item ids, X fastest over the (possibly partial) group.
        let items = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
        let first = u64::from(k) * LANES as u64;
        let sx = u64::from(size[0]).max(1);
        let sy = u64::from(size[1]).max(1);
        // The first lane's id by division (none in the first row: a 64-bit
        // division is tens of cycles), the others by counting on.
        let (mut x, mut y, mut z) = if first < sx {
            (first as u32, 0, 0)
        } else {
            (
                (first % sx) as u32,
                ((first / sx) % sy) as u32,
                (first / (sx * sy)) as u32,
            )
        };
        // Packed ids keep X in 10 bits: the shape `packed + lane` equals
        // the lanes' `(x + lane) | y << 10 | z << 20` while x + 63 < 1024
        // (always, for the work-group sizes of the ISA).
        let fits_packed = !self.packed_workitem_ids || u64::from(x) + LANES as u64 <= 1024;
        if first + LANES as u64 <= items && u64::from(x) + LANES as u64 <= sx && fits_packed {
            // The whole wave lies in one row of X: ids count up from x, as
            // shapes (no lanes written).
            w.set_s64(super::program::EXEC, u64::MAX);
            let y = if self.workitem_dims > 1 { y } else { 0 };
            let z = if self.workitem_dims > 2 { z } else { 0 };
            let tagged = if self.packed_workitem_ids {
                w.tag(
                    0,
                    Affine {
                        base: x | (y << 10) | (z << 20),
                        stride: 1,
                    },
                )
            } else {
                let ids = [
                    Affine { base: x, stride: 1 },
                    Affine::uniform(y),
                    Affine::uniform(z),
                ];
                ids.iter()
                    .take(usize::from(self.workitem_dims))
                    .enumerate()
                    .all(|(d, &a)| w.tag(d as u16, a))
            };
            if !tagged {
                return Err(abort("no VGPR for the work-item ids"));
            }
            return Ok(());
        }
        let mut exec = 0u64;
        let mut ids = [[0u32; LANES]; 3];
        for l in 0..LANES {
            let n = first + l as u64;
            if n >= items {
                break;
            }
            exec |= 1 << l;
            ids[0][l] = x;
            ids[1][l] = y;
            ids[2][l] = z;
            x += 1;
            if u64::from(x) == sx {
                x = 0;
                y += 1;
                if u64::from(y) == sy {
                    y = 0;
                    z += 1;
                }
            }
        }
        w.set_s64(super::program::EXEC, exec);
        // Every lane of the id VGPRs is written (inactive ones 0).
        if self.packed_workitem_ids {
            w.untag(0);
            let v0 = w
                .vreg_mut(0)
                .map_err(|_| abort("no VGPR for the work-item ids"))?;
            for l in 0..LANES {
                let y = if self.workitem_dims > 1 { ids[1][l] } else { 0 };
                let z = if self.workitem_dims > 2 { ids[2][l] } else { 0 };
                v0[l] = ids[0][l] | (y << 10) | (z << 20);
            }
        } else {
            for (d, lanes) in ids.iter().enumerate().take(usize::from(self.workitem_dims)) {
                w.untag(d);
                let r = w
                    .vreg_mut(d as u16)
                    .map_err(|_| abort("no VGPR for the work-item ids"))?;
                *r = *lanes;
            }
        }
        Ok(())
    }
}

/// The kernel's symbol name, found in the code object's image in GPU
/// memory (the loader places the ELF header, program headers and dynamic
/// symbols at the start of the first `PT_LOAD` segment); else the kernel
/// object's address. Only used to word a fault.
pub(crate) fn kernel_name(memory: &GpuMemory, kernel_object: u64) -> String {
    elf_symbol(memory, kernel_object)
        .map(|n| n.strip_suffix(".kd").map(str::to_string).unwrap_or(n))
        .unwrap_or_else(|| format!("at kernel object {kernel_object:#x}"))
}

fn elf_symbol(memory: &GpuMemory, kernel_object: u64) -> Option<String> {
    let u64_at = |va: u64| -> Option<u64> {
        let mut b = [0u8; 8];
        memory.read_bytes(va, &mut b).ok()?;
        Some(u64::from_le_bytes(b))
    };
    let u32_at = |va: u64| u64_at(va).map(|v| v as u32);
    // The image base: the closest page at or below the descriptor with the
    // ELF magic, within 64 MiB.
    let mut base = kernel_object & !0xfff;
    let mut tries = 0;
    loop {
        let magic = u32_at(base)?;
        if magic == 0x464c_457f {
            break;
        }
        tries += 1;
        if tries > 16384 || base < 0x1000 {
            return None;
        }
        base -= 0x1000;
    }
    let phoff = u64_at(base + 0x20)?;
    let phnum = u64::from(u32_at(base + 0x38)? & 0xffff);
    let phentsize = u64::from(u32_at(base + 0x36)? & 0xffff);
    let dynamic = (0..phnum.min(64)).find_map(|i| {
        let ph = base + phoff + i * phentsize;
        (u32_at(ph)? == 2).then(|| u64_at(ph + 16)).flatten()
    })?;
    let (mut symtab, mut strtab, mut strsz) = (0, 0, 0);
    for i in 0..256 {
        let tag = u64_at(base + dynamic + i * 16)?;
        let val = u64_at(base + dynamic + i * 16 + 8)?;
        match tag {
            0 => break,
            5 => strtab = val,
            6 => symtab = val,
            10 => strsz = val,
            _ => {}
        }
    }
    if symtab == 0 || strtab <= symtab {
        return None;
    }
    let count = ((strtab - symtab) / 24).min(65536);
    let target = kernel_object.checked_sub(base)?;
    for i in 0..count {
        let sym = base + symtab + i * 24;
        if u64_at(sym + 8)? != target {
            continue;
        }
        let name = u64::from(u32_at(sym)?);
        if name >= strsz {
            continue;
        }
        let mut bytes = Vec::new();
        for j in 0..(strsz - name).min(1024) {
            let mut b = [0u8];
            memory.read_bytes(base + strtab + name + j, &mut b).ok()?;
            if b[0] == 0 {
                break;
            }
            bytes.push(b[0]);
        }
        return String::from_utf8(bytes).ok();
    }
    None
}
