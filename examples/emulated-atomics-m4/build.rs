//! Links with `link.x` (QEMU mps2-an386: code at 0, RAM at 0x2000_0000).
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-link-arg-bins=-T{dir}/link.x");
    println!("cargo:rerun-if-changed=link.x");
}
