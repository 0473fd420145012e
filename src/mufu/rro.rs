//! RRO (sm_5x/sm_6x) and its Tesla ancestors PRESIN/PREEX2: the range reduction that turns an
//! f32 into the fixed-point word MUFU.SIN/COS/EX2 read on those architectures.
//!
//! Output words \[DOC opRRO, docs/semantics.md §3\]: sign at bit 31; bit 30 flags a special, with bits
//! 24:23 = 00 for NaN ([`NAN_CODE`]) and 01 for ±Inf ([`INF_CODE`]); otherwise
//! - SINCOS: a 2.23 word, quadrant in bits 24:23 and the 23-bit fraction of the quadrant
//!   (bits 29:25 unused, always 0);
//! - EX2: a 1.7.23 sign-magnitude word, 7-bit integer part in bits 29:23.
//!
//! The bit-exact rule is the Tesla one (envytools `sfu_pre`, checked on Tesla hardware by
//! `hwtest/g80_sfu.cc`) \[RE, docs/semantics.md §3\]: subnormal inputs are flushed to a signed zero and
//! every shift **truncates**.
//!
//! Conflicting claim \[RE, weaker; docs/semantics.md §3, §7 item 3\]: a yuzu developer reported from
//! Switch (Maxwell) hardware tests that the RRO.EX2 fraction is `uint(frac·8388607.0) + 1` and
//! that |x| ≥ 128 gives 129 << 23 (github.com/yuzu-emu/yuzu issue #1222). That agrees with
//! truncation except for integral inputs (fraction 1, not 0) and inputs below 1; it is
//! unverified and not modelled here.

use super::F32;
use crate::format::Class;

const SIGN: u32 = 0x8000_0000;

/// The special-value word of a NaN input (sign of the input kept) \[DOC opRRO, RE\].
pub const NAN_CODE: u32 = 0x4000_0000;

/// The special-value word of an infinite input, and of EX2 inputs with |x| ≥ 128 \[DOC opRRO, RE\].
pub const INF_CODE: u32 = 0x4080_0000;

/// RRO.SINCOS (Tesla PRESIN) of the f32 `x`: x·2/π as a 2.23 quadrant word, reduced mod 4.
///
/// With the 24-bit significand m and unbiased exponent e: `m = m·0xA2F983 >> 16`
/// (0xA2F983 = 2/π·2^24 truncated), then a truncating shift by e − 8 (left if ≥ 0; 0 once the
/// shift reaches 32), keeping the low 25 bits \[RE, docs/semantics.md §3\].
/// presin(1.0) = 0x00517CC1.
pub fn rro_sincos(x: u32) -> u32 {
    match split(x) {
        Err(special) => special,
        Ok((sign, m, e)) => {
            let scaled = ((u64::from(m) * 0xA2_F983) >> 16) as u32;
            sign | (shift_truncate(scaled, e - 8) & 0x1FF_FFFF)
        }
    }
}

/// RRO.EX2 (Tesla PREEX2) of the f32 `x`: x as a 1.7.23 sign-magnitude fixed-point word.
///
/// |x| ≥ 128 gives the Inf code; otherwise the significand is shifted by the exponent,
/// truncating \[RE, docs/semantics.md §3\]. preex2(1.0) = 0x00800000, preex2(−128) = 0xC0800000.
#[inline]
pub fn rro_ex2(x: u32) -> u32 {
    match split(x) {
        Err(special) => special,
        Ok((sign, _, e)) if e >= 7 => sign | INF_CODE,
        Ok((sign, m, e)) => sign | shift_truncate(m, e),
    }
}

/// Take an f32 apart for a conversion to fixed point, flushing a subnormal to zero:
/// `Ok((sign bit, m, e))` with x = ±m·2^(e − 23) and m the 24-bit significand (0 for a zero),
/// or `Err(word)` with the special word of a NaN or an infinity \[RE, docs/semantics.md §3\].
#[inline]
pub(crate) fn split(x: u32) -> Result<(u32, u32, i32), u32> {
    let sign = x & SIGN;
    match F32.classify(x.into()) {
        Class::Nan => Err(sign | NAN_CODE),
        Class::Inf => Err(sign | INF_CODE),
        Class::Zero | Class::Subnormal => Ok((sign, 0, -126)),
        Class::Normal => Ok((sign, x & 0x7F_FFFF | 1 << 23, (x >> 23 & 0xFF) as i32 - 127)),
    }
}

/// `m·2^shift` as a 32-bit word, truncated toward zero: bits shifted out on either side are
/// lost (a left shift wraps, which for an angle drops whole turns), and a shift of 32 or more
/// either way gives 0 \[RE, docs/semantics.md §3\].
#[inline]
pub(crate) fn shift_truncate(m: u32, shift: i32) -> u32 {
    match shift {
        0..=31 => m << shift,
        -31..=-1 => m >> -shift,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_from_the_model() {
        assert_eq!(rro_sincos(0x3F80_0000), 0x0051_7CC1); // presin(1.0)
        assert_eq!(rro_ex2(0x3F80_0000), 0x0080_0000); // preex2(1.0)
        assert_eq!(rro_ex2(0xC300_0000), 0xC080_0000); // preex2(-128): Inf code, sign kept
        assert_eq!(rro_ex2(0x42FF_FFFF), 0x3FFF_FFC0); // 127.99999: integer 127
        assert_eq!(rro_ex2(0xBFC0_0000), 0x80C0_0000); // -1.5: sign-magnitude
        assert_eq!(rro_ex2(0x3F00_0001), 0x0040_0000); // 0.5 + 2^-24: truncated
        assert_eq!(rro_ex2(0x3380_0000), 0); // 2^-24: below the fixed-point grid
    }

    #[test]
    fn specials_and_ftz() {
        for mode in [rro_sincos as fn(u32) -> u32, rro_ex2] {
            assert_eq!(mode(0x7FC0_0000), NAN_CODE);
            assert_eq!(mode(0xFFC0_0001), SIGN | NAN_CODE);
            assert_eq!(mode(0x7F80_0000), INF_CODE);
            assert_eq!(mode(0xFF80_0000), SIGN | INF_CODE);
            assert_eq!(mode(0), 0);
            assert_eq!(mode(0x8000_0000), SIGN);
            assert_eq!(mode(0x007F_FFFF), 0); // subnormal flushed
            assert_eq!(mode(0x8000_0001), SIGN);
        }
        assert_eq!(rro_ex2(0x4300_0000), INF_CODE); // 128
        assert_eq!(rro_ex2(0x7F7F_FFFF), INF_CODE);
    }

    #[test]
    fn sincos_quadrants() {
        // f32 π/2 is 4.4e-8 above π/2, but 2/π truncated to 24 bits is 2.6e-8 low, so the
        // word lands just below quadrant 1; 2π wraps to about 0.
        let q = rro_sincos(std::f32::consts::FRAC_PI_2.to_bits());
        assert_eq!(q, (1 << 23) - 1);
        let q = rro_sincos((2.0 * std::f32::consts::PI).to_bits());
        assert!(!(4..0x1FF_FFFC).contains(&q), "{q:#x}");
        // Words never use bits 29:25 and keep the input sign.
        for x in (0u32..0x7F80_0000).step_by(4099) {
            assert_eq!(rro_sincos(x) & 0x7E00_0000, 0);
            assert_eq!(rro_sincos(x | SIGN), rro_sincos(x) | SIGN);
        }
    }
}
