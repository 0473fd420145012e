//! MUFU.RCP: the reciprocal of an f32.

use super::{interpolate, pack, sq, tables, F32, NAN};
use crate::format::Class;

/// The rounding constant the datapath adds to its accumulator before it keeps the 24-bit
/// significand (`>> 15`); MUFU.RCP64H adds the same and keeps 21 bits.
pub(crate) const ROUND: i64 = 0x47E7;

/// MUFU.RCP of the f32 `x` (bit pattern in, bit pattern out).
///
/// Datapath (Tesla SFU, envytools `sfu_rcp`) \[RE, docs/semantics.md §2.2\]: with the fraction split as
/// idx = `frac[22:16]` and xl = `frac[15:0]`,
/// `q = ((c0 << 13) + c1·xl + c2·sq(xl << 1) + 0x47E7) >> 15` is the significand (implicit bit
/// included; 2^24 renormalises) and the biased exponent is `253 − e_in`. Results below 2^-126
/// flush to a signed zero, so 1/x is 0 for |x| > 2^126.
///
/// Specials \[DOC opMUFU\]: ±0 and ±subnormal → ±Inf, ±Inf → ±0, NaN → 0x7FFFFFFF; RCP(1) = 1.
///
/// Evidence: reproduces the published exhaustive hardware histogram of MUFU.RCP over [1,2) on
/// sm_80/sm_89/sm_90 count for count \[RE+measured, docs/semantics.md §2.3a\].
#[inline(always)]
pub fn rcp(x: u32) -> u32 {
    let neg = x >> 31 != 0;
    match F32.classify(x.into()) {
        Class::Nan => NAN,
        Class::Inf => F32.zero(neg) as u32,
        Class::Zero | Class::Subnormal => F32.inf(neg) as u32,
        Class::Normal => {
            let e = (x >> 23 & 0xFF) as i32;
            let frac = x & 0x7F_FFFF;
            let row = tables().rcp[(frac >> 16) as usize];
            let xl = frac & 0xFFFF;
            let q = (interpolate(row, 13, xl, sq(xl << 1), 0) + ROUND) >> 15;
            pack(neg, 253 - e, q as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// opMUFU: "exactly 1 for 1" (the page's other special values: mufu/mod.rs).
    #[test]
    fn one_is_exact() {
        assert_eq!(rcp(0x3F80_0000), 0x3F80_0000);
        assert_eq!(rcp(0xBF80_0000), 0xBF80_0000);
    }

    #[test]
    fn powers_of_two_are_exact_and_flush_beyond_2_pow_126() {
        // Also the hardware claim "rcp.approx.ftz flushes 1/x to 0 for |x| > 2^126"
        // (groundtruth div_full_vs_rcp) and ZLUDA's rcp(2) = 0.5 [HW].
        for e in 1..=253u32 {
            let x = e << 23;
            assert_eq!(rcp(x), (254 - e) << 23, "rcp(2^{})", e as i32 - 127);
        }
        assert_eq!(rcp(0x4000_0000), 0x3F00_0000);
        assert_eq!(rcp(0x7E80_0000), 0x0080_0000); // 1/2^126 = FLT_MIN
        assert_eq!(rcp(0x7E80_0001), 0); // below FLT_MIN: flushed
        assert_eq!(rcp(0xFF7F_FFFF), 0x8000_0000);
        assert_eq!(rcp(0x0080_0000), 0x7E80_0000); // 1/FLT_MIN = 2^126
        assert_eq!(rcp(0x0080_0001), 0x7E7F_FFFE);
    }

    /// docs/semantics.md §2.3: on [1,2) the model is within 1 ulp of the correctly rounded reciprocal,
    /// with max absolute error 2^-24.04 (SPA: ≤ 2^-23.0 in significand units) and max relative
    /// error 2^-23.28; and the result depends only on the fraction (exponent independence).
    #[test]
    fn accuracy_on_one_to_two_exhaustive() {
        let (mut abs_max, mut rel_max) = (0f64, 0f64);
        for x in 0x3F80_0000u32..=0x3FFF_FFFF {
            let r = rcp(x);
            let xf = f64::from(f32::from_bits(x));
            let exact = 1.0 / xf;
            let err = (f64::from(f32::from_bits(r)) - exact).abs();
            abs_max = abs_max.max(err);
            rel_max = rel_max.max(err / exact);
            let cr = (1.0 / xf) as f32;
            assert!(r.abs_diff(cr.to_bits()) <= 1, "rcp({x:#x}) = {r:#x}, CR {cr}");
            // Every other binade holding a normal result is the same table scaled.
            let r2 = rcp(x + (100 << 23));
            assert_eq!(r2, r - (100 << 23));
            assert_eq!(rcp(x | 0x8000_0000), r | 0x8000_0000);
        }
        assert!(abs_max.log2() <= -24.0 && abs_max.log2() > -24.1, "abs {}", abs_max.log2());
        assert!(rel_max.log2() <= -23.25, "rel {}", rel_max.log2());
    }
}
