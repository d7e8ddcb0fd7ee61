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
use super::{Ctx, Exec};

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
pub(crate) fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
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
    let mut d = old;
    for l in 0..LANES {
        if exec >> l & 1 != 0 {
            d[l] = place(new[l], old[l], dst_sel, unused);
        }
    }
    w.write32(i.vdst, &d)?;
    Ok(flow)
}

/// The destination dword: the low bits of `new` in the `dst_sel` field,
/// the rest per `dst_unused` (0 pad, 1 sign-extend above, 2 preserve).
fn place(new: u32, old: u32, dst_sel: u8, unused: u8) -> u32 {
    let (shift, width) = field(dst_sel);
    if width == 32 {
        return new;
    }
    let mask = (1u32 << width) - 1;
    let x = new & mask;
    match unused {
        // UNUSED_SEXT: the field's sign above it, zeros below.
        1 => (((x << (32 - width)) as i32 >> (32 - width)) as u32) << shift,
        // UNUSED_PRESERVE.
        2 => (old & !(mask << shift)) | (x << shift),
        _ => x << shift,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_selects() {
        assert_eq!(select(0x8281_7f80, 0, false), 0x80);
        assert_eq!(select(0x8281_7f80, 0, true), 0xffff_ff80);
        assert_eq!(select(0x8281_7f80, 1, true), 0x7f);
        assert_eq!(select(0x8281_7f80, 3, false), 0x82);
        assert_eq!(select(0x8281_7f80, 5, true), 0xffff_8281);
        assert_eq!(select(0x8281_7f80, 4, false), 0x7f80);
        assert_eq!(select(0x8281_7f80, 6, true), 0x8281_7f80);
    }

    #[test]
    fn destination_placement() {
        let old = 0x1122_3344;
        // WORD_1, pad / sext / preserve.
        assert_eq!(place(0xabcd_8001, old, 5, 0), 0x8001_0000);
        assert_eq!(place(0xabcd_8001, old, 5, 1), 0x8001_0000);
        assert_eq!(place(0xabcd_8001, old, 5, 2), 0x8001_3344);
        // BYTE_1 with a negative byte: sign-extended above, zero below.
        assert_eq!(place(0x0000_00f0, old, 1, 1), 0xffff_f000);
        assert_eq!(place(0x0000_00f0, old, 1, 2), 0x1122_f044);
        assert_eq!(place(0x0000_00f0, old, 0, 0), 0x0000_00f0);
        // WORD_0 sign-extended.
        assert_eq!(place(0x1234_8000, old, 4, 1), 0xffff_8000);
        assert_eq!(place(0x1234_5678, old, 6, 2), 0x1234_5678);
    }
}
