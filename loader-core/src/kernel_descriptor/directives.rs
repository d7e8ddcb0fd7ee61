//! The `.amdhsa_*` assembler directives a decoded descriptor corresponds to,
//! named and ordered exactly as LLVM's disassembler prints them
//! (`llvm-objdump --disassemble-symbols=<kernel>.kd`, LLVM 19
//! `AMDGPUDisassembler::decodeKernelDescriptor`).

use super::{DecodedKernelDescriptor, Rsrc3};

/// One line of the disassembled descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Directive {
    /// `.amdhsa_next_free_vgpr`, or for a comment line the upper-case field
    /// name (`SHARED_VGPR_COUNT`, `INST_PREF_SIZE`, ...).
    pub name: &'static str,
    /// The value printed after the name.
    pub value: u64,
    /// LLVM prints the line as an assembler comment (`; NAME value`): the
    /// field has no directive on this target.
    pub comment: bool,
}

const EMPTY: Directive = Directive {
    name: "",
    value: 0,
    comment: false,
};
const CAPACITY: usize = 56;

/// The directives of one descriptor, in LLVM's order, without allocating.
#[derive(Clone, Debug)]
pub struct Directives {
    items: [Directive; CAPACITY],
    len: usize,
    next: usize,
}

impl Directives {
    fn push(&mut self, name: &'static str, value: impl Into<u64>) {
        self.push_line(name, value.into(), false);
    }

    fn comment(&mut self, name: &'static str, value: impl Into<u64>) {
        self.push_line(name, value.into(), true);
    }

    fn push_line(&mut self, name: &'static str, value: u64, comment: bool) {
        // CAPACITY exceeds the longest sequence LLVM prints (49 lines).
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = Directive {
                name,
                value,
                comment,
            };
            self.len += 1;
        }
    }

    /// The value of the directive `name` (with its leading dot), if printed.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.items[..self.len]
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.value)
    }

    /// All lines, in order.
    pub fn as_slice(&self) -> &[Directive] {
        &self.items[..self.len]
    }
}

impl Iterator for Directives {
    type Item = Directive;

    fn next(&mut self) -> Option<Directive> {
        let d = self.items[..self.len].get(self.next).copied()?;
        self.next += 1;
        Some(d)
    }
}

impl DecodedKernelDescriptor {
    /// The `.amdhsa_*` directives of this descriptor, in the order and with
    /// the names `llvm-objdump` prints them. `code_object_version` (from the
    /// ELF ABI version, 4, 5, 6, ...) decides whether
    /// `.amdhsa_uses_dynamic_stack` appears (v5+).
    ///
    /// Like LLVM, `.amdhsa_reserve_vcc`, `.amdhsa_reserve_flat_scratch` and
    /// `.amdhsa_reserve_xnack_mask` are 0: the encoding only keeps their sum
    /// with `.amdhsa_next_free_sgpr`.
    pub fn directives(&self, code_object_version: u8) -> Directives {
        let mut d = Directives {
            items: [EMPTY; CAPACITY],
            len: 0,
            next: 0,
        };
        let fam = self.family;
        let raw = &self.raw;
        let p = &self.properties;
        let r1 = &self.rsrc1;
        let r2 = &self.rsrc2;

        d.push(
            ".amdhsa_group_segment_fixed_size",
            raw.group_segment_fixed_size,
        );
        d.push(
            ".amdhsa_private_segment_fixed_size",
            raw.private_segment_fixed_size,
        );
        d.push(".amdhsa_kernarg_size", raw.kernarg_size);

        match self.rsrc3 {
            Rsrc3::Absent => {}
            Rsrc3::Gfx90a {
                accum_offset,
                tg_split,
            } => {
                d.push(".amdhsa_accum_offset", (u64::from(accum_offset) + 1) * 4);
                d.push(".amdhsa_tg_split", tg_split);
            }
            Rsrc3::Gfx10 { shared_vgpr_count } => {
                shared_vgprs(&mut d, p.wavefront_size32, shared_vgpr_count)
            }
            Rsrc3::Gfx11 {
                shared_vgpr_count,
                inst_pref_size,
                trap_on_start,
                trap_on_end,
                image_op,
            } => {
                shared_vgprs(&mut d, p.wavefront_size32, shared_vgpr_count);
                d.comment("INST_PREF_SIZE", inst_pref_size);
                d.comment("TRAP_ON_START", trap_on_start);
                d.comment("TRAP_ON_END", trap_on_end);
                d.comment("IMAGE_OP", image_op);
            }
            Rsrc3::Gfx12 {
                inst_pref_size,
                glg_en,
                image_op,
            } => {
                d.comment("INST_PREF_SIZE", inst_pref_size);
                d.comment("GLG_EN", glg_en);
                d.comment("IMAGE_OP", image_op);
            }
        }

        d.push(".amdhsa_next_free_vgpr", self.next_free_vgpr);
        d.push(".amdhsa_reserve_vcc", 0u8);
        if !fam.has_architected_flat_scratch() {
            d.push(".amdhsa_reserve_flat_scratch", 0u8);
        }
        d.push(".amdhsa_reserve_xnack_mask", 0u8);
        d.push(".amdhsa_next_free_sgpr", self.next_free_sgpr);
        d.push(".amdhsa_float_round_mode_32", r1.float_round_mode_32 as u8);
        d.push(
            ".amdhsa_float_round_mode_16_64",
            r1.float_round_mode_16_64 as u8,
        );
        d.push(
            ".amdhsa_float_denorm_mode_32",
            r1.float_denorm_mode_32 as u8,
        );
        d.push(
            ".amdhsa_float_denorm_mode_16_64",
            r1.float_denorm_mode_16_64 as u8,
        );
        if let Some(v) = r1.dx10_clamp {
            d.push(".amdhsa_dx10_clamp", v);
        }
        if let Some(v) = r1.ieee_mode {
            d.push(".amdhsa_ieee_mode", v);
        }
        if let Some(v) = r1.fp16_overflow {
            d.push(".amdhsa_fp16_overflow", v);
        }
        if let (Some(wgp), Some(mem), Some(fwd)) = (
            r1.workgroup_processor_mode,
            r1.memory_ordered,
            r1.forward_progress,
        ) {
            d.push(".amdhsa_workgroup_processor_mode", wgp);
            d.push(".amdhsa_memory_ordered", mem);
            d.push(".amdhsa_forward_progress", fwd);
        }
        if let Some(v) = r1.round_robin_scheduling {
            d.push(".amdhsa_round_robin_scheduling", v);
        }

        if fam.has_architected_flat_scratch() {
            d.push(".amdhsa_enable_private_segment", r2.enable_private_segment);
        } else {
            d.push(
                ".amdhsa_system_sgpr_private_segment_wavefront_offset",
                r2.enable_private_segment,
            );
        }
        d.push(".amdhsa_system_sgpr_workgroup_id_x", r2.workgroup_id_x);
        d.push(".amdhsa_system_sgpr_workgroup_id_y", r2.workgroup_id_y);
        d.push(".amdhsa_system_sgpr_workgroup_id_z", r2.workgroup_id_z);
        d.push(".amdhsa_system_sgpr_workgroup_info", r2.workgroup_info);
        d.push(".amdhsa_system_vgpr_workitem_id", r2.workitem_id as u8);
        d.push(
            ".amdhsa_exception_fp_ieee_invalid_op",
            r2.exception_fp_ieee_invalid_op,
        );
        d.push(
            ".amdhsa_exception_fp_denorm_src",
            r2.exception_fp_denorm_src,
        );
        d.push(
            ".amdhsa_exception_fp_ieee_div_zero",
            r2.exception_fp_ieee_div_zero,
        );
        d.push(
            ".amdhsa_exception_fp_ieee_overflow",
            r2.exception_fp_ieee_overflow,
        );
        d.push(
            ".amdhsa_exception_fp_ieee_underflow",
            r2.exception_fp_ieee_underflow,
        );
        d.push(
            ".amdhsa_exception_fp_ieee_inexact",
            r2.exception_fp_ieee_inexact,
        );
        d.push(".amdhsa_exception_int_div_zero", r2.exception_int_div_zero);

        if !fam.has_architected_flat_scratch() {
            d.push(
                ".amdhsa_user_sgpr_private_segment_buffer",
                p.private_segment_buffer,
            );
        }
        d.push(".amdhsa_user_sgpr_dispatch_ptr", p.dispatch_ptr);
        d.push(".amdhsa_user_sgpr_queue_ptr", p.queue_ptr);
        d.push(
            ".amdhsa_user_sgpr_kernarg_segment_ptr",
            p.kernarg_segment_ptr,
        );
        d.push(".amdhsa_user_sgpr_dispatch_id", p.dispatch_id);
        if !fam.has_architected_flat_scratch() {
            d.push(".amdhsa_user_sgpr_flat_scratch_init", p.flat_scratch_init);
        }
        d.push(
            ".amdhsa_user_sgpr_private_segment_size",
            p.private_segment_size,
        );
        if fam.is_gfx10_plus() {
            d.push(".amdhsa_wavefront_size32", p.wavefront_size32);
        }
        if code_object_version >= 5 {
            d.push(".amdhsa_uses_dynamic_stack", p.uses_dynamic_stack);
        }
        if self.kernarg_preload.length != 0 {
            d.push(
                ".amdhsa_user_sgpr_kernarg_preload_length",
                self.kernarg_preload.length,
            );
        }
        if self.kernarg_preload.offset != 0 {
            d.push(
                ".amdhsa_user_sgpr_kernarg_preload_offset",
                self.kernarg_preload.offset,
            );
        }
        d
    }
}

fn shared_vgprs(d: &mut Directives, wave32: bool, count: u8) {
    if wave32 {
        d.comment("SHARED_VGPR_COUNT", count);
    } else {
        d.push(".amdhsa_shared_vgpr_count", count);
    }
}
