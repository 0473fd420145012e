//! The batch engine: argument checks, and results identical to the scalar definitions for every
//! thread count, every buffer length 0..=67 and unaligned buffers, for every catalog spelling.

use ptxfp::ptx::catalog;
mod common;

use common::batch::batch;
use ptxfp::{BatchError, Instr, SimdLevel, SimdLevelError, Target};

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Operand words of `bits` width: random patterns mixed with the specials of the format.
fn words(instr: &Instr, k: usize, len: usize, seed: u64) -> Vec<u64> {
    let ty = instr.source_type(k);
    let Some(f) = ty.float() else {
        // An integer type: every bit pseudo-random.
        let mask = u64::MAX >> (64 - ty.bits());
        return (0..len as u64).map(|i| splitmix(seed ^ (i << 8) ^ k as u64) & mask).collect();
    };
    let specials = [0, f.sign_bit(), 1, f.one(), f.inf(false), f.inf(true), f.canonical_nan(), f.max_finite(true)];
    let mask = if ty.bits() == 64 { u64::MAX } else { (1u64 << ty.bits()) - 1 };
    (0..len as u64)
        .map(|i| {
            let r = splitmix(seed ^ (i << 8) ^ k as u64);
            let lane = |r: u64| {
                if r.is_multiple_of(5) {
                    specials[(r >> 8) as usize % specials.len()]
                } else {
                    r >> 11 & f.mask()
                }
            };
            let mut w = 0;
            for l in 0..ty.lanes() {
                w |= lane(splitmix(r ^ l as u64)) << (l * f.bits());
            }
            w & mask
        })
        .collect()
}

/// The lowest known target that has the entry's spelling with its operand count, and sm_90
/// if it has it too.
fn targets(e: &catalog::CatalogEntry) -> Vec<Target> {
    let mut ts = vec![e.lowest_target()];
    if e.targets.contains(Target::DEFAULT) && ts[0] != Target::DEFAULT {
        ts.push(Target::DEFAULT);
    }
    ts
}

#[test]
fn every_spelling_batch_equals_scalar_for_lengths_0_to_67_at_odd_offsets() {
    for e in catalog::entries() {
        for target in targets(e) {
            for len in 0..=67usize {
                check_length(&e.instr, target, e.sources, len);
            }
        }
    }
}

/// Every SIMD level the processor has.
fn levels() -> impl Iterator<Item = SimdLevel> {
    SimdLevel::ALL.into_iter().filter(|l| l.is_supported())
}

fn check_length(instr: &Instr, target: Target, sources: usize, len: usize) {
    let srcs: Vec<Vec<u64>> = (0..sources).map(|k| words(instr, k, len, len as u64)).collect();
    let offset = 1 + 2 * (len % 3);
    for level in levels() {
        let got = batch(instr, target, level, &srcs, offset);
        for i in 0..len {
            let ops: Vec<u64> = srcs.iter().map(|s| s[i]).collect();
            let want = instr.eval_unchecked(target, &ops);
            assert_eq!(got[i], want, "{instr} on {target} at {level}, len {len}, element {i}, operands {ops:x?}");
        }
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    for spelling in [
        "add.rn.f32",
        "fma.rz.ftz.f32",
        "rcp.approx.f32",
        "sin.approx.ftz.f32",
        "fma.rn.f16x2",
        "fma.rn.bf16x2",
        "div.rn.f64",
        "cvt.rn.f16.f32",
    ] {
        let instr: Instr = spelling.parse().unwrap();
        let len = 100_003;
        let srcs: Vec<Vec<u64>> = (0..instr.operand_counts()[0]).map(|k| words(&instr, k, len, 7)).collect();
        let results: Vec<Vec<u64>> = [1, 2, 3]
            .iter()
            .map(|&n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
                    .install(|| batch(&instr, Target::DEFAULT, SimdLevel::active(), &srcs, 0))
            })
            .collect();
        assert_eq!(results[0], results[1], "{spelling}");
        assert_eq!(results[0], results[2], "{spelling}");
    }
}

#[test]
fn bad_buffers_are_errors() {
    let add: Instr = "add.rn.f32".parse().unwrap();
    let a = [0u32; 4];
    let short = [0u32; 3];
    let mut d = [0u32; 4];
    let t = Target::DEFAULT;
    assert!(matches!(
        add.eval_batch(t, &[&a[..], &short[..]], &mut d),
        Err(BatchError::Length { operand: 1, len: 3, expected: 4, .. })
    ));
    assert!(matches!(add.eval_batch(t, &[&a[..]], &mut d), Err(BatchError::Arity { got: 1, .. })));
    let wide = [0u64; 4];
    let mut d64 = [0u64; 4];
    let err = add.eval_batch(t, &[&wide[..], &wide[..]], &mut d64).unwrap_err();
    assert!(err.to_string().contains("32-bit"), "{err}");
    let x2: Instr = "add.rn.f32x2".parse().unwrap();
    assert!(matches!(x2.eval_batch(t, &[&wide[..], &wide[..]], &mut d64), Err(BatchError::Target(_))));
    assert!(x2.eval_batch(Target::new(100).unwrap(), &[&wide[..], &wide[..]], &mut d64).is_ok());
    // cvt reads f32 words and writes f16 words.
    let cvt: Instr = "cvt.rn.f16.f32".parse().unwrap();
    let mut h = [0u16; 4];
    cvt.eval_batch(t, &[&[0x3F80_0000u32; 4][..]], &mut h).unwrap();
    assert_eq!(h, [0x3C00; 4]);
}

#[test]
fn simd_levels_are_named_and_checked() {
    for level in SimdLevel::ALL {
        assert_eq!(level.name().parse::<SimdLevel>(), Ok(level));
        assert_eq!(level.name().to_uppercase().parse::<SimdLevel>(), Ok(level));
    }
    let err = "sse9".parse::<SimdLevel>().unwrap_err();
    assert_eq!(err.to_string(), "'sse9' is not a SIMD level; the levels are baseline, avx2 and avx512");
    assert!(SimdLevel::Baseline.is_supported());
    assert!(SimdLevel::active().is_supported());
    // A level the processor lacks is refused, not run.
    let add: Instr = "add.rn.f32".parse().unwrap();
    let a = [0x3F80_0000u32; 20];
    for level in SimdLevel::ALL {
        let mut d = [0u32; 20];
        let result = add.eval_batch_at(Target::DEFAULT, level, &[&a[..], &a[..]], &mut d);
        if level.is_supported() {
            assert_eq!(result, Ok(()));
            assert_eq!(d, [0x4000_0000; 20]);
        } else {
            assert!(matches!(result, Err(BatchError::SimdLevel(SimdLevelError::Unsupported { .. }))), "{result:?}");
            assert_eq!(d, [0; 20], "nothing written at {level}");
        }
    }
}
