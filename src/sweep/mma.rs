//! Error analysis of a tensor-core dot product: `D` from the instruction's datapath against the
//! exact `c + Σ a·b` (block scales included), in units in the last place of `D`'s format at the
//! exact value, on seeded random dot products with planted cancellation, reported by the number
//! of cancelling product pairs: what truncated alignment loses as cancellation grows.
//!
//! A case draws one row of `A`, one column of `B`, `C` (a quarter of the time +0) and the scales
//! as random finite codes, then makes `t` pairs of products cancel exactly (`a_j = −a_i`,
//! `b_j = b_i`) and shuffles the k positions, so that pairs fall in one block or across blocks;
//! `t` runs over 0..=k/2 in turn (a block-scaled form's pairs cancel where both fall under one
//! scale). The exact sum uses the inputs as the datapath sees them
//! (tf32 with its low 13 bits cut). Cases whose `D` is not finite are counted apart.

use num_bigint::BigInt;

use crate::format::Unpacked;
use crate::mma::{Mma, MmaType, Operation};
use crate::sweep::domain::Rng;

/// The least exponent of any exact term (products of scaled FP4 at 2^−256, f32 subnormals at
/// 2^−149): every term is an integer multiple of 2^EMIN.
const EMIN: i32 = -600;

/// The error of the dot products with one number of cancelling pairs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CancelRow {
    pub cancelling_pairs: u32,
    pub cases: u64,
    /// `|error| ≤ 0.5` ulp: `D` is the exact sum rounded to nearest (up to ties).
    pub correctly_rounded: u64,
    /// `|error| < 1` ulp.
    pub faithful: u64,
    pub mean_abs_ulps: f64,
    pub max_abs_ulps: f64,
    /// Cases whose `D` is an infinity or NaN (left out of the statistics).
    pub not_finite: u64,
}

/// Why an instruction has no error analysis.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{instr}: the error analysis covers the floating-point forms (f64 and the integer forms are exact by PTX's definition)")]
pub struct NotFloat {
    pub instr: String,
}

fn exact_of(ty: MmaType, code: u64) -> Option<(bool, BigInt, i32)> {
    match ty.decode(code as u32) {
        Unpacked::Finite { neg, exp, sig } => Some((neg, BigInt::from(sig), exp)),
        Unpacked::Zero { neg } => Some((neg, BigInt::from(0), 0)),
        _ => None,
    }
}

/// `sig · 2^exp` as a multiple of 2^EMIN.
fn scaled(neg: bool, sig: BigInt, exp: i32) -> BigInt {
    let v = sig << (exp - EMIN) as usize;
    if neg {
        -v
    } else {
        v
    }
}

/// A random finite code of `ty` (ue8m0 kept within 2^±8 so that scaled sums stay finite).
fn finite_code(rng: &mut Rng, ty: MmaType) -> u64 {
    loop {
        let code = rng.next() & u64::from(ty.mask());
        let code = match ty {
            MmaType::Ue8m0 => 119 + rng.below(17),
            MmaType::Ue4m3 => code & 0x7F,
            _ => code,
        };
        if exact_of(ty, code).is_some() {
            return code;
        }
    }
}

/// The types of a floating-point form: A, B, C, D and the scales with their count per row.
type FloatTypes = (MmaType, MmaType, MmaType, MmaType, Option<(MmaType, usize)>);

fn float_types(mma: &Mma) -> Result<FloatTypes, NotFloat> {
    match mma.instr().op {
        Operation::Float { a, b, c, d, .. } => Ok((a, b, c, d, None)),
        Operation::BlockScaled { a, b, scale, vec, .. } => {
            Ok((a, b, MmaType::F32, MmaType::F32, Some((scale, vec as usize))))
        }
        _ => Err(NotFloat { instr: mma.instr().to_string() }),
    }
}

/// One dot product of `mma` ([`Mma::dot`]: a row of A, a column of B, `c`, the row's and the
/// column's scales) against its exact value: `D − exact` in ulps of D's format at the exact
/// value (signed), `None` where D is an infinity or NaN. The codes must be finite.
pub fn dot_error(
    mma: &Mma,
    a: &[u64],
    b: &[u64],
    c: u64,
    scales: Option<(&[u64], &[u64])>,
) -> Result<Option<f64>, NotFloat> {
    let (ta, tb, tc, td, scale) = float_types(mma)?;
    let d = mma.dot(a, b, c, scales);
    let k = a.len();
    let mut exact = {
        let (neg, sig, exp) = exact_of(tc, c).expect("a finite C");
        scaled(neg, sig, exp)
    };
    for kk in 0..k {
        let (na, sga, ea) = exact_of(ta, a[kk]).expect("a finite A");
        let (nb, sgb, eb) = exact_of(tb, b[kk]).expect("a finite B");
        let (mut neg, mut sig, mut exp) = (na ^ nb, sga * sgb, ea + eb);
        if let (Some((st, v)), Some((sa, sb))) = (scale, scales) {
            let s = kk / (k / v);
            let (n1, s1, e1) = exact_of(st, sa[s]).expect("a finite scale");
            let (n2, s2, e2) = exact_of(st, sb[s]).expect("a finite scale");
            neg ^= n1 ^ n2;
            sig = sig * s1 * s2;
            exp += e1 + e2;
        }
        exact += scaled(neg, sig, exp);
    }
    Ok(error_ulps(td, d as u32, &exact))
}

/// The error of `d`, in ulps of `out` at `exact` (a multiple of 2^EMIN).
fn error_ulps(out: MmaType, d: u32, exact: &BigInt) -> Option<f64> {
    let (neg, sig, exp) = exact_of(out, u64::from(d))?;
    let err = scaled(neg, sig, exp) - exact;
    let (p, emin) = match out {
        MmaType::F16 => (11, -14),
        _ => (24, -126),
    };
    let floor_log2 = if exact.bits() == 0 { emin } else { exact.bits() as i32 - 1 + EMIN };
    let ulp_exp = floor_log2.max(emin) - (p - 1);
    Some(to_f64(&err, ulp_exp - EMIN))
}

/// `x / 2^shift` as an f64, `x` however long.
fn to_f64(x: &BigInt, shift: i32) -> f64 {
    let bits = x.bits() as i32;
    // The top 64 bits, then their place.
    let drop = (bits - 64).max(0);
    let top = x.magnitude() >> drop as usize;
    let top = top.to_u64_digits().first().copied().unwrap_or(0) as f64;
    let v = top * 2f64.powi(drop - shift);
    if x.sign() == num_bigint::Sign::Minus {
        -v
    } else {
        v
    }
}

/// `cases` seeded dot products of `mma` ([`Mma::dot`]): the error by the number of cancelling
/// pairs.
pub fn cancellation_error(mma: &Mma, cases: u64, seed: u64) -> Result<Vec<CancelRow>, NotFloat> {
    let (ta, tb, tc, _, scale) = float_types(mma)?;
    let k = mma.instr().shape.k as usize;
    let pairs_max = (k / 2) as u32;
    let mut rows: Vec<CancelRow> = (0..=pairs_max)
        .map(|t| CancelRow {
            cancelling_pairs: t,
            cases: 0,
            correctly_rounded: 0,
            faithful: 0,
            mean_abs_ulps: 0.0,
            max_abs_ulps: 0.0,
            not_finite: 0,
        })
        .collect();
    let vec = scale.map_or(0, |(_, v)| v);
    let (mut sa, mut sb) = (vec![0u64; vec], vec![0u64; vec]);
    let sign = |ty: MmaType| 1u64 << (ty.bits() - 1);
    for case in 0..cases {
        let mut rng = Rng::for_case(seed, case);
        let t = (case % u64::from(pairs_max + 1)) as usize;
        let mut row: Vec<u64> = (0..k).map(|_| finite_code(&mut rng, ta)).collect();
        let mut col: Vec<u64> = (0..k).map(|_| finite_code(&mut rng, tb)).collect();
        for i in 0..t {
            row[2 * i + 1] = row[2 * i] ^ sign(ta);
            col[2 * i + 1] = col[2 * i];
        }
        // A Fisher–Yates shuffle of the positions.
        for i in (1..k).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            row.swap(i, j);
            col.swap(i, j);
        }
        let c0 = if rng.below(4) == 0 { 0 } else { finite_code(&mut rng, tc) };
        if let Some((st, v)) = scale {
            for s in 0..v {
                sa[s] = finite_code(&mut rng, st);
                sb[s] = finite_code(&mut rng, st);
            }
        }
        let error = dot_error(mma, &row, &col, c0, scale.map(|_| (&sa[..], &sb[..])))?;
        let r = &mut rows[t];
        r.cases += 1;
        match error {
            Some(e) => {
                let e = e.abs();
                r.correctly_rounded += u64::from(e <= 0.5);
                r.faithful += u64::from(e < 1.0);
                r.mean_abs_ulps += e;
                r.max_abs_ulps = r.max_abs_ulps.max(e);
            }
            None => r.not_finite += 1,
        }
    }
    for r in &mut rows {
        let finite = r.cases - r.not_finite;
        if finite > 0 {
            r.mean_abs_ulps /= finite as f64;
        }
    }
    Ok(rows)
}
