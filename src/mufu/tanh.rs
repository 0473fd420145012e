//! MUFU.TANH (sm_75+) and its `.F16` / `.BF16` forms (sm_75+ / sm_90+): the hyperbolic
//! tangent.
//!
//! **Not hardware-verified.** No public model of MUFU.TANH exists (SEMANTICS §2.3, §7 item 2):
//! this is a model \[UNK\] built to the documented behaviour.
//!
//! Design (one core for the three formats): tanh is odd, so the unit works on |x| and copies
//! the sign, which makes every result exactly sign-symmetric. |x| falls in one of three
//! ranges:
//! - |x| < 2^-5, subnormals included: the input is passed through unchanged (PTX 9.7.3.22:
//!   "subnormal inputs get passed through … since tanh(x) for small values of x is
//!   approximately the same as x"). The relative error x²/3 of this range, at most
//!   2^-10/3 = 2^-11.58 just below 2^-5, is what bounds the whole function, and is consistent
//!   with the documented 2^-11.
//! - 2^-5 ≤ |x| < 8: a 64-row quadratic-interpolation table in the style of the Tesla SFU
//!   (SEMANTICS §2.2): a 6-bit index made of the three low bits of the exponent (binades
//!   2^-5 … 2^2) and the top three fraction bits, the next 17 fraction bits as the
//!   interpolator operand xh (the last 3 are dropped), coefficients [18, 13, 10] bits wide,
//!   the Tesla truncated squarer, and the accumulator
//!   `acc = (c0 << 15) + c1·xh + c2·sq(xh)` ≈ tanh(|x|)·2^(32 − min(k, 0)) for |x| in
//!   [2^k, 2^(k+1)); for k ≥ 0 it is clamped to 1.0 (2^32), so no result exceeds 1.
//! - |x| ≥ 8 (and ±Inf): ±1.0 (1 − tanh 8 = 2^-22.1, far below the table's error).
//!
//! The accumulator is rounded to nearest even once, into the significand of the output
//! format: 24 bits for MUFU.TANH, 11 for `.F16`, 8 for `.BF16` (one datapath, a
//! format-dependent packing). No result of the table range is subnormal, so the input
//! pass-through is the only way a subnormal comes out, for every format.
//!
//! The table is designed at first use by `super::sqrt::design_row` (deterministic; no data
//! file): each segment's target is tanh at the centre of the 8 inputs that share an xh.
//! Its error is at most 2^-15.5 relative (binade [2, 4); 2^-17.5 below 1), well inside every
//! documented bound; the largest errors of the model are the pass-through's (f32) and the
//! final rounding's (f16/bf16).

use std::sync::LazyLock;

use super::sqrt::{check_widths, design_row};
use super::{interpolate, sq, Row};
use crate::format::Format;
use crate::ops::cvt::cvt;
use crate::round::{round_pack, Rounding};

/// `acc = (c0 << S0) + c1·xh + (c2·sq(xh) << S2)`, in units of 2^-32 of the binade scale.
const S0: u32 = 15;
const S2: u32 = 0;
const FRAC: i32 = 32;
/// Coefficient magnitudes in bits (c0, c1, c2).
const WIDTHS: [u32; 3] = [18, 13, 10];
/// Below 2^-5 (biased exponent 122) the input passes through; from 8 (biased 130) on the
/// result is ±1.
const PASS_BELOW: u32 = 122 << 23;
const SATURATE_FROM: u32 = 130 << 23;

/// The 64-row TANH table, designed at first use (no data file).
static TABLE: LazyLock<[Row; 64]> = LazyLock::new(|| std::array::from_fn(design));

/// Row `r = (k + 5) << 3 | j` of the TANH table: it covers |x| ∈ 2^k·[1 + j/8, 1 + (j+1)/8),
/// k = −5 … 2; target tanh(|x|) · 2^(32 − min(k, 0)).
fn design(r: usize) -> Row {
    let k = (r >> 3) as i32 - 5;
    let j = (r & 7) as f64;
    let scale = 2f64.powi(FRAC - k.min(0));
    // The datapath sees xh = frac[19:3]; aim at the centre of the 8 inputs sharing it.
    let row = design_row(S0, S2, |xh| {
        let t = (xh + 7.0 / 16.0) / 131072.0;
        tanh_f64(2f64.powi(k) * (1.0 + (j + t) / 8.0)) * scale
    });
    check_widths(row, WIDTHS, "tanh");
    row
}

/// tanh on [2^-5, 8] in f64 from IEEE-exact operations only (no libm, whose last bits differ
/// between platforms), so the designed table is the same everywhere:
/// `tanh x = (1 − u)/(1 + u)` with `u = e^(−2x) = (e^(−2x/1024))^1024`, the inner exponential
/// a degree-12 Taylor polynomial. Relative error below 2^-36 (tested against CORE-MATH), far
/// below the accumulator's 2^-32.
fn tanh_f64(x: f64) -> f64 {
    let z = -2.0 * x / 1024.0;
    let mut u = 1.0;
    for n in (1..=12).rev() {
        u = 1.0 + u * z / f64::from(n);
    }
    for _ in 0..10 {
        u *= u;
    }
    (1.0 - u) / (1.0 + u)
}

/// The TANH table (designed on first use).
pub fn table() -> &'static [Row; 64] {
    &TABLE
}

/// MUFU.TANH of the f32 `x` (bit pattern in, bit pattern out): `tanh.approx.f32`.
///
/// **Model, not hardware-verified** \[UNK; SEMANTICS §2.3, §7 item 2\]; design in the module
/// doc. No input or output is flushed \[DOC PTX 9.7.3.22, SEMANTICS §5\].
///
/// Accuracy (exhaustive over all 2^32 inputs): max relative error 2^-11.58, at the inputs just
/// below 2^-5 (pass-through); 2^-15.5 over the table range. Bound 2^-11 (PTX 9.7.3.22).
///
/// Specials \[DOC PTX 9.7.3.22\]: ±0 → ±0, ±subnormal → itself, ±Inf → ±1.0, NaN →
/// 0x7FFFFFFF; |x| ≥ 8 → ±1.0.
pub fn tanh(x: u32) -> u32 {
    tanh_core(Format::F32, x, u64::from(x)) as u32
}

/// MUFU.TANH.F16 (`tanh.approx.f16`): the core on the exactly widened f16 `x`, rounded to
/// nearest even to 11 bits.
///
/// **Model, not hardware-verified** \[UNK; SEMANTICS §2.3, §7 item 2\]; design in the module
/// doc. Subnormals are supported (PTX 9.7.4.9): they pass through.
///
/// Accuracy (exhaustive over all 2^16 inputs): max absolute error 2^-11.9 (bound 2^-10.987,
/// PTX 9.7.4.9).
///
/// Specials \[DOC PTX 9.7.4.9\]: ±0 → ±0, ±Inf → ±1.0, NaN → 0x7FFF.
pub fn tanh_f16(x: u16) -> u16 {
    let wide = cvt(Format::F16, Format::F32, u64::from(x), Rounding::Rn, false) as u32;
    tanh_core(Format::F16, wide, u64::from(x)) as u16
}

/// MUFU.TANH.BF16 (`tanh.approx.bf16`): the core on the widened bf16 `x` (its bits are the top
/// half of an f32), rounded to nearest even to 8 bits.
///
/// **Model, not hardware-verified** \[UNK; SEMANTICS §2.3, §7 item 2\]; design in the module
/// doc. Subnormals are supported (PTX 9.7.4.9): they pass through.
///
/// Accuracy (exhaustive over all 2^16 inputs): max absolute error 2^-9.0 (bound 2^-8,
/// PTX 9.7.4.9).
///
/// Specials \[DOC PTX 9.7.4.9\]: ±0 → ±0, ±Inf → ±1.0, NaN → 0x7FFF.
pub fn tanh_bf16(x: u16) -> u16 {
    tanh_core(Format::BF16, u32::from(x) << 16, u64::from(x)) as u16
}

/// The shared datapath: `w` is the operand as f32 bits, `orig` the same value in `fmt` (what
/// the pass-through returns); the result is in `fmt`.
fn tanh_core(fmt: Format, w: u32, orig: u64) -> u64 {
    let neg = w >> 31 != 0;
    let a = w & 0x7FFF_FFFF;
    if a > 0x7F80_0000 {
        return fmt.canonical_nan();
    }
    if a < PASS_BELOW {
        return orig;
    }
    if a >= SATURATE_FROM {
        return fmt.one() | fmt.zero(neg);
    }
    let k = (a >> 23) as i32 - 127;
    let frac = a & 0x7F_FFFF;
    let row = table()[((k + 5) << 3 | (frac >> 20) as i32) as usize];
    let xh = (frac & 0xF_FFFF) >> 3;
    let mut acc = interpolate(row, S0, xh, sq(xh), S2);
    let scale = k.min(0);
    if scale == 0 {
        acc = acc.min(1 << FRAC);
    }
    debug_assert!(acc > 0);
    round_pack(fmt, neg, scale - FRAC, acc as u128, Rounding::Rn, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values_of_ptx_f32() {
        // PTX 9.7.3.22: -Inf → -1.0, -0 → -0, +0 → +0, +Inf → 1.0, NaN → NaN; subnormals
        // pass through.
        assert_eq!(tanh(0xFF80_0000), 0xBF80_0000);
        assert_eq!(tanh(0x8000_0000), 0x8000_0000);
        assert_eq!(tanh(0), 0);
        assert_eq!(tanh(0x7F80_0000), 0x3F80_0000);
        for nan in [0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0x7FFF_FFFF] {
            assert_eq!(tanh(nan), 0x7FFF_FFFF);
        }
        for sub in [0x0000_0001, 0x0040_0000, 0x007F_FFFF, 0x8000_0001, 0x807F_FFFF] {
            assert_eq!(tanh(sub), sub, "subnormal {sub:#x} passes through");
        }
        // Saturation for large |x|.
        for big in [8.0f32, 9.0, 100.0, 1e30, f32::MAX] {
            assert_eq!(tanh(big.to_bits()), 0x3F80_0000, "tanh({big})");
            assert_eq!(tanh((-big).to_bits()), 0xBF80_0000, "tanh(-{big})");
        }
    }

    #[test]
    fn special_values_of_ptx_f16_bf16() {
        // PTX 9.7.4.9: -Inf → -1.0, -0 → -0, +0 → +0, +Inf → 1.0, NaN → NaN; subnormals are
        // supported.
        assert_eq!(tanh_f16(0xFC00), 0xBC00);
        assert_eq!(tanh_f16(0x8000), 0x8000);
        assert_eq!(tanh_f16(0x0000), 0x0000);
        assert_eq!(tanh_f16(0x7C00), 0x3C00);
        for nan in [0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x7FFF] {
            assert_eq!(tanh_f16(nan), 0x7FFF);
        }
        for sub in [0x0001, 0x03FF, 0x8001, 0x83FF] {
            assert_eq!(tanh_f16(sub), sub);
        }
        assert_eq!(tanh_f16(0x7BFF), 0x3C00); // 65504
        assert_eq!(tanh_bf16(0xFF80), 0xBF80);
        assert_eq!(tanh_bf16(0x8000), 0x8000);
        assert_eq!(tanh_bf16(0x0000), 0x0000);
        assert_eq!(tanh_bf16(0x7F80), 0x3F80);
        for nan in [0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, 0x7FFF] {
            assert_eq!(tanh_bf16(nan), 0x7FFF);
        }
        for sub in [0x0001, 0x007F, 0x8001, 0x807F] {
            assert_eq!(tanh_bf16(sub), sub);
        }
        assert_eq!(tanh_bf16(0x7F7F), 0x3F80);
    }

    #[test]
    fn sign_symmetric_and_never_beyond_one_near_the_table() {
        for a in (PASS_BELOW - 4096..SATURATE_FROM + 4096).step_by(97) {
            let r = tanh(a);
            assert_eq!(tanh(a | 0x8000_0000), r | 0x8000_0000, "tanh(-{a:#x})");
            assert!(r <= 0x3F80_0000, "tanh({a:#x}) = {r:#x} > 1");
        }
    }

    #[test]
    fn table_is_deterministic_and_fits_its_widths() {
        let t = table();
        for row in t {
            check_widths(*row, WIDTHS, "tanh");
            assert!(row[1] >= 0, "tanh does not fall: {row:?}");
        }
        // Designing again gives the same bits.
        for r in [0, 7, 31, 40, 63] {
            assert_eq!(design(r), t[r]);
        }
    }

    #[test]
    fn table_fingerprint_is_pinned() {
        let t = table();
        assert_eq!(t[0], [131_029, 4_092, -2]);
        assert_eq!(t[63], [131_072, 0, 0]);
        assert_eq!(crate::mufu::sqrt::tests::fingerprint(t), 0x36D7_CAB7_04ED_F0C6);
    }

    #[test]
    fn design_reference_tanh_is_accurate() {
        let mut worst = 0f64;
        for i in 0..=100_000 {
            let x = 2f64.powi(-5) + (8.0 - 2f64.powi(-5)) * f64::from(i) / 100_000.0;
            let exact = core_math::tanh(x);
            worst = worst.max(((tanh_f64(x) - exact) / exact).abs());
        }
        assert!(worst < 2f64.powi(-36), "relative error 2^{}", worst.log2());
    }
}
