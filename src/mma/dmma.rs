//! The f64 tensor core (DMMA): `mma.sync` and `wmma.mma` with `.f64` operands
//! (docs/tensorcore.md).
//!
//! Unlike the other types, PTX specifies its arithmetic: each element of `D` is the chain of
//! `fma.rnd.f64` over k, one rounding per product \[DOC PTX ISA §9.7.14.5.14\]. ptxfp chains in
//! k order, `d = fma(a[k], b[k], d)` from `d = c` \[INF: the order is not stated; every order
//! gives the same bits only where no rounding occurs\].

use crate::format::Format;
use crate::ops::fma::fma;
use crate::round::Rounding;

/// `c + Σ a[k]·b[k]` as the chain of `fma.rnd.f64` in k order, on f64 bit patterns. NaNs,
/// infinities and signed zeros follow `fma.f64` (docs/semantics.md). Allocation-free.
///
/// # Panics
/// If `a` and `b` differ in length: the callers check shapes first.
pub fn dmma_dot(a: &[u64], b: &[u64], c: u64, rnd: Rounding) -> u64 {
    assert_eq!(a.len(), b.len(), "A and B rows of one dot product differ in length");
    a.iter().zip(b).fold(c, |acc, (&x, &y)| fma(Format::F64, x, y, acc, rnd, false))
}
