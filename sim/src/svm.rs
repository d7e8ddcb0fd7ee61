//! The SVM range list of a process (amdkfd's `kfd_svm.c`): attributes per
//! page range, split where a `SET_ATTR` starts or ends inside a range,
//! with the defaults `svm_range_new` gives a range no one set yet, and the
//! folding `svm_range_get_attr` does over the ranges a query overlaps.
//! Addresses are bytes here (amdkfd keeps pages); the ioctl checks that
//! they are page aligned. Which GPUs map a range is the device's business
//! (`device.rs`); this module only keeps and answers the attributes.

use std::collections::BTreeMap;

use kfd::ioctl::consts::*;
use kfd::ioctl::raw;
use rustix::io::Errno;

/// amdgpu's `svm_default_granularity` module parameter default: 2^9
/// pages (2 MiB) per migration.
pub(crate) const DEFAULT_GRANULARITY: u32 = 9;

/// amdkfd's `svm_range_apply_attrs` clamps a granularity to this.
pub(crate) const MAX_GRANULARITY: u32 = 0x3f;

/// One range's attributes (`struct svm_range`, the parts the sim models).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SvmRange {
    /// End (exclusive) of the range.
    pub(crate) end: u64,
    /// `KFD_IOCTL_SVM_FLAG_*`.
    pub(crate) flags: u32,
    /// gpu_id, `KFD_IOCTL_SVM_LOCATION_SYSMEM` or `_UNDEFINED`.
    pub(crate) preferred_loc: u32,
    /// Where the last prefetch moved the range (same values).
    pub(crate) prefetch_loc: u32,
    /// log2 of the migration granularity in pages.
    pub(crate) granularity: u32,
    /// `bitmap_access`: GPU indices given `ACCESS`.
    pub(crate) access: u64,
    /// `bitmap_aip`: GPU indices given `ACCESS_IN_PLACE`.
    pub(crate) in_place: u64,
}

impl SvmRange {
    /// `svm_range_new`: the default attributes; with XNACK on, every GPU
    /// has access.
    fn new(end: u64, default_access: u64) -> Self {
        Self {
            end,
            flags: KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT,
            preferred_loc: KFD_IOCTL_SVM_LOCATION_UNDEFINED,
            prefetch_loc: KFD_IOCTL_SVM_LOCATION_UNDEFINED,
            granularity: DEFAULT_GRANULARITY,
            access: default_access,
            in_place: 0,
        }
    }

    /// The GPU (index) reaches the range: `ACCESS` or `ACCESS_IN_PLACE`.
    pub(crate) fn reaches(&self, gpu: usize) -> bool {
        (self.access | self.in_place) & bit(gpu) != 0
    }

    /// `svm_range_apply_attrs`, after [`check_attrs`] accepted them.
    fn apply(&mut self, attrs: &[raw::SvmAttribute], gpu_index: &impl Fn(u32) -> Option<usize>) {
        for at in attrs {
            match at.type_ {
                KFD_IOCTL_SVM_ATTR_PREFERRED_LOC => self.preferred_loc = at.value,
                KFD_IOCTL_SVM_ATTR_PREFETCH_LOC => self.prefetch_loc = at.value,
                KFD_IOCTL_SVM_ATTR_ACCESS
                | KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE
                | KFD_IOCTL_SVM_ATTR_NO_ACCESS => {
                    let Some(b) = gpu_index(at.value).map(bit) else {
                        continue;
                    };
                    self.access &= !b;
                    self.in_place &= !b;
                    match at.type_ {
                        KFD_IOCTL_SVM_ATTR_ACCESS => self.access |= b,
                        KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE => self.in_place |= b,
                        _ => {}
                    }
                }
                KFD_IOCTL_SVM_ATTR_SET_FLAGS => self.flags |= at.value,
                KFD_IOCTL_SVM_ATTR_CLR_FLAGS => self.flags &= !at.value,
                KFD_IOCTL_SVM_ATTR_GRANULARITY => {
                    self.granularity = at.value.min(MAX_GRANULARITY);
                }
                _ => {}
            }
        }
    }
}

fn bit(gpu: usize) -> u64 {
    1u64.checked_shl(gpu as u32).unwrap_or(0)
}

/// `svm_range_check_attr`: every type known, every gpu_id one of ours
/// (a location may also be system memory; a preferred one undefined).
pub(crate) fn check_attrs(
    attrs: &[raw::SvmAttribute],
    gpu_index: &impl Fn(u32) -> Option<usize>,
) -> Result<(), Errno> {
    for at in attrs {
        let v = at.value;
        let ok = match at.type_ {
            KFD_IOCTL_SVM_ATTR_PREFERRED_LOC => {
                v == KFD_IOCTL_SVM_LOCATION_SYSMEM
                    || v == KFD_IOCTL_SVM_LOCATION_UNDEFINED
                    || gpu_index(v).is_some()
            }
            KFD_IOCTL_SVM_ATTR_PREFETCH_LOC => {
                v == KFD_IOCTL_SVM_LOCATION_SYSMEM || gpu_index(v).is_some()
            }
            KFD_IOCTL_SVM_ATTR_ACCESS
            | KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE
            | KFD_IOCTL_SVM_ATTR_NO_ACCESS => gpu_index(v).is_some(),
            KFD_IOCTL_SVM_ATTR_SET_FLAGS
            | KFD_IOCTL_SVM_ATTR_CLR_FLAGS
            | KFD_IOCTL_SVM_ATTR_GRANULARITY => true,
            _ => false,
        };
        if !ok {
            return Err(Errno::INVAL);
        }
    }
    Ok(())
}

/// The SVM ranges of a process, by start address; they never overlap.
#[derive(Debug, Default)]
pub(crate) struct SvmRanges {
    ranges: BTreeMap<u64, SvmRange>,
}

impl SvmRanges {
    /// `[lo, hi)`: the span of the ranges overlapping `[start, end)`,
    /// widened to `[start, end)` itself (what a set there may remap).
    pub(crate) fn span(&self, start: u64, end: u64) -> (u64, u64) {
        let lo = self
            .ranges
            .range(..=start)
            .next_back()
            .filter(|(_, r)| r.end > start)
            .map_or(start, |(s, _)| *s);
        let hi = self
            .ranges
            .range(..end)
            .next_back()
            .map_or(end, |(_, r)| r.end.max(end));
        (lo, hi)
    }

    /// Splits the range holding `at` inside it in two (`svm_range_split`).
    fn split_at(&mut self, at: u64) {
        let Some((&s, &r)) = self.ranges.range(..at).next_back() else {
            return;
        };
        if s < at && at < r.end {
            if let Some(head) = self.ranges.get_mut(&s) {
                head.end = at;
            }
            self.ranges.insert(at, r);
        }
    }

    /// `svm_range_set_attr`: the ranges of `[start, end)` split off at its
    /// edges, the holes filled with new default ranges (every GPU of
    /// `default_access` reaching them), then the attributes applied to
    /// each.
    pub(crate) fn set(
        &mut self,
        start: u64,
        end: u64,
        attrs: &[raw::SvmAttribute],
        default_access: u64,
        gpu_index: &impl Fn(u32) -> Option<usize>,
    ) {
        self.split_at(start);
        self.split_at(end);
        let mut holes = Vec::new();
        let mut at = start;
        for (&s, r) in self.ranges.range(start..end) {
            if s > at {
                holes.push((at, s));
            }
            at = r.end;
        }
        if at < end {
            holes.push((at, end));
        }
        for (s, e) in holes {
            self.ranges.insert(s, SvmRange::new(e, default_access));
        }
        for r in self.ranges.range_mut(start..end).map(|(_, r)| r) {
            r.apply(attrs, gpu_index);
        }
    }

    /// The ranges overlapping `[start, end)`, with their starts.
    pub(crate) fn overlapping(
        &self,
        start: u64,
        end: u64,
    ) -> impl Iterator<Item = (u64, &SvmRange)> {
        let first = self
            .ranges
            .range(..start)
            .next_back()
            .filter(|(_, r)| r.end > start);
        first
            .into_iter()
            .chain(self.ranges.range(start..end))
            .map(|(s, r)| (*s, r))
    }

    /// `svm_range_get_attr`: each query answered over the ranges
    /// `[start, end)` overlaps (holes between them do not count, as in
    /// amdkfd); no range at all answers the defaults. `ACCESS` queries
    /// name the GPU in their value and get their type rewritten to
    /// `ACCESS`, `ACCESS_IN_PLACE` or `NO_ACCESS`; `CLR_FLAGS` answers the
    /// flags no range has. A query of `ACCESS_IN_PLACE`, `NO_ACCESS`, an
    /// unknown type or an unknown GPU is `EINVAL`.
    pub(crate) fn get(
        &self,
        start: u64,
        end: u64,
        attrs: &mut [raw::SvmAttribute],
        default_access: u64,
        all_gpus: u64,
        gpu_index: &impl Fn(u32) -> Option<usize>,
    ) -> Result<(), Errno> {
        for at in attrs.iter() {
            match at.type_ {
                KFD_IOCTL_SVM_ATTR_PREFERRED_LOC
                | KFD_IOCTL_SVM_ATTR_PREFETCH_LOC
                | KFD_IOCTL_SVM_ATTR_ACCESS
                | KFD_IOCTL_SVM_ATTR_SET_FLAGS
                | KFD_IOCTL_SVM_ATTR_CLR_FLAGS
                | KFD_IOCTL_SVM_ATTR_GRANULARITY => {}
                _ => return Err(Errno::INVAL),
            }
        }
        let defaults = SvmRange::new(end, default_access);
        let undefined = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
        // A location answers only while every range agrees on one.
        let fold_loc = |acc: Option<u32>, v: u32| match acc {
            None => Some(v),
            Some(a) if a == v => Some(a),
            Some(_) => Some(undefined),
        };
        let mut any = false;
        let (mut preferred, mut prefetch) = (None, None);
        let (mut access, mut in_place) = (all_gpus, all_gpus);
        let (mut flags_and, mut flags_or) = (u32::MAX, 0u32);
        let mut granularity = u32::from(u8::MAX);
        for (_, r) in self.overlapping(start, end) {
            any = true;
            preferred = fold_loc(preferred, r.preferred_loc);
            prefetch = fold_loc(prefetch, r.prefetch_loc);
            access &= r.access;
            in_place &= r.in_place;
            flags_and &= r.flags;
            flags_or |= r.flags;
            granularity = granularity.min(r.granularity);
        }
        if !any {
            preferred = Some(defaults.preferred_loc);
            prefetch = Some(defaults.prefetch_loc);
            access = defaults.access;
            in_place = 0;
            flags_and = defaults.flags;
            flags_or = defaults.flags;
            granularity = defaults.granularity;
        }
        for at in attrs.iter_mut() {
            match at.type_ {
                KFD_IOCTL_SVM_ATTR_PREFERRED_LOC => at.value = preferred.unwrap_or(undefined),
                KFD_IOCTL_SVM_ATTR_PREFETCH_LOC => at.value = prefetch.unwrap_or(undefined),
                KFD_IOCTL_SVM_ATTR_ACCESS => {
                    let b = gpu_index(at.value).map(bit).ok_or(Errno::INVAL)?;
                    at.type_ = if access & b != 0 {
                        KFD_IOCTL_SVM_ATTR_ACCESS
                    } else if in_place & b != 0 {
                        KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE
                    } else {
                        KFD_IOCTL_SVM_ATTR_NO_ACCESS
                    };
                }
                KFD_IOCTL_SVM_ATTR_SET_FLAGS => at.value = flags_and,
                KFD_IOCTL_SVM_ATTR_CLR_FLAGS => at.value = !flags_or,
                _ => at.value = granularity,
            }
        }
        Ok(())
    }
}
