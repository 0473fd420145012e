//! Exhaustive tier: every one of the 2^32 operand pairs of `add.rn` and `mul.rn` for f16 and
//! for bf16, ptxfp's scalar definitions against an exact reference built from the host's IEEE
//! binary32 arithmetic and `half`'s round-to-nearest-even narrowing.
//!
//! `sub` is `add` with the sign of a non-NaN `b` flipped (src/ops/add.rs), so its pairs are
//! these pairs; its own line, the NaN `b` case, is covered with the IEEE oracles
//! (tests/oracle_ieee.rs) and the kernel equivalence tests.
//!
//! Run with `cargo test --test exhaustive_half -- --include-ignored` (each test is about a
//! minute and a half of work on two cores; it is parallelised over the first operand).
//!
//! Why the reference is exact. Let p be the narrow precision (11 for f16, 8 for bf16). Both
//! operands widen to f32 exactly.
//!
//! - Products: an f16 or bf16 product has at most 2p ≤ 22 significant bits, so it is exact in
//!   f32 whenever it lies in f32's normal range, which holds for every f16 product
//!   (2^-48 ≤ |a·b| < 2^32). For bf16, whose exponent range is f32's, the product can leave
//!   that range: above it f32 gives ±Inf, which is also the bf16 result since f32's overflow
//!   threshold exceeds bf16's; below 2^-126 f32 rounds once onto its subnormal grid (2^-149),
//!   and that rounding cannot move a product across a bf16 rounding boundary: the boundaries
//!   there are multiples of 2^-134 (and exact products lying on one are exact in f32), and a
//!   product P = k·2^e with k < 2^16 that f32 must round has e ≤ -150, so P < 2^-134 and
//!   |P − 2^-134| ≥ 2^-150·(2^16 − 255²) > 2^-150, so f32 rounding cannot reach the first
//!   boundary 2^-134 from below (nor cross zero). The one narrowing rounding is then
//!   `from_f32`.
//! - Sums and differences: the exact result is rounded once to f32 (p' = 24) and then once to
//!   the narrow format. Double rounding to nearest is innocuous when p' ≥ 2p + 2 (Figueroa,
//!   "When is double rounding innocuous?", 1995, for +, −, ×, ÷, √ of p-bit operands):
//!   24 ≥ 24 for f16 and 24 ≥ 18 for bf16. The theorem is about precision with an unbounded
//!   exponent; the range ends do not break it here: when f32 has to round at all, the exact
//!   sum needs more than 24 bits, so (both operands being multiples of the narrow format's
//!   smallest subnormal 2^-24 resp. 2^-133, and lying below 2^16 resp. 2^128) its magnitude is
//!   at least 1 for f16 resp. 2^-109 for bf16, i.e. in the narrow normal range, where the f32
//!   result is normal too; and overflow is decided on the unbounded-exponent rounding, which
//!   both roundings respect (f32 itself never overflows for f16; for bf16 an f32 overflow means
//!   |sum| ≥ f32's threshold > bf16's).
//!
//! NaN: whenever the reference is NaN, ptxfp must write exactly the canonical 0x7FFF
//! (SEMANTICS §4); signed zeros and everything else are compared bit for bit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ptxfp::ops::{add, mul};
use ptxfp::{Format, Rounding};
use rayon::prelude::*;

#[derive(Clone, Copy)]
enum Op {
    Add,
    Mul,
}

fn exhaustive(fmt: Format, op: Op) {
    type Widen = fn(u16) -> f32;
    type Narrow = fn(f32) -> u16;
    let (widen, narrow): (Widen, Narrow) = match fmt {
        Format::F16 => (|x| half::f16::from_bits(x).to_f32(), |x| half::f16::from_f32(x).to_bits()),
        Format::BF16 => (|x| half::bf16::from_bits(x).to_f32(), |x| half::bf16::from_f32(x).to_bits()),
        _ => unreachable!(),
    };
    let name = match op {
        Op::Add => "add",
        Op::Mul => "mul",
    };
    let label = format!("{name}.rn.{}", fmt.name());
    let start = Instant::now();
    let failed = AtomicU64::new(0);
    let examples = Mutex::new(Vec::<String>::new());
    (0u32..=0xFFFF).into_par_iter().for_each(|a| {
        let fa = widen(a as u16);
        let mut local = 0u64;
        for b in 0u32..=0xFFFF {
            let fb = widen(b as u16);
            let (got, exact) = match op {
                Op::Add => (add::add(fmt, a as u64, b as u64, Rounding::Rn, false), fa + fb),
                Op::Mul => (mul::mul(fmt, a as u64, b as u64, Rounding::Rn, false), fa * fb),
            };
            let want = if exact.is_nan() { 0x7FFF } else { narrow(exact) as u64 };
            if got != want {
                local += 1;
                let mut ex = examples.lock().unwrap();
                if ex.len() < 10 {
                    ex.push(format!("{label} [{a:#06x}, {b:#06x}]: ptxfp {got:#06x} reference {want:#06x}"));
                }
            }
        }
        failed.fetch_add(local, Ordering::Relaxed);
    });
    let failed = failed.into_inner();
    eprintln!("{label}: 4294967296 operand pairs, {failed} mismatches, {:.1?}", start.elapsed());
    assert!(failed == 0, "{label}: {failed} mismatches:\n{}", examples.into_inner().unwrap().join("\n"));
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_add_rn_f16() {
    exhaustive(Format::F16, Op::Add);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_mul_rn_f16() {
    exhaustive(Format::F16, Op::Mul);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_add_rn_bf16() {
    exhaustive(Format::BF16, Op::Add);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_mul_rn_bf16() {
    exhaustive(Format::BF16, Op::Mul);
}
