//! The GPU's compute units as the dispatcher (SPI) sees them, and which of
//! them a queue's CU mask enables.
//!
//! A CU is named as `HW_REG_HW_ID` names it on GFX9 (AMDGPUUsage and
//! LLVM's `SIDefines.h`: CU_ID [11:8], SH_ID [12], SE_ID [15:13] on
//! gfx90a/gfx942, whose 8-engine parts use the third SE bit), plus the XCC
//! it sits in on multi-XCC parts. The order of a CU mask's bits is
//! amdkfd's `mqd_symmetrically_map_cu_mask` (kfd_mqd_manager.c): bit `i`
//! goes to XCC `i % xccs`, and within an XCC the bits run CU-major, then
//! shader array, then shader engine (XCC 0's bit 0 is SE0 CU0, its bit 1
//! SE1 CU0, ...), skipping CUs a shader array does not have.

use crate::topology::GpuSpec;

/// One compute unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputeUnit {
    /// The XCC (0 on single-XCC parts).
    pub xcc: u32,
    /// Shader engine within the XCC.
    pub se: u32,
    /// Shader array within the engine.
    pub sh: u32,
    /// CU within the shader array.
    pub cu: u32,
}

impl ComputeUnit {
    /// Its CU_ID, SH_ID and SE_ID fields of `HW_REG_HW_ID` (GFX9).
    pub const fn hw_id_bits(&self) -> u32 {
        ((self.cu & 0xf) << 8) | ((self.sh & 1) << 12) | ((self.se & 7) << 13)
    }
}

/// Where a GPU's CUs are: the active CUs of each shader array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CuLayout {
    xccs: u32,
    engines: u32,
    arrays: u32,
    /// Active CUs of XCC `x`, engine `se`, array `sh` at
    /// `(x * engines + se) * arrays + sh`.
    active: Vec<u32>,
}

/// CUs a shader array can have (the 16 bits per array of
/// `COMPUTE_STATIC_THREAD_MGMT_SE*`).
const MAX_CU_PER_SH: u32 = 16;

impl CuLayout {
    /// The layout of `spec`: its CUs (`simd_count / SIMD_PER_CU`) spread
    /// over its shader arrays, the first arrays taking one more where they
    /// do not divide evenly (a harvested part's missing CUs are the high
    /// ones of an array, as amdkfd's mapping expects).
    pub(crate) fn of(spec: &GpuSpec) -> Self {
        let xccs = spec.num_xcc.max(1);
        let engines = (spec.array_count / xccs).max(1);
        let arrays = 1;
        let slots = (xccs * engines * arrays) as usize;
        let total = spec.simd_count / crate::topology::SIMD_PER_CU;
        let per = spec.cu_per_simd_array.min(MAX_CU_PER_SH);
        let base = (total / slots as u32).min(per);
        let extra = total.saturating_sub(base * slots as u32);
        let active = (0..slots as u32)
            .map(|i| if i < extra { (base + 1).min(per) } else { base })
            .collect();
        Self {
            xccs,
            engines,
            arrays,
            active,
        }
    }

    /// The active CUs of shader array `sh` of engine `se` of XCC `xcc`.
    pub(crate) fn active(&self, xcc: u32, se: u32, sh: u32) -> u32 {
        if se >= self.engines || sh >= self.arrays {
            return 0;
        }
        let at = ((xcc * self.engines + se) * self.arrays + sh) as usize;
        self.active.get(at).copied().unwrap_or(0)
    }

    /// Engines per XCC.
    pub(crate) fn engines(&self) -> u32 {
        self.engines
    }

    /// Every CU, in the order of the CU mask's bits.
    pub(crate) fn in_mask_order(&self) -> Vec<ComputeUnit> {
        let mut per_xcc: Vec<Vec<ComputeUnit>> = Vec::new();
        for xcc in 0..self.xccs {
            let mut list = Vec::new();
            for cu in 0..MAX_CU_PER_SH {
                for sh in 0..self.arrays {
                    for se in 0..self.engines {
                        let at = ((xcc * self.engines + se) * self.arrays + sh) as usize;
                        if self.active.get(at).is_some_and(|&n| n > cu) {
                            list.push(ComputeUnit { xcc, se, sh, cu });
                        }
                    }
                }
            }
            per_xcc.push(list);
        }
        // Bit i belongs to XCC i % xccs: interleave the XCCs' lists.
        let longest = per_xcc.iter().map(Vec::len).max().unwrap_or(0);
        (0..longest)
            .flat_map(|k| per_xcc.iter().filter_map(move |l| l.get(k).copied()))
            .collect()
    }

    /// The CUs `mask` enables (bit `i` of word `i / 32`); an empty mask
    /// (never set) enables every CU, as a queue starts.
    pub(crate) fn enabled(&self, mask: &[u32]) -> Vec<ComputeUnit> {
        let all = self.in_mask_order();
        if mask.is_empty() {
            return all;
        }
        all.into_iter()
            .enumerate()
            .filter(|(i, _)| mask.get(i / 32).is_some_and(|w| w & (1 << (i % 32)) != 0))
            .map(|(_, c)| c)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Board;

    #[test]
    fn mi210_bits_run_across_engines_first() {
        let l = CuLayout::of(&Board::Mi210.spec());
        let all = l.in_mask_order();
        assert_eq!(all.len(), 104);
        let cu = |xcc, se, cu| ComputeUnit { xcc, se, sh: 0, cu };
        // amdkfd's examples: bit 0 SE0 CU0, bit 1 SE1 CU0, ..., bit 8 SE0 CU1.
        assert_eq!(all[0], cu(0, 0, 0));
        assert_eq!(all[1], cu(0, 1, 0));
        assert_eq!(all[7], cu(0, 7, 0));
        assert_eq!(all[8], cu(0, 0, 1));
        assert_eq!(all[103], cu(0, 7, 12));
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 104, "every CU once");
        assert_eq!(l.enabled(&[]).len(), 104);
        assert_eq!(l.enabled(&[0b101, 0, 0, 0]), vec![cu(0, 0, 0), cu(0, 2, 0)]);
        assert!(l.enabled(&[0, 0, 0, 0]).is_empty());
        // Bits past the CUs enable nothing.
        assert!(l.enabled(&[0, 0, 0, 0xffff_ff00]).is_empty());
    }

    #[test]
    fn harvested_arrays_lose_their_high_cus() {
        // MI250X GCD: 110 CUs over 8 arrays of up to 14: six of 14, two of 13.
        let l = CuLayout::of(&Board::Mi250x.spec());
        let all = l.in_mask_order();
        assert_eq!(all.len(), 110);
        let last: Vec<_> = all[104..].iter().map(|c| (c.se, c.cu)).collect();
        assert_eq!(last, [(0, 13), (1, 13), (2, 13), (3, 13), (4, 13), (5, 13)]);
    }

    #[test]
    fn xccs_interleave() {
        // MI300X: 8 XCCs of 4 engines, 304 CUs.
        let l = CuLayout::of(&Board::Mi300x.spec());
        let all = l.in_mask_order();
        assert_eq!(all.len(), 304);
        assert_eq!((all[0].xcc, all[0].se), (0, 0));
        assert_eq!((all[1].xcc, all[1].se), (1, 0));
        assert_eq!((all[8].xcc, all[8].se), (0, 1));
    }
}
