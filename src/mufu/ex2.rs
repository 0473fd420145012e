//! MUFU.EX2: 2^x.

use super::rro::{rro_ex2, INF_CODE, NAN_CODE};
use super::{interpolate, pack, sq, tables, F32, NAN};

/// The Tesla EX2 datapath on the 1.7.23 sign-magnitude fixed-point word `w` that RRO.EX2 /
/// PREEX2 produce ([`rro_ex2`]); this is MUFU.EX2 on sm_5x/sm_6x, where ptxas emits RRO.EX2
/// first (docs/semantics.md §1.2).
///
/// Datapath (envytools `sfu_ex2`) \[RE, docs/semantics.md §2.2\]: the integer part i = `w[29:23]` and
/// the fraction f = `w[22:0]`. A negative word becomes i' = −i − 1 with f = !f (23 bits), or
/// i' = −i when f = 0. With idx = f >> 17 and xl = f & 0x1FFFF,
/// `q = ((c0 << 13) + c1·xl + c2·sq(xl) + 0x77E2) >> 15` is the significand and `i' + 127`
/// the biased exponent; the result is positive and flushes to +0 below 2^-126.
///
/// Specials \[RE; DOC opMUFU\]: the Inf code (bit 30 and bit 23 set) gives +Inf if positive and
/// +0 if negative; any other special word (the NaN code) gives 0x7FFFFFFF.
///
/// Evidence: reproduces the documented accuracy (SPA 2^-22.5 on the fraction, PTX 2 ulp) but
/// is not verified bit-for-bit on modern hardware \[INF, docs/semantics.md §2.3\].
#[inline(always)]
pub fn ex2_fixed(w: u32) -> u32 {
    let neg = w >> 31 != 0;
    if w & NAN_CODE != 0 {
        return match (w & INF_CODE == INF_CODE, neg) {
            (false, _) => NAN,
            (true, false) => F32.inf(false) as u32,
            (true, true) => 0,
        };
    }
    let i = (w >> 23 & 0x7F) as i32;
    let mut f = w & 0x7F_FFFF;
    let e = match (neg, f) {
        (false, _) => i,
        (true, 0) => -i,
        (true, _) => {
            f = !f & 0x7F_FFFF;
            -i - 1
        }
    };
    let row = tables().ex2[(f >> 17) as usize];
    let xl = f & 0x1_FFFF;
    let q = (interpolate(row, 13, xl, sq(xl), 0) + 0x77E2) >> 15;
    pack(false, e + 127, q as u32)
}

/// MUFU.EX2 on sm_70+, which takes the f32 `x` itself (ptxas emits no RRO, docs/semantics.md §1.1):
/// modelled as `ex2_fixed(rro_ex2(x))`, the Tesla PREEX2 conversion (FTZ, truncation,
/// |x| ≥ 128 → Inf code) folded into the unit.
///
/// Evidence: this is the proposed sm_70+ model of docs/semantics.md §2.3, a hypothesis \[INF\]: with it
/// the Tesla tables meet the PTX bound "max 2 ulp from the correctly rounded result over the
/// full range" and the published hardware observation that for |x| ≥ 1 the error depends only
/// on the fraction bits (truncating conversion, docs/semantics.md §2.3a); it is not verified
/// bit-for-bit on hardware.
///
/// Specials \[DOC opMUFU\]: ±0 and ±subnormal → +1, −Inf and underflow → +0, +Inf and overflow
/// → +Inf, NaN → 0x7FFFFFFF.
#[inline(always)]
pub fn ex2(x: u32) -> u32 {
    ex2_fixed(rro_ex2(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: u32 = 0x7F80_0000;

    fn f(bits: u32) -> f64 {
        f64::from(f32::from_bits(bits))
    }

    /// opMUFU: "EX2(-Inf) or underflow gives +0.0", "EX2(+Inf) or overflow gives +Inf" (the
    /// page's other special values: mufu/mod.rs).
    #[test]
    fn underflow_overflow_and_the_fixed_point_specials() {
        // Underflow: below 2^-126 the result is flushed to +0; |x| ≥ 128 is the Inf code.
        assert_eq!(ex2((-126.0f32).to_bits()), 0x0080_0000);
        assert_eq!(ex2((-126.5f32).to_bits()), 0);
        assert_eq!(ex2((-127.0f32).to_bits()), 0);
        assert_eq!(ex2((-128.0f32).to_bits()), 0);
        assert_eq!(ex2((-1e30f32).to_bits()), 0);
        assert_eq!(ex2((128.0f32).to_bits()), INF);
        assert_eq!(ex2((1e30f32).to_bits()), INF);
        assert_eq!(ex2(0x7F7F_FFFF), INF);
        assert!(ex2((127.99f32).to_bits()) < INF);
        // The fixed-point specials directly (sm_5x MUFU.EX2 after RRO).
        assert_eq!(ex2_fixed(INF_CODE), INF);
        assert_eq!(ex2_fixed(0x8000_0000 | INF_CODE), 0);
        assert_eq!(ex2_fixed(NAN_CODE), NAN);
        assert_eq!(ex2_fixed(0x8000_0000 | NAN_CODE), NAN);
    }

    #[test]
    fn integers_are_exact() {
        // ZLUDA ex2(10) = 1024 [HW]; EX2(0) = 1 (SPA).
        assert_eq!(ex2(0x4120_0000), 0x4480_0000);
        for n in -126..=127i32 {
            assert_eq!(ex2((n as f32).to_bits()), ((127 + n) as u32) << 23, "ex2({n})");
        }
    }

    /// docs/semantics.md §2.3: on the fraction domain (integer part 0) the absolute error is 2^-22.53
    /// (SPA: ≤ 2^-22.5), and the result is within 2 ulp of the correctly rounded 2^x (PTX),
    /// for positive and negative words alike, exhaustively. Other integer parts scale the same
    /// significand exactly.
    #[test]
    fn fraction_domain_exhaustive() {
        let mut abs_max = 0f64;
        for frac in 0..1u32 << 23 {
            for sign in [0, 0x8000_0000] {
                let w = sign | frac;
                let t = f64::from(frac) / f64::from(1u32 << 23);
                let exact = if sign == 0 { t.exp2() } else { (-t).exp2() };
                let r = ex2_fixed(w);
                if sign == 0 {
                    abs_max = abs_max.max((f(r) - exact).abs());
                }
                assert!(r.abs_diff((exact as f32).to_bits()) <= 2, "ex2_fixed({w:#x}) = {r:#x}");
                assert_eq!(ex2_fixed(w + (5 << 23)), if sign == 0 { r + (5 << 23) } else { r - (5 << 23) });
            }
        }
        assert!((-22.6..=-22.5).contains(&abs_max.log2()), "abs 2^{}", abs_max.log2());
    }

    /// The float path over the whole normal-result range (−126 ≤ x < 128), sampled: never
    /// more than 2 ulp from the correctly rounded value (PTX ex2.approx.f32; docs/semantics.md §2.3).
    #[test]
    fn float_range_within_two_ulp_sampled() {
        let mut hist = [0u64; 3];
        let mut check = |x: u32| {
            let exact = f(x).exp2();
            if !(2f64.powi(-126)..2f64.powi(128)).contains(&exact) {
                return;
            }
            let d = ex2(x).abs_diff((exact as f32).to_bits());
            assert!(d <= 2, "ex2({x:#x}) = {:#x}, CR {:#x}", ex2(x), (exact as f32).to_bits());
            hist[d as usize] += 1;
        };
        for x in (0..0x4300_0000u32).step_by(61) {
            check(x);
            check(x | 0x8000_0000);
        }
        let n: u64 = hist.iter().sum();
        assert!(hist[0] as f64 / n as f64 > 0.85, "{hist:?}");
    }
}
