//! Links the cdylib as ROCr's library: SONAME `libhsa-runtime64.so.1`,
//! every export at symbol version `ROCR_1` (`rocr_1.map`), nothing else
//! exported.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=rocr_1.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhsa-runtime64.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/rocr_1.map");
}
