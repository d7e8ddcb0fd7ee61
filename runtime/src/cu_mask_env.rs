//! `HSA_CU_MASK`: the CUs every queue of a GPU starts with, in ROCr's
//! syntax (ROCr `core/util/flag.cpp`, `Flag::parse_masks`), whitespace
//! ignored:
//!
//! ```text
//! ID          = [0-9]+
//! ID_list     = (ID | ID-ID) [, (ID | ID-ID)]*     0,2-4,7
//! CU_list     = 0x[0-F]* | ID_list                 0x337F or 0,2-4,7
//! CU_Set      = GPU_list : CU_list                 0,2-4,7:0-15,32-47
//! HSA_CU_MASK = CU_Set [; CU_Set]*                 0,2-4,7:0-15,32-47; 3-9:0x337F
//! ```
//!
//! GPU indexes count the GPU agents after `ROCR_VISIBLE_DEVICES`. IDs above
//! the largest GPU index or CU are dropped, as ROCr drops them. Where ROCr
//! silently ignores a malformed set and every set after it, this parser
//! rejects the variable with an error naming the set and what is wrong, so
//! that a typo does not quietly leave the GPUs unmasked.

use std::collections::BTreeMap;
use std::fmt;

/// The masks `HSA_CU_MASK` gives, by GPU index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CuMaskEnv {
    masks: BTreeMap<u32, Vec<u32>>,
}

/// Why `HSA_CU_MASK` was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CuMaskEnvError {
    /// The CU set (1-based, in `;` order).
    pub set: usize,
    /// The set's text, whitespace removed.
    pub text: String,
    /// What is wrong with it.
    pub what: String,
}

impl fmt::Display for CuMaskEnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "HSA_CU_MASK: CU set {} ({:?}): {}",
            self.set, self.text, self.what
        )
    }
}

impl std::error::Error for CuMaskEnvError {}

impl CuMaskEnv {
    /// Parses `var` for `max_gpu` GPU agents and at most `max_cu` CUs a GPU
    /// (the limits ROCr passes: the GPU count and the largest CU count).
    pub fn parse(var: &str, max_gpu: u32, max_cu: u32) -> Result<Self, CuMaskEnvError> {
        let var: String = var
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_uppercase();
        let mut env = Self::default();
        if var.is_empty() {
            return Ok(env);
        }
        for (i, set) in var.split(';').enumerate() {
            let err = |what: String| CuMaskEnvError {
                set: i + 1,
                text: set.to_string(),
                what,
            };
            // ROCr's split drops a trailing empty piece ("0:1;").
            if set.is_empty() && i + 1 == var.split(';').count() {
                break;
            }
            let Some((gpus, cus)) = set.split_once(':') else {
                return Err(err("expected GPU_list:CU_list".into()));
            };
            if cus.contains(':') {
                return Err(err("more than one ':'".into()));
            }
            let mask = if let Some(hex) = cus.strip_prefix("0X") {
                hex_mask(hex, max_cu).map_err(err)?
            } else {
                let ids = id_list(cus, max_cu).map_err(|e| err(format!("CU list: {e}")))?;
                let mut mask = vec![0u32; (ids.last().copied().unwrap_or(0) / 32 + 1) as usize];
                for id in ids {
                    mask[(id / 32) as usize] |= 1 << (id % 32);
                }
                mask
            };
            let gpus = id_list(gpus, max_gpu).map_err(|e| err(format!("GPU list: {e}")))?;
            if let Some(g) = gpus.iter().find(|g| env.masks.contains_key(g)) {
                return Err(err(format!("GPU {g} is given in an earlier CU set")));
            }
            for g in gpus {
                env.masks.insert(g, mask.clone());
            }
        }
        Ok(env)
    }

    /// The mask of GPU `index`, if `HSA_CU_MASK` names it (bit `i` of word
    /// `i / 32` enables CU `i`).
    pub fn mask(&self, index: u32) -> Option<&[u32]> {
        self.masks.get(&index).map(Vec::as_slice)
    }

    /// Whether no GPU is masked.
    pub fn is_empty(&self) -> bool {
        self.masks.is_empty()
    }
}

/// `0x...` (prefix removed): least significant dword last in the text;
/// dwords past `max_cu` dropped, high zero dwords trimmed; no CU set is an
/// error.
fn hex_mask(hex: &str, max_cu: u32) -> Result<Vec<u32>, String> {
    if let Some(c) = hex.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(format!("{c:?} is no hex digit"));
    }
    let digits = hex.as_bytes();
    let mut mask = Vec::new();
    let mut end = digits.len();
    while end > 0 {
        let start = end.saturating_sub(8);
        let chunk = std::str::from_utf8(&digits[start..end]).map_err(|e| e.to_string())?;
        mask.push(u32::from_str_radix(chunk, 16).map_err(|e| e.to_string())?);
        end = start;
    }
    mask.truncate((max_cu / 32 + 1) as usize);
    while mask.last() == Some(&0) {
        mask.pop();
    }
    if mask.is_empty() {
        return Err("the mask enables no CU".into());
    }
    Ok(mask)
}

/// `ID | ID-ID, ...`: sorted, every ID at most `max` (larger ones dropped,
/// ranges clipped); a repeated ID, an inverted range, a non-decimal ID or
/// nothing left is an error.
fn id_list(s: &str, max: u32) -> Result<Vec<u32>, String> {
    let id = |t: &str| -> Result<u32, String> {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{t:?} is no decimal ID"));
        }
        t.parse::<u32>().map_err(|_| format!("{t} is too large"))
    };
    let mut ids = Vec::new();
    for item in s.split(',') {
        let mut parts = item.split('-');
        let first = id(parts.next().unwrap_or(""))?;
        let last = match parts.next() {
            None => first,
            Some(t) => id(t)?,
        };
        if parts.next().is_some() {
            return Err(format!("{item:?} has more than one '-'"));
        }
        if last < first {
            return Err(format!("range {item} is inverted"));
        }
        if first <= max {
            ids.extend(first..=last.min(max));
        }
    }
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("ID {} is repeated", w[0]));
    }
    if ids.is_empty() {
        return Err(format!("no ID at most {max}"));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocr_examples() {
        // flag.cpp's examples, one set at a time ...
        let e = CuMaskEnv::parse("0,2-4,7:0-15,32-47", 10, 104).unwrap();
        for g in [0, 2, 3, 4, 7] {
            assert_eq!(e.mask(g), Some(&[0xffff, 0xffff][..]), "GPU {g}");
        }
        let e = CuMaskEnv::parse("3-9:0x337F", 10, 104).unwrap();
        for g in 3..=9 {
            assert_eq!(e.mask(g), Some(&[0x337f][..]), "GPU {g}");
        }
        // ... and together, which repeats GPUs 3, 4 and 7: ROCr drops the
        // second set, here it is an error.
        let err = CuMaskEnv::parse("0,2-4,7:0-15,32-47; 3-9:0x337F", 10, 104).unwrap_err();
        assert_eq!(err.set, 2);
        assert!(err.what.contains("GPU 3"), "{err}");
        let e = CuMaskEnv::parse("0,2,7:0-15,32-47; 3-6,8,9:0x337F", 10, 104).unwrap();
        for g in [3, 4, 5, 6, 8, 9] {
            assert_eq!(e.mask(g), Some(&[0x337f][..]), "GPU {g}");
        }
        assert_eq!(e.mask(1), None, "unlisted GPUs are not restricted");
        assert_eq!(e.mask(10), None);
        // Whitespace anywhere, lower-case hex.
        let e = CuMaskEnv::parse(" 0 : 0x 1_0".replace('_', "").as_str(), 1, 104).unwrap();
        assert_eq!(e.mask(0), Some(&[0x10][..]));
        assert!(CuMaskEnv::parse("", 1, 104).unwrap().is_empty());
        assert!(CuMaskEnv::parse("  ", 1, 104).unwrap().is_empty());
    }

    #[test]
    fn hex_masks_are_least_significant_dword_last() {
        let e = CuMaskEnv::parse("0:0x10000000F", 1, 104).unwrap();
        assert_eq!(e.mask(0), Some(&[0xf, 0x1][..]));
        // High zero dwords trimmed; dwords past the CUs dropped.
        let e = CuMaskEnv::parse("0:0x000000000000000000000003", 1, 104).unwrap();
        assert_eq!(e.mask(0), Some(&[3][..]));
        let e = CuMaskEnv::parse("0:0x1000000000000000000000000000000000000001", 1, 40).unwrap();
        assert_eq!(e.mask(0), Some(&[1][..]));
    }

    #[test]
    fn ids_past_the_limits_are_dropped() {
        let e = CuMaskEnv::parse("0-5:100-200", 1, 103).unwrap();
        assert_eq!(e.mask(0), Some(&[0, 0, 0, 0xf0][..]));
        assert_eq!(e.mask(1), Some(&[0, 0, 0, 0xf0][..]));
        assert_eq!(e.mask(2), None);
    }

    #[test]
    fn malformed_sets_are_errors_naming_the_set() {
        let bad = |s: &str| CuMaskEnv::parse(s, 4, 104).unwrap_err();
        let e = bad("0:0-3;1:0x0");
        assert_eq!((e.set, e.text.as_str()), (2, "1:0X0"));
        assert!(e.what.contains("no CU"), "{e}");
        assert!(bad("0:0x12G").what.contains("no hex digit"));
        assert!(bad("0").what.contains("GPU_list:CU_list"));
        assert!(bad("0:1:2").what.contains("':'"));
        assert!(bad("0:3-1").what.contains("inverted"));
        assert!(bad("0:1-2-3").what.contains("'-'"));
        assert!(bad("0:1,1").what.contains("repeated"));
        assert!(bad("0:0-4,3").what.contains("repeated"));
        assert!(bad("0:a").what.contains("decimal"));
        assert!(bad("0:-1").what.contains("decimal"));
        assert!(bad("0:1;0:2").what.contains("earlier CU set"));
        assert!(bad("9:1").what.contains("GPU list"));
        assert!(bad("0:200").what.contains("CU list"));
        assert!(bad("0:1;;1:2").what.contains("GPU_list:CU_list"));
        assert_eq!(
            bad("0:x").to_string(),
            "HSA_CU_MASK: CU set 1 (\"0:X\"): CU list: \"X\" is no decimal ID"
        );
        // A trailing ';' is no set.
        assert!(CuMaskEnv::parse("0:1;", 4, 104).is_ok());
    }
}
