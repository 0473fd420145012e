//! The parser against the project's copies of the PTX catalog (`tests/data/catalog.tsv`) and
//! of the spellings to reject (`tests/data/illegal.txt`).

use std::collections::BTreeSet;

use ptxfp::ptx::catalog;
use ptxfp::{Instr, Opcode};

fn catalog_lines() -> Vec<(String, usize, u32)> {
    include_str!("data/catalog.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("spelling"))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols[0].to_string(), cols[1].parse().unwrap(), cols[3].parse().unwrap())
        })
        .collect()
}

#[test]
fn every_catalog_spelling_parses_with_its_operand_count() {
    let lines = catalog_lines();
    assert!(lines.len() > 400);
    for (spelling, sources, _) in &lines {
        let instr: Instr = spelling.parse().unwrap_or_else(|e| panic!("{spelling}: {e}"));
        assert_eq!(&instr.to_string(), spelling, "Display must give the canonical spelling back");
        assert!(instr.takes(*sources), "{spelling} must take {sources} operands");
    }
}

#[test]
fn generated_catalog_equals_the_published_one_outside_cvt_and_mixed_precision() {
    let published: BTreeSet<(String, usize, u32)> = catalog_lines().into_iter().collect();
    let generated: BTreeSet<(String, usize, u32)> = catalog::entries()
        .iter()
        // §9.7.5 is not in the published catalog: tests/mixed_precision.rs holds it against ptxas.
        .filter(|e| !matches!(e.instr.opcode(), Opcode::Cvt { .. }) && e.instr.mixed_source().is_none())
        .map(|e| (e.instr.to_string(), e.sources, e.min_sm))
        .collect();
    let missing: Vec<_> = published.difference(&generated).collect();
    let extra: Vec<_> = generated.difference(&published).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}\nextra {extra:?}");
}

#[test]
fn every_illegal_spelling_is_rejected_with_a_reason() {
    let illegal: Vec<&str> = include_str!("data/illegal.txt").lines().filter(|l| !l.starts_with('#')).collect();
    assert!(illegal.len() > 40);
    for spelling in illegal.iter().copied().chain([""]) {
        let err = spelling.parse::<Instr>().expect_err(spelling);
        assert!(err.message.len() > 10, "{spelling}: {err}");
    }
}

fn message(spelling: &str) -> String {
    spelling.parse::<Instr>().expect_err(spelling).to_string()
}

#[test]
fn errors_name_the_offending_part_and_the_alternatives() {
    let cases = [
        ("add.sat.f64", &[".sat", ".rn"][..]),
        ("fma.f32", &["needs one of", ".rn", ".rz"]),
        ("min.xorsign.f32", &["needs one of", ".abs"]),
        ("add.rn.rz.f32", &["more than one", ".rn", ".rz"]),
        ("add.ftz.ftz.f32", &[".ftz", "twice"]),
        ("add.rn", &["missing type", ".f32"]),
        ("add.f128", &["'.f128'"]),
        ("fma.rn.f32.f32", &["no mixed-precision form", "fma.f32.f16"]),
        ("min.f32.f16", &["one type", "add, sub and fma"]),
        ("addf32", &["unknown mnemonic", "add"]),
        ("MUFU.FOO", &["unknown MUFU function", "RCP"]),
        ("MUFU.RCP.FTZ", &[".FTZ", ".SAT"]),
        ("fma.rna.f32", &[".rna", ".rn"]),
        ("testp.zero.f32", &[".zero", ".finite"]),
        ("copysign.f16", &["no .f16 form", ".f32"]),
        // ptxas and the CUDA 13.0 driver's JIT reject .sat on every cvt from bf16.
        ("cvt.sat.f32.bf16", &["'.sat' is not allowed", ".ftz"]),
        ("cvt.rn.sat.f16.bf16", &["'.sat' is not allowed", ".rn"]),
        ("tanh.approx.ftz.f32", &[".ftz", "tanh.f32"]),
        ("fma.rn.sat.bf16", &[".sat", "fma.bf16"]),
        ("cvt.f16.f32", &["needs one of", ".rn"]),
        // An integer destination takes an integer rounding, an integer source a float one.
        ("cvt.s32.f32", &["needs one of", ".rzi", ".rni"]),
        ("cvt.rn.s32.f32", &["'.rn' is not allowed", ".rzi"]),
        ("cvt.rzi.f32.u16", &["'.rzi' is not allowed", ".rz"]),
        ("cvt.rzi.ftz.s32.f64", &["'.ftz' is not allowed", ".sat"]),
        ("cvt.rzi.s32.s32", &["no conversion to .s32 from .s32"]),
        ("add.rn.s32", &["no .s32 form", ".f32"]),
        ("cvt.rn.f32.f16", &[".rn", "not allowed"]),
    ];
    for (spelling, needles) in cases {
        let m = message(spelling);
        for needle in needles {
            assert!(m.contains(needle), "message for {spelling} lacks {needle:?}: {m}");
        }
    }
}

#[test]
fn conversions_follow_the_ptx_cvt_rules() {
    for ok in [
        "cvt.rn.f16.f32",
        "cvt.rz.ftz.sat.f32.f64",
        "cvt.f64.f32",
        "cvt.ftz.f64.f32",
        "cvt.f32.f16",
        "cvt.f32.bf16",
        "cvt.rm.bf16.f64",
        "cvt.rn.relu.bf16.f32",
        "cvt.rz.relu.f16x2.f32",
        "cvt.rn.bf16x2.f32",
    ] {
        let i: Instr = ok.parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(i.to_string(), ok);
    }
    assert!("cvt.rn.f16x2.f32".parse::<Instr>().unwrap().takes(2));
    for bad in ["cvt.rn.ftz.f16.f64", "cvt.rn.sat.bf16.f32", "cvt.rm.relu.f16.f32", "cvt.rn.f32.f32", "cvt.rn.f16"] {
        assert!(bad.parse::<Instr>().is_err(), "{bad} must be rejected");
    }
}

#[test]
fn modifiers_in_any_order_display_canonically() {
    let i: Instr = "add.sat.ftz.rn.f32".parse().unwrap();
    assert_eq!(i.to_string(), "add.rn.ftz.sat.f32");
    let i: Instr = "min.abs.xorsign.NaN.f16".parse().unwrap();
    assert_eq!(i.to_string(), "min.NaN.xorsign.abs.f16");
}

/// Operand patterns that exercise every special case of a format (of an integer type: 0, ±1,
/// the bounds and the top bit).
fn edge_operands(ty: ptxfp::Type) -> Vec<u64> {
    let f = match ty.element() {
        ptxfp::Element::Float(f) => f,
        ptxfp::Element::Int(t) => {
            let (min, max) = (t.min() as u64 & t.mask(), t.max() as u64);
            return vec![0, 1, t.mask(), min, max, 1 << (t.bits() - 1), max - 1];
        }
        // A narrow code: zero, the least and largest values of both signs, the all-ones code
        // (a NaN where the format has one), in every element.
        ptxfp::Element::Narrow(n) => {
            let codes = [0, 1, n.max_finite(), n.sign_bit() | 1, n.sign_bit() | n.max_finite(), n.mask()];
            let (lanes, width) = (ty.lanes(), ty.element_bits());
            let shift = if n == ptxfp::Narrow::Tf32 { 13 } else { 0 };
            return (0..codes.len())
                .map(|k| (0..lanes).fold(0, |w, l| w | codes[(k + l as usize) % codes.len()] << (l * width)) << shift)
                .collect();
        }
    };
    let scalar = [
        0,
        f.sign_bit(),
        1,
        f.sign_bit() | 1,
        f.one(),
        f.one() | f.sign_bit(),
        f.max_finite(false),
        f.inf(false),
        f.inf(true),
        f.canonical_nan(),
        f.exp_mask() | 1,
    ];
    if ty.lanes() == 1 {
        scalar.to_vec()
    } else {
        scalar.iter().map(|&x| x | (scalar[(x as usize) % scalar.len()] << f.bits())).collect()
    }
}

#[test]
fn every_catalog_spelling_evaluates_on_every_target_that_has_it() {
    use ptxfp::ptx::KNOWN_TARGETS;
    for e in catalog::entries() {
        let mut evaluated_somewhere = false;
        for target in KNOWN_TARGETS {
            let sm = target.sm();
            if target.check(&e.instr).is_err() {
                continue;
            }
            if target.check_operand_count(&e.instr, e.sources).is_err() {
                // The spelling exists on the target, but not with this many operands
                // (three-input min/max before sm_100): evaluating is refused.
                assert!(sm < e.min_sm, "{} with {} operands refused on {target}", e.instr, e.sources);
                let zeros = vec![0u64; e.sources];
                assert!(
                    e.instr.eval_on(target, &zeros).is_err(),
                    "{} with {} operands on {target}",
                    e.instr,
                    e.sources
                );
                continue;
            }
            evaluated_somewhere = true;
            let types: Vec<_> = (0..e.sources).map(|i| e.instr.source_type(i)).collect();
            let values = edge_operands(types[0]);
            for &v in &values {
                let operands: Vec<u64> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let own = edge_operands(*t);
                        own[(i * 3 + v as usize) % own.len()]
                    })
                    .collect();
                let r = e.instr.eval_on(target, &operands);
                assert!(r.is_ok(), "{} on {target}: {:?}", e.instr, r);
                let width = e.instr.ty().bits();
                let r = r.unwrap();
                assert!(width == 64 || r >> width == 0, "{} wrote {r:#x}, wider than {width} bits", e.instr);
            }
        }
        assert!(evaluated_somewhere, "{} exists on no known target", e.instr);
    }
}
