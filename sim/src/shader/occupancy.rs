//! Where a dispatch's workgroups are resident: the CUs of the queue's CU
//! mask, each with its SIMDs' wave slots, LDS and workgroup slots, and the
//! queue's scratch wave slots.
//!
//! A workgroup is placed whole on one CU (each of its waves on the SIMD
//! with the most free wave slots), taking CUs round-robin from the last
//! one used so that a dispatch spreads over every enabled CU; a wave that
//! uses scratch also takes one of the `COMPUTE_TMPRING_SIZE.WAVES` scratch
//! slots (its scratch is `slot * WAVESIZE` into the backing memory). A
//! workgroup that finds no room waits until a resident one ends and gives
//! its slots back. Host worker threads run the resident workgroups; the
//! CUs are what waves are placed on and what `HW_ID` reports.

use crate::cu::ComputeUnit;
use crate::topology::{LDS_SIZE_KIB, MAX_WAVES_PER_SIMD, SIMD_PER_CU};

/// Workgroups a GFX9 CU holds at once (its barrier resources).
const GROUPS_PER_CU: u32 = 16;

/// One enabled CU and what is free on it.
#[derive(Debug)]
struct Cu {
    unit: ComputeUnit,
    /// Free wave ids of each SIMD (bit `i`: wave id `i`).
    simd_free: [u16; SIMD_PER_CU as usize],
    lds_free: u32,
    /// Free workgroup (TG_ID) slots.
    groups_free: u16,
}

/// Most waves of a workgroup: a CU's wave slots.
pub(crate) const MAX_GROUP_WAVES: usize = (SIMD_PER_CU * MAX_WAVES_PER_SIMD) as usize;

/// The slots one resident workgroup holds (no heap: placing and
/// releasing a workgroup is on every workgroup's path).
#[derive(Debug, Default)]
pub(crate) struct Residency {
    cu: usize,
    /// The CU's HW_ID fields (CU_ID, SH_ID, SE_ID).
    pub unit: ComputeUnit,
    /// Its TG_ID on the CU.
    pub group_slot: u32,
    /// Each wave's SIMD and wave id.
    pub waves: heapless::Vec<(u8, u8), MAX_GROUP_WAVES>,
    /// Each wave's scratch slot (empty when the kernel has no scratch; at
    /// most 2^20 slots).
    pub scratch: heapless::Vec<u32, MAX_GROUP_WAVES>,
    lds: u32,
}

/// The dispatch's CUs and scratch slots.
#[derive(Debug)]
pub(crate) struct Occupancy {
    cus: Vec<Cu>,
    next: usize,
    /// Free scratch slots (bit `i` of word `i / 64` set: slot `i` is
    /// free), when the kernel uses scratch.
    scratch_free: Vec<u64>,
    /// Scratch slots in all, and free.
    scratch_slots: usize,
    scratch_free_count: usize,
    scratch_used: bool,
    /// Work-groups waiting for room (the scheduler wakes them only then).
    pub(crate) waiting: usize,
    /// The dispatch's next work-group to take (the scheduler's: kept
    /// under the same lock as the slots, which every take holds anyway).
    pub(crate) next_group: u64,
}

const fn all_waves() -> u16 {
    ((1u32 << MAX_WAVES_PER_SIMD) - 1) as u16
}

impl Occupancy {
    /// Every CU of `units` empty; `scratch_slots` scratch wave slots if the
    /// kernel uses scratch (`None`: it does not).
    pub(crate) fn new(units: &[ComputeUnit], scratch_slots: Option<u64>) -> Self {
        let slots = scratch_slots.unwrap_or(0).min(1 << 20) as usize;
        let cus = units
            .iter()
            .map(|&unit| Cu {
                unit,
                simd_free: [all_waves(); SIMD_PER_CU as usize],
                lds_free: LDS_SIZE_KIB * 1024,
                groups_free: ((1u32 << GROUPS_PER_CU) - 1) as u16,
            })
            .collect();
        Self {
            cus,
            next: 0,
            scratch_free: {
                let mut words = vec![u64::MAX; slots.div_ceil(64)];
                if slots % 64 != 0 {
                    if let Some(last) = words.last_mut() {
                        *last = (1 << (slots % 64)) - 1;
                    }
                }
                words
            },
            scratch_slots: slots,
            scratch_free_count: slots,
            scratch_used: scratch_slots.is_some(),
            waiting: 0,
            next_group: 0,
        }
    }

    /// Why a workgroup of `waves` waves and `lds` bytes could never be
    /// placed, even on an idle GPU (it would wait forever).
    pub(crate) fn never_fits(&self, waves: u32, lds: u32) -> Option<String> {
        if self.cus.is_empty() {
            return Some("the queue's CU mask enables no CU".into());
        }
        if waves as usize > MAX_GROUP_WAVES {
            return Some(format!(
                "a workgroup of {waves} waves exceeds a CU's {} wave slots",
                SIMD_PER_CU * MAX_WAVES_PER_SIMD
            ));
        }
        if lds > LDS_SIZE_KIB * 1024 {
            return Some(format!("a workgroup's {lds} bytes of LDS exceed a CU's"));
        }
        if self.scratch_used && (self.scratch_slots as u64) < u64::from(waves) {
            return Some(format!(
                "the queue's scratch holds {} waves (COMPUTE_TMPRING_SIZE.WAVES and the backing memory); a workgroup has {waves}",
                self.scratch_slots
            ));
        }
        None
    }

    /// Places a workgroup of `waves` waves and `lds` bytes of LDS into
    /// `r` (its previous content replaced); false, leaving it empty, while
    /// no enabled CU (or not enough scratch) has room.
    pub(crate) fn place(&mut self, waves: u32, lds: u32, r: &mut Residency) -> bool {
        r.waves.clear();
        r.scratch.clear();
        if waves as usize > MAX_GROUP_WAVES
            || (self.scratch_used && self.scratch_free_count < waves as usize)
        {
            return false;
        }
        let n = self.cus.len();
        // From the CU after the last one used, round-robin.
        let mut at = self.next;
        let mut pick = None;
        for _ in 0..n {
            if at >= n {
                at = 0;
            }
            let c = &self.cus[at];
            if c.groups_free != 0
                && c.lds_free >= lds
                && c.simd_free.iter().map(|f| f.count_ones()).sum::<u32>() >= waves
            {
                pick = Some(at);
                break;
            }
            at += 1;
        }
        let Some(pick) = pick else { return false };
        self.next = if pick + 1 == n { 0 } else { pick + 1 };
        let c = &mut self.cus[pick];
        let group_slot = c.groups_free.trailing_zeros();
        c.groups_free &= !(1 << group_slot);
        c.lds_free -= lds;
        let mut free = c.simd_free.map(|f| f.count_ones());
        for _ in 0..waves {
            // The SIMD with the most free slots (the first of equals).
            let mut s = 0;
            for k in 1..SIMD_PER_CU as usize {
                if free[k] > free[s] {
                    s = k;
                }
            }
            free[s] -= 1;
            let slots = &mut c.simd_free[s];
            let id = slots.trailing_zeros();
            *slots &= !(1 << id);
            // At most MAX_GROUP_WAVES (checked above); SIMD and wave ids
            // below 4 and 16.
            let _ = r.waves.push((s as u8, id as u8));
        }
        if self.scratch_used {
            // The lowest free slots.
            for (w, word) in self.scratch_free.iter_mut().enumerate() {
                while *word != 0 && r.scratch.len() < waves as usize {
                    let b = word.trailing_zeros() as usize;
                    *word &= !(1 << b);
                    let _ = r.scratch.push((w * 64 + b) as u32);
                }
                if r.scratch.len() == waves as usize {
                    break;
                }
            }
            self.scratch_free_count -= r.scratch.len();
        }
        r.cu = pick;
        r.unit = c.unit;
        r.group_slot = group_slot;
        r.lds = lds;
        true
    }

    /// Gives a finished workgroup's slots back.
    pub(crate) fn release(&mut self, r: &Residency) {
        if let Some(c) = self.cus.get_mut(r.cu) {
            c.groups_free |= 1 << r.group_slot;
            c.lds_free += r.lds;
            for &(s, id) in &r.waves {
                c.simd_free[usize::from(s)] |= 1 << id;
            }
        }
        for &s in &r.scratch {
            let s = s as usize;
            if let Some(word) = self.scratch_free.get_mut(s / 64) {
                if *word & (1 << (s % 64)) == 0 {
                    *word |= 1 << (s % 64);
                    self.scratch_free_count += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(o: &mut Occupancy, waves: u32, lds: u32) -> Option<Residency> {
        let mut r = Residency::default();
        o.place(waves, lds, &mut r).then_some(r)
    }

    fn cus(n: u32) -> Vec<ComputeUnit> {
        (0..n)
            .map(|se| ComputeUnit {
                xcc: 0,
                se,
                sh: 0,
                cu: 0,
            })
            .collect()
    }

    #[test]
    fn groups_spread_and_fill_wave_slots() {
        let mut o = Occupancy::new(&cus(2), None);
        // 16-wave groups: 4 per SIMD, two fit a CU.
        let a = place(&mut o, 16, 0).unwrap();
        let b = place(&mut o, 16, 0).unwrap();
        assert_ne!(a.unit, b.unit, "round-robin over the CUs");
        let c = place(&mut o, 16, 0).unwrap();
        let d = place(&mut o, 16, 0).unwrap();
        assert!(place(&mut o, 1, 0).is_none(), "every wave slot taken");
        assert_eq!(c.waves[0], (0, 4), "wave id 4 of SIMD 0, after a's four");
        o.release(&a);
        assert!(place(&mut o, 16, 0).is_some());
        drop((b, c, d));
    }

    #[test]
    fn scratch_slots_bound_residency() {
        let mut o = Occupancy::new(&cus(4), Some(3));
        let a = place(&mut o, 2, 0).unwrap();
        assert_eq!(a.scratch, [0, 1]);
        assert!(place(&mut o, 2, 0).is_none(), "one scratch slot left");
        let b = place(&mut o, 1, 0).unwrap();
        assert_eq!(b.scratch, [2]);
        o.release(&a);
        assert_eq!(place(&mut o, 2, 0).unwrap().scratch, [0, 1]);
        assert!(o.never_fits(4, 0).is_some());
        assert!(Occupancy::new(&[], None).never_fits(1, 0).is_some());
    }

    #[test]
    fn lds_and_group_slots_bound_residency() {
        let mut o = Occupancy::new(&cus(1), None);
        let _a = place(&mut o, 1, 40 * 1024).unwrap();
        assert!(place(&mut o, 1, 40 * 1024).is_none());
        let mut o = Occupancy::new(&cus(1), None);
        let all: Vec<_> = (0..16).map(|_| place(&mut o, 1, 0).unwrap()).collect();
        assert!(place(&mut o, 1, 0).is_none(), "16 workgroups per CU");
        assert_eq!(all[15].group_slot, 15);
    }
}
