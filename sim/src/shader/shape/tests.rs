//! Each shape handler against the ordinary handler of the same decoded
//! instruction (encodings from llvm-mc-19, `encodings.rs`): the same wave,
//! random shapes and materialised VGPRs, random scalars and lane masks,
//! run both ways; the VGPRs, SGPRs (VCC, EXEC, `sdst`) and SCC must agree
//! bit for bit. The shapes include lanes that cross 2^31, 2^32 and (as
//! pairs) 2^64, where the exact rules must fall back or split a mask.

use super::super::Flow;
use super::super::program::{EXEC, Inst, VCC};
use super::super::setup::Launch;
use super::super::testing::{Rng, decode, in_context};
use super::super::wave::{LANES, Wave};
use super::Affine;
use super::encodings::CASES;

impl Rng {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// Edge values, small ones and random ones.
    fn value(&mut self) -> u32 {
        match self.below(3) {
            0 => self.pick(&[
                0,
                1,
                2,
                3,
                4,
                10,
                16,
                31,
                32,
                63,
                64,
                0x3ff,
                0x7fff_ffff,
                0x8000_0000,
                0x8000_0001,
                0xffff_fffe,
                0xffff_ffff,
            ]),
            1 => self.below(256) as u32,
            _ => self.next() as u32,
        }
    }

    fn stride(&mut self) -> u32 {
        match self.below(3) {
            0 => self.pick(&[1, 2, 4, 8, 16, 0x400, 1 << 20, 0xffff_ffff, 0xffff_fffc]),
            1 => (self.below(33) as u32).wrapping_sub(16),
            _ => self.next() as u32,
        }
    }

    fn shape(&mut self) -> Affine {
        match self.below(20) {
            0..=6 => Affine::uniform(self.value()),
            7..=13 => Affine {
                base: self.value(),
                stride: self.stride(),
            },
            // Lane k is the first past 2^32 (or 2^31).
            14..=16 => {
                let s = self.stride().max(1);
                let k = self.below(LANES as u64) as u32;
                let edge: u32 = if self.below(2) == 0 { 0 } else { 0x8000_0000 };
                Affine {
                    base: edge.wrapping_sub(s.wrapping_mul(k)),
                    stride: s,
                }
            }
            _ => Affine {
                base: self.next() as u32,
                stride: self.next() as u32,
            },
        }
    }

    fn mask(&mut self) -> u64 {
        match self.below(3) {
            0 => 0,
            1 => u64::MAX,
            _ => self.next(),
        }
    }
}

/// A wave of 16 VGPRs, EXEC all ones: most VGPRs shapes, some
/// materialised random lanes; random scalars, masks in VCC, `s[4:5]`,
/// `s[6:7]`.
fn random_wave(r: &mut Rng) -> Wave {
    let mut w = Wave::new(16);
    for k in 0..16 {
        w.s[k] = r.value();
    }
    for pair in [4u8, 6, VCC] {
        if r.below(2) == 0 {
            w.set_s64(pair, r.mask());
        }
    }
    w.set_s64(EXEC, u64::MAX);
    for v in 0..16u16 {
        if r.below(6) == 0 {
            w.materialize(usize::from(v));
            w.v[usize::from(v)] = std::array::from_fn(|_| r.value());
        } else {
            w.tag(v, r.shape());
        }
    }
    w
}

fn materialized(w: &Wave) -> Wave {
    let mut w = w.clone();
    w.materialize_all();
    w
}

/// Registers that must agree: the VGPR lanes, the scalar file, SCC.
fn state(w: &Wave) -> (Vec<[u32; LANES]>, Vec<u32>, bool) {
    let m = materialized(w);
    (m.v.clone(), m.s.to_vec(), m.scc)
}

#[test]
fn shape_handlers_agree_with_the_ordinary_handlers() {
    const WAVES: usize = 3000;
    in_context(|ctx| {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut report = Vec::new();
        for &(text, bytes) in CASES {
            let inst = decode(bytes);
            if text.contains("clamp") {
                assert!(inst.shaped.is_none(), "{text}: clamp has no shape handler");
                continue;
            }
            let f = inst.shaped.unwrap_or_else(|| {
                panic!(
                    "{text}: no shape handler: {:?} {:?}",
                    inst.mods, inst.decoded
                )
            });
            let mut hits = 0;
            for n in 0..WAVES {
                let w0 = random_wave(&mut rng);
                // The ordinary path, on materialised lanes.
                let mut b = w0.clone();
                b.materialize_for(&inst);
                let rb = (inst.exec)(&mut b, &inst, ctx);
                assert_eq!(rb, Ok(Flow::Next), "{text}: the ordinary handler");
                // The shape path, falling back as the scheduler does.
                let mut a = w0.clone();
                match f(&mut a, &inst, ctx) {
                    true => hits += 1,
                    false => {
                        assert!(
                            state(&a) == state(&w0),
                            "{text}: wave {n}: the shape handler declined but changed the wave"
                        );
                        a.materialize_for(&inst);
                        let ra = (inst.exec)(&mut a, &inst, ctx);
                        assert_eq!(ra, Ok(Flow::Next), "{text}");
                    }
                }
                let (sa, sb) = (state(&a), state(&b));
                if sa != sb {
                    let v = (0..16).find(|&k| sa.0[k] != sb.0[k]);
                    let s = (0..sa.1.len()).find(|&k| sa.1[k] != sb.1[k]);
                    panic!(
                        "{text}: wave {n} differs (first VGPR v{v:?}, first scalar {s:?}); \
                         sources: {:?}",
                        (0..16u16).map(|k| w0.shape(k)).collect::<Vec<_>>()
                    );
                }
            }
            report.push(format!("{text}: {hits}/{WAVES}"));
            assert!(
                hits * 50 >= WAVES,
                "{text}: the shape handler applied in only {hits} of {WAVES} waves"
            );
        }
        eprintln!("{}", report.join("\n"));
    });
}

/// A reset wave reads zero everywhere, and tags come and go with their
/// count.
#[test]
fn reset_tags_the_file_zero() {
    let mut w = Wave::new(70);
    assert!(w.has_tags());
    assert_eq!(w.shape(69), Some(Affine::uniform(0)));
    assert_eq!(w.shape(70), None);
    assert!(!w.tag(70, Affine::uniform(1)));
    w.materialize(3);
    assert_eq!(w.v[3], [0; LANES]);
    assert!(!w.is_tagged(3));
    w.tag(3, Affine { base: 5, stride: 2 });
    w.materialize_all();
    assert!(!w.has_tags());
    assert_eq!(w.v[3][10], 25);
    assert!(
        w.v.iter()
            .enumerate()
            .all(|(k, r)| k == 3 || *r == [0; LANES])
    );
    w.reset(70);
    assert!(w.has_tags() && w.is_tagged(3) && w.is_tagged(69));
}

/// The 64-bit add idioms the fused handler takes ([`super::idiom`]),
/// as llvm-mc-19 encodes them (the first two from clang-19's vector add,
/// the third with the `v_mov` result read by the `v_add_co`).
const IDIOMS: &[[(&str, &[u8]); 3]] = &[
    [
        ("v_mov_b32_e32 v1, s1", &[0x01, 0x02, 0x02, 0x7e]),
        (
            "v_add_co_u32_e32 v0, vcc, s0, v0",
            &[0x00, 0x00, 0x00, 0x32],
        ),
        (
            "v_addc_co_u32_e32 v1, vcc, 0, v1, vcc",
            &[0x80, 0x02, 0x02, 0x38],
        ),
    ],
    [
        ("v_mov_b32_e32 v3, s3", &[0x03, 0x02, 0x06, 0x7e]),
        (
            "v_add_co_u32_e32 v2, vcc, s2, v0",
            &[0x02, 0x00, 0x04, 0x32],
        ),
        (
            "v_addc_co_u32_e32 v3, vcc, v3, v1, vcc",
            &[0x03, 0x03, 0x06, 0x38],
        ),
    ],
    [
        ("v_mov_b32_e32 v5, v2", &[0x02, 0x03, 0x0a, 0x7e]),
        (
            "v_add_co_u32_e32 v4, vcc, v4, v5",
            &[0x04, 0x0b, 0x08, 0x32],
        ),
        (
            "v_addc_co_u32_e32 v5, vcc, v1, v5, vcc",
            &[0x01, 0x0b, 0x0a, 0x38],
        ),
    ],
];

/// A fused run leaves the wave as the three instructions one by one on
/// materialised lanes do, and when it stops early (shapes that do not
/// apply, a partial EXEC) the rest run alone to the same end.
#[test]
fn fused_idioms_agree_with_the_ordinary_handlers() {
    const WAVES: usize = 3000;
    in_context(|ctx| {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        for idiom in IDIOMS {
            let insts: Vec<Inst> = idiom.iter().map(|(_, bytes)| decode(bytes)).collect();
            let f = super::idiom(&insts).unwrap_or_else(|| panic!("{idiom:?}: not fused"));
            let mut whole = 0;
            for n in 0..WAVES {
                let mut w0 = random_wave(&mut rng);
                if n % 10 == 0 {
                    // A partial EXEC: the fused handler must decline.
                    w0.set_s64(EXEC, rng.next() | 1);
                }
                let mut b = w0.clone();
                for i in &insts {
                    b.materialize_for(i);
                    assert_eq!((i.exec)(&mut b, i, ctx), Ok(Flow::Next));
                }
                let mut a = w0.clone();
                let ran = f(&mut a, &insts, ctx);
                assert!(ran <= 3);
                if ran == 3 {
                    whole += 1;
                }
                for i in &insts[ran..] {
                    if !i.shaped.is_some_and(|g| g(&mut a, i, ctx)) {
                        a.materialize_for(i);
                        assert_eq!((i.exec)(&mut a, i, ctx), Ok(Flow::Next));
                    }
                }
                assert!(
                    state(&a) == state(&b),
                    "{}: wave {n} differs after {ran} fused",
                    idiom[0].0
                );
            }
            // Random shapes often wrap (then the idiom stops early): the
            // whole run must still be exercised in a good share of waves.
            assert!(
                whole * 10 >= WAVES,
                "{}: fused whole in only {whole} of {WAVES} waves",
                idiom[0].0
            );
            eprintln!("{}: fused whole in {whole} of {WAVES} waves", idiom[0].0);
        }
    });
}

/// A work-group of `k` waves that may run in lockstep: one random scalar
/// file (EXEC full; masks in VCC, `s[4:5]`, `s[6:7]`), every VGPR a
/// random shape for the whole group, wave `j`'s the slice from lane
/// `64 * j` on.
fn random_group(r: &mut Rng, k: usize) -> Vec<Wave> {
    let mut first = Wave::new(16);
    for s in 0..16 {
        first.s[s] = r.value();
    }
    for pair in [4u8, 6, VCC] {
        if r.below(2) == 0 {
            first.set_s64(pair, r.mask());
        }
    }
    first.set_s64(EXEC, u64::MAX);
    let shapes: Vec<Affine> = (0..16).map(|_| r.shape()).collect();
    (0..k)
        .map(|j| {
            let mut w = first.clone();
            for (v, a) in shapes.iter().enumerate() {
                w.tag(
                    v as u16,
                    Affine {
                        base: a.lane_far(64 * j as u32),
                        stride: a.stride,
                    },
                );
            }
            w
        })
        .collect()
}

/// Over a work-group in lockstep (the first wave leading, its shapes
/// spanning every wave's lanes), a shape handler that applies leaves each
/// wave, once split, as the ordinary handler leaves that wave alone; one
/// that declines changes nothing.
#[test]
fn shape_handlers_over_a_group_agree_with_each_wave_alone() {
    const GROUPS: usize = 1500;
    in_context(|ctx| {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut report = Vec::new();
        for &(text, bytes) in CASES {
            let inst = decode(bytes);
            let Some(f) = inst.shaped else { continue };
            let mut hits = 0;
            for n in 0..GROUPS {
                let k = rng.pick(&[2usize, 3, 4, 8, 16, 32]);
                let mut group = random_group(&mut rng, k);
                assert!(
                    super::super::lockstep::eligible(&group),
                    "{text}: group {n}"
                );
                // Each wave alone, on materialised lanes.
                let alone: Vec<_> = group
                    .iter()
                    .map(|w| {
                        let mut b = w.clone();
                        b.materialize_for(&inst);
                        assert_eq!((inst.exec)(&mut b, &inst, ctx), Ok(Flow::Next), "{text}");
                        state(&b)
                    })
                    .collect();
                super::super::lockstep::lead(&mut group);
                let before = state(&group[0]);
                if f(&mut group[0], &inst, ctx) {
                    hits += 1;
                    super::super::lockstep::split(&mut group, 0);
                    for (j, w) in group.iter().enumerate() {
                        assert!(
                            state(w) == alone[j],
                            "{text}: group {n} of {k} waves: wave {j} differs from it alone"
                        );
                    }
                } else {
                    assert!(
                        state(&group[0]) == before,
                        "{text}: group {n}: the handler declined but changed the leader"
                    );
                }
            }
            report.push(format!("{text}: {hits}/{GROUPS}"));
            // Random shapes over up to 2048 lanes often wrap (the handler
            // then declines): each must still apply in some groups.
            assert!(
                hits * 100 >= GROUPS,
                "{text}: applied over a group in only {hits} of {GROUPS}"
            );
        }
        eprintln!("{}", report.join("\n"));
    });
}

/// A group starts in lockstep only when its waves are alike: one scalar
/// file, full EXEC, every VGPR a shape continuing the first wave's.
#[test]
fn only_alike_waves_start_in_lockstep() {
    use super::super::lockstep::eligible;
    let mut rng = Rng(7);
    let group = random_group(&mut rng, 4);
    assert!(eligible(&group));
    assert!(!eligible(&group[..1]), "one wave has no one to share with");
    let mut g = group.clone();
    g[2].s[3] ^= 1;
    assert!(!eligible(&g), "a scalar differs");
    let mut g = group.clone();
    g[1].set_s64(EXEC, u64::MAX >> 1);
    assert!(!eligible(&g), "a partial EXEC");
    let mut g = group.clone();
    let a = g[3].shape(5).unwrap();
    g[3].tag(
        5,
        Affine {
            base: a.base.wrapping_add(1),
            stride: a.stride,
        },
    );
    assert!(
        !eligible(&g),
        "a shape that does not continue the first wave's"
    );
    let mut g = group.clone();
    g[0].materialize(7);
    assert!(!eligible(&g), "a materialised VGPR");
    let mut g = group;
    g[1].scc = !g[1].scc;
    assert!(!eligible(&g), "SCC differs");
}

/// The scheduler's rule for starting a group in lockstep without setting
/// up its other waves (`Launch::same_scalars`, one row of whole waves)
/// holds exactly when the set-up waves are alike.
#[test]
fn set_up_waves_of_one_row_start_alike() {
    let mut launch = Launch::for_tests();
    launch.user_sgprs = vec![0x1000, 0x7f00, 0x2000, 0x7f00];
    launch.scalar_init[..4].copy_from_slice(&launch.user_sgprs);
    launch.workgroup_id = [true, true, false];
    launch.workitem_dims = 3;
    let set_up = |launch: &Launch, size: [u32; 3]| -> Vec<Wave> {
        let items = size[0] * size[1] * size[2];
        let count = items.div_ceil(64);
        (0..count)
            .map(|k| {
                let mut w = Wave::new(launch.vgprs);
                launch
                    .init_wave(&mut w, [5, 2, 0], size, k, count, u64::from(k))
                    .expect("set up");
                w
            })
            .collect()
    };
    let rule = |launch: &Launch, size: [u32; 3]| {
        launch.same_scalars && size[1] == 1 && size[2] == 1 && size[0] % 64 == 0
    };
    for size in [
        [128, 1, 1],
        [256, 1, 1],
        [1024, 1, 1],
        [64, 4, 1],
        [32, 8, 1],
        [192, 1, 2],
    ] {
        for packed in [true, false] {
            launch.packed_workitem_ids = packed;
            let waves = set_up(&launch, size);
            if waves.len() < 2 {
                continue;
            }
            assert_eq!(
                super::super::lockstep::eligible(&waves),
                rule(&launch, size),
                "{size:?}, packed ids {packed}"
            );
        }
    }
    // A scalar of its own in each wave: work-group info (the first-wave
    // bit) or a scratch offset.
    launch.workgroup_info = true;
    launch.same_scalars = false;
    assert!(!super::super::lockstep::eligible(&set_up(
        &launch,
        [256, 1, 1]
    )));
    launch.workgroup_info = false;
    launch.scratch_wave_offset = true;
    launch.scratch_wave_bytes = 4096;
    launch.scratch_slots = 64;
    assert!(!super::super::lockstep::eligible(&set_up(
        &launch,
        [256, 1, 1]
    )));
}
