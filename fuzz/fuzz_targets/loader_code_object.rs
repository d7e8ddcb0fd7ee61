//! Fuzz target: a whole code object, every part walked (header, flags,
//! target ID, segments, sections, both symbol tables, notes, the metadata
//! map generic and typed, every kernel descriptor). Seeds:
//! `fuzz/corpus/loader_code_object/` (written by loader-core/corpus/build.sh).
#![no_main]

#[path = "../../loader-core/tests/malformed/walk.rs"]
mod walk;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = walk::code_object(data);
});
