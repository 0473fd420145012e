//! The low-precision conversions of the catalog against what NVIDIA's ptxas accepts
//! (data/ptxas/cvt_lowprec.tsv, written by scripts/ptxas_cvt_catalog.py from ptxas 13.5 and
//! 12.9): the same spellings, with the same operand counts, on exactly the same targets, but
//! for the PTX 9.4 `.pzo` and `.scaled::n1::ue8m0` forms, which the parser refuses with the
//! reason.

use std::collections::{BTreeMap, BTreeSet};

use ptxfp::ptx::{catalog, KNOWN_TARGETS};
use ptxfp::{Instr, Opcode, Target};

/// A row of the table: spelling, operand count (the values inside braces counted one by one)
/// and the targets ptxas accepts it on.
struct Row {
    spelling: String,
    operands: usize,
    targets: BTreeSet<String>,
}

fn rows() -> Vec<Row> {
    include_str!("../data/ptxas/cvt_lowprec.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("spelling\t"))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "{l}");
            // "r0, {f1, f2, f3, f4}, r2": every name after the destination is a source.
            let operands = cols[1].split(',').count() - 1;
            let targets = cols[2].split(',').filter(|t| !t.is_empty()).map(str::to_string).collect();
            Row { spelling: cols[0].to_string(), operands, targets }
        })
        .collect()
}

fn unestablished(spelling: &str) -> bool {
    spelling.contains(".pzo") || spelling.contains("::n1::")
}

/// The targets ptxas 13.5 was asked about: every known one but sm_101, which CUDA 13 renamed
/// sm_110.
fn asked(t: &Target) -> bool {
    t.sm() != 101
}

#[test]
fn the_catalog_has_exactly_the_low_precision_spellings_ptxas_accepts() {
    let rows = rows();
    assert_eq!(rows.len(), 466, "data/ptxas/cvt_lowprec.tsv");
    // The catalog: spelling → (operand count, target names).
    let mut catalog: BTreeMap<String, (usize, BTreeSet<String>)> = BTreeMap::new();
    for e in catalog::entries().iter().filter(|e| matches!(e.instr.opcode(), Opcode::Cvt { .. })) {
        let names: BTreeSet<String> = e.targets.iter().filter(asked).map(|t| t.to_string()).collect();
        let slot = catalog.entry(e.instr.to_string()).or_insert((e.sources, BTreeSet::new()));
        assert_eq!(slot.0, e.sources, "{}: one operand count per low-precision spelling", e.instr);
        slot.1.extend(names);
    }
    let mut seen = BTreeSet::new();
    for row in rows.iter().filter(|r| !r.targets.is_empty() && !unestablished(&r.spelling)) {
        let instr: Instr = row.spelling.parse().unwrap_or_else(|e| panic!("{}: {e}", row.spelling));
        // The table also lists older spellings the candidates covered (`cvt.rn.f16x2.f32`);
        // their targets are tests/catalog.rs's.
        if !instr.is_low_precision() {
            continue;
        }
        let canonical = instr.to_string();
        let (operands, targets) = catalog
            .get(&canonical)
            .unwrap_or_else(|| panic!("{} (as {canonical}) is not in the catalog", row.spelling));
        assert_eq!(*operands, row.operands, "{}: operand count", row.spelling);
        assert_eq!(targets, &row.targets, "{}: targets", row.spelling);
        seen.insert(canonical);
    }
    // And nothing more: every low-precision entry is a spelling ptxas accepts.
    let extra: Vec<&String> = catalog::entries()
        .iter()
        .filter(|e| e.instr.is_low_precision())
        .map(|e| catalog.get_key_value(&e.instr.to_string()).unwrap().0)
        .filter(|s| !seen.contains(*s))
        .collect();
    assert!(extra.is_empty(), "in the catalog but refused by ptxas: {extra:?}");
    assert_eq!(catalog::entries().iter().filter(|e| e.instr.is_low_precision()).count(), 210);
}

#[test]
fn the_unestablished_forms_are_refused_with_the_reason() {
    let rows = rows();
    let refused: Vec<&Row> = rows.iter().filter(|r| unestablished(&r.spelling)).collect();
    assert_eq!(refused.len(), 236);
    for row in refused {
        let err = row.spelling.parse::<Instr>().expect_err(&row.spelling).to_string();
        assert!(err.contains("PTX 9.4") && err.contains("does not evaluate"), "{}: {err}", row.spelling);
    }
}

#[test]
fn a_missing_target_names_the_ones_that_have_it() {
    let on = |spelling: &str, target: &str| {
        let instr: Instr = spelling.parse().unwrap();
        let target: Target = target.parse().unwrap();
        let ops = vec![0; instr.operand_counts()[0]];
        instr.eval_on(target, &ops).map_err(|e| e.to_string())
    };
    assert_eq!(
        on("cvt.rs.f16x2.f32", "sm_120a").unwrap_err(),
        "cvt.rs.f16x2.f32 requires sm_100a, sm_103a or sm_107a; the target is sm_120a"
    );
    assert_eq!(
        on("cvt.rn.satfinite.e2m1x2.f32", "sm_100").unwrap_err(),
        "cvt.rn.satfinite.e2m1x2.f32 requires sm_100f, sm_110f or sm_120f (or a later sm_XXf or sm_XXa of \
         the same family); the target is sm_100"
    );
    assert!(on("cvt.rn.satfinite.e2m1x2.f32", "sm_103f").is_ok());
    assert!(on("cvt.rn.satfinite.e2m1x2.f32", "sm_121a").is_ok());
    assert!(on("cvt.rn.satfinite.e4m3x2.f32", "sm_89").is_ok());
    assert!(on("cvt.rn.satfinite.e4m3x2.f32", "sm_88").unwrap_err().contains("requires sm_89 or newer"));
    // Every known target is one the table was asked about, or sm_101 (renamed sm_110).
    assert_eq!(KNOWN_TARGETS.iter().filter(|t| !asked(t)).count(), 3);
}
