//! Fuzz target: a clang offload bundle, a compressed bundle (`CCOB`) or a
//! host ELF with `.hip_fatbin`: every entry walked as a code object; then,
//! for a compressed bundle, decompression into a bounded buffer and the same
//! walk. Seeds: `fuzz/corpus/loader_bundle/`.
#![no_main]

#[path = "../../loader-core/tests/malformed/walk.rs"]
mod walk;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = walk::bundle(data);
    let mut scratch = vec![0u8; 1 << 20];
    let _ = walk::decompress(data, &mut scratch);
});
