//! Fuzz target: load a code object into fake agent memory (a host buffer
//! seen at a high agent address), apply its relocations with a resolver
//! that provides most external symbols, and read back every kernel and
//! variable. Seeds: `fuzz/corpus/loader_load/`.
#![no_main]

#[path = "../../loader-core/tests/malformed/walk.rs"]
mod walk;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut memory = vec![0u8; 1 << 20];
    let _ = walk::load(data, &mut memory);
});
