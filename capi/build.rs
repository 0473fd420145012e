//! The shared library's exports: only the `ptxfp_*` functions (libptxfp.map).
fn main() {
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("libptxfp.map");
    println!("cargo:rerun-if-changed={}", map.display());
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
    }
}
