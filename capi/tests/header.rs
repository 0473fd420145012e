//! include/ptxfp.h is what cbindgen generates from src/lib.rs today: a changed signature
//! without a regenerated header fails here. `PTXFP_BLESS=1` rewrites the header instead.

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen parses src/lib.rs")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("include/ptxfp.h");
    if std::env::var_os("PTXFP_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/ptxfp.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/ptxfp.h is stale: regenerate it with `PTXFP_BLESS=1 cargo test -p ptxfp-capi --test header`"
    );
}
