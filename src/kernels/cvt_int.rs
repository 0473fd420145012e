//! Kernels for `cvt` between the integer types and the float formats
//! ([`crate::ops::cvt_int`]). Each lane runs the scalar definition's arithmetic without
//! branches:
//!
//! - **float → integer**: eight elements at a time in 64-bit integer lanes, the operand taken
//!   apart, its significand shifted to the integer's units (left, exactly, or right with the
//!   rounding of [`crate::round::shift_right_round`]), then clamped to the destination's
//!   range; NaN gives 0 or the top-bit-only integer. Where the level rounds floats to integral
//!   values in one instruction (AVX2, AVX-512) every operand takes [`float_lanes`] instead
//!   (f16 and bf16 widened to f32 first).
//! - **integer → float**: the integer's value in f64 lanes — exact, or for 64-bit integers
//!   an exact sum of two f64s — rounded as an f64 (or such a sum) is rounded to the format
//!   ([`through_f64`]); to f16, and to bf16 from at most 32 bits, an f32 that rounds as the
//!   integer does ([`to_half`]). `.sat` clamps to [+0, 1].

use super::lanes::{each, map_to};
use super::level::Isa;
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
    if side == IntSide::Source {
        let (to, rnd) = (instr.format(), instr.rounding());
        let kernel = match to {
            Format::F16 => to_half::select::<L>(int, to, rnd),
            Format::BF16 if int.bits() <= 32 => to_half::select::<L>(int, to, rnd),
            _ => through_f64::select::<L>(int, to, rnd),
        };
        return Some(Kernel::Bytes(kernel));
    }
    if L::AVX2 {
        if let Some(kernel) = float_lanes::select::<L>(float, int) {
            return Some(Kernel::Bytes(kernel));
        }
    }
    to_int_by_widths::<L>(float, int.bits()).map(Kernel::Bytes)
}

/// The kernel from float operands of `src` bits to integers of `dst` bits. (The rounding
/// direction is a value the lanes select on, not a type: a kernel per direction made the
/// build minutes longer for no measurable speed.)
fn to_int_by_widths<L: Isa>(src: u32, dst: u32) -> Option<BytesKernel> {
    macro_rules! words {
        ($($s:ty, $d:ty);*) => {
            match (src, dst) {
                $((<$s>::BITS, <$d>::BITS) => Some(to_int::<L, $s, $d> as BytesKernel),)*
                _ => None,
            }
        };
    }
    words!(u16, u8; u16, u16; u16, u32; u16, u64; u32, u8; u32, u16; u32, u32; u32, u64; u64, u8; u64, u16; u64, u32;
        u64, u64)
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

/// `cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.int.{f16,bf16,f32,f64}` in float lanes, for the levels
/// that round to an integral value in one instruction (ROUNDPS/VRNDSCALE: AVX2 and AVX-512):
/// the operand (f16 and bf16 widened to f32, exactly; an f32 flushed first under `.ftz`)
/// rounded by Rust's `round_ties_even`/`trunc`/`floor`/`ceil`, then clamped to the integer's
/// range ([`int_range`]) and converted (`f64_kernel`, `f32_narrow` and `f32_wide`: by the
/// conversion instructions where the level has them, from the bits to 64-bit integers at
/// AVX2), NaN giving 0 from f16, bf16 and f32 to at most 32 bits and the top-bit-only integer
/// otherwise: the rules of [`crate::ops::cvt_int::float_to_int`].
mod float_lanes {
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::{_mm256_cvttpd_epi32, _mm512_cvttpd_epi64, _mm512_cvttpd_epu64};

    use super::{BytesKernel, Isa, Rounding};
    use crate::batch::Word;
    #[cfg(target_arch = "x86_64")]
    use crate::format::Format;
    #[cfg(target_arch = "x86_64")]
    use crate::kernels::half::widen_f16;
    use crate::kernels::lanes::{each, map_to};
    #[cfg(target_arch = "x86_64")]
    use crate::kernels::simd::{f64x4, u16x16, u32x4};
    use crate::kernels::simd::{f64x8, u64x8};
    use crate::ops::cvt_int::IntType;
    use crate::ptx::{Instr, Type};

    /// A float lane type, f32 or f64, as [`integral`] rounds it.
    trait Lane: Copy + Default {
        type Bits: Word + Default;
        fn from_bits(bits: Self::Bits) -> Self;
        /// Zero (of the same sign) where subnormal: `.ftz` of f32.
        fn flushed(self) -> Self;
        fn round_ties_even(self) -> Self;
        fn trunc(self) -> Self;
        fn floor(self) -> Self;
        fn ceil(self) -> Self;
    }

    macro_rules! lane {
        ($t:ty, $bits:ty) => {
            impl Lane for $t {
                type Bits = $bits;
                #[inline(always)]
                fn from_bits(bits: $bits) -> $t {
                    <$t>::from_bits(bits)
                }
                #[inline(always)]
                fn flushed(self) -> $t {
                    if self.is_subnormal() {
                        <$t>::from_bits(self.to_bits() & !(<$bits>::MAX >> 1))
                    } else {
                        self
                    }
                }
                #[inline(always)]
                fn round_ties_even(self) -> $t {
                    <$t>::round_ties_even(self)
                }
                #[inline(always)]
                fn trunc(self) -> $t {
                    <$t>::trunc(self)
                }
                #[inline(always)]
                fn floor(self) -> $t {
                    <$t>::floor(self)
                }
                #[inline(always)]
                fn ceil(self) -> $t {
                    <$t>::ceil(self)
                }
            }
        };
    }
    lane!(f32, u32);
    lane!(f64, u64);

    /// The kernel from operands of `float` bits (16: f16 and bf16, 32 or 64) to `to`.
    pub(super) fn select<L: Isa>(float: u32, to: IntType) -> Option<BytesKernel> {
        #[cfg(target_arch = "x86_64")]
        if float <= 32 {
            macro_rules! from {
                ($s:ty) => {
                    match (to.bits(), to.is_signed()) {
                        (8, _) => f32_narrow::kernel::<L, $s, u8>,
                        (16, _) => f32_narrow::kernel::<L, $s, u16>,
                        (32, _) => f32_narrow::kernel::<L, $s, u32>,
                        (_, true) => f32_wide::kernel::<L, $s, true>,
                        (_, false) => f32_wide::kernel::<L, $s, false>,
                    }
                };
            }
            return Some(if float == 16 { from!(u16) } else { from!(u32) });
        }
        if float != 64 {
            return None;
        }
        Some(match (to.bits(), to.is_signed()) {
            (8, true) => f64_kernel::<L, u8, true>,
            (8, false) => f64_kernel::<L, u8, false>,
            (16, true) => f64_kernel::<L, u16, true>,
            (16, false) => f64_kernel::<L, u16, false>,
            (32, true) => f64_kernel::<L, u32, true>,
            (32, false) => f64_kernel::<L, u32, false>,
            (_, true) => f64_kernel::<L, u64, true>,
            (_, false) => f64_kernel::<L, u64, false>,
        })
    }

    /// The operands rounded to integral values in the direction of `rnd` (a NaN stays a NaN),
    /// flushed first under `.ftz`.
    #[inline(always)]
    fn integral<F: Lane, const N: usize>(a: [F::Bits; N], ftz: bool, rnd: Rounding) -> [F; N] {
        let x = each(a, F::from_bits);
        let x = if ftz { each(x, F::flushed) } else { x };
        match rnd {
            Rounding::Rn => each(x, F::round_ties_even),
            Rounding::Rz => each(x, F::trunc),
            Rounding::Rm => each(x, F::floor),
            Rounding::Rp => each(x, F::ceil),
        }
    }

    /// f64 → every integer type, eight lanes at a time: rounded as above, clamped to [MIN,
    /// 2^(bits) or 2^(bits−1)) in float lanes, converted — at AVX-512 by VCVTTPD2QQ (or
    /// VCVTTPD2UQQ to u64), at AVX2 to 64 bits by halves ([`integer_from_f64`]) and to
    /// at most 32 by CVTTPD2DQ ([`to_32_bit_words`]) — and the word's low `bits` kept; at or
    /// above the limit MAX, NaN the integer with only its top bit set.
    ///
    /// SAFETY (the intrinsics): the 512-bit ones are called only at AVX-512, whose loops are
    /// compiled with AVX-512DQ; the kernel is selected only at AVX2 and above; the intrinsics
    /// only compute.
    fn f64_kernel<L: Isa, D: Word + Default, const SIGNED: bool>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
        let Type::Int(to) = instr.ty() else { unreachable!("selected for an integer destination") };
        let (rnd, bits) = (instr.rounding(), to.bits());
        let (lo, limit, max) = int_range(bits, SIGNED);
        let below = f64::from_bits(limit.to_bits() - 1);
        map_to::<L, u64, D, 8, 1>(
            &[bytemuck::cast_slice(srcs[0])],
            bytemuck::cast_slice_mut(dst),
            #[inline(always)]
            |[a]| {
                // `.ftz` is legal only with an f32 operand.
                let r = f64x8::new(integral::<f64, 8>(a, false, rnd));
                let c = r.fast_max(f64x8::splat(lo)).fast_min(f64x8::splat(below));
                #[cfg(target_arch = "x86_64")]
                let v = match (L::AVX512, !SIGNED && bits == 64, bits) {
                    (true, true, _) => u64x8::from(unsafe { _mm512_cvttpd_epu64(c.into()) }),
                    (true, false, _) => u64x8::from(unsafe { _mm512_cvttpd_epi64(c.into()) }),
                    (false, _, 64) => integer_from_f64(c),
                    (false, _, _) => to_32_bit_words(c),
                };
                #[cfg(not(target_arch = "x86_64"))]
                let v = integer_from_f64(c);
                let v = r.simd_ge(f64x8::splat(limit)).to_bits().select(u64x8::splat(max), v);
                let v = r.is_nan().to_bits().select(u64x8::splat(1 << (bits - 1)), v);
                each(v.to_array(), D::from_u64)
            },
        );
    }

    /// The clamping range of an integer of `bits` bits: its minimum (0 or −2^(bits−1)) and the
    /// power of two its values stay below (2^(bits) or 2^(bits−1)), both exact in f32 and f64,
    /// and its maximum as a word.
    fn int_range(bits: u32, signed: bool) -> (f64, f64, u64) {
        let magnitude_bits = bits - u32::from(signed);
        let limit = 2f64.powi(magnitude_bits as i32);
        (if signed { -limit } else { 0.0 }, limit, u64::MAX >> (64 - magnitude_bits))
    }

    /// The operand words of `f32_narrow` and `f32_wide`: f32 encodings, or f16 and bf16
    /// encodings widened to f32, which holds every f16 and bf16 value exactly (a NaN stays a
    /// NaN, which is all the conversion asks of it).
    #[cfg(target_arch = "x86_64")]
    trait F32Source: Word + Default {
        /// The operands `a` of format `from` as f32 encodings.
        fn widened<L: Isa>(from: Format, a: [Self; 16]) -> [u32; 16];
    }

    #[cfg(target_arch = "x86_64")]
    impl F32Source for u32 {
        #[inline(always)]
        fn widened<L: Isa>(_: Format, a: [u32; 16]) -> [u32; 16] {
            a
        }
    }

    #[cfg(target_arch = "x86_64")]
    impl F32Source for u16 {
        /// f16 by [`widen_f16`] (F16C at AVX2 and above), bf16 by moving its bits to the top.
        #[inline(always)]
        fn widened<L: Isa>(from: Format, a: [u16; 16]) -> [u32; 16] {
            if from == Format::F16 {
                widen_f16::<L>(u16x16::new(a)).to_bits().to_array()
            } else {
                each(a, |h| u32::from(h) << 16)
            }
        }
    }

    /// Eight integral values in [−2^31, 2^32) (or NaNs, replaced after) as their 32-bit
    /// two's complement words in 64-bit lanes, by AVX's CVTTPD2DQ four at a time: values from
    /// 2^31 on (u32) converted less 2^31, exactly, and the top bit set after.
    ///
    /// SAFETY (the intrinsic): called only at AVX2 and above; it only computes.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn to_32_bit_words(c: f64x8) -> u64x8 {
        let two_31 = f64x8::splat(2f64.powi(31));
        let high = c.simd_ge(two_31).to_bits();
        let c = f64x8::from_bits(high.select((c - two_31).to_bits(), c.to_bits()));
        let halves: [f64x4; 2] = bytemuck::cast(c);
        let words: [u32; 8] = bytemuck::cast(each(halves, |h| u32x4::from(unsafe { _mm256_cvttpd_epi32(h.into()) })));
        let v = u64x8::new(each(words, u64::from));
        v | (high & u64x8::splat(1 << 31))
    }

    /// Integral values in [−2^63, 2^64) (or NaNs, replaced after) as their 64-bit two's
    /// complement words, exactly, in f64 lanes: the high half `h = ⌊c · 2^−32⌋` (in
    /// [−2^31, 2^32)) and the low half `c − h · 2^32` (in [0, 2^32)) are integers each
    /// computed exactly (a power-of-two scaling, a rounding to integral, a difference that is
    /// itself an f64), and each plus 1.5 · 2^52 holds its value modulo 2^32 in the low 32
    /// bits of its encoding (the sum's unit is 1 for magnitudes below 2^51); the word is the
    /// high half's 32 bits above the low half's. For the levels without a conversion to 64-bit
    /// integers (AVX2 has none).
    #[inline(always)]
    fn integer_from_f64(c: f64x8) -> u64x8 {
        let high = f64x8::new(each((c * f64x8::splat(2f64.powi(-32))).to_array(), f64::floor));
        let low = c - high * f64x8::splat(2f64.powi(32));
        let magic = f64x8::splat(1.5 * 2f64.powi(52));
        ((high + magic).to_bits() << 32) | ((low + magic).to_bits() & u64x8::splat(u64::from(u32::MAX)))
    }

    /// f32 (or f16, bf16 widened to it) → integers of at most 32 bits, sixteen lanes at a time
    /// in f32x16: rounded as above, clamped to [MIN, 2^(bits) or 2^(bits−1)) in float lanes,
    /// converted by CVTTPS2DQ (unsigned values from 2^31 shifted down by 2^31 first and the
    /// top bit set after); at or above the limit MAX, NaN 0. (Written with the portable
    /// lanes, LLVM kept the conversion scalar.)
    ///
    /// SAFETY (the intrinsics): selected only at levels with AVX2, whose loops are compiled
    /// with it, and AVX-512 for the 512-bit form; the intrinsics only compute.
    #[cfg(target_arch = "x86_64")]
    mod f32_narrow {
        use core::arch::x86_64::{_mm256_cvttps_epi32, _mm512_cvttps_epi32};

        use super::{F32Source, Isa};
        use crate::batch::Word;
        use crate::format::Format;
        use crate::kernels::lanes::{each, join, map_to};
        use crate::kernels::simd::{f32x16, f32x8, u32x16, u32x8};
        use crate::ptx::{Instr, Type};

        pub(in super::super) fn kernel<L: Isa, S: F32Source, D: Word + Default>(
            instr: &Instr,
            srcs: &[&[u8]],
            dst: &mut [u8],
        ) {
            let Type::Int(to) = instr.ty() else { unreachable!("selected for an integer destination") };
            let (from, rnd) = (instr.format(), instr.rounding());
            let ftz = instr.modifiers().ftz && from == Format::F32;
            let (bits, signed) = (to.bits(), to.is_signed());
            let (lo, limit, max) = super::int_range(bits, signed);
            let (lo, limit, max) = (lo as f32, limit as f32, max as u32);
            let below = f32::from_bits(limit.to_bits() - 1);
            let two_31 = 2f32.powi(31);
            map_to::<L, S, D, 16, 1>(
                &[bytemuck::cast_slice(srcs[0])],
                bytemuck::cast_slice_mut(dst),
                #[inline(always)]
                |[a]| {
                    let a = S::widened::<L>(from, a);
                    let r = f32x16::new(super::integral::<f32, 16>(a, ftz, rnd));
                    let splat = f32x16::splat;
                    let c = r.fast_max(splat(lo)).fast_min(splat(below));
                    let high = c.simd_ge(splat(two_31)).to_bits();
                    let v = convert::<L>(high.select((c - splat(two_31)).to_bits(), c.to_bits()));
                    let v = v | (high & u32x16::splat(1 << 31));
                    let v = r.simd_ge(splat(limit)).to_bits().select(u32x16::splat(max), v);
                    let v = r.is_nan().to_bits().select(u32x16::ZERO, v);
                    each(v.to_array(), |w| D::from_u64(u64::from(w)))
                },
            );
        }

        /// CVTTPS2DQ on sixteen lanes (given as bits) holding values in [−2^31, 2^31).
        #[inline(always)]
        fn convert<L: Isa>(c: u32x16) -> u32x16 {
            let c = f32x16::from_bits(c);
            if L::AVX512 {
                return u32x16::from(unsafe { _mm512_cvttps_epi32(c.into()) });
            }
            let [lo, hi]: [f32x8; 2] = bytemuck::cast(c);
            let (lo, hi) = unsafe { (_mm256_cvttps_epi32(lo.into()), _mm256_cvttps_epi32(hi.into())) };
            u32x16::new(join(u32x8::from(lo).to_array(), u32x8::from(hi).to_array()))
        }
    }

    /// f32 (or f16, bf16 widened to it) → 64-bit integers, sixteen lanes: rounded as above,
    /// clamped to [MIN, 2^64 or 2^63) in float lanes, converted eight at a time — at AVX-512
    /// by VCVTTPS2QQ or VCVTTPS2UQQ (AVX-512DQ), at AVX2, which has no conversion to 64-bit
    /// integers, exactly as f64s ([`integer_from_f64`]); at or above the limit MAX, NaN the
    /// integer with only its top bit set. (Rust's conversion stayed scalar here too.)
    ///
    /// SAFETY (the intrinsics): called only at AVX-512, whose loops are compiled with
    /// AVX-512DQ; the intrinsics only compute.
    #[cfg(target_arch = "x86_64")]
    mod f32_wide {
        use crate::kernels::level::inlined;
        use core::arch::x86_64::{_mm512_cvttps_epi64, _mm512_cvttps_epu64};

        use super::{F32Source, Isa};
        use crate::format::Format;
        use crate::kernels::lanes::{each, join, map_to};
        use crate::kernels::simd::{f32x16, f32x8, f64x8, u32x16, u32x8, u64x8};
        use crate::ptx::Instr;

        pub(in super::super) fn kernel<L: Isa, S: F32Source, const SIGNED: bool>(
            instr: &Instr,
            srcs: &[&[u8]],
            dst: &mut [u8],
        ) {
            let (from, rnd) = (instr.format(), instr.rounding());
            let ftz = instr.modifiers().ftz && from == Format::F32;
            let (lo, limit, max) = super::int_range(64, SIGNED);
            let (lo, limit) = (lo as f32, limit as f32);
            let below = f32::from_bits(limit.to_bits() - 1);
            map_to::<L, S, u64, 16, 1>(
                &[bytemuck::cast_slice(srcs[0])],
                bytemuck::cast_slice_mut(dst),
                #[inline(always)]
                |[a]| {
                    let a = S::widened::<L>(from, a);
                    let r = f32x16::new(super::integral::<f32, 16>(a, ftz, rnd));
                    let c = r.fast_max(f32x16::splat(lo)).fast_min(f32x16::splat(below));
                    let (high, nan) = (r.simd_ge(f32x16::splat(limit)).to_bits(), r.is_nan().to_bits());
                    let split = inlined(
                        #[inline(always)]
                        |v: u32x16| -> [u32x8; 2] { bytemuck::cast(v) },
                    );
                    let ([c0, c1], [h0, h1], [n0, n1]) = (bytemuck::cast(c), split(high), split(nan));
                    join(convert::<L, SIGNED>(c0, h0, n0, max), convert::<L, SIGNED>(c1, h1, n1, max))
                },
            );
        }

        /// Eight clamped values converted, then MAX where the mask `high` is set and the
        /// top-bit-only integer where `nan` is.
        #[inline(always)]
        fn convert<L: Isa, const SIGNED: bool>(c: f32x8, high: u32x8, nan: u32x8, max: u64) -> [u64; 8] {
            let v = if !L::AVX512 {
                super::integer_from_f64(f64x8::from_f32(c))
            } else if SIGNED {
                u64x8::from(unsafe { _mm512_cvttps_epi64(c.into()) })
            } else {
                u64x8::from(unsafe { _mm512_cvttps_epu64(c.into()) })
            };
            // The masks' lanes widened (all ones or zero).
            let widen = inlined(
                #[inline(always)]
                |m: u32x8| u64x8::new(each(m.to_array(), |w| w as i32 as u64)),
            );
            let v = widen(high).select(u64x8::splat(max), v);
            widen(nan).select(u64x8::splat(1 << 63), v).to_array()
        }
    }
}

/// `cvt.{rn,rz,rm,rp}{.sat}.{f32,f64}.int`, and `bf16` from 64-bit integers, sixteen at a time
/// in f64 lanes. An integer of at most
/// 32 bits is exact in an f64 (the word extended to a 32-bit integer and converted by
/// CVTDQ2PD; unsigned 32-bit words offset by 2^31 first and back after). A 64-bit integer
/// `hi · 2^32 + lo` is the unevaluated sum `s + e` of two f64s: its halves are exact, their
/// sum `s` is rounded to nearest and Fast2Sum gives the exact error `e = lo − (s − hi · 2^32)`
/// (|hi · 2^32| ≥ 2^32 > lo unless hi is 0, so the larger term comes first; Muller et al.,
/// *Handbook of Floating-Point Arithmetic*, ch. 4). `.sat` clamps the integer to [0, 1]
/// first ([`crate::round::saturate`]: +0 for every integer up to 0, 1 from 1 on). The value
/// is then rounded to the format in the direction as convert.rs rounds an f64: to f32 by
/// [`narrow_f64`](super::super::arith_f32::narrow), to bf16 rounded to odd at f32's
/// precision and then by [`round_to_half`], the sum `s + e` rounded to odd at f64's precision
/// first ([`to_odd`]: 53 bits keep every later rounding correct), and to f64 by [`directed`].
/// One rounding of the exact value is what [`crate::ops::cvt_int::int_to_float`] defines;
/// where the format holds every integer of the source (8- and 16-bit integers to f32 and f64,
/// 32-bit to f64) it is exact and the direction changes nothing. (f16, and bf16 from at most
/// 32 bits, are [`to_half`]'s.)
mod through_f64 {
    use super::{BytesKernel, Isa};
    use crate::batch::Word;
    use crate::format::Format;
    use crate::kernels::arith_f32::narrow as narrow_f64;
    use crate::kernels::convert::round_to_half;
    use crate::kernels::f64_directed::directed;
    use crate::kernels::half::odd_f32;
    use crate::kernels::lanes::{build, each, join, map_to, to_odd, Dir, Rm, Rn, Rp, Rz};
    use crate::kernels::level::inlined;
    use crate::kernels::simd::{f64x8, u32x16, u64x8};
    use crate::ops::cvt_int::IntType;
    use crate::ptx::Instr;
    use crate::round::Rounding;

    /// Elements a group.
    const N: usize = 16;

    /// The kernel from `from` to `to` in direction `rnd`.
    pub(super) fn select<L: Isa>(from: IntType, to: Format, rnd: Rounding) -> BytesKernel {
        // Exact conversions take one kernel, which encodes the values.
        let exact = from.bits() <= to.precision();
        let rnd = if exact { Rounding::Rn } else { rnd };
        macro_rules! sources {
            ($dest:ty, $dir:ty) => {
                match (from.bits(), from.is_signed(), exact) {
                    (8, true, _) => kernel::<L, u8, $dest, $dir, true, true>,
                    (8, false, _) => kernel::<L, u8, $dest, $dir, false, true>,
                    (16, true, true) => kernel::<L, u16, $dest, $dir, true, true>,
                    (16, false, true) => kernel::<L, u16, $dest, $dir, false, true>,
                    (16, true, false) => kernel::<L, u16, $dest, $dir, true, false>,
                    (16, false, false) => kernel::<L, u16, $dest, $dir, false, false>,
                    (32, true, true) => kernel::<L, u32, $dest, $dir, true, true>,
                    (32, false, true) => kernel::<L, u32, $dest, $dir, false, true>,
                    (32, true, false) => kernel::<L, u32, $dest, $dir, true, false>,
                    (32, false, false) => kernel::<L, u32, $dest, $dir, false, false>,
                    (_, true, _) => wide_kernel::<L, $dest, $dir, true>,
                    (_, false, _) => wide_kernel::<L, $dest, $dir, false>,
                }
            };
        }
        macro_rules! dests {
            ($dir:ty) => {
                match to {
                    Format::F16 => unreachable!("f16 destinations are to_half's"),
                    // From at most 32 bits, to_half's.
                    Format::BF16 if from.is_signed() => wide_kernel::<L, ToBf16, $dir, true>,
                    Format::BF16 => wide_kernel::<L, ToBf16, $dir, false>,
                    Format::F32 => sources!(ToF32, $dir),
                    Format::F64 => sources!(ToF64, $dir),
                }
            };
        }
        match rnd {
            Rounding::Rn => dests!(Rn),
            Rounding::Rz => dests!(Rz),
            Rounding::Rm => dests!(Rm),
            Rounding::Rp => dests!(Rp),
        }
    }

    /// A destination format: its word and the encodings of sixteen values rounded to it in
    /// direction `R`: f64 values (exact, or rounded to odd at f64's precision), or exact sums
    /// `s + e` of f64 lanes.
    trait Dest {
        const FMT: Format;
        type Word: Word + Default;
        fn round<L: Isa, R: Dir>(v: [f64; N]) -> [Self::Word; N];
        #[inline(always)]
        fn round_sum<L: Isa, R: Dir>(s: [f64x8; 2], e: [f64x8; 2]) -> [Self::Word; N] {
            Self::round::<L, R>(join(to_odd(s[0], e[0]).to_array(), to_odd(s[1], e[1]).to_array()))
        }
    }

    /// A destination that integers of at most 32 bits reach: the encoding of an integral f64
    /// value it holds.
    trait Encode: Dest {
        fn encode(v: f64) -> Self::Word;
    }

    struct ToBf16;
    struct ToF32;
    struct ToF64;

    impl Dest for ToBf16 {
        const FMT: Format = Format::BF16;
        type Word = u16;
        /// The values rounded to odd at f32's precision, then to bf16 (module documentation
        /// of convert.rs: 24 bits keep every rounding to bf16's 8 correct).
        #[inline(always)]
        fn round<L: Isa, R: Dir>(v: [f64; N]) -> [u16; N] {
            let half = inlined(
                #[inline(always)]
                |i: usize| f64x8::new(build(|j| v[8 * i + j])),
            );
            let odd = u32x16::new(join(odd_f32(half(0)), odd_f32(half(1))));
            each(round_to_half::<L, R>(odd, Self::FMT).to_array(), |w| w as u16)
        }
    }

    impl Encode for ToF32 {
        #[inline(always)]
        fn encode(v: f64) -> u32 {
            (v as f32).to_bits()
        }
    }

    impl Dest for ToF32 {
        const FMT: Format = Format::F32;
        type Word = u32;
        #[inline(always)]
        fn round<L: Isa, R: Dir>(v: [f64; N]) -> [u32; N] {
            let half = inlined(
                #[inline(always)]
                |i: usize| narrow_f64::<R, false>(f64x8::new(build(|j| v[8 * i + j]))).to_array(),
            );
            join(half(0), half(1))
        }
    }

    impl Encode for ToF64 {
        #[inline(always)]
        fn encode(v: f64) -> u64 {
            v.to_bits()
        }
    }

    impl Dest for ToF64 {
        const FMT: Format = Format::F64;
        type Word = u64;
        /// Every integer of at most 32 bits is exact in f64.
        #[inline(always)]
        fn round<L: Isa, R: Dir>(v: [f64; N]) -> [u64; N] {
            each(v, Self::encode)
        }
        /// An integer's sum is never an exact zero but for the integer 0, which is +0.
        #[inline(always)]
        fn round_sum<L: Isa, R: Dir>(s: [f64x8; 2], e: [f64x8; 2]) -> [u64; N] {
            let lo = directed::<R>(s[0], e[0], u64x8::ZERO).to_bits().to_array();
            join(lo, directed::<R>(s[1], e[1], u64x8::ZERO).to_bits().to_array())
        }
    }

    /// The integer the word `w` of `S::BITS` bits stands for, as an f64 (exact).
    #[inline(always)]
    fn value<S: Word, const SIGNED: bool>(w: S) -> f64 {
        let unused = 32 - S::BITS;
        let word = w.to_u64() as u32;
        if SIGNED {
            f64::from(((word << unused) as i32) >> unused)
        } else if S::BITS < 32 {
            f64::from(word as i32)
        } else {
            f64::from((word ^ 1 << 31) as i32) + 2f64.powi(31)
        }
    }

    /// The kernel from integers of at most 32 bits; `EXACT` where `D` holds every integer of
    /// `S` (`R` then plays no part).
    fn kernel<L: Isa, S: Word + Default, D: Encode, R: Dir, const SIGNED: bool, const EXACT: bool>(
        instr: &Instr,
        srcs: &[&[u8]],
        dst: &mut [u8],
    ) {
        let sat = instr.modifiers().sat;
        map_to::<L, S, D::Word, N, 1>(
            &[bytemuck::cast_slice(srcs[0])],
            bytemuck::cast_slice_mut(dst),
            #[inline(always)]
            |[a]| {
                let v = each(a, value::<S, SIGNED>);
                let v = if sat { each(v, |x| x.clamp(0.0, 1.0)) } else { v };
                if EXACT {
                    each(v, D::encode)
                } else {
                    D::round::<L, R>(v)
                }
            },
        );
    }

    /// Eight 64-bit integers `hi · 2^32 + lo` as the sums of their halves rounded to nearest
    /// and the sums' exact errors (module documentation).
    #[inline(always)]
    fn halves_sum<const SIGNED: bool>(w: [u64; 8]) -> (f64x8, f64x8) {
        let hi = f64x8::new(each(w, |w| value::<u32, SIGNED>((w >> 32) as u32))) * f64x8::splat(2f64.powi(32));
        let lo = f64x8::new(each(w, |w| value::<u32, false>(w as u32)));
        let s = hi + lo;
        (s, lo - (s - hi))
    }

    /// The kernel from 64-bit integers.
    fn wide_kernel<L: Isa, D: Dest, R: Dir, const SIGNED: bool>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
        let sat = instr.modifiers().sat;
        map_to::<L, u64, D::Word, N, 1>(
            &[bytemuck::cast_slice(srcs[0])],
            bytemuck::cast_slice_mut(dst),
            #[inline(always)]
            |[a]| {
                let a = if !sat {
                    a
                } else if SIGNED {
                    each(a, |w| (w as i64).clamp(0, 1) as u64)
                } else {
                    each(a, |w| w.min(1))
                };
                #[cfg(target_arch = "x86_64")]
                if L::AVX512 {
                    return each(avx512::convert::<L, R, SIGNED>(D::FMT, a), <D::Word as Word>::from_u64);
                }
                let (s0, e0) = halves_sum::<SIGNED>(build(|j| a[j]));
                let (s1, e1) = halves_sum::<SIGNED>(build(|j| a[8 + j]));
                D::round_sum::<L, R>([s0, s1], [e0, e1])
            },
        );
    }

    /// 64-bit integers at AVX-512, by AVX-512DQ's conversions with the direction embedded in
    /// the instruction ([`embedded_rounding`]): VCVTQQ2PD/VCVTUQQ2PD to f64, VCVTQQ2PS/VCVTUQQ2PS
    /// to f32; to bf16 the f32 conversion toward zero with its last bit set where
    /// converting it back (VCVTTPS2QQ/UQQ, exact for an integral value below 2^64) does not
    /// give the integer — the integer rounded to odd at f32's precision — then
    /// [`round_to_half`].
    ///
    /// SAFETY (the intrinsics): called only at AVX-512, whose loops are compiled with
    /// AVX-512DQ; the intrinsics only compute.
    #[cfg(target_arch = "x86_64")]
    mod avx512 {
        use crate::kernels::level::inlined;
        use core::arch::x86_64::{
            __m256, __m512d, __m512i, _mm512_cvt_roundepi64_pd, _mm512_cvt_roundepi64_ps, _mm512_cvt_roundepu64_pd,
            _mm512_cvt_roundepu64_ps, _mm512_cvttps_epi64, _mm512_cvttps_epu64,
        };

        use super::round_to_half;
        use crate::format::Format;
        use crate::kernels::lanes::embedded_rounding::{RM, RN, RP, RZ};
        use crate::kernels::lanes::{build, each, join, Dir, Rz};
        use crate::kernels::level::Isa;
        use crate::kernels::simd::{f32x8, f64x8, u32x16, u32x8, u64x8};
        use crate::round::Rounding;

        /// Sixteen integers (two's complement where `SIGNED`) converted to `to` in direction
        /// `R`, as the destination's words.
        #[inline(always)]
        pub(super) fn convert<L: Isa, R: Dir, const SIGNED: bool>(to: Format, w: [u64; 16]) -> [u64; 16] {
            let half = inlined(
                #[inline(always)]
                |i: usize| -> __m512i { u64x8::new(build(|j| w[8 * i + j])).into() },
            );
            let (lo, hi) = (half(0), half(1));
            match to {
                Format::F64 => {
                    let f64_bits = |x: __m512i| f64x8::from(to_f64::<R, SIGNED>(x)).to_bits().to_array();
                    join(f64_bits(lo), f64_bits(hi))
                }
                Format::F32 => {
                    let f32_bits = |x: __m512i| f32x8::from(to_f32::<R, SIGNED>(x)).to_bits().to_array();
                    each(join(f32_bits(lo), f32_bits(hi)), u64::from)
                }
                Format::BF16 => {
                    let odd = u32x16::new(join(odd_f32::<SIGNED>(lo), odd_f32::<SIGNED>(hi)));
                    each(round_to_half::<L, R>(odd, to).to_array(), u64::from)
                }
                Format::F16 => unreachable!("f16 destinations are to_half's"),
            }
        }

        /// `$signed::<IMM>($x)` where SIGNED, else `$unsigned::<IMM>($x)`, IMM the immediate
        /// of direction `R`.
        macro_rules! by_direction {
            ($signed:ident, $unsigned:ident, $x:expr) => {
                unsafe {
                    match (R::R, SIGNED) {
                        (Rounding::Rn, true) => $signed::<RN>($x),
                        (Rounding::Rn, false) => $unsigned::<RN>($x),
                        (Rounding::Rz, true) => $signed::<RZ>($x),
                        (Rounding::Rz, false) => $unsigned::<RZ>($x),
                        (Rounding::Rm, true) => $signed::<RM>($x),
                        (Rounding::Rm, false) => $unsigned::<RM>($x),
                        (Rounding::Rp, true) => $signed::<RP>($x),
                        (Rounding::Rp, false) => $unsigned::<RP>($x),
                    }
                }
            };
        }

        /// VCVT(U)QQ2PD in direction `R`.
        #[inline(always)]
        fn to_f64<R: Dir, const SIGNED: bool>(x: __m512i) -> __m512d {
            by_direction!(_mm512_cvt_roundepi64_pd, _mm512_cvt_roundepu64_pd, x)
        }

        /// VCVT(U)QQ2PS in direction `R`.
        #[inline(always)]
        fn to_f32<R: Dir, const SIGNED: bool>(x: __m512i) -> __m256 {
            by_direction!(_mm512_cvt_roundepi64_ps, _mm512_cvt_roundepu64_ps, x)
        }

        /// The integers rounded to odd at f32's precision, as f32 encodings.
        #[inline(always)]
        fn odd_f32<const SIGNED: bool>(x: __m512i) -> [u32; 8] {
            let truncated = to_f32::<Rz, SIGNED>(x);
            let back = u64x8::from(unsafe {
                if SIGNED {
                    _mm512_cvttps_epi64(truncated)
                } else {
                    _mm512_cvttps_epu64(truncated)
                }
            });
            let inexact = back.simd_ne(u64x8::from(x));
            let bits = f32x8::from(truncated).to_bits();
            let odd = u32x8::new(each(inexact.to_array(), |m| m as u32)) & u32x8::splat(1);
            (bits | odd).to_array()
        }
    }
}

/// `cvt.{rn,rz,rm,rp}{.sat}.{f16,bf16}.int` from every integer type to f16 and from those of at
/// most 32 bits to bf16, sixteen at a time in f32 lanes: the integer becomes an f32 that
/// rounds to the format as the integer does ([`as_f32`]), which [`round_to_half`] rounds in the
/// direction (F16C to f16 at AVX2 and above). One rounding of the exact value is what
/// [`crate::ops::cvt_int::int_to_float`] defines; `.sat` clamps the integer to [0, 1] first
/// ([`crate::round::saturate`]: +0 for every integer up to 0, 1 from 1 on); 8-bit integers
/// are exact in both formats.
mod to_half {
    use super::{BytesKernel, Isa};
    use crate::batch::Word;
    use crate::format::Format;
    use crate::kernels::convert::round_to_half;
    use crate::kernels::lanes::{each, map_to, Dir, Rm, Rn, Rp, Rz};
    use crate::kernels::simd::u32x16;
    use crate::ops::cvt_int::IntType;
    use crate::ptx::Instr;
    use crate::round::Rounding;

    /// The f16 clamp's bound, beyond f16's range (65504) and its rounding boundary (65520).
    const BOUND: i32 = 1 << 17;

    /// The kernel from `from` to `to` (f16, or bf16 from at most 32 bits) in direction `rnd`.
    pub(super) fn select<L: Isa>(from: IntType, to: Format, rnd: Rounding) -> BytesKernel {
        macro_rules! sources {
            ($dir:ty, $bf16:literal) => {
                match (from.bits(), from.is_signed()) {
                    (8, true) => kernel::<L, u8, $dir, true, $bf16>,
                    (8, false) => kernel::<L, u8, $dir, false, $bf16>,
                    (16, true) => kernel::<L, u16, $dir, true, $bf16>,
                    (16, false) => kernel::<L, u16, $dir, false, $bf16>,
                    (32, true) => kernel::<L, u32, $dir, true, $bf16>,
                    (32, false) => kernel::<L, u32, $dir, false, $bf16>,
                    (_, true) => kernel::<L, u64, $dir, true, false>,
                    (_, false) => kernel::<L, u64, $dir, false, false>,
                }
            };
        }
        macro_rules! dests {
            ($dir:ty) => {
                match to {
                    Format::F16 => sources!($dir, false),
                    _ => {
                        assert!(to == Format::BF16 && from.bits() <= 32, "{to:?} from {from:?} is through_f64's");
                        sources!($dir, true)
                    }
                }
            };
        }
        // 8-bit integers are exact: one kernel.
        match if from.bits() == 8 { Rounding::Rn } else { rnd } {
            Rounding::Rn => dests!(Rn),
            Rounding::Rz => dests!(Rz),
            Rounding::Rm => dests!(Rm),
            Rounding::Rp => dests!(Rp),
        }
    }

    /// The integer of the word `w` (two's complement where `SIGNED`) as the encoding of an
    /// f32 that every direction rounds to the format as it rounds the integer: to f16 the
    /// integer clamped to ±[`BOUND`], exact (f16's largest finite value is 65504 and every
    /// magnitude from 65520 on rounds to nearest to ∞, so each integer of magnitude ≥ 2^16
    /// gives in each direction what ±2^17 gives: ±∞ or ±65504); to bf16 the integer itself
    /// below 2^24 in magnitude, exact, and from 2^24 on its magnitude's bits below bit 8 folded
    /// into bit 8 (sticky), which leaves 24 significant bits and changes no rounding to bf16's
    /// 8, whose last place is then bit 16 or above.
    #[inline(always)]
    fn as_f32<S: Word, const SIGNED: bool, const BF16: bool>(w: S) -> u32 {
        let w = w.to_u64();
        if !BF16 {
            let v = match (S::BITS, SIGNED) {
                (8, true) => i32::from(w as u8 as i8),
                (16, true) => i32::from(w as u16 as i16),
                (8 | 16, false) => w as i32,
                (32, true) => (w as u32 as i32).clamp(-BOUND, BOUND),
                (32, false) => (w as u32).min(BOUND as u32) as i32,
                (_, true) => (w as i64).clamp(-i64::from(BOUND), i64::from(BOUND)) as i32,
                (_, false) => w.min(BOUND as u64) as i32,
            };
            return (v as f32).to_bits();
        }
        // At most 32 bits: the f32's sign and magnitude.
        let unused = 32 - S::BITS;
        let (sign, magnitude) = if SIGNED {
            let v = ((w as u32) << unused) as i32 >> unused;
            (v as u32 & 1 << 31, v.unsigned_abs())
        } else {
            (0, w as u32)
        };
        let exact = magnitude as i32 as f32;
        let folded = ((magnitude | ((magnitude & 0xFF) + 0xFF)) >> 8) as i32 as f32 * 256.0;
        (if magnitude < 1 << 24 { exact } else { folded }).to_bits() | sign
    }

    /// The word of the integer `w` stands for clamped to [0, 1] (`.sat`).
    #[inline(always)]
    fn saturated<S: Word, const SIGNED: bool>(w: S) -> S {
        let unused = 64 - S::BITS;
        let v = if SIGNED { (w.to_u64() << unused) as i64 >> unused } else { w.to_u64().min(1) as i64 };
        S::from_u64(v.clamp(0, 1) as u64)
    }

    fn kernel<L: Isa, S: Word + Default, R: Dir, const SIGNED: bool, const BF16: bool>(
        instr: &Instr,
        srcs: &[&[u8]],
        dst: &mut [u8],
    ) {
        let sat = instr.modifiers().sat;
        let to = if BF16 { Format::BF16 } else { Format::F16 };
        map_to::<L, S, u16, 16, 1>(
            &[bytemuck::cast_slice(srcs[0])],
            bytemuck::cast_slice_mut(dst),
            #[inline(always)]
            |[a]| {
                let a = if sat { each(a, saturated::<S, SIGNED>) } else { a };
                let f32_bits = u32x16::new(each(a, as_f32::<S, SIGNED, BF16>));
                // An 8-bit integer's f32 is exact in bf16: its upper half.
                let r = if BF16 && S::BITS == 8 { f32_bits >> 16 } else { round_to_half::<L, R>(f32_bits, to) };
                each(r.to_array(), |w| w as u16)
            },
        );
    }
}
