//! Shared pieces of the tensor-core tests: a target of each generation a form runs on, and
//! edge-biased element codes.

use super::Rng;
use ptxfp::mma::{table::Generation, Form, MmaType};
use ptxfp::ptx::Target;
use ptxfp::Unpacked;

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

/// Codes of the element type `ty` (a [`MmaType`] name) without NaNs and infinities: the
/// edge-biased [`codes`] where `wide`, else values whose magnitude lies in [2^-4, 2^4] (close
/// exponents, so that the alignment truncates and cancels), zero an eighth of the time.
pub fn finite_codes(rng: &mut Rng, ty: &str, bits: u32, len: usize, wide: bool) -> Vec<u64> {
    let ty = MmaType::ALL.into_iter().find(|t| t.name() == ty).expect("a floating-point element type");
    (0..len)
        .map(|_| loop {
            let code = codes(rng, bits, 1)[0];
            match ty.decode(code as u32) {
                Unpacked::Zero { .. } => break code,
                Unpacked::Finite { exp, sig, .. } => {
                    let log2 = exp + 63 - sig.leading_zeros() as i32;
                    if wide || (-4..4).contains(&log2) {
                        break code;
                    }
                }
                Unpacked::Nan | Unpacked::Inf { .. } => {}
            }
        })
        .collect()
}
