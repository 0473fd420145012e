//! Kernels for `cvt` between the integer types and the float formats
//! ([`crate::ops::cvt_int`]), eight elements at a time in 64-bit integer lanes. Each lane runs
//! the scalar definition's arithmetic without branches:
//!
//! - **float → integer**: the operand taken apart, its significand shifted to the integer's
//!   units (left, exactly, or right with the rounding of [`crate::round::shift_right_round`]),
//!   then clamped to the destination's range; NaN gives 0 or the top-bit-only integer.
//! - **integer → float**: the magnitude normalised by its leading zeros, its top `p` bits
//!   rounded in the direction (a carry moves it up a binade), then packed; past the format's
//!   largest binade (f16 only) ±Inf or the largest finite value, as the direction says.
//!   `.sat` clamps to [+0, 1].

use super::lanes::{each, map_to};
use super::level::Isa;
use super::same_format::saturate;
use super::simd::u64x8;
use super::Kernel;
use crate::batch::Word;
use crate::format::Format;
use crate::ops::cvt_int::IntType;
use crate::ptx::{Instr, IntSide, Type};
use crate::round::Rounding;

/// Elements per group.
const N: usize = 8;

type BytesKernel = fn(&Instr, &[&[u8]], &mut [u8]);

/// The kernel for a `cvt` between an integer type and a float format.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let (int, side) = instr.integer_side()?;
    let float = instr.format().bits();
    let (src, dst) = match side {
        IntSide::Destination => (float, int.bits()),
        IntSide::Source => (int.bits(), float),
    };
    by_widths::<L>(side, src, dst).map(Kernel::Bytes)
}

/// The kernel for source and result words of `src` and `dst` bits. (The rounding direction is
/// a value the lanes select on, not a type: a kernel per direction made the build minutes
/// longer for no measurable speed.)
fn by_widths<L: Isa>(side: IntSide, src: u32, dst: u32) -> Option<BytesKernel> {
    macro_rules! words {
        ($kernel:ident; $($s:ty, $d:ty);*) => {
            match (src, dst) {
                $((<$s>::BITS, <$d>::BITS) => Some($kernel::<L, $s, $d> as BytesKernel),)*
                _ => None,
            }
        };
    }
    match side {
        IntSide::Destination => words!(to_int; u16, u8; u16, u16; u16, u32; u16, u64; u32, u8; u32, u16; u32, u32;
            u32, u64; u64, u8; u64, u16; u64, u32; u64, u64),
        IntSide::Source => words!(from_int; u8, u16; u16, u16; u32, u16; u64, u16; u8, u32; u16, u32; u32, u32;
            u64, u32; u8, u64; u16, u64; u32, u64; u64, u64),
    }
}

/// `cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.int.float` (`.sat` changes nothing).
fn to_int<L: Isa, S: Word + Default, D: Word + Default>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let Type::Int(to) = instr.ty() else { unreachable!("selected for an integer destination") };
    let (from, ftz) = (instr.format(), instr.modifiers().ftz && instr.format() == Format::F32);
    let rnd = instr.rounding();
    map_to::<L, S, D, N, 1>(
        &[bytemuck::cast_slice(srcs[0])],
        bytemuck::cast_slice_mut(dst),
        #[inline(always)]
        |[a]| {
            let a = u64x8::new(each(a, Word::to_u64));
            each(float_to_int(from, to, a, rnd, ftz).to_array(), D::from_u64)
        },
    );
}

/// `cvt.{rn,rz,rm,rp}{.ftz}{.sat}.float.int` (`.ftz` changes nothing).
fn from_int<L: Isa, S: Word + Default, D: Word + Default>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let Type::Int(from) = instr.source_type(0) else { unreachable!("selected for an integer source") };
    let (to, sat, rnd) = (instr.format(), instr.modifiers().sat, instr.rounding());
    map_to::<L, S, D, N, 1>(
        &[bytemuck::cast_slice(srcs[0])],
        bytemuck::cast_slice_mut(dst),
        #[inline(always)]
        |[a]| {
            let r = int_to_float(from, to, u64x8::new(each(a, Word::to_u64)), rnd);
            // `.sat`: the result is never NaN, so it stands for its operand too.
            each(if sat { saturate(to, r, r) } else { r }.to_array(), D::from_u64)
        },
    );
}

/// A mask lane: all ones where `x` is nonzero.
#[inline(always)]
fn mask(x: u64x8) -> u64x8 {
    x.simd_ne(u64x8::ZERO)
}

/// Whether the direction rounds a magnitude up, given the mask of negative lanes, whether the
/// discarded part is nonzero and (to nearest) whether it is above or at half a unit with an
/// odd kept part.
#[inline(always)]
fn rounds_up(rnd: Rounding, neg: u64x8, inexact: u64x8, nearest: u64x8) -> u64x8 {
    match rnd {
        Rounding::Rn => nearest,
        Rounding::Rz => u64x8::ZERO,
        Rounding::Rm => neg & inexact,
        Rounding::Rp => !neg & inexact,
    }
}

/// [`crate::ops::cvt_int::float_to_int`] on eight operands.
#[inline(always)]
fn float_to_int(from: Format, to: IntType, a: u64x8, rnd: Rounding, ftz: bool) -> u64x8 {
    let splat = u64x8::splat;
    let zero = u64x8::ZERO;
    let fb = from.frac_bits();
    let neg = mask(a & splat(from.sign_bit()));
    let magnitude = a & splat(from.mask() >> 1);
    let biased = magnitude >> fb;
    let fraction = magnitude & splat(from.frac_mask());
    let subnormal = biased.simd_eq(zero);
    let sig = subnormal.select(if ftz { zero } else { fraction }, fraction | splat(1 << fb));
    // The value is sig · 2^e, e = max(biased, 1) − (bias + fb): a left shift by e or a right
    // shift by −e (at most 64).
    let unit = splat((from.bias() as u32 + fb) as u64);
    let scale = biased.max(splat(1));
    let left_count = scale.simd_gt(unit).select(scale - unit, zero);
    let right_count = unit.simd_gt(scale).select(unit - scale, zero).min(splat(64));
    // From 2^64 up every value saturates; below, the left shift is exact.
    let huge = left_count.simd_ge(splat(u64::from(64 - fb)));
    let left = sig.unbounded_shl(left_count);
    let quotient = sig.unbounded_shr(right_count);
    let remainder = sig - quotient.unbounded_shl(right_count);
    // Half a unit (0 when nothing is shifted out: the count wraps below zero).
    let half = splat(1).unbounded_shl(right_count - splat(1));
    let odd = mask(quotient & splat(1));
    let nearest = mask(right_count) & (remainder.simd_gt(half) | (remainder.simd_eq(half) & odd));
    let up = rounds_up(rnd, neg, mask(remainder), nearest);
    let m = mask(right_count).select(quotient + (up & splat(1)), left);
    // Clamped to the destination's range.
    let top = 1u64 << (to.bits() - 1);
    let (min, max) = if to.is_signed() { (top, top - 1) } else { (0, to.mask()) };
    let negative_in_range = if to.is_signed() { m.simd_le(splat(top)) } else { m.simd_eq(zero) };
    let in_range = neg.select(negative_in_range, m.simd_le(splat(max)));
    let value = neg.select((zero - m) & splat(to.mask()), m);
    let saturated = neg.select(splat(min), splat(max));
    let nan_result = if from == Format::F64 || to.bits() == 64 { top } else { 0 };
    let inf_or_nan = magnitude.simd_ge(splat(from.exp_mask()));
    let nan = magnitude.simd_gt(splat(from.exp_mask()));
    nan.select(splat(nan_result), (inf_or_nan | huge | !in_range).select(saturated, value))
}

/// [`crate::ops::cvt_int::int_to_float`] on eight operands.
#[inline(always)]
fn int_to_float(from: IntType, to: Format, a: u64x8, rnd: Rounding) -> u64x8 {
    let splat = u64x8::splat;
    let zero = u64x8::ZERO;
    let n = from.bits();
    let word = a & splat(from.mask());
    let neg = if from.is_signed() { mask(word >> (n - 1)) } else { zero };
    // The magnitude: the word extended to 64 bits and negated if negative.
    let extended = neg.select(word | splat(!from.mask()), word);
    let m = neg.select(zero - extended, extended);
    let zeros = m.leading_zeros();
    let normalised = m.unbounded_shl(zeros);
    let exp = splat(63) - zeros;
    let p = to.precision();
    let kept = normalised >> (64 - p);
    let rest = normalised << p;
    let half = splat(1 << 63);
    let odd = mask(kept & splat(1));
    let nearest = rest.simd_gt(half) | (rest.simd_eq(half) & odd);
    let rounded = kept + (rounds_up(rnd, neg, mask(rest), nearest) & splat(1));
    // A carry out of the top bit gives 2^p: 2^(p−1) one binade up.
    let carry = rounded >> p;
    let (sig, exp) = (rounded.unbounded_shr(carry), exp + carry);
    let packed = ((exp + splat(to.bias() as u64)) << to.frac_bits()) | (sig & splat(to.frac_mask()));
    let (inf, max) = (splat(to.inf(false)), splat(to.max_finite(false)));
    let overflow = match rnd {
        Rounding::Rn => inf,
        Rounding::Rz => max,
        Rounding::Rm => neg.select(inf, max),
        Rounding::Rp => neg.select(max, inf),
    };
    let magnitude = exp.simd_gt(splat(to.emax() as u64)).select(overflow, packed);
    m.simd_eq(zero).select(zero, magnitude | (neg & splat(to.sign_bit())))
}
