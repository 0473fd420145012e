//! Published measurements of real NVIDIA GPUs (the project's copy of the numbers is in this
//! file; source: ../shared/groundtruth/, docs/semantics.md §2.3a), reproduced through the PTX
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
    // HW-derived: tanh.approx.f32 near saturation, pinned by a GPU's bf16 GELU dump.
    let tanh = instr("tanh.approx.f32");
    for (x, want) in [(0xC0F3_A256, 0xBF7F_FFF7), (0xC0FA_1FA1, 0xBF7F_FFFA), (0xC0FD_6A9B, 0xBF7F_FFFB)] {
        assert_eq!(tanh.eval(&[x]).unwrap(), want, "tanh.approx.f32({x:#x})");
    }
    for x in [0xC100_5EF2, 0xC102_0CC1, 0xC103_BEC4, 0xC105_7503, 0xC107_2F81, 0xC108_EE49, 0xC10A_B15E, 0xC10C_78CB] {
        assert_eq!(tanh.eval(&[x]).unwrap(), 0xBF80_0000, "tanh.approx.f32({x:#x})");
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
    // docs/semantics.md §1.1: the rcp/rsqrt sequences are the same on sm_52 … sm_120.
    let r = instr("rsqrt.approx.f32");
    for bits in (0u32..=u32::MAX).step_by(65_537) {
        let a = r.eval_on(Target::new(52).unwrap(), &[bits as u64]).unwrap();
        let b = r.eval_on(Target::new(120).unwrap(), &[bits as u64]).unwrap();
        assert_eq!(a, b);
    }
}

/// `v100_exp2f_exhaustive.json`: CUDA's exp2f (= `ex2.approx.f32`, non-ftz) on a Tesla V100
/// (sm_70) over every finite float (n = 0..0x7F7FFFFF and its negation) against the correctly
/// rounded binary32 value with subnormals (MPFR there; CORE-MATH's `exp2f`, also correctly
/// rounded, here): 189,192,458 inputs differ in some bit, 983,637 are two or more steps away by
/// the log's recipe trunc(|y − z| / |nextafterf(z, y) − z|) > 1, and the worst input 0xC2FC500A
/// gives 0x0072DAF3 against 0x0072DAF5. Source: github.com/VinInn/ctest, cuda/fullCheckAll.log.
#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn v100_exp2f_fingerprint() {
    use rayon::prelude::*;
    let ex2 = instr("ex2.approx.f32");
    let target: Target = "sm_70".parse().unwrap();
    let steps = |y: f32, z: f32| -> u64 {
        let toward = if y > z { z.next_up() } else { z.next_down() };
        ((f64::from(y) - f64::from(z)).abs() / (f64::from(toward) - f64::from(z)).abs()).trunc() as u64
    };
    const BLOCK: u32 = 1 << 16;
    let (errors, errors2) = (0..0x7F80_0000u32 / BLOCK)
        .into_par_iter()
        .map(|b| {
            let xs: Vec<u32> = (b * BLOCK..(b + 1) * BLOCK).flat_map(|n| [n, n | 0x8000_0000]).collect();
            let mut ys = vec![0u32; xs.len()];
            ex2.eval_batch(target, &[&xs[..]], &mut ys).unwrap();
            let (mut e, mut e2) = (0u64, 0u64);
            for (&x, &y) in xs.iter().zip(&ys) {
                let z = core_math::exp2f(f32::from_bits(x));
                if y != z.to_bits() {
                    e += 1;
                    e2 += u64::from(steps(f32::from_bits(y), z) > 1);
                }
            }
            (e, e2)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert_eq!((errors, errors2), (189_192_458, 983_637));
    assert_eq!(ex2.eval_on(target, &[0xC2FC_500A]).unwrap(), 0x0072_DAF3);
    assert_eq!(core_math::exp2f(f32::from_bits(0xC2FC_500A)).to_bits(), 0x0072_DAF5);
}

/// `nvidia_statements.json`: NVIDIA's figure for `rsqrt.approx.f32` (MUFU.RSQ plus the two
/// FMULs of the non-ftz lowering) is "an accuracy over the entire range of 1.51 ulps"
/// (NVIDIA/cccl pull request 5375): the maximum over every positive finite input, against
/// CORE-MATH's correctly rounded rsqrt in f64, measured in units of the last place of f32
/// values in the exact result's binade, must round to 1.51.
#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn rsqrt_whole_range_maximum_is_nvidias_1_51_ulps() {
    use rayon::prelude::*;
    let rsqrt = instr("rsqrt.approx.f32");
    const BLOCK: u32 = 1 << 16;
    let max = (1..0x7F80_0000u32 / BLOCK + 1)
        .into_par_iter()
        .map(|b| {
            let xs: Vec<u32> = ((b - 1) * BLOCK..b * BLOCK).filter(|&n| n != 0).collect();
            let mut ys = vec![0u32; xs.len()];
            rsqrt.eval_batch(Target::DEFAULT, &[&xs[..]], &mut ys).unwrap();
            xs.iter().zip(&ys).fold(0f64, |m, (&x, &y)| {
                let exact = core_math::rsqrt(f64::from(f32::from_bits(x)));
                // The f32 spacing of exact's binade (every result here is normal).
                let e = ((exact.to_bits() >> 52) & 0x7FF) as i32 - 1023;
                m.max((f64::from(f32::from_bits(y)) - exact).abs() / 2f64.powi(e - 23))
            })
        })
        .reduce(|| 0.0, f64::max);
    assert_eq!((max * 100.0).round() / 100.0, 1.51, "maximum {max} ulp");
}

/// `uniform_sample_statistics.json`: mean and maximum errors a GPU measured over 10^6 uniform
/// samples (x = torch `uniform_(lo, hi)` in f32; reference: the function in f64; abs = |y − ref|,
/// rel = abs / max(|ref|, 1e-30)). Here the mean is taken over a uniform grid of 2^22 points of
/// the same interval and must agree within 1%; the grid's maximum, at most the interval's, must
/// reach the sample maximum (the `sqrt.approx.f32` row states no maximum).
#[test]
fn uniform_sample_statistics() {
    use rayon::prelude::*;
    type Reference = fn(f64) -> f64;
    // Each row's maximum is also taken over every input of `dense` (f32 patterns), where the
    // grid is too coarse to reach it: tanh's largest errors lie in [0.5, 1).
    /// spelling, interval, relative?, GPU maximum, GPU mean, reference, dense inputs.
    type Row = (&'static str, f32, f32, bool, f64, f64, Reference, std::ops::Range<u32>);
    let rows: [Row; 6] = [
        ("sin.approx.f32", -4.0, 4.0, false, 6.463e-07, 1.251e-07, core_math::sin, 0..0),
        ("cos.approx.f32", -4.0, 4.0, false, 4.006e-07, 9.249e-08, core_math::cos, 0..0),
        ("rcp.approx.f32", 0.001, 4.0, true, 9.699e-08, 2.461e-08, |x| 1.0 / x, 0..0),
        ("rsqrt.approx.f32", 0.001, 4.0, true, 1.224e-07, 2.918e-08, core_math::rsqrt, 0..0),
        ("sqrt.approx.f32", 0.001, 4.0, true, 0.0, 2.291e-08, f64::sqrt, 0..0),
        ("tanh.approx.f32", -4.0, 4.0, true, 1.081e-05, 1.906e-06, core_math::tanh, 0x3F00_0000..0x3F80_0000),
    ];
    const N: usize = 1 << 22;
    for (spelling, lo, hi, relative, gpu_max, gpu_mean, reference, dense) in rows {
        // (sum, max) of the errors over `xs`.
        let errors = |xs: &[u32]| {
            let mut ys = vec![0u32; xs.len()];
            instr(spelling).eval_batch(Target::DEFAULT, &[xs], &mut ys).unwrap();
            xs.par_iter()
                .zip(&ys)
                .map(|(&x, &y)| {
                    let r = reference(f64::from(f32::from_bits(x)));
                    let abs = (f64::from(f32::from_bits(y)) - r).abs();
                    let e = if relative { abs / r.abs().max(1e-30) } else { abs };
                    (e, e)
                })
                .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1.max(b.1)))
        };
        let step = (f64::from(hi) - f64::from(lo)) / N as f64;
        let xs: Vec<u32> = (0..N).map(|i| ((f64::from(lo) + (i as f64 + 0.5) * step) as f32).to_bits()).collect();
        let (sum, grid_max) = errors(&xs);
        let max = grid_max.max(errors(&dense.collect::<Vec<u32>>()).1);
        let mean = sum / N as f64;
        eprintln!("{spelling}: mean {mean:.4e} (GPU {gpu_mean:.4e}), max {max:.4e} (GPU sample {gpu_max:.4e})");
        assert!((mean / gpu_mean - 1.0).abs() < 0.01, "{spelling}: mean {mean:.4e}, GPU {gpu_mean:.4e}");
        assert!(max >= gpu_max, "{spelling}: maximum {max:.4e} below the GPU's sample maximum {gpu_max:.4e}");
    }
}
