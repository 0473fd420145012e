//! Kernels for the IEEE `div`, `rcp` and `sqrt` (PTX 9.7.3.8, 9.7.3.13, 9.7.3.15): on f32 in
//! the four rounding directions, with and without `.ftz`, and on f64 where the build has
//! AVX-512. The correctly rounded quotient or root with NVIDIA's NaN and flush-to-zero rules
//! (docs/semantics.md §4–§5), as `ops::div` and `ops::sqrt` define them; `rcp` is `1 / a`.
//!
//! On f32 the operands, widened exactly to f64 (flushed first under `.ftz`), are divided or
//! rooted once in f64 to nearest, and that result q is rounded to f32 as the add and mul
//! kernels round their exact values (`arith_f32::finish`). That is the correct rounding of the
//! exact quotient or root x in every direction, because x is never within half an f64 unit of
//! a number with at most 25 significant bits — an f32 value or a midpoint between two, with an
//! unbounded exponent; the subnormal grid and the `.ftz` thresholds are such numbers — unless
//! it equals it. So q lies strictly between the same two of them as x, or equals x.
//!
//! Quotient: let a = A·2^i and
//! b = B·2^j with integers A, B < 2^24, and m = M·2^k with 2^24 ≤ M < 2^25, whose half f64 unit
//! is 2^(k−29). Then x − m = (A·2^i − M·B·2^(j+k))/b. If i ≥ j + k the numerator is a multiple
//! of 2^(j+k), so a nonzero |x − m| exceeds 2^(j+k)/2^(j+24) = 2^(k−24). If i < j + k − 5,
//! |x| < 2^(i−j+1) < 2^(k−4), far below m. Otherwise the numerator is a multiple of 2^i and a
//! nonzero |x − m| exceeds 2^(i−j−24) ≥ 2^(k−29).
//!
//! Root: with x = √a and m as above, x − m = (a − m²)/(x + m). If |x − m| ≤ 2^(k−29) then
//! x + m < 2^(k+26) and a ≥ 2^(2k+47); as a = A·2^i with A < 2^24, i > 2k, so a − m² is a
//! multiple of 2^(2k) and a nonzero |x − m| exceeds 2^(2k)/2^(k+26) = 2^(k−26), a contradiction.
//!
//! Zeros, infinities and NaNs are IEEE's in f64 too, and every NaN becomes the canonical NaN.
//!
//! The f64 kernels are the IEEE operation with the direction encoded in the instruction, and
//! the f64 NaN rule of `arith_f64`; without AVX-512F the f64 `div`, `rcp` and `sqrt` kernels
//! are those of `f64_directed.rs`.

use crate::kernels::simd::f64x8;

use super::arith_f32::{finish, widen, N};
use super::lanes::{map, Dir, Rm, Rn, Rp, Rz};
use super::level::Isa;
use super::Kernel;
use crate::ptx::{Instr, Mode, Opcode, Type};
use crate::round::Rounding;

/// The kernel for a `div`, `rcp` or `sqrt` `.rn/rz/rm/rp{.ftz}.f32`, or with AVX-512 a
/// `div`, `rcp` or `sqrt` `.rn/rz/rm/rp.f64`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    if !matches!(instr.mode(), Mode::Round(_)) {
        return None;
    }
    match (instr.ty(), instr.opcode()) {
        (Type::F32, op @ (Opcode::Div | Opcode::Rcp | Opcode::Sqrt)) => {
            let ftz = instr.modifiers().ftz;
            Some(Kernel::W32(match instr.rounding() {
                Rounding::Rn => f32_kernel::<L, Rn>(op, ftz),
                Rounding::Rz => f32_kernel::<L, Rz>(op, ftz),
                Rounding::Rm => f32_kernel::<L, Rm>(op, ftz),
                Rounding::Rp => f32_kernel::<L, Rp>(op, ftz),
            }))
        }
        #[cfg(target_arch = "x86_64")]
        (Type::F64, op) if L::AVX512 => f64_embedded::select::<L>(op, instr.rounding()),
        _ => None,
    }
}

type F32Kernel = fn(&Instr, &[&[u32]], &mut [u32]);

fn f32_kernel<L: Isa, R: Dir>(op: Opcode, ftz: bool) -> F32Kernel {
    match (op, ftz) {
        (Opcode::Div, false) => div_f32::<L, R, false>,
        (Opcode::Div, true) => div_f32::<L, R, true>,
        (Opcode::Rcp, false) => rcp_f32::<L, R, false>,
        (Opcode::Rcp, true) => rcp_f32::<L, R, true>,
        (_, false) => sqrt_f32::<L, R, false>,
        (_, true) => sqrt_f32::<L, R, true>,
    }
}

/// f32 `div` (module documentation).
fn div_f32<L: Isa, R: Dir, const FTZ: bool>(_: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    map::<L, u32, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| {
            let (a, b) = (widen::<FTZ>(a), widen::<FTZ>(b));
            finish::<R, FTZ>([a[0] / b[0], a[1] / b[1]], false)
        },
    );
}

/// f32 `rcp`: `div` of 1.0.
fn rcp_f32<L: Isa, R: Dir, const FTZ: bool>(_: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    unary_f32::<L, R, FTZ>(
        srcs,
        dst,
        #[inline(always)]
        |a| f64x8::splat(1.0) / a,
    );
}

/// f32 `sqrt` (module documentation).
fn sqrt_f32<L: Isa, R: Dir, const FTZ: bool>(_: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    unary_f32::<L, R, FTZ>(
        srcs,
        dst,
        #[inline(always)]
        |a| a.sqrt(),
    );
}

/// `op` of the operands widened to f64 (flushed under `.ftz`), rounded to f32 in direction `R`.
#[inline(always)]
fn unary_f32<L: Isa, R: Dir, const FTZ: bool>(srcs: &[&[u32]], dst: &mut [u32], op: impl Fn(f64x8) -> f64x8) {
    map::<L, u32, N, 1>(
        srcs,
        dst,
        #[inline(always)]
        |[a]| {
            let a = widen::<FTZ>(a);
            finish::<R, FTZ>([op(a[0]), op(a[1])], false)
        },
    );
}

/// f64 `div`, `rcp` (`1 / a`, whose NaN rule is `a`'s) and `sqrt` with AVX-512.
#[cfg(target_arch = "x86_64")]
mod f64_embedded {
    use std::arch::x86_64::{__m512d, _mm512_div_round_pd, _mm512_set1_pd, _mm512_sqrt_round_pd};

    use super::super::arith_f64::eval;
    use super::super::lanes::by_embedded_rounding;
    use super::super::level::Isa;
    use super::Kernel;
    use crate::kernels::simd::f64x8;
    use crate::ptx::{Instr, Opcode};
    use crate::round::Rounding;

    /// `L` must have AVX-512.
    pub(super) fn select<L: Isa>(op: Opcode, rounding: Rounding) -> Option<Kernel> {
        Some(Kernel::W64(match op {
            Opcode::Div => by_embedded_rounding!(rounding, div, L),
            Opcode::Rcp => by_embedded_rounding!(rounding, rcp, L),
            Opcode::Sqrt => by_embedded_rounding!(rounding, sqrt, L),
            _ => return None,
        }))
    }

    /// [`eval`] with the operands searched for a NaN in their own order: the division
    /// sequence returns `a` when both operands are NaN (unlike nan::F64_NAN_ORDER).
    #[inline(always)]
    fn in_operand_order<L: Isa, const K: usize>(srcs: &[&[u64]], dst: &mut [u64], op: impl Fn([f64x8; K]) -> __m512d) {
        eval::<L, K>(
            srcs,
            dst,
            #[inline(always)]
            |w| w,
            op,
        );
    }

    // SAFETY (the intrinsics below): these kernels are selected only for a level with AVX-512,
    // whose loop is compiled with it, and the intrinsics only compute.

    fn div<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
        in_operand_order::<L, 2>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_div_round_pd::<R>(a.into(), b.into()) },
        );
    }

    fn rcp<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
        in_operand_order::<L, 1>(
            srcs,
            dst,
            #[inline(always)]
            |[a]| unsafe { _mm512_div_round_pd::<R>(_mm512_set1_pd(1.0), a.into()) },
        );
    }

    fn sqrt<L: Isa, const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
        in_operand_order::<L, 1>(
            srcs,
            dst,
            #[inline(always)]
            |[a]| unsafe { _mm512_sqrt_round_pd::<R>(a.into()) },
        );
    }
}
