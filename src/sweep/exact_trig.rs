//! sin(x) and cos(x) for f64 lanes holding f32 values, with a proven relative error bound
//! below 2^-47.8 ≤ [`VALUE_REL_ERROR`](super::VALUE_REL_ERROR) for |x| ≤ 2^24 ([`sin_lanes`]).

use super::{estrin_level, SHIFTER};
use crate::kernels::simd::{f64x8, u64x8};

/// Below this magnitude sin(x) is decided as x and cos(x) as 1.
const TINY: f64 = 1.0 / (1u64 << 26) as f64;

/// The largest magnitude the polynomial path takes; beyond it CORE-MATH's f64 functions.
const LIMIT: f64 = (1u64 << 24) as f64;

/// π/2 = P1 + P2 + P3 + τ: P1 and P2 have 29 significant bits, so k·P1 and k·P2 are exact
/// for integers |k| < 2^24; |P3| < 2^-59.5 and |τ| < 2^-114 (test `pi_over_2_split`), so P3
/// is π/2 − P1 − P2 rounded to f64.
const P1: f64 = 1.570796325802803;
const P2: f64 = 9.920935808982456e-10;
const P3: f64 = -1.2177051777973966e-18;

/// (−1)^j/(2j + 1)! for j = 0..=8, rounded to f64: sin(r) = r·Σ S_j·r^(2j) + O(r^19).
const SIN_TAYLOR: [f64; 9] = [
    1.0,
    -0.16666666666666666,
    0.008333333333333333,
    -0.0001984126984126984,
    2.7557319223985893e-06,
    -2.505210838544172e-08,
    1.6059043836821613e-10,
    -7.647163731819816e-13,
    2.8114572543455206e-15,
];

/// (−1)^j/(2j)! for j = 0..=8, rounded to f64: cos(r) = Σ C_j·r^(2j) + O(r^18).
const COS_TAYLOR: [f64; 9] = [
    1.0,
    -0.5,
    0.041666666666666664,
    -0.001388888888888889,
    2.48015873015873e-05,
    -2.755731922398589e-07,
    2.08767569878681e-09,
    -1.1470745597729725e-11,
    4.779477332387385e-14,
];

/// sin(x) for f64 lanes holding f32 values, with relative error below 2^-47.8 (u = 2^-53,
/// γ_n = n·u/(1 − n·u) as in `estrin_level`), NaN for NaN and ±Inf, and whether the values
/// round correctly to f32 by themselves (the tiny case below).
///
/// **Tiny and special lanes.** For |x| < 2^-26 the value is x: 0 ≤ |x| − |sin x| ≤ |x|³/6
/// < 2^-54.5·|x|. The f32 rounding boundary below |x| lies |x|·2^-25 or more below it (half
/// the gap to the next smaller f32: smallest relative to |x| at a power of two, and 2^-150 for
/// subnormal x), so sin x rounds to x (±0 gives ±0 exactly). A group of 8 lanes that are all
/// tiny or not finite needs no check.
///
/// **Reduction** (|x| ≤ 2^24; beyond, CORE-MATH's correctly rounded `sin`). y = fl(x·c),
/// c = `FRAC_2_PI` (2/π rounded), is x·(2/π)(1 + η) with |η| ≤ 2u + u², within 2^-28.6 of
/// x·2/π; k is its nearest integer (via `SHIFTER`, whose sum's low bits give k mod 4), so
/// |k| ≤ 10680707 < 2^23.35 and r = x − k·π/2 has |r| ≤ π/4 + 2^-27.9 < 0.7853982; sin x is
/// ±sin r or ±cos r by k mod 4. With [`P1`], [`P2`], [`P3`]:
/// - t = x − k·P1 is exact: k·P1 is, and for k ≥ 1 (k ≤ −1 alike) k/2 ≤ y ≤ 3k/2 puts x in
///   [k·P1/2, 2k·P1] (0 < π/2 − P1 < 2^-29), Sterbenz's lemma; for k = 0, t = x;
/// - a = fl(t − k·P2) = (t − k·P2)(1 + δ1), p = fl(k·P3) = k·P3·(1 + δ2), r̂ = fl(a − p)
///   = (a − p)(1 + δ3), |δi| ≤ u. With t − k·P2 = r + k·P3 + k·τ, |k·P3| < 2^-36.1 and
///   |k·τ| < 2^-90.6: r̂ − r = r·δ3 + (1 + δ3)(k·τ + (t − k·P2)·δ1 − k·P3·δ2), so
///   |r̂ − r| ≤ 2u·|r|·(1 + u) + 2^-87.8;
/// - k ≠ 0 only for |x| > ½, and then |r| > 2^-27.9 (test `reduced_argument_lower_bound`:
///   every f32 x in [½, 2^24], −x alike), so |r̂ − r| ≤ ε·|r| with ε = 2u·(1 + u) + 2^-59.9
///   < 2.01u; for k = 0 the products are zero and r̂ = x exactly.
///
/// **Polynomial** on ρ = r̂, |ρ| ≤ R = 0.7854, w = fl(ρ²): sin ρ ≈ ρ·Σ S_j·w^j
/// ([`SIN_TAYLOR`]), cos ρ ≈ Σ C_j·w^j ([`COS_TAYLOR`]), 9 coefficients by Estrin's scheme
/// with p = w, w², w⁴, w⁸. As |ρ| > 2^-28, no product falls below 2^-600, far from the
/// subnormal range. The ratios below grow with |ρ| and are taken at R: sinh R/sin R < 1.2285,
/// (sinh R − R)/sin R < 0.1178, R/sin R < 1.1108, cosh R/cos R < 1.8733,
/// (cosh R − 1)/cos R < 0.4591, R·tan R < 0.7855.
/// - truncation (Lagrange): |ρ|^19/19! for sin, relative < 2^-62.8; ρ^18/18! for cos,
///   < 2^-58.2;
/// - coefficients, each rounded (relative u; S_0 = C_0 = 1 exact): off by at most
///   u·(sinh|ρ| − |ρ|), relative 0.1178u, for sin, u·(cosh ρ − 1), 0.4591u, for cos;
/// - evaluation: at most 18 roundings on the way of a term (C_7: w, its product and level-1
///   sum (3), w²'s 3 roundings with product and sum (5), w⁴'s 7 with product and sum (9), the
///   level-4 sum), 19 for sin with the product by ρ; by Higham's argument (`estrin_level`)
///   off by at most γ19·(1 + u)·sinh|ρ|, relative 23.35u, for sin, γ18·(1 + u)·cosh ρ,
///   33.72u, for cos;
/// - reduction: |sin r̂ − sin r| ≤ |r̂ − r| ≤ ε·|r| ≤ 1.1108ε·|sin r| < 2.24u·|sin r|, and
///   |cos r̂ − cos r| ≤ ε·|r|·sin R ≤ 0.7855ε·|cos r| < 1.58u·|cos r|.
///
/// The first three are relative to |f(ρ)| ≤ (1 + 2.24u)·|f(r)|, f being the one of sin and
/// cos that the quadrant selects. In total, with the sin polynomial
/// (23.35 + 0.118 + 0.002)u·(1 + 2.24u) + 2.24u < 25.8u, with the cos polynomial
/// (33.72 + 0.46 + 0.03)u·(1 + 2.24u) + 1.58u < 35.8u < 2^-47.8. The quadrant's sign flip is
/// exact.
#[inline(always)]
pub(super) fn sin_lanes(x: f64x8) -> (f64x8, bool) {
    lanes(x, false)
}

/// cos(x) in the same way, cos x being ±cos r or ±sin r as for sin(x + π/2). For |x| < 2^-26
/// the value is 1, off by less than 2^-52.9 relative: 1 ≥ cos x ≥ 1 − x²/2 > 1 − 2^-53, and
/// the f32 rounding boundary below 1 is 1 − 2^-25. ±Inf and NaN give NaN.
#[inline(always)]
pub(super) fn cos_lanes(x: f64x8) -> (f64x8, bool) {
    lanes(x, true)
}

/// [`sin_lanes`] (`cos` false) or [`cos_lanes`].
#[inline(always)]
fn lanes(x: f64x8, cos: bool) -> (f64x8, bool) {
    let finite = x.is_finite();
    let direct = finite.select(if cos { f64x8::ONE } else { x }, f64x8::splat(f64::NAN));
    let tiny = x.abs().simd_lt(f64x8::splat(TINY));
    if (tiny | !finite).all() {
        return (direct, true);
    }
    let shifted = x * f64x8::splat(core::f64::consts::FRAC_2_PI) + f64x8::splat(SHIFTER);
    let k = shifted - f64x8::splat(SHIFTER);
    let t = x - k * f64x8::splat(P1);
    let r = (t - k * f64x8::splat(P2)) - k * f64x8::splat(P3);
    // Quadrant q = k mod 4 (+1 for cos): odd q takes the cos polynomial, q ≥ 2 the sign.
    let q = shifted.to_bits() + u64x8::splat(cos as u64);
    let odd = f64x8::from_bits(u64x8::ZERO - (q & u64x8::ONE));
    let mut coefficients = [f64x8::ZERO; 9];
    for (j, c) in coefficients.iter_mut().enumerate() {
        *c = odd.select(f64x8::splat(COS_TAYLOR[j]), f64x8::splat(SIN_TAYLOR[j]));
    }
    let w = r * r;
    let (w2, w4) = (w * w, (w * w) * (w * w));
    let a: [f64x8; 5] = estrin_level(coefficients, w);
    let b: [f64x8; 3] = estrin_level(a, w2);
    let [p] = estrin_level::<2, 1>(estrin_level(b, w4), w4 * w4);
    let poly = odd.select(p, r * p);
    let signed = f64x8::from_bits(poly.to_bits() ^ ((q & u64x8::splat(2)) << 62));
    let mut value = (tiny | !finite).select(direct, signed);
    let beyond = x.abs().simd_gt(f64x8::splat(LIMIT)) & finite;
    if beyond.any() {
        value = correctly_rounded(x, value, beyond, cos);
    }
    (value, false)
}

/// The lanes of `beyond` (|x| > 2^24) replaced by CORE-MATH's correctly rounded f64 `sin` or
/// `cos` (relative error ≤ 2^-53).
#[inline(never)]
fn correctly_rounded(x: f64x8, value: f64x8, beyond: f64x8, cos: bool) -> f64x8 {
    let f = if cos { core_math::cos } else { core_math::sin };
    let (mut out, mask) = (value.to_array(), beyond.to_bitmask());
    for (i, (o, x)) in out.iter_mut().zip(x.to_array()).enumerate() {
        if mask >> i & 1 == 1 {
            *o = f(x);
        }
    }
    f64x8::new(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// ⌊π/2·2^124⌋ (π/2 = 0x1.921FB54442D18469898CC51701B839A252…).
    const FRAC_PI_2_FIXED: u128 = 0x1921_FB54_442D_1846_9898_CC51_701B_839A;

    /// v·2^scale as an integer; panics unless it is one.
    fn fixed(v: f64, scale: i32) -> i128 {
        let bits = v.to_bits();
        let (exp, frac) = (((bits >> 52) & 0x7FF) as i32, (bits & ((1 << 52) - 1)) as i128);
        let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | 1 << 52, exp - 1075) };
        let shift = e + scale;
        let m = if shift >= 0 {
            m << shift
        } else {
            assert_eq!(m & ((1 << -shift) - 1), 0, "{v:e}·2^{scale} is not an integer");
            m >> -shift
        };
        if v < 0.0 {
            -m
        } else {
            m
        }
    }

    #[test]
    fn pi_over_2_split() {
        // 29 significant bits: the low 24 bits of the significand are zero.
        for p in [P1, P2] {
            assert_eq!(p.to_bits() & ((1 << 24) - 1), 0, "{p:e}");
        }
        assert!(P3.abs() < 2f64.powf(-59.5));
        // τ·2^124 = ⌊π/2·2^124⌋ + θ − (P1 + P2 + P3)·2^124 with θ ∈ [0, 1).
        let rest = FRAC_PI_2_FIXED as i128 - fixed(P1, 124) - fixed(P2, 124) - fixed(P3, 124);
        assert!((-1023..1023).contains(&rest), "τ·2^124 ≈ {rest}");
        assert_eq!(P1 + P2, core::f64::consts::FRAC_PI_2);
    }

    /// The f32 in [½, 2^24] nearest to a nonzero multiple of π/2.
    const NEAREST_TO_MULTIPLE: f32 = 252.89821;

    /// The smallest |x − k·π/2| over every f32 x in [½, 2^24] and both integers k ≠ 0 next to
    /// x·2/π, from exact integer arithmetic in units of 2^-100; returns it (a lower bound) and
    /// the x where it occurs.
    fn smallest_reduced_argument() -> (f64, f32) {
        let pi_2 = FRAC_PI_2_FIXED >> 24; // ⌊π/2·2^100⌋
        let (lo, hi) = (0.5f32.to_bits(), (LIMIT as f32).to_bits());
        (lo..=hi)
            .into_par_iter()
            .map(|b| {
                let x = f32::from_bits(b);
                let xs = fixed(x as f64, 100) as u128;
                let near = (x as f64 * core::f64::consts::FRAC_2_PI).round() as u128;
                // k·π/2·2^100 ∈ [k·pi_2, k·pi_2 + k): |x − k·π/2|·2^100 ≥ |xs − k·pi_2| − k.
                let d = (near.saturating_sub(1).max(1)..=near + 1).map(|k| xs.abs_diff(k * pi_2) - k).min().unwrap();
                (d, b)
            })
            .min()
            .map(|(d, b)| (d as f64 * 2f64.powi(-100), f32::from_bits(b)))
            .unwrap()
    }

    #[test]
    fn reduced_argument_lower_bound() {
        let (d, x) = smallest_reduced_argument();
        eprintln!("smallest |x − kπ/2| for f32 x in [1/2, 2^24], k ≠ 0: {d:e} (2^{:.2}) at x = {x:e}", d.log2());
        assert!(d > 2f64.powf(-27.9));
        assert_eq!(x, NEAREST_TO_MULTIPLE);
    }

    /// The value path against CORE-MATH's correctly rounded f64 functions on every 127th f32
    /// pattern of magnitude up to 2^24 and the 128 around [`NEAREST_TO_MULTIPLE`], both signs:
    /// within the proved 25.8u (sin) and 35.8u (cos).
    #[test]
    fn sample_within_proved_bound() {
        let u = 2f64.powi(-53);
        let near = NEAREST_TO_MULTIPLE.to_bits();
        let mut x: Vec<f64> = (0..=(LIMIT as f32).to_bits())
            .step_by(127)
            .chain(near - 64..near + 64)
            .map(|b| f32::from_bits(b) as f64)
            .collect();
        x.extend(x.clone().into_iter().map(|v| -v));
        for (lanes, f, bound) in [
            (sin_lanes as fn(f64x8) -> (f64x8, bool), core_math::sin as fn(f64) -> f64, 25.8 * u),
            (cos_lanes, core_math::cos, 35.8 * u),
        ] {
            let mut worst: f64 = 0.0;
            for group in x.chunks_exact(8) {
                let (v, _) = lanes(f64x8::new(group.try_into().unwrap()));
                for (&x, v) in group.iter().zip(v.to_array()) {
                    let want = f(x);
                    let e = if v == want { 0.0 } else { ((v - want) / want).abs() };
                    assert!(e <= bound, "{x:e}: {v:e}, want {want:e}");
                    worst = worst.max(e);
                }
            }
            eprintln!("{} inputs, largest relative error {worst:e} (2^{:.2})", x.len(), worst.log2());
        }
    }
}
