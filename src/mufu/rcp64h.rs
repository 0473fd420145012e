//! MUFU.RCP64H: the reciprocal of the high word (1.11.20) of an f64.
//!
//! **Hardware-verified on an H200** (sm_90): the f32 RCP datapath on the top 20 fraction bits,
//! its result truncated to the 20-bit fraction of the high word, reproduces every one of
//! 1,790,804 distinct high words in [1, 4) that `rcp.approx.ftz.f64` was captured on, and the
//! 2^20 edge-biased inputs over all f64 values (data/hardware/h200-sm90/).

use super::{interpolate, sq, tables, NAN};
use crate::format::Format;
use crate::round::{round_pack, Rounding};

const F64: Format = Format::F64;

/// Rounding constant: the f32 RCP datapath's (0x47E7, for its 24-bit result `acc >> 15`); the
/// high word keeps `acc >> 18`, the f32 significand with its last 3 bits dropped.
const ROUND: i64 = super::rcp::ROUND;

/// MUFU.RCP64H of `hi`, the high 32 bits of an f64 (sign, 11-bit exponent, top 20 fraction
/// bits); returns the high word of the result. ptxas sets the low word of the result to 0
/// and never passes the low word of the operand (`rcp.approx.ftz.f64`, docs/semantics.md §1.3).
///
/// Design \[HW: H200 capture, module documentation\]: **the f32 RCP unit** ([`super::rcp::rcp`]:
/// Tesla table, idx = the top 7 fraction bits, xl = the next 16 with the low 3 zero, the same
/// rounding constant) computes the 24-bit significand of 1/x; the high word takes its top 21
/// bits, truncating the 3 below (`(acc + 0x47E7) >> 18`), with the f64 exponent arithmetic
/// (biased 2045 − e). Rounding to nearest at 21 bits instead (the model before the capture)
/// differed on 44% of the captured inputs, always one unit above the GPU.
///
/// Accuracy: the truncation costs up to one unit of the 20-bit fraction (2^-20 relative), as
/// opMUFU's "close to 2^-20" says. RCP64H(1.0) = 1.0 exactly; every power of two is exact.
///
/// Specials \[DOC PTX 9.7.3.14, opMUFU\]: ±0 and ±subnormal → ±Inf (input FTZ), ±Inf → ±0,
/// NaN → 0x7FFFFFFF (f64 0x7FFFFFFF00000000). Results below 2^-1022 flush to a zero of the
/// same sign (|x| > 2^1022). Only the high word is read, so an f64 NaN whose top 20 fraction
/// bits are zero is seen as ±Inf.
pub fn rcp64h(hi: u32) -> u32 {
    let neg = hi >> 31 != 0;
    let e = hi >> 20 & 0x7FF;
    let frac = hi & 0xF_FFFF;
    match (e, frac) {
        (0x7FF, 0) => hi_word(F64.zero(neg)),
        (0x7FF, _) => NAN,
        (0, _) => hi_word(F64.inf(neg)),
        _ => {
            let f = frac << 3;
            let row = tables().rcp[(f >> 16) as usize];
            let xl = f & 0xFFFF;
            let q = (interpolate(row, 13, xl, sq(xl << 1), 0) + ROUND) >> 18;
            pack_hi(neg, 2045 - e as i32, q as u64)
        }
    }
}

/// The high word of an f64 bit pattern.
fn hi_word(bits: u64) -> u32 {
    (bits >> 32) as u32
}

/// Pack a 21-bit significand `q` (2^20 ≤ q ≤ 2^21; 2^21 renormalises to exponent + 1) with
/// biased f64 exponent `e` into the high word, flushing results below 2^-1022 to a signed zero
/// (output FTZ, opMUFU). Shared with [`super::rsq64h`].
pub(crate) fn pack_hi(neg: bool, e: i32, q: u64) -> u32 {
    debug_assert!((1 << 20..=1 << 21).contains(&q), "RCP64H/RSQ64H significand {q:#x}");
    let bits = round_pack(F64, neg, e - F64.bias() - 20, u128::from(q), Rounding::Rn, true);
    debug_assert_eq!(bits as u32, 0, "a 21-bit significand fills only the high word");
    hi_word(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: u32 = 0x7FF0_0000;

    #[test]
    fn special_values_of_ptx_and_the_mufu_page() {
        // PTX 9.7.3.14 / opMUFU: -Inf → -0, -subnormal → -Inf, -0 → -Inf, +0 → +Inf,
        // +subnormal → +Inf, +Inf → +0, NaN → 0x7FFFFFFF00000000; exactly 1 for 1.
        assert_eq!(rcp64h(0xFFF0_0000), 0x8000_0000);
        for sub in [0x0000_0001, 0x0008_0000, 0x000F_FFFF] {
            assert_eq!(rcp64h(sub | 0x8000_0000), INF | 0x8000_0000);
            assert_eq!(rcp64h(sub), INF);
        }
        assert_eq!(rcp64h(0x8000_0000), 0xFFF0_0000);
        assert_eq!(rcp64h(0), INF);
        assert_eq!(rcp64h(INF), 0);
        for nan in [0x7FF8_0000, 0xFFF8_0000, 0x7FF0_0001, 0xFFFF_FFFF, 0x7FFF_FFFF] {
            assert_eq!(rcp64h(nan), 0x7FFF_FFFF);
        }
        assert_eq!(rcp64h(0x3FF0_0000), 0x3FF0_0000);
        assert_eq!(rcp64h(0xBFF0_0000), 0xBFF0_0000);
    }

    #[test]
    fn powers_of_two_are_exact_and_tiny_results_flush() {
        for e in 1..=2045u32 {
            assert_eq!(rcp64h(e << 20), (2046 - e) << 20, "rcp64h(2^{})", e as i32 - 1023);
        }
        assert_eq!(rcp64h(0x7FD0_0000), 0x0010_0000); // 1/2^1022 = 2^-1022, the smallest normal
        assert_eq!(rcp64h(0x7FD0_0001), 0); // below 2^-1022: flushed
        assert_eq!(rcp64h(0xFFEF_FFFF), 0x8000_0000);
        assert_eq!(rcp64h(0x0010_0000), 0x7FD0_0000); // 1/2^-1022 = 2^1022
    }
}
