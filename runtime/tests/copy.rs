//! Copies, fills, locked memory and pointer info through the public API on
//! the sim, with SDMA on (the dGPU default): host<->device copies on the GPU's SDMA queue.
//! The cases are in `support/copy_cases.rs`.

#[path = "support/copy_cases.rs"]
mod cases;

use runtime::{InitOptions, Runtime, driver};

copy_tests!(true);
