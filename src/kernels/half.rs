//! Kernels for `add`, `sub`, `mul` and `fma` on f16 and bf16 (scalar and packed `x2`; a packed
//! word is two elements computed the same way), every catalog spelling: `.rn` only, `.ftz`
//! and `.sat` on f16, `.relu` and `.oob` on fma (docs/semantics.md §4–§5, PTX 9.7.4).
//!
//! f16 is computed in f32 lanes; see [`super::lanes`]. bf16 add, sub and mul are computed in
//! f32 lanes too (a bf16 is the top half of an f32), whose subnormals are bf16's: like every
//! host floating-point operation here they assume Rust's floating-point environment (round
//! to nearest, subnormals kept), which nothing in the crate changes. Where the build has
//! AVX-512 the f32 operations carry their rounding direction in the instruction, and fma of
//! both formats is rounded to odd by three such instructions (the `embedded` module); bf16
//! fma elsewhere is one fused f32 VFMADD where it decides the result (the `fused` module),
//! else TwoSum's pair in f64 lanes rounded to odd, and f16 fma rounds TwoSum's f32 pair to
//! odd. A sum or product needs no error term: rounding it to nearest in W and then to nearest
//! in the narrow format is the correct rounding, because W has at least 2p + 2 bits
//! (Figueroa, "When is double rounding innocuous?", 1995) and, when W has to round a sum at
//! all, the sum is far inside the narrow format's normal range (the argument is written out
//! in tests/exhaustive_half.rs).

use core::ops::{Add, Mul, Sub};

use crate::kernels::simd::{f32x16, f64x8, u16x16, u32x16, u32x8};

use super::lanes::{
    each, join, map, nan_f32, narrow_mask, nearest_f32, relu_canonical, saturate, to_odd, two_sum, widen_f32_bits,
    Lanes,
};
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Mode, Opcode};
use crate::round::Rounding;

/// The kernel for an f16, f16x2, bf16 or bf16x2 `add`, `sub`, `mul` or `fma`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    if !matches!(instr.mode(), Mode::Default | Mode::Round(Rounding::Rn)) {
        return None;
    }
    let ftz = instr.modifiers().ftz;
    let f: HalfKernel = match (instr.format(), instr.opcode(), ftz) {
        (Format::F16, Opcode::Add | Opcode::Sub, false) => add::<L, F16, false>,
        (Format::F16, Opcode::Add | Opcode::Sub, true) => add::<L, F16, true>,
        (Format::F16, Opcode::Mul, false) => mul::<L, F16, false>,
        (Format::F16, Opcode::Mul, true) => mul::<L, F16, true>,
        #[cfg(target_arch = "x86_64")]
        (Format::F16, Opcode::Fma, false) if L::AVX512 => embedded::fma_f16::<L, false>,
        #[cfg(target_arch = "x86_64")]
        (Format::F16, Opcode::Fma, true) if L::AVX512 => embedded::fma_f16::<L, true>,
        (Format::F16, Opcode::Fma, false) => fma::<L, F16, false>,
        (Format::F16, Opcode::Fma, true) => fma::<L, F16, true>,
        (Format::BF16, Opcode::Add | Opcode::Sub, false) => add_bf16::<L>,
        (Format::BF16, Opcode::Mul, false) => mul_bf16::<L>,
        #[cfg(target_arch = "x86_64")]
        (Format::BF16, Opcode::Fma, false) if L::AVX512 => embedded::fma_bf16::<L>,
        (Format::BF16, Opcode::Fma, false) if L::AVX2 => fused::fma_bf16::<L>,
        (Format::BF16, Opcode::Fma, false) => fma::<L, BF16, false>,
        _ => return None,
    };
    Some(Kernel::W16(f))
}

type HalfKernel = fn(&Instr, &[&[u16]], &mut [u16]);

/// Elements per group.
const N: usize = 16;

/// A 16-bit format and the wide values a group of its elements is computed in.
trait Half {
    type W: Copy + Add<Output = Self::W> + Sub<Output = Self::W> + Mul<Output = Self::W>;
    const FMT: Format;
    /// The operands, subnormals already flushed where `.ftz` asks, widened exactly.
    fn widen<L: Isa>(h: u16x16) -> Self::W;
    /// `s + e` (`e` = 0 when `None`) rounded to nearest in the format as
    /// [`crate::round::round_pack`] rounds it, `.ftz` deciding tininess after rounding with an
    /// unbounded exponent; NaN gives the canonical NaN (docs/semantics.md §4–§5).
    fn round<L: Isa, const FTZ: bool>(s: Self::W, e: Option<Self::W>) -> u32x16;
}

struct F16;

/// Sixteen f16 encodings widened exactly to f32 (a NaN comes out as some NaN).
#[inline(always)]
pub(super) fn widen_f16<L: Isa>(h: u16x16) -> f32x16 {
    F16::widen::<L>(h)
}

impl Half for F16 {
    type W = f32x16;
    const FMT: Format = Format::F16;

    #[inline(always)]
    fn widen<L: Isa>(h: u16x16) -> f32x16 {
        #[cfg(target_arch = "x86_64")]
        if L::AVX2 {
            return f16c::widen::<L>(h);
        }
        portable::widen(u32x16::new(each(h.to_array(), u32::from)))
    }

    #[inline(always)]
    fn round<L: Isa, const FTZ: bool>(s: f32x16, e: Option<f32x16>) -> u32x16 {
        // A match, not `Option::map_or`, which the compiler may leave out of line.
        let x = match e {
            Some(e) => to_odd(s, e),
            None => s,
        };
        #[cfg(target_arch = "x86_64")]
        let r = if L::AVX2 { f16c::nearest::<L, FTZ>(x) } else { portable::nearest::<FTZ>(x) };
        #[cfg(not(target_arch = "x86_64"))]
        let r = portable::nearest::<FTZ>(x);
        canonical_nan(r, Format::F16)
    }
}

/// f16 ⇄ f32 in hardware where the level has F16C (AVX2 and up): VCVTPH2PS, and VCVTPS2PH
/// rounding to nearest onto the subnormal grid, on all sixteen lanes at once where it also has
/// AVX-512F and on two halves of eight otherwise. Elsewhere [`portable`], which gives the same
/// bits.
///
/// SAFETY (the intrinsics below): these functions are called only for a level with AVX2
/// (which includes F16C), AVX-512 for the 512-bit forms, whose loop is compiled with it; the
/// intrinsics only compute.
#[cfg(target_arch = "x86_64")]
pub(super) mod f16c {
    use core::arch::x86_64::{
        _mm256_cvtph_ps, _mm256_cvtps_ph, _mm512_cvtph_ps, _mm512_cvtps_ph, _MM_FROUND_TO_NEAREST_INT,
    };

    use super::flush_tiny;
    use crate::kernels::lanes::{each, join};
    use crate::kernels::level::Isa;
    use crate::kernels::simd::{f32x16, f32x8, u16x16, u16x8, u32x16};

    /// Sixteen f16 encodings as f32 lanes (`L` has AVX2).
    #[inline(always)]
    pub(super) fn widen<L: Isa>(h: u16x16) -> f32x16 {
        if L::AVX512 {
            return f32x16::from(unsafe { _mm512_cvtph_ps(h.into()) });
        }
        let [lo, hi]: [u16x8; 2] = bytemuck::cast(h);
        let (lo, hi) = unsafe { (_mm256_cvtph_ps(lo.into()), _mm256_cvtph_ps(hi.into())) };
        f32x16::new(join(f32x8::from(lo).to_array(), f32x8::from(hi).to_array()))
    }

    /// `x` (exact, or rounded to odd in f32) rounded to nearest f16; a NaN comes out as some
    /// NaN (`L` has AVX2).
    #[inline(always)]
    pub(super) fn nearest<L: Isa, const FTZ: bool>(x: f32x16) -> u32x16 {
        round::<L, _MM_FROUND_TO_NEAREST_INT>(if FTZ { flush_tiny(x) } else { x })
    }

    /// `x` rounded to f16 by VCVTPS2PH in the direction of the immediate `IMM` (one of
    /// `_MM_FROUND_TO_{NEAREST_INT,NEG_INF,POS_INF,ZERO}`): IEEE's rounding, onto the subnormal
    /// grid below 2^-14, an overflow to ±Inf or ±65504 as the direction takes it; a NaN comes
    /// out as some NaN (`L` has AVX2).
    #[inline(always)]
    pub(in crate::kernels) fn round<L: Isa, const IMM: i32>(x: f32x16) -> u32x16 {
        if L::AVX512 {
            return u32x16::from(u16x16::from(unsafe { _mm512_cvtps_ph::<IMM>(x.into()) }));
        }
        let [lo, hi]: [f32x8; 2] = bytemuck::cast(x);
        let (lo, hi) = unsafe { (_mm256_cvtps_ph::<IMM>(lo.into()), _mm256_cvtps_ph::<IMM>(hi.into())) };
        u32x16::new(each(join(u16x8::from(lo).to_array(), u16x8::from(hi).to_array()), u32::from))
    }
}

/// `.ftz` before a rounding to nearest f16: a value below the midpoint under 2^-14, whose
/// rounding with an unbounded exponent is tiny, becomes a zero of its sign.
#[inline(always)]
fn flush_tiny(x: f32x16) -> f32x16 {
    let (f32, f16) = (Format::F32, Format::F16);
    let shift = f32.frac_bits() - f16.frac_bits();
    let min_normal = ((f16.emin() + f32.bias()) as u32) << f32.frac_bits();
    let bits = x.to_bits();
    let magnitude = bits & u32x16::splat(f32.mask() as u32 >> 1);
    let tiny = magnitude.simd_lt(u32x16::splat(min_normal - (1 << (shift - 1))));
    f32x16::from_bits(bits & ((tiny ^ u32x16::splat(u32::MAX)) | u32x16::splat(f32.sign_bit() as u32)))
}

/// f16 ⇄ f32 by bit manipulation, for levels without F16C.
mod portable {
    use crate::kernels::simd::{f32x16, u32x16};

    use super::flush_tiny;
    use crate::format::Format;
    use crate::kernels::lanes::Lanes;

    /// The fields move into f32 position and the exponent is rebiased; a subnormal is
    /// 2^-14 + frac·2^-24 minus 2^-14, an exact f32 subtraction.
    #[inline(always)]
    pub(super) fn widen(h: u32x16) -> f32x16 {
        let (f16, f32) = (Format::F16, Format::F32);
        let shift = f32.frac_bits() - f16.frac_bits();
        let moved = (h & u32x16::splat(f16.mask() as u32 >> 1)) << shift;
        let exp_field = u32x16::splat((f16.exp_mask() as u32) << shift);
        let exp = moved & exp_field;
        let rebias = ((f32.bias() - f16.bias()) as u32) << f32.frac_bits();
        let normal = moved + u32x16::splat(rebias);
        // Inf and NaN: the exponent field becomes all ones.
        let special = exp.simd_eq(exp_field);
        let normal = <f32x16 as Lanes>::select(special, moved | u32x16::splat(f32.exp_mask() as u32), normal);
        let min_normal = u32x16::splat(((f16.emin() + f32.bias()) as u32) << f32.frac_bits());
        let sub = f32x16::from_bits(moved + min_normal) - f32x16::from_bits(min_normal);
        let magnitude = <f32x16 as Lanes>::select(exp.simd_eq(u32x16::ZERO), sub.to_bits(), normal);
        let sign = (h & u32x16::splat(f16.sign_bit() as u32)) << (f32.bits() - f16.bits());
        f32x16::from_bits(magnitude | sign)
    }

    /// `x` (exact, or rounded to odd in f32) rounded to nearest f16, as
    /// [`crate::round::round_pack`] does: the significand is rounded with an unbounded
    /// exponent (integer arithmetic on the f32 encoding, whose exponent field is wide
    /// enough); below 2^-14 the value is rounded again from `x` onto the subnormal grid by
    /// adding 2^-1, whose last place is the grid spacing 2^-24; overflow carries into Inf. A
    /// NaN comes out as some NaN.
    #[inline(always)]
    pub(super) fn nearest<const FTZ: bool>(x: f32x16) -> u32x16 {
        let (f16, f32) = (Format::F16, Format::F32);
        let x = if FTZ { flush_tiny(x) } else { x };
        let bits = x.to_bits();
        let magnitude = bits & u32x16::splat(f32.mask() as u32 >> 1);
        let shift = f32.frac_bits() - f16.frac_bits();
        let increment = u32x16::splat((1 << (shift - 1)) - 1) + ((magnitude >> shift) & u32x16::splat(1));
        let rebias = ((f32.bias() - f16.bias()) as u32) << f16.frac_bits();
        let unbounded = ((magnitude + increment) >> shift) - u32x16::splat(rebias);
        let inf = u32x16::splat(f16.inf(false) as u32);
        let nan = magnitude.simd_gt(u32x16::splat(f32.inf(false) as u32));
        let normal = <f32x16 as Lanes>::select(nan, inf | u32x16::splat(1), unbounded.min(inf));
        let tiny = f32x16::lt_signed(unbounded, u32x16::splat(1 << f16.frac_bits()));
        let quantum = f16.emin() - f16.frac_bits() as i32;
        let c = u32x16::splat(((quantum + f32.frac_bits() as i32 + f32.bias()) as u32) << f32.frac_bits());
        let subnormal = (x.abs() + f32x16::from_bits(c)).to_bits() - c;
        let sign = (bits >> (f32.bits() - f16.bits())) & u32x16::splat(f16.sign_bit() as u32);
        <f32x16 as Lanes>::select(tiny, subnormal, normal) | sign
    }
}

struct BF16;

/// Sixteen bf16 elements in f64: two vectors.
#[derive(Clone, Copy)]
struct Pair([f64x8; 2]);

macro_rules! pair_op {
    ($trait:ident, $f:ident) => {
        impl $trait for Pair {
            type Output = Pair;
            #[inline(always)]
            fn $f(self, other: Pair) -> Pair {
                Pair([self.0[0].$f(other.0[0]), self.0[1].$f(other.0[1])])
            }
        }
    };
}
pair_op!(Add, add);
pair_op!(Sub, sub);
pair_op!(Mul, mul);

impl Half for BF16 {
    type W = Pair;
    const FMT: Format = Format::BF16;

    /// A bf16 is the top half of an f32.
    #[inline(always)]
    fn widen<L: Isa>(h: u16x16) -> Pair {
        Pair(widen_f32_bits((u32x16::new(each(h.to_array(), u32::from)) << 16u32).to_array()))
    }

    /// Through f32: rounding to odd at 24 bits (`x as f32`, stepped toward zero where it went
    /// away from it, last bit set when inexact) keeps the correct rounding to 8 bits, which is
    /// then integer rounding of the f32 encoding to its top half. bf16 and f32 share exponent
    /// range and subnormal layout, so subnormals and overflow need nothing more.
    #[inline(always)]
    fn round<L: Isa, const FTZ: bool>(s: Pair, e: Option<Pair>) -> u32x16 {
        debug_assert!(!FTZ, "bf16 has no .ftz");
        let e = e.unwrap_or(Pair([f64x8::ZERO; 2]));
        let (lo, hi) = (odd_f32(to_odd(s.0[0], e.0[0])), odd_f32(to_odd(s.0[1], e.0[1])));
        nearest_bf16(u32x16::new(join(lo, hi)))
    }
}

/// The f32 encodings `x` rounded to nearest bf16 by integer rounding to their top half (ties
/// to even; a carry into the exponent renormalises, into Inf overflows); a NaN gives the
/// canonical NaN. Correct for the exact result when `x` is it rounded to odd at f32's
/// precision, or, for a sum or product of bf16 operands, rounded to nearest (module
/// documentation).
#[inline(always)]
fn nearest_bf16(x: u32x16) -> u32x16 {
    let shift = Format::F32.bits() - Format::BF16.bits();
    let increment = u32x16::splat((1 << (shift - 1)) - 1) + ((x >> shift) & u32x16::splat(1));
    let bf16 = (x + increment) >> shift;
    <f32x16 as Lanes>::select(nan_f32(x), u32x16::splat(Format::BF16.canonical_nan() as u32), bf16)
}

/// `x` rounded to odd at f32's precision: nearest, stepped toward zero where that went away
/// from it, with the last bit set when inexact.
#[inline(always)]
pub(super) fn odd_f32(x: f64x8) -> [u32; 8] {
    let (bits, up, down) = nearest_f32(x);
    let bits = narrow_mask(up).select(bits - u32x8::splat(1), bits);
    narrow_mask(up | down).select(bits | u32x8::splat(1), bits).to_array()
}

/// The canonical NaN for every NaN encoding of `fmt` in the lanes.
#[inline(always)]
fn canonical_nan(r: u32x16, fmt: Format) -> u32x16 {
    let nan = (r & u32x16::splat(fmt.mask() as u32 >> 1)).simd_gt(u32x16::splat(fmt.inf(false) as u32));
    <f32x16 as Lanes>::select(nan, u32x16::splat(fmt.canonical_nan() as u32), r)
}

/// The operands with `.ftz` applied: a subnormal becomes a zero of its sign (docs/semantics.md §5).
#[inline(always)]
fn flush<H: Half, const FTZ: bool>(h: [u16; N]) -> u16x16 {
    let h = u16x16::new(h);
    if !FTZ {
        return h;
    }
    let normal = (h & u16x16::splat(H::FMT.exp_mask() as u16)).simd_ne(u16x16::ZERO);
    h & (normal | u16x16::splat(H::FMT.sign_bit() as u16))
}

/// The result modifiers, in the order of [`Instr`]'s scalar evaluation: `.oob` (+0 when a
/// multiplicand is the OOB NaN ±[`crate::nan::OOB_NAN_MAGNITUDE`]), then `.relu` (negative and
/// −0 → +0; a NaN result is already canonical), then `.sat`.
#[inline(always)]
fn clamp<H: Half, const K: usize>(instr: &Instr, ops: [[u16; N]; K], r: u32x16) -> [u16; N] {
    let fmt = H::FMT;
    let mods = instr.modifiers();
    let mut r = r;
    if mods.oob {
        for op in &ops[..2] {
            let magnitude = u16x16::new(*op) & u16x16::splat(0x7FFF);
            let oob = magnitude.simd_eq(u16x16::splat(crate::nan::OOB_NAN_MAGNITUDE));
            r = <f32x16 as Lanes>::select(u32x16::new(each(oob.to_array(), |m| m as i16 as u32)), u32x16::ZERO, r);
        }
    }
    if mods.relu {
        r = relu_canonical(r, fmt);
    }
    if mods.sat {
        r = saturate::<f32x16>(r, fmt);
    }
    each(r.to_array(), |w| w as u16)
}

/// `add` and `sub` (`a + (−b)`; a NaN result is canonical whatever the sign of `b`).
fn add<L: Isa, H: Half, const FTZ: bool>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
    let negate = if instr.opcode() == Opcode::Sub { H::FMT.sign_bit() as u16 } else { 0 };
    map::<L, u16, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| {
            let s = H::widen::<L>(flush::<H, FTZ>(a)) + H::widen::<L>(flush::<H, FTZ>(each(b, |w| w ^ negate)));
            clamp::<H, 2>(instr, [a, b], H::round::<L, FTZ>(s, None))
        },
    );
}

/// `mul`: the product is exact in the lanes.
fn mul<L: Isa, H: Half, const FTZ: bool>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
    map::<L, u16, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| {
            let p = H::widen::<L>(flush::<H, FTZ>(a)) * H::widen::<L>(flush::<H, FTZ>(b));
            clamp::<H, 2>(instr, [a, b], H::round::<L, FTZ>(p, None))
        },
    );
}

/// `fma`: the exact product, TwoSum with `c`, one rounding (levels without AVX-512; see
/// [`embedded`] for the others, and [`fused`] for bf16 where the level has FMA).
fn fma<L: Isa, H: Half, const FTZ: bool>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
    map::<L, u16, N, 3>(
        srcs,
        dst,
        #[inline(always)]
        |abc| fma_group::<L, H, FTZ>(instr, abc),
    );
}

/// [`fma`] of sixteen operand triples.
#[inline(always)]
fn fma_group<L: Isa, H: Half, const FTZ: bool>(instr: &Instr, [a, b, c]: [[u16; N]; 3]) -> [u16; N] {
    let p = H::widen::<L>(flush::<H, FTZ>(a)) * H::widen::<L>(flush::<H, FTZ>(b));
    let (s, e) = two_sum(p, H::widen::<L>(flush::<H, FTZ>(c)));
    clamp::<H, 3>(instr, [a, b, c], H::round::<L, FTZ>(s, Some(e)))
}

/// Sixteen bf16 operands as f32 lanes: a bf16 is the top half of an f32.
#[inline(always)]
fn bf16_lanes(h: [u16; N]) -> f32x16 {
    f32x16::from_bits(u32x16::new(each(h, |w| u32::from(w) << 16)))
}

/// bf16 `add` and `sub` (`a + (−b)`; a NaN result is canonical whatever the sign of `b`) in
/// f32 lanes, then [`nearest_bf16`]: a sum rounded to nearest in f32 rounds correctly to bf16
/// afterwards (module documentation). Where the level has AVX-512 the f32 sum carries its
/// rounding direction in the instruction (`embedded::sum`), elsewhere it is Rust's sum, which
/// rounds to nearest.
fn add_bf16<L: Isa>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
    let negate = if instr.opcode() == Opcode::Sub { Format::BF16.sign_bit() as u16 } else { 0 };
    map::<L, u16, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| {
            let (x, y) = (bf16_lanes(a), bf16_lanes(each(b, |w| w ^ negate)));
            #[cfg(target_arch = "x86_64")]
            let s = if L::AVX512 { embedded::sum(x, y) } else { x + y };
            #[cfg(not(target_arch = "x86_64"))]
            let s = x + y;
            clamp::<BF16, 2>(instr, [a, b], nearest_bf16(s.to_bits()))
        },
    );
}

/// bf16 `mul` in f32 lanes, as [`add_bf16`].
fn mul_bf16<L: Isa>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
    map::<L, u16, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| {
            let (x, y) = (bf16_lanes(a), bf16_lanes(b));
            #[cfg(target_arch = "x86_64")]
            let p = if L::AVX512 { embedded::product(x, y) } else { x * y };
            #[cfg(not(target_arch = "x86_64"))]
            let p = x * y;
            clamp::<BF16, 2>(instr, [a, b], nearest_bf16(p.to_bits()))
        },
    );
}

/// bf16 `fma` where the level has FMA but not AVX-512: the fused f32 `s = RN32(a·b + c)`
/// decides the bf16 result unless it is the midpoint of two bf16 values (its low 16 bits
/// 0x8000). bf16 values and midpoints are f32 values, and rounding to nearest in f32 is
/// monotone, so the exact value lies in the closed interval between the same two of them as
/// `s`, strictly inside unless `s` is one; when `s` is a bf16 value the exact value is within
/// half an f32 unit of it and rounds to it. So [`nearest_bf16`] of `s` is the correct rounding
/// but at midpoints; bf16 and f32 share their exponent range and encoding layout, so this
/// holds for subnormal and overflowing results too (an infinite `s` is an overflow of the
/// bf16 result as well, a NaN any NaN). A group with a midpoint takes the exact f64 path
/// ([`fma_group`]).
mod fused {
    use super::super::lanes::map;
    use super::{bf16_lanes, clamp, fma_group, nearest_bf16, BF16, N};
    use crate::format::Format;
    use crate::kernels::level::Isa;
    use crate::kernels::simd::u32x16;
    use crate::ptx::Instr;

    /// `L` has FMA.
    pub(super) fn fma_bf16<L: Isa>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
        let (below_unit, midpoint) = (u32x16::splat(0xFFFF), u32x16::splat(0x8000));
        let exp_mask = u32x16::splat(Format::F32.exp_mask() as u32);
        map::<L, u16, N, 3>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| {
                // `mul_add` is one fused VFMADD at a level with FMA.
                let s = bf16_lanes(a).mul_add(bf16_lanes(b), bf16_lanes(c)).to_bits();
                let finite = (s & exp_mask).simd_ne(exp_mask);
                if ((s & below_unit).simd_eq(midpoint) & finite).any() {
                    return fma_group::<L, BF16, false>(instr, [a, b, c]);
                }
                clamp::<BF16, 3>(instr, [a, b, c], nearest_bf16(s))
            },
        );
    }
}

/// Where the level has AVX-512, the rounding direction encoded in each instruction:
/// - bf16 `add`, `sub`, `mul` and `fma` in f32 lanes (a bf16 is the top half of an f32), then
///   [`nearest_bf16`]. A sum or product rounded to nearest in f32 rounds correctly to bf16
///   afterwards (module documentation).
/// - f16 `fma` in f32 lanes, then F16C's rounding to nearest f16 (an f16 product is exact in
///   f32, and the f32 fma cannot overflow: |a·b + c| < 2^33).
///
/// `fma` is rounded to odd at f32's precision by [`fma_to_odd`] (24 ≥ p + 2 bits, so the one
/// rounding to nearest that follows is the correct one).
#[cfg(target_arch = "x86_64")]
mod embedded {
    use crate::kernels::level::inlined;
    use std::arch::x86_64::{__m512, _mm512_add_round_ps, _mm512_fmadd_round_ps, _mm512_mul_round_ps};

    use crate::kernels::simd::{f32x16, u32x16};

    use super::super::lanes::embedded_rounding::{RM, RN, RP};
    use super::super::lanes::map;
    use super::{bf16_lanes, clamp, flush, nearest_bf16, Half, BF16, F16, N};
    use crate::format::Format;
    use crate::kernels::level::Isa;
    use crate::ptx::Instr;

    /// Sixteen bf16 operands as f32 lanes.
    #[inline(always)]
    fn widen_bf16(h: [u16; N]) -> __m512 {
        bf16_lanes(h).into()
    }

    #[inline(always)]
    fn bits(x: __m512) -> u32x16 {
        f32x16::from(x).to_bits()
    }

    // SAFETY (the intrinsics below): these functions are called only for a level with AVX-512,
    // whose loop is compiled with it, and the intrinsics only compute.

    /// `x + y` rounded to nearest.
    #[inline(always)]
    pub(super) fn sum(x: f32x16, y: f32x16) -> f32x16 {
        unsafe { _mm512_add_round_ps::<RN>(x.into(), y.into()) }.into()
    }

    /// `x·y` rounded to nearest.
    #[inline(always)]
    pub(super) fn product(x: f32x16, y: f32x16) -> f32x16 {
        unsafe { _mm512_mul_round_ps::<RN>(x.into(), y.into()) }.into()
    }

    pub(super) fn fma_bf16<L: Isa>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
        map::<L, u16, N, 3>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| {
                let odd = fma_to_odd(widen_bf16(a), widen_bf16(b), widen_bf16(c));
                clamp::<BF16, 3>(instr, [a, b, c], nearest_bf16(odd))
            },
        );
    }

    pub(super) fn fma_f16<L: Isa, const FTZ: bool>(instr: &Instr, srcs: &[&[u16]], dst: &mut [u16]) {
        let widen = inlined(
            #[inline(always)]
            |h: [u16; N]| F16::widen::<L>(flush::<F16, FTZ>(h)).into(),
        );
        map::<L, u16, N, 3>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| {
                let odd = fma_to_odd(widen(a), widen(b), widen(c));
                clamp::<F16, 3>(instr, [a, b, c], F16::round::<L, FTZ>(f32x16::from_bits(odd), None))
            },
        );
    }

    /// `x·y + z` rounded to odd at f32's precision, from three fused VFMADDs: where rounding
    /// down and rounding up give the same number the result is exact, and rounding to nearest
    /// gives it with IEEE's sign of an exact zero; otherwise (NaN included, which stays NaN)
    /// the exact result lies strictly between the two, and the one nearer zero with its last
    /// bit set is its rounding to odd (past the largest f32, the largest f32, which
    /// [`nearest_bf16`] carries into Inf).
    #[inline(always)]
    fn fma_to_odd(x: __m512, y: __m512, z: __m512) -> u32x16 {
        let magnitude = u32x16::splat(Format::F32.mask() as u32 >> 1);
        let (near, down, up) = unsafe {
            (
                bits(_mm512_fmadd_round_ps::<RN>(x, y, z)),
                bits(_mm512_fmadd_round_ps::<RM>(x, y, z)),
                bits(_mm512_fmadd_round_ps::<RP>(x, y, z)),
            )
        };
        // Equal as numbers: an exact zero rounds to −0 downward and to +0 upward.
        let exact = f32x16::from_bits(down).simd_eq(f32x16::from_bits(up)).to_bits();
        let toward_zero = (down & magnitude).simd_lt(up & magnitude).select(down, up);
        exact.select(near, toward_zero | u32x16::splat(1))
    }
}
