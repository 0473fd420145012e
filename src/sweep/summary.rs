//! One pass over a block of a sweep that yields what [`super::stats::Stats::record_block`]
//! needs to summarise it: the range of operand 0, whether the block is regular, the
//! mismatches, the distances and the largest errors.
//!
//! Words of up to 32 bits (f32, f16, bf16) go through sixteen lanes at a time, 64-bit words
//! input by input. Both give exactly the values of input-by-input recording, whose
//! definitions are [`distance`] and [`errors_of`] (tested in stats.rs).
//!
//! The relative error needs a division per input, the slowest lane operation. The lane pass
//! instead multiplies by an approximate reciprocal ([`recip_approx`], relative error below
//! 2^-27.9; the product adds one rounding) and then divides exactly only where the approximate
//! quotient comes within 2^-26 of the block's approximate maximum: the exact maximum is among
//! those inputs, since each approximation is within a factor 1 ± 2^-27.8 of its quotient, so
//! the approximation of the exact argmax is at least max·(1 − 2^-26.7). Blocks holding exact
//! values outside [2^-1000, 2^1000], where the approximate reciprocal may overflow, underflow
//! or be NaN, divide everywhere. Either way the maximum is an exactly rounded quotient, so the
//! result does not depend on the build.
//!
//! Most blocks of a sweep over every input hold one result throughout, equal to the expected
//! one: overflow to infinity, underflow to zero, results at 1. [`constant_errors`] summarises
//! those from the result and the block's smallest and largest exact value alone, and leaves
//! the inputs reaching the maxima to [`first_reaching`], needed only when a block's maximum
//! may be a worst case of the sweep. Where the reference is known to be constant with
//! monotone values on a run of consecutive inputs (2^x and tanh x over most of the f32
//! patterns), the sweep does not even compute the values: [`constant_run`] takes the extremes
//! from the run's ends and [`first_reaching_monotone`] bisects.

use wide::{f64x8, i32x16, u32x16};

use super::domain::ordinal;
use crate::batch::Word;
use crate::format::Format;

/// What one block holds, as far as the block statistics are concerned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Summary {
    /// Smallest and largest ordinal of operand 0.
    pub kmin: i64,
    pub kmax: i64,
    /// Smallest and largest exponent field of operand 0.
    pub emin: u64,
    pub emax: u64,
    /// A result is a NaN and the expected one not or the other way round, or a result differs
    /// from the expected one at an infinity, or (lane pass) the distance may leave the i32
    /// range: such inputs need [`super::stats::Stats::record`].
    pub irregular: bool,
    /// Inputs whose result and expected result are both NaN: distance 0, no error, not
    /// counted by binade or bucket.
    pub nan_pairs: u64,
    /// Mismatching results: bits differ (both NaN counts only with `bitwise`).
    pub mismatches: u64,
    /// Those of them where the result or the expected result is a zero (special-value
    /// mismatches).
    pub specials: u64,
    /// The largest |distance| (meaningful when the block is regular), and the first input
    /// (index in the block) reaching it; likewise for the errors.
    pub max_ulp: u64,
    pub at_ulp: usize,
    /// Counts of the distances −2, −1, +1, +2.
    pub near: [u64; 4],
    pub max_abs: f64,
    /// `None` where the block is not scanned input by input (a constant block): then the
    /// first input reaching the maximum is [`first_reaching`]'s.
    pub at_abs: Option<usize>,
    pub max_rel: f64,
    pub at_rel: Option<usize>,
}

impl Summary {
    /// A constant block (see [`constant_errors`]) of operand range `range` and largest errors
    /// `(max_abs, max_rel)`; the inputs reaching them are left to [`first_reaching`].
    fn constant(range: (i64, i64, u64, u64), (max_abs, max_rel): (f64, f64)) -> Summary {
        Summary { max_abs, at_abs: None, max_rel, at_rel: None, ..Summary::exact(range) }
    }

    /// A block of operand range `(kmin, kmax, emin, emax)` without mismatches or errors (also
    /// the starting point of [`one_by_one`]).
    fn exact((kmin, kmax, emin, emax): (i64, i64, u64, u64)) -> Summary {
        Summary {
            kmin,
            kmax,
            emin,
            emax,
            irregular: false,
            nan_pairs: 0,
            mismatches: 0,
            specials: 0,
            max_ulp: 0,
            at_ulp: 0,
            near: [0; 4],
            max_abs: 0.0,
            at_abs: Some(0),
            max_rel: 0.0,
            at_rel: Some(0),
        }
    }
}

/// The signed distance from `expected` to `result` in representable values of `dst`
/// (saturated to the i64 range).
#[inline]
pub(super) fn distance(dst: Format, result: u64, expected: u64) -> i64 {
    ordinal(dst, result).saturating_sub(ordinal(dst, expected))
}

/// Absolute and relative error of a result of value `rv` against the exact value `v` (neither
/// NaN); `equal` says whether the result's bits equal the reference's. An exact result, and an
/// infinite result equal to the reference's (the correctly rounded overflow), have error 0;
/// otherwise the relative error against 0 or an infinity is infinite.
#[inline]
pub(super) fn errors_of(rv: f64, v: f64, equal: bool) -> (f64, f64) {
    if rv == v || (rv.is_infinite() && equal) {
        return (0.0, 0.0);
    }
    let abs = (rv - v).abs();
    let rel = if v == 0.0 || v.is_infinite() { f64::INFINITY } else { abs / v.abs() };
    (abs, rel)
}

/// Summarise the block `x` (operand 0), `r` (results), `e` (expected results) and `v` (exact
/// values) of formats `src` and `dst`; `q` is scratch space.
#[allow(clippy::too_many_arguments)]
pub(super) fn summarize<W: Word>(
    src: Format,
    dst: Format,
    bitwise: bool,
    x: &[W],
    r: &[W],
    e: &[W],
    v: &[f64],
    q: &mut Vec<f64>,
) -> Summary {
    if W::BITS <= 32 {
        if let Some(errors) = constant_errors(dst, r, e, v) {
            return Summary::constant(operand_range(src, x), errors);
        }
    }
    match dst {
        _ if W::BITS > 32 => one_by_one(src, dst, bitwise, x, r, e, v),
        Format::F32 => lanes::<W, F32>(src, dst, bitwise, x, r, e, v, q),
        Format::BF16 => lanes::<W, BF16>(src, dst, bitwise, x, r, e, v, q),
        Format::F16 => lanes::<W, F16>(src, dst, bitwise, x, r, e, v, q),
        Format::F64 => unreachable!("f64 results are 64-bit words"),
    }
}

/// What [`summarize`] gives for a run of consecutive inputs `first..=last` of operand 0
/// (ascending bit patterns of one sign) whose results and expected results are all the word
/// `c`, and whose exact values are monotone along the run, `ends` those of its first and last
/// input; `None` where the block path would not be the constant one either. It is the same
/// summary, from the run's ends alone: along one sign the ordinal and the exponent field only
/// grow with the bit pattern, and monotone values have their smallest and largest at the ends.
pub(super) fn constant_run<W: Word>(
    src: Format,
    dst: Format,
    first: W,
    last: W,
    c: u64,
    ends: (f64, f64),
) -> Option<Summary> {
    let (lo, hi) = (ends.0.min(ends.1), ends.0.max(ends.1));
    if dst.is_nan(c) || ends.0.is_nan() || ends.1.is_nan() {
        return None;
    }
    let errors = constant_errors_between(dst, c, lo, hi)?;
    Some(Summary::constant(operand_range(src, &[first, last]), errors))
}

/// The definition: input by input.
fn one_by_one<W: Word>(src: Format, dst: Format, bitwise: bool, x: &[W], r: &[W], e: &[W], v: &[f64]) -> Summary {
    let mut s = Summary::exact((i64::MAX, i64::MIN, u64::MAX, 0));
    for i in 0..r.len() {
        let b = x[i].to_u64();
        let k = ordinal(src, b);
        (s.kmin, s.kmax) = (s.kmin.min(k), s.kmax.max(k));
        let exp = b & src.exp_mask();
        (s.emin, s.emax) = (s.emin.min(exp), s.emax.max(exp));
        let (ri, ei) = (r[i].to_u64(), e[i].to_u64());
        let (rm, em) = (ri & !dst.sign_bit(), ei & !dst.sign_bit());
        let (r_nan, e_nan) = (rm > dst.exp_mask(), em > dst.exp_mask());
        let edge = rm == 0 || rm == dst.exp_mask() || em == 0 || em == dst.exp_mask();
        let infinite = rm == dst.exp_mask() || em == dst.exp_mask();
        s.irregular |= r_nan != e_nan || (ri != ei && infinite);
        if r_nan && e_nan {
            s.nan_pairs += 1;
            s.mismatches += (bitwise && ri != ei) as u64;
            continue;
        }
        s.specials += (ri != ei && edge) as u64;
        s.mismatches += (ri != ei) as u64;
        let d = distance(dst, ri, ei);
        if d.unsigned_abs() > s.max_ulp {
            (s.max_ulp, s.at_ulp) = (d.unsigned_abs(), i);
        }
        if let Some(slot) = [-2, -1, 1, 2].iter().position(|&k| k == d) {
            s.near[slot] += 1;
        }
        let (abs, rel) = errors_of(dst.to_f64(ri), v[i], ri == ei);
        if abs > s.max_abs {
            (s.max_abs, s.at_abs) = (abs, Some(i));
        }
        if rel > s.max_rel {
            (s.max_rel, s.at_rel) = (rel, Some(i));
        }
    }
    s
}

/// The largest absolute and relative errors ([`errors_of`]) of a block whose results and
/// expected results are all one word c, not a NaN, against exact values `v`; `None` for any
/// other block and where the argument below does not apply.
///
/// With c infinite every error is 0. With c = ±0 and finite values the absolute error is |v|
/// and the relative error 1 (0 where v = 0). With c finite and nonzero and every v between
/// c/2 and 2c, fl(c − v) = c − v exactly (Sterbenz), so as v grows the absolute error falls
/// until v reaches c and then rises, and so does the relative error (|c|/|v| − 1 below |c|,
/// 1 − |c|/|v| above; rounding is monotone): both maxima are at the smallest or the largest
/// value of the block.
fn constant_errors<W: Word>(dst: Format, r: &[W], e: &[W], v: &[f64]) -> Option<(f64, f64)> {
    let c = r.first()?.to_u64();
    if dst.is_nan(c) {
        return None;
    }
    let word = |w: &W| w.to_u64() as u32;
    let cw = U::splat(c as u32);
    let (mut lo, mut hi) = (f64x8::splat(f64::INFINITY), f64x8::splat(f64::NEG_INFINITY));
    let mut nan = f64x8::ZERO;
    let full = r.len() - r.len() % LANES;
    for at in (0..full).step_by(LANES) {
        let chunk = |s: &[W]| {
            let s: &[W; LANES] = s[at..at + LANES].try_into().unwrap();
            U::new(s.map(|w| word(&w)))
        };
        if !(chunk(r).simd_eq(cw) & chunk(e).simd_eq(cw)).all() {
            return None;
        }
        for h in [at, at + 8] {
            let vs: &[f64; 8] = v[h..h + 8].try_into().unwrap();
            let vs = f64x8::new(*vs);
            (lo, hi) = (lo.fast_min(vs), hi.fast_max(vs));
            nan |= vs.is_nan();
        }
    }
    let (mut lo, mut hi) = (
        lo.to_array().into_iter().fold(f64::INFINITY, f64::min),
        hi.to_array().into_iter().fold(f64::NEG_INFINITY, f64::max),
    );
    for i in full..r.len() {
        if r[i].to_u64() != c || e[i].to_u64() != c || v[i].is_nan() {
            return None;
        }
        (lo, hi) = (lo.min(v[i]), hi.max(v[i]));
    }
    if nan.any() {
        return None;
    }
    constant_errors_between(dst, c, lo, hi)
}

/// The largest absolute and relative errors of the constant result `c` (not a NaN) against
/// exact values whose smallest is `lo` and largest `hi` (neither NaN), where the argument of
/// [`constant_errors`] applies.
fn constant_errors_between(dst: Format, c: u64, lo: f64, hi: f64) -> Option<(f64, f64)> {
    let cv = dst.to_f64(c);
    if cv.is_infinite() {
        return Some((0.0, 0.0));
    }
    if cv == 0.0 {
        // (+0 where every value is −0, as `errors_of` gives.)
        let abs = hi.max(-lo).abs();
        return (abs < f64::INFINITY).then_some((abs, if abs > 0.0 { 1.0 } else { 0.0 }));
    }
    let (low, high) = if cv > 0.0 { (cv / 2.0, cv * 2.0) } else { (cv * 2.0, cv / 2.0) };
    if lo < low || hi > high {
        return None;
    }
    let ((abs_lo, rel_lo), (abs_hi, rel_hi)) = (errors_of(cv, lo, true), errors_of(cv, hi, true));
    Some((abs_lo.max(abs_hi), rel_lo.max(rel_hi)))
}

/// The first input of a constant block (every result and expected result the word `c`, as
/// [`constant_errors`] requires) whose absolute (`relative` false) or relative error is `max`,
/// the block's maximum of it.
///
/// Lanes are tested eight at a time for a necessary condition, and those passing it are
/// checked with [`errors_of`]. With c = ±0 the absolute error is |v| and the relative one 1
/// for v ≠ 0. Otherwise, with C = |c| and V = |v| (V ∈ [C/2, 2C]): the absolute error is
/// |C − V| exactly, so only V = C ∓ max reach it. A relative error rounding to max has the
/// exact quotient q ≥ max·(1 − 2^-53), which below C (q = C/V − 1) needs V ≤ C/(1 + max) ·
/// (1 + 2^-52) and above C (q = 1 − C/V, max ≤ 1/2) needs V ≥ C/(1 − max)·(1 − 2^-53); the
/// thresholds are widened by 2^-49 (16 f64 units), which covers those factors and the three
/// roundings of each. Maxima below 2^-1000, where those relative bounds may fail, are looked
/// for input by input.
pub(super) fn first_reaching(dst: Format, c: u64, v: &[f64], relative: bool, max: f64) -> usize {
    let cv = dst.to_f64(c);
    let reaches = |i: usize| {
        let (abs, rel) = errors_of(cv, v[i], true);
        (if relative { rel } else { abs }) == max
    };
    // Candidates: |v| ≤ low or |v| ≥ high, or |v| = low or |v| = high (`equal`).
    let magnitude = cv.abs();
    let ((low, high), equal) = if max == 0.0 || cv.is_infinite() || (cv != 0.0 && max < TINY) {
        ((f64::INFINITY, 0.0), false)
    } else if cv == 0.0 {
        // Relative: every v ≠ 0 (|v| at least the smallest subnormal).
        if relative {
            ((f64::NEG_INFINITY, f64::from_bits(1)), false)
        } else {
            ((max, max), true)
        }
    } else if relative {
        let margin = 2f64.powi(-49);
        ((magnitude / (1.0 + max) * (1.0 + margin), magnitude / (1.0 - max) * (1.0 - margin)), false)
    } else {
        ((magnitude - max, magnitude + max), true)
    };
    let (low, high) = (f64x8::splat(low), f64x8::splat(high));
    let candidate = |w: f64x8| -> f64x8 {
        let w = w.abs();
        if equal {
            w.simd_eq(low) | w.simd_eq(high)
        } else {
            w.simd_le(low) | w.simd_ge(high)
        }
    };
    let full = v.len() - v.len() % 8;
    for at in (0..full).step_by(8) {
        let lanes: &[f64; 8] = v[at..at + 8].try_into().unwrap();
        let mask = candidate(f64x8::new(*lanes)).to_bitmask();
        if mask != 0 {
            if let Some(i) = (at..at + 8).filter(|i| mask >> (i - at) & 1 != 0).find(|&i| reaches(i)) {
                return i;
            }
        }
    }
    (full..v.len()).find(|&i| reaches(i)).expect("first_reaching: the maximum is an error of the block")
}

/// [`first_reaching`] for a run of `n` inputs whose values are monotone along the run
/// (`value_at(i)` is input i's), with the run's maximum `max` > 0 of the error: by bisection.
///
/// Why bisection finds it. As a function of v, each error falls (or stays) up to v = c and
/// then rises (or stays): with c = ±0 the absolute error is |v| and the relative one 1 for
/// v ≠ 0; otherwise see [`constant_errors`]. Along the run v is monotone, so the error falls
/// (or stays) and then rises (or stays), and its maximum is at the first or the last input.
/// If the first input does not reach it, no input before the turn does (their errors are at
/// most the first's), and after the turn the error only rises: the inputs reaching the maximum
/// are a suffix of the run.
pub(super) fn first_reaching_monotone(
    dst: Format,
    c: u64,
    n: usize,
    relative: bool,
    max: f64,
    value_at: impl Fn(usize) -> f64,
) -> usize {
    let cv = dst.to_f64(c);
    let reaches = |i: usize| {
        let (abs, rel) = errors_of(cv, value_at(i), true);
        (if relative { rel } else { abs }) == max
    };
    if reaches(0) {
        return 0;
    }
    // Invariant: input `below` does not reach the maximum, input `at` does.
    let (mut below, mut at) = (0, n - 1);
    assert!(reaches(at), "first_reaching_monotone: the maximum is at neither end of the run");
    while at - below > 1 {
        let mid = below + (at - below) / 2;
        if reaches(mid) {
            at = mid;
        } else {
            below = mid;
        }
    }
    at
}

const LANES: usize = 16;
type U = u32x16;
type I = i32x16;

/// Ordinals of lanes of words with sign bit `sign` (the signed magnitude, −1 − magnitude for
/// a negative word), like [`ordinal`].
#[inline(always)]
fn ordinals(w: U, sign: u32) -> I {
    let negative: I = bytemuck::cast((w & sign).simd_eq(U::splat(sign)));
    bytemuck::cast::<U, I>(w & (sign - 1)) ^ negative
}

/// The result formats of the lane pass, as const parameters.
const F32: u8 = 0;
const BF16: u8 = 1;
const F16: u8 = 2;

/// Values of 8 words of format `F`, exactly.
#[inline(always)]
fn values<const F: u8>(w: [u32; 8]) -> f64x8 {
    match F {
        F32 => f64x8::new(w.map(|b| f32::from_bits(b) as f64)),
        BF16 => f64x8::new(w.map(|b| f32::from_bits(b << 16) as f64)),
        // sig·2^(max(e, 1) − 25), exact in f64; the all-ones exponent gives an infinity (NaN
        // lanes make the block irregular, so their value does not matter).
        _ => f64x8::new(w.map(|b| {
            let (exp, frac) = ((b >> 10) & 0x1F, b & 0x3FF);
            let sig = if exp == 0 { frac } else { frac | 0x400 };
            let magnitude = if exp == 0x1F {
                f64::INFINITY
            } else {
                sig as f64 * f64::from_bits((exp.max(1) as u64 + 1023 - 25) << 52)
            };
            if b & 0x8000 != 0 {
                -magnitude
            } else {
                magnitude
            }
        })),
    }
}

/// Approximate reciprocals, relative error below 2^-27.9, of positive lanes in
/// [2^-1000, 2^1000]: with AVX-512 one Newton step `y·(2 − v·y)` from `vrcp14pd` (error below
/// 2^-14, squared by the step, plus two roundings), else an exact division.
#[inline(always)]
fn recip_approx(v: f64x8) -> f64x8 {
    #[cfg(target_feature = "avx512f")]
    {
        use std::arch::x86_64::{__m512d, _mm512_rcp14_pd};
        // SAFETY: the build enables AVX-512F (the cfg above); the intrinsic only computes.
        let y = unsafe { f64x8::from(_mm512_rcp14_pd(__m512d::from(v))) };
        y * v.mul_neg_add(y, f64x8::splat(2.0))
    }
    #[cfg(not(target_feature = "avx512f"))]
    {
        f64x8::ONE / v
    }
}

/// The running state of the lane pass over results: per-lane extremes and counts, each
/// maximum with the index of the first input reaching it in its lane.
struct Lanes {
    sign: u32,
    inf: u32,
    bitwise: bool,
    irregular: U,
    /// Masks are −1 per lane: subtracting them counts.
    nan_pairs: I,
    mismatches: I,
    specials: I,
    /// Per lane, the counts of distances −1 and +1 (low and high 16 bits), and of −2 and +2
    /// (at most 4096/16 each).
    near: [U; 2],
    max_ulp: U,
    at_ulp: U,
    max_abs: f64x8,
    at_abs: f64x8,
    max_q: f64x8,
    outside: f64x8,
}

impl Lanes {
    /// Inputs `at..at + 16`: results, expected results and values; the approximate relative
    /// errors go to `qs`.
    #[inline(always)]
    fn step<const F: u8>(&mut self, at: u32, rs: [u32; LANES], es: [u32; LANES], vs: &[f64; LANES], qs: &mut [f64]) {
        let (rv, ev) = (U::new(rs), U::new(es));
        let (sign, inf) = (self.sign, U::splat(self.inf));
        let (rm, em) = (rv & (sign - 1), ev & (sign - 1));
        let (r_nan, e_nan) = (rm.simd_gt(inf), em.simd_gt(inf));
        let nan_pair = r_nan & e_nan;
        let infinite = rm.simd_eq(inf) | em.simd_eq(inf);
        let differ = !rv.simd_eq(ev);
        // A saturated distance may be a larger one; NaN pairs are at distance 0.
        let d = ordinals(rv, sign).saturating_sub(ordinals(ev, sign));
        let saturated = d.simd_eq(I::splat(i32::MIN)) | d.simd_eq(I::splat(i32::MAX));
        let d = d & !bytemuck::cast::<U, I>(nan_pair);
        self.irregular |= (r_nan ^ e_nan) | (differ & infinite) | (bytemuck::cast::<I, U>(saturated) & !nan_pair);
        self.nan_pairs -= bytemuck::cast::<U, I>(nan_pair);
        let counted = if self.bitwise { differ } else { differ & !nan_pair };
        self.mismatches -= bytemuck::cast::<U, I>(counted);
        self.specials -= bytemuck::cast::<U, I>(differ & rm.min(em).simd_eq(U::ZERO));
        for (count, k) in self.near.iter_mut().zip([1, 2]) {
            let low = d.simd_eq(I::splat(-k)).bitselect(I::splat(1), I::ZERO);
            *count += bytemuck::cast::<I, U>(d.simd_eq(I::splat(k)).bitselect(I::splat(1 << 16), low));
        }
        let ulp: U = bytemuck::cast(d.abs());
        let index = U::splat(at) + U::new(std::array::from_fn(|j| j as u32));
        let larger = ulp.simd_gt(self.max_ulp);
        self.at_ulp = larger.bitselect(index, self.at_ulp);
        self.max_ulp = self.max_ulp.max(ulp);
        // Lane j of the halves holds inputs at + j and then at + 8 + j: the strict comparison
        // keeps the first.
        self.errors::<F, 0>(at, &rs, vs, qs);
        self.errors::<F, 1>(at, &rs, vs, qs);
    }

    /// [`errors_of`] for lanes `8·H..8·H + 8` of a step, and the approximate quotients.
    #[inline(always)]
    fn errors<const F: u8, const H: usize>(&mut self, at: u32, rs: &[u32; LANES], vs: &[f64; LANES], qs: &mut [f64]) {
        let vf = f64x8::new(std::array::from_fn(|j| vs[8 * H + j]));
        let (a, va, special) = lane_errors::<F>(std::array::from_fn(|j| rs[8 * H + j]), vf);
        let (zero, infinity) = (f64x8::ZERO, f64x8::splat(f64::INFINITY));
        let qa = a.simd_eq(zero).select(zero, special.select(infinity, a * recip_approx(va)));
        let (tiny, huge) = (f64x8::splat(TINY), f64x8::splat(HUGE));
        self.outside |= (va.simd_lt(tiny) & !vf.simd_eq(zero)) | (va.simd_gt(huge) & !special);
        let index = f64x8::splat((at + 8 * H as u32) as f64) + f64x8::new(std::array::from_fn(|j| j as f64));
        let larger = a.simd_gt(self.max_abs);
        self.at_abs = larger.select(index, self.at_abs);
        self.max_abs = self.max_abs.fast_max(a);
        self.max_q = self.max_q.fast_max(qa);
        qs[8 * H..][..8].copy_from_slice(qa.as_array());
    }
}

/// The smallest and largest ordinal and exponent field of operand words `x` of `src`.
fn operand_range<W: Word>(src: Format, x: &[W]) -> (i64, i64, u64, u64) {
    let (sign, exp_mask) = (src.sign_bit() as u32, src.exp_mask() as u32);
    let (mut kmin, mut kmax) = (I::splat(i32::MAX), I::splat(i32::MIN));
    let (mut emin, mut emax) = (U::splat(u32::MAX), U::ZERO);
    let chunks = x.chunks_exact(LANES);
    let tail = chunks.remainder();
    let mut step = |w: U| {
        let k = ordinals(w, sign);
        (kmin, kmax) = (kmin.min(k), kmax.max(k));
        let exp = w & exp_mask;
        (emin, emax) = (emin.min(exp), emax.max(exp));
    };
    for chunk in chunks {
        step(U::new(std::array::from_fn(|j| chunk[j].to_u64() as u32)));
    }
    if !tail.is_empty() {
        // Padded with copies of the first input.
        let first = x[0].to_u64() as u32;
        step(U::new(std::array::from_fn(|j| tail.get(j).map_or(first, |w| w.to_u64() as u32))));
    }
    (kmin.reduce_min() as i64, kmax.reduce_max() as i64, emin.reduce_min() as u64, emax.reduce_max() as u64)
}

/// [`errors_of`] in lanes, for blocks without NaNs where an infinite result equals the
/// reference's (regular blocks): the absolute errors of results `rs` (format `F`) against
/// values `v`, |v|, and the lanes where v is 0 or infinite (infinite relative error unless
/// the absolute error is 0).
#[inline(always)]
fn lane_errors<const F: u8>(rs: [u32; 8], v: f64x8) -> (f64x8, f64x8, f64x8) {
    let (zero, infinity) = (f64x8::ZERO, f64x8::splat(f64::INFINITY));
    let rf = values::<F>(rs);
    // (NaN pairs, where both are NaN, have no error.)
    let a = (rf.abs().simd_eq(infinity) | rf.is_nan()).select(zero, (rf - v).abs());
    let va = v.abs();
    (a, va, v.simd_eq(zero) | va.simd_eq(infinity))
}

/// Exact values beyond which the approximate reciprocal is not relied on.
const TINY: f64 = 1.0 / (1u128 << 100) as f64 / (1u128 << 100) as f64 / (1u128 << 100) as f64;
const HUGE: f64 = 1.0 / TINY;

/// The lane pass over words of up to 32 bits.
#[allow(clippy::too_many_arguments)]
fn lanes<W: Word, const F: u8>(
    src: Format,
    dst: Format,
    bitwise: bool,
    x: &[W],
    r: &[W],
    e: &[W],
    v: &[f64],
    q: &mut Vec<f64>,
) -> Summary {
    let n = r.len();
    let padded = n.div_ceil(LANES) * LANES;
    if q.len() < padded {
        q.resize(padded, 0.0);
    }
    let zero = f64x8::ZERO;
    let mut acc = Lanes {
        sign: dst.sign_bit() as u32,
        inf: dst.exp_mask() as u32,
        bitwise,
        irregular: U::ZERO,
        nan_pairs: I::ZERO,
        mismatches: I::ZERO,
        specials: I::ZERO,
        near: [U::ZERO; 2],
        max_ulp: U::ZERO,
        at_ulp: U::ZERO,
        max_abs: zero,
        at_abs: zero,
        max_q: zero,
        outside: zero,
    };
    let word = |w: &W| w.to_u64() as u32;
    let full = n - n % LANES;
    for c in (0..full).step_by(LANES) {
        let chunk = |s: &[W]| -> [u32; LANES] {
            let s: &[W; LANES] = s[c..c + LANES].try_into().unwrap();
            s.map(|w| word(&w))
        };
        acc.step::<F>(c as u32, chunk(r), chunk(e), v[c..c + LANES].try_into().unwrap(), &mut q[c..c + LANES]);
    }
    // The last chunk is padded with +0 results expecting +0 of value 0: nothing changes but
    // the count of distance 0, which is implied.
    let (pad, pad_value) = (0, 0.0);
    if full < n {
        let tail = |s: &[W]| -> [u32; LANES] { std::array::from_fn(|j| s.get(full + j).map_or(pad, word)) };
        let vs = std::array::from_fn(|j| v.get(full + j).copied().unwrap_or(pad_value));
        acc.step::<F>(full as u32, tail(r), tail(e), &vs, &mut q[full..full + LANES]);
    }
    let fold = |m: &[f64]| m.iter().fold(0.0f64, |a, &b| a.max(b));
    // By value: the accumulators then stay in registers through the loops above.
    let Lanes {
        irregular,
        nan_pairs,
        mismatches,
        specials,
        near: [ones, twos],
        max_ulp,
        at_ulp,
        max_abs,
        at_abs,
        max_q,
        outside,
        ..
    } = acc;
    let max_approx = fold(&max_q.to_array());
    // The inputs whose exact quotient may be the largest (module documentation), in order,
    // eight at a time.
    let outside = outside.any();
    // (Outside the range where the approximations hold, every input, as they may be NaN.)
    let threshold = f64x8::splat(max_approx * (1.0 - 1.0 / (1 << 26) as f64));
    let (mut max_rel, mut at_rel) = (0.0f64, 0);
    if max_approx > 0.0 || outside {
        let (zero, infinity) = (f64x8::ZERO, f64x8::splat(f64::INFINITY));
        for c in (0..padded).step_by(8) {
            let approx = f64x8::new(q[c..c + 8].try_into().unwrap());
            let candidate = if outside { f64x8::splat(f64::from_bits(u64::MAX)) } else { approx.simd_ge(threshold) };
            if !candidate.any() {
                continue;
            }
            let rs = std::array::from_fn(|j| r.get(c + j).map_or(pad, word));
            let vf = f64x8::new(std::array::from_fn(|j| v.get(c + j).copied().unwrap_or(pad_value)));
            let (a, va, special) = lane_errors::<F>(rs, vf);
            let rel = candidate.select(a.simd_eq(zero).select(zero, special.select(infinity, a / va)), zero);
            let m = fold(rel.as_array());
            if m > max_rel {
                (max_rel, at_rel) = (m, c + rel.as_array().iter().position(|&x| x == m).unwrap());
            }
        }
    }
    let count = |m: I| m.to_array().iter().map(|&c| c as u64).sum::<u64>();
    let halves = |m: U, shift: u32| m.to_array().iter().map(|&c| (c >> shift & 0xFFFF) as u64).sum::<u64>();
    let (ulps, at_ulps) = (max_ulp.to_array(), at_ulp.to_array());
    let max_ulp = max_ulp.reduce_max();
    let at_ulp = (0..LANES).filter(|&j| ulps[j] == max_ulp).map(|j| at_ulps[j]).min();
    let (abss, at_abss) = (max_abs.to_array(), at_abs.to_array());
    let max_abs = fold(&abss);
    let at_abs = (0..8).filter(|&j| abss[j] == max_abs).map(|j| at_abss[j] as usize).min();
    let (kmin, kmax, emin, emax) = operand_range(src, x);
    Summary {
        kmin,
        kmax,
        emin,
        emax,
        irregular: irregular.any(),
        nan_pairs: count(nan_pairs),
        mismatches: count(mismatches),
        specials: count(specials),
        max_ulp: max_ulp as u64,
        at_ulp: at_ulp.unwrap_or(0) as usize,
        near: [halves(twos, 0), halves(ones, 0), halves(ones, 16), halves(twos, 16)],
        max_abs,
        at_abs: Some(at_abs.unwrap_or(0)),
        max_rel,
        at_rel: Some(at_rel),
    }
}
