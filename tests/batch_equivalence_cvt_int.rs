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
//! Exhaustive tier (`--ignored`): all 2^32 operands of every one of the 200 spellings from a
//! 32-bit source (f32 to each of the eight integer types, s32 and u32 to f16, bf16, f32 and
//! f64), at the level the processor runs, against references built from the host's own IEEE
//! arithmetic and Rust's conversions, which share no code with ptxfp (`all_operands`); about
//! 3.7 minutes on two AVX-512 cores.

mod all_cores;
mod common;

use common::batch::{assert_vectorized_at_every_level, compare, levels, spellings_on_their_targets, Tally};
use common::{operand, seed, Layout, Rng};
use ptxfp::{Element, Instr, IntType, Target, Type};
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
    let _all_cores = all_cores::hold();
    let tally = Tally::default();
    let levels = levels();
    let narrow: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| i.source_bits() <= 16).collect();
    assert_eq!(narrow.len(), 240);
    narrow.par_iter().for_each(|(instr, target)| {
        let every: Vec<u64> = (0..1u64 << instr.source_bits()).collect();
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
    let _all_cores = all_cores::hold();
    let all: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| i.source_bits() >= 32).collect();
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

/// The exhaustive tier. Each block of 2^14 operands is rounded once per direction (with and
/// without `.ftz`) and converted once per (integer type, format); the expected words of a
/// spelling are read from those, or, where a spelling differs from the one checked just before
/// only by modifiers whose effect is stated below (`.sat` and `.ftz`), derived from that
/// spelling's kernel words, which the reference has just checked: every spelling meets the
/// reference on every operand, and the references are computed once per direction and type
/// instead of once per spelling (`to_int`, `from_int`).
///
/// The references, from the host's IEEE arithmetic (every operation rounds to nearest, the
/// default; the floating-point environment is not touched) and Rust's conversions:
/// - f32 → integer: `common::integral_f32` rounds to an integral f32, then Rust's `as` clamps it to the
///   destination's range and gives 0 for a NaN — NVIDIA's rule, but for the 64-bit
///   destinations, whose NaN result is the integer with only its top bit set
///   (docs/semantics.md §8.3).
/// - integer → float: the nearest encoding from Rust's `as` (to f32) or the `half` crate's
///   `from_f32` (to f16 exactly from an exact f32, to bf16 from an f32 rounded to odd), moved
///   one unit toward the exact value (an f64) where the direction asks (`common::directed`); to f64
///   the conversion is exact. `.sat` clamps to [+0, 1].
mod all_operands {
    use std::cmp::Ordering;

    use ptxfp::{Format, Instr, IntType, Rounding, SimdLevel, Type, Word};
    use rayon::prelude::*;

    use super::common::batch::{Tally, Words};
    use super::common::{directed, integral_f32s, side, Layout};
    use super::{all_cores, spellings};

    const BLOCK: usize = 1 << 14;

    /// `v` rounded to f32 to odd (toward zero, the last bit set where inexact): one rounding
    /// of it to a format of at most 22 bits of precision is that rounding of `v`.
    #[inline(always)]
    fn to_odd(v: i64) -> f32 {
        let exact = v as f64;
        let mut t = v as f32;
        if f64::from(t).abs() > exact.abs() {
            t = f32::from_bits(t.to_bits() - 1);
        }
        if f64::from(t) == exact {
            t
        } else {
            f32::from_bits(t.to_bits() | 1)
        }
    }

    /// The encodings of a format nearest to a block's integers, and on which side of its
    /// integer each lies.
    #[derive(Default)]
    struct Nearest {
        bits: Vec<u64>,
        side: Vec<Ordering>,
    }

    /// The encodings of `fmt` nearest to the integers `vs` (`len` of them) into `near` (a
    /// plain loop per format, inlined into the block's check).
    #[inline(always)]
    fn nearest(fmt: Format, len: usize, vs: impl Iterator<Item = i64>, near: &mut Nearest) {
        #[inline(always)]
        fn each(len: usize, vs: impl Iterator<Item = i64>, near: &mut Nearest, f: impl Fn(i64) -> (u64, Ordering)) {
            near.bits.resize(len, 0);
            near.side.resize(len, Ordering::Equal);
            let mut written = 0;
            for ((n, s), v) in near.bits.iter_mut().zip(near.side.iter_mut()).zip(vs) {
                (*n, *s) = f(v);
                written += 1;
            }
            assert_eq!(written, len, "one integer per operand");
        }
        match fmt {
            Format::F64 => each(len, vs, near, |v| ((v as f64).to_bits(), Ordering::Equal)),
            Format::F32 => each(len, vs, near, |v| {
                let n = v as f32;
                (u64::from(n.to_bits()), side(f64::from(n), v as f64))
            }),
            // |v| ≤ 2^24 is exact in f32; beyond, both the f32 and its f16 overflow f16.
            Format::F16 => each(len, vs, near, |v| {
                let n = half::f16::from_f32(v as f32);
                (u64::from(n.to_bits()), side(n.to_f64(), v as f64))
            }),
            Format::BF16 => each(len, vs, near, |v| {
                let n = half::bf16::from_f32(to_odd(v));
                (u64::from(n.to_bits()), side(n.to_f64(), v as f64))
            }),
        }
    }

    /// Scratch buffers of one worker: the kernel's words of every width, the integral values
    /// of a block and the nearest encodings with their sides.
    #[derive(Default)]
    struct Scratch {
        w8: Words<u8>,
        w16: Words<u16>,
        w32: Words<u32>,
        w64: Words<u64>,
        rounded: Vec<f32>,
        /// The direction and flush of `rounded`.
        rounded_for: Option<(Rounding, bool)>,
        near: Nearest,
    }

    /// f32 → every integer type, in every direction, with and without `.ftz` and `.sat`, the
    /// spellings in the order of [`to_int_order`]. A spelling checked right after one of the
    /// same direction and type that lacks some of its modifiers is compared with that
    /// kernel's words, themselves compared with the reference: `.sat` changes nothing, and
    /// `.ftz` makes a subnormal operand a zero, whose result is 0 in every direction (set in
    /// the blocks that hold subnormals). The others are compared with the reference, the
    /// spellings of one direction and flush sharing the block's integral values.
    #[inline(always)]
    fn to_int(spellings: &[Instr], level: SimdLevel, xs: &[u32], s: &mut Scratch, tally: &Tally) {
        let mut previous: Option<Instr> = None;
        s.rounded_for = None;
        for instr in spellings {
            let (rnd, ftz) = (instr.rounding(), instr.modifiers().ftz);
            let Type::Int(to) = instr.ty() else { unreachable!() };
            let twin = previous.filter(|p| p.rounding() == rnd && p.ty() == instr.ty());
            previous = Some(*instr);
            if let Some(twin) = twin {
                let flushes = ftz && !twin.modifiers().ftz;
                tally.add(match to.bits() {
                    8 => s.w8.check_like_previous(instr, level, xs, zero_subnormals(flushes, xs)),
                    16 => s.w16.check_like_previous(instr, level, xs, zero_subnormals(flushes, xs)),
                    32 => s.w32.check_like_previous(instr, level, xs, zero_subnormals(flushes, xs)),
                    _ => s.w64.check_like_previous(instr, level, xs, zero_subnormals(flushes, xs)),
                });
                continue;
            }
            if s.rounded_for != Some((rnd, ftz)) {
                integral_f32s(xs, rnd, ftz, &mut s.rounded);
                s.rounded_for = Some((rnd, ftz));
            }
            let r = s.rounded.iter();
            // To 64 bits a NaN gives the integer with only its top bit set.
            let nan_top = |v: f32, word: u64| if v.is_nan() { 1 << 63 } else { word };
            tally.add(match to {
                IntType::U8 => s.w8.check(instr, level, xs, r.map(|&v| v as u8)),
                IntType::S8 => s.w8.check(instr, level, xs, r.map(|&v| v as i8 as u8)),
                IntType::U16 => s.w16.check(instr, level, xs, r.map(|&v| v as u16)),
                IntType::S16 => s.w16.check(instr, level, xs, r.map(|&v| v as i16 as u16)),
                IntType::U32 => s.w32.check(instr, level, xs, r.map(|&v| v as u32)),
                IntType::S32 => s.w32.check(instr, level, xs, r.map(|&v| v as i32 as u32)),
                IntType::U64 => s.w64.check(instr, level, xs, r.map(|&v| nan_top(v, v as u64))),
                IntType::S64 => s.w64.check(instr, level, xs, r.map(|&v| nan_top(v, v as i64 as u64))),
            });
        }
    }

    /// Where `flushes`, the words of the subnormal operands of the block `xs` set to 0.
    fn zero_subnormals<D: Word>(flushes: bool, xs: &[u32]) -> impl FnOnce(&mut [D]) + '_ {
        // The block is contiguous within one sign and 2^14 divides 2^23: its first operand
        // tells whether it holds subnormals.
        let subnormals = xs.first().is_some_and(|&x| x & 0x7FFF_FFFF < 0x80_0000);
        move |want| {
            if flushes && subnormals {
                for (w, &x) in want.iter_mut().zip(xs) {
                    if f32::from_bits(x).is_subnormal() {
                        *w = D::from_u64(0);
                    }
                }
            }
        }
    }

    /// The order [`to_int`] takes the spellings in: by direction and type, then without
    /// modifiers, `.sat`, `.ftz`, `.ftz.sat`.
    fn to_int_order(instr: &Instr) -> (u8, u32, bool, bool, bool) {
        let Type::Int(to) = instr.ty() else { unreachable!() };
        (instr.rounding() as u8, to.bits(), to.is_signed(), instr.modifiers().ftz, instr.modifiers().sat)
    }

    /// s32 and u32 → every format, in every direction (`.ftz` changes nothing; `.sat`
    /// clamps), the spellings of one (integer type, format) in the order of
    /// [`from_int_order`], sharing the nearest encodings. A spelling checked right after one
    /// of the same direction is compared with that kernel's words (themselves compared with
    /// the reference), saturated where it adds `.sat`; the others with the reference.
    #[inline(always)]
    fn from_int(
        groups: &[((IntType, Format), Vec<Instr>)],
        level: SimdLevel,
        xs: &[u32],
        s: &mut Scratch,
        tally: &Tally,
    ) {
        for ((from, fmt), instrs) in groups {
            let signed = *from == IntType::S32;
            let value = move |x: u32| if signed { i64::from(x as i32) } else { i64::from(x) };
            nearest(*fmt, xs.len(), xs.iter().map(|&x| value(x)), &mut s.near);
            let (near, l) = (&s.near, Layout::of(*fmt));
            let (saturate, sign_bit) = (saturate_rule(l), l.sign_bit());
            let mut previous: Option<&Instr> = None;
            for instr in instrs {
                let (rnd, sat) = (instr.rounding(), instr.modifiers().sat);
                let twin = previous.filter(|p| p.rounding() == rnd);
                previous = Some(instr);
                if let Some(twin) = twin {
                    let saturates = sat && !twin.modifiers().sat;
                    tally.add(match fmt.bits() {
                        16 => s.w16.check_like_previous(instr, level, xs, saturated(saturates, l)),
                        32 => s.w32.check_like_previous(instr, level, xs, saturated(saturates, l)),
                        _ => s.w64.check_like_previous(instr, level, xs, saturated(saturates, l)),
                    });
                    continue;
                }
                let want = near.bits.iter().zip(&near.side).map(|(&n, &side)| directed(rnd, n, side, sign_bit));
                let want = want.map(|w| if sat { saturate(w) } else { w });
                tally.add(match fmt.bits() {
                    16 => s.w16.check(instr, level, xs, want.map(|w| w as u16)),
                    32 => s.w32.check(instr, level, xs, want.map(|w| w as u32)),
                    _ => s.w64.check(instr, level, xs, want),
                });
            }
        }
    }

    /// `.sat` of a result of layout `l` converted from an integer: 1 for a positive result (a
    /// positive integer), +0 for a zero or negative one.
    fn saturate_rule(l: Layout) -> impl Fn(u64) -> u64 + Copy {
        let (one, sign_bit) = (l.one(), l.sign_bit());
        move |w| if (w & sign_bit == 0) & (w != 0) { one } else { 0 }
    }

    /// Where `saturates`, the words of results of layout `l` converted from integers
    /// saturated (`saturate_rule`).
    fn saturated<D: Word>(saturates: bool, l: Layout) -> impl FnOnce(&mut [D]) {
        let saturate = saturate_rule(l);
        move |words| {
            if saturates {
                for w in words {
                    *w = D::from_u64(saturate(w.to_u64()));
                }
            }
        }
    }

    /// The order [`from_int`] takes the spellings of one (integer type, format) in: by
    /// direction, then without modifiers, `.ftz`, `.sat`, `.ftz.sat`.
    fn from_int_order(instr: &Instr) -> (u8, bool, bool) {
        (instr.rounding() as u8, instr.modifiers().sat, instr.modifiers().ftz)
    }

    /// Spellings grouped by `key`, in the catalog's order.
    fn grouped<K: PartialEq + Copy>(
        instrs: impl Iterator<Item = Instr>,
        key: impl Fn(&Instr) -> K,
    ) -> Vec<(K, Vec<Instr>)> {
        let mut groups: Vec<(K, Vec<Instr>)> = Vec::new();
        for instr in instrs {
            match groups.iter_mut().find(|(k, _)| *k == key(&instr)) {
                Some((_, g)) => g.push(instr),
                None => groups.push((key(&instr), vec![instr])),
            }
        }
        groups
    }

    #[test]
    #[ignore = "exhaustive: all 2^32 operands of integer cvt spellings from a 32-bit source"]
    fn every_spelling_from_a_32_bit_source() {
        let _all_cores = all_cores::hold();
        let level = SimdLevel::active();
        let from_32: Vec<Instr> = spellings().into_iter().map(|(i, _)| i).filter(|i| i.source_bits() == 32).collect();
        assert_eq!(from_32.len(), 200, "f32 to 8 integer types (128), s32 and u32 to 4 formats (72)");
        let mut to_int_spellings: Vec<Instr> =
            from_32.iter().copied().filter(|i| i.source_type(0) == Type::F32).collect();
        to_int_spellings.sort_by_key(to_int_order);
        let mut from_int_groups = grouped(from_32.iter().copied().filter(|i| i.source_type(0) != Type::F32), |i| {
            let Type::Int(from) = i.source_type(0) else { unreachable!() };
            (from, i.format())
        });
        for (_, group) in &mut from_int_groups {
            group.sort_by_key(from_int_order);
        }
        let start = std::time::Instant::now();
        let tally = Tally::default();
        (0..(1u64 << 32) / BLOCK as u64).into_par_iter().for_each_init(
            || (Scratch::default(), Vec::with_capacity(BLOCK)),
            |(scratch, xs), block| {
                xs.clear();
                xs.extend((0..BLOCK as u32).map(|i| (block as u32) * BLOCK as u32 + i));
                // The references compiled for the widest level the processor has (the host's
                // arithmetic gives the same bits at every level); their functions are
                // always inlined, without which they stayed baseline calls.
                SimdLevel::detected().compiled_for(
                    #[inline(always)]
                    || {
                        to_int(&to_int_spellings, level, xs, scratch, &tally);
                        from_int(&from_int_groups, level, xs, scratch, &tally);
                    },
                );
            },
        );
        eprintln!("{} spellings on all 2^32 operands at {level} in {:.1?}", from_32.len(), start.elapsed());
        tally.check("integer cvt from 32-bit sources against the references");
    }
}
