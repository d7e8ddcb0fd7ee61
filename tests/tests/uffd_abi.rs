//! ABI parity of the sim's doorbell watch (`sim/src/doorbell.rs`) with the
//! system's `linux/userfaultfd.h` (Debian's `linux-libc-dev`): the layouts
//! of the userfaultfd structures it passes to the kernel and reads back,
//! and every constant and request code it uses.

use sim::doorbell::*;
use tests::{compare_constants, compare_layouts, layout, require_header};

const HEADERS: &[&str] = &["stddef.h", "linux/userfaultfd.h", "sys/ioctl.h"];

#[test]
fn userfaultfd_structures_match_the_uapi_header() {
    require_header("/usr/include/linux/userfaultfd.h", "linux-libc-dev");
    let layouts = vec![
        layout!("struct uffdio_api", UffdioApi {
            api => "api",
            features => "features",
            ioctls => "ioctls",
        }),
        layout!("struct uffdio_range", UffdioRange {
            start => "start",
            len => "len",
        }),
        layout!("struct uffdio_register", UffdioRegister {
            range => "range",
            mode => "mode",
            ioctls => "ioctls",
        }),
        layout!("struct uffdio_writeprotect", UffdioWriteprotect {
            range => "range",
            mode => "mode",
        }),
    ];
    let errors = compare_layouts("uffd_layout", HEADERS, &layouts);
    // `struct uffd_msg` is `__packed` (alignment 1): its fields are
    // compared one by one (the layout probe takes references to fields,
    // which a packed struct does not allow).
    use core::mem::{align_of, offset_of, size_of};
    let msg = |f: &str| format!("offsetof(struct uffd_msg, {f})");
    let size = |f: &str| format!("sizeof(((struct uffd_msg *)0)->{f})");
    let expected: Vec<(String, i128)> = vec![
        (
            "sizeof(struct uffd_msg)".into(),
            size_of::<UffdMsg>() as i128,
        ),
        (
            "_Alignof(struct uffd_msg)".into(),
            align_of::<UffdMsg>() as i128,
        ),
        (msg("event"), offset_of!(UffdMsg, event) as i128),
        (msg("reserved1"), offset_of!(UffdMsg, reserved1) as i128),
        (msg("reserved2"), offset_of!(UffdMsg, reserved2) as i128),
        (msg("reserved3"), offset_of!(UffdMsg, reserved3) as i128),
        (
            msg("arg.pagefault.flags"),
            offset_of!(UffdMsg, flags) as i128,
        ),
        (size("arg.pagefault.flags"), 8),
        (
            msg("arg.pagefault.address"),
            offset_of!(UffdMsg, address) as i128,
        ),
        (size("arg.pagefault.address"), 8),
        (
            msg("arg.reserved.reserved3"),
            offset_of!(UffdMsg, tail) as i128,
        ),
        (size("arg.reserved.reserved3"), 8),
        // The page-fault member's thread id is the low half of the tail.
        (
            msg("arg.pagefault.feat.ptid"),
            offset_of!(UffdMsg, tail) as i128,
        ),
        (size("arg.pagefault.feat.ptid"), 4),
    ];
    let expected: Vec<(&str, i128)> = expected.iter().map(|(c, v)| (c.as_str(), *v)).collect();
    let errors = errors
        .into_iter()
        .chain(compare_constants("uffd_msg", HEADERS, &expected))
        .collect::<Vec<_>>();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn userfaultfd_constants_match_the_uapi_header() {
    require_header("/usr/include/linux/userfaultfd.h", "linux-libc-dev");
    let errors = compare_constants(
        "uffd_constants",
        HEADERS,
        &[
            ("UFFD_API", UFFD_API.into()),
            ("UFFDIO", UFFDIO.into()),
            ("_UFFDIO_REGISTER", UFFDIO_REGISTER_NR.into()),
            ("_UFFDIO_WRITEPROTECT", UFFDIO_WRITEPROTECT_NR.into()),
            ("_UFFDIO_API", UFFDIO_API_NR.into()),
            ("UFFDIO_API", UFFDIO_API.into()),
            ("UFFDIO_REGISTER", UFFDIO_REGISTER.into()),
            ("UFFDIO_WRITEPROTECT", UFFDIO_WRITEPROTECT.into()),
            ("UFFDIO_REGISTER_MODE_WP", UFFDIO_REGISTER_MODE_WP.into()),
            (
                "UFFDIO_WRITEPROTECT_MODE_WP",
                UFFDIO_WRITEPROTECT_MODE_WP.into(),
            ),
            (
                "UFFD_FEATURE_PAGEFAULT_FLAG_WP",
                UFFD_FEATURE_PAGEFAULT_FLAG_WP.into(),
            ),
            (
                "UFFD_FEATURE_WP_HUGETLBFS_SHMEM",
                UFFD_FEATURE_WP_HUGETLBFS_SHMEM.into(),
            ),
            ("UFFD_EVENT_PAGEFAULT", UFFD_EVENT_PAGEFAULT.into()),
            ("UFFD_USER_MODE_ONLY", UFFD_USER_MODE_ONLY.into()),
        ],
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
