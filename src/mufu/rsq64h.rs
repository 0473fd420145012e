//! MUFU.RSQ64H: the reciprocal square root of the high word (1.11.20) of an f64.
//!
//! **Hardware-verified on an H200** (sm_90): the f32 RSQ datapath on the top 20 fraction bits,
//! its result truncated to the 20-bit fraction of the high word, reproduces every one of
//! 1,790,804 distinct high words in [1, 4) that `rsqrt.approx.ftz.f64` was captured on, and the
//! 2^20 edge-biased inputs over all f64 values (data/hardware/h200-sm90/).

use super::rcp64h::pack_hi;
use super::{interpolate, sq, tables, NAN};

/// Rounding constant: the f32 RSQ datapath's (0x7FFF, for its 24-bit result `acc >> 16`); the
/// high word keeps `acc >> 19`, the f32 significand with its last 3 bits dropped.
const ROUND: i64 = super::rsq::ROUND;

/// MUFU.RSQ64H of `hi`, the high 32 bits of an f64 (sign, 11-bit exponent, top 20 fraction
/// bits); returns the high word of the result. ptxas sets the low word to 0
/// (`rsqrt.approx.ftz.f64`) or uses the word as the seed of a DFMA refinement
/// (`rsqrt.approx.f64`), docs/semantics.md §1.3.
///
/// Design \[HW: H200 capture, module documentation\]: as for [`super::rcp64h`], **the f32 RSQ
/// unit** ([`super::rsq::rsq`]: idx = exponent parity and the top 6 fraction bits, xl = the
/// next 17 with the low 3 zero, the same rounding constant) computes the 24-bit significand;
/// the high word takes its top 21 bits (`(acc + 0x7FFF) >> 19`), with the f64 exponent
/// arithmetic (biased 1022 − ⌊(e − 1023)/2⌋). An even power of two is exact, as in RSQ.
///
/// Accuracy: within about one unit of the 20-bit fraction (opMUFU: "close to 2^-20").
/// RSQ64H(1.0) = 1.0 exactly. The result is always normal.
///
/// Specials \[DOC PTX 9.7.3.17, opMUFU\]: −0 and −subnormal → −Inf, +0 and +subnormal → +Inf
/// (input FTZ), −Inf and negative normals → NaN, +Inf → +0, NaN → 0x7FFFFFFF (f64
/// 0x7FFFFFFF00000000). Only the high word is read, so an f64 NaN whose top 20 fraction bits
/// are zero is seen as ±Inf.
pub fn rsq64h(hi: u32) -> u32 {
    let neg = hi >> 31 != 0;
    let biased = hi >> 20 & 0x7FF;
    let frac = hi & 0xF_FFFF;
    match (biased, frac) {
        (0x7FF, 0) if !neg => 0,
        (0x7FF, _) => NAN,
        (0, _) => (hi & 0x8000_0000) | 0x7FF0_0000,
        _ if neg => NAN,
        _ => {
            let e = biased as i32 - 1023;
            let f = frac << 3 | ((e & 1) as u32) << 23;
            let half = e >> 1;
            if f == 0 {
                return pack_hi(false, 1023 - half, 1 << 20);
            }
            let row = tables().rsqrt[(f >> 17) as usize];
            let xl = f & 0x1_FFFF;
            let q = (interpolate(row, 14, xl, sq(xl), 2) + ROUND) >> 19;
            pack_hi(false, 1022 - half, q as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: u32 = 0x7FF0_0000;

    #[test]
    fn special_values_of_ptx_and_the_mufu_page() {
        // PTX 9.7.3.17 / opMUFU: -Inf → NaN, -subnormal → -Inf, -0 → -Inf, +0 → +Inf,
        // +subnormal → +Inf, +Inf → +0, NaN → 0x7FFFFFFF00000000; exactly 1 for 1.
        assert_eq!(rsq64h(0xFFF0_0000), 0x7FFF_FFFF);
        for sub in [0x0000_0001, 0x0008_0000, 0x000F_FFFF] {
            assert_eq!(rsq64h(sub | 0x8000_0000), INF | 0x8000_0000);
            assert_eq!(rsq64h(sub), INF);
        }
        assert_eq!(rsq64h(0x8000_0000), 0xFFF0_0000);
        assert_eq!(rsq64h(0), INF);
        assert_eq!(rsq64h(INF), 0);
        for neg in [0xBFF0_0000, 0x8010_0000, 0xFFEF_FFFF, 0xC010_0000] {
            assert_eq!(rsq64h(neg), 0x7FFF_FFFF, "rsq64h({neg:#x})");
        }
        for nan in [0x7FF8_0000, 0xFFF8_0000, 0x7FF0_0001, 0xFFFF_FFFF, 0x7FFF_FFFF] {
            assert_eq!(rsq64h(nan), 0x7FFF_FFFF);
        }
        assert_eq!(rsq64h(0x3FF0_0000), 0x3FF0_0000);
        assert_eq!(rsq64h(0x4010_0000), 0x3FE0_0000); // RSQ64H(4) = 0.5
    }

    #[test]
    fn even_powers_of_two_are_exact_and_extremes_stay_normal() {
        for k in -511..=511i32 {
            let x = ((1023 + 2 * k) as u32) << 20;
            assert_eq!(rsq64h(x), ((1023 - k) as u32) << 20, "rsq64h(2^{})", 2 * k);
        }
        assert_eq!(rsq64h(0x0010_0000), 0x5FE0_0000); // 2^-1022 → 2^511
        assert!(rsq64h(0x7FEF_FFFF) >= 0x0010_0000);
    }
}
