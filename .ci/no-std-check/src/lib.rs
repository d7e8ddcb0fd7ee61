//! Fails to compile if `std` is anywhere in the core crates' dependency graph.
#![no_std]

extern crate aql;
extern crate isa;
extern crate loader_core;
extern crate signal_core;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
