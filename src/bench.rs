//! Throughput measurement for `ptxfp bench`: elements per second of batch evaluation on large
//! buffers, with one thread and with all threads, against a baseline that moves the same bytes
//! measured in the same run.
//!
//! Two buffer lengths are measured by default. 2^20 elements (4 to 32 MB of operands and
//! result) exceed every core's private caches but fit the last-level cache of many servers, so
//! they show what the kernels compute; 2^24 elements (64 to 512 MB) live in memory, so they show
//! how close evaluation comes to memory bandwidth.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::batch::{with_words, BatchError, BatchPath, Word, WordsFn};
use crate::kernels::SimdLevel;
use crate::ptx::{Element, Instr, Target};

/// The instructions `ptxfp bench` measures when none are named.
pub const DEFAULT_INSTRS: [&str; 9] = [
    "add.rn.f32",
    "fma.rz.ftz.f32",
    "rcp.approx.ftz.f32",
    "ex2.approx.ftz.f32",
    "lg2.approx.ftz.f32",
    "sin.approx.ftz.f32",
    "fma.rn.f16x2",
    "fma.rn.bf16x2",
    "fma.rn.f64",
];

/// The buffer lengths `ptxfp bench` measures when none are given.
pub const DEFAULT_LENGTHS: [usize; 2] = [1 << 20, 1 << 24];

/// One measurement: a record of `ptxfp bench --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    pub instr: String,
    /// Elements per buffer.
    pub elements: usize,
    pub threads: usize,
    pub elements_per_second: f64,
    /// Elements per second of the baseline with the same buffers and threads.
    pub copy_elements_per_second: f64,
    pub ratio_to_copy: f64,
    /// How the batch was evaluated (`simd` or `scalar`).
    #[serde(serialize_with = "by_name")]
    pub path: BatchPath,
    /// The SIMD level the kernels ran at (`baseline`, `avx2`, `avx512`).
    #[serde(serialize_with = "by_name")]
    pub simd_level: SimdLevel,
}

/// A value serialized as its name (its `Display`).
fn by_name<S: serde::Serializer>(value: &impl std::fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// Why a measurement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The buffers of `len` elements of `element_bytes` (all operands and the result) exceed
    /// [`MAX_BUFFER_BYTES`].
    #[error(
        "{len} elements of {instr} need {:.3e} bytes of buffers; bench takes at most {MAX_BUFFER_BYTES} bytes, {} elements",
        *len as f64 * *element_bytes as f64,
        MAX_BUFFER_BYTES / element_bytes
    )]
    TooLong { instr: Instr, len: usize, element_bytes: u64 },
    /// No word types for the instruction's operand and result widths.
    #[error("{instr}: no buffers of {source_bits}-bit sources and {result_bits}-bit results")]
    NoBuffers { instr: Instr, source_bits: u32, result_bits: u32 },
    /// The measuring threads could not be started.
    #[error(transparent)]
    Threads(#[from] rayon::ThreadPoolBuildError),
    #[error(transparent)]
    Eval(#[from] BatchError),
}

/// The most memory [`measure`] takes for its buffers (sources and destination): 4 GiB, room for
/// 2^28 elements of a three-operand f32 instruction, far beyond any cache. Longer buffers are
/// refused rather than allocated.
pub const MAX_BUFFER_BYTES: u64 = 4 << 30;

/// Measure `instr` on buffers of `len` elements with 1 thread and with `max_threads`.
pub fn measure(instr: &Instr, target: Target, len: usize, max_threads: usize) -> Result<Vec<Measurement>, BenchError> {
    let measure = Measure { instr, target, len, max_threads };
    let (src_bits, dst_bits) = (instr.source_bits(), instr.result_bits());
    let element_bytes = u64::from((instr.operand_counts()[0] as u32 * src_bits + dst_bits) / 8);
    if (len as u128) * u128::from(element_bytes) > u128::from(MAX_BUFFER_BYTES) {
        return Err(BenchError::TooLong { instr: *instr, len, element_bytes });
    }
    with_words(src_bits, dst_bits, measure).unwrap_or(Err(BenchError::NoBuffers {
        instr: *instr,
        source_bits: src_bits,
        result_bits: dst_bits,
    }))
}

struct Measure<'a> {
    instr: &'a Instr,
    target: Target,
    len: usize,
    max_threads: usize,
}

impl WordsFn for Measure<'_> {
    type Output = Result<Vec<Measurement>, BenchError>;
    fn call<S: Word, D: Word>(self) -> Self::Output {
        measure_words::<S, D>(self.instr, self.target, self.len, self.max_threads)
    }
}

fn measure_words<S: Word, D: Word>(
    instr: &Instr,
    target: Target,
    len: usize,
    max_threads: usize,
) -> Result<Vec<Measurement>, BenchError> {
    let sources: Vec<Vec<S>> = (0..instr.operand_counts()[0]).map(|k| operands::<S>(instr, k, len)).collect();
    let refs: Vec<&[S]> = sources.iter().map(Vec::as_slice).collect();
    let mut out = Vec::new();
    let mut thread_counts = vec![1];
    if max_threads > 1 {
        thread_counts.push(max_threads);
    }
    for threads in thread_counts {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        let (rate, copy_rate) = pool.install(|| rates::<S, D>(instr, target, &refs, len));
        let rate = rate?;
        out.push(Measurement {
            instr: instr.to_string(),
            elements: len,
            threads,
            elements_per_second: rate,
            copy_elements_per_second: copy_rate,
            ratio_to_copy: rate / copy_rate,
            path: instr.batch_path(target),
            simd_level: SimdLevel::active(),
        });
    }
    Ok(out)
}

/// Elements per second of the instruction and of the baseline, in the current thread pool.
fn rates<S: Word, D: Word>(
    instr: &Instr,
    target: Target,
    sources: &[&[S]],
    len: usize,
) -> (Result<f64, BatchError>, f64) {
    let mut dst = vec![D::from_u64(0); len];
    let mut failure = None;
    let rate = best_rate(len, || {
        if let Err(e) = instr.eval_batch(target, sources, &mut dst) {
            failure = Some(e);
        }
    });
    let copy = best_rate(len, || baseline(sources, &mut dst));
    (failure.map_or(Ok(rate), Err), copy)
}

/// The baseline: every source buffer read and the destination written (`d = a | b | c`), in
/// the same chunks and threads as batch evaluation, in one pass per chunk — the cheapest
/// operation that moves the same bytes, i.e. a memory copy of the operands into the result.
fn baseline<S: Word, D: Word>(sources: &[&[S]], dst: &mut [D]) {
    const CHUNK: usize = 1 << 14;
    dst.par_chunks_mut(CHUNK).enumerate().for_each(|(c, d)| {
        let range = c * CHUNK..c * CHUNK + d.len();
        let s = |k: usize| &sources[k][range.clone()];
        let word = |x: u64| D::from_u64(x);
        // One loop per operand count, so that each vectorises.
        match sources.len() {
            1 => d.iter_mut().zip(s(0)).for_each(|(o, a)| *o = word(a.to_u64())),
            2 => d.iter_mut().zip(s(0).iter().zip(s(1))).for_each(|(o, (a, b))| *o = word(a.to_u64() | b.to_u64())),
            _ => d
                .iter_mut()
                .zip(s(0).iter().zip(s(1)).zip(s(2)))
                .for_each(|(o, ((a, b), c))| *o = word(a.to_u64() | b.to_u64() | c.to_u64())),
        }
    });
}

/// The best of several timed runs (at least three, at least half a second in all).
fn best_rate(len: usize, mut run: impl FnMut()) -> f64 {
    run(); // warm-up: page faults, table initialisation
    let mut best = Duration::MAX;
    let mut total = Duration::ZERO;
    let mut runs = 0;
    while runs < 3 || total < Duration::from_millis(500) {
        let t = Instant::now();
        run();
        let dt = t.elapsed();
        best = best.min(dt);
        total += dt;
        runs += 1;
    }
    len as f64 / best.as_secs_f64()
}

/// Deterministic operands: finite values of moderate magnitude, so the measurement sees the
/// common path (the source type's 1.0 with pseudo-random fraction and a small exponent spread);
/// integers with every bit pseudo-random.
fn operands<S: Word>(instr: &Instr, k: usize, len: usize) -> Vec<S> {
    let ty = instr.source_type(k);
    let f = match ty.element() {
        Element::Float(f) => f,
        Element::Int(t) => {
            return (0..len as u64).map(|i| S::from_u64(splitmix(i * 3 + k as u64) & t.mask())).collect()
        }
        // Narrow codes (the sources of the up-conversions, scales): every code alike.
        Element::Narrow(_) => {
            let mask = u64::MAX >> (64 - ty.bits());
            return (0..len as u64).map(|i| S::from_u64(splitmix(i * 3 + k as u64) & mask)).collect();
        }
    };
    let lane = |seed: u64| {
        let r = splitmix(seed);
        let exp_spread = (r >> 60) << f.frac_bits(); // ±8 binades around 1.0
        let sign = if r >> 59 & 1 == 1 { f.sign_bit() } else { 0 };
        (f.one() - (8 << f.frac_bits()) + exp_spread + (r & f.frac_mask())) | sign
    };
    (0..len as u64)
        .map(|i| {
            let seed = i * 3 + k as u64;
            let mut word = 0u64;
            for l in 0..ty.lanes() {
                word |= lane(seed ^ (l as u64) << 40) << (l * f.bits());
            }
            S::from_u64(word)
        })
        .collect()
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
