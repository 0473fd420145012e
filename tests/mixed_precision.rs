//! The mixed-precision arithmetic of PTX ISA §9.7.5 (`add`/`sub{.rnd}{.sat}.f32.{f16,bf16}`,
//! `fma.rnd{.sat}.f32.{f16,bf16}`; docs/semantics.md §8.8):
//!
//! - the catalog has exactly the forms ptxas accepts (data/ptxas/mixed.tsv), on sm_100 and
//!   later, and refuses the rest with the legal alternatives;
//! - each form equals the composition PTX defines, `cvt.f32.{f16,bf16}` then the f32
//!   instruction of the same modifiers, on every f16/bf16 value of `a` with edge-biased f32
//!   operands (for `fma`, `b` edge-biased too: in the exhaustive tier, all of `a` with
//!   several `b` each);
//! - each form is IEEE 754 arithmetic in the spelled direction on the exact values, by an
//!   oracle that shares nothing with ptxfp (rustc_apfloat's conversion and arithmetic), with
//!   `.sat` clamping to [0, 1] and NaN results the canonical 0x7FFFFFFF (+0 under `.sat`);
//! - the batch path (widening, then the f32 kernels) equals the scalar definition at every
//!   SIMD level.

mod common;

use common::batch::{compare, levels, Tally};
use common::{ap_add, ap_cvt, ap_fma, ap_sub, operand, Layout, Rng};
use ptxfp::ptx::catalog;
use ptxfp::{Format, Instr, Opcode, Rounding, Target, Type};
use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

const F32: Layout = Layout::of(Format::F32);

/// Every mixed-precision spelling of the catalog.
fn spellings() -> Vec<Instr> {
    let mut all: Vec<Instr> =
        catalog::entries().iter().map(|e| e.instr).filter(|i| i.mixed_source().is_some()).collect();
    all.dedup();
    all
}

/// The f32 instruction a form composes with: its spelling without the source type.
fn f32_form(instr: &Instr) -> Instr {
    let spelling = instr.to_string();
    let cut = spelling.rfind('.').unwrap();
    spelling[..cut].parse().unwrap_or_else(|e| panic!("{spelling}: {e}"))
}

/// The f16 or bf16 format of the converted operands.
fn source_format(instr: &Instr) -> Format {
    match instr.mixed_source() {
        Some(Type::F16) => Format::F16,
        Some(Type::BF16) => Format::BF16,
        other => panic!("{instr}: source {other:?}"),
    }
}

/// How many leading operands are converted: `a`, and `b` of `fma`.
fn converted(instr: &Instr) -> usize {
    if instr.opcode() == Opcode::Fma {
        2
    } else {
        1
    }
}

#[test]
fn the_catalog_has_the_56_forms_of_9_7_5_on_sm_100_and_later() {
    let all = spellings();
    let count = |op: Opcode| all.iter().filter(|i| i.opcode() == op).count();
    // add and sub: no rounding or one of four, .sat or not, f16 or bf16; fma needs a rounding.
    assert_eq!((count(Opcode::Add), count(Opcode::Sub), count(Opcode::Fma)), (20, 20, 16));
    for i in &all {
        assert!(!i.modifiers().ftz, "{i}: §9.7.5 has no .ftz");
        assert_eq!(i.ty(), Type::F32);
        assert_eq!(i.operand_counts(), vec![converted(i) + 1], "{i}");
        assert_eq!(i.min_sm(), 100, "{i}");
        let spelled: Instr = i.to_string().parse().unwrap();
        assert_eq!(&spelled, i, "{i} parses back to itself");
    }
    let sm90 = Target::DEFAULT;
    let err = all[0].eval_on(sm90, &[0x3C00, 0x3F80_0000]).unwrap_err().to_string();
    assert!(err.contains("sm_100"), "{err}");
}

/// The forms ptxas accepts, as data/ptxas/mixed.tsv records them (scripts/ptxas_cvt_catalog.py
/// `--family mixed`): the same spellings, operand counts and targets (every known target but
/// sm_101, which CUDA 13 renamed sm_110 and ptxas 13.5 was not asked about). The table's PTX
/// 9.4 packed forms are refused (`spellings_ptx_lacks_are_refused_with_the_alternatives`).
#[test]
fn the_catalog_is_what_ptxas_accepts() {
    type Forms = BTreeMap<String, (usize, BTreeSet<String>)>;
    let mut accepted = Forms::new();
    for line in
        include_str!("../data/ptxas/mixed.tsv").lines().filter(|l| !l.starts_with('#') && !l.starts_with("spelling\t"))
    {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "{line}");
        // Two types: the §9.7.5 forms; three or four: PTX 9.4's packed ones.
        if cols[0].contains("x2") {
            continue;
        }
        let targets = cols[2].split(',').map(str::to_string).collect();
        accepted.insert(cols[0].to_string(), (cols[1].split(',').count() - 1, targets));
    }
    let mut ours = Forms::new();
    for e in catalog::entries().iter().filter(|e| e.instr.mixed_source().is_some()) {
        let targets = e.targets.iter().filter(|t| t.sm() != 101).map(|t| t.to_string()).collect();
        ours.insert(e.instr.to_string(), (e.sources, targets));
    }
    assert_eq!(accepted.len(), 56, "data/ptxas/mixed.tsv has the 56 forms of §9.7.5");
    assert_eq!(ours, accepted, "the catalog's mixed-precision forms, operand counts and targets against ptxas");
}

#[test]
fn spellings_ptx_lacks_are_refused_with_the_alternatives() {
    let message = |s: &str| s.parse::<Instr>().expect_err(s).to_string();
    let cases: [(&str, &[&str]); 6] = [
        ("add.rn.ftz.f32.f16", &["'.ftz' is not allowed", ".sat"]),
        ("fma.f32.bf16", &["needs one of", ".rn"]),
        ("add.rn.f16.f32", &["no mixed-precision form", "add.f32.f16"]),
        ("mul.rn.f32.f16", &["one type", "add, sub and fma"]),
        ("add.rn.f32x2.f16x2.f32x2", &["9.4", "add.rn.f32.f16"]),
        ("fma.rn.f32.f16.f16", &["9.4"]),
    ];
    for (spelling, parts) in cases {
        let m = message(spelling);
        for p in parts {
            assert!(m.contains(p), "{spelling}: {m:?} lacks {p:?}");
        }
    }
}

/// Cases worked out by hand from §9.7.5's definition.
#[test]
fn directed_cases() {
    let eval = |s: &str, x: &[u64]| s.parse::<Instr>().unwrap().eval_on(Target::new(100).unwrap(), x).unwrap();
    // 1 + 1 = 2.
    assert_eq!(eval("add.rn.f32.f16", &[0x3C00, 0x3F80_0000]), 0x4000_0000);
    // The smallest f16 subnormal is 2^-24, an f32 normal: kept, no flush.
    assert_eq!(eval("add.rz.f32.f16", &[0x0001, 0]), 0x3380_0000);
    // The smallest bf16 subnormal is the f32 subnormal 0x00010000: kept.
    assert_eq!(eval("add.rn.f32.bf16", &[0x0001, 0]), 0x0001_0000);
    // sub: convert(a) − c.
    assert_eq!(eval("sub.rn.f32.f16", &[0x4000, 0x3F80_0000]), 0x3F80_0000);
    // 65504² + 0 = 4290774016, exact in f32 (22 significant bits).
    assert_eq!(eval("fma.rn.f32.f16", &[0x7BFF, 0x7BFF, 0]), 0x4F7F_C004);
    // One rounding of the exact product-sum: (1 + 2^-10)² − 1 = 2^-9 + 2^-20, exact.
    assert_eq!(eval("fma.rz.f32.f16", &[0x3C01, 0x3C01, 0xBF80_0000]), 0x3B00_1000);
    // 1 + 2^-30 rounds to 1 downward, to 1 + 2^-23 upward.
    assert_eq!(eval("add.rm.f32.f16", &[0x3C00, 0x3080_0000]), 0x3F80_0000);
    assert_eq!(eval("add.rp.f32.f16", &[0x3C00, 0x3080_0000]), 0x3F80_0001);
    // .sat: NaN gives +0, above 1 gives 1, below 0 gives +0.
    assert_eq!(eval("add.rn.sat.f32.f16", &[0x7E00, 0]), 0);
    assert_eq!(eval("add.sat.f32.bf16", &[0x4000, 0]), 0x3F80_0000);
    assert_eq!(eval("sub.rn.sat.f32.f16", &[0x3C00, 0x4000_0000]), 0);
    // A NaN operand gives the canonical f32 NaN; Inf − Inf too.
    assert_eq!(eval("add.rn.f32.bf16", &[0xFF81, 0x3F80_0000]), 0x7FFF_FFFF);
    assert_eq!(eval("sub.rn.f32.f16", &[0x7C00, 0x7F80_0000]), 0x7FFF_FFFF);
    // x + (−x) is +0, −0 under .rm.
    assert_eq!(eval("add.rn.f32.f16", &[0x3C00, 0xBF80_0000]), 0);
    assert_eq!(eval("add.rm.f32.f16", &[0x3C00, 0xBF80_0000]), 0x8000_0000);
}

/// The f32 operands tried with one converted value `w`: specials, values that cancel `w`
/// exactly or nearly (one f16/bf16 unit, one f32 unit), that align with it at the distances
/// where its bits start to be lost, and edge-biased ones.
fn partners(w: u64, rng: &mut Rng, out: &mut Vec<u64>) {
    out.clear();
    out.extend([0, 0x8000_0000, 1, 0x8000_0001, 0x0080_0000, 0x7F7F_FFFF, 0xFF80_0000, 0x7F80_0000, 0x7FC0_0001]);
    out.extend([0x3F80_0000, 0xBF80_0000, 0x3F00_0000]);
    if F32.is_finite_nonzero(w) {
        let neg = w ^ 0x8000_0000;
        out.extend([neg, F32.nudge(neg, 1), F32.nudge(neg, -1), F32.nudge(neg, 1 << 13), F32.nudge(w, -(1 << 16))]);
        for k in [-25, -24, -13, -11, -8, 8, 11, 24, 25] {
            out.push(F32.at_scale(neg, k));
        }
    }
    for _ in 0..8 {
        out.push(operand(rng, F32));
    }
}

/// Every form on every value of `a` (and, for `fma`, `b_count` edge-biased `b` per `a`), with
/// [`partners`] for the f32 operand, against `cvt` then the f32 instruction.
fn check_composition(b_count: usize) {
    let tally = Tally::default();
    spellings().par_iter().for_each(|instr| {
        let target = instr.catalog_entries()[0].lowest_target();
        let f32_instr = f32_form(instr);
        let from = source_format(instr);
        let widen: Instr = format!("cvt.f32.{}", instr.mixed_source().unwrap().name()).parse().unwrap();
        let half = Layout::of(from);
        let mut rng = Rng::new(common::seed(&instr.to_string(), 0));
        let (mut failed, mut examples) = (0u64, Vec::new());
        let mut cs = Vec::new();
        for a in 0..=u16::MAX as u64 {
            let wa = widen.eval(&[a]).unwrap();
            let bs: Vec<u64> = match converted(instr) {
                1 => vec![0],
                _ => (0..b_count).map(|k| if k == 0 { a } else { operand(&mut rng, half) }).collect(),
            };
            for &b in &bs {
                let wb = widen.eval(&[b]).unwrap();
                let product =
                    if converted(instr) == 2 { common::ap_mul(Format::F32, wa, wb, Rounding::Rn) } else { wa };
                partners(product, &mut rng, &mut cs);
                for &c in &cs {
                    let (got, want) = if converted(instr) == 2 {
                        (instr.eval_on(target, &[a, b, c]), f32_instr.eval(&[wa, wb, c]))
                    } else {
                        (instr.eval_on(target, &[a, c]), f32_instr.eval(&[wa, c]))
                    };
                    let (got, want) = (got.unwrap(), want.unwrap());
                    if got != want {
                        failed += 1;
                        if examples.len() < 10 {
                            examples.push(format!(
                                "{instr} a {a:#06x} b {b:#06x} c {c:#010x}: {got:#x}, composed {want:#x}"
                            ));
                        }
                    }
                }
            }
        }
        tally.add((failed, examples));
    });
    tally.check("mixed precision against cvt then the f32 instruction");
}

#[test]
fn each_form_is_the_f32_instruction_on_the_converted_operands() {
    check_composition(2);
}

/// The exhaustive tier: every `a` with 8 `b` each for `fma` (about 20 s on two cores).
#[test]
#[ignore = "exhaustive tier"]
fn each_form_is_the_f32_instruction_on_the_converted_operands_exhaustive() {
    check_composition(8);
}

/// `.sat` as §9.7.5 states it: NaN → +0, clamped to [0, 1] (−0 included: +0).
fn saturate(x: u64) -> u64 {
    if F32.is_nan(x) || F32.is_neg(x) {
        0
    } else {
        x.min(F32.one())
    }
}

#[test]
fn each_form_is_ieee_arithmetic_on_the_exact_values() {
    const CASES: u64 = 1 << 18;
    for instr in spellings() {
        let target = instr.catalog_entries()[0].lowest_target();
        let from = source_format(&instr);
        let half = Layout::of(from);
        let rnd = instr.rounding();
        let sat = instr.modifiers().sat;
        common::run(&instr.to_string(), CASES, |rng| {
            let (a, b) = (operand(rng, half), operand(rng, half));
            let (wa, wb) = (ap_cvt(from, Format::F32, a, Rounding::Rn), ap_cvt(from, Format::F32, b, Rounding::Rn));
            let (ops, exact) = match instr.opcode() {
                Opcode::Add => {
                    let c = if rng.coin() { operand(rng, F32) } else { F32.nudge(wa ^ 0x8000_0000, rng.range(-3, 3)) };
                    (vec![a, c], ap_add(Format::F32, wa, c, rnd))
                }
                Opcode::Sub => {
                    let c = if rng.coin() { operand(rng, F32) } else { F32.nudge(wa, rng.range(-3, 3)) };
                    (vec![a, c], ap_sub(Format::F32, wa, c, rnd))
                }
                _ => {
                    let c = if rng.coin() {
                        operand(rng, F32)
                    } else {
                        F32.nudge(common::ap_mul(Format::F32, wa, wb, rnd) ^ 0x8000_0000, rng.range(-3, 3))
                    };
                    (vec![a, b, c], ap_fma(Format::F32, wa, wb, c, rnd))
                }
            };
            let want = match (sat, F32.is_nan(exact)) {
                (true, _) => saturate(exact),
                (false, true) => 0x7FFF_FFFF,
                (false, false) => exact,
            };
            let got = instr.eval_on(target, &ops).unwrap();
            (got != want).then(|| format!("{instr} {ops:#x?}: ptxfp {got:#x}, IEEE {want:#x}"))
        });
    }
}

#[test]
fn the_batch_path_equals_the_scalar_definition_at_every_level() {
    let levels = levels();
    let tally = Tally::default();
    spellings().par_iter().for_each(|instr| {
        let target = instr.catalog_entries()[0].lowest_target();
        for level in &levels {
            assert!(instr.is_vectorized_at(target, *level), "{instr} has no kernel at {level}");
        }
        let half = Layout::of(source_format(instr));
        let mut rng = Rng::new(common::seed(&instr.to_string(), 1));
        // Every a, then edge-biased ones; a length no SIMD width divides.
        let n = (1usize << 17) + 13;
        let mut srcs: Vec<Vec<u64>> = vec![Vec::with_capacity(n); converted(instr) + 1];
        for i in 0..n {
            srcs[0].push(if i < 1 << 16 { i as u64 } else { operand(&mut rng, half) });
            if converted(instr) == 2 {
                srcs[1].push(operand(&mut rng, half));
            }
            let c = operand(&mut rng, F32);
            srcs.last_mut().unwrap().push(c);
        }
        tally.add(compare(instr, target, &levels, &srcs));
    });
    tally.check("mixed-precision kernels against the scalar definition");
}
