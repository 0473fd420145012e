//! The published hardware fingerprints of MUFU (docs/semantics.md §2.3a): exhaustive histograms of
//! MUFU.RCP and MUFU.RSQ measured on A100 (sm_80), H100 (sm_90) and L40S (sm_89), identical on
//! all three, from github.com/NaciCankaya/hardware_rounding_error_predictor (Apache-2.0; printed
//! probe output in `sim_results/*.ipynb`), transcribed in
//! `../shared/groundtruth/exhaustive_statistics.json`.
//!
//! Each test evaluates the same inputs, computes the same reference the same way and counts
//! the signed difference of raw bit patterns (hardware − reference), as the source did. The
//! model must reproduce every count exactly.

#[cfg(not(feature = "internals"))]
compile_error!("these tests reach ptxfp's internals: run them as the README says, with --features ptxfp/internals");

use std::collections::BTreeMap;

use ptxfp::mufu::{ex2, rcp, rsq};

/// Histogram of `model(x) − reference(x)` over raw bit patterns.
fn histogram(
    inputs: impl Iterator<Item = u32>,
    model: fn(u32) -> u32,
    reference: fn(f64) -> f64,
) -> BTreeMap<i64, u64> {
    let mut h = BTreeMap::new();
    for x in inputs {
        let r = reference(f64::from(f32::from_bits(x))) as f32;
        *h.entry(i64::from(model(x)) - i64::from(r.to_bits())).or_insert(0) += 1;
    }
    h
}

/// The source's buckets: exact, ±1, ±2 or more.
fn buckets(h: &BTreeMap<i64, u64>) -> [u64; 3] {
    let mut b = [0; 3];
    for (&d, &n) in h {
        b[d.unsigned_abs().min(2) as usize] += n;
    }
    b
}

fn rcp_ref(x: f64) -> f64 {
    1.0 / x
}

fn rsq_ref(x: f64) -> f64 {
    1.0 / x.sqrt()
}

/// `rcp.approx.ftz.f32` (MUFU.RCP) over all 2^23 x in [1, 2), reference `f32(1/f64(x))`:
/// hardware 0: 7,280,086, ±1: 1,108,522, ±2 or more: 0. The model's split of the ±1 bucket
/// is −1: 374,723, +1: 733,799 (docs/semantics.md §2.3a).
#[test]
fn mufu_rcp_fingerprint_one_to_two() {
    let h = histogram(0x3F80_0000..=0x3FFF_FFFF, rcp, rcp_ref);
    assert_eq!(buckets(&h), [7_280_086, 1_108_522, 0], "{h:?}");
    assert_eq!(h, BTreeMap::from([(-1, 374_723), (0, 7_280_086), (1, 733_799)]));
}

/// MUFU.RSQ (`rsqrt.approx.f32` on sm_80) over all 2^23 x in [1, 2), reference
/// `f32(1/sqrt(f64(x)))`: hardware 0: 6,505,163, ±1: 1,883,437, ±2 or more: 8. Model split:
/// −1: 1,265,297, +1: 618,140, −2: 8 (docs/semantics.md §2.3a).
#[test]
fn mufu_rsq_fingerprint_one_to_two() {
    let h = histogram(0x3F80_0000..=0x3FFF_FFFF, rsq, rsq_ref);
    assert_eq!(buckets(&h), [6_505_163, 1_883_437, 8], "{h:?}");
    assert_eq!(h, BTreeMap::from([(-2, 8), (-1, 1_265_297), (0, 6_505_163), (1, 618_140)]));
}

/// MUFU.RSQ over all 2^23 x in [2, 4): hardware 0: 6,637,923, ±1: 1,750,685, ±2 or more: 0.
/// Model split: −1: 1,079,094, +1: 671,591 (docs/semantics.md §2.3a).
#[test]
fn mufu_rsq_fingerprint_two_to_four() {
    let h = histogram(0x4000_0000..=0x407F_FFFF, rsq, rsq_ref);
    assert_eq!(buckets(&h), [6_637_923, 1_750_685, 0], "{h:?}");
    assert_eq!(h, BTreeMap::from([(-1, 1_079_094), (0, 6_637_923), (1, 671_591)]));
}

/// "Table probed at biased exp 127 equals table at biased exp 128 for 8388608/8388608
/// mantissas" (MUFU.RCP, same source): the result's fraction depends only on x's fraction.
#[test]
fn mufu_rcp_exponent_independence() {
    for x in 0x3F80_0000u32..=0x3FFF_FFFF {
        assert_eq!(rcp(x + (1 << 23)) & 0x7F_FFFF, rcp(x) & 0x7F_FFFF, "x = {x:#x}");
    }
}

/// MUFU.RSQ "depends only on mantissa and exponent parity; output exponent exact" (same
/// source): x and 4x give the same fraction, the exponent one lower.
#[test]
fn mufu_rsq_depends_on_fraction_and_parity() {
    for x in 0x3F80_0000u32..0x4080_0000 {
        assert_eq!(rsq(x + (2 << 23)), rsq(x) - (1 << 23), "x = {x:#x}");
    }
}

/// MUFU.EX2 (`ex2.approx.ftz.f32`), same source, reference `f32(exp2(f64(x)))`: "for |x| ≥ 1
/// the correction depends only on the fraction bits: tables at integer part n = 0 vs n = 1
/// agree 100%", and "results that would be subnormal come out as 0". The correction
/// (hw − ref) at x = f·2^-23 equals the one at 1 + f·2^-23 for every 23-bit fraction f, on
/// both signs. No histogram was published, so this is the structural claim only [INF model].
#[test]
fn mufu_ex2_correction_depends_on_fraction_only() {
    let corr = |x: f32| i64::from(ex2(x.to_bits())) - i64::from((f64::from(x).exp2() as f32).to_bits());
    for f in 0..1u32 << 23 {
        let t = f as f32 / (1u32 << 23) as f32;
        assert_eq!(corr(t), corr(1.0 + t), "f = {f:#x}");
        assert_eq!(corr(-t), corr(-1.0 - t), "f = -{f:#x}");
    }
    // Subnormal results are flushed to +0.
    for x in [-126.25f32, -127.0, -140.0, -149.0] {
        assert_eq!(ex2(x.to_bits()), 0, "ex2({x})");
    }
}
