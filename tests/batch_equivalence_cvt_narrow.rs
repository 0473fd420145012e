//! The low-precision conversion kernels (src/kernels/cvt_narrow.rs) against the scalar
//! definition (`ptxfp::ops::cvt_narrow` through `eval_unchecked`), bit for bit, at every SIMD
//! level the processor has.
//!
//! - Every down-conversion from f32, f16x2 and bf16x2 in `.rn`, `.rz` or `.rp` (and tf32's
//!   `.rna`) and by `.rs` (x2 and x4) must be vectorized, and every up-conversion (by a table
//!   of the scalar definition); the scaled and s2f6 down-conversions run their scalar
//!   definition (this test lists them, so that a new kernel shows up here).
//! - Up-conversions: every code word (with every scale byte in each element for the scaled
//!   forms).
//! - From f16x2 and bf16x2: every 16-bit value in each element, the other element
//!   edge-biased.
//! - From f32: 2^21 operand words per spelling (`.rs`: random bits uniform or with fields at
//!   their carry thresholds), aimed at the destination's grid: every
//!   exponent from below its smallest subnormal to above its largest binade, fractions with
//!   few bits, ties and their neighbours, the largest finite values and their rounding
//!   boundary, plus specials (zeros, infinities, NaNs with payloads) and uniform bits.

mod all_cores;
mod common;

use common::batch::{assert_vectorized_at_every_level, compare, levels, spellings_on_their_targets, Tally};
use common::{operand, seed, Layout, Rng};
use ptxfp::{Format, Instr, Mode, Target, Type};
use rayon::prelude::*;

/// The low-precision conversions that have a kernel.
fn vectorized(i: &Instr) -> bool {
    let Some((from, to)) = conversion(i) else { return false };
    if from.narrow().is_some() {
        return true;
    }
    let modifiers = i.modifiers();
    let round = match i.mode() {
        Mode::Round(_) => !(to == Type::Ue8m0x2 && i.rounding() == ptxfp::Rounding::Rn),
        Mode::TiesAway => true,
        Mode::Stochastic => return true,
        _ => false,
    };
    round && !modifiers.scaled && from.narrow().is_none() && to != Type::S2f6x2 && to.lanes() != 4
}

fn conversion(i: &Instr) -> Option<(Type, Type)> {
    match i.opcode() {
        ptxfp::Opcode::Cvt { from } if i.is_low_precision() => Some((from, i.ty())),
        _ => None,
    }
}

fn spellings() -> Vec<(Instr, Target)> {
    spellings_on_their_targets(vectorized)
}

#[test]
fn every_down_conversion_in_a_direction_is_vectorized_and_the_rest_are_listed() {
    let all = spellings();
    assert_vectorized_at_every_level(&all);
    let scalar: Vec<(Instr, Target)> = spellings_on_their_targets(|i| conversion(i).is_some() && !vectorized(i));
    for (instr, target) in &scalar {
        assert!(!instr.is_vectorized(*target), "{instr} has a kernel: count it in `vectorized`");
    }
    eprintln!("{} low-precision spellings vectorized, {} scalar", all.len(), scalar.len());
    assert!(all.len() >= 190, "{} vectorized", all.len());
}

/// An f32 operand aimed at a destination of precision `p` whose finite binades are
/// 2^emin … 2^emax.
fn aimed(rng: &mut Rng, p: i32, emin: i32, emax: i32) -> u64 {
    let l = Layout::of(Format::F32);
    if rng.below(8) == 0 {
        return operand(rng, l);
    }
    let sign = if rng.coin() { 0x8000_0000u64 } else { 0 };
    let e = rng.range((emin - p - 3).max(-149) as i64, (emax + 2).min(127) as i64) as i32;
    // The fraction: random, with few significant bits, or a tie (the bit below the
    // destination's last place) with or without bits below it.
    let frac = match rng.below(4) {
        0 => rng.next() & 0x7F_FFFF,
        1 => rng.next() & 0x7F_FFFF & !(0x7F_FFFF >> rng.below(8)),
        _ => {
            let last = (23 - (p - 1) + (emin - e).max(0)).clamp(1, 24) as u32;
            let tie = 1u64 << (last - 1);
            let above = (rng.next() << last) & 0x7F_FFFF;
            let below = match rng.below(3) {
                0 => 0,
                1 => rng.below(tie.max(2) - 1),
                _ => tie - 1,
            };
            (above | tie | below).wrapping_add(rng.range(-1, 1) as u64) & 0x7F_FFFF
        }
    };
    let biased = e + 127;
    if biased <= 0 {
        // An f32 subnormal: the value's top bit at 2^e.
        sign | ((1u64 << (149 + e)) | (frac >> (-e - 126 + 1).min(23))) & 0x7F_FFFF
    } else {
        sign | (biased as u64) << 23 | frac
    }
}

/// The precision and binade range of a destination type.
fn grid_of(to: Type) -> (i32, i32, i32) {
    match to {
        Type::Tf32 => (11, -126, 127),
        Type::F16 | Type::F16x2 => (11, -14, 15),
        Type::BF16 | Type::BF16x2 => (8, -126, 127),
        Type::E4m3x2 | Type::E4m3x4 => (4, -6, 8),
        Type::E5m2x2 | Type::E5m2x4 => (3, -14, 15),
        Type::E2m3x2 | Type::E2m3x4 => (4, 0, 2),
        Type::E3m2x2 | Type::E3m2x4 => (3, -2, 4),
        Type::E2m1x2 | Type::E2m1x4 => (2, 0, 2),
        Type::Ue8m0x2 => (1, -127, 127),
        Type::Ue5m3x2 => (4, -14, 15),
        other => panic!("no kernel to {other:?}"),
    }
}

/// Every vectorized spelling whose source type `from` accepts, on the operands `operands`
/// makes for it (from a generator seeded by the spelling and `stream`), at every level.
fn check_each(
    label: &str,
    stream: u64,
    from: impl Fn(Type) -> bool + Sync,
    operands: impl Fn(&Instr, &mut Rng) -> Vec<Vec<u64>> + Sync,
) {
    let _all_cores = all_cores::hold();
    let tally = Tally::default();
    let levels = levels();
    spellings().par_iter().filter(|(i, _)| from(conversion(i).unwrap().0)).for_each(|(instr, target)| {
        let mut rng = Rng::new(seed(&instr.to_string(), stream));
        tally.add(compare(instr, *target, &levels, &operands(instr, &mut rng)));
    });
    tally.check(label);
}

#[test]
fn up_conversions_every_code_and_scale() {
    check_each(
        "low-precision up-conversions",
        2,
        |from| from.narrow().is_some(),
        |instr, rng| {
            assert_eq!(instr.batch_path(instr.targets().lowest().unwrap()), ptxfp::BatchPath::Table, "{instr}");
            let bits = instr.source_type(0).bits();
            // FP6 codes with bits 7:6 set are outside the operand type (refused by eval).
            let code = |w: u64| w & instr.source_type(0).code_bits();
            if instr.modifiers().scaled {
                // Every code word with a random scale word, and every scale word with a random code.
                let n = 1u64 << 16;
                let mut codes: Vec<u64> = (0..n).map(|w| code(w & ((1 << bits) - 1))).collect();
                codes.extend((0..n).map(|_| code(rng.next() & ((1 << bits) - 1))));
                let scales: Vec<u64> = (0..n).map(|_| rng.next() & 0xFFFF).chain(0..n).collect();
                vec![codes, scales]
            } else {
                vec![(0..1u64 << bits).map(code).collect()]
            }
        },
    );
}

#[test]
fn from_f32_aimed_at_each_grid() {
    let n = (1usize << 21) + 13;
    check_each(
        "low-precision conversions from f32",
        0,
        |from| from == Type::F32,
        |instr, rng| {
            let (p, emin, emax) = grid_of(instr.ty());
            let count = instr.operand_counts()[0];
            let mut srcs: Vec<Vec<u64>> =
                (0..count).map(|_| (0..n).map(|_| aimed(rng, p, emin, emax)).collect()).collect();
            if instr.mode() == Mode::Stochastic {
                // The random bits: uniform, or each 8- or 16-bit field none, all or nearly all ones
                // (a carry from the smallest discarded part, or none from the largest).
                let fields = [0u64, 0xFF, 0xFE, 0x01, 0x1FFF, 0x1FFE, 0xFFFF, 0xFFFE, 0x8000, 0x1000];
                for r in srcs.last_mut().unwrap() {
                    *r = match rng.below(3) {
                        0 => rng.next() & 0xFFFF_FFFF,
                        _ => {
                            let hi = fields[rng.below(fields.len() as u64) as usize];
                            let lo = fields[rng.below(fields.len() as u64) as usize];
                            hi << 16 | lo
                        }
                    };
                }
            }
            srcs
        },
    );
}

#[test]
fn from_f16x2_and_bf16x2_every_value_in_each_element() {
    let label = "low-precision conversions from f16x2 and bf16x2";
    check_each(
        label,
        1,
        |from| matches!(from, Type::F16x2 | Type::BF16x2),
        |instr, rng| {
            let fmt = if conversion(instr).unwrap().0 == Type::BF16x2 { Format::BF16 } else { Format::F16 };
            let l = Layout::of(fmt);
            let words: Vec<u64> = (0..1u64 << 16)
                .flat_map(|v| {
                    let other = operand(rng, l);
                    [v | other << 16, other | v << 16]
                })
                .collect();
            vec![words]
        },
    );
}
