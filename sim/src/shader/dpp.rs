//! Data-parallel primitives (DPP, GFX9 VOP1/VOP2/VOPC `_dpp` forms): a
//! wrapper around the operation's own handler.
//!
//! Source 0 of lane `l` is read from lane `f(l)` that `dpp_ctrl` names
//! (AMD Vega ISA, "DPP"): `quad_perm` (0x00-0xff), `row_shl:1-15`
//! (0x101-), `row_shr:1-15` (0x111-), `row_ror:1-15` (0x121-),
//! `wave_shl:1` (0x130), `wave_rol:1` (0x134), `wave_shr:1` (0x138),
//! `wave_ror:1` (0x13c), `row_mirror` (0x140), `row_half_mirror`
//! (0x141), `row_bcast:15` (0x142), `row_bcast:31` (0x143); rows are 16
//! lanes. A source lane that is out of range or disabled by EXEC gives 0
//! when `bound_ctrl` is set, else the lane is not written. Lanes whose row
//! (`row_mask`) or bank of four (`bank_mask`) is masked off are not
//! written. The permuted source is staged in `Wave::staged[0]` and the
//! handler runs with EXEC narrowed to the lanes to write.

use super::program::{EXEC, Inst, Src};
use super::wave::{LANES, Ty, Wave};
use super::{Ctx, Exec, Fault};

/// The source lane of lane `l`, or `None` when out of range. `Err` for a
/// reserved control.
fn source(ctrl: u16, l: usize) -> Result<Option<usize>, ()> {
    let row = l & !15;
    let r = l & 15;
    let c = usize::from(ctrl);
    Ok(match c {
        0x000..=0x0ff => Some((l & !3) | ((c >> ((l & 3) * 2)) & 3)),
        0x101..=0x10f => {
            let s = r + (c & 15);
            (s < 16).then_some(row + s)
        }
        0x111..=0x11f => r.checked_sub(c & 15).map(|s| row + s),
        0x121..=0x12f => Some(row + ((r + 16 - (c & 15)) & 15)),
        0x130 => (l + 1 < LANES).then_some(l + 1),
        0x134 => Some((l + 1) % LANES),
        0x138 => l.checked_sub(1),
        0x13c => Some((l + LANES - 1) % LANES),
        0x140 => Some(row + 15 - r),
        0x141 => Some((l & !7) + 7 - (l & 7)),
        // row_bcast:15: lane 15 of each row feeds the next row.
        0x142 => (row >= 16).then_some(row - 1),
        // row_bcast:31: lane 31 feeds rows 2 and 3.
        0x143 => (row >= 32).then_some(31),
        _ => return Err(()),
    })
}

/// Lanes that `row_bcast` writes: rows 1-3 (15) or rows 2-3 (31); every
/// row otherwise.
fn rows_written(ctrl: u16) -> u64 {
    match ctrl {
        0x142 => 0xffff_ffff_ffff_0000,
        0x143 => 0xffff_ffff_0000_0000,
        _ => u64::MAX,
    }
}

/// Executes a DPP instruction through its operation's handler.
pub(crate) fn exec(w: &mut Wave, i: &Inst, ctx: &mut Ctx<'_>) -> Exec {
    let m = i.mods;
    let exec = w.exec();
    let v = w.read32(i.src[0], Ty::B32)?;
    let mut staged = [0u32; LANES];
    let mut write = 0u64;
    for l in 0..LANES {
        let row_on = m.row_mask >> (l / 16) & 1 != 0;
        let bank_on = m.bank_mask >> ((l >> 2) & 3) & 1 != 0;
        if exec >> l & 1 == 0 || !row_on || !bank_on || rows_written(m.dpp_ctrl) >> l & 1 == 0 {
            continue;
        }
        let s = source(m.dpp_ctrl, l).map_err(|()| Fault::Illegal {
            mnemonic: format!("{} (reserved dpp_ctrl {:#x})", i.mnemonic(), m.dpp_ctrl),
            pc: i.pc,
        })?;
        match s {
            Some(s) if exec >> s & 1 != 0 => {
                staged[l] = v[s];
                write |= 1 << l;
            }
            _ if m.bound_ctrl => {
                staged[l] = 0;
                write |= 1 << l;
            }
            _ => {}
        }
    }
    w.staged[0] = staged;
    let mut j = i.clone();
    j.src[0] = Src::Staged(0);
    w.set_s64(EXEC, write);
    let r = (i.inner)(w, &j, ctx);
    // The handler may not write EXEC (no DPP form does); restore it.
    w.set_s64(EXEC, exec);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sources() {
        // quad_perm:[1,0,3,2] = 0b10_11_00_01.
        assert_eq!(source(0xb1, 4), Ok(Some(5)));
        assert_eq!(source(0xb1, 7), Ok(Some(6)));
        // row_shl:1 runs off the row's end; row_shr:2 off its start.
        assert_eq!(source(0x101, 14), Ok(Some(15)));
        assert_eq!(source(0x101, 15), Ok(None));
        assert_eq!(source(0x112, 17), Ok(None));
        assert_eq!(source(0x112, 18), Ok(Some(16)));
        // row_ror:1 wraps inside the row.
        assert_eq!(source(0x121, 16), Ok(Some(31)));
        // wave_shr:1 / wave_ror:1 / wave_rol:1 / wave_shl:1.
        assert_eq!(source(0x138, 0), Ok(None));
        assert_eq!(source(0x13c, 0), Ok(Some(63)));
        assert_eq!(source(0x134, 63), Ok(Some(0)));
        assert_eq!(source(0x130, 63), Ok(None));
        // Mirrors and broadcasts.
        assert_eq!(source(0x140, 33), Ok(Some(46)));
        assert_eq!(source(0x141, 9), Ok(Some(14)));
        assert_eq!(source(0x142, 40), Ok(Some(31)));
        assert_eq!(source(0x143, 40), Ok(Some(31)));
        assert_eq!(source(0x143, 20), Ok(None));
        // Reserved controls.
        assert_eq!(source(0x100, 0), Err(()));
        assert_eq!(source(0x150, 0), Err(()));
    }
}
