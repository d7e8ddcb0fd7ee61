//! The hypervisor's guest-queue reader on arbitrary guest memory, guest
//! base and queue address (`hypervisor_queue_reader::read_fuzz_input`):
//! nothing may panic. Seed: `corpus/hypervisor_image/sample`, the sample
//! image made through `aql`'s producer API. A crash input goes to
//! `examples/hypervisor-queue-reader/tests/fuzz-regressions/`, which
//! `tests/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hypervisor_queue_reader::read_fuzz_input(data);
});
