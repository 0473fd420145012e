//! Kernels for f64 `add`, `sub`, `mul`, `fma`/`mad`, `div`, `rcp` and `sqrt` in the four
//! rounding directions on levels without AVX-512's embedded rounding (PTX 9.7.3.3–8, .13, .15;
//! docs/semantics.md §4): the IEEE operation with NVIDIA's f64 NaN rule, as the scalar definitions
//! in `ops` compute it. With AVX-512, `arith_f64` and `div_sqrt` encode the direction in the
//! instruction instead.
//!
//! The vector instructions round to nearest (the floating-point environment Rust assumes;
//! nothing reads or writes it). Each lane computes its result r rounded to nearest and a value
//! with the sign of the exact error x − r, zero when r is exact, by error-free transformations
//! (Muller et al., *Handbook of Floating-Point Arithmetic*, ch. 4–5):
//! - `add`/`sub`: Fast2Sum with the larger magnitude first; exact unless r overflows.
//! - `mul`: fma(a, b, −r), the product's exact error.
//! - `fma`: ErrFma (Boldo and Muller, "Exact and approximated error of the FMA", IEEE TC
//!   2011): x − r = r2 + r3 exactly with |r3| ≤ ½ ulp(r2), so r2 has the error's sign.
//! - `div`: the remainder fma(−r, b, a) = a − r·b is exact; x − r = (a − r·b)/b.
//! - `sqrt`: a − r² = fma(−r, r, a) is exact and has the sign of √a − r.
//!
//! The products' and quotients' errors are exact when no operand, product or result is near
//! underflow or overflow: within [2^−900, 2^1000] in magnitude ([`LOW`], [`HIGH`]), far inside
//! the bounds the proofs need. A lane outside that range whose result is not exact by the
//! IEEE rules for zeros and infinities takes the scalar definition; a group without one
//! takes none.
//!
//! As |x − r| ≤ ½ ulp, x lies between r and its neighbour on the error's side, so the
//! directed result is r or that neighbour ([`directed`]). An exact zero sum is −0 under
//! `.rm` unless both terms are +0, and what the nearest result has otherwise (IEEE 754-2019 clause 6.3).
//!
//! Without hardware fused multiply-add (the baseline) only `add` and `sub` in every direction
//! and `mul`, `div`, `rcp` and `sqrt` to nearest have a kernel here.

use crate::kernels::simd::{f64x8, u64x8};
use crate::nan;

use super::lanes::{each, is_nan, map, two_sum, Dir, Rm, Rn, Rp, Rz};
use super::level::{inlined, Isa};
use super::Kernel;
use crate::format::Format;
use crate::ops;
use crate::ptx::{Instr, Mode, Opcode, Type};
use crate::round::Rounding;

const F64: Format = Format::F64;

/// Elements per group: one vector.
const N: usize = 8;

/// The encoding of 2^−900, the smallest magnitude of the range where the errors are exact.
const LOW: u64 = (1023 - 900) << 52;
/// The encoding of 2^1000, the largest.
const HIGH: u64 = (1023 + 1000) << 52;

/// The kernel for an f64 `add`, `sub`, `mul`, `fma`, `mad`, `div`, `rcp` or `sqrt` with a
/// rounding direction, where `L` has what it needs (module documentation).
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    if instr.ty() != Type::F64 || !matches!(instr.mode(), Mode::Default | Mode::Round(_)) {
        return None;
    }
    let op = instr.opcode();
    let rounding = instr.rounding();
    let uses_fma = match op {
        Opcode::Add | Opcode::Sub => false,
        Opcode::Mul | Opcode::Div | Opcode::Rcp | Opcode::Sqrt => rounding != Rounding::Rn,
        Opcode::Fma | Opcode::Mad => true,
        _ => return None,
    };
    if uses_fma && !L::AVX2 {
        return None;
    }
    Some(Kernel::W64(match rounding {
        Rounding::Rn => kernel_for::<L, Rn>(op),
        Rounding::Rz => kernel_for::<L, Rz>(op),
        Rounding::Rm => kernel_for::<L, Rm>(op),
        Rounding::Rp => kernel_for::<L, Rp>(op),
    }))
}

type F64Kernel = fn(&Instr, &[&[u64]], &mut [u64]);

fn kernel_for<L: Isa, R: Dir>(op: Opcode) -> F64Kernel {
    match op {
        Opcode::Add => eval::<L, R, Add, 2>,
        Opcode::Sub => eval::<L, R, Sub, 2>,
        Opcode::Mul => eval::<L, R, Mul, 2>,
        Opcode::Fma | Opcode::Mad => eval::<L, R, Fma, 3>,
        Opcode::Div => eval::<L, R, Div, 2>,
        Opcode::Rcp => eval::<L, R, Rcp, 1>,
        Opcode::Sqrt => eval::<L, R, Sqrt, 1>,
        _ => unreachable!("select admits only these opcodes"),
    }
}

/// What decides the directed result of a group besides its result to nearest.
struct Error {
    /// A value with the sign of the exact error, zero where the result to nearest is exact.
    sign: f64x8,
    /// The lanes that take the scalar definition.
    outside: u64x8,
    /// The sign bit of an exact zero result under `.rm`.
    zero_sign: u64x8,
}

/// One operation on K operands.
trait Operation<const K: usize> {
    /// The order in which the operands are searched for the NaN to return
    /// ([`crate::nan::F64_NAN_ORDER`]).
    const NAN_ORDER: [usize; K];
    /// The IEEE result rounded to nearest.
    fn nearest(x: [f64x8; K]) -> f64x8;
    /// The error of `r`, the result to nearest of `x`.
    fn error(x: [f64x8; K], r: f64x8) -> Error;
    /// The scalar definition, for the lanes outside the range.
    fn scalar(x: [u64; K], rnd: Rounding) -> u64;
}

/// `dst[i] = O(srcs[0][i], …)` rounded in direction `R`, with the NaN rule.
#[inline(always)]
fn eval<L: Isa, R: Dir, O: Operation<K>, const K: usize>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
    map::<L, u64, N, K>(
        srcs,
        dst,
        #[inline(always)]
        |group| {
            let words = each(group, u64x8::new);
            let x = each(words, f64x8::from_bits);
            let r = O::nearest(x);
            let by_precedence = O::NAN_ORDER.map(|i| words[i]);
            if R::R == Rounding::Rn {
                return with_nan_rule(by_precedence, r);
            }
            let error = O::error(x, r);
            let mut out = with_nan_rule(by_precedence, directed::<R>(r, error.sign, error.zero_sign));
            let outside = error.outside.to_bitmask();
            if outside != 0 {
                by_scalar::<R, O, K>(&group, outside, &mut out);
            }
            out
        },
    );
}

/// The lanes of `outside` (a bit per lane) by the scalar definition; out of the lane loop,
/// which it would crowd.
#[cold]
#[inline(never)]
fn by_scalar<R: Dir, O: Operation<K>, const K: usize>(group: &[[u64; N]; K], outside: u64, out: &mut [u64; N]) {
    let mut outside = outside;
    while outside != 0 {
        let i = outside.trailing_zeros() as usize;
        out[i] = O::scalar(each(*group, |g| g[i]), R::R);
        outside &= outside - 1;
    }
}

/// The result in direction `R` from the result to nearest `r` and a value with the sign of
/// its error, zero where `r` is exact (module documentation): one unit toward zero is the
/// encoding minus one, away from zero plus one; an exact zero takes the sign bit `zero_sign`
/// under `.rm`.
#[inline(always)]
pub(super) fn directed<R: Dir>(r: f64x8, error: f64x8, zero_sign: u64x8) -> f64x8 {
    let sign = u64x8::splat(F64.sign_bit());
    let (rb, eb) = (r.to_bits(), error.to_bits());
    let inexact = magnitude(eb).simd_ne(u64x8::ZERO);
    let negative = inlined(
        #[inline(always)]
        |bits: u64x8| (bits & sign).simd_ne(u64x8::ZERO),
    );
    // The exact value lies toward zero from r.
    let below = inexact & negative(eb ^ rb);
    let r_negative = negative(rb);
    let (toward, away) = match R::R {
        Rounding::Rn => return r,
        Rounding::Rz => (below, u64x8::ZERO),
        Rounding::Rp => (below & r_negative, inexact & !below & !r_negative),
        Rounding::Rm => (below & !r_negative, inexact & !below & r_negative),
    };
    // A mask lane is −1: adding it steps toward zero, subtracting it away.
    let stepped = rb + toward - away;
    let result =
        if R::R == Rounding::Rm { magnitude(rb).simd_eq(u64x8::ZERO).select(zero_sign, stepped) } else { stepped };
    f64x8::from_bits(result)
}

/// The encodings without their sign.
#[inline(always)]
fn magnitude(bits: u64x8) -> u64x8 {
    bits & u64x8::splat(!F64.sign_bit())
}

/// The lanes of `x` whose magnitude lies in [2^−900, 2^1000].
#[inline(always)]
fn in_range(x: f64x8) -> u64x8 {
    let m = magnitude(x.to_bits()).cast_signed();
    let low = u64x8::splat(LOW).cast_signed();
    let high = u64x8::splat(HIGH).cast_signed();
    (m.simd_ge(low) & m.simd_le(high)).cast_unsigned()
}

/// The lanes of `x` that are ±0.
#[inline(always)]
fn zero(x: f64x8) -> u64x8 {
    magnitude(x.to_bits()).simd_eq(u64x8::ZERO)
}

/// The lanes of `x` that are neither infinite nor NaN.
#[inline(always)]
fn finite(x: f64x8) -> u64x8 {
    x.is_finite().to_bits()
}

/// `error` zeroed in the lanes of `exact`, where the result to nearest is exact.
#[inline(always)]
fn unless(exact: u64x8, error: f64x8) -> f64x8 {
    f64x8::from_bits(exact.select(u64x8::ZERO, error.to_bits()))
}

/// The sign bits of `x`.
#[inline(always)]
fn sign_bits(x: f64x8) -> u64x8 {
    x.to_bits() & u64x8::splat(F64.sign_bit())
}

struct Add;
struct Sub;
struct Mul;
struct Fma;
struct Div;
struct Rcp;
struct Sqrt;

impl Operation<2> for Add {
    const NAN_ORDER: [usize; 2] = nan::F64_NAN_ORDER;
    #[inline(always)]
    fn nearest([a, b]: [f64x8; 2]) -> f64x8 {
        a + b
    }

    /// Fast2Sum: with |a| ≥ |b|, (a + b) − r = b − (r − a) exactly. Finite operands whose sum
    /// overflows take the scalar definition; an infinite or NaN operand gives an exact result.
    #[inline(always)]
    fn error([a, b]: [f64x8; 2], r: f64x8) -> Error {
        let a_first = a.abs().simd_ge(b.abs());
        let (big, small) = (a_first.select(a, b), a_first.select(b, a));
        let operands_finite = finite(a) & finite(b);
        Error {
            sign: unless(!operands_finite, small - (r - big)),
            outside: operands_finite & !finite(r),
            zero_sign: (a.to_bits() | b.to_bits()) & u64x8::splat(F64.sign_bit()),
        }
    }

    fn scalar([a, b]: [u64; 2], rnd: Rounding) -> u64 {
        ops::add::add(F64, a, b, rnd, false)
    }
}

impl Operation<2> for Sub {
    const NAN_ORDER: [usize; 2] = nan::F64_NAN_ORDER;
    #[inline(always)]
    fn nearest([a, b]: [f64x8; 2]) -> f64x8 {
        a - b
    }

    /// `add` of −b.
    #[inline(always)]
    fn error([a, b]: [f64x8; 2], r: f64x8) -> Error {
        Add::error([a, -b], r)
    }

    fn scalar([a, b]: [u64; 2], rnd: Rounding) -> u64 {
        ops::add::sub(F64, a, b, rnd, false)
    }
}

impl Operation<2> for Mul {
    const NAN_ORDER: [usize; 2] = nan::F64_NAN_ORDER;
    #[inline(always)]
    fn nearest([a, b]: [f64x8; 2]) -> f64x8 {
        a * b
    }

    /// A zero, infinite or NaN operand gives an exact result.
    #[inline(always)]
    fn error([a, b]: [f64x8; 2], r: f64x8) -> Error {
        let exact = !(finite(a) & finite(b)) | zero(a) | zero(b);
        Error { sign: unless(exact, a.mul_add(b, -r)), outside: !exact & !in_range(r), zero_sign: sign_bits(r) }
    }

    fn scalar([a, b]: [u64; 2], rnd: Rounding) -> u64 {
        ops::mul::mul(F64, a, b, rnd, false)
    }
}

impl Operation<3> for Fma {
    const NAN_ORDER: [usize; 3] = nan::F64_NAN_ORDER_FMA;
    #[inline(always)]
    fn nearest([a, b, c]: [f64x8; 3]) -> f64x8 {
        a.mul_add(b, c)
    }

    /// ErrFma's r2. A zero factor makes the result c + (±0), and an infinite or NaN operand
    /// one of the IEEE special results: both exact. Otherwise the product, c (unless zero)
    /// and r (unless zero) must be in range; a zero r is then an exact cancellation, as a
    /// nonzero sum is a multiple of 2^−1066, which rounds to nonzero.
    #[inline(always)]
    fn error([a, b, c]: [f64x8; 3], r: f64x8) -> Error {
        let product = a * b;
        let product_error = a.mul_add(b, -product);
        let (alpha1, alpha2) = two_sum(c, product_error);
        let (beta1, beta2) = two_sum(product, alpha1);
        let gamma = (beta1 - r) + beta2;
        let r2 = gamma + alpha2;
        let exact = !(finite(a) & finite(b) & finite(c)) | zero(a) | zero(b);
        let in_range = in_range(product) & (zero(c) | in_range(c)) & (zero(r) | in_range(r));
        Error {
            sign: unless(exact, r2),
            outside: !exact & !in_range,
            zero_sign: (sign_bits(a) ^ sign_bits(b)) | sign_bits(c),
        }
    }

    fn scalar([a, b, c]: [u64; 3], rnd: Rounding) -> u64 {
        ops::fma::fma(F64, a, b, c, rnd, false)
    }
}

/// The error of the quotient `r` of a / b: the sign of the exact remainder a − r·b times
/// b's. A zero, infinite or NaN operand gives an exact result.
#[inline(always)]
fn quotient_error(a: f64x8, b: f64x8, r: f64x8) -> Error {
    let remainder = r.mul_neg_add(b, a);
    let exact = !(finite(a) & finite(b)) | zero(a) | zero(b);
    Error {
        sign: unless(exact, f64x8::from_bits(remainder.to_bits() ^ sign_bits(b))),
        outside: !exact & !(in_range(a) & in_range(b) & in_range(r)),
        zero_sign: sign_bits(r),
    }
}

impl Operation<2> for Div {
    const NAN_ORDER: [usize; 2] = [0, 1];
    #[inline(always)]
    fn nearest([a, b]: [f64x8; 2]) -> f64x8 {
        a / b
    }

    #[inline(always)]
    fn error([a, b]: [f64x8; 2], r: f64x8) -> Error {
        quotient_error(a, b, r)
    }

    fn scalar([a, b]: [u64; 2], rnd: Rounding) -> u64 {
        ops::div::div(F64, a, b, rnd, false)
    }
}

impl Operation<1> for Rcp {
    const NAN_ORDER: [usize; 1] = [0];
    #[inline(always)]
    fn nearest([a]: [f64x8; 1]) -> f64x8 {
        f64x8::ONE / a
    }

    #[inline(always)]
    fn error([a]: [f64x8; 1], r: f64x8) -> Error {
        quotient_error(f64x8::ONE, a, r)
    }

    fn scalar([a]: [u64; 1], rnd: Rounding) -> u64 {
        ops::div::rcp(F64, a, rnd, false)
    }
}

impl Operation<1> for Sqrt {
    const NAN_ORDER: [usize; 1] = [0];
    #[inline(always)]
    fn nearest([a]: [f64x8; 1]) -> f64x8 {
        a.sqrt()
    }

    /// The sign of a − r². A zero, negative, infinite or NaN operand gives an exact result
    /// (±0, NaN, +∞).
    #[inline(always)]
    fn error([a]: [f64x8; 1], r: f64x8) -> Error {
        let exact = !finite(a) | zero(a) | sign_bits(a).simd_ne(u64x8::ZERO);
        Error { sign: unless(exact, r.mul_neg_add(r, a)), outside: !exact & !in_range(a), zero_sign: sign_bits(r) }
    }

    fn scalar([a]: [u64; 1], rnd: Rounding) -> u64 {
        ops::sqrt::sqrt(F64, a, rnd, false)
    }
}

/// The IEEE results `r` of operands `ops` with the f64 NaN rule of [`crate::nan`]: a NaN
/// operand gives the first NaN of `ops`, which the caller lists in the hardware's order of
/// precedence ([`crate::nan::F64_NAN_ORDER`]), quieted (a NaN `b` of `sub` keeps its sign);
/// otherwise a NaN result is an invalid operation's, the canonical NaN.
#[inline(always)]
pub(super) fn with_nan_rule<const K: usize>(ops: [u64x8; K], r: f64x8) -> [u64; N] {
    let r = r.to_bits();
    let invalid = is_nan(F64, r).select(u64x8::splat(F64.canonical_nan()), r);
    let quiet = u64x8::splat(F64.quiet_bit());
    let first_nan = ops.iter().rev().fold(invalid, |acc, &x| is_nan(F64, x).select(x | quiet, acc));
    first_nan.to_array()
}
