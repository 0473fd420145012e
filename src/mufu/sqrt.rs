//! MUFU.SQRT: the square root of an f32 (sm_52+).
//!
//! **Hardware-verified on sm_90.** The datapath is the Tesla SFU's (docs/semantics.md §2.2): a
//! 128-row quadratic-interpolation table indexed like RSQ's, the truncated squarer and RSQ's
//! rounding constant. Its table is the H200's, recovered from the GPU's results
//! (`scripts/recover_sfu_tables.py`, `data/sm90_sfu_tables.csv`): every input of [1, 4) on an
//! H200 (data/hardware/h200-sm90), 2^24 results for 384 coefficients, each row the only one
//! that gives all 2^17 results of its segment. An H100 returned the model's bits for every f32
//! input of `sqrt.approx{.ftz}.f32` (data/hardware/h100-sm90). No public document describes
//! MUFU.SQRT (docs/semantics.md §2.3, §7 item 2); other generations are not measured \[UNK\].

use super::{pack, sq, tables, F32, NAN};
use crate::format::Class;
use crate::mufu::rsq::ROUND;

/// The accumulator value of 1.0: `acc ≈ √y · 2^40`.
const ONE: i64 = 1 << 40;

/// MUFU.SQRT of the f32 `x` (bit pattern in, bit pattern out).
///
/// Datapath \[measured on sm_90: reproduces every result of an H200 over [1, 4), and so over
/// all normal inputs, whose results depend only on the fraction and the exponent parity\]:
/// with e = e_in − 127 and p = e & 1, the operand is `y = 1.frac · 2^-p` ∈ [0.5, 2) and
/// `√x = √y · 2^(⌊e/2⌋ + p)`. Row `p·64 + frac[22:17]` of the SQRT table, `xl = frac[16:0]`:
///
/// `acc = (c0 << 14) + c1·xl + c2·sq(xl) + 0x7FFF` ≈ √y · 2^40,
///
/// then `q = acc >> 17` when `acc ≥ 2^40` (√y ≥ 1), else `acc >> 16`. The rounding constant is
/// RSQ's half unit of `>> 16`, added before the normalisation, so that results ≥ 1 (the even
/// exponents) get a quarter unit: they are often one unit below the nearest value (mean error
/// −0.15 ulp on [1, 2), −0.13 on [2, 4)). Even powers of two are exact (row 0 is `2^26, …`).
///
/// Accuracy: max error 0.94 ulp, max relative error 2^-23.3 (PTX 9.7.3.15: 2^-23).
///
/// Specials \[DOC opMUFU, PTX 9.7.3.15\]: ±0 → ±0, ±subnormal → ±0 (input FTZ; SQRT(−denorm) =
/// −0), +Inf → +Inf, −Inf and negative normals → NaN, NaN → 0x7FFFFFFF.
#[inline(always)]
pub fn sqrt(x: u32) -> u32 {
    let neg = x >> 31 != 0;
    match F32.classify(x.into()) {
        Class::Nan => NAN,
        Class::Zero | Class::Subnormal => F32.zero(neg) as u32,
        _ if neg => NAN,
        Class::Inf => F32.inf(false) as u32,
        Class::Normal => {
            let e = (x >> 23 & 0xFF) as i32 - 127;
            let p = e & 1;
            let f = x & 0x7F_FFFF;
            let [c0, c1, c2] = tables().sqrt[((p as u32) << 6 | f >> 17) as usize].map(i64::from);
            let xl = f & 0x1_FFFF;
            let acc = (c0 << 14) + c1 * i64::from(xl) + c2 * i64::from(sq(xl)) + ROUND;
            let (q, scale) = if acc >= ONE { (acc >> 17, 0) } else { (acc >> 16, -1) };
            pack(false, 127 + (e >> 1) + p + scale, q as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PTX 9.7.3.15: −normal → NaN; opMUFU: exactly 1.0 for 1.0 (the page's special values:
    /// mufu/mod.rs).
    #[test]
    fn negative_inputs_and_exact_results() {
        for neg in [0xBF80_0000, 0x8080_0000, 0xFF7F_FFFF, 0xC080_0000] {
            assert_eq!(sqrt(neg), NAN, "sqrt({neg:#x})");
        }
        assert_eq!(sqrt(0x3F80_0000), 0x3F80_0000);
        assert_eq!(sqrt(0x4080_0000), 0x4000_0000); // SQRT(4) = 2
    }

    #[test]
    fn even_powers_of_two_are_exact_and_extremes_stay_normal() {
        for k in -63..=63i32 {
            let x = ((127 + 2 * k) as u32) << 23;
            assert_eq!(sqrt(x), ((127 + k) as u32) << 23, "sqrt(2^{})", 2 * k);
        }
        assert_eq!(sqrt(0x0080_0000), 0x2000_0000); // √FLT_MIN = 2^-63
        let big = sqrt(0x7F7F_FFFF);
        assert!((0x5F7F_FFFE..=0x5F80_0000).contains(&big), "{big:#x}");
    }

    /// Within one ulp of the exact root on every fraction and both exponent parities (the
    /// results depend on nothing else), and within the PTX bound 2^-23 relative.
    #[test]
    fn within_one_ulp_and_the_ptx_bound_on_all_of_1_to_4() {
        let mut worst_rel = 0f64;
        for x in (0x3F80_0000u32..0x4080_0000).step_by(3) {
            let exact = f64::from(f32::from_bits(x)).sqrt();
            let got = f64::from(f32::from_bits(sqrt(x)));
            let ulp = if exact < 2.0 { 2f64.powi(-23) } else { 2f64.powi(-22) };
            assert!((got - exact).abs() < ulp, "sqrt({x:#x}) = {got}, exact {exact}");
            worst_rel = worst_rel.max(((got - exact) / exact).abs());
        }
        assert!(worst_rel <= 2f64.powi(-23), "relative error 2^{}", worst_rel.log2());
    }

    #[test]
    fn table_has_the_recovered_geometry() {
        let t = &tables().sqrt;
        // Row 0 starts at √1 = 2^40 (c0 << 14) with the 16-bit slope 0xFFFF; row 64 at √0.5.
        assert_eq!(t[0], [1 << 26, 0xFFFF, -1012]);
        assert_eq!(t[64][0], (0.5f64.sqrt() * 2f64.powi(26)) as i32);
        for (i, &[c0, c1, c2]) in t.iter().enumerate() {
            assert!(c0 > 0 && c0 < 1 << 27, "row {i}: c0 {c0:#x} is not a 27-bit magnitude");
            assert!(c1 > 0 && c1 < 1 << 16, "row {i}: c1 {c1:#x} is not a 16-bit magnitude");
            assert!((-1024..0).contains(&c2), "row {i}: c2 {c2} is not a negative 11-bit value");
        }
    }
}
