//! Links with `link.x`, the memory layout of QEMU `virt` (RAM at 1 GiB).
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-arg-bins=-T{dir}/link.x");
    println!("cargo:rerun-if-changed=link.x");
}
