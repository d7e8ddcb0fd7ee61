//! Every topology constant against the kernel's uapi header
//! `linux/kfd_sysfs.h` (Debian `linux-libc-dev`), compiled by a C probe.

use kfd::topology::{CacheType, Capability, HeapType, IoLinkFlags, IoLinkType, MemFlags};
use tests::{compare_constants, require_header};

#[test]
fn constants_match_kfd_sysfs_h() {
    require_header("/usr/include/linux/kfd_sysfs.h", "linux-libc-dev");
    let mut consts: Vec<(String, i128)> = Vec::new();
    let mut push = |prefix: &str, named: &[(&str, u32)]| {
        for (name, value) in named {
            consts.push((format!("{prefix}{name}"), i128::from(*value)));
        }
    };
    push("HSA_CAP_", Capability::NAMED_BITS);
    push("HSA_MEM_FLAGS_", MemFlags::NAMED_BITS);
    push("HSA_CACHE_TYPE_", CacheType::NAMED_BITS);
    push("HSA_IOLINK_FLAGS_", IoLinkFlags::NAMED_BITS);
    for t in HeapType::ALL {
        consts.push((
            format!("HSA_MEM_HEAP_TYPE_{}", t.c_name()),
            i128::from(*t as u32),
        ));
    }
    for t in IoLinkType::ALL {
        consts.push((
            format!("HSA_IOLINK_TYPE_{}", t.c_name()),
            i128::from(*t as u32),
        ));
    }
    for (name, value) in [
        (
            "HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT",
            kfd::topology::CAP_WATCH_POINTS_TOTALBITS_SHIFT,
        ),
        (
            "HSA_CAP_DOORBELL_TYPE_TOTALBITS_SHIFT",
            kfd::topology::CAP_DOORBELL_TYPE_TOTALBITS_SHIFT,
        ),
        (
            "HSA_CAP_ASIC_REVISION_SHIFT",
            kfd::topology::CAP_ASIC_REVISION_SHIFT,
        ),
    ] {
        consts.push((name.to_owned(), i128::from(value)));
    }
    let refs: Vec<(&str, i128)> = consts.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let errors = compare_constants("kfd_sysfs", &["linux/kfd_sysfs.h"], &refs);
    assert!(
        errors.is_empty(),
        "kfd_sysfs.h mismatches:\n{}",
        errors.join("\n")
    );
    // The header's whole vocabulary is covered: 6 heap types, 17 link types.
    assert_eq!((HeapType::ALL.len(), IoLinkType::ALL.len()), (6, 17));
}
