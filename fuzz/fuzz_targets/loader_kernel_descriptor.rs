//! Fuzz target: a 64-byte kernel descriptor decoded for one GPU family and
//! code-object version (byte 0 selects them, see `walk::descriptor_input`),
//! its `.amdhsa_*` directives and re-encoding. Seeds:
//! `fuzz/corpus/loader_kernel_descriptor/`.
#![no_main]

#[path = "../../loader-core/tests/malformed/walk.rs"]
mod walk;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(lines) = walk::descriptor_input(data) {
        // A descriptor that decodes re-encodes to the same 64 bytes.
        if let Some(bytes) = data.get(1..65) {
            let kd = loader_core::kernel_descriptor::KernelDescriptor::parse(bytes).unwrap();
            assert_eq!(&kd.to_bytes()[..], bytes);
        }
        assert!(lines > 0);
    }
});
