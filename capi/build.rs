//! The shared library's exports: only the `ptxfp_*` functions (libptxfp.map).
fn main() {
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("libptxfp.map");
    println!("cargo:rerun-if-changed={}", map.display());
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
        // The map names `signgam`, which only a build with core-math defines (a workspace
        // build, whose features are unified); rustc asks the linker to reject a name the
        // build lacks (`--no-undefined-version`), which rust-lld, the default linker since
        // Rust 1.90, does: allow it, as GNU ld does by default.
        println!("cargo:rustc-cdylib-link-arg=-Wl,--undefined-version");
    }
}
