//! Shared virtual memory attributes (`hsa_amd_svm_attributes_set`), as
//! ROCr's `Runtime::SetSvmAttrib` turns them into `AMDKFD_IOC_SVM`
//! attributes: the range is aligned to pages, agents become KFD gpu_ids
//! (the CPU is system memory), and the driver maps the range on the GPUs
//! given access. HIP's `hipMallocManaged` is the user: it reserves host
//! memory and gives the device access to it.

#![allow(unsafe_code)]

use kfd::ioctl::consts::*;
use kfd::ioctl::raw;

use crate::agent::Agent;
use crate::status::{Error, Result};
use crate::system::Runtime;

/// One attribute of `hsa_amd_svm_attribute_pair_t` this runtime sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmAttribute {
    /// `HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG`: fine grained (coherent) or coarse.
    GlobalFlag {
        /// `HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED`.
        fine: bool,
    },
    /// `HSA_AMD_SVM_ATTRIB_READ_ONLY`.
    ReadOnly(bool),
    /// `HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION`.
    PreferredLocation(Agent),
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE`.
    Accessible(Agent),
    /// `HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE`.
    AccessibleInPlace(Agent),
    /// `HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS`.
    NoAccess(Agent),
}

const PAGE: u64 = 4096;

impl Runtime {
    /// `hsa_amd_svm_attributes_set` over `ptr..ptr + size` (aligned out to
    /// pages). Access attributes naming the CPU change nothing (host memory
    /// is the CPU's).
    ///
    /// Errors: a null pointer or zero size, an overflowing range:
    /// `INVALID_ARGUMENT`; an unknown agent: `INVALID_AGENT`; the driver's
    /// refusal (`EINVAL` for memory that is not mapped, or overlaps a
    /// buffer of a GPU given access): `HSA_STATUS_ERROR`.
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
        if ptr == 0 || size == 0 {
            return Err(Error::invalid_argument(
                "hsa_amd_svm_attributes_set of a null pointer or zero bytes",
            ));
        }
        let start = ptr & !(PAGE - 1);
        let end = ptr
            .checked_add(size)
            .and_then(|e| e.checked_next_multiple_of(PAGE))
            .ok_or_else(|| Error::invalid_argument("SVM range overflows"))?;
        let location = |a: Agent| -> Result<Option<u32>> {
            let r = self.agent(a)?;
            Ok(r.is_gpu().then_some(r.gpu_id))
        };
        let attr = |type_, value| raw::SvmAttribute { type_, value };
        let mut kfd_attrs = Vec::with_capacity(attrs.len());
        for &a in attrs {
            let k = match a {
                SvmAttribute::GlobalFlag { fine } => attr(
                    if fine {
                        KFD_IOCTL_SVM_ATTR_SET_FLAGS
                    } else {
                        KFD_IOCTL_SVM_ATTR_CLR_FLAGS
                    },
                    KFD_IOCTL_SVM_FLAG_COHERENT,
                ),
                SvmAttribute::ReadOnly(ro) => attr(
                    if ro {
                        KFD_IOCTL_SVM_ATTR_SET_FLAGS
                    } else {
                        KFD_IOCTL_SVM_ATTR_CLR_FLAGS
                    },
                    KFD_IOCTL_SVM_FLAG_GPU_RO,
                ),
                SvmAttribute::PreferredLocation(agent) => attr(
                    KFD_IOCTL_SVM_ATTR_PREFERRED_LOC,
                    location(agent)?.unwrap_or(KFD_IOCTL_SVM_LOCATION_SYSMEM),
                ),
                SvmAttribute::Accessible(agent)
                | SvmAttribute::AccessibleInPlace(agent)
                | SvmAttribute::NoAccess(agent) => {
                    let Some(gpu) = location(agent)? else {
                        continue;
                    };
                    let t = match a {
                        SvmAttribute::Accessible(_) => KFD_IOCTL_SVM_ATTR_ACCESS,
                        SvmAttribute::AccessibleInPlace(_) => KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE,
                        _ => KFD_IOCTL_SVM_ATTR_NO_ACCESS,
                    };
                    attr(t, gpu)
                }
            };
            kfd_attrs.push(k);
        }
        self.core
            .driver
            .svm_set_attr(start, end - start, &kfd_attrs)
            .map_err(|e| Error::driver("AMDKFD_IOC_SVM (SET_ATTR)", e))
    }
}
