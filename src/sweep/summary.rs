//! One pass over a block of a sweep that yields what [`super::stats::Stats::record_block`]
//! needs to summarise it: the range of operand 0, whether the block is regular, the
//! mismatches, the distances and the largest errors.
//!
//! Words of up to 32 bits (f32, f16, bf16) go through the lane pass ([`lanes`]), 64-bit words
//! input by input. Both give exactly the values of input-by-input recording, whose
//! definitions are [`distance`] and [`errors_of`] (tested in stats.rs). The lane code runs at
//! the [`SimdLevel::active`] level, compiled for its instruction set ([`Isa::run`]), and
//! gives the same summary at every level.
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

use bytemuck::Pod;

use super::domain::ordinal;
use crate::batch::Word;
use crate::format::Format;
use crate::kernels::level::{at_level, Isa};
use crate::kernels::simd::{f32x8, f64x8, lane_loop, u32x8, u64x8, Simd};
use crate::kernels::SimdLevel;

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

/// One block to summarise: operand 0, the results, the expected (reference) results and the
/// exact values, of formats `src` (operand 0) and `dst` (results); `bitwise` when results and
/// expected results are compared bit for bit, NaN payloads included. The functions below name
/// them `x`, `r`, `e` and `v`.
#[derive(Clone, Copy)]
pub(super) struct Block<'a, W> {
    pub src: Format,
    pub dst: Format,
    pub bitwise: bool,
    pub operand0: &'a [W],
    pub results: &'a [W],
    pub expected: &'a [W],
    pub values: &'a [f64],
}

/// Summarise `block` with the buffers of `scratch`.
pub(super) fn summarize<W: Word>(block: Block<W>, scratch: &mut LaneScratch) -> Summary {
    summarize_at(SimdLevel::active(), block, scratch)
}

/// [`summarize`] at `level`, which the processor must have ([`SimdLevel::is_supported`]).
fn summarize_at<W: Word>(level: SimdLevel, block: Block<W>, scratch: &mut LaneScratch) -> Summary {
    assert!(level.is_supported(), "the processor lacks the {level} level");
    at_level!(level, L => L::run(#[inline(always)] || summarize_for::<L, W>(block, scratch)))
}

/// [`summarize`] at the level `L`: the lane code is inlined into the function [`Isa::run`]
/// compiles for the level.
#[inline(always)]
fn summarize_for<L: Isa, W: Word>(block: Block<W>, scratch: &mut LaneScratch) -> Summary {
    let Block { src, dst, operand0: x, results: r, expected: e, values: v, .. } = block;
    if W::BITS <= 32 {
        if let Some(errors) = constant_errors(dst, r, e, v) {
            return Summary::constant(operand_range(src, x), errors);
        }
    }
    match dst {
        _ if W::BITS > 32 => one_by_one(block),
        Format::F32 => lanes::<L, W, F32>(block, scratch),
        Format::BF16 => lanes::<L, W, BF16>(block, scratch),
        Format::F16 => lanes::<L, W, F16>(block, scratch),
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
#[inline(never)]
fn one_by_one<W: Word>(block: Block<W>) -> Summary {
    let Block { src, dst, bitwise, operand0: x, results: r, expected: e, values: v } = block;
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
#[inline(always)]
fn constant_errors<W: Word>(dst: Format, r: &[W], e: &[W], v: &[f64]) -> Option<(f64, f64)> {
    let c = r.first()?.to_u64();
    if dst.is_nan(c) {
        return None;
    }
    let cw = U::splat(c as u32);
    let (mut lo, mut hi) = (f64x8::splat(f64::INFINITY), f64x8::splat(f64::NEG_INFINITY));
    let mut nan = f64x8::ZERO;
    let full = r.len() - r.len() % LANES;
    for at in (0..full).step_by(LANES) {
        if !(words(&r[at..at + LANES]).simd_eq(cw) & words(&e[at..at + LANES]).simd_eq(cw)).all() {
            return None;
        }
        let vs = f64x8::new(v[at..at + LANES].try_into().unwrap());
        (lo, hi) = (lo.fast_min(vs), hi.fast_max(vs));
        nan |= vs.is_nan();
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

/// The low 32 bits of [`LANES`] words, as lanes.
#[inline(always)]
fn words<W: Word>(s: &[W]) -> U {
    let s: &[W; LANES] = s.try_into().unwrap();
    let mut out = [0; LANES];
    for (o, w) in out.iter_mut().zip(s) {
        *o = w.to_u64() as u32;
    }
    U::new(out)
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
    let full = v.len() - v.len() % 8;
    let scan = (low, high, equal);
    at_level!(SimdLevel::active(), L => L::run(#[inline(always)] || first_candidate(&v[..full], scan, &reaches)))
        .or_else(|| (full..v.len()).find(|&i| reaches(i)))
        .expect("first_reaching: the maximum is an error of the block")
}

/// The scan of [`first_reaching`] over `v` (a multiple of 8 values): the first input with
/// |v| ≤ low or |v| ≥ high (`equal` false), or |v| = low or |v| = high (`equal` true), that
/// `reaches` the maximum.
#[inline(always)]
fn first_candidate(v: &[f64], (low, high, equal): (f64, f64, bool), reaches: &impl Fn(usize) -> bool) -> Option<usize> {
    let (low, high) = (f64x8::splat(low), f64x8::splat(high));
    for (at, lanes) in (0..).step_by(8).zip(v.chunks_exact(8)) {
        let w = f64x8::new(lanes.try_into().unwrap()).abs();
        let candidate = if equal { w.simd_eq(low) | w.simd_eq(high) } else { w.simd_le(low) | w.simd_ge(high) };
        let mask = candidate.to_bitmask();
        if mask != 0 {
            if let Some(i) = (at..at + 8).filter(|i| mask >> (i - at) & 1 != 0).find(|&i| reaches(i)) {
                return Some(i);
            }
        }
    }
    None
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

/// Inputs per step of the loops in lanes.
const LANES: usize = 8;
type U = u32x8;

/// The result formats of the lane pass, as const parameters.
const F32: u8 = 0;
const BF16: u8 = 1;
const F16: u8 = 2;

/// Values of 8 words of format `F`, exactly.
#[inline(always)]
fn values<const F: u8>(w: [u32; 8]) -> f64x8 {
    let w = u32x8::new(w);
    match F {
        F32 => f64x8::from_f32(f32x8::from_bits(w)),
        BF16 => f64x8::from_f32(f32x8::from_bits(w << 16)),
        _ => {
            let mut out = [0.0; 8];
            for (o, b) in out.iter_mut().zip(w.to_array()) {
                *o = f16_value(b);
            }
            f64x8::new(out)
        }
    }
}

/// The value of the f16 word `b`: sig·2^(max(e, 1) − 25), exact in f64; the all-ones exponent
/// gives an infinity (NaN lanes make the block irregular, so their value does not matter).
#[inline(always)]
fn f16_value(b: u32) -> f64 {
    let (exp, frac) = ((b >> 10) & 0x1F, b & 0x3FF);
    let sig = if exp == 0 { frac } else { frac | 0x400 };
    let magnitude =
        if exp == 0x1F { f64::INFINITY } else { sig as f64 * f64::from_bits((exp.max(1) as u64 + 1023 - 25) << 52) };
    if b & 0x8000 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// Approximate reciprocals, relative error below 2^-27.9, of positive lanes in
/// [2^-1000, 2^1000]: at the AVX-512 level one Newton step `y·(2 − v·y)` (the inner term
/// fused) from `vrcp14pd` (error below 2^-14, squared by the step, plus two roundings), else
/// an exact division. The pass's results do not depend on which (module documentation).
#[inline(always)]
fn recip_approx<L: Isa>(v: f64x8) -> f64x8 {
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        use std::arch::x86_64::{__m512d, _mm512_rcp14_pd};
        // SAFETY: the level's code is compiled with AVX-512F and runs only on processors that
        // have it (`Isa`); the intrinsic only computes.
        let y = unsafe { f64x8::from(_mm512_rcp14_pd(__m512d::from(v))) };
        return y * v.mul_neg_add(y, f64x8::splat(2.0));
    }
    f64x8::ONE / v
}

/// The buffers of the lane pass, reused from block to block: per input (and the padding to a
/// multiple of [`LANES`]), its |distance|, its absolute error ([`errors_of`]) and its
/// approximate relative error (module documentation).
#[derive(Default)]
pub(super) struct LaneScratch {
    ulp: Vec<u32>,
    abs: Vec<f64>,
    q: Vec<f64>,
}

/// The first index of `s` (a multiple of [`LANES`] long) holding `x`, looked for in lanes.
#[inline(always)]
fn first_equal<T: Pod>(s: &[T], x: T) -> Option<usize>
where
    Simd<T, LANES>: EqualMask,
{
    let x = Simd::splat(x);
    for (at, chunk) in (0..).step_by(LANES).zip(s.chunks_exact(LANES)) {
        let mask = Simd::<T, LANES>::new(chunk.try_into().unwrap()).equal_mask(x);
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
    }
    None
}

/// Integer lanes that [`first_equal`] compares.
trait EqualMask {
    /// Bit j set where lane j equals `x`'s.
    fn equal_mask(self, x: Self) -> u64;
}

macro_rules! equal_mask {
    ($($lanes:ty),*) => {$(
        impl EqualMask for $lanes {
            #[inline(always)]
            fn equal_mask(self, x: Self) -> u64 {
                self.simd_eq(x).to_bitmask()
            }
        }
    )*};
}
equal_mask!(u32x8, u64x8);

/// The smallest and largest ordinal and exponent field of operand words `x` of `src`, as
/// [`ordinal`] gives them: a loop of minima and maxima that the compiler vectorises whole.
#[inline(always)]
fn operand_range<W: Word>(src: Format, x: &[W]) -> (i64, i64, u64, u64) {
    let (sign, exp_mask) = (src.sign_bit() as u32, src.exp_mask() as u32);
    let (mut kmin, mut kmax, mut emin, mut emax) = (i32::MAX, i32::MIN, u32::MAX, 0);
    for w in x {
        let w = w.to_u64() as u32;
        let k = ordinal32(w, sign);
        (kmin, kmax) = (kmin.min(k), kmax.max(k));
        let exp = w & exp_mask;
        (emin, emax) = (emin.min(exp), emax.max(exp));
    }
    (kmin as i64, kmax as i64, emin as u64, emax as u64)
}

/// [`errors_of`] in lanes, for blocks without NaNs where an infinite result equals the
/// reference's (regular blocks): the absolute errors of results `rs` (format `F`) against
/// values `v`, |v|, and the lanes where v is 0 or infinite (infinite relative error unless
/// the absolute error is 0).
#[inline(always)]
fn lane_errors<const F: u8>(rs: [u32; 8], v: f64x8) -> (f64x8, f64x8, f64x8) {
    let rf = values::<F>(rs);
    // (NaN pairs, where both are NaN, have no error.)
    let a = rf.is_finite().select((rf - v).abs(), f64x8::ZERO);
    // v = ±0 or ±∞, from the bits less the sign (float comparisons with 0 and ∞ become a class
    // test that the compiler evaluates lane by lane).
    let magnitude2 = v.to_bits() << 1;
    let special = magnitude2.simd_eq(u64x8::ZERO) | magnitude2.simd_eq(u64x8::splat(f64::INFINITY.to_bits() << 1));
    (a, v.abs(), f64x8::from_bits(special))
}

/// `K` words of `s` from `at` (the low 32 bits), +0 past its end (for the last step of a
/// block).
#[inline(always)]
fn padded_words<W: Word, const K: usize>(s: &[W], at: usize) -> [u32; K] {
    let mut out = [0; K];
    for (o, w) in out.iter_mut().zip(s.get(at..).unwrap_or(&[])) {
        *o = w.to_u64() as u32;
    }
    out
}

/// `K` elements of `s` from `at`, `pad` past its end.
#[inline(always)]
fn padded_values<T: Copy, const K: usize>(s: &[T], at: usize, pad: T) -> [T; K] {
    let mut out = [pad; K];
    for (o, x) in out.iter_mut().zip(s.get(at..).unwrap_or(&[])) {
        *o = *x;
    }
    out
}

/// Exact values beyond which the approximate reciprocal is not relied on.
const TINY: f64 = 1.0 / (1u128 << 100) as f64 / (1u128 << 100) as f64 / (1u128 << 100) as f64;
const HUGE: f64 = 1.0 / TINY;

/// The lane pass over words of up to 32 bits.
///
/// The statistics of the distances are a loop over the inputs with scalar accumulators
/// (sums, ors, the largest), which the compiler vectorises at the width of the level. The
/// errors and approximate quotients are a loop in lanes of [`LANES`] with three accumulators
/// (the approximate reciprocal is an AVX-512 instruction at that level). The inputs reaching
/// the maxima are looked for afterwards, in the stored distances and errors. (The earlier
/// single loop in lanes carried a dozen accumulators from step to step, which the compiler
/// splits into scalar lanes and puts back together in uneven pieces: half as fast.)
///
/// The largest absolute error and approximate quotient are compared as bits: in a regular
/// block they are +0 or positive (a NaN value goes with a NaN expected result and a result
/// that is not, an irregular block), and where the approximations do not hold (`outside`)
/// the quotients are not used.
#[inline(always)]
fn lanes<L: Isa, W: Word, const F: u8>(block: Block<W>, scratch: &mut LaneScratch) -> Summary {
    let Block { src, dst, bitwise, operand0: x, results: r, expected: e, values: v } = block;
    let n = r.len();
    let padded = n.div_ceil(LANES) * LANES;
    let LaneScratch { ulp, abs, q } = scratch;
    if q.len() < padded {
        ulp.resize(padded, 0);
        abs.resize(padded, 0.0);
        q.resize(padded, 0.0);
    }
    let (ulp, abs, q) = (&mut ulp[..padded], &mut abs[..padded], &mut q[..padded]);
    let (sign, inf) = (dst.sign_bit() as u32, dst.exp_mask() as u32);
    let (mut irregular, mut mismatches, mut specials) = (false, 0u32, 0u32);
    let (mut near, mut max_ulp) = ([0u32; 4], 0);
    // Iterators, not indices, and additions that wrap (a block is far shorter than 2^32 words,
    // so no count can): a bounds check or an overflow check (the test profile checks) in the
    // loop keeps it from being vectorised.
    for ((u, rw), ew) in ulp[..n].iter_mut().zip(r).zip(&e[..n]) {
        let (rw, ew) = (rw.to_u64() as u32, ew.to_u64() as u32);
        let (rm, em) = (rw & (sign - 1), ew & (sign - 1));
        let (r_nan, e_nan) = (rm > inf, em > inf);
        let nan_pair = r_nan & e_nan;
        let infinite = (rm == inf) | (em == inf);
        let differ = rw != ew;
        // A saturated distance may be a larger one; NaN pairs are at distance 0.
        let d = saturating_sub(ordinal32(rw, sign), ordinal32(ew, sign));
        let saturated = (d == i32::MIN) | (d == i32::MAX);
        let d = if nan_pair { 0 } else { d };
        irregular |= (r_nan ^ e_nan) | (differ & infinite) | (saturated & !nan_pair);
        mismatches = mismatches.wrapping_add(u32::from(differ & (bitwise | !nan_pair)));
        specials = specials.wrapping_add(u32::from(differ & (rm.min(em) == 0)));
        for (count, k) in near.iter_mut().zip([-2, -1, 1, 2]) {
            *count = count.wrapping_add(u32::from(d == k));
        }
        *u = d.unsigned_abs();
        max_ulp = max_ulp.max(d.unsigned_abs());
    }
    // `errors_of` for regular blocks and the approximate quotients, in lanes.
    let (zero, infinity) = (f64x8::ZERO, f64x8::splat(f64::INFINITY));
    let (mut outside, mut max_abs, mut max_approx) = (u64x8::ZERO, u64x8::ZERO, u64x8::ZERO);
    for c in (0..padded).step_by(LANES) {
        lane_loop();
        let (rs, vs) = if c + LANES <= n {
            (words(&r[c..c + LANES]).to_array(), v[c..c + LANES].try_into().unwrap())
        } else {
            (padded_words(r, c), padded_values(v, c, 0.0))
        };
        let value = f64x8::new(vs);
        let (a, magnitude, special) = lane_errors::<F>(rs, value);
        let qa = a.simd_eq(zero).select(zero, special.select(infinity, a * recip_approx::<L>(magnitude)));
        abs[c..c + LANES].copy_from_slice(a.as_array());
        q[c..c + LANES].copy_from_slice(qa.as_array());
        max_abs = max_abs.max(a.to_bits());
        max_approx = max_approx.max(qa.to_bits());
        outside |= ((magnitude.simd_lt(f64x8::splat(TINY)) & !value.simd_eq(zero))
            | (magnitude.simd_gt(f64x8::splat(HUGE)) & !special))
            .to_bits();
    }
    let (outside, max_abs, max_approx) = (outside.any(), max_abs.reduce_max(), max_approx.reduce_max());
    // The padding: +0 results expecting +0 of value 0, which change nothing.
    ulp[n..].fill(0);
    let at_ulp = first_equal(ulp, max_ulp).unwrap_or(0);
    let at_abs = first_equal(bytemuck::cast_slice::<f64, u64>(abs), max_abs).unwrap_or(0);
    let (max_abs, max_approx) = (f64::from_bits(max_abs), f64::from_bits(max_approx));
    // The inputs whose exact quotient may be the largest (module documentation), in order,
    // eight at a time. (Outside the range where the approximations hold, every input, as they
    // may be NaN.)
    let threshold = f64x8::splat(max_approx * (1.0 - 1.0 / (1 << 26) as f64));
    let (mut max_rel, mut at_rel) = (0.0f64, 0);
    if max_approx > 0.0 || outside {
        for c in (0..padded).step_by(LANES) {
            let approx = f64x8::new(q[c..c + LANES].try_into().unwrap());
            let candidate = if outside { f64x8::splat(f64::from_bits(u64::MAX)) } else { approx.simd_ge(threshold) };
            if !candidate.any() {
                continue;
            }
            let (rs, vf) = if c + LANES <= n {
                (words(&r[c..c + LANES]).to_array(), f64x8::new(v[c..c + LANES].try_into().unwrap()))
            } else {
                (padded_words(r, c), f64x8::new(padded_values(v, c, 0.0)))
            };
            let (a, va, special) = lane_errors::<F>(rs, vf);
            let rel_lanes = candidate.select(a.simd_eq(zero).select(zero, special.select(infinity, a / va)), zero);
            // Stored over the quotients of these inputs, which are done with: read back by the
            // scalar maximum, the lanes would otherwise be computed one by one.
            let rel = &mut q[c..c + LANES];
            rel.copy_from_slice(rel_lanes.as_array());
            let m = rel.iter().fold(0.0f64, |m, &x| m.max(x));
            if m > max_rel {
                (max_rel, at_rel) = (m, c + rel.iter().position(|&x| x == m).unwrap());
            }
        }
    }
    let (kmin, kmax, emin, emax) = operand_range(src, x);
    Summary {
        kmin,
        kmax,
        emin,
        emax,
        irregular,
        mismatches: mismatches.into(),
        specials: specials.into(),
        max_ulp: max_ulp.into(),
        at_ulp,
        near: near.map(u64::from),
        max_abs,
        at_abs: Some(at_abs),
        max_rel,
        at_rel: Some(at_rel),
    }
}

/// [`ordinal`] of a word of up to 32 bits with sign bit `sign`, in 32 bits: the magnitude, or
/// −1 − magnitude for a negative word.
#[inline(always)]
fn ordinal32(w: u32, sign: u32) -> i32 {
    (w & (sign - 1)) as i32 ^ if w & sign != 0 { -1 } else { 0 }
}

/// `a − b` clamped to the i32 range, written with the wrapped difference and its overflow
/// (`i32::saturating_sub` does not vectorise).
#[inline(always)]
fn saturating_sub(a: i32, b: i32) -> i32 {
    let d = a.wrapping_sub(b);
    if (a ^ b) & (a ^ d) < 0 {
        (a >> 31) ^ i32::MAX
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every SIMD level the processor has summarises blocks as the baseline does: f32, f16 and
    /// bf16 blocks of uneven lengths, with results near the expected ones, constant blocks,
    /// NaNs (pairs and single), infinities, zeros, large distances and exact values outside
    /// [2^-1000, 2^1000].
    /// A block whose operand 0 and results are of one format: operand 0, results, expected.
    fn block<'a, W>(fmt: Format, bitwise: bool, [x, r, e]: [&'a [W]; 3], values: &'a [f64]) -> Block<'a, W> {
        Block { src: fmt, dst: fmt, bitwise, operand0: x, results: r, expected: e, values }
    }

    #[test]
    fn levels_agree() {
        let mut rng = crate::sweep::domain::Rng::for_case(0x5EED_1E7E_15A9_4EE5, 0);
        let mut next = move || rng.next();
        let mut scratch = LaneScratch::default();
        for fmt in [Format::F32, Format::F16, Format::BF16] {
            let one = fmt.one();
            let words = |v: &[u64]| v.iter().map(|&b| b as u32).collect::<Vec<u32>>();
            for trial in 0..60u64 {
                let n = [4096, 4089, 1000, 17, 8, 1][trial as usize % 6];
                let inputs: Vec<u64> = (0..n as u64).map(|i| (one + i * (1 + trial % 3)) & fmt.mask()).collect();
                let expected: Vec<u64> = inputs.iter().map(|&x| (x + (trial << 4)) & fmt.mask()).collect();
                let results: Vec<u64> = expected
                    .iter()
                    .map(|&e| match (next() % 400, trial % 6) {
                        (0, 0) => fmt.canonical_nan(),
                        (1, 1) => fmt.inf(next().is_multiple_of(2)),
                        (2, 2) => fmt.zero(false),
                        (3, 3) => e ^ fmt.sign_bit(),
                        (k @ 4..=150, 4 | 5) => (e + k % 5).wrapping_sub(2) & fmt.mask(),
                        _ if trial % 6 == 5 => e,
                        (k @ 4..=40, _) => (e + k % 5).wrapping_sub(2) & fmt.mask(),
                        _ => e,
                    })
                    .collect();
                let value: Vec<f64> = expected
                    .iter()
                    .map(|&e| match (trial % 5, next() % 300) {
                        (0, 0) => f64::from_bits(1 + next() % 1000),
                        (1, 0) => 2f64.powi(1000 + (next() % 20) as i32),
                        (2, 0) => f64::NAN,
                        _ => fmt.to_f64(e) * (1.0 + ((next() % 1000) as f64 - 500.0) * 2f64.powi(-40)),
                    })
                    .collect();
                let (x, r, e) = (words(&inputs), words(&results), words(&expected));
                for bitwise in [false, true] {
                    let mut summary = |level| {
                        let s = match fmt {
                            Format::F32 => summarize_at(level, block(fmt, bitwise, [&x, &r, &e], &value), &mut scratch),
                            _ => {
                                let h = |w: &[u32]| w.iter().map(|&b| b as u16).collect::<Vec<u16>>();
                                let (x, r, e) = (h(&x), h(&r), h(&e));
                                summarize_at(level, block(fmt, bitwise, [&x, &r, &e], &value), &mut scratch)
                            }
                        };
                        // (NaN maxima compare by their printing.)
                        format!("{s:?}")
                    };
                    let baseline = summary(SimdLevel::Baseline);
                    for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
                        assert_eq!(summary(level), baseline, "{fmt:?} trial {trial} bitwise {bitwise} at {level}");
                    }
                }
            }
        }
    }
}
