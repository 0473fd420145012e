//! MUFU.TANH (sm_75+) and its `.F16` / `.BF16` forms (sm_75+ / sm_90+): the hyperbolic
//! tangent.
//!
//! **Hardware-verified on sm_90.** The datapath is the Tesla SFU's quadratic interpolation
//! (docs/semantics.md §2.2) with the truncated squarer, on a 51-row table of unequal segments; the
//! table is the H200's, recovered from the GPU's results (`scripts/recover_sfu_tables.py`,
//! `data/sm90_sfu_tables.csv`), each row the only one that gives all 2^17 results of its
//! segment. It reproduces every result an H200 returned for `tanh.approx.f32` on
//! [2^-24, 16) and every 512th positive input (data/hardware/h200-sm90), and for all 2^16
//! inputs of `tanh.approx.f16` and `tanh.approx.bf16`; an H100 returned the model's bits for
//! every one of the 2^32 f32 inputs and the 2^16 f16 and bf16 inputs (data/hardware/h100-sm90).
//! No public document describes MUFU.TANH (docs/semantics.md §2.3, §7 item 2); other generations are
//! not measured \[UNK\].
//!
//! tanh is odd: the unit works on |x| and copies the sign. |x| falls in one of three ranges:
//! - |x| < 2^-8, zeros and subnormals included: the input passes through unchanged (PTX
//!   9.7.3.22: subnormal inputs pass through, "tanh(x) for small values of x is approximately
//!   the same as x"; the relative error x²/3 stays below 2^-17.6).
//! - 2^-8 ≤ |x| < 8: the binade 2^E (E = −8 … 2) is cut into 1, 1, 1, 2, 2, 4, 4, 4, 8, 16, 8
//!   segments (more where tanh bends most), indexed by the top fraction bits; the next 17
//!   fraction bits are the interpolation operand xl and the rest are dropped, so the result
//!   is constant on runs of 2^(6 − index bits) inputs.
//!   `acc = (c0 << 16) + c1·xl + c2·sq(xl)` is tanh |x| in units of 2^(T − 39), T = min(E, −1);
//!   it is **truncated** to 24 bits: `acc >> 16` with exponent T when acc ≥ 2^39, else
//!   `acc >> 15` with exponent T − 1.
//! - |x| ≥ 8, ±Inf included: ±1.0 (the GPU saturates from 8, where 1 − tanh 8 = 2^-22.1).
//!
//! The `.F16` and `.BF16` forms run the same datapath on the exactly widened operand and
//! truncate the f32 result into the narrow format (`narrow_truncated` of mufu/mod.rs).

use super::{narrow_truncated, pack, sq, tables, NAN};
use crate::format::Format;
use crate::ops::cvt::cvt;
use crate::round::Rounding;

/// Index bits of the binades 2^-8 … 2^2 (`[E + 8]`): the number of segments is 2^bits.
const INDEX_BITS: [u32; 11] = [0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 3];
/// The first row of each binade's segments.
const FIRST_ROW: [u32; 11] = {
    let mut first = [0; 11];
    let mut k = 1;
    while k < 11 {
        first[k] = first[k - 1] + (1 << INDEX_BITS[k - 1]);
        k += 1;
    }
    first
};
/// Rows of the TANH table.
pub const ROWS: usize = 51;
const _: () = assert!(FIRST_ROW[10] as usize + (1 << INDEX_BITS[10]) == ROWS);
/// Below 2^-8 (biased exponent 119) the input passes through; from 8 (biased 130) on the
/// result is ±1.
pub(crate) const PASS_BELOW: u32 = 119 << 23;
pub(crate) const SATURATE_FROM: u32 = 130 << 23;
const ONE: u32 = 0x3F80_0000;

/// MUFU.TANH of the f32 `x` (bit pattern in, bit pattern out): `tanh.approx.f32`.
///
/// Datapath in the module doc \[measured on sm_90\]. No input or output is flushed \[DOC PTX
/// 9.7.3.22, docs/semantics.md §5\].
///
/// Accuracy (exhaustive over all 2^32 inputs): max relative error 2^-16.46 at 0x3F17040F
/// (bound 2^-11, PTX 9.7.3.22).
///
/// Specials \[DOC PTX 9.7.3.22\]: ±0 → ±0, ±subnormal → itself, ±Inf → ±1.0, NaN →
/// 0x7FFFFFFF; |x| ≥ 8 → ±1.0.
#[inline(always)]
pub fn tanh(x: u32) -> u32 {
    let a = x & 0x7FFF_FFFF;
    if a > 0x7F80_0000 {
        return NAN;
    }
    (x & 0x8000_0000) | tanh_abs(a)
}

/// The table row of 2^-8 ≤ `a` < 8 (f32 bits of |x|) and the shift that takes the fraction to
/// its 17-bit interpolation operand (`xl = frac >> shift & 0x1FFFF`): the binade's first row
/// plus its top index-bits fraction bits, `shift = 6 − index bits`.
#[inline]
pub(crate) fn segment(a: u32) -> (usize, u32) {
    let k = (a >> 23) as usize - 119;
    let bits = INDEX_BITS[k];
    ((FIRST_ROW[k] + ((a & 0x7F_FFFF) >> (23 - bits))) as usize, 6 - bits)
}

/// tanh |x| for a non-NaN `a` = |x|.
#[inline(always)]
fn tanh_abs(a: u32) -> u32 {
    if a < PASS_BELOW {
        return a;
    }
    if a >= SATURATE_FROM {
        return ONE;
    }
    let (row, shift) = segment(a);
    let [c0, c1, c2] = tables().tanh[row].map(i64::from);
    let xl = (a & 0x7F_FFFF) >> shift & 0x1_FFFF;
    let acc = (c0 << 16) + c1 * i64::from(xl) + c2 * i64::from(sq(xl));
    let top = ((a >> 23) as i32).min(126);
    if acc >= 1 << 39 {
        pack(false, top, (acc >> 16) as u32)
    } else {
        pack(false, top - 1, (acc >> 15) as u32)
    }
}

/// MUFU.TANH.F16 (`tanh.approx.f16`): the f32 datapath on the exactly widened f16 `x`, the
/// result truncated to f16 \[measured on sm_90: all 2^16 inputs\]. Subnormals are supported
/// (PTX 9.7.4.9): they pass through.
///
/// Accuracy (exhaustive over all 2^16 inputs): max absolute error 4.926e-4, just inside the
/// bound 2^-10.987 = 4.9263e-4 (PTX 9.7.4.9).
///
/// Specials \[DOC PTX 9.7.4.9\]: ±0 → ±0, ±Inf → ±1.0, NaN → 0x7FFF.
pub fn tanh_f16(x: u16) -> u16 {
    let wide = cvt(Format::F16, Format::F32, u64::from(x), Rounding::Rn, false) as u32;
    narrow_truncated(Format::F16, tanh(wide))
}

/// MUFU.TANH.BF16 (`tanh.approx.bf16`): the f32 datapath on the widened bf16 `x` (its bits are
/// the top half of an f32), the result truncated to bf16 \[measured on sm_90: all 2^16
/// inputs\]. Subnormals are supported (PTX 9.7.4.9): they pass through.
///
/// Accuracy (exhaustive over all 2^16 inputs): max absolute error 3.9065e-3 at 0x3F3F, a hair
/// above PTX's bound 2^-8 = 3.90625e-3 (PTX 9.7.4.9): the GPU's own result.
///
/// Specials \[DOC PTX 9.7.4.9\]: ±0 → ±0, ±Inf → ±1.0, NaN → 0x7FFF.
pub fn tanh_bf16(x: u16) -> u16 {
    narrow_truncated(Format::BF16, tanh(u32::from(x) << 16))
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

    /// Points an H200 returned (data/hardware/h200-sm90/slices), among them the ones the
    /// issue tracker quotes: 2^-8 for every input below 2^-8·(1 + 2^-17), −1 + 9·2^-24 at
    /// x = −7.6136, and the first and last inputs of the table.
    #[test]
    fn results_an_h200_returned() {
        for (x, gpu) in [
            (0x3B80_0000, 0x3B80_0000), // 2^-8
            (0x3B80_003F, 0x3B80_0000), // the 64 inputs sharing xl = 0
            (0x3B80_0040, 0x3B80_0040),
            (0x40F3_A3D7, 0x3F7F_FFF7), // 7.6136 → 1 − 9·2^-24
            (0x40FF_FFFF, 0x3F7F_FFFC),
            (0x3F80_0000, 0x3F42_F848), // tanh 1 = 0x3F42F7D6 rounded: 2^-16.7 relative
        ] {
            assert_eq!(tanh(x), gpu, "tanh({x:#x})");
            assert_eq!(tanh(x | 0x8000_0000), gpu | 0x8000_0000, "tanh(-{x:#x})");
        }
    }

    /// Never beyond 1; and not monotone: at the boundary of two segments the GPU's result
    /// can step down (here by 34 units between 0x3DBFFFFF and 0x3DC00000, the start of the
    /// second segment of [2^-4, 2^-3)).
    #[test]
    fn never_beyond_one_and_not_monotone_at_a_segment_boundary() {
        for a in (PASS_BELOW - 4096..SATURATE_FROM + 4096).step_by(61) {
            let r = tanh(a);
            assert!(r <= ONE, "tanh({a:#x}) = {r:#x} > 1");
        }
        // The H200's words.
        assert_eq!(tanh(0x3DBF_FFFF), 0x3DBF_7082);
        assert_eq!(tanh(0x3DC0_0000), 0x3DBF_7060);
    }

    #[test]
    fn table_geometry() {
        let t = &tables().tanh;
        assert_eq!(FIRST_ROW, [0, 1, 2, 3, 5, 7, 11, 15, 19, 27, 43]);
        // Row 0 starts at 2^-8 exactly: 2^23 in units of 2^(−8−23).
        assert_eq!(t[0][0], 1 << 23);
        for (i, &[c0, c1, c2]) in t.iter().enumerate() {
            assert!((1 << 22..=1 << 24).contains(&c0), "row {i}: c0 {c0:#x}");
            assert!(c1 > 0 && c2 < 0, "row {i}: tanh rises and bends down: {c1}, {c2}");
        }
    }
}
