//! Criterion benchmarks: batch throughput per instruction family in elements/s, and the exact
//! fma.rz.f32 against rustc_apfloat on the same inputs, one core each.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ptxfp::{Instr, Target};
use rustc_apfloat::ieee::Single;
use rustc_apfloat::{Float, Round};

const LEN: usize = 1 << 20;

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Finite f32 operands within a few binades of 1.
fn f32_operands(seed: u64) -> Vec<u32> {
    (0..LEN as u64).map(|i| 0x3C00_0000 + (splitmix(seed ^ i) as u32 & 0x07FF_FFFF)).collect()
}

fn single_thread<R>(f: impl FnOnce() -> R + Send) -> R
where
    R: Send,
{
    rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(f)
}

fn family(c: &mut Criterion, name: &str, spellings: &[&str]) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(LEN as u64));
    group.sample_size(10);
    let srcs: Vec<Vec<u32>> = (0..3).map(f32_operands).collect();
    for spelling in spellings {
        let instr: Instr = spelling.parse().unwrap();
        let n = instr.operand_counts()[0];
        let refs: Vec<&[u32]> = srcs[..n].iter().map(Vec::as_slice).collect();
        let mut out = vec![0u32; LEN];
        group.bench_function(BenchmarkId::new(*spelling, "1 thread"), |b| {
            b.iter(|| single_thread(|| instr.eval_batch(Target::DEFAULT, &refs, &mut out).unwrap()))
        });
        group.bench_function(BenchmarkId::new(*spelling, "all threads"), |b| {
            b.iter(|| instr.eval_batch(Target::DEFAULT, &refs, &mut out).unwrap())
        });
    }
    group.finish();
}

fn exact_f32(c: &mut Criterion) {
    family(c, "exact f32", &["add.rn.f32", "mul.rz.f32", "fma.rz.ftz.f32", "div.rn.f32", "sqrt.rn.f32"]);
}

fn approx_f32(c: &mut Criterion) {
    family(
        c,
        "approximate f32",
        &["rcp.approx.ftz.f32", "ex2.approx.ftz.f32", "lg2.approx.ftz.f32", "sin.approx.ftz.f32", "rcp.approx.f32"],
    );
}

fn packed_half(c: &mut Criterion) {
    family(c, "packed f16x2/bf16x2", &["fma.rn.f16x2", "fma.rn.bf16x2", "add.rn.f16x2"]);
}

/// fma.rz.f32 through ptxfp (one thread) and through rustc_apfloat, same inputs.
fn versus_apfloat(c: &mut Criterion) {
    let mut group = c.benchmark_group("fma.rz.f32 vs rustc_apfloat (1 core)");
    group.throughput(Throughput::Elements(LEN as u64));
    group.sample_size(10);
    let (a, b, d) = (f32_operands(1), f32_operands(2), f32_operands(3));
    let instr: Instr = "fma.rz.f32".parse().unwrap();
    let mut out = vec![0u32; LEN];
    group.bench_function("ptxfp", |bench| {
        bench.iter(|| single_thread(|| instr.eval_batch(Target::DEFAULT, &[&a[..], &b[..], &d[..]], &mut out).unwrap()))
    });
    group.bench_function("rustc_apfloat", |bench| {
        bench.iter(|| {
            for i in 0..LEN {
                let (x, y, z) =
                    (Single::from_bits(a[i] as u128), Single::from_bits(b[i] as u128), Single::from_bits(d[i] as u128));
                out[i] = x.mul_add_r(y, z, Round::TowardZero).value.to_bits() as u32;
            }
        })
    });
    group.finish();
}

criterion_group!(benches, exact_f32, approx_f32, packed_half, versus_apfloat);
criterion_main!(benches);
