//! The error analysis of tensor-core dot products (src/sweep/mma.rs): hand-worked errors in
//! ulps, and the shape of the cancellation report.

use ptxfp::mma::{Mma, MmaInstr};
use ptxfp::ptx::{Target, Variant};
use ptxfp::sweep::mma::{cancellation_error, dot_error};

fn f16(x: f32) -> u64 {
    u64::from(half::f16::from_f32(x).to_bits())
}

fn mma(s: &str, sm: u32) -> Mma {
    Mma::new(MmaInstr::parse(s).unwrap(), Target::new(sm).unwrap()).unwrap()
}

#[test]
fn errors_are_in_ulps_of_d_at_the_exact_value() {
    // MMA-Sim's table 8: 2^23 − 2^23 − 0.5 − 0.25 − 0.125 is −0.875, whose f32 ulp is 2^−24.
    let m = mma("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", 70);
    let a = [4096.0, -4096.0, -0.5, -0.25].map(f16);
    let b = [2048.0, 2048.0, 1.0, 1.0].map(f16);
    let c = u64::from((-0.125f32).to_bits());
    // sm_70 keeps none of the small terms: D = 0, 0.875 above the exact value.
    assert_eq!(dot_error(&m, &a, &b, c, None), Ok(Some(0.875 * 2f64.powi(24))));
    // sm_90 (F = 25) keeps −0.5 and −0.25: D = −0.75.
    let m = mma("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", 90);
    assert_eq!(dot_error(&m, &a, &b, c, None), Ok(Some(0.125 * 2f64.powi(24))));
    // An exactly representable sum has no error; f16 D: ulps of f16.
    let m = mma("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", 80);
    let ones = [1.0f32; 8].map(f16);
    assert_eq!(dot_error(&m, &ones, &ones, f16(1.0), None), Ok(Some(0.0)));
    // 2048 + 1 is a tie in f16 (ulp 2 there): to nearest even gives 2048, −1/2 ulp.
    let mut a = [0.0f32; 8].map(f16);
    a[0] = f16(1.0);
    assert_eq!(dot_error(&m, &a, &ones, f16(2048.0), None), Ok(Some(-0.5)));
    // The exact forms have no error analysis.
    let m = mma("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 80);
    let e = dot_error(&m, &[0; 4], &[0; 4], 0, None).unwrap_err().to_string();
    assert!(e.contains("exact by PTX's definition"), "{e}");
}

#[test]
fn the_cancellation_report_covers_every_pair_count_reproducibly() {
    let m = mma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 80);
    let rows = cancellation_error(&m, 9000, 7).unwrap();
    assert_eq!(rows.len(), 9, "0 to k/2 = 8 cancelling pairs");
    assert!(rows.iter().all(|r| r.cases == 1000), "{rows:?}");
    for r in &rows {
        assert!(r.correctly_rounded <= r.faithful && r.faithful <= r.cases - r.not_finite, "{r:?}");
        assert!(r.mean_abs_ulps <= r.max_abs_ulps, "{r:?}");
    }
    // Without cancellation, the RZ datapath with 24 fraction bits misses by little; with every
    // product cancelled in pairs across blocks, by far more.
    assert!(rows[0].mean_abs_ulps < 10.0 && rows[8].max_abs_ulps > 1e6, "{rows:?}");
    assert_eq!(cancellation_error(&m, 9000, 7).unwrap(), rows, "the same seed, the same rows");
    // Block-scaled forms take their scales; FP4 on sm_120a.
    let s = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3";
    let m = Mma::new(MmaInstr::parse(s).unwrap(), Target::with_variant(120, Variant::Arch).unwrap()).unwrap();
    let rows = cancellation_error(&m, 3300, 1).unwrap();
    assert_eq!(rows.len(), 33);
    assert_eq!(rows.iter().map(|r| r.cases).sum::<u64>(), 3300);
}
