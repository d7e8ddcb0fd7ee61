//! Sub-dword addressing (SDWA, GFX9 VOP1/VOP2/VOPC `_sdwa` forms): a
//! wrapper around the operation's own handler.
//!
//! Before the operation, each VGPR or scalar source 0/1 is narrowed to the
//! byte or word its `src_sel` names (BYTE_0..3 = 0..3, WORD_0/1 = 4/5,
//! DWORD = 6), zero- or sign-extended (`sext`), and staged in
//! `Wave::staged`, so the handler reads it as a whole dword (its
//! `abs`/`neg` modifiers then apply as usual). After it, a VGPR result
//! keeps only the field `dst_sel` names, shifted into place; the other
//! bits are zero (`UNUSED_PAD`), the field's sign extension above it
//! (`UNUSED_SEXT`), or the destination's previous bits (`UNUSED_PRESERVE`),
//! in the lanes EXEC enables (AMD Vega ISA, "SDWA").

use super::program::{Dst, Inst, Src};
use super::wave::{LANES, Ty, Wave};
use super::{Ctx, Fault, Flow};

const DWORD: u8 = 6;

/// `(shift, width)` of a select.
fn field(sel: u8) -> (u32, u32) {
    match sel {
        0..=3 => (u32::from(sel) * 8, 8),
        4 | 5 => (u32::from(sel - 4) * 16, 16),
        _ => (0, 32),
    }
}

/// The source value a select and sign extension give.
fn select(v: u32, sel: u8, sext: bool) -> u32 {
    let (shift, width) = field(sel);
    if width == 32 {
        return v;
    }
    let x = (v >> shift) & ((1 << width) - 1);
    if sext {
        (((x << (32 - width)) as i32) >> (32 - width)) as u32
    } else {
        x
    }
}

/// Executes an SDWA instruction through its operation's handler.
pub(crate) fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let m = i.mods;
    let mut j = i.clone();
    for k in 0..2 {
        let s = i.src[k];
        if matches!(s, Src::None) {
            continue;
        }
        let sel = m.sdwa_sel[2 + k];
        let sext = m.sext >> k & 1 != 0;
        if sel == DWORD && !sext {
            continue;
        }
        let v = w.read32(s, Ty::B32)?;
        let mut st = [0u32; LANES];
        for l in 0..LANES {
            st[l] = select(v[l], sel, sext);
        }
        w.staged[k] = st;
        j.src[k] = Src::Staged(k as u8);
    }
    let (dst_sel, unused) = (m.sdwa_sel[0], m.sdwa_sel[1]);
    let Dst::V(r) = i.vdst else {
        return (i.inner)(w, &j, ctx);
    };
    if dst_sel == DWORD {
        return (i.inner)(w, &j, ctx);
    }
    let old = *w.vget(r)?;
    let flow = (i.inner)(w, &j, ctx)?;
    let new = *w.vget(r)?;
    let exec = w.exec();
    let (shift, width) = field(dst_sel);
    let mask = ((1u64 << width) - 1) as u32;
    let mut d = old;
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let x = new[l] & mask;
        let placed = x << shift;
        d[l] = match unused {
            // UNUSED_SEXT: the field's sign above it, zeros below.
            1 => {
                let s = ((x << (32 - width)) as i32 >> (32 - width)) as u32;
                s << shift
            }
            // UNUSED_PRESERVE.
            2 => (old[l] & !(mask << shift)) | placed,
            _ => placed,
        };
    }
    w.write32(i.vdst, &d)?;
    Ok(flow)
}
