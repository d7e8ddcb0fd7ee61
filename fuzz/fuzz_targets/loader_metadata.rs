//! Fuzz target: an `NT_AMDGPU_METADATA` MessagePack document: the generic
//! walk, the lazy value API and every typed view. Seeds:
//! `fuzz/corpus/loader_metadata/` (metadata notes of corpus objects).
#![no_main]

#[path = "../../loader-core/tests/malformed/walk.rs"]
mod walk;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = walk::metadata(data);
});
