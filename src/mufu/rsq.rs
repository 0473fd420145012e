//! MUFU.RSQ: the reciprocal square root of an f32.

use super::{interpolate, pack, sq, tables, F32, NAN};
use crate::format::Class;

/// The rounding constant the datapath adds to its accumulator before it keeps the 24-bit
/// significand (`>> 16`); MUFU.RSQ64H adds the same and keeps 21 bits.
pub(crate) const ROUND: i64 = 0x7FFF;

/// MUFU.RSQ of the f32 `x` (bit pattern in, bit pattern out).
///
/// Datapath (Tesla SFU, envytools `sfu_rsqrt`) \[RE, docs/semantics.md §2.2\]: with e = e_in − 127,
/// f = frac | (e & 1) << 23 (the exponent parity selects the [2,4) half of the table) and
/// e >>= 1 (floor), idx = f >> 17 and xl = f & 0x1FFFF;
/// `q = ((c0 << 14) + c1·xl + (c2·sq(xl) << 2) + 0x7FFF) >> 16` is the significand and
/// `126 − e` the biased exponent. An even power of two (f = 0) is exact: 2^(127 − e).
///
/// Specials \[DOC opMUFU\]: ±0 and ±subnormal → ±Inf (RSQ(−0) = −Inf), negative → NaN,
/// −Inf → NaN, +Inf → +0, NaN → 0x7FFFFFFF; RSQ(1) = 1, RSQ(4) = 0.5.
///
/// Evidence: reproduces the published exhaustive hardware histograms of MUFU.RSQ over [1,2)
/// and [2,4) on sm_80/sm_89/sm_90 count for count \[RE+measured, docs/semantics.md §2.3a\].
#[inline(always)]
pub fn rsq(x: u32) -> u32 {
    let neg = x >> 31 != 0;
    match F32.classify(x.into()) {
        Class::Nan => NAN,
        Class::Zero | Class::Subnormal => F32.inf(neg) as u32,
        _ if neg => NAN,
        Class::Inf => 0,
        Class::Normal => {
            let e = (x >> 23 & 0xFF) as i32 - 127;
            let f = (x & 0x7F_FFFF) | ((e & 1) as u32) << 23;
            let half = e >> 1;
            if f == 0 {
                return pack(false, 127 - half, 1 << 23);
            }
            let row = tables().rsqrt[(f >> 17) as usize];
            let xl = f & 0x1_FFFF;
            let q = (interpolate(row, 14, xl, sq(xl), 2) + ROUND) >> 16;
            pack(false, 126 - half, q as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PTX rsqrt: −normal → NaN; opMUFU: exactly 1 for 1 (the page's special values:
    /// mufu/mod.rs).
    #[test]
    fn negative_inputs_and_exact_results() {
        for neg in [0xBF80_0000, 0x8080_0000, 0xFF7F_FFFF, 0xC080_0000] {
            assert_eq!(rsq(neg), NAN);
        }
        assert_eq!(rsq(0x3F80_0000), 0x3F80_0000);
        assert_eq!(rsq(0x4080_0000), 0x3F00_0000); // RSQ(4) = 0.5
    }

    #[test]
    fn even_powers_of_two_are_exact() {
        for k in -63..=63i32 {
            let x = ((127 + 2 * k) as u32) << 23;
            assert_eq!(rsq(x), ((127 - k) as u32) << 23, "rsq(2^{})", 2 * k);
        }
        // 2^-126 = FLT_MIN → 2^63; largest normal → about 2^-64, still normal.
        assert_eq!(rsq(0x0080_0000), 0x5F00_0000);
        assert!(rsq(0x7F7F_FFFF) >= 0x0080_0000);
    }

    /// docs/semantics.md §2.3: on [1,4) the model is within 2 ulp of the correctly rounded value, with
    /// max absolute error 2^-23.40 (SPA: ≤ 2^-22.4 in significand units) and max relative
    /// error 2^-22.935 (PTX: 2^-22.9); the result depends only on the fraction and the
    /// exponent parity.
    #[test]
    fn accuracy_on_one_to_four_exhaustive() {
        let (mut abs_max, mut rel_max) = (0f64, 0f64);
        for x in 0x3F80_0000u32..0x4080_0000 {
            let r = rsq(x);
            let exact = 1.0 / f64::from(f32::from_bits(x)).sqrt();
            let err = (f64::from(f32::from_bits(r)) - exact).abs();
            abs_max = abs_max.max(err);
            rel_max = rel_max.max(err / exact);
            assert!(r.abs_diff((exact as f32).to_bits()) <= 2, "rsq({x:#x}) = {r:#x}");
            assert_eq!(rsq(x + (100 << 23)), r - (50 << 23));
            assert_eq!(rsq(x - (100 << 23)), r + (50 << 23));
        }
        assert!(abs_max.log2() <= -23.35 && abs_max.log2() > -23.5, "abs {}", abs_max.log2());
        assert!(rel_max.log2() <= -22.9, "rel {}", rel_max.log2());
    }
}
