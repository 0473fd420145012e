//! Published measurements of real NVIDIA GPUs (the project's copy of the numbers is in this
//! file; source: ../shared/groundtruth/, SEMANTICS §2.3a), reproduced through the PTX
//! instructions.

use std::collections::BTreeMap;

use ptxfp::{Instr, Target};

fn instr(s: &str) -> Instr {
    s.parse().unwrap()
}

/// Signed difference of raw bit patterns, hardware model minus reference, counted over all
/// 2^23 inputs of one binade.
fn histogram(spelling: &str, first: u32, reference: impl Fn(f32) -> f32) -> BTreeMap<i64, u64> {
    let i = instr(spelling);
    let mut counts = BTreeMap::new();
    for bits in first..first + (1 << 23) {
        let got = i.eval(&[bits as u64]).unwrap() as i64;
        let want = reference(f32::from_bits(bits)).to_bits() as i64;
        *counts.entry(got - want).or_insert(0) += 1;
    }
    counts
}

fn folded(h: &BTreeMap<i64, u64>) -> (u64, u64, u64) {
    let at = |d: i64| h.get(&d).copied().unwrap_or(0);
    let further: u64 = h.iter().filter(|(d, _)| d.abs() >= 2).map(|(_, c)| c).sum();
    (at(0), at(-1) + at(1), further)
}

#[test]
fn mufu_rcp_fingerprint_on_1_2() {
    // rcp.approx.ftz.f32 = MUFU.RCP; reference float32(1.0 / float64(x)).
    let h = histogram("rcp.approx.ftz.f32", 0x3F80_0000, |x| (1.0 / x as f64) as f32);
    assert_eq!(folded(&h), (7_280_086, 1_108_522, 0), "{h:?}");
}

#[test]
fn mufu_rsq_fingerprint_on_1_2_and_2_4() {
    // rsqrt.approx.f32 (bare MUFU.RSQ for normal inputs); reference
    // float32(1.0 / numpy.sqrt(float64(x))): two f64 roundings, then the f32 rounding.
    let reference = |x: f32| (1.0 / (x as f64).sqrt()) as f32;
    let h = histogram("rsqrt.approx.f32", 0x3F80_0000, reference);
    assert_eq!(folded(&h), (6_505_163, 1_883_437, 8), "{h:?}");
    let h = histogram("rsqrt.approx.f32", 0x4000_0000, reference);
    assert_eq!(folded(&h), (6_637_923, 1_750_685, 0), "{h:?}");
}

#[test]
fn exact_points_asserted_on_hardware() {
    // ZLUDA's CUDA-run tests (ptx/src/test/spirv_run/), bit for bit.
    let f = |x: f32| x.to_bits() as u64;
    let cases: [(&str, &[u64], u64); 9] = [
        ("ex2.approx.f32", &[f(10.0)], f(1024.0)),
        ("lg2.approx.f32", &[f(512.0)], f(9.0)),
        ("sin.approx.f32", &[0x3FC9_0FDB], f(1.0)),
        ("cos.approx.f32", &[0x4049_0FDB], f(-1.0)),
        ("rcp.approx.f32", &[f(2.0)], f(0.5)),
        ("sqrt.approx.f32", &[f(0.25)], f(0.5)),
        ("div.approx.f32", &[f(1.0), f(2.0)], f(0.5)),
        ("rsqrt.approx.f64", &[0.25f64.to_bits()], 2.0f64.to_bits()),
        ("tanh.approx.f32", &[f(f32::INFINITY)], f(1.0)),
    ];
    for (spelling, x, want) in cases {
        assert_eq!(instr(spelling).eval(x).unwrap(), want, "{spelling}");
    }
}

#[test]
fn ex2_depends_only_on_the_fraction_for_large_arguments() {
    // For |x| >= 1 the deviation of MUFU.EX2 depends only on the fraction bits: moving the
    // integer part by one scales the result by exactly two.
    let ex2 = instr("ex2.approx.ftz.f32");
    for bits in (0x3F80_0000u32..0x4000_0000).step_by(2) {
        for sign in [0u32, 0x8000_0000] {
            let x = f32::from_bits(bits | sign);
            let y = if sign == 0 { x + 1.0 } else { x - 1.0 };
            let rx = f32::from_bits(ex2.eval(&[x.to_bits() as u64]).unwrap() as u32);
            let ry = f32::from_bits(ex2.eval(&[y.to_bits() as u64]).unwrap() as u32);
            let expect = if sign == 0 { rx * 2.0 } else { rx / 2.0 };
            assert_eq!(ry.to_bits(), expect.to_bits(), "ex2({y}) vs ex2({x})");
        }
    }
    // Results that would be subnormal come out as zero (ftz).
    assert_eq!(ex2.eval(&[(-130.0f32).to_bits() as u64]).unwrap(), 0);
}

#[test]
fn div_full_of_one_is_rcp_approx_ftz_on_a_sample() {
    // Claimed for all float32 x with 2^-126 <= |x| <= 2^126 and x = ±Inf.
    let div = instr("div.full.f32");
    let rcp = instr("rcp.approx.ftz.f32");
    let one = 1.0f32.to_bits() as u64;
    for bits in (0u32..=u32::MAX).step_by(997) {
        let x = f32::from_bits(bits);
        let m = x.abs();
        if !(m.is_infinite() || (f32::MIN_POSITIVE..=2f32.powi(126)).contains(&m)) {
            continue;
        }
        let b = bits as u64;
        assert_eq!(div.eval(&[one, b]).unwrap(), rcp.eval(&[b]).unwrap(), "x = {bits:#x}");
    }
    // Beyond 2^126 rcp.approx.ftz flushes 1/x to zero.
    assert_eq!(rcp.eval(&[0x7F00_0000]).unwrap(), 0);
    assert_eq!(rcp.eval(&[0xFF00_0000]).unwrap(), 0x8000_0000);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn div_full_of_one_is_rcp_approx_ftz_everywhere_claimed() {
    use rayon::prelude::*;
    let div = instr("div.full.f32");
    let rcp = instr("rcp.approx.ftz.f32");
    let claimed = |bits: &u32| {
        let m = f32::from_bits(*bits).abs();
        m.is_infinite() || (f32::MIN_POSITIVE..=2f32.powi(126)).contains(&m)
    };
    let mismatches: u64 = (0u64..1 << 16)
        .into_par_iter()
        .map(|block| {
            let x: Vec<u32> = (block << 16..(block + 1) << 16).map(|b| b as u32).filter(claimed).collect();
            let ones = vec![1.0f32.to_bits(); x.len()];
            let (mut q, mut r) = (vec![0u32; x.len()], vec![0u32; x.len()]);
            div.eval_batch(Target::DEFAULT, &[&ones[..], &x[..]], &mut q).unwrap();
            rcp.eval_batch(Target::DEFAULT, &[&x[..]], &mut r).unwrap();
            q.iter().zip(&r).filter(|(a, b)| a != b).count() as u64
        })
        .sum();
    assert_eq!(mismatches, 0);
}

#[test]
fn targets_do_not_change_rcp_rsqrt_results() {
    // SEMANTICS §1.1: the rcp/rsqrt sequences are the same on sm_52 … sm_120.
    let r = instr("rsqrt.approx.f32");
    for bits in (0u32..=u32::MAX).step_by(65_537) {
        let a = r.eval_on(Target::new(52).unwrap(), &[bits as u64]).unwrap();
        let b = r.eval_on(Target::new(120).unwrap(), &[bits as u64]).unwrap();
        assert_eq!(a, b);
    }
}
