//! Copies, fills, locked memory and pointer info through the public API on
//! the sim, with SDMA off (as `HSA_ENABLE_SDMA=0`): every copy on the blit kernels.
//! The cases are in `support/copy_cases.rs`.

#[path = "support/copy_cases.rs"]
mod cases;

use runtime::{InitOptions, Runtime, driver};

const SDMA: bool = false;

fn setup() -> cases::Setup {
    let rt = Runtime::init_with_options(driver::open_sim, InitOptions { sdma: Some(SDMA) })
        .expect("runtime on the sim");
    assert_eq!(rt.sdma_enabled(), SDMA);
    cases::setup(rt)
}

#[test]
fn round_trips_at_odd_offsets_and_sizes() {
    cases::round_trips(&setup(), SDMA);
}

#[test]
fn copies_wait_for_dependent_signals_and_decrement_the_completion() {
    cases::dependent_signals(&setup());
}

#[test]
fn an_empty_copy_completes() {
    cases::empty_copy_completes(&setup());
}

#[test]
fn fills_use_the_fill_kernel() {
    cases::fills(&setup());
}

#[test]
fn locked_host_memory_is_a_copy_source_and_destination() {
    cases::locked_memory(&setup());
}

#[test]
fn pointer_info_reports_allocations() {
    cases::pointer_info(&setup());
}

#[test]
fn hsa_memory_copy_goes_through_the_gpu_for_device_memory() {
    cases::memory_copy(&setup());
}

#[test]
fn argument_errors_have_hsa_statuses() {
    cases::argument_errors(&setup());
}
