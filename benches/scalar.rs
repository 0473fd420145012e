//! Criterion benchmark of one scalar call: the median time of one `Instr::eval_on` (checks
//! included) on one core, cycling through a fixed array of varied operands, for add, mul and
//! fma `.f32` in the four rounding modes and `rcp`/`ex2.approx.ftz.f32`; next to it, in the
//! same run, rustc_apfloat's f32 fused multiply-add on the same fma operands.
//! `cargo bench --features benches --bench scalar`; criterion's time per iteration is the time
//! per call, the unwrapping of its result included, and "the loop alone" shows what the
//! loop around the calls costs by itself.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use ptxfp::{Instr, Target};
use rustc_apfloat::ieee::Single;
use rustc_apfloat::{Float, Round};

/// Operands per array (a power of two); every call takes the next entry.
const N: usize = 1 << 12;

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A varied f32 operand: mostly normal values of either sign within 2^±20 of 1, so that sums
/// align, cancel and carry; one in 16 a special, a subnormal or an extreme exponent.
fn f32_operand(r: u64) -> u32 {
    let sign = (r as u32 & 1) << 31;
    let frac = (r >> 8) as u32 & 0x7F_FFFF;
    if (r >> 40) & 15 != 0 {
        let exp = 107 + ((r >> 44) as u32 % 41);
        return sign | exp << 23 | frac;
    }
    match (r >> 48) % 8 {
        0 => sign,
        1 => sign | (frac >> ((r >> 56) % 23)).max(1),
        2 => sign | 0x7F80_0000,
        3 => 0x7FC0_0000 | frac,
        4 => sign | (1 + (r >> 56) as u32 % 8) << 23 | frac,
        5 => sign | (246 + (r >> 56) as u32 % 8) << 23 | frac,
        _ => sign | (60 + (r >> 56) as u32 % 137) << 23 | frac,
    }
}

/// An operand of `ex2`: mostly |x| < 130 (normal and flushed results, both signs), some
/// specials and subnormals through [`f32_operand`].
fn ex2_operand(r: u64) -> u32 {
    if r & 7 == 0 {
        return f32_operand(r >> 3);
    }
    let x = ((r >> 8) as u32 % 260_000) as f32 / 1000.0 - 130.0;
    x.to_bits()
}

/// `N` operand triples for an instruction from `operand`.
fn operands(seed: u64, operand: fn(u64) -> u32) -> Vec<[u64; 3]> {
    (0..N as u64)
        .map(|i| {
            let r = |k: u64| u64::from(operand(splitmix(seed ^ (3 * i + k) << 8)));
            [r(0), r(1), r(2)]
        })
        .collect()
}

/// The time of `iters` calls of `call` on the entries of `ops` in turn, the entry's index
/// the loop's own counter (a counter kept between calls of a closure would make every call
/// wait on a store and a load of it).
fn cycle(iters: u64, ops: &[[u64; 3]], mut call: impl FnMut(&[u64; 3]) -> u64) -> Duration {
    let start = Instant::now();
    for k in 0..iters as usize {
        black_box(call(black_box(&ops[k & (N - 1)])));
    }
    start.elapsed()
}

/// Median time of one `eval_on` call on `spelling`, cycling through `ops`. The instruction
/// and the target are opaque to the compiler on every call, so that nothing the call does
/// for them is hoisted out of the loop.
fn bench_eval_on(c: &mut Criterion, spelling: &str, ops: &[[u64; 3]]) {
    let instr: Instr = spelling.parse().unwrap();
    let n = instr.operand_counts()[0];
    let target = Target::DEFAULT;
    for o in ops {
        instr.eval_on(target, &o[..n]).unwrap();
    }
    c.bench_function(&format!("eval_on {spelling}"), |b| {
        b.iter_custom(|iters| cycle(iters, ops, |o| black_box(&instr).eval_on(black_box(target), &o[..n]).unwrap()))
    });
}

fn rounding(spelling_mode: &str) -> Round {
    match spelling_mode {
        "rn" => Round::NearestTiesToEven,
        "rz" => Round::TowardZero,
        "rm" => Round::TowardNegative,
        "rp" => Round::TowardPositive,
        other => unreachable!("mode {other}"),
    }
}

/// rustc_apfloat's `Single::mul_add_r` on the fma operands, after checking that it agrees with
/// ptxfp on every non-NaN result.
fn bench_apfloat_fma(c: &mut Criterion, mode: &str, ops: &[[u64; 3]]) {
    let round = rounding(mode);
    let fma = |o: &[u64; 3]| {
        let [x, y, z] = o.map(|w| Single::from_bits(u128::from(w)));
        x.mul_add_r(y, z, round).value.to_bits() as u32
    };
    let instr: Instr = format!("fma.{mode}.f32").parse().unwrap();
    for o in ops {
        let want = instr.eval(o).unwrap() as u32;
        if want != 0x7FFF_FFFF {
            assert_eq!(fma(o), want, "rustc_apfloat and ptxfp disagree on fma.{mode}.f32 {o:#x?}");
        }
    }
    c.bench_function(&format!("rustc_apfloat Single::mul_add_r {mode}"), |b| {
        b.iter_custom(|iters| cycle(iters, ops, |o| u64::from(fma(o))))
    });
}

fn scalar_calls(c: &mut Criterion) {
    let ops = operands(1, f32_operand);
    for op in ["add", "mul", "fma"] {
        for mode in ["rn", "rz", "rm", "rp"] {
            bench_eval_on(c, &format!("{op}.{mode}.f32"), &ops);
        }
    }
    bench_eval_on(c, "rcp.approx.ftz.f32", &ops);
    bench_eval_on(c, "ex2.approx.ftz.f32", &operands(2, ex2_operand));
    // The loop alone: what every figure above includes besides the call.
    c.bench_function("the loop alone", |b| b.iter_custom(|iters| cycle(iters, &ops, |o| o[0])));
    for mode in ["rn", "rz", "rm", "rp"] {
        bench_apfloat_fma(c, mode, &ops);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = scalar_calls
}
criterion_main!(benches);
