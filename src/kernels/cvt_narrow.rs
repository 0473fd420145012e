//! Kernels for the low-precision down-conversions ([`crate::ops::cvt_narrow`],
//! docs/semantics.md §8.4–§8.5) from f32, f16x2 and bf16x2 in the directions `.rn`, `.rz` and
//! `.rp`: to the x2 FP8, FP6 and FP4 types, ue8m0x2 and ue5m3x2, to tf32 (and its `.rna`, ptxas's
//! integer sequence), and the `.satfinite` f16/bf16 forms, with `.satfinite` and `.relu`, and
//! by `.rs` to f16x2, bf16x2 and the x4 types ([`down_random`]), sixteen elements at a time in
//! 32-bit lanes. The scaled and s2f6 down-conversions run their scalar definition; the
//! up-conversions, whose every element is one of at most 2^16 (code, scale) pairs, read a table
//! of the scalar definition ([`up_by_table`]).
//!
//! An f16 or bf16 element is first widened to f32 (exact: convert.rs's [`half_to_f32`]), so
//! every source is an f32 encoding `x`. Its magnitude is rounded onto the destination's grid
//! ([`crate::round::Grid`]: precision p, smallest normal binade 2^emin) by integer arithmetic
//! on the encoding, which is the single IEEE rounding [`crate::round::round_to_grid`] gives
//! without `.ftz`:
//!
//! - the significand `sig` (the implicit bit included) of the biased exponent `E` ≥ 1 (1 for
//!   an f32 subnormal, whose `sig` lacks it) is shifted right by `s = 23 − (p − 1) +
//!   max(0, emin + 127 − E)`, at most 25 (beyond, every bit is below half a unit), which leaves
//!   it in units of the grid's spacing at that magnitude;
//! - rounded by one addition before the shift: to nearest even, half a unit less one plus the
//!   last kept bit; upward, a unit less one (`sig` < 2^24 and `s` ≤ 25, so nothing
//!   overflows);
//! - the code is `(max(0, E − (emin + 127)) << (p − 1)) + kept`: below 2^emin `kept` is the
//!   subnormal code itself, above it holds the leading bit, which adds the one of the biased
//!   exponent field, and a carry out of the fraction moves to the next binade by itself;
//! - a code above the largest finite one is an overflow, ±MAX under `.satfinite` or when the
//!   direction rounds toward zero, else the format's infinity or NaN.
//!
//! ue8m0 has no subnormals and no zero (the code 0 is 2^−127): `.rz` gives the biased f32
//! exponent, `.rp` adds one for a nonzero fraction; an f32 subnormal gives 0, or under `.rp`
//! 1 when it exceeds 2^−127. NaN, infinity, zero, the unsigned formats' sign and `.relu` are
//! [`crate::ops::cvt_narrow`]'s rules, read from its [`Dest`].

use super::convert::{half_to_f32, words, words_mut};
use super::lanes::{each, map_to, Dir, Rn, Rp, Rz};
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::kernels::simd::{i32x16, u16x16, u32x16};
use crate::ops::cvt_narrow::{self, Conversion, Dest, Round};
use crate::ptx::{Instr, Type};
use crate::round::Rounding;

/// Elements per group.
const N: usize = 16;

/// The kernel of a low-precision conversion this file has.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let c = instr.conversion();
    if c.from.narrow().is_some() {
        return Some(Kernel::Table(up_by_table));
    }
    if c.scaled || c.to == Type::S2f6x2 || (c.to.lanes() == 4 && c.round != Round::Stochastic) {
        return None;
    }
    let ue8m0 = c.to == Type::Ue8m0x2;
    let kernel = match c.round {
        Round::Stochastic => match (c.to.lanes(), c.to.bits()) {
            (2, _) => stochastic::<L, u32, 3>,
            (4, 16) => stochastic::<L, u16, 5>,
            _ => stochastic::<L, u32, 5>,
        },
        Round::TiesAway if c.to == Type::Tf32 => tf32_rna::<L>,
        Round::Dir(Rounding::Rn) if !ue8m0 => by_types::<L, Rn>(c.from, c.to)?,
        Round::Dir(Rounding::Rz) => by_types::<L, Rz>(c.from, c.to)?,
        Round::Dir(Rounding::Rp) => by_types::<L, Rp>(c.from, c.to)?,
        _ => return None,
    };
    Some(Kernel::Bytes(kernel))
}

type BytesKernel = fn(&Instr, &[&[u8]], &mut [u8]);

/// The kernel converting `from` to `to` in direction `R`, by the widths of their words.
fn by_types<L: Isa, R: Dir>(from: Type, to: Type) -> Option<BytesKernel> {
    Some(match (from, to.lanes(), to.bits()) {
        (Type::F32, 1, 16) => from_f32::<L, R, u16>,
        (Type::F32, 1, 32) => from_f32::<L, R, u32>,
        (Type::F32, 2, 8) => from_f32_pair::<L, R, u8>,
        (Type::F32, 2, 16) => from_f32_pair::<L, R, u16>,
        (Type::F32, 2, 32) => from_f32_pair::<L, R, u32>,
        (Type::F16x2 | Type::BF16x2, 2, 8) => from_half_pair::<L, R, u8>,
        (Type::F16x2 | Type::BF16x2, 2, 16) => from_half_pair::<L, R, u16>,
        _ => return None,
    })
}

/// What the lanes need of a conversion's destination and modifiers.
#[derive(Clone, Copy)]
struct Params {
    /// p − 1, the fraction bits.
    frac_bits: u32,
    /// emin + 127: the biased f32 exponent of the smallest normal binade.
    lift: i32,
    /// The largest finite magnitude's code.
    max_code: u32,
    /// ue8m0: no subnormals, no zero.
    subnormals: bool,
    signed: bool,
    sign_bit: u32,
    nan: u32,
    /// The codes of an overflow that is not saturated, positive and negative (unused under
    /// `.satfinite`).
    overflow: [u32; 2],
    satfinite: bool,
    relu: bool,
    /// Where a tf32 code goes in its word: bit 13.
    place: u32,
    /// Width of a result element in the word.
    width: u32,
}

impl Params {
    fn of(instr: &Instr) -> Params {
        let c = instr.conversion();
        let dest = Dest::of(c.to);
        let grid = dest.grid();
        Params {
            frac_bits: grid.p - 1,
            lift: grid.emin + 127,
            max_code: dest.max_finite() as u32,
            subnormals: grid.subnormals,
            signed: dest.signed(),
            sign_bit: dest.sign_bit() as u32,
            nan: dest.nan() as u32,
            // (A format without infinity or NaN has only `.satfinite` forms.)
            overflow: match c.satfinite {
                true => [0; 2],
                false => [dest.unsaturated_overflow(false) as u32, dest.unsaturated_overflow(true) as u32],
            },
            satfinite: c.satfinite,
            relu: c.relu,
            place: if c.to == Type::Tf32 { 13 } else { 0 },
            width: c.to.element_bits(),
        }
    }
}

/// The parts of sixteen f32 encodings the rounding reads: the sign (as a mask; clear for the
/// unsigned formats), the magnitude's bits, the biased exponent, the fraction, and for the
/// formats with subnormals the significand, the shift onto the grid (unclamped) and the
/// biased exponent field it lands in.
#[derive(Clone, Copy)]
struct Parts {
    neg: u32x16,
    magnitude: u32x16,
    exponent: u32x16,
    frac: u32x16,
    sig: u32x16,
    shift: u32x16,
    field: u32x16,
}

impl Parts {
    #[inline(always)]
    fn of(x: u32x16, d: Params) -> Parts {
        let splat = u32x16::splat;
        let zero = splat(0);
        let neg = if d.signed { (x & splat(0x8000_0000)).simd_ne(zero) } else { zero };
        let magnitude = x & splat(0x7FFF_FFFF);
        let exponent = magnitude >> 23;
        let frac = magnitude & splat(0x7F_FFFF);
        let sig = frac | exponent.simd_ne(zero).select(splat(0x80_0000), zero);
        let e = exponent.max(splat(1)).cast_signed();
        let lift = i32x16::splat(d.lift);
        let below = (lift - e).max(i32x16::splat(0)).cast_unsigned();
        let shift = splat(23 - d.frac_bits) + below;
        let field = (e - lift).max(i32x16::splat(0)).cast_unsigned() << d.frac_bits;
        Parts { neg, magnitude, exponent, frac, sig, shift, field }
    }
}

/// The codes of sixteen f32 encodings rounded in direction `R` (module documentation), in the
/// low bits of the lanes.
#[inline(always)]
fn down<R: Dir>(x: u32x16, d: Params) -> u32x16 {
    let splat = u32x16::splat;
    let zero = splat(0);
    let p = Parts::of(x, d);
    let neg = p.neg;
    let code = if d.subnormals {
        let s = p.shift.min(splat(25));
        // Rounded in one addition: to nearest even, half a unit less one plus the last kept
        // bit; upward, a unit less one.
        let unit = splat(1) << s;
        let increment = match R::R {
            Rounding::Rn => (unit >> 1) - splat(1) + ((p.sig >> s) & splat(1)),
            Rounding::Rz => zero,
            Rounding::Rp => (unit - splat(1)) & !neg,
            Rounding::Rm => (unit - splat(1)) & neg,
        };
        p.field + ((p.sig + increment) >> s)
    } else {
        // ue8m0, .rz or .rp: the biased exponent, plus one for a nonzero remainder under .rp.
        let up = match R::R {
            Rounding::Rp => {
                let normal = p.exponent.simd_ne(zero);
                normal.select(p.frac.simd_ne(zero), p.frac.simd_gt(splat(0x40_0000)))
            }
            _ => zero,
        };
        p.exponent + (up & splat(1))
    };
    // Whether the direction sends an overflow to infinity (IEEE 754-2019 clause 7.4).
    let away = match R::R {
        Rounding::Rn => splat(u32::MAX),
        Rounding::Rz => zero,
        Rounding::Rp => !neg,
        Rounding::Rm => neg,
    };
    finish(p, code, away, d)
}

/// The codes of sixteen f32 encodings rounded by `.rs` with each lane's `bits`-bit random
/// integer `r` ([`crate::round::Rule::Random`]): `r` plus the top `bits` bits of the discarded
/// part (those below them do not count), a carry rounding away from zero; an overflow goes to
/// infinity exactly when it carried. The shift is not clamped: a count of 32 or more gives 0.
#[inline(always)]
fn down_random(x: u32x16, r: u32x16, bits: u32, d: Params) -> u32x16 {
    let splat = u32x16::splat;
    let p = Parts::of(x, d);
    let s = p.shift;
    let rest = p.sig & ((splat(1) << s) - splat(1));
    let b = splat(bits);
    let least = s.min(b);
    let top = s.simd_ge(b).select(rest >> (s - least), rest << (b - least));
    let carry = (top + r) >> bits;
    finish(p, p.field + (p.sig >> s) + carry, carry.simd_ne(splat(0)), d)
}

/// A rounded magnitude's code made the instruction's result: ±MAX or the format's infinity
/// or NaN for an overflow (`away`: the rounding sent it away from zero), infinities, `.relu`,
/// the NaN code, the sign, and tf32's place in its word.
#[inline(always)]
fn finish(p: Parts, code: u32x16, away: u32x16, d: Params) -> u32x16 {
    let splat = u32x16::splat;
    let neg = p.neg;
    let sign = neg & splat(d.sign_bit);
    let unsaturated = neg.select(splat(d.overflow[1]), splat(d.overflow[0]));
    let saturated = sign | splat(d.max_code);
    let overflow = code.simd_gt(splat(d.max_code));
    let beyond = if d.satfinite { saturated } else { away.select(unsaturated, saturated) };
    let finite = overflow.select(beyond, sign | code);
    let inf = if d.satfinite { saturated } else { unsaturated };
    let r = p.magnitude.simd_eq(splat(0x7F80_0000)).select(inf, finite);
    let r = if d.relu { neg.select(splat(0), r) } else { r };
    p.magnitude.simd_gt(splat(0x7F80_0000)).select(splat(d.nan), r) << d.place
}

/// `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits` and the x4 forms
/// `d, {a, b, e, f}, rbits` (`K` − 1 sources, the first to the highest element), each element
/// with its random integer as [`cvt_narrow::random_bits`] assigns it.
fn stochastic<L: Isa, D: Out, const K: usize>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let d = Params::of(instr);
    let to = instr.ty();
    let lanes = K as u32 - 1;
    let mut sources: [&[u32]; K] = [&[]; K];
    for (w, s) in sources.iter_mut().zip(srcs) {
        *w = words(s);
    }
    map_to::<L, u32, D, N, K>(
        &sources,
        words_mut(dst),
        #[inline(always)]
        |x| {
            let rbits = x[K - 1];
            let mut out = u32x16::splat(0);
            for lane in 0..lanes {
                let (_, bits) = cvt_narrow::random_bits(to, lane, 0);
                let r = u32x16::new(each(rbits, |w| cvt_narrow::random_bits(to, lane, u64::from(w)).0));
                let element = down_random(u32x16::new(x[(lanes - 1 - lane) as usize]), r, bits, d);
                out |= element << (lane * d.width);
            }
            each(out.to_array(), D::of)
        },
    );
}

/// A result word: the low bits of a lane.
trait Out: bytemuck::Pod + Default {
    fn of(lane: u32) -> Self;
}

impl Out for u8 {
    #[inline(always)]
    fn of(lane: u32) -> u8 {
        lane as u8
    }
}

impl Out for u16 {
    #[inline(always)]
    fn of(lane: u32) -> u16 {
        lane as u16
    }
}

impl Out for u32 {
    #[inline(always)]
    fn of(lane: u32) -> u32 {
        lane
    }
}

/// `cvt….{tf32,f16,bf16}.f32 d, a`: one element.
fn from_f32<L: Isa, R: Dir, D: Out>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let d = Params::of(instr);
    map_to::<L, u32, D, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[a]| each(down::<R>(u32x16::new(a), d).to_array(), D::of),
    );
}

/// `cvt….x2.f32 d, a, b`: `a` to the upper element, `b` to the lower \[DOC PTX cvt\].
fn from_f32_pair<L: Isa, R: Dir, D: Out>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let d = Params::of(instr);
    map_to::<L, u32, D, N, 2>(
        &[words(srcs[0]), words(srcs[1])],
        words_mut(dst),
        #[inline(always)]
        |[a, b]| {
            let hi = down::<R>(u32x16::new(a), d);
            let lo = down::<R>(u32x16::new(b), d);
            each(((hi << d.width) | lo).to_array(), D::of)
        },
    );
}

/// `cvt….x2.{f16x2,bf16x2} d, a`: element i to element i, each widened to f32 first.
fn from_half_pair<L: Isa, R: Dir, D: Out>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let d = Params::of(instr);
    let from = if instr.conversion().from == Type::BF16x2 { Format::BF16 } else { Format::F16 };
    map_to::<L, u32, D, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[a]| {
            let lo = half_to_f32::<L>(from, u16x16::new(each(a, |w| w as u16)));
            let hi = half_to_f32::<L>(from, u16x16::new(each(a, |w| (w >> 16) as u16)));
            each(((down::<R>(hi, d) << d.width) | down::<R>(lo, d)).to_array(), D::of)
        },
    );
}

/// `cvt.rna{.satfinite}.tf32.f32`, as [`crate::ops::cvt_narrow::tf32_rna`] states it.
fn tf32_rna<L: Isa>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let satfinite = instr.conversion().satfinite;
    let splat = u32x16::splat;
    map_to::<L, u32, u32, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[a]| {
            let a = u32x16::new(a);
            let magnitude = a & splat(0x7FFF_FFFF);
            let finite = magnitude.simd_lt(splat(0x7F80_0000));
            let r = (a + (finite & splat(0x1000))) & splat(0xFFFF_E000);
            let r = if satfinite {
                let special = (r & splat(0x7FFF_FFFF)).simd_ge(splat(0x7F80_0000));
                r - (special & splat(0x2000))
            } else {
                r
            };
            r.to_array()
        },
    );
}

/// The result element of every (code, scale byte) pair of an up-conversion, element 0's
/// scalar definition (`cvt_narrow::eval` on a word holding the pair in element 0): each element
/// of a word is converted on its own, so element 1 reads the same table. Indexed by the code
/// (its padding bits cleared, as the scalar batch path ignores them) plus, for
/// `.scaled::n2::ue8m0`, the scale byte times 2^(code width). Built on first use and kept:
/// at most 2^16 entries (128 KiB) per spelling.
fn up_table(c: Conversion) -> &'static [u16] {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static TABLES: OnceLock<Mutex<HashMap<Conversion, &'static [u16]>>> = OnceLock::new();
    let mut tables = TABLES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    tables.entry(c).or_insert_with(|| {
        let width = c.from.element_bits();
        let code_mask = c.from.code_bits() & ((1 << width) - 1);
        let scales = if c.scaled { 256 } else { 1 };
        let table: Vec<u16> = (0..scales << width)
            .map(|i: u64| {
                let code = i & code_mask;
                let word =
                    if c.scaled { cvt_narrow::eval(&c, &[code, i >> width]) } else { cvt_narrow::eval(&c, &[code]) };
                word as u16
            })
            .collect();
        Vec::leak(table)
    })
}

/// An up-conversion (to f16x2 or bf16x2) by [`up_table`]: the codes in the first operand's
/// words (8-bit e2m1x2 or 16-bit words; 16-bit words for all operands of a scaled form), the
/// scales in the second's.
fn up_by_table(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let c = instr.conversion();
    let table = up_table(c);
    let width = c.from.element_bits();
    let element = (1u32 << width) - 1;
    let out: &mut [u32] = words_mut(dst);
    let convert = |word: u32, scales: u32| {
        let index = |lane: u32| {
            let code = (word >> (lane * width)) & element;
            let scale = (scales >> (8 * lane)) & 0xFF;
            (code | scale << width) as usize
        };
        u32::from(table[index(0)]) | u32::from(table[index(1)]) << 16
    };
    match (instr.source_bits(), c.scaled) {
        (8, _) => out.iter_mut().zip(srcs[0]).for_each(|(d, &w)| *d = convert(u32::from(w), 0)),
        (_, false) => {
            let codes: &[u16] = words(srcs[0]);
            out.iter_mut().zip(codes).for_each(|(d, &w)| *d = convert(u32::from(w), 0));
        }
        (_, true) => {
            let (codes, scales): (&[u16], &[u16]) = (words(srcs[0]), words(srcs[1]));
            out.iter_mut()
                .zip(codes.iter().zip(scales))
                .for_each(|(d, (&w, &s))| *d = convert(u32::from(w), u32::from(s)));
        }
    }
}
