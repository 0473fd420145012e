//! Kernels for `add`, `sub`, `mul`, `fma` and `mad` on f64 in the four rounding directions:
//! every catalog spelling of these on `.f64` (PTX 9.7.3.3–7; docs/semantics.md §4).
//!
//! f64 has no `.ftz` or `.sat` in PTX and its subnormals are IEEE's, so the scalar definition
//! is the IEEE operation with NVIDIA's NaN rule. AVX-512 computes the IEEE operation with the
//! rounding direction encoded in the instruction itself
//! ([`super::lanes::embedded_rounding`]). `fma` is the fused VFMADD. The NaN rule is
//! applied afterwards from the operands, as [`crate::nan`] defines it: a NaN operand gives the
//! first NaN in the hardware's order of precedence (`b` before `a`; `b`, `c`, `a` for `fma`),
//! quieted (a NaN `b` of `sub` keeps its sign); otherwise a NaN result is an invalid
//! operation's, the canonical NaN.
//!
//! Levels without AVX-512 (SSE/AVX2 round only as MXCSR says) derive the directed results
//! from the result to nearest and its exact error (`f64_directed`).

use std::arch::x86_64::{
    __m512d, _mm512_add_round_pd, _mm512_fmadd_round_pd, _mm512_mul_round_pd, _mm512_sub_round_pd,
};

use crate::kernels::simd::{f64x8, u64x8};

use super::f64_directed::with_nan_rule;
use super::lanes::{by_embedded_rounding, each, map};
use super::level::Isa;
use super::Kernel;
use crate::nan;
use crate::ptx::{Instr, Mode, Opcode};

/// The kernel for an f64 `add`, `sub`, `mul`, `fma` or `mad`.
/// `L` must have AVX-512.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    if instr.ty() != crate::Type::F64 || !matches!(instr.mode(), Mode::Default | Mode::Round(_)) {
        return None;
    }
    Some(Kernel::W64(match instr.opcode() {
        Opcode::Add => by_embedded_rounding!(instr.rounding(), add, L),
        Opcode::Sub => by_embedded_rounding!(instr.rounding(), sub, L),
        Opcode::Mul => by_embedded_rounding!(instr.rounding(), mul, L),
        Opcode::Fma | Opcode::Mad => by_embedded_rounding!(instr.rounding(), fma, L),
        _ => return None,
    }))
}

/// Elements per group: one vector.
const N: usize = 8;

/// `dst[i] = op(srcs[0][i], …)` with the NaN rule (operands searched for a NaN in the order
/// `by_precedence` puts them in), eight lanes at a time. `by_precedence` must index with
/// constants (a `const` order, not a captured one): an order held in a variable made the
/// lanes go through the stack, and fma.rn.f64 slower at AVX-512 than at AVX2.
#[inline(always)]
pub(super) fn eval<L: Isa, const K: usize>(
    srcs: &[&[u64]],
    dst: &mut [u64],
    by_precedence: impl Fn([u64x8; K]) -> [u64x8; K],
    op: impl Fn([f64x8; K]) -> __m512d,
) {
    map::<L, u64, N, K>(
        srcs,
        dst,
        #[inline(always)]
        |group| {
            let x = each(group, |g| f64x8::from_bits(u64x8::new(g)));
            with_nan_rule(by_precedence(each(group, u64x8::new)), op(x).into())
        },
    );
}

/// [`eval`] of `add`, `sub` or `mul`: two operands searched for a NaN in the order
/// [`nan::F64_NAN_ORDER`].
#[inline(always)]
fn binary<L: Isa>(srcs: &[&[u64]], dst: &mut [u64], op: impl Fn([f64x8; 2]) -> __m512d) {
    eval::<L, 2>(
        srcs,
        dst,
        #[inline(always)]
        |w| each(nan::F64_NAN_ORDER, |i| w[i]),
        op,
    );
}

// SAFETY (the four intrinsics below): these kernels are selected only for a level with AVX-512,
// whose loop is compiled with it, and the intrinsics only compute.

fn add<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
    binary::<L>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| unsafe { _mm512_add_round_pd::<R>(a.into(), b.into()) },
    );
}

fn sub<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
    binary::<L>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| unsafe { _mm512_sub_round_pd::<R>(a.into(), b.into()) },
    );
}

fn mul<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
    binary::<L>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| unsafe { _mm512_mul_round_pd::<R>(a.into(), b.into()) },
    );
}

fn fma<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
    eval::<L, 3>(
        srcs,
        dst,
        #[inline(always)]
        |w| each(nan::F64_NAN_ORDER_FMA, |i| w[i]),
        #[inline(always)]
        |[a, b, c]| unsafe { _mm512_fmadd_round_pd::<R>(a.into(), b.into(), c.into()) },
    );
}
