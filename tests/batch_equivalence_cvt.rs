//! The `cvt` kernels (src/kernels/convert.rs) against the scalar definition
//! (`ptxfp::ops::cvt` through `eval_unchecked`), bit for bit.
//!
//! Default tier, at every SIMD level the processor has: every float-to-float `cvt` spelling
//! of the catalog must be vectorized; every spelling from f16 and bf16 gets all 2^16 operands;
//! the spellings from f32 and from f64 get at least 10^7 operand words per (source,
//! destination) pair, shared among its spellings: edge-biased operands aimed at the
//! destination's rounding boundaries (tests/common `cvt_operand`: values and midpoints of the
//! destination ± a few units, its smallest normal, subnormal range and overflow threshold,
//! NaNs with payloads), mixed with runs of uniform bits and of moderate exponents. A packed
//! `.f16x2.f32`/`.bf16x2.f32` word draws its two operands independently.
//!
//! Exhaustive tier (`--ignored`): all 2^32 operands of `cvt.rn.f16.f32`, `cvt.rp.f16.f32`
//! and `cvt.rn.bf16.f32`, at the level the processor runs: nearest and a directed rounding
//! onto f16's subnormal grid and overflow threshold, and the bf16 rounding every other bf16
//! result uses. The scalar definition costs 15–25 ns an operand, so each spelling takes one to
//! two minutes on two cores; the other directions and the `.ftz`, `.sat`, `.relu` and packed
//! forms (the same rounding with a flush of the operand, a clamp of the result or a second
//! element) are compared in the default tier.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use common::batch::batch;
use common::{cvt_operand, operand, seed, Layout, Rng};
use ptxfp::ptx::{catalog, KNOWN_SM};
use ptxfp::{Format, Instr, Opcode, SimdLevel, Target};
use rayon::prelude::*;

/// Operand words per (source, destination) pair from f32 and f64.
const CASES: u64 = 10_000_000;

/// Words per batch: not a multiple of any SIMD width, so the kernels' padded tail runs too.
const BLOCK: usize = (1 << 14) + 13;

/// Every float-to-float `cvt` of the catalog with a target that has it.
fn spellings() -> Vec<(Instr, Target)> {
    catalog::entries()
        .iter()
        .filter(|e| matches!(e.instr.opcode(), Opcode::Cvt { .. }) && e.instr.integer_side().is_none())
        .map(|e| {
            let sm = KNOWN_SM.iter().copied().find(|&sm| sm >= e.min_sm).unwrap();
            (e.instr, Target::new(sm).unwrap())
        })
        .collect()
}

fn source(instr: &Instr) -> Format {
    instr.source_type(0).float().expect("a float-to-float cvt")
}

fn levels() -> Vec<SimdLevel> {
    SimdLevel::ALL.into_iter().filter(|l| l.is_supported()).collect()
}

/// Mismatches of `instr` at `levels` on `srcs` against the scalar definition: their count
/// and up to 10 reports.
fn compare(instr: &Instr, target: Target, levels: &[SimdLevel], srcs: &[Vec<u64>]) -> (u64, Vec<String>) {
    let got: Vec<Vec<u64>> = levels.iter().map(|&level| batch(instr, target, level, srcs, 0)).collect();
    let (mut failed, mut examples) = (0, Vec::new());
    let mut ops = [0u64; 2];
    for i in 0..srcs[0].len() {
        for (op, src) in ops.iter_mut().zip(srcs) {
            *op = src[i];
        }
        let ops = &ops[..srcs.len()];
        let want = instr.eval_unchecked(target, ops);
        for (level, got) in levels.iter().zip(&got) {
            if got[i] != want {
                failed += 1;
                if examples.len() < 10 {
                    examples.push(format!("[{level}] {instr} {ops:#x?}: kernel {:#x} scalar {want:#x}", got[i]));
                }
            }
        }
    }
    (failed, examples)
}

/// Collects mismatches across parallel blocks and fails with the first reports.
#[derive(Default)]
struct Tally {
    failed: AtomicU64,
    examples: Mutex<Vec<String>>,
}

impl Tally {
    fn add(&self, (failed, examples): (u64, Vec<String>)) {
        self.failed.fetch_add(failed, Ordering::Relaxed);
        let mut all = self.examples.lock().unwrap();
        let room = 10usize.saturating_sub(all.len());
        all.extend(examples.into_iter().take(room));
    }

    fn check(self, what: &str) {
        let failed = self.failed.into_inner();
        assert_eq!(failed, 0, "{what}: {failed} mismatches, e.g.\n{}", self.examples.into_inner().unwrap().join("\n"));
    }
}

#[test]
fn every_cvt_spelling_is_vectorized() {
    let all = spellings();
    assert_eq!(all.len(), 85 + 45, "the float-to-float cvt spellings of the catalog: between formats and same-format");
    for level in levels() {
        for (instr, target) in &all {
            assert!(instr.is_vectorized_at(*target, level), "{instr} has no SIMD kernel at {level}");
        }
    }
}

#[test]
fn from_f16_and_bf16_every_operand() {
    let tally = Tally::default();
    let levels = levels();
    let every: Vec<u64> = (0..1 << 16).collect();
    spellings().par_iter().filter(|(i, _)| source(i).bits() == 16).for_each(|(instr, target)| {
        tally.add(compare(instr, *target, &levels, std::slice::from_ref(&every)));
    });
    tally.check("cvt from f16 and bf16");
}

/// One operand of `from` for a conversion to `to`, in a run of `kind`.
fn element(kind: u64, from: Layout, to: Layout, rng: &mut Rng) -> u64 {
    match kind {
        0..=4 => cvt_operand(rng, from, to),
        5 => operand(rng, from),
        6 => from.at_exp(rng.coin(), rng.range(-20, 20) as i32, rng),
        _ => rng.next() & from.mask(),
    }
}

/// ≥ 10^7 words per (source, destination) pair from `from`, shared among its spellings.
fn random_tier(from: Format) {
    let all: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| source(i) == from).collect();
    let levels = levels();
    let tally = Tally::default();
    let mut pairs: Vec<Format> = all.iter().map(|(i, _)| i.format()).collect();
    pairs.dedup();
    for to in pairs {
        let of_pair: Vec<&(Instr, Target)> = all.iter().filter(|(i, _)| i.format() == to).collect();
        let words = CASES.div_ceil(of_pair.len() as u64);
        let blocks = words.div_ceil(BLOCK as u64);
        let (lf, lt) = (Layout::of(from), Layout::of(to));
        of_pair.par_iter().for_each(|&&(instr, target)| {
            (0..blocks).into_par_iter().for_each(|block| {
                let mut rng = Rng::new(seed(&instr.to_string(), block));
                let len = BLOCK.min((words - block * BLOCK as u64) as usize);
                let n = if instr.ty().lanes() == 2 { 2 } else { 1 };
                let mut srcs = vec![vec![0u64; len]; n];
                let (mut kind, mut left) = (0, 0);
                for i in 0..len {
                    if left == 0 {
                        (kind, left) = (rng.below(8), 32 + rng.below(64));
                    }
                    left -= 1;
                    for src in srcs.iter_mut() {
                        src[i] = element(kind, lf, lt, &mut rng);
                    }
                }
                tally.add(compare(&instr, target, &levels, &srcs));
            });
        });
    }
    tally.check(&format!("cvt from {}", from.name()));
}

#[test]
fn from_f32_edge_biased() {
    random_tier(Format::F32);
}

#[test]
fn from_f64_edge_biased() {
    random_tier(Format::F64);
}

#[test]
#[ignore = "exhaustive: all 2^32 operands of 3 cvt spellings from f32 (about 4 minutes on 2 cores)"]
fn from_f32_every_operand() {
    let level = [SimdLevel::active()];
    let tally = Tally::default();
    let chosen: Vec<(Instr, Target)> = ["cvt.rn.f16.f32", "cvt.rp.f16.f32", "cvt.rn.bf16.f32"]
        .iter()
        .map(|s| (s.parse().unwrap(), Target::DEFAULT))
        .collect();
    for (instr, target) in &chosen {
        let start = std::time::Instant::now();
        (0u64..1 << 16).into_par_iter().for_each(|hi| {
            let srcs = [((hi << 16)..((hi + 1) << 16)).collect::<Vec<u64>>()];
            tally.add(compare(instr, *target, &level, &srcs));
        });
        eprintln!("{instr}: every operand in {:.1?}", start.elapsed());
    }
    tally.check("cvt from f32, every operand");
}
