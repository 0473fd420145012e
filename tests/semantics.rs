//! The bit-level rules of docs/semantics.md §4 (NaN) and §5 (flush-to-zero), each with the values
//! the document gives, through the instruction layer.

use ptxfp::Instr;

fn eval(spelling: &str, operands: &[u64]) -> u64 {
    let instr: Instr = spelling.parse().unwrap_or_else(|e| panic!("{e}"));
    instr.eval(operands).unwrap_or_else(|e| panic!("{e}"))
}

const FLT_MIN: u64 = 0x0080_0000;

#[test]
fn ftz_tininess_after_rounding_section_5() {
    // ptxas constant folds on sm_80 (docs/semantics.md §5).
    assert_eq!(eval("mul.rn.ftz.f32", &[0x3F7F_FFFE, 0x0080_0001]), 0x0080_0000);
    assert_eq!(eval("mul.rn.ftz.f32", &[0x3F7F_F448, 0x0080_05DC]), 0x0000_0000);
    assert_eq!(eval("mul.rn.f32", &[0x3F7F_F448, 0x0080_05DC]), 0x0080_0000);
    assert_eq!(eval("mul.rn.ftz.f32", &[0x3F00_0000, 0x0080_0001]), 0x0000_0000);
    assert_eq!(eval("add.rn.ftz.f32", &[0x0080_0001, 0x8080_0000]), 0x0000_0000);
    // Without .ftz the same sum is the exact subnormal 2^-149.
    assert_eq!(eval("add.rn.f32", &[0x0080_0001, 0x8080_0000]), 0x0000_0001);
    // Subnormal inputs are flushed to sign-preserving zero.
    assert_eq!(eval("mul.rn.ftz.f32", &[0x8000_0001, 0x3F80_0000]), 0x8000_0000);
    assert_eq!(eval("fma.rn.ftz.f32", &[0x0000_0001, 0x4B00_0000, FLT_MIN]), FLT_MIN);
    assert_eq!(eval("fma.rn.f32", &[0x0000_0001, 0x4B00_0000, 0]), FLT_MIN);
    // f16: .ftz flushes f16 subnormals (PTX 9.7.4).
    assert_eq!(eval("add.ftz.f16", &[0x0001, 0x0000]), 0x0000);
    assert_eq!(eval("add.f16", &[0x0001, 0x0000]), 0x0001);
}

#[test]
fn canonical_nans_section_4() {
    let qnan = 0x7FC0_0123u64;
    let snan = 0xFF80_0001u64;
    for spelling in ["add.f32", "sub.rz.f32", "mul.rm.ftz.f32", "div.rn.f32"] {
        assert_eq!(eval(spelling, &[qnan, 0x3F80_0000]), 0x7FFF_FFFF, "{spelling}");
        assert_eq!(eval(spelling, &[0x3F80_0000, snan]), 0x7FFF_FFFF, "{spelling}");
    }
    assert_eq!(eval("fma.rn.f32", &[0x7F80_0000, 0, 0x3F80_0000]), 0x7FFF_FFFF);
    assert_eq!(eval("sqrt.rn.f32", &[0xBF80_0000]), 0x7FFF_FFFF);
    assert_eq!(eval("add.f16", &[0x7C01, 0x3C00]), 0x7FFF);
    assert_eq!(eval("mul.bf16", &[0x7F80, 0x0000]), 0x7FFF);
    assert_eq!(eval("fma.rn.f16x2", &[0x7E00_3C00, 0x3C00_3C00, 0x3C00_3C00]), 0x7FFF_4000);
}

#[test]
fn f64_nans_propagate_payloads_section_4() {
    let nan = 0x7FF0_0000_0000_1234u64; // signalling, payload 0x1234
    assert_eq!(eval("add.rn.f64", &[0x3FF0_0000_0000_0000, nan]), 0x7FF8_0000_0000_1234);
    // Two NaNs: `b`'s, as an H200 returns it (tests/hardware_h200.rs).
    assert_eq!(eval("mul.rn.f64", &[0xFFF8_0000_0000_0042, nan]), 0x7FF8_0000_0000_1234);
    // Invalid operation: the default NaN 0xFFF8000000000000 [INF].
    assert_eq!(eval("add.rn.f64", &[0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000]), 0xFFF8_0000_0000_0000);
    assert_eq!(eval("sqrt.rn.f64", &[0xBFF0_0000_0000_0000]), 0xFFF8_0000_0000_0000);
}

#[test]
fn sign_operations_section_4() {
    // abs/neg.f32 are FADDs at run time: NaN -> canonical; subnormals kept unless .ftz.
    assert_eq!(eval("abs.f32", &[0xFFC0_0123]), 0x7FFF_FFFF);
    assert_eq!(eval("neg.f32", &[0x7FC0_0005]), 0x7FFF_FFFF);
    assert_eq!(eval("abs.f32", &[0x8000_0001]), 0x0000_0001);
    assert_eq!(eval("abs.ftz.f32", &[0x8000_0001]), 0x0000_0000);
    assert_eq!(eval("neg.f32", &[0x0000_0000]), 0x8000_0000);
    assert_eq!(eval("neg.ftz.f16", &[0x0001]), 0x8000);
    assert_eq!(eval("abs.bf16", &[0xFFC1]), 0x7FFF);
    // f64 returns a NaN unchanged but quieted, sign included (as an H200 does).
    assert_eq!(eval("abs.f64", &[0xFFF8_0000_0000_0123]), 0xFFF8_0000_0000_0123);
    assert_eq!(eval("neg.f64", &[0x7FF0_0000_0000_0005]), 0x7FF8_0000_0000_0005);
    // copysign is a bit operation: the payload passes untouched; the sign comes from a.
    assert_eq!(eval("copysign.f32", &[0x8000_0000, 0x7F80_0001]), 0xFF80_0001);
    assert_eq!(eval("copysign.f64", &[0, 0xBFF0_0000_0000_0000]), 0x3FF0_0000_0000_0000);
}

#[test]
fn min_max_section_4() {
    let one = 0x3F80_0000u64;
    let nan = 0x7FC0_0000u64;
    assert_eq!(eval("min.f32", &[nan, one]), one);
    assert_eq!(eval("max.f32", &[one, nan]), one);
    assert_eq!(eval("min.f32", &[nan, 0xFFC0_0001]), 0x7FFF_FFFF);
    assert_eq!(eval("min.NaN.f32", &[nan, one]), 0x7FFF_FFFF);
    assert_eq!(eval("min.f32", &[0, 0x8000_0000]), 0x8000_0000);
    assert_eq!(eval("max.f32", &[0x8000_0000, 0]), 0);
    assert_eq!(eval("min.ftz.f32", &[0x0000_0001, 0x3F80_0000]), 0);
    // xorsign.abs: min(|a|, |b|) with the XOR of the signs; ignored when the result is NaN.
    assert_eq!(eval("min.xorsign.abs.f32", &[0xC000_0000, 0x3F80_0000]), 0xBF80_0000);
    assert_eq!(eval("max.xorsign.abs.f32", &[0xC000_0000, 0xBF80_0000]), 0x4000_0000);
    assert_eq!(eval("max.NaN.xorsign.abs.f32", &[0xC000_0000, nan]), 0x7FFF_FFFF);
    // Three inputs, with .abs.
    assert_eq!(eval("min.f32", &[0x4000_0000, one, 0x4040_0000]), one);
    assert_eq!(eval("max.abs.f32", &[0xC080_0000, one, 0x4040_0000]), 0x4080_0000);
    assert_eq!(eval("min.f32", &[nan, nan, one]), one);
    // f64: one NaN gives the number, two give a quieted NaN.
    let snan64 = 0x7FF0_0000_0000_0001u64;
    assert_eq!(eval("min.f64", &[snan64, 0x3FF0_0000_0000_0000]), 0x3FF0_0000_0000_0000);
    assert_eq!(eval("max.f64", &[snan64, snan64]), 0x7FF8_0000_0000_0001);
    // f16x2 lanes are independent.
    assert_eq!(eval("max.f16x2", &[0x3C00_7E00, 0x4000_3C00]), 0x4000_3C00);
}

#[test]
fn saturation_and_relu_section_4() {
    assert_eq!(eval("add.sat.f32", &[0x7FC0_0000, 0]), 0);
    assert_eq!(eval("add.sat.f32", &[0x8000_0000, 0x8000_0000]), 0);
    assert_eq!(eval("mul.sat.f32", &[0x4000_0000, 0x4000_0000]), 0x3F80_0000);
    assert_eq!(eval("mul.sat.f32", &[0xC000_0000, 0x3F00_0000]), 0);
    assert_eq!(eval("fma.rn.sat.f16", &[0x3800, 0x3800, 0x0000]), 0x3400);
    assert_eq!(eval("fma.rn.relu.f16", &[0xBC00, 0x3C00, 0x0000]), 0x0000);
    assert_eq!(eval("fma.rn.relu.bf16", &[0x7FC0, 0x3F80, 0x0000]), 0x7FFF);
    assert_eq!(eval("fma.rn.relu.bf16", &[0x3F80, 0x3F80, 0x3F80]), 0x4000);
}

#[test]
fn conversions_section_4() {
    assert_eq!(eval("cvt.f64.f32", &[0x7F80_0001]), 0x7FF8_0000_2000_0000);
    assert_eq!(eval("cvt.f64.f32", &[0xFFC0_0123]), 0xFFF8_0024_6000_0000);
    assert_eq!(eval("cvt.rn.f32.f64", &[0xFFF8_0000_1234_5678]), 0xFFC0_0000);
    assert_eq!(eval("cvt.rn.f16.f32", &[0xFFC0_0001]), 0x7FFF);
    assert_eq!(eval("cvt.rn.bf16.f32", &[0x7F80_0001]), 0x7FFF);
    assert_eq!(eval("cvt.f32.f16", &[0xFE01]), 0x7FFF_FFFF);
    // Rounding directions and packing: a goes to the upper half.
    assert_eq!(eval("cvt.rn.f16.f32", &[0x3F80_1000]), 0x3C00);
    assert_eq!(eval("cvt.rp.f16.f32", &[0x3F80_1000]), 0x3C01);
    assert_eq!(eval("cvt.rn.bf16x2.f32", &[0x4000_0000, 0x3F80_0000]), 0x4000_3F80);
    assert_eq!(eval("cvt.rn.relu.f16x2.f32", &[0xBF80_0000, 0x3F80_0000]), 0x0000_3C00);
    // .ftz applies to the f32 side only.
    assert_eq!(eval("cvt.rn.ftz.f32.f64", &[0x3800_0000_0000_0000]), 0);
    assert_eq!(eval("cvt.rn.f32.f64", &[0x3800_0000_0000_0000]), 0x0040_0000);
    assert_eq!(eval("cvt.ftz.f64.f32", &[0x0000_0001]), 0);
    assert_eq!(eval("cvt.sat.f32.f16", &[0x4000]), 0x3F80_0000);
}

#[test]
fn testp_properties() {
    assert_eq!(eval("testp.normal.f32", &[0x8000_0000]), 1);
    assert_eq!(eval("testp.subnormal.f32", &[1]), 1);
    assert_eq!(eval("testp.normal.f32", &[1]), 0);
    assert_eq!(eval("testp.notanumber.f64", &[0x7FF0_0000_0000_0001]), 1);
    assert_eq!(eval("testp.infinite.f64", &[0xFFF0_0000_0000_0000]), 1);
    assert_eq!(eval("testp.finite.f32", &[0x7F80_0000]), 0);
    assert_eq!(eval("testp.number.f32", &[0x7F80_0000]), 1);
}

#[test]
fn bad_operands_are_errors_not_panics() {
    let i: Instr = "fma.rn.f32".parse().unwrap();
    assert!(i.eval(&[1, 2]).is_err());
    assert!(i.eval(&[1, 2, 3, 4]).is_err());
    assert!(i.eval(&[1 << 32, 2, 3]).is_err());
    let h: Instr = "add.f16x2".parse().unwrap();
    assert!(h.eval(&[0x1_0000_0000, 0]).is_err());
    assert!(h.eval(&[0xFFFF_FFFF, 0]).is_ok());
}

/// Every citation of the rules resolves in the repository: each `§n` (n below 9; PTX ISA
/// sections are §9.x) in the sources, tests, bindings, scripts, data notes and pages names a
/// heading of docs/semantics.md, and each quoted section of docs/architecture.md a heading of
/// that page.
#[test]
fn every_citation_resolves_to_a_heading_in_docs() {
    use std::path::{Path, PathBuf};

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let headings = |page: &str| -> Vec<String> {
        let text = std::fs::read_to_string(root.join("docs").join(page)).unwrap_or_else(|e| panic!("docs/{page}: {e}"));
        text.lines().filter(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim().to_string()).collect()
    };
    // "### 2.3a The Tesla model …" is section 2.3a; "## 4. NaN rules" section 4.
    let sections: Vec<String> = headings("semantics.md")
        .iter()
        .filter_map(|h| h.split_whitespace().next())
        .map(|n| n.trim_end_matches('.').to_string())
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    let architecture = headings("architecture.md");

    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | "__pycache__") && !name.starts_with('.') {
                    walk(&path, files);
                }
            } else if [".rs", ".py", ".pyi", ".h", ".c", ".cpp", ".sh", ".md", ".csv"].iter().any(|e| name.ends_with(e))
            {
                files.push(path);
            }
        }
    }
    let mut files = vec![root.join("README.md")];
    for dir in ["src", "tests", "benches", "capi", "python", "scripts", "docs", "data"] {
        walk(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "only {} files found under {}", files.len(), root.display());

    let mut unresolved = Vec::new();
    let mut citations = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(root).unwrap().display().to_string();
        for (at, _) in text.match_indices('§') {
            let number: String =
                text[at + '§'.len_utf8()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
            let number = number.trim_end_matches('.');
            if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) || number.starts_with('9') {
                continue;
            }
            citations += 1;
            if !sections.iter().any(|s| s == number) {
                unresolved.push(format!("{name}: §{number}"));
            }
        }
        for (at, _) in text.match_indices("docs/architecture.md, \"") {
            let rest = &text[at + "docs/architecture.md, \"".len()..];
            let section = &rest[..rest.find('"').unwrap_or(rest.len())];
            citations += 1;
            if !architecture.iter().any(|h| h == section) {
                unresolved.push(format!("{name}: docs/architecture.md \"{section}\""));
            }
        }
        // (This file names them to look for them.)
        for stale in ["SEMANTICS", "DESIGN.md"] {
            if text.contains(stale) && name != file!() {
                unresolved.push(format!("{name}: cites {stale}, which is not in the repository"));
            }
        }
    }
    assert!(citations > 150, "only {citations} citations found");
    assert!(unresolved.is_empty(), "citations that resolve to no heading in docs/:\n{}", unresolved.join("\n"));
}
