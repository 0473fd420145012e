//! The scalar definitions: one file per instruction family, each the specification in code of
//! what the GPU writes. They work on raw bits in the low bits of a `u64` and end in
//! [`crate::round::round_pack`] or a rule of [`crate::nan`].

pub mod add;
pub mod cvt;
pub mod cvt_int;
pub mod cvt_narrow;
pub mod div;
pub mod fma;
pub mod minmax;
pub mod mixed;
pub mod mul;
pub mod sign;
pub mod sqrt;
pub mod testp;

use crate::format::{Format, Unpacked};
use crate::round::Sig;

/// Whether the exact arithmetic of `fmt` fits a `u64` significand: true for the formats of at
/// most 32 bits (p ≤ 24), whose exact products have at most 48 bits. f64 needs `u128`.
#[inline(always)]
pub(crate) const fn fits_u64(fmt: Format) -> bool {
    fmt.precision() <= 24
}

/// Whether `bits` is a normal number of `fmt`: its exponent field is neither 0 nor all ones.
/// The definitions test their operands with it first, so that the common case of normal
/// operands takes one branch to its arithmetic, and every other goes the general way.
#[inline(always)]
pub(crate) fn is_normal(fmt: Format, bits: u64) -> bool {
    let field = (bits & fmt.exp_mask()) >> fmt.frac_bits();
    field.wrapping_sub(1) < (fmt.exp_mask() >> fmt.frac_bits()) - 1
}

/// A finite nonzero value `(-1)^neg · sig · 2^exp` held exactly, or with a sticky bit in the
/// lowest position of `sig` (see [`crate::round::round_pack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exact<S = u128> {
    pub neg: bool,
    pub exp: i32,
    pub sig: S,
}

impl<S: Sig> Exact<S> {
    /// The value of a normal operand (see [`is_normal`]): what [`Format::unpack`] gives for it,
    /// without the classification.
    #[inline(always)]
    pub fn of_normal(fmt: Format, bits: u64) -> Exact<S> {
        let biased = ((bits & fmt.exp_mask()) >> fmt.frac_bits()) as i32;
        Exact {
            neg: fmt.is_neg(bits),
            exp: biased - fmt.bias() - fmt.frac_bits() as i32,
            sig: S::from_u64((bits & fmt.frac_mask()) | (1u64 << fmt.frac_bits())),
        }
    }

    /// The exact product of two values of [`Exact::of_normal`], with the top bit of its
    /// significand at position `bit`. Their significands lie in [2^f, 2^(f+1)) (f fraction
    /// bits), so the product lies in [2^(2f), 2^(2f+2)) and bit 2f + 1 alone says where its top
    /// bit is: no leading-zero count.
    #[inline(always)]
    pub fn normal_product_at(fmt: Format, v: Exact<S>, w: Exact<S>, bit: u32) -> Exact<S> {
        let sig = v.sig * w.sig;
        let f = fmt.frac_bits();
        let top = 2 * f + u32::from(sig >> (2 * f + 1) != S::ZERO);
        let shift = bit - top;
        Exact { neg: v.neg != w.neg, exp: v.exp + w.exp - shift as i32, sig: sig << shift }
    }

    /// Shift the significand left so that its top bit is at position `bit`.
    #[inline(always)]
    fn normalized_to(self, bit: u32) -> Exact<S> {
        let top = S::BITS - 1 - self.sig.leading_zeros();
        let shift = bit - top;
        Exact { neg: self.neg, exp: self.exp - shift as i32, sig: self.sig << shift }
    }
}

/// A non-NaN operand of an addition: the inputs of `add`, or the exact product and addend of
/// `fma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Term<S = u128> {
    Inf(bool),
    Zero(bool),
    Finite(Exact<S>),
}

impl<S: Sig> Term<S> {
    /// The term of an unpacked operand; `None` for a NaN.
    #[inline(always)]
    pub fn of(u: Unpacked) -> Option<Term<S>> {
        match u {
            Unpacked::Nan => None,
            Unpacked::Inf { neg } => Some(Term::Inf(neg)),
            Unpacked::Zero { neg } => Some(Term::Zero(neg)),
            Unpacked::Finite { neg, exp, sig } => Some(Term::Finite(Exact { neg, exp, sig: S::from_u64(sig) })),
        }
    }
}

/// The formats of at most 32 bits get the same results with `u64` significands as with
/// `u128` ones (the proof is at [`add::add_terms`]'s alignment, `exact_sum`), on operands
/// biased to the cases where the width could show: cancellations, alignment shifts around
/// the threshold where bits start to be lost, subnormal and overflowing results, specials.
#[cfg(test)]
mod width_tests {
    use super::{add, fma, mul};
    use crate::format::Format;
    use crate::round::Rounding;
    use crate::sweep::domain::Rng;

    /// An operand of `fmt`: a special, a subnormal, one of the smallest or largest normals, or
    /// a value within 2^±12 of 1, with a random, sparse or nearly full fraction.
    fn operand(fmt: Format, r: u64) -> u64 {
        let top = fmt.exp_mask() >> fmt.frac_bits();
        let field = match (r >> 40) % 8 {
            0 => 0,
            1 => top,
            2 => 1 + (r >> 48) % 3,
            3 => top - 1 - (r >> 48) % 3,
            4 => (r >> 48) % top,
            _ => fmt.bias() as u64 - 12 + (r >> 48) % 25,
        };
        let frac = match (r >> 56) % 4 {
            0 => (r >> 8) & fmt.frac_mask() & !(fmt.frac_mask() >> (r >> 60)),
            1 => fmt.frac_mask() - (r >> 8) % 4,
            _ => (r >> 8) & fmt.frac_mask(),
        };
        ((r & 1) << (fmt.bits() - 1)) | field << fmt.frac_bits() | frac
    }

    /// A value related to `x`: its negation or itself a few units away, or scaled by a power of
    /// two (exponent moved by up to ±40), so that sums cancel or align at every distance.
    fn near(fmt: Format, x: u64, r: u64) -> u64 {
        let x = if r & 1 == 0 { x ^ fmt.sign_bit() } else { x };
        let field = (x & fmt.exp_mask()) >> fmt.frac_bits();
        let top = fmt.exp_mask() >> fmt.frac_bits();
        if field == 0 || field == top {
            return x;
        }
        if r & 2 == 0 {
            let step = (r >> 8) % 7;
            (x & fmt.sign_bit()) | ((x & !fmt.sign_bit()) + step).saturating_sub(3).min(fmt.exp_mask() - 1)
        } else {
            let field = (field as i64 + (r >> 8) as i64 % 81 - 40).clamp(1, top as i64 - 1) as u64;
            (x & !fmt.exp_mask()) | field << fmt.frac_bits()
        }
    }

    const FORMATS: [Format; 3] = [Format::F16, Format::BF16, Format::F32];

    fn cases(mut each: impl FnMut(Format, Rounding, bool, &mut Rng)) {
        let mut rng = Rng::for_case(17, 0);
        for fmt in FORMATS {
            for rnd in Rounding::ALL {
                for ftz in [false, true] {
                    for _ in 0..40_000 {
                        each(fmt, rnd, ftz, &mut rng);
                    }
                }
            }
        }
    }

    #[test]
    fn add_is_the_same_in_u64_and_u128() {
        cases(|fmt, rnd, ftz, rng| {
            let a = operand(fmt, rng.next());
            let b = if rng.next() & 1 == 0 { operand(fmt, rng.next()) } else { near(fmt, a, rng.next()) };
            let (narrow, wide) = (add::add_in::<u64>(fmt, a, b, rnd, ftz), add::add_in::<u128>(fmt, a, b, rnd, ftz));
            assert_eq!(narrow, wide, "add {fmt:?} {rnd:?} ftz {ftz}: {a:#x} + {b:#x}");
        });
    }

    #[test]
    fn mul_is_the_same_in_u64_and_u128() {
        cases(|fmt, rnd, ftz, rng| {
            let (a, b) = (operand(fmt, rng.next()), operand(fmt, rng.next()));
            let (narrow, wide) = (mul::mul_in::<u64>(fmt, a, b, rnd, ftz), mul::mul_in::<u128>(fmt, a, b, rnd, ftz));
            assert_eq!(narrow, wide, "mul {fmt:?} {rnd:?} ftz {ftz}: {a:#x} * {b:#x}");
        });
    }

    #[test]
    fn fma_is_the_same_in_u64_and_u128() {
        cases(|fmt, rnd, ftz, rng| {
            let (a, b) = (operand(fmt, rng.next()), operand(fmt, rng.next()));
            let c = if rng.next() & 1 == 0 {
                operand(fmt, rng.next())
            } else {
                // Near the product (rounded either way), so that the sum cancels or aligns.
                let dir = Rounding::ALL[(rng.next() % 4) as usize];
                near(fmt, mul::mul_in::<u128>(fmt, a, b, dir, false), rng.next())
            };
            let narrow = fma::fma_in::<u64>(fmt, a, b, c, rnd, ftz);
            let wide = fma::fma_in::<u128>(fmt, a, b, c, rnd, ftz);
            assert_eq!(narrow, wide, "fma {fmt:?} {rnd:?} ftz {ftz}: {a:#x} * {b:#x} + {c:#x}");
        });
    }
}
