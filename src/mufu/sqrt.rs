//! MUFU.SQRT: the square root of an f32 (sm_52+), and the table designer shared with
//! [`super::tanh`].
//!
//! **Not hardware-verified.** No public model of MUFU.SQRT exists (SEMANTICS §2.3, §7 item 2):
//! everything below is a model \[UNK\] built to the documented behaviour, not a reconstruction.

use std::sync::LazyLock;

use super::{interpolate, pack, sq, Row, F32, NAN};
use crate::format::Class;

/// Accumulator layout of the SQRT table: `acc = (c0 << 14) + c1·xl + c2·sq(xl)` ≈ √m · 2^39,
/// the layout of the Tesla RSQ table (c0 << 14) with the square term unshifted (√ bends less
/// than 1/√).
const S0: u32 = 14;
const S2: u32 = 0;
/// Coefficient magnitudes in bits (c0, c1, c2): the Tesla RCP/RSQ geometry [26, 16, 10].
const WIDTHS: [u32; 3] = [26, 16, 10];
/// Round to nearest at the 24-bit significand (acc >> 16): half an ulp.
const ROUND: i64 = 1 << 15;

/// The 128-row SQRT table, designed at first use (no data file).
static TABLE: LazyLock<[Row; 128]> = LazyLock::new(|| std::array::from_fn(design));

/// Row `r` of the SQRT table: it covers `m ∈ [p·(1 + j/64), p·(1 + (j+1)/64))` of the domain
/// [1, 4), with `p = 1 + (r >> 6)` (exponent parity) and `j = r & 63`, exactly like the RSQ
/// index; target √m · 2^39.
fn design(r: usize) -> Row {
    let p = 1.0 + (r >> 6) as f64;
    let j = (r & 63) as f64;
    let row = design_row(S0, S2, |xl| (p * (1.0 + (j + xl / 131072.0) / 64.0)).sqrt() * 2f64.powi(39));
    check_widths(row, WIDTHS, "sqrt");
    row
}

/// The SQRT table (designed on first use).
pub fn table() -> &'static [Row; 128] {
    &TABLE
}

/// MUFU.SQRT of the f32 `x` (bit pattern in, bit pattern out).
///
/// **Model, not hardware-verified** \[UNK; SEMANTICS §2.3, §7 item 2\]. Design: MUFU.SQRT
/// arrived on sm_52 as one more function of the same multifunction interpolator (on sm_50
/// ptxas still emits RCP(RSQ(x)), SEMANTICS §1.1), so the model gives it one more table in the
/// RSQ geometry: 128 rows × [26, 16, 10]-bit coefficients indexed by the exponent parity and
/// the top 6 fraction bits (domain [1, 4)), the Tesla truncated squarer, and a rounding
/// constant. A dedicated table is needed: `x·RSQ(x)` or `RCP(RSQ(x))` cannot meet the
/// documented 2^-23 (RSQ alone is 2^-22.9).
///
/// Datapath: with e = e_in − 127, f = frac | (e & 1) << 23 and e >>= 1 (floor),
/// idx = f >> 17, xl = f & 0x1FFFF,
/// `q = ((c0 << 14) + c1·xl + c2·sq(xl) + 2^15) >> 16` is the significand (2^24 renormalises)
/// and `127 + e` the biased exponent. An even power of two (f = 0) is exact, as in RSQ
/// ("output must be exactly 1.0 if the input is exactly 1.0", opMUFU). The result depends only
/// on the fraction and the exponent parity, and is always normal.
///
/// The coefficients are designed deterministically at first use (`design_row`: Chebyshev
/// quadratic per segment, then quantised c2 → c1 → c0 against this exact datapath).
///
/// Accuracy: max relative error 2^-23.39 (0.79 ulp) over all positive normal inputs
/// (exhaustive on [1, 4), which covers every fraction and exponent parity); the bound of
/// `sqrt.approx.f32`, PTX 9.7.3.15, is 2^-23. Never more than 1 ulp from the correctly rounded
/// root. (opMUFU's "close to 2^-20" for SQRT is weaker than PTX's 2^-23.)
///
/// Specials \[DOC opMUFU, PTX 9.7.3.15\]: ±0 → ±0, ±subnormal → ±0 (input FTZ; SQRT(−denorm) =
/// −0), +Inf → +Inf, −Inf and negative normals → NaN, NaN → 0x7FFFFFFF.
pub fn sqrt(x: u32) -> u32 {
    let neg = x >> 31 != 0;
    match F32.classify(x.into()) {
        Class::Nan => NAN,
        Class::Zero | Class::Subnormal => F32.zero(neg) as u32,
        _ if neg => NAN,
        Class::Inf => F32.inf(false) as u32,
        Class::Normal => {
            let e = (x >> 23 & 0xFF) as i32 - 127;
            let f = (x & 0x7F_FFFF) | ((e & 1) as u32) << 23;
            let half = e >> 1;
            if f == 0 {
                return pack(false, 127 + half, 1 << 23);
            }
            let row = table()[(f >> 17) as usize];
            let xl = f & 0x1_FFFF;
            let q = (interpolate(row, S0, xl, sq(xl), S2) + ROUND) >> 16;
            pack(false, 127 + half, q as u32)
        }
    }
}

/// Panic (a design defect, found on first use) if a designed row does not fit the stated
/// coefficient magnitudes.
pub(crate) fn check_widths(row: Row, widths: [u32; 3], what: &str) {
    for (c, w) in row.iter().zip(widths) {
        assert!(c.unsigned_abs() < 1 << w, "{what} table: coefficient {c} does not fit {w} bits: {row:?}");
    }
}

/// Design one quantised row `[c0, c1, c2]` of a quadratic-interpolation table for the
/// datapath `acc(xl) = (c0 << s0) + c1·xl + ((c2·sq(xl)) << s2)` over one segment, where
/// `xl ∈ [0, 2^17)` is the 17-bit operand and `target(xl)` the exact function in accumulator
/// units (evaluated in f64 at real `xl`).
///
/// A fixed, deterministic procedure in the style of US 7,366,745 (minimax fit, then
/// sequential quantisation with re-optimisation of the lower-order coefficients; SEMANTICS
/// §2.1), run at first use. It uses only IEEE-exact f64 operations (+ − × ÷ √, no libm), so
/// the table is the same on every platform provided `target` is too:
/// 1. the quadratic through the three Chebyshev nodes of the segment (near-minimax);
/// 2. for c2 ∈ round(c2*) ± 3: the line through the two Chebyshev nodes of the remainder
///    `target − c2·xl²·2^(s2−19)` gives c1*, and c1 ∈ [⌊c1*⌋ − 1, ⌈c1*⌉ + 1];
/// 3. each (c1, c2) is scored by the spread (max − min) of `target − c1·xl − (c2·sq(xl) << s2)`
///    on 65 points, with the real truncated squarer; the smallest spread wins (first on ties);
/// 4. c0 centres that remainder on 4097 points (every 32nd xl and the last):
///    `c0 = round((max + min) / 2 / 2^s0)`.
pub(crate) fn design_row(s0: u32, s2: u32, target: impl Fn(f64) -> f64) -> Row {
    const N: f64 = 131072.0; // 2^17
                             // Chebyshev nodes of [0, N]: N·(1 − cos((2k+1)π/2n))/2, with the cosines written as roots.
    let (c3, c2n) = (3f64.sqrt() / 2.0, 2f64.sqrt() / 2.0); // cos(π/6), cos(π/4)
    let x = [N * (1.0 - c3) / 2.0, N / 2.0, N * (1.0 + c3) / 2.0];
    let (u, v) = (N * (1.0 - c2n) / 2.0, N * (1.0 + c2n) / 2.0);
    // 1. Newton form through three nodes; a2 is the xl² coefficient.
    let y = x.map(&target);
    let d01 = (y[1] - y[0]) / (x[1] - x[0]);
    let d12 = (y[2] - y[1]) / (x[2] - x[1]);
    let a2 = (d12 - d01) / (x[2] - x[0]);
    let sq_scale = 2f64.powi(s2 as i32 - 19); // c2·sq(xl) << s2 ≈ c2·xl²·sq_scale
    let c2_star = (a2 / sq_scale).round() as i64;

    let remainder = |c1: i64, c2: i64, xl: u32| -> f64 {
        let v = c1 * i64::from(xl) + ((c2 * i64::from(sq(xl))) << s2);
        target(f64::from(xl)) - v as f64
    };
    let spread = |c1: i64, c2: i64, step: u32| -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for xl in (0..1u32 << 17).step_by(step as usize).chain([(1 << 17) - 1]) {
            let r = remainder(c1, c2, xl);
            lo = lo.min(r);
            hi = hi.max(r);
        }
        (lo, hi)
    };

    let mut best: Option<(f64, i64, i64)> = None;
    for c2 in c2_star - 3..=c2_star + 3 {
        let g = |xl: f64| target(xl) - c2 as f64 * sq_scale * xl * xl;
        let c1_star = (g(v) - g(u)) / (v - u);
        for c1 in c1_star.floor() as i64 - 1..=c1_star.ceil() as i64 + 1 {
            let (lo, hi) = spread(c1, c2, 1 << 11);
            if best.is_none_or(|(s, _, _)| hi - lo < s) {
                best = Some((hi - lo, c1, c2));
            }
        }
    }
    let (_, c1, c2) = best.expect("at least one candidate");
    let (lo, hi) = spread(c1, c2, 32);
    let c0 = ((lo + hi) / 2.0 / 2f64.powi(s0 as i32)).round() as i64;
    [c0, c1, c2].map(|c| i32::try_from(c).expect("coefficient fits i32"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const INF: u32 = 0x7F80_0000;

    #[test]
    fn special_values_of_the_mufu_page_and_ptx() {
        // opMUFU: SQRT(-denorm) = -0, SQRT(-0) = -0, SQRT(+0) = +0, SQRT(+denorm) = +0,
        // SQRT(-Inf) = NaN, SQRT(+Inf) = +Inf, SQRT(NaN) = NaN (0x7FFFFFFF).
        // PTX 9.7.3.15: -normal → NaN; exactly 1.0 for 1.0 (opMUFU).
        for denorm in [0x0000_0001, 0x0040_0000, 0x007F_FFFF] {
            assert_eq!(sqrt(denorm | 0x8000_0000), 0x8000_0000);
            assert_eq!(sqrt(denorm), 0);
        }
        assert_eq!(sqrt(0x8000_0000), 0x8000_0000);
        assert_eq!(sqrt(0), 0);
        assert_eq!(sqrt(0xFF80_0000), NAN);
        assert_eq!(sqrt(INF), INF);
        for neg in [0xBF80_0000, 0x8080_0000, 0xFF7F_FFFF, 0xC080_0000] {
            assert_eq!(sqrt(neg), NAN, "sqrt({neg:#x})");
        }
        for nan in [0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0x7FFF_FFFF] {
            assert_eq!(sqrt(nan), NAN);
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

    #[test]
    fn table_is_deterministic_and_fits_its_widths() {
        let t = table();
        for row in t {
            check_widths(*row, WIDTHS, "sqrt");
            assert!(row[1] > 0 && row[2] <= 0, "√ rises and bends down: {row:?}");
        }
        // Designing again gives the same bits.
        for r in [0, 1, 63, 64, 127] {
            assert_eq!(design(r), t[r]);
        }
    }

    /// FNV-1a over every coefficient: pins the designed table, so that any change to the
    /// design procedure (and with it to the model's bits) is deliberate.
    pub(crate) fn fingerprint(rows: &[Row]) -> u64 {
        rows.iter()
            .flatten()
            .fold(0xCBF2_9CE4_8422_2325, |h, &c| (h ^ u64::from(c as u32)).wrapping_mul(0x100_0000_01B3))
    }

    #[test]
    fn table_fingerprint_is_pinned() {
        let t = table();
        assert_eq!(t[0], [33_554_431, 32_768, -508]);
        assert_eq!(t[127], [66_846_206, 32_897, -259]);
        assert_eq!(fingerprint(t), 0xC7D2_8ACA_B6E5_234A);
    }
}
