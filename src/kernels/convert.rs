//! Kernels for `cvt` between f16, bf16, f32 and f64 (PTX 9.7.9.21, the float-to-float forms;
//! [`crate::ops::cvt`]): every direction, `.ftz`, `.sat`, `.relu` and the packed
//! `.f16x2.f32`/`.bf16x2.f32` forms, sixteen elements at a time.
//!
//! - **Widening is exact.** f16 → f32 is half.rs's widening (F16C where the level has it),
//!   bf16 → f32 a shift, f32 → f64 the host's conversion, and f16/bf16 → f64 goes through f32.
//!   NaNs are then written as [`crate::ops::cvt`] writes them: f16 → f32 and every `.ftz` form
//!   give the canonical f32 NaN, bf16 → f32 the shifted bits, → f64 the sign and payload
//!   (left-aligned), quieted.
//! - **f64 → f32** is exact.rs's rounding of an exact f64 value to f32, which takes every
//!   direction and `.ftz`'s tininess after rounding; a NaN keeps its sign and the top of its
//!   payload, quieted; so does f64 → f16/bf16.
//! - **To f16 and bf16** the source is an f32 encoding (a bf16 or f16 source widened
//!   exactly, an f64 source rounded to odd at f32's precision, which keeps every rounding to
//!   the 11 or 8 bits of f16 and bf16 correct: 24 ≥ p + 2, and f32's subnormal grid is 13 and
//!   16 bits finer than theirs), rounded by F16C's VCVTPS2PH (f16 at avx2/avx512) or by
//!   integer arithmetic in [`round_to_half`].
//!
//! `.ftz` flushes f32 operands (but not those converted to f16) and f32 results only
//! ([`crate::ops::cvt`]); `.relu` and `.sat` are
//! applied to the rounded result as [`crate::round::relu`] and [`crate::round::saturate`] do.

use crate::kernels::simd::{f32x16, f64x8, u16x16, u32x16, u64x8};

use super::arith_f32::narrow as narrow_f64;
#[cfg(target_arch = "x86_64")]
use super::half::f16c;
use super::half::{odd_f32, widen_f16};
use super::lanes::{
    build, each, flush_f32, is_nan, join, map_to, nan_f32, relu_canonical, saturate, Dir, Rm, Rn, Rp, Rz,
};
use super::level::{inlined, Isa};
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Opcode, Type};
use crate::round::Rounding;

/// Elements per group.
const N: usize = 16;

const F32: Format = Format::F32;
const F64: Format = Format::F64;

/// The kernel for a `cvt` between two float formats (the same-format forms, selected before,
/// are `same_format.rs`'s).
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let Opcode::Cvt { from } = instr.opcode() else { return None };
    Some(Kernel::Bytes(match instr.rounding() {
        Rounding::Rn => by_types::<L, Rn>(from, instr.ty())?,
        Rounding::Rz => by_types::<L, Rz>(from, instr.ty())?,
        Rounding::Rm => by_types::<L, Rm>(from, instr.ty())?,
        Rounding::Rp => by_types::<L, Rp>(from, instr.ty())?,
    }))
}

type BytesKernel = fn(&Instr, &[&[u8]], &mut [u8]);

/// The kernel converting `from` to `to` in direction `R`.
fn by_types<L: Isa, R: Dir>(from: Type, to: Type) -> Option<BytesKernel> {
    use Type::*;
    Some(match (from, to) {
        (F16 | BF16, F32) => from_half::<L, u32>,
        (F16 | BF16, F64) => from_half::<L, u64>,
        (F16 | BF16, F16 | BF16) => half_to_half::<L, R>,
        (F32, F64) => f32_to_f64::<L>,
        (F32, F16 | BF16) => f32_to_half::<L, R>,
        (F32, F16x2 | BF16x2) => f32_pair_to_half2::<L, R>,
        (F64, F32) => f64_to_f32::<L, R>,
        (F64, F16 | BF16) => f64_to_half::<L, R>,
        _ => return None,
    })
}

/// The format of a conversion from f16 or bf16.
fn half_source(instr: &Instr) -> Format {
    if instr.opcode() == (Opcode::Cvt { from: Type::BF16 }) {
        Format::BF16
    } else {
        Format::F16
    }
}

/// The words of a byte buffer (aligned and whole: they came from words of this width).
#[inline(always)]
pub(super) fn words<W: bytemuck::Pod>(bytes: &[u8]) -> &[W] {
    bytemuck::cast_slice(bytes)
}

#[inline(always)]
pub(super) fn words_mut<W: bytemuck::Pod>(bytes: &mut [u8]) -> &mut [W] {
    bytemuck::cast_slice_mut(bytes)
}

/// `.relu` then `.sat` of the instruction on results of `fmt` in 32-bit lanes.
#[inline(always)]
fn clamp(instr: &Instr, fmt: Format, r: u32x16) -> u32x16 {
    let mods = instr.modifiers();
    let mut r = r;
    if mods.relu {
        // Only f16 and bf16 results take .relu, and round_to_half writes their NaNs canonical.
        r = relu_canonical(r, fmt);
    }
    if mods.sat {
        r = saturate::<f32x16>(r, fmt);
    }
    r
}

#[inline(always)]
fn splat(bits: u64) -> u32x16 {
    u32x16::splat(bits as u32)
}

/// f16 or bf16 encodings (in 32-bit lanes) widened exactly to f32 encodings, a NaN with its
/// sign and payload left-aligned, not quieted (each destination then writes NaNs as `cvt`
/// does: module documentation).
#[inline(always)]
pub(super) fn half_to_f32<L: Isa>(from: Format, h: u16x16) -> u32x16 {
    let wide = u32x16::new(each(h.to_array(), u32::from));
    if from == Format::F16 {
        let sign = (wide & splat(from.sign_bit())) << (F32.bits() - from.bits());
        let payload = (wide & splat(from.frac_mask())) << (F32.frac_bits() - from.frac_bits());
        let nan = sign | payload | splat(F32.exp_mask());
        is_nan(from, wide).select(nan, widen_f16::<L>(h).to_bits())
    } else {
        wide << (F32.bits() - from.bits())
    }
}

/// f32 encodings widened to f64: the host's exact conversion, a NaN with its sign and payload
/// left-aligned and quieted (the realignment of [`crate::ops::cvt`]).
#[inline(always)]
fn f32_to_f64_lanes(x: [u32; 8]) -> u64x8 {
    let converted = f64x8::new(each(x, |w| f64::from(f32::from_bits(w)))).to_bits();
    let bits = u64x8::new(each(x, u64::from));
    let realigned = ((bits & u64x8::splat(F32.sign_bit())) << (F64.bits() - F32.bits()))
        | u64x8::splat(F64.exp_mask() | F64.quiet_bit())
        | ((bits & u64x8::splat(F32.frac_mask())) << (F64.frac_bits() - F32.frac_bits()));
    is_nan(F32, bits).select(realigned, converted)
}

/// f32 encodings widened to f64, then `.sat`.
#[inline(always)]
fn f32_to_f64_group(instr: &Instr, x: u32x16) -> [u64; N] {
    let x = x.to_array();
    let (lo, hi) = (f32_to_f64_lanes(build(|i| x[i])), f32_to_f64_lanes(build(|i| x[8 + i])));
    let sat = instr.modifiers().sat;
    let finish = inlined(
        #[inline(always)]
        |r: u64x8| if sat { saturate::<f64x8>(r, F64) } else { r }.to_array(),
    );
    join(finish(lo), finish(hi))
}

/// `.ftz` on f32 words when the instruction has it.
#[inline(always)]
fn flush_if(instr: &Instr, x: u32x16) -> u32x16 {
    if instr.modifiers().ftz {
        flush_f32(x)
    } else {
        x
    }
}

/// `cvt.f32.{f16,bf16}` and `cvt.f64.{f16,bf16}` (`W` the result word).
fn from_half<L: Isa, W: FromF32>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let from = half_source(instr);
    map_to::<L, u16, W, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[h]| W::from_f32(instr, half_to_f32::<L>(from, u16x16::new(h))),
    );
}

/// A result word of a widening from f32 encodings.
trait FromF32: bytemuck::Pod + Default {
    fn from_f32(instr: &Instr, x: u32x16) -> [Self; N];
}

impl FromF32 for u32 {
    /// `.ftz` (a bf16 subnormal is an f32 subnormal) and `.sat` on the f32 result; a NaN from
    /// f16, or with `.ftz`, becomes the canonical NaN, one from bf16 keeps its bits.
    #[inline(always)]
    fn from_f32(instr: &Instr, x: u32x16) -> [u32; N] {
        let canonical = instr.modifiers().ftz || instr.opcode() == (Opcode::Cvt { from: Type::F16 });
        let x = if canonical { nan_f32(x).select(splat(F32.canonical_nan()), x) } else { x };
        clamp(instr, F32, flush_if(instr, x)).to_array()
    }
}

impl FromF32 for u64 {
    #[inline(always)]
    fn from_f32(instr: &Instr, x: u32x16) -> [u64; N] {
        f32_to_f64_group(instr, x)
    }
}

/// `cvt.f64.f32`: `.ftz` flushes the operand and makes a NaN the canonical f32 NaN first.
fn f32_to_f64<L: Isa>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let ftz = instr.modifiers().ftz;
    map_to::<L, u32, u64, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[x]| {
            let x = u32x16::new(x);
            let x = if ftz { flush_f32(nan_f32(x).select(splat(F32.canonical_nan()), x)) } else { x };
            f32_to_f64_group(instr, x)
        },
    );
}

/// `cvt.{f16,bf16}.{bf16,f16}`: exactly to f32, then rounded.
fn half_to_half<L: Isa, R: Dir>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let (from, to) = (half_source(instr), instr.format());
    map_to::<L, u16, u16, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[h]| {
            let r = round_to_half::<L, R>(half_to_f32::<L>(from, u16x16::new(h)), to);
            each(clamp(instr, to, r).to_array(), |w| w as u16)
        },
    );
}

/// `cvt.{f16,bf16}.f32`.
fn f32_to_half<L: Isa, R: Dir>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let to = instr.format();
    map_to::<L, u32, u16, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[x]| each(narrow_f32::<L, R>(instr, to, x).to_array(), |w| w as u16),
    );
}

/// f32 operands converted to `to` in 32-bit lanes: `.ftz` flushes the operand (to bf16; an
/// f16 conversion takes subnormal operands as they are), `.relu` and `.sat` clamp the result.
#[inline(always)]
fn narrow_f32<L: Isa, R: Dir>(instr: &Instr, to: Format, x: [u32; N]) -> u32x16 {
    let x = u32x16::new(x);
    let x = if to == Format::F16 { x } else { flush_if(instr, x) };
    clamp(instr, to, round_to_half::<L, R>(x, to))
}

/// `cvt.{f16x2,bf16x2}.f32 d, a, b`: `a` converted into the upper half, `b` into the lower
/// \[DOC PTX cvt\].
fn f32_pair_to_half2<L: Isa, R: Dir>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let to = instr.format();
    map_to::<L, u32, u32, N, 2>(
        &[words(srcs[0]), words(srcs[1])],
        words_mut(dst),
        #[inline(always)]
        |[a, b]| ((narrow_f32::<L, R>(instr, to, a) << to.bits()) | narrow_f32::<L, R>(instr, to, b)).to_array(),
    );
}

/// `cvt.f32.f64`: exact.rs's rounding ([`narrow_f64`]) with `.ftz` on the result; a NaN keeps
/// its sign and the top of its payload, quieted.
fn f64_to_f32<L: Isa, R: Dir>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let ftz = instr.modifiers().ftz;
    map_to::<L, u64, u32, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[x]| {
            let (lo, hi) = (u64x8::new(build(|i| x[i])), u64x8::new(build(|i| x[8 + i])));
            let r = join(f64_to_f32_lanes::<R>(ftz, lo), f64_to_f32_lanes::<R>(ftz, hi));
            clamp(instr, F32, u32x16::new(r)).to_array()
        },
    );
}

/// Eight f64 encodings converted as [`f64_to_f32`] converts them, before `.sat`. (A function,
/// not a closure, so that it is always inlined into the level's loop.)
#[inline(always)]
fn f64_to_f32_lanes<R: Dir>(ftz: bool, bits: u64x8) -> [u32; 8] {
    let v = f64x8::from_bits(bits);
    let r = if ftz { narrow_f64::<R, true>(v) } else { narrow_f64::<R, false>(v) };
    let sign = (bits >> (F64.bits() - F32.bits())) & u64x8::splat(F32.sign_bit());
    let payload = (bits & u64x8::splat(F64.frac_mask())) >> (F64.frac_bits() - F32.frac_bits());
    let nan = sign | payload | u64x8::splat(F32.exp_mask() | F32.quiet_bit());
    each(is_nan(F64, bits).select(nan, u64x8::new(each(r.to_array(), u64::from))).to_array(), |w| w as u32)
}

/// `cvt.{f16,bf16}.f64`: rounded to odd at f32's precision, then rounded (module
/// documentation); a NaN keeps its sign and the top of its payload, quieted.
fn f64_to_half<L: Isa, R: Dir>(instr: &Instr, srcs: &[&[u8]], dst: &mut [u8]) {
    let to = instr.format();
    map_to::<L, u64, u16, N, 1>(
        &[words(srcs[0])],
        words_mut(dst),
        #[inline(always)]
        |[x]| {
            let (lo, hi) = (u64x8::new(build(|i| x[i])), u64x8::new(build(|i| x[8 + i])));
            let (odd_lo, nan_lo, is_lo) = f64_to_half_parts(to, lo);
            let (odd_hi, nan_hi, is_hi) = f64_to_half_parts(to, hi);
            let r = round_to_half::<L, R>(u32x16::new(join(odd_lo, odd_hi)), to);
            let nan_lanes = u32x16::new(each(join(is_lo, is_hi), |m| m as u32));
            let r = nan_lanes.simd_ne(u32x16::ZERO).select(u32x16::new(join(nan_lo, nan_hi)), r);
            each(clamp(instr, to, r).to_array(), |w| w as u16)
        },
    );
}

/// Of eight f64 encodings: the f32 encodings rounded to odd, the NaN results in `to`, and the
/// mask of the NaN operands. (A function, not a closure, so that it is always inlined into
/// the level's loop.)
#[inline(always)]
fn f64_to_half_parts(to: Format, bits: u64x8) -> ([u32; 8], [u32; 8], [u64; 8]) {
    let sign = (bits >> (F64.bits() - to.bits())) & u64x8::splat(to.sign_bit());
    let payload = (bits & u64x8::splat(F64.frac_mask())) >> (F64.frac_bits() - to.frac_bits());
    let nan = sign | payload | u64x8::splat(to.exp_mask() | to.quiet_bit());
    (odd_f32(f64x8::from_bits(bits)), each(nan.to_array(), |w| w as u32), is_nan(F64, bits).to_array())
}

/// f32 encodings rounded to f16 or bf16 (`to`) in direction `R` as
/// [`crate::round::round_pack`] rounds, in 32-bit lanes: a NaN gives the canonical NaN, an
/// infinity the infinity of its sign.
///
/// To f16 at a level with F16C (AVX2 and up) this is VCVTPS2PH with the direction as its
/// immediate (IEEE's rounding, which is round_pack's without `.ftz`). Elsewhere, and to bf16:
///
/// A value whose result is normal is rounded on its encoding with the exponent rebiased:
/// the exponent and fraction fields read as one integer, shifted right by the fraction bits
/// that go, with the increment of the direction, so that a carry renormalises and, past the
/// largest finite value, reaches the infinity (only when the direction rounds the magnitude
/// up, as it should). bf16 has f32's exponent range and subnormal layout, so that is the whole
/// of it (an infinity stays one). For f16 a value below the normal range is rounded from its
/// significand (hidden bit included) onto the subnormal grid, by a shift of up to 31 bits:
/// beyond, the significand (< 2^24) lies below half the grid's spacing either way; and an
/// exponent beyond the range overflows: infinity, or the largest finite value where the
/// direction rounds the magnitude down.
#[inline(always)]
pub(super) fn round_to_half<L: Isa, R: Dir>(x: u32x16, to: Format) -> u32x16 {
    let canonical = splat(to.canonical_nan());
    #[cfg(target_arch = "x86_64")]
    if to == Format::F16 && L::AVX2 {
        use core::arch::x86_64::{
            _MM_FROUND_TO_NEAREST_INT as NEAREST, _MM_FROUND_TO_NEG_INF as DOWN, _MM_FROUND_TO_POS_INF as UP,
            _MM_FROUND_TO_ZERO as ZERO,
        };
        let x32 = f32x16::from_bits(x);
        let r = match R::R {
            Rounding::Rn => f16c::round::<L, NEAREST>(x32),
            Rounding::Rz => f16c::round::<L, ZERO>(x32),
            Rounding::Rm => f16c::round::<L, DOWN>(x32),
            Rounding::Rp => f16c::round::<L, UP>(x32),
        };
        return nan_f32(x).select(canonical, r);
    }
    let frac_bits = F32.frac_bits();
    let magnitude = x & splat(F32.mask() >> 1);
    let negative = (x & splat(F32.sign_bit())).simd_ne(u32x16::ZERO);
    let sign = negative & splat(to.sign_bit());
    if to == Format::BF16 {
        let shift = F32.bits() - Format::BF16.bits();
        let kept = magnitude >> shift;
        let rest = magnitude & splat((1 << shift) - 1);
        let rounded = kept + increment::<R>(kept, rest, splat(1 << (shift - 1)), negative);
        return nan_f32(x).select(canonical, rounded | sign);
    }
    let (shift, rebias) = (frac_bits - to.frac_bits(), (F32.bias() - to.bias()) as u32);
    let exponent = magnitude >> frac_bits;
    let normal = exponent.simd_gt(u32x16::splat(rebias));
    let hidden = exponent.simd_ne(u32x16::ZERO) & splat(1 << frac_bits);
    let significand = (magnitude & splat(F32.frac_mask())) | hidden;
    // Subnormal results: the grid's spacing is 2^(emin − p + 1), the significand's last place
    // 2^(max(e, 1) − bias − 23).
    let below = u32x16::splat(shift + rebias + 1) - exponent.max(u32x16::splat(1));
    let shift = normal.select(u32x16::splat(shift), below.min(u32x16::splat(31)));
    let field = normal.select(magnitude - u32x16::splat(rebias << frac_bits), significand);
    let kept = field >> shift;
    let rest = field - (kept << shift);
    let half = (u32x16::splat(1) << shift) >> 1u32;
    let rounded = kept + increment::<R>(kept, rest, half, negative);
    let away = match R::R {
        Rounding::Rn => splat(u64::MAX),
        Rounding::Rz => u32x16::ZERO,
        Rounding::Rp => !negative,
        Rounding::Rm => negative,
    };
    let inf = splat(to.inf(false));
    let overflow_exponent = (to.exp_mask() >> to.frac_bits()) as u32 - 1 + rebias;
    let overflow = exponent.simd_gt(u32x16::splat(overflow_exponent));
    let r = overflow.select(away.select(inf, splat(to.max_finite(false))), rounded);
    let infinite = magnitude.simd_eq(splat(F32.inf(false)));
    nan_f32(x).select(canonical, infinite.select(inf, r) | sign)
}

/// 1 where the kept part of a magnitude rounds up in direction `R` (`rest` the discarded part,
/// `half` half a unit of the kept part), else 0.
#[inline(always)]
fn increment<R: Dir>(kept: u32x16, rest: u32x16, half: u32x16, negative: u32x16) -> u32x16 {
    let inexact = rest.simd_ne(u32x16::ZERO);
    let up = match R::R {
        Rounding::Rn => rest.simd_gt(half) | (rest.simd_eq(half) & (kept << 31u32).simd_ne(u32x16::ZERO)),
        Rounding::Rz => u32x16::ZERO,
        Rounding::Rp => inexact & !negative,
        Rounding::Rm => inexact & negative,
    };
    up & u32x16::splat(1)
}
