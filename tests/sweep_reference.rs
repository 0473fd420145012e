//! The correctly rounded references of `ptxfp sweep` (`ptxfp::sweep::exact`).
//!
//! - f32: `rounded` must equal CORE-MATH's correctly rounded f32 function bit for bit (IEEE f32
//!   division and square root for Rcp and Sqrt; for NaN results, the canonical 0x7FC00000), and
//!   `value` must lie within `VALUE_REL_ERROR` of CORE-MATH's correctly rounded f64 function
//!   (Tanh: equal it). The default tier checks every 4099th bit pattern and the special values;
//!   the exhaustive tier (`--include-ignored`) all 2^32 patterns of Rcp, Sqrt, Rsqrt, Ex2, Lg2
//!   and Tanh (`value` on every 8th), and with
//!   `--features exhaustive-references` every value, and all patterns of Sin, Cos, SinTurns and
//!   CosTurns.
//! - f16 and bf16: all 2^16 inputs. `value` must be CORE-MATH's f64 result, and `rounded` must
//!   bracket it: the f64 value lies within half a unit of `rounded` (ties to even). Ties, which
//!   only exact values may produce, and values within 2^-40 of a rounding boundary are listed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ptxfp::sweep::exact::{f32_block, f32_constant_run, half_block, MathFn, CONSTANT_RUN_EDGES, VALUE_REL_ERROR};
use ptxfp::{Format, SimdLevel};
use rayon::prelude::*;

mod all_cores;

/// Whether `f` of a negative `x` (−0 excluded) is an invalid operation, whose result is a
/// NaN (IEEE 754-2019 §9.2: rSqrt and log2 of x < 0). The references give that NaN without
/// calling CORE-MATH, whose NaN path (it builds the NaN with `nanf` and raises the invalid
/// flag) took a third of the all-input Rsqrt check's samples (`perf`).
#[inline(always)]
fn invalid_below_zero(f: MathFn, negative: bool) -> bool {
    negative && matches!(f, MathFn::Rsqrt | MathFn::Lg2)
}

/// The correctly rounded f32 result, computed without the module under test.
#[inline(always)]
fn reference_f32(f: MathFn, x: f32) -> f32 {
    if invalid_below_zero(f, x < 0.0) {
        return f32::NAN;
    }
    // 2x overflows only for |x| ≥ 2^127, where x is an even integer: sin(πx) is then the same
    // signed zero as sin(2πx), and cos(πx) = cos(2πx) = 1.
    let turns = if (2.0 * x).is_finite() || x.is_infinite() { 2.0 * x } else { x };
    match f {
        MathFn::Rcp => 1.0 / x,
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => core_math::rsqrtf(x),
        MathFn::Ex2 => core_math::exp2f(x),
        MathFn::Lg2 => core_math::log2f(x),
        MathFn::Sin => core_math::sinf(x),
        MathFn::Cos => core_math::cosf(x),
        MathFn::Tanh => core_math::tanhf(x),
        MathFn::SinTurns => core_math::sinpif(turns),
        MathFn::CosTurns => core_math::cospif(turns),
    }
}

/// The correctly rounded f64 result.
fn reference_f64(f: MathFn, x: f64) -> f64 {
    if invalid_below_zero(f, x < 0.0) {
        return f64::NAN;
    }
    match f {
        MathFn::Rcp => 1.0 / x,
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => core_math::rsqrt(x),
        MathFn::Ex2 => core_math::exp2(x),
        MathFn::Lg2 => core_math::log2(x),
        MathFn::Sin => core_math::sin(x),
        MathFn::Cos => core_math::cos(x),
        MathFn::Tanh => core_math::tanh(x),
        MathFn::SinTurns => core_math::sinpi(2.0 * x),
        MathFn::CosTurns => core_math::cospi(2.0 * x),
    }
}

/// The bits `rounded` must have for a reference result `want`: its own, or the canonical NaN
/// when it is a NaN.
#[inline(always)]
fn expected_bits(want: f32) -> u32 {
    if want.is_nan() {
        0x7FC0_0000
    } else {
        want.to_bits()
    }
}

/// Whether `rounded` is the right f32 result for input `x` ([`expected_bits`] of the
/// reference).
fn f32_ok(f: MathFn, x: u32, rounded: u32) -> bool {
    rounded == expected_bits(reference_f32(f, f32::from_bits(x)))
}

/// The relative error of `value` against the correctly rounded f64 result, or None where the
/// bound does not apply (f(x) outside f64's normal range). Panics on a NaN or exact-value
/// mismatch.
fn value_error(f: MathFn, x: u32, value: f64) -> Option<f64> {
    let want = reference_f64(f, f32::from_bits(x) as f64);
    if want.is_nan() || want.is_infinite() || want == 0.0 {
        let same = (want.is_nan() && value.is_nan()) || want.to_bits() == value.to_bits();
        assert!(same, "{:?}({x:#010x}): value {value:e}, want {want:e}", f);
        return None;
    }
    (want.abs() >= f64::MIN_POSITIVE).then(|| ((value - want) / want).abs())
}

const SPECIAL_F32: [f32; 47] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1.0,
    -1.0,
    2.0,
    -2.0,
    0.5,
    -0.5,
    0.25,
    -0.25,
    0.75,
    -0.75,
    1.25,
    -1.5,
    3.0,
    0.1,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    1e-45,
    -1e-45,
    1.1754942e-38,
    -150.0,
    -149.0,
    -149.5,
    -126.0,
    -127.0,
    -125.99999,
    127.0,
    127.99999,
    128.0,
    -1022.5,
    1023.5,
    1024.0,
    -1100.0,
    4194304.0,
    -4194304.5,
    8388608.0,
    8388607.5,
    1e10,
    -1e10,
    1.0000001,
    0.99999994,
    2.5e-8,
];

/// Bit patterns of the special values, including NaNs with both signs and both quiet bits.
fn special_patterns() -> Vec<u32> {
    let mut x: Vec<u32> = SPECIAL_F32.iter().map(|v| v.to_bits()).collect();
    x.extend([0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0x0000_0001, 0x8000_0001, 0x007F_FFFF]);
    x
}

/// Check `f32_block` on `inputs`; returns the largest relative error of `value` seen.
fn check_f32(f: MathFn, inputs: &[u32]) -> f64 {
    let mut value = vec![0.0; inputs.len()];
    let mut rounded = vec![0; inputs.len()];
    f32_block(f, false, inputs, &mut value, &mut rounded);
    let mut worst: f64 = 0.0;
    for ((&x, &v), &r) in inputs.iter().zip(&value).zip(&rounded) {
        assert!(
            f32_ok(f, x, r),
            "{:?}({x:#010x}): rounded {r:#010x}, want {:#010x}",
            f,
            reference_f32(f, f32::from_bits(x)).to_bits()
        );
        if let Some(e) = value_error(f, x, v) {
            assert!(e <= VALUE_REL_ERROR, "{:?}({x:#010x}): value {v:e} off by {e:e} relative", f);
            worst = worst.max(e);
        }
    }
    worst
}

#[test]
fn f32_sample_and_special_values() {
    let mut inputs: Vec<u32> = (0..=u32::MAX).step_by(4099).collect();
    inputs.extend(special_patterns());
    for f in MathFn::ALL {
        let worst = check_f32(f, &inputs);
        eprintln!(
            "{:?}: {} inputs, largest relative error of value {:.3e} (2^{:.1})",
            f,
            inputs.len(),
            worst,
            worst.log2()
        );
    }
}

#[test]
fn f32_block_lengths_and_tails() {
    // Every tail length of the 8-lane groups, at several offsets into the special values.
    let x = special_patterns();
    for f in MathFn::ALL {
        for start in 0..8 {
            for len in 0..=17 {
                check_f32(f, &x[start..(start + len).min(x.len())]);
            }
        }
    }
}

/// `f32_constant_run`'s promise on the consecutive patterns `x`, through the longest accepted
/// run from each input on (found by bisection: a part of an accepted run is accepted):
/// `f32_block` writes one result on it, its values are monotone (rising with the input's
/// value, so falling along a run of negative inputs), and they do not depend on where the run
/// stands in a block: its first and last 64 inputs in other groups (shifted by one input, and
/// the ends alone) get the same values. Returns the number of inputs in accepted runs.
fn check_constant_runs(f: MathFn, ftz: bool, x: &[u32]) -> u64 {
    let eval = |x: &[u32]| {
        let (mut value, mut rounded) = (vec![0.0; x.len()], vec![0; x.len()]);
        f32_block(f, ftz, x, &mut value, &mut rounded);
        (value, rounded)
    };
    let mut accepted = 0;
    let mut i = 0;
    while i < x.len() {
        if !f32_constant_run(f, ftz, x[i], x[i]) {
            i += 1;
            continue;
        }
        // x[i..=j] is accepted and x[i..=end] is not (end = len when all of x is).
        let (mut j, mut end) = (i, x.len());
        while end - j > 1 {
            let mid = j + (end - j) / 2;
            if f32_constant_run(f, ftz, x[i], x[mid]) {
                j = mid;
            } else {
                end = mid;
            }
        }
        let run = &x[i..=j];
        let (value, rounded) = eval(run);
        let at = |k: usize| {
            format!("{f:?} (ftz {ftz}) run {:#010x}..={:#010x} at {:#010x}", run[0], run[run.len() - 1], run[k])
        };
        let rising = run[0] >> 31 == 0;
        for k in 0..run.len() {
            assert_eq!(rounded[k], rounded[0], "{}: not one result", at(k));
            if k > 0 {
                let (a, b) = (value[k - 1], value[k]);
                assert!(if rising { a <= b } else { a >= b }, "{}: values {a:e}, {b:e} not monotone", at(k));
            }
        }
        let n = run.len();
        for (from, to) in [(1, n.min(65)), (n.saturating_sub(64).max(1), n)] {
            let (shifted, _) = eval(&run[from..to]);
            for k in from..to {
                assert_eq!(shifted[k - from].to_bits(), value[k].to_bits(), "{}: value depends on the group", at(k));
            }
        }
        for k in [0, run.len() - 1] {
            assert_eq!(eval(&run[k..=k]).0[0].to_bits(), value[k].to_bits(), "{}: value alone differs", at(k));
        }
        accepted += run.len() as u64;
        i = j + 1;
    }
    accepted
}

/// The runs `f32_constant_run` accepts (2^x: |x| < 2^-26, |x| ≥ 1100, x ≥ 128, x < −126 with
/// `ftz`, x ≤ −150 without; tanh x: |x| ≥ 20) at the edges of their regions, of the
/// subnormals and of NaN, and at a stride through every binade; the CI tier checks all 2^32
/// inputs (`constant_runs_all_inputs`).
#[test]
fn constant_runs_sample() {
    for (f, ftz) in [(MathFn::Ex2, false), (MathFn::Ex2, true), (MathFn::Tanh, false)] {
        let mut accepted = 0;
        for sign in [0, 0x8000_0000] {
            for edge in CONSTANT_RUN_EDGES {
                let lo = edge.saturating_sub(3000);
                accepted += check_constant_runs(
                    f,
                    ftz,
                    &(lo..(edge + 3000).min(0x7FFF_FFFF)).map(|b| b | sign).collect::<Vec<_>>(),
                );
            }
            for binade in 0..256u32 {
                let base = binade << 23 | sign;
                accepted += check_constant_runs(f, ftz, &(base..base + 100).collect::<Vec<_>>());
            }
        }
        assert!(accepted > 20_000, "{f:?}: only {accepted} inputs in accepted runs");
        // Nothing else is accepted.
        for other in MathFn::ALL.into_iter().filter(|&g| g != MathFn::Ex2 && g != MathFn::Tanh) {
            assert!(!f32_constant_run(other, ftz, 0, 0x100));
        }
    }
}

/// `check_constant_runs` over all 2^32 inputs in blocks of 2^16, and across the block edges.
#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn constant_runs_all_inputs() {
    let _all_cores = all_cores::hold();
    for (f, ftz) in [(MathFn::Ex2, false), (MathFn::Ex2, true), (MathFn::Tanh, false)] {
        let start = Instant::now();
        let accepted: u64 = (0..1u32 << 16)
            .into_par_iter()
            .map(|block| {
                let x: Vec<u32> = (block << 16..=(block << 16 | 0xFFFF)).collect();
                let edge: Vec<u32> = (block << 16 | 0xFFFF..=(block << 16 | 0xFFFF).saturating_add(1)).collect();
                check_constant_runs(f, ftz, &edge);
                check_constant_runs(f, ftz, &x)
            })
            .sum();
        eprintln!("{f:?} (ftz {ftz}): {accepted} inputs in constant runs, {:.1} s", start.elapsed().as_secs_f64());
    }
}

/// Subnormal words of a format (sign bit `sign`, exponent mask `exp`) become zeros of their sign./// Subnormal words of a format (sign bit `sign`, exponent mask `exp`) become zeros of their sign.
fn flushed(words: &[u64], sign: u64, exp: u64) -> Vec<u64> {
    words.iter().map(|&w| if w & exp == 0 { w & sign } else { w }).collect()
}

/// With `ftz` the blocks equal the plain blocks on flushed inputs, their results flushed: on
/// subnormal inputs, on inputs whose results are subnormal (Ex2 near −126..−150, Rcp near
/// 2^126..2^128) and on a sample of all patterns in f32; on all 2^16 inputs in f16 and bf16.
#[test]
fn ftz_flushes_inputs_and_results() {
    let mut x = special_patterns();
    for base in [0x0000_0000u32, 0x8000_0000] {
        x.extend((0..1 << 23).step_by(997).map(|m| base | m));
        x.extend((0xC2FC_0000..0xC316_0000u32).step_by(61).map(|b| b & 0x7FFF_FFFF | base ^ 0x8000_0000));
        x.extend((0x7E80_0000..0x7F80_0000u32).step_by(4099).map(|b| b | base));
    }
    x.extend((0..=u32::MAX).step_by(65537));
    let words = |v: &[u32]| v.iter().map(|&w| w as u64).collect::<Vec<u64>>();
    let flushed_x: Vec<u32> = flushed(&words(&x), 0x8000_0000, 0x7F80_0000).iter().map(|&w| w as u32).collect();
    for f in MathFn::ALL {
        let n = x.len();
        let (mut value, mut rounded) = (vec![0.0; n], vec![0; n]);
        f32_block(f, true, &x, &mut value, &mut rounded);
        let (mut want_value, mut want) = (vec![0.0; n], vec![0; n]);
        f32_block(f, false, &flushed_x, &mut want_value, &mut want);
        let subnormal_results = want.iter().filter(|&&r| r & 0x7F80_0000 == 0 && r & 0x7FFF_FFFF != 0).count();
        if matches!(f, MathFn::Ex2 | MathFn::Rcp) {
            assert!(subnormal_results > 1000, "{f:?}: only {subnormal_results} subnormal results to flush");
        }
        let want = flushed(&words(&want), 0x8000_0000, 0x7F80_0000);
        for i in 0..n {
            assert_eq!(rounded[i] as u64, want[i], "{f:?}({:#010x}) with ftz", x[i]);
            assert_eq!(value[i].to_bits(), want_value[i].to_bits(), "{f:?}({:#010x}) with ftz: value", x[i]);
        }
    }
    let all: Vec<u16> = (0..=u16::MAX).collect();
    for fmt in [Format::F16, Format::BF16] {
        let (sign, exp) = (fmt.sign_bit(), fmt.exp_mask());
        let flushed_all: Vec<u16> = flushed(&words16(&all), sign, exp).iter().map(|&w| w as u16).collect();
        for f in MathFn::ALL {
            let (mut value, mut rounded) = (vec![0.0; 1 << 16], vec![0; 1 << 16]);
            half_block(f, fmt, true, &all, &mut value, &mut rounded);
            let (mut want_value, mut want) = (vec![0.0; 1 << 16], vec![0; 1 << 16]);
            half_block(f, fmt, false, &flushed_all, &mut want_value, &mut want);
            let want = flushed(&words16(&want), sign, exp);
            for i in 0..1 << 16 {
                assert_eq!(rounded[i] as u64, want[i], "{f:?} {}({i:#06x}) with ftz", fmt.name());
                assert_eq!(value[i].to_bits(), want_value[i].to_bits(), "{f:?} {}({i:#06x}): value", fmt.name());
            }
        }
    }
}

fn words16(v: &[u16]) -> Vec<u64> {
    v.iter().map(|&w| w as u64).collect()
}

#[test]
fn exact_cases_are_exact() {
    let cases: [(MathFn, f32, f64, f32); 12] = [
        (MathFn::Ex2, 10.0, 1024.0, 1024.0),
        (MathFn::Ex2, -149.0, 1e-45f32 as f64, 1e-45),
        // 2^-150 is the midpoint between +0 and the smallest subnormal.
        (MathFn::Ex2, -150.0, 2f64.powi(-150), 0.0),
        (MathFn::Ex2, f32::NEG_INFINITY, 0.0, 0.0),
        (MathFn::Lg2, 0.125, -3.0, -3.0),
        (MathFn::Lg2, 1.0, 0.0, 0.0),
        (MathFn::Lg2, 0.0, f64::NEG_INFINITY, f32::NEG_INFINITY),
        (MathFn::Rsqrt, -0.0, f64::NEG_INFINITY, f32::NEG_INFINITY),
        (MathFn::SinTurns, -0.5, -0.0, -0.0),
        (MathFn::CosTurns, 0.25, 0.0, 0.0),
        (MathFn::CosTurns, 0.5, -1.0, -1.0),
        (MathFn::Tanh, f32::NEG_INFINITY, -1.0, -1.0),
    ];
    for (f, x, want_value, want) in cases {
        let (mut value, mut rounded) = ([0.0], [0]);
        f32_block(f, false, &[x.to_bits()], &mut value, &mut rounded);
        assert_eq!(rounded[0], want.to_bits(), "{:?}({x})", f);
        assert_eq!(value[0].to_bits(), want_value.to_bits(), "{:?}({x})", f);
    }
}

/// Value of a 16-bit pattern's magnitude `m` (the bits without the sign), where the pattern
/// one past the largest finite one stands for 2^(emax+1).
fn magnitude(fmt: Format, m: u16) -> f64 {
    if m as u64 == fmt.inf(false) {
        2f64.powi(fmt.emax() + 1)
    } else {
        fmt.to_f64(m as u64)
    }
}

/// Check `half_block` on all 2^16 inputs; returns the inputs whose value is a tie and those
/// within 2^-40 (relative) of a rounding boundary.
fn check_half(f: MathFn, fmt: Format) -> (Vec<u16>, Vec<u16>) {
    let x: Vec<u16> = (0..=u16::MAX).collect();
    let mut value = vec![0.0; x.len()];
    let mut rounded = vec![0; x.len()];
    half_block(f, fmt, false, &x, &mut value, &mut rounded);
    let nan = if fmt == Format::F16 { 0x7E00 } else { 0x7FC0 };
    let inf = fmt.inf(false) as u16;
    let (mut ties, mut close) = (vec![], vec![]);
    for ((&x, &v), &r) in x.iter().zip(&value).zip(&rounded) {
        let want = reference_f64(f, fmt.to_f64(x as u64));
        let what = format!("{:?} {}({x:#06x}) = {want:e}: rounded {r:#06x}", f, fmt.name());
        if want.is_nan() {
            assert!(v.is_nan() && r == nan, "{what}, value {v:e}");
            continue;
        }
        assert_eq!(v.to_bits(), want.to_bits(), "{what}, value {v:e}");
        assert_eq!(r & 0x8000 != 0, want.is_sign_negative(), "{what}: sign");
        let (a, m) = (want.abs(), r & 0x7FFF);
        assert!(m <= inf, "{what}: NaN");
        // The interval of magnitudes that round to m, ends included.
        let lower = if m == 0 { 0.0 } else { (magnitude(fmt, m) + magnitude(fmt, m - 1)) / 2.0 };
        let upper = if m == inf { f64::INFINITY } else { (magnitude(fmt, m) + magnitude(fmt, m + 1)) / 2.0 };
        assert!(lower <= a && a <= upper, "{what}: outside [{lower:e}, {upper:e}]");
        if (a == lower && m != 0) || (a == upper && m != inf) {
            assert_eq!(m & 1, 0, "{what}: a tie must round to even");
            ties.push(x);
        } else if a != 0.0 && ((a - lower).min(upper - a) / a) < 2f64.powi(-40) {
            close.push(x);
        }
    }
    (ties, close)
}

#[test]
fn half_all_inputs() {
    for fmt in [Format::F16, Format::BF16] {
        for f in MathFn::ALL {
            let (ties, close) = check_half(f, fmt);
            eprintln!("{:?} {}: ties at {ties:04x?}, within 2^-40 of a boundary: {close:04x?}", f, fmt.name());
            // The only ties are exact: 2^-25 (f16) and 2^-134 (bf16), the first midpoint of the
            // subnormal grid, which rounds to +0.
            let exact: &[u16] = match (f, fmt) {
                (MathFn::Ex2, Format::F16) => &[0xCE40],
                (MathFn::Ex2, _) => &[0xC306],
                _ => &[],
            };
            assert_eq!(ties, exact, "{:?} {}", f, fmt.name());
        }
    }
}

/// The relative error bound e of an f32 path's values as the module documentation lists it,
/// for the paths with a bracketing check.
fn path_error(f: MathFn) -> Option<f64> {
    match f {
        MathFn::Rcp | MathFn::Sqrt => None,
        MathFn::Rsqrt => Some(2f64.powi(-51)),
        MathFn::Ex2 | MathFn::Lg2 | MathFn::Sin | MathFn::Cos => Some(VALUE_REL_ERROR),
        _ => Some(2f64.powi(-53)),
    }
}

/// [`expected_bits`] of the references of `f` on the bit patterns `x`, into `want`.
fn references_f32(f: MathFn, x: &[u32], want: &mut [u32]) {
    for (w, &x) in want.iter_mut().zip(x) {
        *w = expected_bits(reference_f32(f, f32::from_bits(x)));
    }
}

/// All 2^32 f32 inputs in blocks of 65536 on every core: `rounded` against the reference, for
/// the paths whose value is not itself a correctly rounded f64 (Rsqrt, Ex2, Lg2, Sin, Cos)
/// `value` against CORE-MATH f64, and the number of inputs the bracketing check sends to the
/// scalar function. The CORE-MATH f64 call is most of the cost, so the CI tier checks values
/// on every 8th input (their bound is proved in src/sweep/exact.rs, the rounded results are
/// checked on every input); `--features exhaustive-references` checks every value.
///
/// The comparisons and the count of undecided inputs are loops of their own, compiled for the
/// widest level the processor has (`SimdLevel::compiled_for`), not steps of the loop that
/// calls the references (a scalar loop, as the baseline build compiles it).
fn exhaustive(f: MathFn) {
    let _all_cores = all_cores::hold();
    const VALUE_STRIDE: usize = if cfg!(feature = "exhaustive-references") { 1 } else { 8 };
    const BLOCK: u32 = 1 << 16;
    let start = Instant::now();
    let wrong = AtomicU64::new(0);
    let fallbacks = AtomicU64::new(0);
    let worst = AtomicU64::new(0);
    // Tanh's value is CORE-MATH's f64 result except where it is known without it: checked
    // for equality.
    let check_value = matches!(f, MathFn::Rsqrt | MathFn::Ex2 | MathFn::Lg2 | MathFn::Sin | MathFn::Cos | MathFn::Tanh);
    let widest = SimdLevel::detected();
    (0..(1u64 << 32) / u64::from(BLOCK)).into_par_iter().for_each_init(
        || {
            (
                vec![0u32; BLOCK as usize],
                vec![0.0; BLOCK as usize],
                vec![0u32; BLOCK as usize],
                vec![0u32; BLOCK as usize],
            )
        },
        |(x, value, rounded, want), block| {
            let first = block as u32 * BLOCK;
            for (i, x) in (0..BLOCK).zip(x.iter_mut()) {
                *x = first + i;
            }
            f32_block(f, false, x, value, rounded);
            references_f32(f, x, want);
            let differ = widest.compiled_for(
                #[inline(always)]
                || rounded.iter().zip(want.iter()).fold(0u32, |n, (r, w)| n.wrapping_add(u32::from(r != w))),
            );
            if differ > 0 {
                for ((&x, &r), &w) in x.iter().zip(rounded.iter()).zip(want.iter()) {
                    if r != w && wrong.fetch_add(1, Ordering::Relaxed) < 10 {
                        eprintln!("{:?}({x:#010x}): rounded {r:#010x}, want {w:#010x}", f);
                    }
                }
            }
            // The block's largest error, published once: an atomic maximum per input would have
            // the cores contend for one cache line.
            if check_value {
                let mut block_worst = 0;
                for (&x, &v) in x.iter().zip(value.iter()).step_by(VALUE_STRIDE) {
                    if let Some(e) = value_error(f, x, v) {
                        block_worst = block_worst.max(e.to_bits());
                    }
                }
                worst.fetch_max(block_worst, Ordering::Relaxed);
            }
            if let Some(e) = path_error(f) {
                let (below, above) = (1.0 - 4.0 * e, 1.0 + 4.0 * e);
                let undecided = widest.compiled_for(
                    #[inline(always)]
                    || {
                        value.iter().fold(0u32, |n, &v| {
                            n.wrapping_add(u32::from(((v * below) as f32).to_bits() != ((v * above) as f32).to_bits()))
                        })
                    },
                );
                fallbacks.fetch_add(u64::from(undecided), Ordering::Relaxed);
            }
        },
    );
    let worst = f64::from_bits(worst.into_inner());
    eprintln!(
        "{:?}: all 2^32 inputs in {:.1} s on {} threads; {} wrong; {} inputs sent to the scalar function{}",
        f,
        start.elapsed().as_secs_f64(),
        rayon::current_num_threads(),
        wrong.load(Ordering::Relaxed),
        fallbacks.into_inner(),
        if check_value {
            format!(
                "; largest relative error of value {worst:.3e} (2^{:.2}) on every {}th input",
                worst.log2(),
                VALUE_STRIDE
            )
        } else {
            String::new()
        }
    );
    assert_eq!(wrong.into_inner(), 0, "{:?}: wrong results", f);
    assert!(worst <= if f == MathFn::Tanh { 0.0 } else { VALUE_REL_ERROR }, "{f:?}: value off by {worst:e}");
}

macro_rules! exhaustive_tests {
    ($($(#[$gate:meta])? $name:ident: $f:ident),* $(,)?) => {$(
        $(#[$gate])?
        #[test]
        #[ignore = "exhaustive tier: run with --include-ignored"]
        fn $name() {
            exhaustive(MathFn::$f);
        }
    )*};
}

// Rcp, Sqrt, Rsqrt, Ex2, Lg2 and Tanh run in the exhaustive tier. The all-input checks of Sin
// and Cos (polynomials up to 2^24, CORE-MATH beyond) and of SinTurns and CosTurns, which take
// their value from CORE-MATH's f64 function and fall back to its f32 function, evaluate
// CORE-MATH's f32 and f64 functions on every input (minutes each on two cores); they are
// compiled with `--features exhaustive-references`.
exhaustive_tests!(
    exhaustive_rcp: Rcp,
    exhaustive_sqrt: Sqrt,
    exhaustive_rsqrt: Rsqrt,
    exhaustive_ex2: Ex2,
    exhaustive_lg2: Lg2,
    exhaustive_tanh: Tanh,
    #[cfg(feature = "exhaustive-references")] exhaustive_sin: Sin,
    #[cfg(feature = "exhaustive-references")] exhaustive_cos: Cos,
    #[cfg(feature = "exhaustive-references")] exhaustive_sin_turns: SinTurns,
    #[cfg(feature = "exhaustive-references")] exhaustive_cos_turns: CosTurns,
);
