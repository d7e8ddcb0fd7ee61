//! The group handlers ([`super::GroupFn`]) against the ordinary handler
//! run on each wave alone: random groups of 2-16 waves with f32 edge
//! values (NaN payloads, infinities, denormals, -0) in their VGPRs and
//! scalars, and MODE with every denormal setting; the VGPRs, the scalar
//! file and SCC of every wave must agree bit for bit. Where a group
//! handler declines (modifiers, flushing, a partial EXEC) it must change
//! nothing. Encodings from `llvm-mc-19 -triple=amdgcn-amd-amdhsa
//! -mcpu=gfx90a --show-encoding`.

use super::super::Flow;
use super::super::program::EXEC;
use super::super::testing::{Rng, decode, in_context};
use super::super::wave::{LANES, Wave};

/// (text, encoding, whether the group handler applies in the IEEE modes
/// without flushing).
const CASES: &[(&str, &[u8], bool)] = &[
    ("v_add_f32_e32 v1, v2, v3", &[0x02, 0x07, 0x02, 0x02], true),
    (
        "v_add_f32_e64 v1, s2, v3",
        &[0x01, 0x00, 0x01, 0xd1, 0x02, 0x06, 0x02, 0x00],
        true,
    ),
    ("v_sub_f32_e32 v1, 1.0, v2", &[0xf2, 0x04, 0x02, 0x04], true),
    (
        "v_subrev_f32_e32 v1, v2, v1",
        &[0x02, 0x03, 0x02, 0x06],
        true,
    ),
    ("v_mul_f32_e32 v1, v1, v1", &[0x01, 0x03, 0x02, 0x0a], true),
    ("v_fmac_f32_e32 v1, s2, v3", &[0x02, 0x06, 0x02, 0x76], true),
    (
        "v_fmac_f32_e64 v4, v2, v3",
        &[0x04, 0x00, 0x3b, 0xd1, 0x02, 0x07, 0x02, 0x00],
        true,
    ),
    (
        "v_fma_f32 v1, v2, s3, v4",
        &[0x01, 0x00, 0xcb, 0xd1, 0x02, 0x07, 0x10, 0x04],
        true,
    ),
    (
        "v_fma_f32 v1, v2, v3, v1",
        &[0x01, 0x00, 0xcb, 0xd1, 0x02, 0x07, 0x06, 0x04],
        true,
    ),
    (
        "v_add_f32_e64 v1, |v2|, v3",
        &[0x01, 0x01, 0x01, 0xd1, 0x02, 0x07, 0x02, 0x00],
        false,
    ),
    (
        "v_fma_f32 v1, -v2, v3, v4",
        &[0x01, 0x00, 0xcb, 0xd1, 0x02, 0x07, 0x12, 0x24],
        false,
    ),
    (
        "v_mul_f32_e64 v1, v2, v3 clamp",
        &[0x01, 0x80, 0x05, 0xd1, 0x02, 0x07, 0x02, 0x00],
        false,
    ),
    (
        "v_add_f32_e64 v1, v2, v3 mul:2",
        &[0x01, 0x00, 0x01, 0xd1, 0x02, 0x07, 0x02, 0x08],
        false,
    ),
];

impl Rng {
    /// f32 bits: edge values, small magnitudes, anything.
    fn f32(&mut self) -> u32 {
        const EDGES: [u32; 12] = [
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffc1_2345,
            0x0000_0001,
            0x807f_ffff,
            0x3f80_0000,
            0x7f7f_ffff,
            0x0080_0000,
        ];
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => (self.next() as u32 & 0x807f_ffff) | 0x3f00_0000,
            _ => self.next() as u32,
        }
    }
}

/// A group of `k` waves of 8 VGPRs with random lanes, one scalar file,
/// MODE and EXEC (full unless `partial`).
fn random_group(r: &mut Rng, k: usize, partial: bool) -> Vec<Wave> {
    let mut first = Wave::new(8);
    first.materialize_all();
    for s in first.s.iter_mut() {
        *s = r.f32();
    }
    // FP_DENORM (bits 4-7) any of the four settings for f32 and f64; IEEE
    // and DX10_CLAMP either way.
    first.mode = (r.below(256) as u32) << 4 & 0x3f0;
    first.set_s64(EXEC, if partial { r.next() | 1 } else { u64::MAX });
    (0..k)
        .map(|_| {
            let mut w = first.clone();
            for v in &mut w.v {
                *v = std::array::from_fn(|_| r.f32());
            }
            w
        })
        .collect()
}

fn state(waves: &[Wave]) -> Vec<(Vec<[u32; LANES]>, Vec<u32>, bool)> {
    waves
        .iter()
        .map(|w| (w.v.clone(), w.s.to_vec(), w.scc))
        .collect()
}

#[test]
fn group_handlers_agree_with_each_wave_run_alone() {
    in_context(|ctx| {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for &(text, bytes, applies) in CASES {
            let inst = decode(bytes);
            let g = inst
                .group
                .unwrap_or_else(|| panic!("{text}: no group handler"));
            let mut ran = 0;
            for n in 0..600 {
                let k = 2 + rng.below(15) as usize;
                let partial = rng.below(8) == 0;
                let w0 = random_group(&mut rng, k, partial);
                // Each wave alone, through the ordinary handler.
                let mut alone = w0.clone();
                for w in &mut alone {
                    assert_eq!((inst.exec)(w, &inst, ctx), Ok(Flow::Next), "{text}");
                }
                let mut group = w0.clone();
                // f32 denormals flushed (FP_DENORM bits 4-5 not both set).
                let flushing = w0[0].mode & 0x30 != 0x30;
                if g(&mut group, &inst) {
                    ran += 1;
                    assert!(
                        applies && !partial,
                        "{text}: group {n} ran where it must decline"
                    );
                    assert!(
                        state(&group) == state(&alone),
                        "{text}: group {n} of {k} waves (MODE {:#x}) differs from the waves run alone",
                        w0[0].mode
                    );
                } else {
                    assert!(
                        state(&group) == state(&w0),
                        "{text}: group {n} declined but changed a wave"
                    );
                    assert!(
                        !applies || partial || flushing,
                        "{text}: group {n} (MODE {:#x}) declined",
                        w0[0].mode
                    );
                }
            }
            assert_eq!(ran > 0, applies, "{text}: ran in {ran} groups");
        }
    });
}
