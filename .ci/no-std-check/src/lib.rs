//! Fails to compile if `std` is anywhere in the core crates' dependency graph.
#![no_std]

pub use aql as _;
pub use loader_core as _;
pub use signal_core as _;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
