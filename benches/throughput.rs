//! Criterion benchmarks: batch throughput per instruction family in elements/s on 2^20-element
//! buffers, and the exact fma.rz.f32 against rustc_apfloat on the same inputs, one core each.
//! That comparison uses 2^14-element buffers, which stay in the L2 cache: it measures
//! evaluation, not memory (the family benchmarks and `ptxfp bench` measure that).

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ptxfp::{Instr, Target};
use rustc_apfloat::ieee::Single;
use rustc_apfloat::{Float, Round};

const LEN: usize = 1 << 20;

/// Buffer length of the comparison with rustc_apfloat.
const CACHED_LEN: usize = 1 << 14;

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `len` finite f32 operands within a few binades of 1.
fn f32_operands(seed: u64, len: usize) -> Vec<u32> {
    (0..len as u64).map(|i| 0x3C00_0000 + (splitmix(seed ^ i) as u32 & 0x07FF_FFFF)).collect()
}

/// `len` finite f64 operands within a few binades of 1.
fn f64_operands(seed: u64, len: usize) -> Vec<u64> {
    (0..len as u64).map(|i| 0x3F80_0000_0000_0000 + (splitmix(seed ^ i) & 0x00FF_FFFF_FFFF_FFFF)).collect()
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap()
}

/// Time `iters` calls of `f` on the pool's thread (entering the pool once, not per call).
fn timed_on(pool: &rayon::ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    pool.install(|| {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed()
    })
}

fn family<W: ptxfp::Word>(c: &mut Criterion, name: &str, spellings: &[&str], operands: fn(u64, usize) -> Vec<W>) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(LEN as u64));
    group.sample_size(10);
    let pool = one_thread();
    let srcs: Vec<Vec<W>> = (0..3).map(|seed| operands(seed, LEN)).collect();
    for spelling in spellings {
        let instr: Instr = spelling.parse().unwrap();
        let n = instr.operand_counts()[0];
        let refs: Vec<&[W]> = srcs[..n].iter().map(Vec::as_slice).collect();
        let mut out = vec![W::from_u64(0); LEN];
        group.bench_function(BenchmarkId::new(*spelling, "1 thread"), |b| {
            b.iter_custom(|iters| {
                timed_on(&pool, iters, || instr.eval_batch(Target::DEFAULT, &refs, &mut out).unwrap())
            })
        });
        group.bench_function(BenchmarkId::new(*spelling, "all threads"), |b| {
            b.iter(|| instr.eval_batch(Target::DEFAULT, &refs, &mut out).unwrap())
        });
    }
    group.finish();
}

fn exact_f32(c: &mut Criterion) {
    family(
        c,
        "exact f32",
        &["add.rn.f32", "mul.rz.f32", "fma.rz.f32", "fma.rz.ftz.f32", "div.rn.f32", "sqrt.rn.f32"],
        f32_operands,
    );
}

fn exact_f64(c: &mut Criterion) {
    family(c, "exact f64", &["add.rn.f64", "mul.rz.f64", "fma.rn.f64", "fma.rm.f64"], f64_operands);
}

fn approx_f32(c: &mut Criterion) {
    family(
        c,
        "approximate f32",
        &[
            "rcp.approx.ftz.f32",
            "ex2.approx.ftz.f32",
            "lg2.approx.ftz.f32",
            "sin.approx.ftz.f32",
            "rcp.approx.f32",
            "div.full.f32",
        ],
        f32_operands,
    );
}

fn packed_half(c: &mut Criterion) {
    family(c, "packed f16x2/bf16x2", &["fma.rn.f16x2", "fma.rn.bf16x2", "add.rn.f16x2"], f32_operands);
}

/// fma.rz.f32 through ptxfp (one thread) and through rustc_apfloat, same inputs.
fn versus_apfloat(c: &mut Criterion) {
    let mut group = c.benchmark_group("fma.rz.f32 vs rustc_apfloat (1 core)");
    group.throughput(Throughput::Elements(CACHED_LEN as u64));
    let pool = one_thread();
    let (a, b, d) = (f32_operands(1, CACHED_LEN), f32_operands(2, CACHED_LEN), f32_operands(3, CACHED_LEN));
    let instr: Instr = "fma.rz.f32".parse().unwrap();
    let mut out = vec![0u32; CACHED_LEN];
    group.bench_function("ptxfp", |bench| {
        bench.iter_custom(|iters| {
            timed_on(&pool, iters, || instr.eval_batch(Target::DEFAULT, &[&a[..], &b[..], &d[..]], &mut out).unwrap())
        })
    });
    let mut apfloat_out = vec![0u32; CACHED_LEN];
    group.bench_function("rustc_apfloat", |bench| {
        bench.iter(|| {
            for i in 0..CACHED_LEN {
                let (x, y, z) =
                    (Single::from_bits(a[i] as u128), Single::from_bits(b[i] as u128), Single::from_bits(d[i] as u128));
                apfloat_out[i] = x.mul_add_r(y, z, Round::TowardZero).value.to_bits() as u32;
            }
        })
    });
    group.finish();
    assert_eq!(out, apfloat_out, "ptxfp and rustc_apfloat disagree on fma.rz.f32");
}

criterion_group!(benches, exact_f32, exact_f64, approx_f32, packed_half, versus_apfloat);
criterion_main!(benches);
