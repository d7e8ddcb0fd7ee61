//! The render node's DRM ioctls: what libdrm_amdgpu's
//! `amdgpu_device_initialize` asks of `/dev/dri/renderD<minor>` (libhsakmt
//! calls it for the marketing name), answered as the amdgpu driver does:
//! `DRM_IOCTL_VERSION` (`drm_version` in `drm_ioctl.c`) and
//! `DRM_IOCTL_AMDGPU_INFO` (`amdgpu_info_ioctl` in `amdgpu_kms.c`). The
//! values come from the GPU's board figures (the same ones the topology
//! reports). Every other DRM request is `ENOTTY`: the sim has no GEM, no
//! command submission.
//!
//! Layouts: `struct drm_version` (`drm.h`), `struct drm_amdgpu_info` and
//! `struct drm_amdgpu_info_device` (`amdgpu_drm.h`); the sizes and offsets
//! are asserted below, and a test compiles them against libdrm's headers.

#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};

use kfd::ioctl::Opcode;
use rustix::io::Errno;

use crate::topology::GpuSpec;

/// `DRM_IOCTL_BASE`.
const DRM_TYPE: u64 = b'd' as u64;
/// `DRM_COMMAND_BASE`: the first driver-specific number.
const DRM_COMMAND_BASE: u64 = 0x40;
/// `DRM_AMDGPU_INFO`.
const DRM_AMDGPU_INFO: u64 = 0x05;

/// The amdgpu driver's `KMS_DRIVER_MAJOR`/`MINOR`/`PATCHLEVEL`
/// (`amdgpu_drv.c`; 3.46 is Linux 5.18's, the era of ROCm 5.2).
const VERSION: (i32, i32, i32) = (3, 46, 0);
/// `DRIVER_NAME`, `DRIVER_DATE`, `DRIVER_DESC` (`amdgpu_drv.h`).
const NAME: &[u8] = b"amdgpu";
const DATE: &[u8] = b"20150101";
const DESC: &[u8] = b"AMD GPU";

/// `AMDGPU_INFO_*` queries answered.
const AMDGPU_INFO_ACCEL_WORKING: u32 = 0x00;
const AMDGPU_INFO_READ_MMR_REG: u32 = 0x15;
const AMDGPU_INFO_DEV_INFO: u32 = 0x16;
/// `AMDGPU_FAMILY_AI` (Vega and the gfx9 Instinct parts).
const AMDGPU_FAMILY_AI: u32 = 141;
/// `AMDGPU_VRAM_TYPE_HBM`.
const AMDGPU_VRAM_TYPE_HBM: u32 = 6;
/// `mmGB_ADDR_CONFIG` (GC 9.x dword offset), in `soc15_allowed_read_registers`.
const MM_GB_ADDR_CONFIG: u32 = 0x263e;
/// `AMDGPU_VA_RESERVED_SIZE` (Linux 5.18: 1 MiB) and the GMC hole
/// (`AMDGPU_GMC_HOLE_START`/`END` of a 48-bit VM).
const AMDGPU_VA_RESERVED_SIZE: u64 = 1 << 20;
const AMDGPU_GMC_HOLE_START: u64 = 0x0000_8000_0000_0000;
const AMDGPU_GMC_HOLE_END: u64 = 0xffff_8000_0000_0000;

/// `struct drm_version`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct DrmVersion {
    version_major: c_int,
    version_minor: c_int,
    version_patchlevel: c_int,
    name_len: usize,
    name: u64,
    date_len: usize,
    date: u64,
    desc_len: usize,
    desc: u64,
}
const _: () = assert!(size_of::<DrmVersion>() == 64);
const _: () = assert!(core::mem::offset_of!(DrmVersion, name_len) == 16);
const _: () = assert!(core::mem::offset_of!(DrmVersion, desc) == 56);

/// `struct drm_amdgpu_info` (the union as its largest member, four words).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct DrmAmdgpuInfo {
    return_pointer: u64,
    return_size: u32,
    query: u32,
    u: [u32; 4],
}
const _: () = assert!(size_of::<DrmAmdgpuInfo>() == 32);

/// `struct drm_amdgpu_info_device` (libdrm 2.4.114's header).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct DrmAmdgpuInfoDevice {
    device_id: u32,
    chip_rev: u32,
    external_rev: u32,
    pci_rev: u32,
    family: u32,
    num_shader_engines: u32,
    num_shader_arrays_per_engine: u32,
    gpu_counter_freq: u32,
    max_engine_clock: u64,
    max_memory_clock: u64,
    cu_active_number: u32,
    cu_ao_mask: u32,
    cu_bitmap: [[u32; 4]; 4],
    enabled_rb_pipes_mask: u32,
    num_rb_pipes: u32,
    num_hw_gfx_contexts: u32,
    _pad: u32,
    ids_flags: u64,
    virtual_address_offset: u64,
    virtual_address_max: u64,
    virtual_address_alignment: u32,
    pte_fragment_size: u32,
    gart_page_size: u32,
    ce_ram_size: u32,
    vram_type: u32,
    vram_bit_width: u32,
    vce_harvest_config: u32,
    gc_double_offchip_lds_buf: u32,
    prim_buf_gpu_addr: u64,
    pos_buf_gpu_addr: u64,
    cntl_sb_buf_gpu_addr: u64,
    param_buf_gpu_addr: u64,
    prim_buf_size: u32,
    pos_buf_size: u32,
    cntl_sb_buf_size: u32,
    param_buf_size: u32,
    wave_front_size: u32,
    num_shader_visible_vgprs: u32,
    num_cu_per_sh: u32,
    num_tcc_blocks: u32,
    gs_vgt_table_depth: u32,
    gs_prim_buffer_depth: u32,
    max_gs_waves_per_vgt: u32,
    _pad1: u32,
    cu_ao_bitmap: [[u32; 4]; 4],
    high_va_offset: u64,
    high_va_max: u64,
    pa_sc_tile_steering_override: u32,
    tcc_disabled_mask: u64,
}
const _: () = assert!(core::mem::offset_of!(DrmAmdgpuInfoDevice, max_engine_clock) == 32);
const _: () = assert!(core::mem::offset_of!(DrmAmdgpuInfoDevice, ids_flags) == 136);
const _: () = assert!(core::mem::offset_of!(DrmAmdgpuInfoDevice, wave_front_size) == 240);
const _: () = assert!(core::mem::offset_of!(DrmAmdgpuInfoDevice, high_va_offset) == 336);
const _: () = assert!(core::mem::offset_of!(DrmAmdgpuInfoDevice, tcc_disabled_mask) == 360);
const _: () = assert!(size_of::<DrmAmdgpuInfoDevice>() == 368);

/// Copies `len` bytes of `src` to the user address `dst` (`copy_to_user`).
///
/// # Safety
///
/// `dst..dst+len` is writable memory of the caller (the ioctl's contract).
unsafe fn copy_out(dst: u64, src: &[u8], len: usize) -> Result<(), Errno> {
    if len == 0 {
        return Ok(());
    }
    if dst == 0 {
        return Err(Errno::FAULT);
    }
    let n = len.min(src.len());
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as usize as *mut u8, n) };
    Ok(())
}

fn bytes_of<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: `T` is one of this module's `repr(C)` structs of integers,
    // fully initialised (Default, then fields), padding included (the
    // explicit `_pad` fields leave none).
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) }
}

/// `drm_ioctl`'s copy: `_IOC_SIZE` bytes of the user's struct into a zeroed
/// kernel struct, the handler, then the same bytes back for `_IOC_READ`.
///
/// # Safety
///
/// `arg` holds `_IOC_SIZE(code)` bytes readable (and writable if the
/// request reads back).
unsafe fn with_arg<T: Copy + Default>(
    code: Opcode,
    arg: *mut c_void,
    f: impl FnOnce(&mut T) -> Result<c_int, Errno>,
) -> Result<c_int, Errno> {
    let code = code as u64;
    let usize_ = ((code >> 16) & 0x3fff) as usize;
    let dir = code >> 30;
    if arg.is_null() && usize_ > 0 {
        return Err(Errno::FAULT);
    }
    let n = usize_.min(size_of::<T>());
    let mut k = T::default();
    if dir & 1 != 0 {
        // SAFETY: the caller's `n` readable bytes into our struct of at
        // least `n` bytes (a struct of integers: any bytes are a value).
        unsafe {
            std::ptr::copy_nonoverlapping(arg.cast::<u8>(), (&mut k as *mut T).cast::<u8>(), n)
        };
    }
    let r = f(&mut k);
    if dir & 2 != 0 {
        // SAFETY: the caller's `n` writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping((&k as *const T).cast::<u8>(), arg.cast::<u8>(), n)
        };
    }
    r
}

/// A render node's DRM ioctl for the GPU `spec`.
///
/// # Safety
///
/// `arg` is the argument of request `code`, valid for the reads and writes
/// that request makes, as are the user addresses inside it.
pub(crate) unsafe fn ioctl(spec: &GpuSpec, code: Opcode, arg: *mut c_void) -> Result<c_int, Errno> {
    let c = code as u64;
    if (c >> 8) & 0xff != DRM_TYPE {
        return Err(Errno::NOTTY);
    }
    match c & 0xff {
        // SAFETY: our caller's contract, for `struct drm_version`.
        0x00 => unsafe { with_arg(code, arg, |v: &mut DrmVersion| version(v)) },
        // SAFETY: as above, for `struct drm_amdgpu_info`.
        n if n == DRM_COMMAND_BASE + DRM_AMDGPU_INFO => unsafe {
            with_arg(code, arg, |a: &mut DrmAmdgpuInfo| info(spec, a))
        },
        _ => Err(Errno::NOTTY),
    }
}

/// `drm_version`: the numbers, then each string through `drm_copy_field`
/// (at most the buffer's length, no NUL; the length set to the string's).
fn version(v: &mut DrmVersion) -> Result<c_int, Errno> {
    (v.version_major, v.version_minor, v.version_patchlevel) = VERSION;
    for (buf, len, value) in [
        (v.name, &mut v.name_len, NAME),
        (v.date, &mut v.date_len, DATE),
        (v.desc, &mut v.desc_len, DESC),
    ] {
        let n = value.len().min(*len);
        *len = value.len();
        if n > 0 && buf != 0 {
            // SAFETY: the client's buffer holds the length it passed (the
            // DRM_IOCTL_VERSION contract), and `n` is at most that.
            unsafe { copy_out(buf, value, n)? };
        }
    }
    Ok(0)
}

/// `amdgpu_info_ioctl`: a zero size or pointer is `EINVAL`; each answer is
/// copied up to `return_size`; an unknown query is `EINVAL`.
fn info(spec: &GpuSpec, a: &mut DrmAmdgpuInfo) -> Result<c_int, Errno> {
    if a.return_size == 0 || a.return_pointer == 0 {
        return Err(Errno::INVAL);
    }
    let size = a.return_size as usize;
    match a.query {
        AMDGPU_INFO_ACCEL_WORKING => {
            // SAFETY: the client's `return_size` bytes at `return_pointer`.
            unsafe { copy_out(a.return_pointer, &1u32.to_ne_bytes(), size)? };
        }
        AMDGPU_INFO_DEV_INFO => {
            let d = dev_info(spec);
            // SAFETY: as above.
            unsafe { copy_out(a.return_pointer, bytes_of(&d), size)? };
        }
        AMDGPU_INFO_READ_MMR_REG => {
            let [offset, count, _instance, _flags] = a.u;
            // "if (info->read_mmr_reg.count > 128) return -EINVAL;"
            if count > 128 {
                return Err(Errno::INVAL);
            }
            let mut regs = Vec::with_capacity(count as usize);
            for i in 0..count {
                // soc15_read_register: a register outside the allowed list
                // fails the query ("unallowed offset"), -EFAULT.
                match offset.checked_add(i) {
                    Some(MM_GB_ADDR_CONFIG) => {
                        regs.extend_from_slice(&crate::device::GB_ADDR_CONFIG_GFX90A.to_ne_bytes())
                    }
                    _ => return Err(Errno::FAULT),
                }
            }
            // SAFETY: as above.
            unsafe { copy_out(a.return_pointer, &regs, size)? };
        }
        _ => return Err(Errno::INVAL),
    }
    Ok(0)
}

/// `AMDGPU_INFO_DEV_INFO` of a gfx9 Instinct part, as `amdgpu_info_ioctl`
/// fills it from the device's configuration.
fn dev_info(s: &GpuSpec) -> DrmAmdgpuInfoDevice {
    let mut d = DrmAmdgpuInfoDevice {
        device_id: s.device_id,
        chip_rev: 0,
        // soc15_common_early_init: external_rev_id = rev_id + 0x3c
        // (GC 9.4.2, aldebaran) or + 0x46 (GC 9.4.3).
        external_rev: if s.gfx_target_version >= 90400 {
            0x46
        } else {
            0x3c
        },
        pci_rev: s.pci_rev,
        family: AMDGPU_FAMILY_AI,
        num_shader_engines: s.array_count,
        num_shader_arrays_per_engine: 1,
        // amdgpu_asic_get_xclk() * 10: the reference clock in kHz, the
        // clock the sim's timestamps count.
        gpu_counter_freq: (crate::device::GPU_CLOCK_HZ / 1000) as u32,
        max_engine_clock: u64::from(s.max_engine_clk) * 1000,
        max_memory_clock: u64::from(s.mem_clk_max) * 1000,
        cu_active_number: s.simd_count / crate::topology::SIMD_PER_CU,
        num_hw_gfx_contexts: 8,
        virtual_address_offset: AMDGPU_VA_RESERVED_SIZE,
        virtual_address_max: AMDGPU_GMC_HOLE_START - AMDGPU_VA_RESERVED_SIZE,
        virtual_address_alignment: 4096,
        pte_fragment_size: 2 << 20,
        gart_page_size: 4096,
        vram_type: AMDGPU_VRAM_TYPE_HBM,
        vram_bit_width: s.local_mem_width,
        wave_front_size: 64,
        num_shader_visible_vgprs: 512,
        num_cu_per_sh: s.cu_per_simd_array,
        num_tcc_blocks: 16,
        high_va_offset: AMDGPU_GMC_HOLE_END,
        high_va_max: AMDGPU_GMC_HOLE_END | (AMDGPU_GMC_HOLE_START - AMDGPU_VA_RESERVED_SIZE),
        ..Default::default()
    };
    // gfx_v9_0_get_cu_info: shader engine i's active CUs in
    // bitmap[i % 4][i / 4] (8 engines on aldebaran use two columns), the
    // CUs the sim's CU model has there (crate::cu: a harvested array lacks
    // its high CUs).
    let bits = |n: u32| if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    let cus = bits(s.cu_per_simd_array);
    let layout = crate::cu::CuLayout::of(s);
    let engines = layout.engines().max(1);
    for se in 0..s.array_count.min(16) {
        let active = bits(layout.active(se / engines, se % engines, 0));
        let (row, col) = ((se % 4) as usize, (se / 4) as usize);
        d.cu_bitmap[row][col] = active;
        d.cu_ao_bitmap[row][col] = active;
    }
    d.cu_ao_mask = cus;
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::offset_of;

    #[test]
    fn cu_bitmap_holds_the_active_cus() {
        // One XCC: the bitmap covers every engine, so its bits are the
        // part's CUs (an MI250X GCD's 110, not 8 arrays * 14).
        for b in [crate::Board::Mi210, crate::Board::Mi250x] {
            let d = dev_info(&b.spec());
            let n: u32 = d.cu_bitmap.iter().flatten().map(|w| w.count_ones()).sum();
            assert_eq!(n, d.cu_active_number, "{b:?}");
        }
    }

    /// Compiles a probe against libdrm's own `amdgpu_drm.h` (libdrm-dev)
    /// and compares every field offset and struct size with ours.
    #[test]
    fn structs_match_libdrm_headers() {
        let header = "/usr/include/libdrm/amdgpu_drm.h";
        assert!(
            std::path::Path::new(header).exists(),
            "{header} is missing: install libdrm-dev (scripts/lib.sh TEST_PACKAGES)"
        );
        macro_rules! fields {
            ($c:literal, $t:ty { $($f:ident),* $(,)? }) => {
                vec![
                    (format!("{} size", $c), size_of::<$t>()),
                    $((format!("{} {}", $c, stringify!($f)), offset_of!($t, $f)),)*
                ]
            };
        }
        let mut ours = fields!(
            "struct drm_version",
            DrmVersion {
                version_major,
                version_minor,
                version_patchlevel,
                name_len,
                name,
                date_len,
                date,
                desc_len,
                desc,
            }
        );
        ours.extend(fields!(
            "struct drm_amdgpu_info",
            DrmAmdgpuInfo {
                return_pointer,
                return_size,
                query
            }
        ));
        ours.extend(fields!(
            "struct drm_amdgpu_info_device",
            DrmAmdgpuInfoDevice {
                device_id,
                chip_rev,
                external_rev,
                pci_rev,
                family,
                num_shader_engines,
                num_shader_arrays_per_engine,
                gpu_counter_freq,
                max_engine_clock,
                max_memory_clock,
                cu_active_number,
                cu_ao_mask,
                cu_bitmap,
                enabled_rb_pipes_mask,
                num_rb_pipes,
                num_hw_gfx_contexts,
                ids_flags,
                virtual_address_offset,
                virtual_address_max,
                virtual_address_alignment,
                pte_fragment_size,
                gart_page_size,
                ce_ram_size,
                vram_type,
                vram_bit_width,
                vce_harvest_config,
                gc_double_offchip_lds_buf,
                prim_buf_gpu_addr,
                pos_buf_gpu_addr,
                cntl_sb_buf_gpu_addr,
                param_buf_gpu_addr,
                prim_buf_size,
                pos_buf_size,
                cntl_sb_buf_size,
                param_buf_size,
                wave_front_size,
                num_shader_visible_vgprs,
                num_cu_per_sh,
                num_tcc_blocks,
                gs_vgt_table_depth,
                gs_prim_buffer_depth,
                max_gs_waves_per_vgt,
                cu_ao_bitmap,
                high_va_offset,
                high_va_max,
                pa_sc_tile_steering_override,
                tcc_disabled_mask,
            }
        ));
        let mut c = String::from(
            "#include <stddef.h>\n#include <stdio.h>\n#include <drm.h>\n#include <amdgpu_drm.h>\nint main(void) {\n",
        );
        for (name, _) in &ours {
            let (ty, field) = name.rsplit_once(' ').unwrap();
            let expr = if field == "size" {
                format!("sizeof({ty})")
            } else {
                format!("offsetof({ty}, {field})")
            };
            c.push_str(&format!(
                "  printf(\"%s %zu\\n\", \"{name}\", (size_t){expr});\n"
            ));
        }
        c.push_str(concat!(
            "  printf(\"DRM_IOCTL_VERSION %lu\\nDRM_IOCTL_AMDGPU_INFO %lu\\n\", ",
            "(unsigned long)DRM_IOCTL_VERSION, (unsigned long)DRM_IOCTL_AMDGPU_INFO);\n",
            "  return 0;\n}\n",
        ));
        let dir = std::env::temp_dir().join(format!("sim-drm-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("probe.c");
        let exe = dir.join("probe");
        std::fs::write(&src, c).unwrap();
        let cc = std::process::Command::new("gcc")
            .args(["-I/usr/include/libdrm", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .expect("gcc runs");
        assert!(
            cc.status.success(),
            "probe: {}",
            String::from_utf8_lossy(&cc.stderr)
        );
        let run = std::process::Command::new(&exe)
            .output()
            .expect("probe runs");
        let text = String::from_utf8(run.stdout).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let theirs: std::collections::HashMap<&str, u64> = text
            .lines()
            .filter_map(|l| l.rsplit_once(' ').map(|(k, v)| (k, v.parse().unwrap())))
            .collect();
        let mut wrong = Vec::new();
        for (name, v) in &ours {
            if theirs.get(name.as_str()) != Some(&(*v as u64)) {
                wrong.push(format!(
                    "{name}: ours {v}, libdrm {:?}",
                    theirs.get(name.as_str())
                ));
            }
        }
        // The request codes the render node dispatches on: type 'd',
        // numbers 0x00 and DRM_COMMAND_BASE + DRM_AMDGPU_INFO, and sizes.
        let version = theirs["DRM_IOCTL_VERSION"];
        let info = theirs["DRM_IOCTL_AMDGPU_INFO"];
        assert_eq!((version >> 8) & 0xff, DRM_TYPE);
        assert_eq!(version & 0xff, 0);
        assert_eq!((version >> 16) & 0x3fff, size_of::<DrmVersion>() as u64);
        assert_eq!(info & 0xff, DRM_COMMAND_BASE + DRM_AMDGPU_INFO);
        assert_eq!((info >> 16) & 0x3fff, size_of::<DrmAmdgpuInfo>() as u64);
        assert!(wrong.is_empty(), "layout mismatches:\n{}", wrong.join("\n"));
    }
}
