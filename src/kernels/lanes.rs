//! What the exact-arithmetic kernels share: the wide lanes they compute in, the error-free
//! sum, rounding to odd, f64 → f32 rounding to nearest, `.sat`, and the loop over a chunk.
//!
//! Method (docs/architecture.md, "Performance model"). The operands are widened exactly into lanes of a
//! wider format W: f64 for f32 and for bf16 fma, f32 for f16 (and for bf16 where
//! src/kernels/half.rs says so). A product of two operands is exact in W
//! (2p ≤ 48 bits in f64, 22 in f32, and inside W's normal range). A sum is W's rounded sum `s`
//! plus its exact error `e` (TwoSum). Rounding `s + e` to odd at W's precision keeps the
//! exact value strictly between the same two neighbours of every coarser grid, so one more
//! rounding to the narrow format (p + 2 ≤ W's precision), in any direction, with an unbounded
//! exponent or onto the subnormal grid, is the correct rounding of the exact value; each
//! format's file does that rounding as [`crate::round::round_pack`] does. No lane value is
//! ever subnormal in these W, and nothing touches the host floating-point environment: the hardware
//! only ever rounds to nearest (Rust's arithmetic and `as` conversions), and the directed
//! modes are derived from that exactly.

use core::ops::{Add, BitAnd, BitOr, BitXor, Mul, Sub};

use crate::kernels::simd::{f32x16, f64x8, u32x16, u32x8, u64x8, Unsigned};

use super::level::{inlined, Isa};
use crate::format::Format;

pub(super) use crate::round::{Dir, Rm, Rn, Rp, Rz};

/// The AVX-512 embedded-rounding immediates (direction, exceptions suppressed) of the
/// `_mm512_*_round_*` intrinsics, one per PTX direction. The direction is part of the
/// instruction: it overrides MXCSR.RC for that instruction alone, and nothing reads or writes
/// the host floating-point environment.
#[cfg(target_arch = "x86_64")]
pub(super) mod embedded_rounding {
    use std::arch::x86_64::{
        _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEAREST_INT, _MM_FROUND_TO_NEG_INF, _MM_FROUND_TO_POS_INF, _MM_FROUND_TO_ZERO,
    };

    pub const RN: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    pub const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    pub const RM: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    pub const RP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
}

/// `$f::<G…, IMM>`, IMM the [`embedded_rounding`] immediate of the [`Rounding`] `$rounding`
/// and G… the generic arguments before it.
#[cfg(target_arch = "x86_64")]
macro_rules! by_embedded_rounding {
    ($rounding:expr, $f:ident $(, $g:ty)*) => {{
        use $crate::kernels::lanes::embedded_rounding::{RM, RN, RP, RZ};
        match $rounding {
            $crate::round::Rounding::Rn => $f::<$($g,)* RN>,
            $crate::round::Rounding::Rz => $f::<$($g,)* RZ>,
            $crate::round::Rounding::Rm => $f::<$($g,)* RM>,
            $crate::round::Rounding::Rp => $f::<$($g,)* RP>,
        }
    }};
}
#[cfg(target_arch = "x86_64")]
pub(super) use by_embedded_rounding;

/// A vector of W-format floats, with its bits as unsigned integer lanes (`Bits`). Masks are
/// lanes of all ones (true) or zeros (false).
pub(super) trait Lanes: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    type Bits: Copy
        + Sub<Output = Self::Bits>
        + BitAnd<Output = Self::Bits>
        + BitOr<Output = Self::Bits>
        + BitXor<Output = Self::Bits>;
    /// W.
    const FMT: Format;
    fn to_bits(self) -> Self::Bits;
    fn from_bits(bits: Self::Bits) -> Self;
    fn splat(bits: u64) -> Self::Bits;
    /// Lanes that are neither ±0 nor NaN.
    fn nonzero(self) -> Self::Bits;
    fn eq(a: Self::Bits, b: Self::Bits) -> Self::Bits;
    /// Unsigned `a > b`.
    fn gt(a: Self::Bits, b: Self::Bits) -> Self::Bits;
    /// Two's-complement `a < b`.
    fn lt_signed(a: Self::Bits, b: Self::Bits) -> Self::Bits;
    fn min(a: Self::Bits, b: Self::Bits) -> Self::Bits;
    fn select(mask: Self::Bits, yes: Self::Bits, no: Self::Bits) -> Self::Bits;
}

macro_rules! lanes {
    ($float:ty, $bits:ty, $uint:ty, $fmt:expr) => {
        impl Lanes for $float {
            type Bits = $bits;
            const FMT: Format = $fmt;
            #[inline(always)]
            fn to_bits(self) -> $bits {
                <$float>::to_bits(self)
            }
            #[inline(always)]
            fn from_bits(bits: $bits) -> Self {
                <$float>::from_bits(bits)
            }
            #[inline(always)]
            fn splat(bits: u64) -> $bits {
                <$bits>::splat(bits as $uint)
            }
            #[inline(always)]
            fn nonzero(self) -> $bits {
                self.abs().simd_gt(<$float>::ZERO).to_bits()
            }
            #[inline(always)]
            fn eq(a: $bits, b: $bits) -> $bits {
                a.simd_eq(b)
            }
            #[inline(always)]
            fn gt(a: $bits, b: $bits) -> $bits {
                a.simd_gt(b)
            }
            #[inline(always)]
            fn lt_signed(a: $bits, b: $bits) -> $bits {
                a.cast_signed().simd_lt(b.cast_signed()).cast_unsigned()
            }
            #[inline(always)]
            fn min(a: $bits, b: $bits) -> $bits {
                a.min(b)
            }
            /// Written as bit operations, which compile to one masked blend (`wide`'s
            /// byte-wise blend does not).
            #[inline(always)]
            fn select(mask: $bits, yes: $bits, no: $bits) -> $bits {
                (mask & yes) | ((mask ^ <$bits>::splat(<$uint>::MAX)) & no)
            }
        }
    };
}
lanes!(f64x8, u64x8, u64, Format::F64);
lanes!(f32x16, u32x16, u32, Format::F32);

/// TwoSum (Knuth): `s = a + b` rounded in W and the exact error `e = a + b − s`. Six
/// operations, exact for any order of magnitudes as long as nothing overflows, which cannot
/// happen in W for these operands.
#[inline(always)]
pub(super) fn two_sum<L: Copy + Add<Output = L> + Sub<Output = L>>(a: L, b: L) -> (L, L) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// The sign of an exactly zero sum under `.rm`: −0 as soon as one addend is negative
/// (IEEE 754-2019 clause 6.3, [`Rounding::cancellation_zero_is_negative`]); W's own sum gives the rule
/// of the other directions, −0 only for (−0) + (−0).
#[inline(always)]
pub(super) fn zero_sign<L: Lanes, R: Dir>(s: L, a: L, b: L) -> L {
    if !R::R.cancellation_zero_is_negative() {
        return s;
    }
    let sign = (a.to_bits() | b.to_bits()) & L::splat(L::FMT.sign_bit());
    let s = s.to_bits();
    L::from_bits(L::select(L::eq(s, L::splat(0)), s | sign, s))
}

/// `s + e` rounded toward zero at W's precision: `s`, or its neighbour toward zero when `e`
/// has the other sign. An infinite or NaN `s` (whose `e` is NaN) is left alone.
#[inline(always)]
pub(super) fn truncate<L: Lanes>(s: L, e: L) -> L {
    let bits = s.to_bits();
    let toward_zero = L::lt_signed(bits ^ e.to_bits(), L::splat(0)) & e.nonzero();
    L::from_bits(L::select(toward_zero, bits - L::splat(1), bits))
}

/// `s + e` rounded to odd at W's precision: `s` when `e` is zero, else whichever of the two
/// W-neighbours of the exact value has an odd last bit (the truncation with its last bit set).
/// An infinite or NaN `s` is left alone.
#[inline(always)]
pub(super) fn to_odd<L: Lanes>(s: L, e: L) -> L {
    let bits = truncate(s, e).to_bits();
    L::from_bits(L::select(e.nonzero(), bits | L::splat(1), bits))
}

/// `[f(0), f(1), …, f(N − 1)]`, as a plain loop. Kernels build lane arrays with this and
/// [`each`] rather than `core::array::from_fn` and `<[T; N]>::map`, whose closures are reached
/// through a call that stays out of line when the crate is compiled in several codegen units
/// (a dependent crate's default release build, the test profile): that made the f16 kernels
/// five to eight times slower there. A loop over indices inlines in every build.
#[inline(always)]
pub(super) fn build<T: Copy + Default, const N: usize>(f: impl Fn(usize) -> T) -> [T; N] {
    let mut out = [T::default(); N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = f(i);
    }
    out
}

/// `[f(a[0]), f(a[1]), …]`, as a plain loop (see [`build`]).
#[inline(always)]
pub(super) fn each<T: Copy, U: Copy + Default, const N: usize>(a: [T; N], f: impl Fn(T) -> U) -> [U; N] {
    build(|i| f(a[i]))
}

/// The two 8-lane halves of 16 lanes as one array.
#[inline(always)]
pub(super) fn join<T: Copy + Default>(lo: [T; 8], hi: [T; 8]) -> [T; 16] {
    build(|i| if i < 8 { lo[i] } else { hi[i - 8] })
}

/// Sixteen f32 encodings as two groups of eight f64 lanes (exact).
#[inline(always)]
pub(super) fn widen_f32_bits(w: [u32; 16]) -> [f64x8; 2] {
    let half = inlined(
        #[inline(always)]
        |at: usize| f64x8::new(build(|i| f32::from_bits(w[at + i]) as f64)),
    );
    [half(0), half(8)]
}

/// `x as f32` for each lane (Rust defines it as rounding to nearest-even onto IEEE's
/// subnormal grid, overflowing to ±Inf: [`crate::round::round_pack`] in `.rn`), with masks of
/// the lanes where that moved the magnitude up and where it moved it down. The rounded value
/// has x's sign, so the encodings of it widened back and of x compare as the magnitudes.
#[inline(always)]
pub(super) fn nearest_f32(x: f64x8) -> (u32x8, u64x8, u64x8) {
    let nearest = each(x.to_array(), |v| v as f32);
    let back = f64x8::new(each(nearest, f64::from)).to_bits();
    let x = x.to_bits();
    (u32x8::new(each(nearest, f32::to_bits)), back.simd_gt(x), back.simd_lt(x))
}

/// `.ftz` on f32 words: a subnormal becomes a zero of its sign (docs/semantics.md §5).
#[inline(always)]
pub(super) fn flush_f32(w: u32x16) -> u32x16 {
    let normal = (w & u32x16::splat(Format::F32.exp_mask() as u32)).simd_ne(u32x16::ZERO);
    w & (normal | u32x16::splat(Format::F32.sign_bit() as u32))
}

/// The lanes of f32 words that hold a NaN.
#[inline(always)]
pub(super) fn nan_f32(w: u32x16) -> u32x16 {
    (w & u32x16::splat(Format::F32.mask() as u32 >> 1)).simd_gt(u32x16::splat(Format::F32.inf(false) as u32))
}

/// A 64-bit lane mask as a 32-bit one.
#[inline(always)]
pub(super) fn narrow_mask(mask: u64x8) -> u32x8 {
    u32x8::new(each(mask.to_array(), |m| m as u32))
}

/// The lanes of encodings of `fmt`, in unsigned lanes of any width, that hold a NaN.
#[inline(always)]
pub(super) fn is_nan<B: Unsigned>(fmt: Format, x: B) -> B {
    (x & B::splat_bits(fmt.mask() >> 1)).simd_gt(B::splat_bits(fmt.inf(false)))
}

/// `.ftz` on encodings of `fmt`: a subnormal becomes a zero of its sign (docs/semantics.md §5).
#[inline(always)]
pub(super) fn flush_subnormal<B: Unsigned>(fmt: Format, x: B) -> B {
    let subnormal = (x & B::splat_bits(fmt.exp_mask())).simd_eq(B::splat_bits(0));
    subnormal.select(x & B::splat_bits(fmt.sign_bit()), x)
}

/// `.relu` on f16 or bf16 results in 32-bit lanes whose NaNs are already canonical: every
/// encoding above the canonical NaN (all negative values, −0 included) becomes +0, the
/// canonical NaN stays ([`crate::round::relu`]).
#[inline(always)]
pub(super) fn relu_canonical(r: u32x16, fmt: Format) -> u32x16 {
    r.simd_gt(u32x16::splat(fmt.canonical_nan() as u32)).select(u32x16::ZERO, r)
}

/// `.sat` on encodings of `to` (the lane form of [`crate::round::saturate`]): NaN and every
/// negative value, −0 included, give +0; values above 1.0 give 1.0.
#[inline(always)]
pub(super) fn saturate<L: Lanes>(r: L::Bits, to: Format) -> L::Bits {
    let out_of_range = L::gt(r, L::splat(to.inf(false)));
    L::select(out_of_range, L::splat(0), L::min(r, L::splat(to.one())))
}

/// Apply `f` to the chunk in groups of `N` elements of `K` operands, compiled for the level
/// `L`; the last, partial group is padded with zeros.
#[inline(always)]
pub(super) fn map<L: Isa, T: Copy + Default, const N: usize, const K: usize>(
    srcs: &[&[T]],
    dst: &mut [T],
    f: impl Fn([[T; N]; K]) -> [T; N],
) {
    map_to::<L, T, T, N, K>(srcs, dst, f)
}

/// [`map`] from operand elements of type `S` to result elements of type `D` (conversions).
#[inline(always)]
pub(super) fn map_to<L: Isa, S: Copy + Default, D: Copy + Default, const N: usize, const K: usize>(
    srcs: &[&[S]],
    dst: &mut [D],
    f: impl Fn([[S; N]; K]) -> [D; N],
) {
    debug_assert_eq!(srcs.len(), K);
    let len = dst.len();
    let full = len - len % N;
    L::groups(heads(srcs, full), &mut dst[..full], &f);
    if full < len {
        let padded = padded_tail::<S, N, K>(srcs, full);
        let mut out = [D::default(); N];
        L::groups(heads(&padded, N), &mut out, &f);
        dst[full..].copy_from_slice(&out[..len - full]);
    }
}

// The helpers of `map_to` and `groups` below are generic over the element type and the
// group's shape only, not over the kernel's function: the loop is instantiated once per
// kernel (about 1100 of them, each at three levels), its helpers a few times. Written with
// `core::array::from_fn` and `<[T; N]>::map`, the loop carried their generic machinery into
// every instantiation, and the loop its prefetches: more than half of the library's
// unoptimised LLVM IR (`cargo llvm-lines`: 2.09 against 0.92 million lines) and about a fifth
// of its compile time (docs/performance.md, "The test command").

/// The first `len` elements of each of the `K` operands (slices or padded groups).
#[inline(always)]
fn heads<S, T: AsRef<[S]>, const K: usize>(operands: &[T], len: usize) -> [&[S]; K] {
    let mut heads: [&[S]; K] = [&[]; K];
    for (head, operand) in heads.iter_mut().zip(operands) {
        *head = &operand.as_ref()[..len];
    }
    heads
}

/// The elements of each of the `K` operands from `from` on (fewer than `N`), padded with zeros.
#[inline(always)]
fn padded_tail<S: Copy + Default, const N: usize, const K: usize>(srcs: &[&[S]], from: usize) -> [[S; N]; K] {
    let mut padded = [[S::default(); N]; K];
    for (group, src) in padded.iter_mut().zip(srcs) {
        group[..src.len() - from].copy_from_slice(&src[from..]);
    }
    padded
}

/// Whether `f` gives the word `c` for every one of the `n` consecutive words `first, first + 1,
/// …, first + n − 1` (`n` ≥ 1, no wrap past `u32::MAX`), `N` at a time, compiled for the level
/// `L`. The words are generated in registers, not read from a buffer, and no result is
/// stored: the sweep's check of a run on which its reference is constant (`sweep::Sweep`).
/// A last, partial group repeats the run's last word in its spare lanes.
#[cfg(feature = "sweep")]
#[inline(always)]
pub(super) fn all_equal_on_run<L: Isa, const N: usize>(
    first: u32,
    n: usize,
    c: u32,
    f: impl Fn([u32; N]) -> [u32; N],
) -> bool {
    use super::simd::Simd;
    use core::hint::black_box;
    debug_assert!(n >= 1 && u64::from(first) + n as u64 - 1 <= u64::from(u32::MAX));
    L::run(
        #[inline(always)]
        || {
            // The offsets pass through `black_box`, so the kernel knows no relation between its
            // lanes, as in the block loop. Where it knew them (consecutive words), LLVM
            // compiled the kernels into slower code, partly lane by lane, and Rust 1.95
            // miscompiled the AVX2 table lookup (`mufu_lanes::Coeffs::words_avx2`, an index
            // used unmasked: a load far outside the table, in the test profile).
            let offsets = black_box(Simd::new(build(|i| i as u32)));
            let differ = inlined(
                #[inline(always)]
                |base: u32, offsets: Simd<u32, N>| Simd::new(f((Simd::splat(base) + offsets).to_array())) ^ c,
            );
            let mut any = Simd::<u32, N>::ZERO;
            let mut base = first;
            for _ in 0..n / N {
                any |= differ(base, offsets);
                base = base.wrapping_add(N as u32);
            }
            if !n.is_multiple_of(N) {
                any |= differ(base, offsets.min(Simd::splat((n % N) as u32 - 1)));
            }
            any.none()
        },
    )
}

/// Group `i` (elements `i·N` to `i·N + N − 1`) of each of the `K` operands.
#[inline(always)]
fn group<S: Copy, const N: usize, const K: usize>(srcs: &[&[S]; K], i: usize) -> [[S; N]; K] {
    let operand = inlined(
        #[inline(always)]
        |k: usize| -> [S; N] { srcs[k][i * N..(i + 1) * N].try_into().unwrap() },
    );
    let mut group = [operand(0); K];
    for (k, g) in group.iter_mut().enumerate().skip(1) {
        *g = operand(k);
    }
    group
}

/// The loop of [`map`] over whole groups, inlined into [`Isa::groups`]: one call site of `f`,
/// so that it is inlined too.
#[inline(always)]
pub(super) fn groups<S: Copy, D: Copy, const N: usize, const K: usize>(
    srcs: [&[S]; K],
    dst: &mut [D],
    f: &impl Fn([[S; N]; K]) -> [D; N],
) {
    for (i, out) in dst.chunks_exact_mut(N).enumerate() {
        prefetch_group::<S, N, K>(&srcs, i);
        out.copy_from_slice(&f(group(&srcs, i)));
    }
}

/// [`prefetch_ahead`] of group `i` of each of the `K` operands.
#[inline(always)]
fn prefetch_group<S, const N: usize, const K: usize>(srcs: &[&[S]; K], i: usize) {
    for src in srcs {
        prefetch_ahead(src.as_ptr().wrapping_add(i * N), N * size_of::<S>());
    }
}

/// How far ahead of the group being computed the loop of [`map`] asks for its operands.
#[cfg(target_arch = "x86_64")]
const PREFETCH_BYTES: usize = 1024;

/// Ask the cache to fetch the `len` bytes [`PREFETCH_BYTES`] past `group`. A kernel that
/// computes for long per element keeps few loads of its own in flight, so on buffers in
/// memory its time would be compute plus memory latency rather than the larger of the two.
/// A prefetch is a hint: it never faults, even past the end of a buffer, and changes no result.
#[inline(always)]
fn prefetch_ahead<T>(group: *const T, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let ahead = group.cast::<i8>().wrapping_add(PREFETCH_BYTES);
        for line in 0..len.div_ceil(64) {
            // SAFETY: SSE is part of every x86-64 target; a prefetch dereferences nothing.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(64 * line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (group, len);
}
