//! Shared pieces of the tensor-core tests: a target of each generation a form runs on, and
//! edge-biased element codes.

use super::Rng;
use ptxfp::mma::{table::Generation, Form};
use ptxfp::ptx::Target;

/// A target of each generation, plain where the form allows it.
pub fn some_targets(form: &Form) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in form.targets.iter() {
        if !out.iter().any(|u| Generation::of(u.sm()) == Generation::of(t.sm())) {
            out.push(t);
        }
    }
    out
}

/// Random codes of a `bits`-bit element type, biased to the edges (zero, all ones, the sign
/// bit alone).
pub fn codes(rng: &mut Rng, bits: u32, len: usize) -> Vec<u64> {
    (0..len)
        .map(|_| {
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            match rng.below(8) {
                0 => 0,
                1 => mask,
                2 => 1 << (bits - 1),
                _ => rng.next() & mask,
            }
        })
        .collect()
}
