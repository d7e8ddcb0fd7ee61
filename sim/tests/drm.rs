//! The render node's DRM ioctls, as libdrm_amdgpu's
//! `amdgpu_device_initialize` issues them (`drm_version` in `drm_ioctl.c`,
//! `amdgpu_info_ioctl` in `amdgpu_kms.c`). The structs are laid out by
//! hand here (byte offsets of libdrm's `drm.h` / `amdgpu_drm.h`, which the
//! sim's own unit test checks against the headers with gcc).

#![allow(unsafe_code)]

use std::ffi::c_void;

use kfd::{DrmRenderNode, KfdDevice};
use rustix::io::Errno;
use sim::{Board, SimBuilder, SimDevice};

/// `_IOWR('d', 0x00, struct drm_version)`.
const DRM_IOCTL_VERSION: kfd::ioctl::Opcode = 0xc040_6400;
/// `_IOW('d', 0x45, struct drm_amdgpu_info)`.
const DRM_IOCTL_AMDGPU_INFO: kfd::ioctl::Opcode = 0x4020_6445;

fn node(dev: &SimDevice) -> sim::SimRenderNode {
    dev.open_render_node(128).expect("renderD128")
}

/// `struct drm_amdgpu_info` as 32 bytes.
fn info(query: u32, out: &mut [u8], u: [u32; 4]) -> [u8; 32] {
    let mut a = [0u8; 32];
    a[0..8].copy_from_slice(&(out.as_mut_ptr() as u64).to_ne_bytes());
    a[8..12].copy_from_slice(&(out.len() as u32).to_ne_bytes());
    a[12..16].copy_from_slice(&query.to_ne_bytes());
    for (i, w) in u.iter().enumerate() {
        a[16 + 4 * i..20 + 4 * i].copy_from_slice(&w.to_ne_bytes());
    }
    a
}

fn ioctl(n: &sim::SimRenderNode, code: kfd::ioctl::Opcode, arg: &mut [u8]) -> Result<i32, Errno> {
    // SAFETY: `arg` holds the request's struct; its pointers name live
    // buffers of the lengths given.
    unsafe { n.ioctl(code, arg.as_mut_ptr().cast::<c_void>()) }
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}

#[test]
fn version_reports_amdgpu_3_with_drm_copy_field_semantics() {
    let dev = SimBuilder::new().without_shader_core().build();
    let n = node(&dev);
    // First call: no buffers, the lengths come back.
    let mut v = [0u8; 64];
    assert_eq!(ioctl(&n, DRM_IOCTL_VERSION, &mut v), Ok(0));
    assert_eq!(u32_at(&v, 0), 3, "libdrm_amdgpu requires major 3");
    let len = |off: usize| u64::from_ne_bytes(v[off..off + 8].try_into().unwrap());
    assert_eq!((len(16), len(32), len(48)), (6, 8, 7));
    // Second call: buffers, a short one truncated without a NUL, the
    // length still the string's.
    let mut name = [0xffu8; 6];
    let mut date = [0xffu8; 4];
    let mut desc = [0xffu8; 16];
    let mut v2 = [0u8; 64];
    for (off, buf) in [
        (16, &mut name[..]),
        (32, &mut date[..]),
        (48, &mut desc[..]),
    ] {
        v2[off..off + 8].copy_from_slice(&(buf.len() as u64).to_ne_bytes());
        v2[off + 8..off + 16].copy_from_slice(&(buf.as_mut_ptr() as u64).to_ne_bytes());
    }
    assert_eq!(ioctl(&n, DRM_IOCTL_VERSION, &mut v2), Ok(0));
    assert_eq!(&name, b"amdgpu");
    assert_eq!(&date, b"2015");
    assert_eq!(&desc[..7], b"AMD GPU");
    assert_eq!(desc[7], 0xff, "no NUL is written");
    assert_eq!(u64::from_ne_bytes(v2[32..40].try_into().unwrap()), 8);
}

#[test]
fn dev_info_names_the_board_libdrm_looks_up() {
    for (board, id, rev, cus) in [
        (Board::Mi210, 0x740f, 2, 104),
        (Board::Mi250x, 0x740c, 1, 110),
    ] {
        let dev = SimBuilder::new().board(board).without_shader_core().build();
        let n = node(&dev);
        let mut out = [0u8; 368];
        let mut a = info(0x16, &mut out, [0; 4]);
        assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Ok(0));
        assert_eq!(u32_at(&out, 0), id, "device_id");
        assert_eq!(
            u32_at(&out, 12),
            rev,
            "pci_rev (amdgpu.ids: {id:04X}, {rev:02X})"
        );
        assert_eq!(u32_at(&out, 16), 141, "AMDGPU_FAMILY_AI");
        assert_eq!(u32_at(&out, 48), cus, "cu_active_number");
        assert_eq!(u32_at(&out, 240), 64, "wave_front_size");
        // A shorter return buffer gets that many bytes (copy_to_user of
        // min(size, sizeof)).
        let mut short = [0xaau8; 6];
        let mut a = info(0x16, &mut short, [0; 4]);
        assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Ok(0));
        assert_eq!(u32_at(&short, 0), id);
    }
}

#[test]
fn info_queries_fail_as_amdgpu_info_ioctl_does() {
    let dev = SimBuilder::new().without_shader_core().build();
    let n = node(&dev);
    let mut out = [0u8; 16];
    // ACCEL_WORKING.
    let mut a = info(0x00, &mut out, [0; 4]);
    assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Ok(0));
    assert_eq!(u32_at(&out, 0), 1);
    // READ_MMR_REG of GB_ADDR_CONFIG (allowed), of another register
    // (soc15_read_register refuses: EFAULT), of more than 128 (EINVAL).
    let mut a = info(0x15, &mut out, [0x263e, 1, 0xffff_ffff, 0]);
    assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Ok(0));
    assert_ne!(u32_at(&out, 0), 0);
    let mut a = info(0x15, &mut out, [0x2644, 1, 0xffff_ffff, 0]);
    assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Err(Errno::FAULT));
    let mut a = info(0x15, &mut out, [0x263e, 129, 0xffff_ffff, 0]);
    assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Err(Errno::INVAL));
    // An unknown query, a zero size.
    let mut a = info(0x7f, &mut out, [0; 4]);
    assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Err(Errno::INVAL));
    let mut a = info(0x16, &mut [], [0; 4]);
    assert_eq!(ioctl(&n, DRM_IOCTL_AMDGPU_INFO, &mut a), Err(Errno::INVAL));
    // A DRM request the sim does not implement (GEM_CREATE), and a
    // request of another driver type.
    let mut buf = [0u8; 64];
    assert_eq!(ioctl(&n, 0xc020_6440, &mut buf), Err(Errno::NOTTY));
    assert_eq!(ioctl(&n, 0xc0584b02, &mut buf), Err(Errno::NOTTY));
}
