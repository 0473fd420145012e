//! MUFU.SIN and MUFU.COS.

use super::rro::{shift_truncate, split, NAN_CODE};
use super::{interpolate, pack_truncated, sq, tables, NAN};

/// The Tesla SIN datapath on the 2.23 quadrant word `w` that RRO.SINCOS / PRESIN produce
/// ([`super::rro_sincos`]); MUFU.SIN on sm_5x/sm_6x.
///
/// Datapath (envytools `sfu_sincos`) \[RE, docs/semantics.md §2.2\]: sign `w[31]`, special flag `w[30]`
/// (any special → 0x7FFFFFFF), quadrant q = `w[24:23]`, fraction f = `w[22:0]`; bits 29:25 are
/// ignored. In an odd quadrant f = !f (23 bits); the sign flips in quadrants 2 and 3. With
/// idx = f >> 17 and xl = f & 0x1FFFF the table gives the 38-bit
/// `(c0 << 11) + c1·xl + c2·sq(xl)` ≈ sin(π/2·f)·2^37, normalised and **truncated** to 24 bits.
///
/// Evidence: the Tesla datapath, verified on Tesla hardware \[RE\]; MUFU.SIN on sm_5x/sm_6x is
/// assumed to be it (it reproduces the documented SPA 2^-20.9 in quadrant 0 over a full period)
/// \[INF, docs/semantics.md §2.3\]; on sm_90 it is measured through [`sin`].
#[inline]
pub fn sin_fixed(w: u32) -> u32 {
    sincos_fixed(w, false)
}

/// The Tesla COS datapath on the 2.23 quadrant word `w`: [`sin_fixed`] one quadrant on
/// (q + 1) with the input sign dropped (cos is even) \[RE, docs/semantics.md §2.2\]; MUFU.COS on
/// sm_5x/sm_6x. Evidence as for [`sin_fixed`] \[INF\].
#[inline]
pub fn cos_fixed(w: u32) -> u32 {
    sincos_fixed(w, true)
}

#[inline(always)]
fn sincos_fixed(w: u32, cos: bool) -> u32 {
    if w & NAN_CODE != 0 {
        return NAN;
    }
    let (mut neg, mut q) = (w >> 31 != 0, w >> 23);
    if cos {
        q += 1;
        neg = false;
    }
    let f = if q & 1 != 0 { !w & 0x7F_FFFF } else { w & 0x7F_FFFF };
    neg ^= q & 2 != 0;
    let row = tables().sin[(f >> 17) as usize];
    let xl = f & 0x1_FFFF;
    let acc = interpolate(row, 11, xl, sq(xl), 0);
    debug_assert!((0..1 << 38).contains(&acc));
    pack_truncated(neg, 127, acc as u64, 37)
}

/// MUFU.SIN on sm_70+, whose input `t` is an angle in **turns**: ptxas computes
/// `t = FMUL.RZ(x, 1/2π)` first (docs/semantics.md §1.1) and MUFU reduces it internally.
///
/// Modelled as `sin_fixed(fixed2_23(4·t))`, where `fixed2_23` is sign-magnitude: the sign of t,
/// |4t| truncated to 23 fraction bits and reduced mod 4 (masked to 25 bits), a subnormal t
/// flushed to a signed zero, NaN/±Inf mapped to the RRO special words (docs/semantics.md §2.3).
/// With it the Tesla table reproduces the PTX bounds 2^-20.5 on [−2π, 2π] and 2^-14.7 on
/// [−100π, 100π], which the Tesla PRESIN path does not. \[HW on sm_90\]: an H200 and an H100
/// returned these bits for every `t` that `sin.approx{.ftz}.f32` produces (all 2^32 inputs);
/// other `t` and other generations \[INF\] (docs/semantics.md §7 item 1).
///
/// Specials \[DOC opMUFU\]: ±0 and ±subnormal → ±0, ±Inf and NaN → 0x7FFFFFFF.
#[inline(always)]
pub fn sin(t: u32) -> u32 {
    sin_fixed(turns_to_quadrant_word(t))
}

/// MUFU.COS on sm_70+ with `t` in turns: `cos_fixed(fixed2_23(4·t))`, with the same evidence
/// as [`sin`] (`cos.approx{.ftz}.f32` on all 2^32 inputs).
///
/// Specials \[DOC opMUFU\]: ±0 and ±subnormal → +1, ±Inf and NaN → 0x7FFFFFFF.
#[inline(always)]
pub fn cos(t: u32) -> u32 {
    cos_fixed(turns_to_quadrant_word(t))
}

/// `fixed2_23(4·t)`: the angle `t` in turns as a 2.23 quadrant word. Sign-magnitude: the sign
/// of t at bit 31, |4t| truncated to 23 fraction bits and reduced mod 4 (masked to 25 bits);
/// a subnormal t is flushed to a signed zero and NaN/±Inf give the RRO special words
/// (docs/semantics.md §2.3; evidence as for [`sin`]). It is the RRO.SINCOS conversion with the 2/π scaling left out
/// (ptxas has already applied 1/2π).
#[inline(always)]
fn turns_to_quadrant_word(t: u32) -> u32 {
    match split(t) {
        Err(special) => special,
        // x = m·2^(e−23), so |4t|·2^23 = m·2^(e+2).
        Ok((sign, m, e)) => sign | (shift_truncate(m, e + 2) & 0x1FF_FFFF),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::mufu::rro::rro_sincos;
    use crate::ops::mul::mul;
    use crate::round::Rounding;
    use std::f64::consts::{FRAC_PI_2, PI};

    const ONE: u32 = 0x3F80_0000;

    fn f(bits: u32) -> f64 {
        f64::from(f32::from_bits(bits))
    }

    /// The sm_70+ lowering of sin/cos.approx.f32: `FMUL.RZ(x, 0x3E22F983)` (not FTZ), then
    /// MUFU (docs/semantics.md §1.1).
    fn turns(x: u32) -> u32 {
        mul(Format::F32, x.into(), 0x3E22_F983, Rounding::Rz, false) as u32
    }

    #[test]
    fn the_rro_path_agrees_on_the_special_values() {
        // The page's special values (mufu/mod.rs) are checked on the sm_70+ float input; the
        // sm_5x path, MUFU of RRO's fixed-point word, gives the same on every special input.
        for x in [
            0x8000_0001u32,
            0x807F_FFFF,
            0x8000_0000,
            0x0000_0000,
            0x0000_0001,
            0x007F_FFFF,
            0xFF80_0000,
            0x7F80_0000,
            0x7FC0_0000,
            0xFFC0_0000,
            0x7F80_0001,
        ] {
            assert_eq!(sin_fixed(rro_sincos(x)), sin(x), "RRO sin({x:#x})");
            assert_eq!(cos_fixed(rro_sincos(x)), cos(x), "RRO cos({x:#x})");
        }
        // Through the PTX lowering: a subnormal x gives a subnormal t (FMUL not FTZ) that
        // MUFU flushes (docs/semantics.md §5).
        assert_eq!(sin(turns(0x8000_0005)), 0x8000_0000);
        assert_eq!(cos(turns(0x0000_0005)), ONE);
    }

    #[test]
    fn hardware_points() {
        // ZLUDA sin.approx.f32(f32 π/2) = 1.0 and cos.approx.f32(f32 π) = -1.0 [HW].
        assert_eq!(sin(turns(0x3FC9_0FDB)), ONE);
        assert_eq!(cos(turns(0x4049_0FDB)), 0xBF80_0000);
    }

    #[test]
    fn quadrant_word_conversion() {
        assert_eq!(turns_to_quadrant_word(0x3E80_0000), 1 << 23); // 1/4 turn = quadrant 1
        assert_eq!(turns_to_quadrant_word(0xBF00_0000), 0x8000_0000 | 2 << 23); // -1/2 turn
        assert_eq!(turns_to_quadrant_word(0x3F80_0000), 0); // a whole turn wraps to 0
        assert_eq!(turns_to_quadrant_word(0x3F7F_FFFF), 0x1FF_FFFE); // 1 - 2^-24 turn
        assert_eq!(turns_to_quadrant_word(0x3400_0000), 4); // 2^-23 turn = 4·2^-23 quadrant
        assert_eq!(turns_to_quadrant_word(0x3300_0001), 1); // 4·(2^-25 + ε): truncated
        assert_eq!(turns_to_quadrant_word(0x3280_0000), 0); // 2^-24 quadrant: below the grid
        assert_eq!(turns_to_quadrant_word(0x4B00_0001), 0); // huge t: whole turns only
        assert_eq!(turns_to_quadrant_word(0x7F80_0000), NAN_CODE | 1 << 23);
    }

    /// The quadrant symmetries of the table walk: sin(q=1, f) = sin(q=0, !f), quadrants 2, 3
    /// negate, cos(w) = sin(w + one quadrant) with the sign dropped.
    #[test]
    fn quadrant_symmetries_exhaustive() {
        for frac in 0..1u32 << 23 {
            let s = sin_fixed(frac);
            assert_eq!(sin_fixed(1 << 23 | !frac & 0x7F_FFFF), s);
            assert_eq!(sin_fixed(2 << 23 | frac), s ^ 0x8000_0000);
            assert_eq!(sin_fixed(0x8000_0000 | frac), s ^ 0x8000_0000);
            assert_eq!(cos_fixed(3 << 23 | frac), s);
            assert_eq!(cos_fixed(0x8000_0000 | 3 << 23 | frac), s);
        }
    }

    /// docs/semantics.md §2.3: over the fixed-point input, quadrant 0 has absolute error 2^-22.38
    /// (sin) and 2^-21.49 (cos); over a full period both stay within the SPA bound 2^-20.9.
    #[test]
    fn fixed_point_accuracy_exhaustive() {
        let (mut s0, mut c0, mut all) = (0f64, 0f64, 0f64);
        for w in 0..1u32 << 25 {
            let a = f64::from(w) / f64::from(1u32 << 23) * FRAC_PI_2;
            let es = (f(sin_fixed(w)) - a.sin()).abs();
            let ec = (f(cos_fixed(w)) - a.cos()).abs();
            if w < 1 << 23 {
                s0 = s0.max(es);
                c0 = c0.max(ec);
            }
            all = all.max(es).max(ec);
        }
        assert!((-22.45..=-22.3).contains(&s0.log2()), "sin q0 2^{}", s0.log2());
        assert!((-21.55..=-21.45).contains(&c0.log2()), "cos q0 2^{}", c0.log2());
        assert!(all.log2() <= -20.9, "period 2^{}", all.log2());
    }

    /// docs/semantics.md §2.3: through the sm_70+ lowering (`FMUL.RZ` + this model) the error is
    /// 2^-20.55 (sin) / 2^-20.43 (cos) on [−2π, 2π] and 2^-14.75 on [2π, 100π]; the PTX bounds
    /// are 2^-20.5 and 2^-14.7. Sampled: the sample maximum can only be lower.
    #[test]
    fn ptx_accuracy_sampled() {
        let (mut near, mut far) = (0f64, 0f64);
        let two_pi = (2.0 * PI) as f32;
        let hundred_pi = ((100.0 * PI) as f32).to_bits();
        for x in (0..=hundred_pi).step_by(101) {
            for x in [x, x | 0x8000_0000] {
                let xf = f(x);
                let t = turns(x);
                let err = (f(sin(t)) - xf.sin()).abs().max((f(cos(t)) - xf.cos()).abs());
                if xf.abs() <= f64::from(two_pi) {
                    near = near.max(err);
                } else {
                    far = far.max(err);
                }
            }
        }
        assert!(near.log2() <= -20.4, "[-2π,2π] 2^{}", near.log2());
        assert!(far.log2() <= -14.7, "[2π,100π] 2^{}", far.log2());
    }
}
