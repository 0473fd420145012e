//! Kernels for `cvt` from a float format to itself (PTX `cvt`, same-format forms): the move
//! `cvt{.ftz}{.sat}.t.t` and the roundings to an integral value `.rni .rzi .rmi .rpi`, in
//! integer lanes of the format's width, as [`crate::ops::cvt`]'s `same_format` and
//! `round_to_integral` define them.

use crate::kernels::simd::{Simd, Unsigned};

use super::lanes::{flush_subnormal, is_nan, map};
use super::level::{inlined, Isa};
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Mode, Opcode};
use crate::round::Rounding;

/// The kernel for a `cvt` whose source and destination types are the same.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let Opcode::Cvt { from } = instr.opcode() else { return None };
    (from == instr.ty()).then(|| by_width!(instr.format(), same_format::<L>))
}

/// The move or the rounding to an integral value on buffers of words `T`, `N` to a vector.
fn same_format<L: Isa, T, const N: usize>(instr: &Instr, srcs: &[&[T]], dst: &mut [T])
where
    T: Copy + Default,
    Simd<T, N>: Unsigned,
{
    let fmt = instr.format();
    let (ftz, sat) = (instr.modifiers().ftz, instr.modifiers().sat);
    let finish = inlined(
        #[inline(always)]
        |a: Simd<T, N>, r: Simd<T, N>| if sat { saturate(fmt, a, r) } else { r },
    );
    match instr.mode() {
        Mode::Integral(rnd) => map::<L, T, N, 1>(
            srcs,
            dst,
            #[inline(always)]
            |[a]| {
                let a = Simd::new(a);
                finish(a, round_to_integral(fmt, a, rnd, ftz)).to_array()
            },
        ),
        _ => map::<L, T, N, 1>(
            srcs,
            dst,
            #[inline(always)]
            |[a]| {
                let a = Simd::new(a);
                let x = if ftz { flush_subnormal(fmt, a) } else { a };
                let canonical = ftz || fmt.bits() == 16;
                let r = if canonical { is_nan(fmt, a).select(Simd::splat_bits(fmt.canonical_nan()), x) } else { x };
                finish(a, r).to_array()
            },
        ),
    }
}

/// `.sat` on the result `r` of operand `a`: +0 for a NaN operand and for negative results (−0
/// included), at most 1.0 (\[`crate::round::saturate`\]).
#[inline(always)]
pub(super) fn saturate<B: Unsigned>(fmt: Format, a: B, r: B) -> B {
    let zero = is_nan(fmt, a) | (r & B::splat_bits(fmt.sign_bit())).simd_ne(B::splat_bits(0));
    let one = B::splat_bits(fmt.one());
    zero.select(B::splat_bits(0), r.simd_gt(one).select(one, r))
}

/// [`crate::ops::cvt::round_to_integral`] in lanes: the magnitude below 1 gives 0 or 1; from 1
/// up to the first integral binade the fraction bits below the unit are cleared and a unit is
/// added to round up.
#[inline(always)]
fn round_to_integral<B: Unsigned>(fmt: Format, a: B, rnd: Rounding, ftz: bool) -> B {
    let splat = B::splat_bits;
    let zero = splat(0);
    let x = if ftz { flush_subnormal(fmt, a) } else { a };
    let sign = x & splat(fmt.sign_bit());
    let magnitude = x & splat(fmt.mask() >> 1);
    let neg = sign.simd_ne(zero);
    let frac_bits = fmt.frac_bits();
    let integral_exp = (fmt.bias() as u64 + u64::from(frac_bits)) << frac_bits;
    // Already integral (Inf included), or zero: the operand itself.
    let unchanged = magnitude.simd_gt(splat(integral_exp - 1)) | magnitude.simd_eq(zero);
    let below_one = magnitude.simd_lt(splat(fmt.one()));
    // Below 1: ±1 or ±0.
    let half = splat(fmt.one() - (1 << frac_bits));
    let up_small = match rnd {
        Rounding::Rz => zero,
        Rounding::Rm => neg,
        Rounding::Rp => !neg,
        Rounding::Rn => magnitude.simd_gt(half),
    };
    let small = sign | (up_small & splat(fmt.one()));
    // From 1: the unit is 2^shift, shift = frac_bits − unbiased exponent, in 1..=frac_bits here
    // (set to 1 elsewhere, where the result is not taken, to keep every shift in range).
    let biased = magnitude >> frac_bits;
    let shift = (unchanged | below_one).select(splat(1), splat(integral_exp >> frac_bits) - biased);
    let unit = splat(1) << shift;
    let below_unit = unit - splat(1);
    let fraction = magnitude & below_unit;
    let truncated = magnitude & !below_unit;
    let inexact = fraction.simd_ne(zero);
    let up = match rnd {
        Rounding::Rz => zero,
        Rounding::Rm => neg & inexact,
        Rounding::Rp => !neg & inexact,
        Rounding::Rn => {
            let half_unit = unit >> 1;
            let odd = (truncated & unit).simd_ne(zero);
            fraction.simd_gt(half_unit) | (fraction.simd_eq(half_unit) & odd)
        }
    };
    let large = sign | (truncated + (up & unit));
    let r = unchanged.select(x, below_one.select(small, large));
    let nan = if fmt == Format::F64 { a | splat(fmt.quiet_bit()) } else { splat(fmt.canonical_nan()) };
    is_nan(fmt, a).select(nan, r)
}
