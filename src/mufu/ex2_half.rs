//! MUFU.EX2.F16 and MUFU.EX2.BF16: 2^x of a half-precision value (sm_75+ / sm_90+).
//!
//! **Hardware-verified on sm_90**: an H200 and an H100 returned these bits for all 2^16 inputs
//! of `ex2.approx.f16` and `ex2.approx.ftz.bf16` (data/hardware/h200-sm90, h100-sm90). The `.F16`/`.BF16`
//! forms are the same MUFU opcode with one format bit set (bit 72 / 73, docs/semantics.md §1.4), and
//! they are the f32 unit: the f32 MUFU.EX2 datapath ([`super::ex2::ex2`], the Tesla EX2 table
//! behind the truncating 7.23 conversion) on the exactly widened operand, its result truncated
//! into the 16-bit format (`narrow_truncated` of mufu/mod.rs; a result of 2^16 or more is +Inf in
//! f16). Other generations are not measured \[UNK\].

use super::ex2::ex2;
use super::narrow_truncated;
use crate::format::Format;
use crate::ops::cvt::cvt;
use crate::round::Rounding;

/// MUFU.EX2.F16 (`ex2.approx.f16`): 2^x of the f16 `x`, f16 result: the f32 datapath on the
/// widened `x`, truncated to f16 (module doc) \[measured on sm_90\]. Subnormal inputs and
/// results are supported (PTX 9.7.4.10, docs/semantics.md §5): an f16 subnormal is an f32 normal,
/// which MUFU.EX2 does not flush (it gives exactly 1.0 after the 23-bit fixed-point
/// conversion), and results below 2^-14 are truncated onto the f16 subnormal grid.
///
/// Accuracy (exhaustive over all 2^16 inputs): max relative error 2^-10.0 on normal results
/// (bound 2^-9.9, PTX 9.7.4.10).
///
/// Specials \[DOC PTX 9.7.4.10\]: −Inf → +0, ±0 → +1, +Inf → +Inf, NaN → 0x7FFF; x ≥ 16
/// gives +Inf, x < −24 gives +0.
pub fn ex2_f16(x: u16) -> u16 {
    let wide = cvt(Format::F16, Format::F32, u64::from(x), Rounding::Rn, false) as u32;
    narrow_truncated(Format::F16, ex2(wide))
}

/// MUFU.EX2.BF16 (`ex2.approx.ftz.bf16`): 2^x of the bf16 `x`, bf16 result: the f32 datapath,
/// truncated to bf16 (module doc) \[measured on sm_90\]. Subnormal inputs and results are
/// flushed, as PTX requires: a bf16 subnormal is an f32 subnormal, which MUFU.EX2 flushes to a
/// zero (result 1.0), and MUFU.EX2 flushes results below 2^-126 to +0, so no bf16 subnormal
/// can come out.
///
/// Accuracy (exhaustive over all 2^16 inputs): max relative error 2^-7.02 (bound 2^-7,
/// PTX 9.7.4.10).
///
/// Specials \[DOC PTX 9.7.4.10\]: −Inf → +0, ±subnormal and ±0 → +1, +Inf → +Inf, NaN →
/// 0x7FFF; x ≥ 128 gives +Inf, results below 2^-126 +0.
pub fn ex2_bf16(x: u16) -> u16 {
    narrow_truncated(Format::BF16, ex2(u32::from(x) << 16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values_of_ptx_f16() {
        // PTX 9.7.4.10, ex2.approx.f16: -Inf → +0, -0 → +1, +0 → +1, +Inf → +Inf, NaN → NaN.
        assert_eq!(ex2_f16(0xFC00), 0);
        assert_eq!(ex2_f16(0x8000), 0x3C00);
        assert_eq!(ex2_f16(0x0000), 0x3C00);
        assert_eq!(ex2_f16(0x7C00), 0x7C00);
        for nan in [0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x7FFF] {
            assert_eq!(ex2_f16(nan), 0x7FFF, "ex2_f16({nan:#x})");
        }
        // Subnormal inputs are supported (not flushed): 2^(+tiny) is 1, and 2^(−tiny) is 1
        // until the 7.23 fixed-point word is nonzero, then truncates below 1 (the H200's words).
        for sub in [0x0001, 0x8001, 0x03FF] {
            assert_eq!(ex2_f16(sub), 0x3C00);
        }
        assert_eq!(ex2_f16(0x83FF), 0x3BFF);
        // Subnormal results: 2^-15 and 2^-24 are f16 subnormals; 2^-26 truncates to +0.
        assert_eq!(ex2_f16(0xCB80), 0x0200); // -15
        assert_eq!(ex2_f16(0xCE00), 0x0001); // -24
        assert_eq!(ex2_f16(0xCE80), 0x0000); // -26
                                             // Integers are exact; overflow at 16.
        assert_eq!(ex2_f16(0x4B80), 0x7800); // 15 → 32768
        assert_eq!(ex2_f16(0x4C00), 0x7C00); // 16 → Inf
        assert_eq!(ex2_f16(0x3C00), 0x4000); // 1 → 2
        assert_eq!(ex2_f16(0xBC00), 0x3800); // -1 → 0.5
    }

    #[test]
    fn special_values_of_ptx_bf16() {
        // PTX 9.7.4.10, ex2.approx.ftz.bf16: -Inf → +0, -subnormal → +1, -0 → +1, +0 → +1,
        // +subnormal → +1, +Inf → +Inf, NaN → NaN.
        assert_eq!(ex2_bf16(0xFF80), 0);
        for one in [0x8001, 0x807F, 0x8000, 0x0000, 0x0001, 0x007F] {
            assert_eq!(ex2_bf16(one), 0x3F80, "ex2_bf16({one:#x})");
        }
        assert_eq!(ex2_bf16(0x7F80), 0x7F80);
        for nan in [0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, 0x7FFF] {
            assert_eq!(ex2_bf16(nan), 0x7FFF, "ex2_bf16({nan:#x})");
        }
        // Results are flushed below 2^-126, never subnormal; overflow from 128.
        assert_eq!(ex2_bf16(0xC2FC), 0x0080); // -126 → 2^-126
        assert_eq!(ex2_bf16(0xC2FE), 0); // -127 → flushed
        assert_eq!(ex2_bf16(0x42FE), 0x7F00); // 127 → 2^127
        assert_eq!(ex2_bf16(0x4300), 0x7F80); // 128 → Inf
    }
}
