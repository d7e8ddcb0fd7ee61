//! Target IDs (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`) and whether a
//! code object can run on an agent.
//!
//! Syntax (AMDGPUUsage "Target ID"): an optional `amdgcn-amd-amdhsa--`
//! triple (the environment is empty, hence the double dash), a processor,
//! then target features in alphabetical order, each at most once, each
//! followed by `+` (on) or `-` (off). A feature the processor supports but
//! the ID does not name is `any`; a feature it does not support may not be
//! named. The only features are `sramecc` and `xnack`.
//!
//! Compatibility follows ROCr's `Isa::IsCompatible`
//! (`runtime/hsa-runtime/core/runtime/isa.cpp`):
//! - a code object built with a feature on (or off) runs only on an agent
//!   where the feature is on (or off); `any` and `unsupported` match all;
//! - a code object for a generic processor runs on any member of that
//!   generic family, provided its `EF_AMDGPU_GENERIC_VERSION` is at least
//!   the version ROCr requires for the family;
//! - otherwise the processors must be the same.
//!
//! ```
//! use loader_core::target::TargetId;
//! let code = TargetId::parse("amdgcn-amd-amdhsa--gfx90a:xnack-")?;
//! assert_eq!(code.without_triple().to_string(), "gfx90a:xnack-");
//! // A gfx90a agent (KFD gfx_target_version 90010) with xnack off, sramecc on.
//! let agent = TargetId::for_agent(90010, false, true).unwrap();
//! assert!(code.is_compatible(0, &agent));
//! let xnack_on = TargetId::for_agent(90010, true, true).unwrap();
//! assert!(!code.is_compatible(0, &xnack_on));
//! // A generic code object (v6, generic version 1) runs on a family member.
//! let generic = TargetId::parse("gfx11-generic")?;
//! assert!(generic.is_compatible(1, &TargetId::for_agent(110001, false, false).unwrap()));
//! # Ok::<(), loader_core::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Location, Result};
use crate::processor::{EFlags, FeatureSetting, Processor};
use core::fmt;

/// The triple of every HSA target ID.
pub const HSA_TRIPLE_PREFIX: &str = "amdgcn-amd-amdhsa--";

/// A parsed target ID: processor plus the sramecc and xnack settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TargetId {
    /// The processor.
    pub processor: &'static Processor,
    /// sramecc: `Unsupported` if the processor lacks it, else any/on/off.
    pub sramecc: FeatureSetting,
    /// xnack: `Unsupported` if the processor lacks it, else any/on/off.
    pub xnack: FeatureSetting,
}

impl TargetId {
    /// A target ID for `processor` with both features `any` (or
    /// `unsupported` where the processor lacks them).
    pub fn new(processor: &'static Processor) -> Self {
        let any = |s: bool| {
            if s {
                FeatureSetting::Any
            } else {
                FeatureSetting::Unsupported
            }
        };
        Self {
            processor,
            sramecc: any(processor.sramecc_supported),
            xnack: any(processor.xnack_supported),
        }
    }

    /// Parses `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-` or the same
    /// without the triple. Errors give the byte offset in `s`.
    pub fn parse(s: &str) -> Result<Self> {
        let (rest, base) = match s.strip_prefix(HSA_TRIPLE_PREFIX) {
            Some(r) => (r, HSA_TRIPLE_PREFIX.len()),
            None if s.starts_with("amdgcn-") => {
                return Err(Error::unsupported(
                    "triple is not amdgcn-amd-amdhsa--",
                    Location::Offset(0),
                ));
            }
            None => (s, 0),
        };
        let mut parts = rest.split(':');
        let name = parts.next().unwrap_or("");
        let processor = Processor::from_name(name).ok_or(Error::unsupported(
            "unknown processor",
            Location::Offset(base as u64),
        ))?;
        if processor.is_r600() {
            return Err(Error::unsupported(
                "R600 processors have no HSA target ID",
                Location::Offset(base as u64),
            ));
        }
        let mut id = Self::new(processor);
        let mut pos = base + name.len();
        // 0 = nothing yet, 1 = sramecc seen, 2 = xnack seen: enforces order and uniqueness.
        let mut last = 0u8;
        for feat in parts {
            pos += 1;
            let at = Location::Offset(pos as u64);
            let (fname, setting) = if let Some(f) = feat.strip_suffix('+') {
                (f, FeatureSetting::On)
            } else if let Some(f) = feat.strip_suffix('-') {
                (f, FeatureSetting::Off)
            } else {
                return Err(Error::malformed("target feature must end in + or -", at));
            };
            let (rank, supported, slot) = match fname {
                "sramecc" => (1, processor.sramecc_supported, &mut id.sramecc),
                "xnack" => (2, processor.xnack_supported, &mut id.xnack),
                _ => return Err(Error::unsupported("unknown target feature", at)),
            };
            if rank <= last {
                return Err(Error::malformed(
                    "target features must be unique and in alphabetical order",
                    at,
                ));
            }
            if !supported {
                return Err(Error::inconsistent(
                    "processor does not support this target feature",
                    at,
                ));
            }
            if rank == 2 && !processor.xnack_on_off {
                // LLVM rejects `gfx1250:xnack+`: gfx12.5's xnack is only `any`.
                return Err(Error::inconsistent(
                    "processor's xnack cannot be fixed on or off",
                    at,
                ));
            }
            last = rank;
            *slot = setting;
            pos += feat.len();
        }
        Ok(id)
    }

    /// Parses a clang offload bundle entry ID, `<kind>-<triple>-<target ID>`:
    /// `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-` (the current form, empty
    /// environment) or `hip-amdgcn-amd-amdhsa-gfx906` (the older form
    /// without one). Returns the offload kind (`hip`, `hipv4`, `openmp`,
    /// ...) and the target. Host entries and other triples are
    /// [`ErrorKind::Unsupported`].
    pub fn parse_bundle_entry_id(id: &str) -> Result<(&str, Self)> {
        let (kind, rest) = id.split_once('-').ok_or(Error::malformed(
            "bundle entry ID has no offload kind",
            Location::Offset(0),
        ))?;
        let base = kind.len() + 1;
        let tail = rest
            .strip_prefix("amdgcn-amd-amdhsa-")
            .ok_or(Error::unsupported(
                "bundle entry is not for amdgcn-amd-amdhsa",
                Location::Offset(base as u64),
            ))?;
        let (skip, target) = match tail.strip_prefix('-') {
            Some(t) => (base + "amdgcn-amd-amdhsa--".len(), t),
            None => (base + "amdgcn-amd-amdhsa-".len(), tail),
        };
        let t = Self::parse(target).map_err(|e| match e.location() {
            Location::Offset(o) => e.at(Location::Offset(o.saturating_add(skip as u64))),
            _ => e,
        })?;
        Ok((kind, t))
    }

    /// The target ID a code object's `e_flags` describe.
    pub fn from_flags(flags: &EFlags) -> Result<Self> {
        let processor = flags.processor.ok_or(Error::missing(
            "e_flags name no processor (EF_AMDGPU_MACH_NONE)",
            Location::Field("e_flags"),
        ))?;
        Ok(Self {
            processor,
            sramecc: flags.sramecc,
            xnack: flags.xnack,
        })
    }

    /// The target ID of an agent, from the KFD topology's
    /// `gfx_target_version` and whether xnack and sramecc are enabled on
    /// it; features the processor lacks become `unsupported`. `None` for a
    /// version this crate does not know.
    pub fn for_agent(
        gfx_target_version: u32,
        xnack_enabled: bool,
        sramecc_enabled: bool,
    ) -> Option<Self> {
        let processor = Processor::from_gfx_target_version(gfx_target_version)?;
        let on = |supported: bool, enabled: bool| match (supported, enabled) {
            (false, _) => FeatureSetting::Unsupported,
            (true, true) => FeatureSetting::On,
            (true, false) => FeatureSetting::Off,
        };
        Some(Self {
            processor,
            sramecc: on(processor.sramecc_supported, sramecc_enabled),
            xnack: on(processor.xnack_supported, xnack_enabled),
        })
    }

    /// The ID without the triple (`gfx90a:sramecc+:xnack-`), as clang's
    /// `--offload-arch` and clang offload bundles spell it.
    pub fn without_triple(&self) -> impl fmt::Display + '_ {
        Short(self)
    }

    /// Decides whether a code object for `self` (with the generic version
    /// of its `e_flags`, 0 for non-generic processors) can run on `agent`,
    /// by ROCr's rules (see the module documentation). `agent` must have a
    /// concrete setting (on, off or unsupported) for each feature.
    pub fn check_compatible(&self, generic_version: u8, agent: &TargetId) -> Result<()> {
        let err = |what| Error::new(ErrorKind::Incompatible, what, Location::Input);
        if agent.processor.is_generic() {
            return Err(err("an agent ISA cannot be a generic processor"));
        }
        if agent.sramecc == FeatureSetting::Any || agent.xnack == FeatureSetting::Any {
            return Err(err(
                "an agent ISA must have sramecc and xnack on or off, not any",
            ));
        }
        let fixed = |s: FeatureSetting| matches!(s, FeatureSetting::On | FeatureSetting::Off);
        if fixed(self.sramecc) && self.sramecc != agent.sramecc {
            return Err(err("sramecc setting differs from the agent's"));
        }
        if fixed(self.xnack) && self.xnack != agent.xnack {
            return Err(err("xnack setting differs from the agent's"));
        }
        match self.processor.is_generic_of {
            Some(family) => {
                if agent.processor.generic_family != Some(family) {
                    return Err(err(
                        "agent is not a member of the code object's generic family",
                    ));
                }
                if generic_version < family.min_generic_version() {
                    return Err(err(
                        "generic version is lower than the runtime supports for this family",
                    ));
                }
            }
            None => {
                if self.processor.mach != agent.processor.mach {
                    return Err(err("processor differs from the agent's"));
                }
            }
        }
        Ok(())
    }

    /// [`check_compatible`](Self::check_compatible) as a bool.
    pub fn is_compatible(&self, generic_version: u8, agent: &TargetId) -> bool {
        self.check_compatible(generic_version, agent).is_ok()
    }
}

struct Short<'a>(&'a TargetId);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        f.write_str(t.processor.name)?;
        if let Some(c) = t.sramecc.suffix() {
            write!(f, ":sramecc{c}")?;
        }
        if let Some(c) = t.xnack.suffix() {
            write!(f, ":xnack{c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for TargetId {
    /// The full form, `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{HSA_TRIPLE_PREFIX}{}", Short(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processor::FeatureSetting::{Any, Off, On, Unsupported};

    struct Buf([u8; 64], usize);
    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.1 + s.len();
            self.0
                .get_mut(self.1..end)
                .ok_or(fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.1 = end;
            Ok(())
        }
    }
    fn show(t: &TargetId) -> Buf {
        let mut b = Buf([0; 64], 0);
        fmt::write(&mut b, format_args!("{t}")).unwrap();
        b
    }

    #[test]
    fn parse_and_print_round_trip() {
        for s in [
            "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
            "amdgcn-amd-amdhsa--gfx90a",
            "amdgcn-amd-amdhsa--gfx906:xnack+",
            "amdgcn-amd-amdhsa--gfx1100",
            "amdgcn-amd-amdhsa--gfx9-4-generic:sramecc-",
        ] {
            let t = TargetId::parse(s).unwrap();
            let b = show(&t);
            assert_eq!(&b.0[..b.1], s.as_bytes());
        }
        let t = TargetId::parse("gfx942:xnack-").unwrap();
        assert_eq!((t.sramecc, t.xnack), (Any, Off));
        assert_eq!(TargetId::parse("gfx1030").unwrap().xnack, Unsupported);
    }

    #[test]
    fn parse_errors_say_where() {
        let e = TargetId::parse("amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-").unwrap_err();
        assert_eq!(e.location(), Location::Offset(33));
        assert_eq!(
            TargetId::parse("gfx90a:xnack").unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            TargetId::parse("gfx1030:xnack+").unwrap_err().kind(),
            ErrorKind::Inconsistent
        );
        assert_eq!(
            TargetId::parse("gfx90a:xnack+:xnack+").unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            TargetId::parse("gfx999").unwrap_err().kind(),
            ErrorKind::Unsupported
        );
        assert_eq!(
            TargetId::parse("gfx90a:foo+").unwrap_err().kind(),
            ErrorKind::Unsupported
        );
        assert_eq!(
            TargetId::parse("amdgcn-amd-amdpal--gfx90a")
                .unwrap_err()
                .kind(),
            ErrorKind::Unsupported
        );
        // gfx12.5 has xnack, but only as `any`; sramecc may be fixed.
        assert_eq!(TargetId::parse("gfx1250").unwrap().xnack, Any);
        assert_eq!(
            TargetId::parse("gfx1250:xnack+").unwrap_err().kind(),
            ErrorKind::Inconsistent
        );
        assert_eq!(TargetId::parse("gfx1251:sramecc-").unwrap().sramecc, Off);
        assert!(TargetId::parse("gfx12-5-generic:sramecc+").is_err());
        assert!(TargetId::parse("").is_err());
        assert!(TargetId::parse("r600").is_err());
    }

    #[test]
    fn bundle_entry_ids() {
        let (k, t) =
            TargetId::parse_bundle_entry_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+").unwrap();
        assert_eq!((k, t.processor.name, t.xnack), ("hipv4", "gfx90a", On));
        let (k, t) = TargetId::parse_bundle_entry_id("hip-amdgcn-amd-amdhsa-gfx906").unwrap();
        assert_eq!((k, t.processor.name, t.xnack), ("hip", "gfx906", Any));
        let e = TargetId::parse_bundle_entry_id("host-x86_64-unknown-linux-gnu").unwrap_err();
        assert_eq!(
            (e.kind(), e.location()),
            (ErrorKind::Unsupported, Location::Offset(5))
        );
        let e =
            TargetId::parse_bundle_entry_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack").unwrap_err();
        assert_eq!(e.location(), Location::Offset(32));
        assert!(TargetId::parse_bundle_entry_id("nodash").is_err());
    }

    #[test]
    fn rocr_compatibility_rules() {
        let agent = TargetId::for_agent(90010, false, true).unwrap(); // gfx90a:sramecc+:xnack-
        assert_eq!((agent.sramecc, agent.xnack), (On, Off));
        let ok = |s: &str, gv: u8| TargetId::parse(s).unwrap().is_compatible(gv, &agent);
        assert!(ok("gfx90a", 0));
        assert!(ok("gfx90a:xnack-", 0));
        assert!(ok("gfx90a:sramecc+", 0));
        assert!(!ok("gfx90a:xnack+", 0));
        assert!(!ok("gfx90a:sramecc-", 0));
        assert!(!ok("gfx908", 0));
        // gfx90a belongs to no generic family.
        assert!(!ok("gfx9-generic", 1));
        let gfx942 = TargetId::for_agent(90402, true, true).unwrap();
        let g = TargetId::parse("gfx9-4-generic:xnack+").unwrap();
        assert!(g.is_compatible(1, &gfx942));
        assert!(!g.is_compatible(0, &gfx942));
        let gfx1101 = TargetId::for_agent(110001, false, false).unwrap();
        assert!(
            TargetId::parse("gfx11-generic")
                .unwrap()
                .is_compatible(1, &gfx1101)
        );
        assert!(
            !TargetId::parse("gfx10-3-generic")
                .unwrap()
                .is_compatible(1, &gfx1101)
        );
        // An agent must be concrete.
        let any_agent = TargetId::parse("gfx90a").unwrap();
        assert!(
            !TargetId::parse("gfx90a")
                .unwrap()
                .is_compatible(0, &any_agent)
        );
    }
}
