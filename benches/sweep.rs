//! The rate of `ptxfp sweep ex2.approx.ftz.f32` over all 2^32 inputs against a plain scalar
//! loop over CORE-MATH's correctly rounded exp2f on the same inputs, measured in the same run
//! (one thread and all threads for the loop). `cargo bench --features benches --bench sweep`;
//! the sweep's own report is printed too.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use ptxfp::sweep::{Control, Outcome, Shard, Spec, Sweep};
use rayon::prelude::*;

/// exp2f of every input in `lo..hi`, folded so that nothing is optimised away.
fn core_math_loop(lo: u64, hi: u64) -> u32 {
    (lo..hi).fold(0u32, |acc, bits| acc ^ core_math::exp2f(f32::from_bits(bits as u32)).to_bits())
}

fn main() {
    let instr = std::env::args().skip(1).find(|a| !a.starts_with('-')).unwrap_or("ex2.approx.ftz.f32".into());
    let sweep = Sweep::new(&Spec::new(&instr), Shard::WHOLE, true).unwrap();
    let stop = AtomicBool::new(false);
    let control = Control { progress: &|_, _| {}, stop: &stop, checkpoint: &|_| {}, checkpoint_every: f64::INFINITY };
    let t = Instant::now();
    let Outcome::Complete(report) = sweep.run(None, &control).unwrap() else { unreachable!() };
    let sweep_s = t.elapsed().as_secs_f64();
    print!("{}", report.summary());
    let n = 1u64 << 32;
    let threads = rayon::current_num_threads();
    let t = Instant::now();
    let chunk = 1u64 << 24;
    let all =
        (0..n / chunk).into_par_iter().map(|c| core_math_loop(c * chunk, (c + 1) * chunk)).reduce(|| 0, |a, b| a ^ b);
    let all_s = t.elapsed().as_secs_f64();
    // One thread: an eighth of the inputs (spread over the range), scaled.
    let t = Instant::now();
    let one = (0..8u64).map(|k| core_math_loop(k * (n / 8), k * (n / 8) + n / 64)).fold(0, |a, b| a ^ b);
    let one_s = t.elapsed().as_secs_f64() * 8.0;
    std::hint::black_box((all, one));
    println!();
    println!("{:<52} {:>10} {:>14} {:>8}", "", "seconds", "inputs/s", "ratio");
    let line = |name: &str, s: f64| println!("{name:<52} {s:>10.2} {:>14.4e} {:>8.2}", n as f64 / s, one_s / s);
    line(&format!("ptxfp sweep {instr} ({threads} threads)"), sweep_s);
    line(&format!("core_math::exp2f scalar loop ({threads} threads)"), all_s);
    line("core_math::exp2f scalar loop (1 thread, 1/8 sampled)", one_s);
}
