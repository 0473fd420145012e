//! Batch evaluation on threads whose floating-point environment is not the IEEE default, as a
//! host leaves it — flush-to-zero and denormals-are-zero (a program linked with `-ffast-math`),
//! a directed rounding (`fesetround`), unmasked exceptions (`feenableexcept`) — gives the
//! scalar definitions' bits for every spelling of the catalog, and a sweep refuses to run
//! there, naming what is changed (src/kernels/float_env.rs). The C library's programs do the
//! same from a C host built with `-ffast-math` (capi/tests/c_programs.rs).
//!
//! The environments are set on the threads of a pool of this test alone, as a foreign host
//! would set them; the expected words are computed on threads with the default environment.
#![cfg(target_arch = "x86_64")]

mod common;

use std::sync::atomic::AtomicBool;

use common::{operand, seed, Layout, Rng};
use ptxfp::ptx::catalog;
use ptxfp::sweep::{Control, Shard, Spec, Sweep};
use ptxfp::{with_words, Element, Instr, Prepared, Target, Type, Word, WordsFn};

/// MXCSR at program start: round to nearest, no flush, every exception masked.
const DEFAULT: u32 = 0x1F80;
const DAZ: u32 = 1 << 6;
const FTZ: u32 = 1 << 15;
const ROUND_DOWN: u32 = 1 << 13;
const ROUND_UP: u32 = 2 << 13;
const ROUND_TO_ZERO: u32 = 3 << 13;
/// The sticky exception flags, which record and change nothing.
const FLAGS: u32 = 0x3F;
/// The masks of the invalid-operation, divide-by-zero, overflow and underflow exceptions.
const TRAPS: u32 = (1 << 7) | (1 << 9) | (1 << 10) | (1 << 11);

/// The environments a host may leave, as MXCSR values.
const ENVIRONMENTS: [(&str, u32); 6] = [
    ("flush-to-zero and denormals-are-zero", DEFAULT | FTZ | DAZ),
    ("denormals-are-zero", DEFAULT | DAZ),
    ("rounding toward +infinity", DEFAULT | ROUND_UP),
    ("rounding toward -infinity", DEFAULT | ROUND_DOWN),
    ("rounding toward zero with flush-to-zero", DEFAULT | ROUND_TO_ZERO | FTZ),
    ("invalid, divide-by-zero, overflow and underflow trapping", DEFAULT & !TRAPS),
];

fn mxcsr() -> u32 {
    let mut v = 0u32;
    // SAFETY: STMXCSR stores the register to a local.
    unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut v, options(nostack, preserves_flags)) };
    v
}

/// Set the calling thread's MXCSR, as a C host's `fesetround` or `-ffast-math` startup does.
fn set_mxcsr(v: u32) {
    // SAFETY: LDMXCSR loads the register from a local; a reserved bit set would fault, and
    // the values here set only defined bits.
    unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &v, options(nostack, preserves_flags, readonly)) };
}

/// A pool of two threads running under `environment`.
fn pool(environment: u32) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(move |_| set_mxcsr(environment))
        .build()
        .expect("a thread pool")
}

/// `n` edge-biased words of operand type `t` (each element of a packed word drawn alone).
fn words(rng: &mut Rng, t: Type, n: usize) -> Vec<u64> {
    let element = |rng: &mut Rng| match t.element() {
        Element::Float(fmt) => operand(rng, Layout::of(fmt)),
        Element::Int(i) => rng.next() & i.mask(),
        Element::Narrow(n) => rng.next() & n.mask(),
    };
    (0..n).map(|_| (0..t.lanes()).fold(0, |w, lane| w | element(rng) << (lane * t.element_bits()))).collect()
}

/// Every catalog entry (a spelling with one operand count) on its oldest target, and operands.
fn cases() -> Vec<(Instr, Target, Vec<Vec<u64>>)> {
    catalog::entries()
        .iter()
        .map(|e| {
            let target = e.lowest_target();
            let mut rng = Rng::new(seed(&e.instr.to_string(), 0));
            let srcs = (0..e.sources).map(|k| words(&mut rng, e.instr.source_type(k), 1024)).collect();
            (e.instr, target, srcs)
        })
        .collect()
}

/// `instr` on `srcs` through `eval_batch` (on the calling thread's pool) and through
/// `Prepared::eval_serial` (on the calling thread).
fn evaluate(instr: &Instr, target: Target, srcs: &[Vec<u64>]) -> [Vec<u64>; 2] {
    struct Typed<'a>(&'a Instr, Target, &'a [Vec<u64>]);
    impl WordsFn for Typed<'_> {
        type Output = [Vec<u64>; 2];
        fn call<S: Word, D: Word>(self) -> [Vec<u64>; 2] {
            let Typed(instr, target, srcs) = self;
            let owned: Vec<Vec<S>> = srcs.iter().map(|s| s.iter().map(|&x| S::from_u64(x)).collect()).collect();
            let refs: Vec<&[S]> = owned.iter().map(Vec::as_slice).collect();
            let len = srcs.first().map_or(1, Vec::len);
            let mut batch = vec![D::from_u64(0); len];
            instr.eval_batch(target, &refs, &mut batch).unwrap();
            let mut serial = vec![D::from_u64(0); len];
            Prepared::new(*instr, target).unwrap().eval_serial(&refs, &mut serial).unwrap();
            [batch, serial].map(|out| out.iter().map(|d| d.to_u64()).collect())
        }
    }
    with_words(instr.source_bits(), instr.result_bits(), Typed(instr, target, srcs)).unwrap()
}

/// The scalar definition on every operand tuple.
fn scalar(instr: &Instr, target: Target, srcs: &[Vec<u64>]) -> Vec<u64> {
    let len = srcs.first().map_or(1, Vec::len);
    (0..len)
        .map(|i| {
            let ops: Vec<u64> = srcs.iter().map(|s| s[i]).collect();
            instr.eval_unchecked(target, &ops)
        })
        .collect()
}

#[test]
fn every_spelling_gives_the_scalar_bits_under_any_environment() {
    let cases = cases();
    assert!(cases.len() > 1000, "{} catalog entries", cases.len());
    let want: Vec<Vec<u64>> = cases.iter().map(|(instr, target, srcs)| scalar(instr, *target, srcs)).collect();
    let mut failures = Vec::new();
    for (name, environment) in ENVIRONMENTS {
        let (got, seen): (Vec<[Vec<u64>; 2]>, u32) = pool(environment).install(|| {
            let got = cases.iter().map(|(instr, target, srcs)| evaluate(instr, *target, srcs)).collect();
            (got, mxcsr())
        });
        assert_eq!(seen & !FLAGS, environment, "{name}: the pool's threads run under the environment");
        for ((instr, _, srcs), (paths, want)) in cases.iter().zip(got.iter().zip(&want)) {
            for (path, got) in ["eval_batch", "Prepared::eval_serial"].iter().zip(paths) {
                if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                    let ops: Vec<u64> = srcs.iter().map(|s| s[i]).collect();
                    failures.push(format!(
                        "{name}: {instr} {path} {ops:x?}: {:#x}, scalar definition {:#x}",
                        got[i], want[i]
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} spellings differ, e.g.\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn a_sweep_refuses_a_changed_environment_and_names_it() {
    let spec = Spec { range: Some("1.0..2.0".into()), ..Spec::new("ex2.approx.ftz.f32") };
    let sweep = Sweep::new(&spec, Shard::WHOLE, true).unwrap();
    let stop = AtomicBool::new(false);
    let control = Control { progress: &|_, _| {}, stop: &stop, checkpoint: &|_| {}, checkpoint_every: f64::INFINITY };
    for (name, environment, says) in [
        ("-ffast-math", DEFAULT | FTZ | DAZ, "denormals-are-zero, flush-to-zero"),
        ("fesetround(FE_UPWARD)", DEFAULT | ROUND_UP, "rounding toward +infinity"),
        ("feenableexcept", DEFAULT & !TRAPS, "exceptions unmasked"),
    ] {
        let result = pool(environment).install(|| sweep.run(None, &control));
        let message = match result {
            Err(ptxfp::sweep::Error::FloatEnvironment(e)) => {
                assert_eq!(e.register, u64::from(environment), "{name}");
                e.to_string()
            }
            Err(e) => panic!("{name}: another error: {e}"),
            Ok(_) => panic!("{name}: the sweep ran"),
        };
        assert!(message.contains(says) && message.contains("MXCSR"), "{name}: {message}");
    }
    // The same sweep under the default environment runs.
    assert!(pool(DEFAULT).install(|| sweep.run(None, &control)).is_ok());
}
