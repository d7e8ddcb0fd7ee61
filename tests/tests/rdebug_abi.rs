//! ABI parity of the runtime's `_amdgpu_r_debug` types
//! (`runtime/src/rdebug.rs`) with glibc's `<link.h>`: the layouts of
//! `struct r_debug` and `struct link_map` a debugger reads, and the
//! `r_state` values.

use runtime::rdebug::{LinkMap, RDebug, RT_ADD, RT_CONSISTENT, RT_DELETE};
use tests::{compare_constants, compare_layouts, layout, require_header};

const HEADERS: &[&str] = &["stddef.h", "link.h"];

#[test]
fn r_debug_and_link_map_match_glibcs_link_h() {
    require_header("/usr/include/link.h", "libc6-dev");
    let layouts = vec![
        // glibc pads after r_version and r_state (both int) for the 8-byte
        // members that follow.
        tests::StructLayout {
            implicit_padding: true,
            ..layout!("struct r_debug", RDebug {
                r_version => "r_version",
                r_map => "r_map",
                r_brk => "r_brk",
                r_state => "r_state",
                r_ldbase => "r_ldbase",
            })
        },
        layout!("struct link_map", LinkMap {
            l_addr => "l_addr",
            l_name => "l_name",
            l_ld => "l_ld",
            l_next => "l_next",
            l_prev => "l_prev",
        }),
    ];
    let mut errors = compare_layouts("r_debug_layout", HEADERS, &layouts);
    errors.extend(compare_constants(
        "r_debug_states",
        HEADERS,
        &[
            ("RT_CONSISTENT", i128::from(RT_CONSISTENT)),
            ("RT_ADD", i128::from(RT_ADD)),
            ("RT_DELETE", i128::from(RT_DELETE)),
        ],
    ));
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
