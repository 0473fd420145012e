//! Kernels for the IEEE `div` (PTX 9.7.3.8) on f32 in the four rounding directions, with and
//! without `.ftz`, and, where the build has AVX-512, for `div`, `rcp` and `sqrt` (9.7.3.13,
//! 9.7.3.15) on f64: the correctly rounded quotient or root with NVIDIA's NaN and
//! flush-to-zero rules (SEMANTICS §4–§5), as `ops::div` and `ops::sqrt` define them.
//!
//! f32 `div` divides the operands, widened exactly to f64 (flushed first under `.ftz`), once
//! in f64 to nearest, and rounds that quotient q to f32 as the add and mul kernels round their
//! exact values (`exact::finish`). That is the correct rounding of the exact quotient x in
//! every direction, because x is never within half an f64 unit of a number with at most 25
//! significant bits — an f32 value or a midpoint between two, with an unbounded exponent; the
//! subnormal grid and the `.ftz` thresholds are such numbers — unless it equals it. So q lies
//! strictly between the same two of them as x, or equals x. Proof: let a = A·2^i and
//! b = B·2^j with integers A, B < 2^24, and m = M·2^k with 2^24 ≤ M < 2^25, whose half f64 unit
//! is 2^(k−29). Then x − m = (A·2^i − M·B·2^(j+k))/b. If i ≥ j + k the numerator is a multiple
//! of 2^(j+k), so a nonzero |x − m| exceeds 2^(j+k)/2^(j+24) = 2^(k−24). If i < j + k − 5,
//! |x| < 2^(i−j+1) < 2^(k−4), far below m. Otherwise the numerator is a multiple of 2^i and a
//! nonzero |x − m| exceeds 2^(i−j−24) ≥ 2^(k−29). Zeros, infinities and NaNs are IEEE's in f64
//! too, and every NaN becomes the canonical NaN.
//!
//! The f64 kernels are the IEEE operation with the direction encoded in the instruction, and
//! the f64 NaN rule of `exact_f64`; builds without AVX-512F evaluate f64 `div`, `rcp` and
//! `sqrt` through the scalar definitions.

use super::exact::{finish, widen, N};
use super::lanes::{map, Dir, Rm, Rn, Rp, Rz};
use super::Kernel;
use crate::ptx::{Instr, Mode, Opcode, Type};
use crate::round::Rounding;

/// The kernel for an f32 `div.rn/rz/rm/rp{.ftz}`, or with AVX-512 an f64
/// `div`, `rcp` or `sqrt` `.rn/rz/rm/rp`.
pub(super) fn select(instr: &Instr) -> Option<Kernel> {
    if !matches!(instr.mode(), Mode::Round(_)) {
        return None;
    }
    match (instr.ty(), instr.opcode()) {
        (Type::F32, Opcode::Div) => Some(Kernel::W32(match (instr.rounding(), instr.modifiers().ftz) {
            (Rounding::Rn, false) => div_f32::<Rn, false>,
            (Rounding::Rz, false) => div_f32::<Rz, false>,
            (Rounding::Rm, false) => div_f32::<Rm, false>,
            (Rounding::Rp, false) => div_f32::<Rp, false>,
            (Rounding::Rn, true) => div_f32::<Rn, true>,
            (Rounding::Rz, true) => div_f32::<Rz, true>,
            (Rounding::Rm, true) => div_f32::<Rm, true>,
            (Rounding::Rp, true) => div_f32::<Rp, true>,
        })),
        #[cfg(target_feature = "avx512f")]
        (Type::F64, op) => f64_embedded::select(op, instr.rounding()),
        _ => None,
    }
}

/// f32 `div` (module documentation).
fn div_f32<R: Dir, const FTZ: bool>(_: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    map::<u32, N, 2>(srcs, dst, |[a, b]| {
        let (a, b) = (widen::<FTZ>(a), widen::<FTZ>(b));
        finish::<R, FTZ>([a[0] / b[0], a[1] / b[1]], false)
    });
}

/// f64 `div`, `rcp` (`1 / a`, whose NaN rule is `a`'s) and `sqrt` with AVX-512.
#[cfg(target_feature = "avx512f")]
mod f64_embedded {
    use std::arch::x86_64::{_mm512_div_round_pd, _mm512_set1_pd, _mm512_sqrt_round_pd};

    use super::super::exact_f64::eval;
    use super::super::lanes::by_embedded_rounding;
    use super::Kernel;
    use crate::ptx::{Instr, Opcode};
    use crate::round::Rounding;

    pub(super) fn select(op: Opcode, rounding: Rounding) -> Option<Kernel> {
        Some(Kernel::W64(match op {
            Opcode::Div => by_embedded_rounding!(rounding, div),
            Opcode::Rcp => by_embedded_rounding!(rounding, rcp),
            Opcode::Sqrt => by_embedded_rounding!(rounding, sqrt),
            _ => return None,
        }))
    }

    // SAFETY (the intrinsics below): this module is compiled only with AVX-512F enabled, and
    // the intrinsics only compute.

    fn div<const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
        eval(srcs, dst, |[a, b]| unsafe { _mm512_div_round_pd::<R>(a, b) });
    }

    fn rcp<const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
        eval(srcs, dst, |[a]| unsafe { _mm512_div_round_pd::<R>(_mm512_set1_pd(1.0), a) });
    }

    fn sqrt<const R: i32>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
        eval(srcs, dst, |[a]| unsafe { _mm512_sqrt_round_pd::<R>(a) });
    }
}
