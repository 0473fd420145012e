//! The kernels of `cvt` between the integer types and the float formats
//! (src/kernels/cvt_int.rs) against the scalar definition (`ptxfp::ops::cvt_int` through
//! `eval_unchecked`), bit for bit, at every SIMD level the processor has.
//!
//! Default tier: all 576 spellings must be vectorized; every spelling from an 8- or 16-bit
//! source (u8, s8, u16, s16, f16, bf16) gets every operand; those from 32- and 64-bit sources
//! get at least 10^7 words per (source, destination) pair, shared among its spellings:
//! edge-biased floats (tests/common `operand`) mixed with values aimed at integer rounding and
//! saturation — integers, halves and their neighbours, the destination's bounds ± a few units —
//! and integers of random length with random runs of trailing zeros (exact ties of the float
//! formats), the types' bounds and their neighbours.
//!
//! Exhaustive tier (`--ignored`): all 2^32 operands of `cvt.rni.s32.f32`, `cvt.rmi.s32.f32`,
//! `cvt.rn.f32.s32` and `cvt.rp.f32.s32` (nearest, ties to even, and a direction that treats
//! the signs differently, each way), at the level the processor runs, against Rust's own
//! conversions (an independent reference, [`reference`]).

mod common;

use common::batch::{
    assert_vectorized_at_every_level, compare, every_u32_operand, levels, spellings_on_their_targets, Tally,
};
use common::{operand, seed, Layout, Rng};
use ptxfp::{Element, Instr, IntType, Rounding, SimdLevel, Target, Type};
use rayon::prelude::*;

/// Operand words per (source, destination) pair from 32- and 64-bit sources.
const CASES: u64 = 10_000_000;

/// Words per batch: not a multiple of any SIMD width, so the kernels' padded tail runs too.
const BLOCK: usize = (1 << 14) + 13;

/// Every integer conversion of the catalog with a target that has it.
fn spellings() -> Vec<(Instr, Target)> {
    spellings_on_their_targets(|i| i.integer_side().is_some())
}

#[test]
fn every_integer_cvt_is_vectorized() {
    let all = spellings();
    assert_eq!(all.len(), 576, "the integer cvt spellings of the catalog");
    assert_vectorized_at_every_level(&all);
}

#[test]
fn from_8_and_16_bit_sources_every_operand() {
    let tally = Tally::default();
    let levels = levels();
    let narrow: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| i.source_type(0).bits() <= 16).collect();
    assert_eq!(narrow.len(), 240);
    narrow.par_iter().for_each(|(instr, target)| {
        let every: Vec<u64> = (0..1u64 << instr.source_type(0).bits()).collect();
        tally.add(compare(instr, *target, &levels, &[every]));
    });
    tally.check("integer cvt from 8- and 16-bit sources");
}

/// A float operand of `l` aimed at converting to `to`: an integer, a half-integer or the
/// destination's bound, nudged by a few units, or an edge-biased operand.
fn float_operand(rng: &mut Rng, l: Layout, to: IntType) -> u64 {
    let neg = rng.coin();
    let near = |rng: &mut Rng, x: Option<u64>| match x {
        Some(x) => l.nudge(x, rng.range(-3, 3)),
        None => operand(rng, l),
    };
    match rng.below(8) {
        0..=1 => operand(rng, l),
        2 => {
            let len = (rng.below(to.bits() as u64 + 3) as u32).min(64);
            let k = rng.bits(len) as u128;
            near(rng, l.encode(neg, k, 0))
        }
        3 => {
            let len = (rng.below(to.bits() as u64 + 2) as u32).min(63);
            let k = rng.bits(len) as u128;
            near(rng, l.encode(neg, 2 * k + 1, -1))
        }
        4 => {
            // The bounds: 2^(n-1) and 2^n of an n-bit destination.
            let e = to.bits() as i32 - rng.below(2) as i32;
            near(rng, l.encode(neg, 1, e))
        }
        5 => {
            let k = rng.bits(l.p) as u128;
            l.encode(neg, k, rng.range(-3, 3) as i32).unwrap_or_else(|| operand(rng, l))
        }
        _ => l.nudge(l.encode(neg, 1, rng.range(-2, 4) as i32).unwrap(), rng.range(-2, 2)),
    }
}

/// An integer word of `t`: random length, random trailing zeros (ties of the float formats),
/// negated at random for signed types; or a bound of `t`, of a narrower type, or 0, ±1.
fn int_operand(rng: &mut Rng, t: IntType) -> u64 {
    let n = t.bits();
    let x = match rng.below(4) {
        0 => rng.next(),
        1 => {
            let bound = [t.min() as u64, t.max() as u64, 0, 1, u64::MAX, 1 << (n - 1)][rng.below(6) as usize];
            bound.wrapping_add(rng.range(-2, 2) as u64)
        }
        _ => {
            let len = rng.range(1, n as i64) as u32;
            let zeros = rng.below(len as u64) as u32;
            let x = (rng.bits(len) | 1 << (len - 1)) >> zeros << zeros;
            if t.is_signed() && rng.coin() {
                x.wrapping_neg()
            } else {
                x
            }
        }
    };
    x & t.mask()
}

/// ≥ 10^7 words per (source, destination) pair of the 32- and 64-bit sources, shared among its
/// spellings.
#[test]
fn from_32_and_64_bit_sources_edge_biased() {
    let all: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| i.source_type(0).bits() >= 32).collect();
    let levels = levels();
    let tally = Tally::default();
    let pair = |i: &Instr| (i.source_type(0), i.ty());
    let mut pairs: Vec<(Type, Type)> = all.iter().map(|(i, _)| pair(i)).collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 2 * 8 + 4 * 4, "f32 and f64 to 8 types, 4 integer types to 4 formats");
    for p in pairs {
        let of_pair: Vec<&(Instr, Target)> = all.iter().filter(|(i, _)| pair(i) == p).collect();
        let words = CASES.div_ceil(of_pair.len() as u64);
        let blocks = words.div_ceil(BLOCK as u64);
        of_pair.par_iter().for_each(|&&(instr, target)| {
            (0..blocks).into_par_iter().for_each(|block| {
                let mut rng = Rng::new(seed(&instr.to_string(), block));
                let len = BLOCK.min((words - block * BLOCK as u64) as usize);
                let operands: Vec<u64> = (0..len)
                    .map(|_| match (p.0.element(), p.1.element()) {
                        (Element::Float(f), Element::Int(to)) => float_operand(&mut rng, Layout::of(f), to),
                        (Element::Int(t), _) => int_operand(&mut rng, t),
                        _ => unreachable!("an integer conversion"),
                    })
                    .collect();
                tally.add(compare(&instr, target, &levels, &[operands]));
            });
        });
    }
    tally.check("integer cvt from 32- and 64-bit sources");
}

/// Rust's own conversions as the independent reference of the exhaustive tier: f32 → s32
/// rounds with `round_ties_even`/`trunc`/`floor`/`ceil` and converts with `as`, which clamps
/// to the range and gives 0 for NaN (the NVIDIA rule for destinations of up to 32 bits);
/// s32 → f32 is `as f32` (to nearest, ties to even), moved one unit by `next_up`/`next_down`
/// where the exact value (an f64) lies on the other side for a directed rounding.
fn reference(rnd: Rounding, to_int: bool, a: u32) -> u32 {
    if to_int {
        let x = f32::from_bits(a);
        let r = match rnd {
            Rounding::Rn => x.round_ties_even(),
            Rounding::Rz => x.trunc(),
            Rounding::Rm => x.floor(),
            Rounding::Rp => x.ceil(),
        };
        r as i32 as u32
    } else {
        let x = a as i32;
        let nearest = x as f32;
        let (r, exact) = (f64::from(nearest), f64::from(x));
        let r = match rnd {
            Rounding::Rn => nearest,
            Rounding::Rz if r.abs() > exact.abs() => {
                if x > 0 {
                    nearest.next_down()
                } else {
                    nearest.next_up()
                }
            }
            Rounding::Rm if r > exact => nearest.next_down(),
            Rounding::Rp if r < exact => nearest.next_up(),
            _ => nearest,
        };
        r.to_bits()
    }
}

#[test]
#[ignore = "exhaustive: all 2^32 operands of cvt between f32 and s32, to nearest and toward −∞/+∞"]
fn f32_and_s32_every_operand_against_rust() {
    let level = SimdLevel::active();
    for (to_int, rnd) in [(true, Rounding::Rn), (true, Rounding::Rm), (false, Rounding::Rn), (false, Rounding::Rp)] {
        {
            let spelling =
                if to_int { format!("cvt.{}i.s32.f32", rnd.name()) } else { format!("cvt.{}.f32.s32", rnd.name()) };
            let instr: Instr = spelling.parse().unwrap();
            let failed = every_u32_operand(&instr, level, |a| reference(rnd, to_int, a));
            assert!(failed.is_empty(), "{} blocks differ from Rust's conversion: {failed:?}", failed.len());
        }
    }
}
