//! Shared virtual memory (`hsa_amd_svm_attributes_set`/`_get`,
//! `hsa_amd_svm_prefetch_async`, hsa_ext_amd.h), as ROCr's
//! `Runtime::SetSvmAttrib`, `GetSvmAttrib` and `SvmPrefetch` turn them into
//! `AMDKFD_IOC_SVM` attributes: the range is aligned out to pages, agents
//! become KFD gpu_ids (the CPU is system memory, or the
//! `KFD_IOCTL_SVM_FLAG_HOST_ACCESS` flag for access attributes), and the
//! driver maps the range on the GPUs given access. HIP's
//! `hipMallocManaged` is the user: it reserves host memory and gives the
//! device access to it.
//!
//! A prefetch runs on the runtime's async-handler thread once its
//! dependency signals are 0 (the last one first, as ROCr waits for them),
//! sets `KFD_IOCTL_SVM_ATTR_PREFETCH_LOC`, then decrements the completion
//! signal. Until then [`SvmQuery::PrefetchLocation`] answers from the
//! pending prefetches, as ROCr's `GetSVMPrefetchAgent` does.

#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use kfd::ioctl::consts::*;
use kfd::ioctl::raw;
use signal_core::{Condition, RmwOrder};

use crate::agent::Agent;
use crate::signal::{Signal, SignalKind};
use crate::status::{Error, Result, Status};
use crate::system::{Core, Runtime};

/// One attribute of `hsa_amd_svm_attribute_pair_t` for
/// `hsa_amd_svm_attributes_set`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmAttribute {
    /// `HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG`: fine grained (coherent) or coarse.
    GlobalFlag {
        /// `HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED`.
        fine: bool,
    },
    /// `HSA_AMD_SVM_ATTRIB_READ_ONLY` (`KFD_IOCTL_SVM_FLAG_GPU_RO`).
    ReadOnly(bool),
    /// `HSA_AMD_SVM_ATTRIB_HIVE_LOCAL` (`KFD_IOCTL_SVM_FLAG_HIVE_LOCAL`).
    HiveLocal(bool),
    /// `HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY`: log2 of the pages moved
    /// at once (ROCr caps it at 18, 1 GiB).
    MigrationGranularity(u64),
    /// `HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION`; `None` (the null agent):
    /// no preference.
    PreferredLocation(Option<Agent>),
    /// `HSA_AMD_SVM_ATTRIB_READ_MOSTLY` (`KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY`).
    ReadMostly(bool),
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE`.
    Accessible(Agent),
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE`.
    AccessibleInPlace(Agent),
    /// `HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS`.
    NoAccess(Agent),
}

/// One query of `hsa_amd_svm_attributes_get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmQuery {
    /// `HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG`: answers [`SvmValue::Model`].
    GlobalFlag,
    /// `HSA_AMD_SVM_ATTRIB_READ_ONLY`: answers [`SvmValue::Flag`].
    ReadOnly,
    /// `HSA_AMD_SVM_ATTRIB_HIVE_LOCAL`: answers [`SvmValue::Flag`].
    HiveLocal,
    /// `HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY`: [`SvmValue::Granularity`].
    MigrationGranularity,
    /// `HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION`: [`SvmValue::Location`].
    PreferredLocation,
    /// `HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION`: [`SvmValue::Location`].
    PrefetchLocation,
    /// `HSA_AMD_SVM_ATTRIB_READ_MOSTLY`: answers [`SvmValue::Flag`].
    ReadMostly,
    /// `HSA_AMD_SVM_ATTRIB_ACCESS_QUERY` of an agent: [`SvmValue::Access`].
    Access(Agent),
}

/// `hsa_amd_svm_model_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmModel {
    /// `HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED`.
    FineGrained,
    /// `HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED`.
    CoarseGrained,
    /// `HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE`: parts of the range differ.
    Indeterminate,
}

/// What an `HSA_AMD_SVM_ATTRIB_ACCESS_QUERY` answers (the attribute it
/// rewrites the pair to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmAccess {
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE`.
    Accessible,
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE`.
    AccessibleInPlace,
    /// `HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS`.
    NoAccess,
    /// The pair stays `HSA_AMD_SVM_ATTRIB_ACCESS_QUERY`: ROCr's answer for
    /// a CPU agent when not all of the range has host access.
    Unreported,
}

/// The answer to one [`SvmQuery`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmValue {
    /// To [`SvmQuery::GlobalFlag`].
    Model(SvmModel),
    /// To a flag query: the flag is set on all of the range.
    Flag(bool),
    /// To [`SvmQuery::MigrationGranularity`]: the smallest in the range.
    Granularity(u32),
    /// To a location query: `None` when none is set or parts differ.
    Location(Option<Agent>),
    /// To [`SvmQuery::Access`].
    Access(SvmAccess),
}

const PAGE: u64 = 4096;

/// ROCr's cap on `HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY` (2^18 pages).
const MAX_GRANULARITY: u64 = 18;

/// `[start, end)` aligned out to pages. A null pointer or zero size is
/// `HSA_STATUS_ERROR`, ROCr's answer (it hands the range to
/// `hsaKmtSVMSetAttr`, and KFD refuses an empty range or page 0: AMD's
/// ROCr on the sim answers so); an overflowing range `INVALID_ARGUMENT`.
fn page_range(what: &str, ptr: u64, size: u64) -> Result<(u64, u64)> {
    if ptr == 0 || size == 0 {
        return Err(Error::new(
            Status::Error,
            format!("{what} of a null pointer or zero bytes: KFD refuses the range"),
        ));
    }
    let start = ptr & !(PAGE - 1);
    let end = ptr
        .checked_add(size)
        .and_then(|e| e.checked_next_multiple_of(PAGE))
        .ok_or_else(|| {
            Error::invalid_argument(format!("{what}: {ptr:#x} + {size:#x} overflows"))
        })?;
    Ok((start, end))
}

/// A prefetch not yet done: its page range's destination.
#[derive(Debug, Clone, Copy)]
struct Pending {
    end: u64,
    /// KFD location: gpu_id, or `KFD_IOCTL_SVM_LOCATION_SYSMEM`.
    loc: u32,
    op: u64,
}

/// The prefetches in flight (ROCr's `prefetch_map_`): a newer prefetch
/// takes over the part of an older one's range it covers.
#[derive(Debug, Default)]
pub(crate) struct Prefetches {
    ranges: Mutex<BTreeMap<u64, Pending>>,
    next_op: AtomicU64,
}

impl Prefetches {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Pending>> {
        self.ranges.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a prefetch of `[start, end)` to `loc`; returns its id.
    fn insert(&self, start: u64, end: u64, loc: u32) -> u64 {
        let op = self.next_op.fetch_add(1, Ordering::Relaxed);
        let mut m = self.lock();
        let overlapping: Vec<(u64, Pending)> = m
            .range(..end)
            .filter(|(s, p)| p.end > start && **s < end)
            .map(|(s, p)| (*s, *p))
            .collect();
        for (s, p) in overlapping {
            m.remove(&s);
            if s < start {
                m.insert(s, Pending { end: start, ..p });
            }
            if p.end > end {
                m.insert(end, p);
            }
        }
        m.insert(start, Pending { end, loc, op });
        op
    }

    fn remove(&self, op: u64) {
        self.lock().retain(|_, p| p.op != op);
    }

    /// What the pending prefetches say of `[start, end)`; `None` when
    /// they disagree on the destination.
    fn query(&self, start: u64, end: u64) -> Option<PendingView> {
        let m = self.lock();
        let mut view = PendingView {
            loc: None,
            holes: Vec::new(),
        };
        let mut at = start;
        for (&s, p) in m.range(..end).filter(|(_, p)| p.end > start) {
            if view.loc.is_some_and(|l| l != p.loc) {
                return None;
            }
            view.loc = Some(p.loc);
            if s > at {
                view.holes.push((at, s));
            }
            at = at.max(p.end);
        }
        if at < end {
            view.holes.push((at, end));
        }
        Some(view)
    }
}

/// The pending prefetches over a range that agree.
struct PendingView {
    /// Their destination (none pending: `None`).
    loc: Option<u32>,
    /// The parts no pending prefetch covers.
    holes: Vec<(u64, u64)>,
}

impl Runtime {
    /// The agent of a KFD location: a GPU's gpu_id, or system memory (the
    /// first CPU agent); `KFD_IOCTL_SVM_LOCATION_UNDEFINED` is none.
    fn svm_location_agent(&self, loc: u32) -> Result<Option<Agent>> {
        if loc == KFD_IOCTL_SVM_LOCATION_UNDEFINED {
            return Ok(None);
        }
        let found = self.agents().find(|&a| {
            self.agent(a).is_ok_and(|r| {
                if loc == KFD_IOCTL_SVM_LOCATION_SYSMEM {
                    !r.is_gpu()
                } else {
                    r.is_gpu() && r.gpu_id == loc
                }
            })
        });
        found.map(Some).ok_or_else(|| {
            Error::new(
                Status::Error,
                format!("AMDKFD_IOC_SVM answered location {loc:#x}, which is no agent's"),
            )
        })
    }

    /// `hsa_amd_svm_attributes_set` over `ptr..ptr + size` (aligned out to
    /// pages), as ROCr's `SetSvmAttrib`: flags gathered into one
    /// `CLR_FLAGS` and one `SET_FLAGS` pair, CPU access as
    /// `KFD_IOCTL_SVM_FLAG_HOST_ACCESS` (granted if any attribute grants it).
    ///
    /// Errors: a null pointer or zero size: `HSA_STATUS_ERROR` (as ROCr,
    /// whose driver call fails); an overflowing range: `INVALID_ARGUMENT`;
    /// an unknown agent: `INVALID_AGENT`; an attribute
    /// given twice, or two access attributes for one agent:
    /// `INCOMPATIBLE_ARGUMENTS`; the driver's refusal (`EINVAL` for memory
    /// overlapping a buffer of a GPU given access, `EFAULT` for memory that
    /// is not mapped): `HSA_STATUS_ERROR`.
    ///
    /// # Safety
    ///
    /// The range is memory of this process that stays mapped while a GPU
    /// has access (until [`NoAccess`](SvmAttribute::NoAccess) for it).
    pub unsafe fn svm_set_attributes(
        &self,
        ptr: u64,
        size: u64,
        attrs: &[SvmAttribute],
    ) -> Result<()> {
        let (start, end) = page_range("hsa_amd_svm_attributes_set", ptr, size)?;
        let attr = |type_, value| raw::SvmAttribute { type_, value };
        let (mut set, mut clear) = (0u32, 0u32);
        let mut flag = |on: bool, f: u32| {
            if on {
                set |= f;
            } else {
                clear |= f;
            }
        };
        let mut seen_kinds = 0u32;
        let mut seen_agents: Vec<Agent> = Vec::new();
        let mut kfd_attrs = Vec::with_capacity(attrs.len() + 2);
        for (i, &a) in attrs.iter().enumerate() {
            // Each non-agent attribute at most once (ROCr's `Check`), by
            // its hsa_amd_svm_attribute_t value.
            let kind = match a {
                SvmAttribute::GlobalFlag { .. } => Some(0),
                SvmAttribute::ReadOnly(_) => Some(1),
                SvmAttribute::HiveLocal(_) => Some(2),
                SvmAttribute::MigrationGranularity(_) => Some(3),
                SvmAttribute::PreferredLocation(_) => Some(4),
                SvmAttribute::ReadMostly(_) => Some(6),
                _ => None,
            };
            if let Some(k) = kind {
                if seen_kinds & (1 << k) != 0 {
                    return Err(Error::new(
                        Status::IncompatibleArguments,
                        format!("hsa_amd_svm_attributes_set: attribute {i} ({a:?}) given twice"),
                    ));
                }
                seen_kinds |= 1 << k;
            }
            match a {
                SvmAttribute::GlobalFlag { fine } => flag(fine, KFD_IOCTL_SVM_FLAG_COHERENT),
                SvmAttribute::ReadOnly(on) => flag(on, KFD_IOCTL_SVM_FLAG_GPU_RO),
                SvmAttribute::HiveLocal(on) => flag(on, KFD_IOCTL_SVM_FLAG_HIVE_LOCAL),
                SvmAttribute::ReadMostly(on) => flag(on, KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY),
                SvmAttribute::MigrationGranularity(g) => kfd_attrs.push(attr(
                    KFD_IOCTL_SVM_ATTR_GRANULARITY,
                    g.min(MAX_GRANULARITY) as u32,
                )),
                SvmAttribute::PreferredLocation(agent) => {
                    let loc = match agent {
                        None => KFD_IOCTL_SVM_LOCATION_UNDEFINED,
                        Some(a) => self.agent(a)?.gpu_id,
                    };
                    kfd_attrs.push(attr(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, loc));
                }
                SvmAttribute::Accessible(agent)
                | SvmAttribute::AccessibleInPlace(agent)
                | SvmAttribute::NoAccess(agent) => {
                    let r = self.agent(agent)?;
                    if seen_agents.contains(&agent) {
                        return Err(Error::new(
                            Status::IncompatibleArguments,
                            format!(
                                "hsa_amd_svm_attributes_set: attribute {i} is the second access attribute of agent {}",
                                agent.index()
                            ),
                        ));
                    }
                    seen_agents.push(agent);
                    let grant = !matches!(a, SvmAttribute::NoAccess(_));
                    if !r.is_gpu() {
                        flag(grant, KFD_IOCTL_SVM_FLAG_HOST_ACCESS);
                        continue;
                    }
                    let t = match a {
                        SvmAttribute::Accessible(_) => KFD_IOCTL_SVM_ATTR_ACCESS,
                        SvmAttribute::AccessibleInPlace(_) => KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE,
                        _ => KFD_IOCTL_SVM_ATTR_NO_ACCESS,
                    };
                    kfd_attrs.push(attr(t, r.gpu_id));
                }
            }
        }
        // ROCr: host access if any CPU needs it.
        if set & KFD_IOCTL_SVM_FLAG_HOST_ACCESS != 0 {
            clear &= !KFD_IOCTL_SVM_FLAG_HOST_ACCESS;
        }
        if clear != 0 {
            kfd_attrs.push(attr(KFD_IOCTL_SVM_ATTR_CLR_FLAGS, clear));
        }
        if set != 0 {
            kfd_attrs.push(attr(KFD_IOCTL_SVM_ATTR_SET_FLAGS, set));
        }
        self.core
            .driver
            .svm_set_attr(start, end - start, &kfd_attrs)
            .map_err(|e| Error::driver("AMDKFD_IOC_SVM (SET_ATTR)", e))
    }

    /// `hsa_amd_svm_attributes_get` over `ptr..ptr + size` (aligned out to
    /// pages), as ROCr's `GetSvmAttrib` reads KFD's answer: flags from
    /// `SET_FLAGS` (set on all of the range) and `CLR_FLAGS` (set on none),
    /// a GPU's access from an `ACCESS` query of its gpu_id, a CPU's from
    /// `KFD_IOCTL_SVM_FLAG_HOST_ACCESS`, the prefetch location from the
    /// pending prefetches and then the driver.
    ///
    /// Errors: as [`svm_set_attributes`](Self::svm_set_attributes) for the
    /// range and agents; the driver's refusal: `HSA_STATUS_ERROR`.
    pub fn svm_get_attributes(
        &self,
        ptr: u64,
        size: u64,
        queries: &[SvmQuery],
    ) -> Result<Vec<SvmValue>> {
        let (start, end) = page_range("hsa_amd_svm_attributes_get", ptr, size)?;
        let attr = |type_, value| raw::SvmAttribute { type_, value };
        let mut kfd_attrs = Vec::with_capacity(queries.len() + 2);
        // Where each query's answer is in `kfd_attrs` (None: the flags).
        let mut index = Vec::with_capacity(queries.len());
        let mut flags = false;
        for &q in queries {
            let t = match q {
                SvmQuery::MigrationGranularity => Some(attr(KFD_IOCTL_SVM_ATTR_GRANULARITY, 0)),
                SvmQuery::PreferredLocation => Some(attr(KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0)),
                SvmQuery::PrefetchLocation => None,
                SvmQuery::Access(agent) => {
                    let r = self.agent(agent)?;
                    r.is_gpu()
                        .then(|| attr(KFD_IOCTL_SVM_ATTR_ACCESS, r.gpu_id))
                }
                SvmQuery::GlobalFlag
                | SvmQuery::ReadOnly
                | SvmQuery::HiveLocal
                | SvmQuery::ReadMostly => None,
            };
            flags |= t.is_none() && q != SvmQuery::PrefetchLocation;
            index.push(t.map(|t| {
                kfd_attrs.push(t);
                kfd_attrs.len() - 1
            }));
        }
        if flags {
            kfd_attrs.push(attr(KFD_IOCTL_SVM_ATTR_CLR_FLAGS, 0));
            kfd_attrs.push(attr(KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0));
        }
        if !kfd_attrs.is_empty() {
            self.core
                .driver
                .svm_get_attr(start, end - start, &mut kfd_attrs)
                .map_err(|e| Error::driver("AMDKFD_IOC_SVM (GET_ATTR)", e))?;
        }
        let (set, clear) = match kfd_attrs.as_slice() {
            [.., c, s] if flags => (s.value, c.value),
            _ => (0, 0),
        };
        let mut out = Vec::with_capacity(queries.len());
        for (&q, i) in queries.iter().zip(index) {
            let kfd = i.and_then(|i| kfd_attrs.get(i)).copied();
            out.push(match (q, kfd) {
                (SvmQuery::GlobalFlag, _) => {
                    SvmValue::Model(if set & KFD_IOCTL_SVM_FLAG_COHERENT != 0 {
                        SvmModel::FineGrained
                    } else if clear & KFD_IOCTL_SVM_FLAG_COHERENT != 0 {
                        SvmModel::CoarseGrained
                    } else {
                        SvmModel::Indeterminate
                    })
                }
                (SvmQuery::ReadOnly, _) => SvmValue::Flag(set & KFD_IOCTL_SVM_FLAG_GPU_RO != 0),
                (SvmQuery::HiveLocal, _) => {
                    SvmValue::Flag(set & KFD_IOCTL_SVM_FLAG_HIVE_LOCAL != 0)
                }
                (SvmQuery::ReadMostly, _) => {
                    SvmValue::Flag(set & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY != 0)
                }
                (SvmQuery::PrefetchLocation, _) => {
                    SvmValue::Location(self.svm_prefetch_agent(start, end)?)
                }
                (SvmQuery::Access(_), None) => {
                    SvmValue::Access(if set & KFD_IOCTL_SVM_FLAG_HOST_ACCESS != 0 {
                        SvmAccess::Accessible
                    } else {
                        SvmAccess::Unreported
                    })
                }
                (SvmQuery::Access(_), Some(k)) => SvmValue::Access(match k.type_ {
                    KFD_IOCTL_SVM_ATTR_ACCESS => SvmAccess::Accessible,
                    KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE => SvmAccess::AccessibleInPlace,
                    KFD_IOCTL_SVM_ATTR_NO_ACCESS => SvmAccess::NoAccess,
                    t => {
                        return Err(Error::new(
                            Status::Error,
                            format!("AMDKFD_IOC_SVM (GET_ATTR) answered access type {t}"),
                        ));
                    }
                }),
                (SvmQuery::MigrationGranularity, Some(k)) => SvmValue::Granularity(k.value),
                (SvmQuery::PreferredLocation, Some(k)) => {
                    SvmValue::Location(self.svm_location_agent(k.value)?)
                }
                (SvmQuery::MigrationGranularity | SvmQuery::PreferredLocation, None) => {
                    return Err(Error::new(Status::Error, "svm query lost its KFD pair"));
                }
            });
        }
        Ok(out)
    }

    /// ROCr's `GetSVMPrefetchAgent`: the pending prefetches' destination
    /// where they cover the range, the driver's `PREFETCH_LOC` elsewhere;
    /// none when they differ or a part was never prefetched.
    fn svm_prefetch_agent(&self, start: u64, end: u64) -> Result<Option<Agent>> {
        let Some(PendingView { mut loc, holes }) = self.core.svm.query(start, end) else {
            return Ok(None);
        };
        for (s, e) in holes {
            let mut q = [raw::SvmAttribute {
                type_: KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
                value: 0,
            }];
            self.core
                .driver
                .svm_get_attr(s, e - s, &mut q)
                .map_err(|e| Error::driver("AMDKFD_IOC_SVM (GET_ATTR)", e))?;
            let v = q[0].value;
            if v == KFD_IOCTL_SVM_LOCATION_UNDEFINED || loc.is_some_and(|l| l != v) {
                return Ok(None);
            }
            loc = Some(v);
        }
        match loc {
            Some(l) => self.svm_location_agent(l),
            None => Ok(None),
        }
    }

    /// `hsa_amd_svm_prefetch_async`: moves `ptr..ptr + size` (aligned out
    /// to pages) to `agent`'s memory once every signal of `deps` is 0, then
    /// decrements `completion`; returns at once. The move is
    /// `KFD_IOCTL_SVM_ATTR_PREFETCH_LOC` on the async-handler thread; a
    /// driver refusal there (the range is not mapped memory) is reported on
    /// stderr, and the completion signal is still decremented (ROCr
    /// asserts).
    ///
    /// Errors: the range as for
    /// [`svm_set_attributes`](Self::svm_set_attributes); an unknown agent:
    /// `INVALID_AGENT`; a destroyed signal: `INVALID_SIGNAL`.
    pub fn svm_prefetch_async(
        &self,
        ptr: u64,
        size: u64,
        agent: Agent,
        deps: &[Signal],
        completion: Option<Signal>,
    ) -> Result<()> {
        let (start, end) = page_range("hsa_amd_svm_prefetch_async", ptr, size)?;
        let r = self.agent(agent)?;
        let loc = if r.is_gpu() {
            r.gpu_id
        } else {
            KFD_IOCTL_SVM_LOCATION_SYSMEM
        };
        for s in deps.iter().chain(completion.iter()) {
            if s.is_destroyed() {
                return Err(Error::new(
                    Status::InvalidSignal,
                    format!(
                        "hsa_amd_svm_prefetch_async: signal {:#x} was destroyed",
                        s.handle()
                    ),
                ));
            }
        }
        let mut waits = deps.to_vec();
        if waits.is_empty() {
            // A signal already at 0: the handler thread runs the prefetch.
            waits.push(self.create_signal_of_kind(0, SignalKind::Default)?);
        }
        let op = self.core.svm.insert(start, end, loc);
        let job = PrefetchJob {
            core: Arc::downgrade(&self.core),
            start,
            end,
            loc,
            op,
            completion,
        };
        job.wait_then_run(waits);
        Ok(())
    }
}

/// A prefetch waiting for its dependencies.
struct PrefetchJob {
    core: Weak<Core>,
    start: u64,
    end: u64,
    loc: u32,
    op: u64,
    completion: Option<Signal>,
}

impl PrefetchJob {
    /// Waits for the last of `deps` to be 0, then for the rest the same
    /// way, then runs.
    fn wait_then_run(self, mut deps: Vec<Signal>) {
        let Some(core) = self.core.upgrade() else {
            return;
        };
        let Some(dep) = deps.pop() else {
            self.run(&core);
            return;
        };
        let mut job = Some((self, deps));
        core.events.add_handler_for(
            dep,
            Condition::Eq,
            0,
            Box::new(move |_| {
                if let Some((job, deps)) = job.take() {
                    job.wait_then_run(deps);
                }
                false
            }),
        );
    }

    fn run(self, core: &Core) {
        let attr = [raw::SvmAttribute {
            type_: KFD_IOCTL_SVM_ATTR_PREFETCH_LOC,
            value: self.loc,
        }];
        if let Err(e) = core
            .driver
            .svm_set_attr(self.start, self.end - self.start, &attr)
        {
            eprintln!(
                "hsa: hsa_amd_svm_prefetch_async of {:#x}..{:#x}: AMDKFD_IOC_SVM (SET_ATTR) failed: {e}",
                self.start, self.end
            );
        }
        core.svm.remove(self.op);
        if let Some(c) = &self.completion {
            c.subtract(1, RmwOrder::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ROCr's `prefetch_map_` rules: a newer prefetch takes over the part
    /// of an older one it covers; a query agrees only while the pending
    /// ones do, and lists what none covers.
    #[test]
    fn pending_prefetches_trim_older_ones_and_answer_queries() {
        let p = Prefetches::default();
        let a = p.insert(0x1000, 0x5000, 7);
        let b = p.insert(0x2000, 0x3000, 9);
        let split: Vec<(u64, u64, u32)> =
            p.lock().iter().map(|(s, r)| (*s, r.end, r.loc)).collect();
        assert_eq!(
            split,
            [
                (0x1000, 0x2000, 7),
                (0x2000, 0x3000, 9),
                (0x3000, 0x5000, 7)
            ]
        );
        assert!(p.query(0x1000, 0x5000).is_none(), "7 and 9 differ");
        let v = p.query(0x2000, 0x3000).unwrap();
        assert_eq!((v.loc, v.holes), (Some(9), vec![]));
        let v = p.query(0x0, 0x2000).unwrap();
        assert_eq!((v.loc, v.holes), (Some(7), vec![(0x0, 0x1000)]));
        p.remove(b);
        let v = p.query(0x1000, 0x6000).unwrap();
        assert_eq!(
            (v.loc, v.holes),
            (Some(7), vec![(0x2000, 0x3000), (0x5000, 0x6000)])
        );
        p.remove(a);
        let v = p.query(0x1000, 0x2000).unwrap();
        assert_eq!((v.loc, v.holes), (None, vec![(0x1000, 0x2000)]));
    }
}
