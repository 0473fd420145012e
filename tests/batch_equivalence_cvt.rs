//! The `cvt` kernels (src/kernels/convert.rs) against the scalar definition
//! (`ptxfp::ops::cvt` through `eval_unchecked`), bit for bit.
//!
//! Default tier, at every SIMD level the processor has: every float-to-float `cvt` spelling
//! of the catalog must be vectorized; every spelling from f16 and bf16 gets all 2^16 operands;
//! the spellings from f32 and from f64 get at least 10^7 operand words per (source,
//! destination) pair, shared among its spellings: edge-biased operands aimed at the
//! destination's rounding boundaries (tests/common `cvt_operand`: values and midpoints of the
//! destination ± a few units, its smallest normal, subnormal range and overflow threshold,
//! NaNs with payloads), mixed with runs of uniform bits and of moderate exponents. A packed
//! `.f16x2.f32`/`.bf16x2.f32` word draws its two operands independently.
//!
//! Exhaustive tier (`--ignored`): all 2^32 operands of `cvt.rn.f16.f32`, `cvt.rp.f16.f32`
//! and `cvt.rn.bf16.f32`, at the level the processor runs, against the `half` crate's
//! conversions (an independent reference, [`half_reference`]): nearest and a directed rounding
//! onto f16's subnormal grid and overflow threshold, and the bf16 rounding every other bf16
//! result uses. The other directions and the `.ftz`, `.sat`, `.relu` and packed forms (the
//! same rounding with a flush of the operand, a clamp of the result or a second element) are
//! compared with the scalar definition in the default tier.

mod common;

use common::batch::{
    assert_vectorized_at_every_level, compare, every_u32_operand, levels, spellings_on_their_targets, Tally,
};
use common::{cvt_operand, operand, seed, Layout, Rng};
use ptxfp::{Format, Instr, Opcode, SimdLevel, Target};
use rayon::prelude::*;

/// Operand words per (source, destination) pair from f32 and f64.
const CASES: u64 = 10_000_000;

/// Words per batch: not a multiple of any SIMD width, so the kernels' padded tail runs too.
const BLOCK: usize = (1 << 14) + 13;

/// Every float-to-float `cvt` of the catalog with a target that has it.
fn spellings() -> Vec<(Instr, Target)> {
    spellings_on_their_targets(|i| matches!(i.opcode(), Opcode::Cvt { .. }) && i.integer_side().is_none())
}

fn source(instr: &Instr) -> Format {
    instr.source_type(0).float().expect("a float-to-float cvt")
}

#[test]
fn every_cvt_spelling_is_vectorized() {
    let all = spellings();
    assert_eq!(all.len(), 85 + 45, "the float-to-float cvt spellings of the catalog: between formats and same-format");
    assert_vectorized_at_every_level(&all);
}

#[test]
fn from_f16_and_bf16_every_operand() {
    let tally = Tally::default();
    let levels = levels();
    let every: Vec<u64> = (0..1 << 16).collect();
    spellings().par_iter().filter(|(i, _)| source(i).bits() == 16).for_each(|(instr, target)| {
        tally.add(compare(instr, *target, &levels, std::slice::from_ref(&every)));
    });
    tally.check("cvt from f16 and bf16");
}

/// One operand of `from` for a conversion to `to`, in a run of `kind`.
fn element(kind: u64, from: Layout, to: Layout, rng: &mut Rng) -> u64 {
    match kind {
        0..=4 => cvt_operand(rng, from, to),
        5 => operand(rng, from),
        6 => from.at_exp(rng.coin(), rng.range(-20, 20) as i32, rng),
        _ => rng.next() & from.mask(),
    }
}

/// ≥ 10^7 words per (source, destination) pair from `from`, shared among its spellings.
fn random_tier(from: Format) {
    let all: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| source(i) == from).collect();
    let levels = levels();
    let tally = Tally::default();
    let mut pairs: Vec<Format> = all.iter().map(|(i, _)| i.format()).collect();
    pairs.dedup();
    for to in pairs {
        let of_pair: Vec<&(Instr, Target)> = all.iter().filter(|(i, _)| i.format() == to).collect();
        let words = CASES.div_ceil(of_pair.len() as u64);
        let blocks = words.div_ceil(BLOCK as u64);
        let (lf, lt) = (Layout::of(from), Layout::of(to));
        of_pair.par_iter().for_each(|&&(instr, target)| {
            (0..blocks).into_par_iter().for_each(|block| {
                let mut rng = Rng::new(seed(&instr.to_string(), block));
                let len = BLOCK.min((words - block * BLOCK as u64) as usize);
                let n = if instr.ty().lanes() == 2 { 2 } else { 1 };
                let mut srcs = vec![vec![0u64; len]; n];
                let (mut kind, mut left) = (0, 0);
                for i in 0..len {
                    if left == 0 {
                        (kind, left) = (rng.below(8), 32 + rng.below(64));
                    }
                    left -= 1;
                    for src in srcs.iter_mut() {
                        src[i] = element(kind, lf, lt, &mut rng);
                    }
                }
                tally.add(compare(&instr, target, &levels, &srcs));
            });
        });
    }
    tally.check(&format!("cvt from {}", from.name()));
}

#[test]
fn from_f32_edge_biased() {
    random_tier(Format::F32);
}

#[test]
fn from_f64_edge_biased() {
    random_tier(Format::F64);
}

/// The `half` crate's conversions as the independent reference of the exhaustive tier:
/// `f16::from_f32` and `bf16::from_f32` round to nearest, ties to even, onto the subnormal grid
/// and to ±Inf; toward +∞ the nearest result moves up one unit where it lies below the operand
/// (both exact in f64). A NaN gives the canonical 0x7FFF (PTX cvt).
fn half_reference(spelling: &str, a: u32) -> u16 {
    let x = f32::from_bits(a);
    if x.is_nan() {
        return 0x7FFF;
    }
    match spelling {
        "cvt.rn.bf16.f32" => half::bf16::from_f32(x).to_bits(),
        "cvt.rn.f16.f32" => half::f16::from_f32(x).to_bits(),
        _ => {
            let nearest = half::f16::from_f32(x);
            if nearest.to_f64() >= f64::from(x) {
                nearest.to_bits()
            } else if nearest.to_bits() == 0x8000 {
                0x0001
            } else if nearest.is_sign_negative() {
                nearest.to_bits() - 1
            } else {
                nearest.to_bits() + 1
            }
        }
    }
}

#[test]
#[ignore = "exhaustive: all 2^32 operands of 3 cvt spellings from f32"]
fn from_f32_every_operand_against_half() {
    let level = SimdLevel::active();
    for spelling in ["cvt.rn.f16.f32", "cvt.rp.f16.f32", "cvt.rn.bf16.f32"] {
        let instr: Instr = spelling.parse().unwrap();
        let failed = every_u32_operand(&instr, level, |a| half_reference(spelling, a));
        assert!(failed.is_empty(), "{} blocks differ from the half crate: {failed:?}", failed.len());
    }
}
