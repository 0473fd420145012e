//! MUFU.LG2: the base-2 logarithm of an f32.

use super::{interpolate, pack_truncated, sq, tables, F32, NAN};
use crate::format::Class;

/// MUFU.LG2 of the f32 `x` (bit pattern in, bit pattern out).
///
/// Datapath (Tesla SFU, envytools `sfu_lg2`) \[RE, docs/semantics.md §2.2\]: with idx = `frac[22:17]` and
/// xl = `frac[16:0]`, `r = ((c0 << 12) + c1·xl + (c2·sq(xl) << 1) + 0x3345) >> 2` is log2 of the
/// significand as a 36-bit fraction (exactly 0 for x = 1.0). The exponent joins as
/// `r += (e_in − 127) << 36`; a negative sum becomes sign 1 and its ones' complement `!r`.
/// The sum is normalised to bit 42 (exponent 2^6) and **truncated** to 24 bits.
///
/// Specials \[DOC opMUFU\]: ±0 and ±subnormal → −Inf, negative (−Inf included) → NaN,
/// +Inf → +Inf, NaN → 0x7FFFFFFF; LG2(1) = +0.
///
/// Evidence: the Tesla model reproduces the documented accuracy (SPA 2^-22.6 on the
/// mantissa, PTX 2^-22 absolute in (0.5, 2)) but is not verified bit-for-bit on modern
/// hardware \[INF, docs/semantics.md §2.3\].
#[inline(always)]
pub fn lg2(x: u32) -> u32 {
    match F32.classify(x.into()) {
        Class::Nan => NAN,
        Class::Zero | Class::Subnormal => F32.inf(true) as u32,
        _ if x >> 31 != 0 => NAN,
        Class::Inf => x,
        Class::Normal => {
            let frac = x & 0x7F_FFFF;
            let r = if x == F32.one() as u32 {
                0
            } else {
                let row = tables().lg2[(frac >> 17) as usize];
                let xl = frac & 0x1_FFFF;
                (interpolate(row, 12, xl, sq(xl), 1) + 0x3345) >> 2
            };
            debug_assert!((0..1 << 36).contains(&r));
            let r = r + ((i64::from(x >> 23) - 127) << 36);
            let (neg, mag) = if r < 0 { (true, !r) } else { (false, r) };
            pack_truncated(neg, 127 + 6, mag as u64, 42)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PTX lg2: −normal → NaN (the page's special values: mufu/mod.rs).
    #[test]
    fn negative_inputs_and_exact_results() {
        for neg in [0xBF80_0000, 0x8080_0000, 0xFF7F_FFFF] {
            assert_eq!(lg2(neg), NAN);
        }
        assert_eq!(lg2(0x3F80_0000), 0); // LG2(1) = +0 exactly
    }

    #[test]
    fn powers_of_two() {
        // ZLUDA lg2(512) = 9 [HW]; every 2^k with k ≥ 0 gives k exactly.
        assert_eq!(lg2(0x4400_0000), 0x4110_0000);
        for k in 0..=127i32 {
            assert_eq!(lg2(((127 + k) as u32) << 23), (k as f32).to_bits(), "lg2(2^{k})");
        }
        // For k < 0 the table's value at the left end of row 0 is not 0 (c0 = 4, rounding
        // constant 0x3345), so the ones' complement of k + tiny is truncated to just below |k|:
        // lg2(0.5) = -(1 - 2^-23). Tesla hwtest covers [0.25, 4) (test_sfu_lg2_one) [RE].
        assert_eq!(lg2(0x3F00_0000), 0xBF7F_FFFE);
        for k in -126..0i32 {
            let got = f32::from_bits(lg2(((127 + k) as u32) << 23));
            assert!(
                got > k as f32 && f64::from(got - k as f32) < 2.0f64.powi(-21) * f64::from(-k),
                "lg2(2^{k}) = {got}"
            );
        }
    }

    /// docs/semantics.md §2.3: absolute error 2^-22.58 on [1,2) (SPA: ≤ 2^-22.6 on the mantissa) and
    /// 2^-22.15 on [0.5,1) (PTX: 2^-22 absolute in (0.5,2)), exhaustively.
    #[test]
    fn accuracy_near_one_exhaustive() {
        let max_abs = |range: std::ops::Range<u32>| {
            range
                .map(|x| {
                    let exact = f64::from(f32::from_bits(x)).log2();
                    (f64::from(f32::from_bits(lg2(x))) - exact).abs()
                })
                .fold(0f64, f64::max)
                .log2()
        };
        let upper = max_abs(0x3F80_0000..0x4000_0000);
        let lower = max_abs(0x3F00_0000..0x3F80_0000);
        assert!((-22.65..=-22.55).contains(&upper), "[1,2): 2^{upper}");
        assert!((-22.2..=-22.1).contains(&lower), "[0.5,1): 2^{lower}");
    }

    /// Outside (0.5, 2) the PTX bound is relative: 2^-22 (docs/semantics.md §2.3: 2^-22.08, sampled).
    #[test]
    fn relative_accuracy_elsewhere_sampled() {
        let mut worst = 0f64;
        for x in (0x0080_0000u32..0x7F80_0000).step_by(97) {
            if (0x3F00_0000..0x4000_0000).contains(&x) {
                continue;
            }
            let exact = f64::from(f32::from_bits(x)).log2();
            let got = f64::from(f32::from_bits(lg2(x)));
            worst = worst.max(((got - exact) / exact).abs());
        }
        assert!(worst.log2() <= -22.0, "rel 2^{}", worst.log2());
    }
}
