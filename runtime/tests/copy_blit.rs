//! Copies, fills, locked memory and pointer info through the public API on
//! the sim, with SDMA off (as `HSA_ENABLE_SDMA=0`): every copy on the blit kernels.
//! The cases are in `support/copy_cases.rs`.

#[path = "support/copy_cases.rs"]
mod cases;

use runtime::{InitOptions, Runtime, driver};

copy_tests!(false);
