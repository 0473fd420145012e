//! Fixed-width lanes as plain arrays, with the element-wise operations the kernels use.
//!
//! Every operation is a loop over the lanes, always inlined, so the compiler vectorises it for
//! the instruction set of the function it lands in: a kernel compiled inside a
//! `#[target_feature]` function of [`super::level`] runs on 512-bit, 256-bit or 128-bit
//! registers without the crate being built for that CPU. (`wide`, whose types pick their
//! registers from the build's target features, would stay at the baseline width there.)
//!
//! Integer arithmetic wraps, as the hardware's; shifts take counts below the lane width.
//! Comparisons return masks: lanes of all ones where true, zeros where false, in the lanes'
//! own type (a float comparison gives a float vector with those bits).
//!
//! Every lane type gets the whole set of its kind; each kernel uses a part of it.
#![allow(dead_code)]
#![allow(non_camel_case_types)]

use core::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign, Mul, MulAssign,
    Neg, Not, Shl, Shr, Sub, SubAssign,
};

use bytemuck::{Pod, Zeroable};

use super::level::inlined;

/// `N` lanes of `T`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub(crate) struct Simd<T, const N: usize>([T; N]);

// SAFETY: a transparent wrapper of an array of plain-old-data lanes.
unsafe impl<T: Zeroable, const N: usize> Zeroable for Simd<T, N> {}
unsafe impl<T: Pod, const N: usize> Pod for Simd<T, N> {}

pub(crate) type f32x8 = Simd<f32, 8>;
pub(crate) type f32x16 = Simd<f32, 16>;
pub(crate) type f64x4 = Simd<f64, 4>;
pub(crate) type f64x8 = Simd<f64, 8>;
pub(crate) type i16x32 = Simd<i16, 32>;
pub(crate) type i32x8 = Simd<i32, 8>;
pub(crate) type i32x16 = Simd<i32, 16>;
pub(crate) type i64x8 = Simd<i64, 8>;
pub(crate) type u16x8 = Simd<u16, 8>;
pub(crate) type u16x16 = Simd<u16, 16>;
pub(crate) type u16x32 = Simd<u16, 32>;
pub(crate) type u32x4 = Simd<u32, 4>;
pub(crate) type u32x8 = Simd<u32, 8>;
pub(crate) type u32x16 = Simd<u32, 16>;
pub(crate) type u64x4 = Simd<u64, 4>;
pub(crate) type u64x8 = Simd<u64, 8>;

/// `[f(a[0]), f(a[1]), …]` as a plain loop, which inlines and vectorises in every build
/// (`core::array::from_fn` and `<[T; N]>::map` leave their closures out of line when the crate
/// is compiled in several codegen units).
#[inline(always)]
fn lanewise<T: Copy, U: Copy, const N: usize>(a: [T; N], fill: U, f: impl Fn(T) -> U) -> [U; N] {
    let mut out = [fill; N];
    for i in 0..N {
        out[i] = f(a[i]);
    }
    out
}

/// `[f(a[0], b[0]), f(a[1], b[1]), …]`, as [`lanewise`].
#[inline(always)]
fn zip<T: Copy, U: Copy, const N: usize>(a: [T; N], b: [T; N], f: impl Fn(T, T) -> U) -> [U; N] {
    let mut out = [f(a[0], b[0]); N];
    for i in 1..N {
        out[i] = f(a[i], b[i]);
    }
    out
}

impl<T: Copy + Default, const N: usize> Default for Simd<T, N> {
    #[inline(always)]
    fn default() -> Self {
        Simd([T::default(); N])
    }
}

impl<T: Copy, const N: usize> Simd<T, N> {
    #[inline(always)]
    pub(crate) const fn new(lanes: [T; N]) -> Self {
        Simd(lanes)
    }

    #[inline(always)]
    pub(crate) const fn splat(v: T) -> Self {
        Simd([v; N])
    }

    #[inline(always)]
    pub(crate) const fn to_array(self) -> [T; N] {
        self.0
    }

    #[inline(always)]
    pub(crate) const fn as_array(&self) -> &[T; N] {
        &self.0
    }
}

/// Binary operators lane by lane, with a vector or a scalar on either side.
macro_rules! binary {
    ($t:ty, $($trait:ident $f:ident $assign:ident $assign_f:ident => $op:expr),*) => {$(
        impl<const N: usize> $trait for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, $op))
            }
        }
        impl<const N: usize> $trait<$t> for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, rhs: $t) -> Self {
                self.$f(Self::splat(rhs))
            }
        }
        impl<const N: usize> $trait<Simd<$t, N>> for $t {
            type Output = Simd<$t, N>;
            #[inline(always)]
            fn $f(self, rhs: Simd<$t, N>) -> Simd<$t, N> {
                Simd::splat(self).$f(rhs)
            }
        }
        impl<const N: usize, R> $assign<R> for Simd<$t, N> where Self: $trait<R, Output = Self> {
            #[inline(always)]
            fn $assign_f(&mut self, rhs: R) {
                *self = self.$f(rhs);
            }
        }
    )*};
}

/// Lane comparisons returning masks of the lanes' type (`$ones`: a lane of all ones).
macro_rules! comparisons {
    ($t:ty, $ones:expr) => {
        impl<const N: usize> Simd<$t, N> {
            #[inline(always)]
            pub(crate) fn simd_eq(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a == b { $ones } else { <$t>::default() }))
            }
            #[inline(always)]
            pub(crate) fn simd_ne(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a != b { $ones } else { <$t>::default() }))
            }
            #[inline(always)]
            pub(crate) fn simd_lt(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a < b { $ones } else { <$t>::default() }))
            }
            #[inline(always)]
            pub(crate) fn simd_gt(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a > b { $ones } else { <$t>::default() }))
            }
            #[inline(always)]
            pub(crate) fn simd_le(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a <= b { $ones } else { <$t>::default() }))
            }
            #[inline(always)]
            pub(crate) fn simd_ge(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a >= b { $ones } else { <$t>::default() }))
            }
        }
    };
}

/// Integer lanes: wrapping arithmetic, bit operations, shifts, masks.
macro_rules! integer {
    ($($t:ty => $other:ty),*) => {$(
        binary!($t,
            Add add AddAssign add_assign => <$t>::wrapping_add,
            Sub sub SubAssign sub_assign => <$t>::wrapping_sub,
            Mul mul MulAssign mul_assign => <$t>::wrapping_mul,
            BitAnd bitand BitAndAssign bitand_assign => |a: $t, b: $t| a & b,
            BitOr bitor BitOrAssign bitor_assign => |a: $t, b: $t| a | b,
            BitXor bitxor BitXorAssign bitxor_assign => |a: $t, b: $t| a ^ b
        );
        comparisons!($t, !0);

        impl<const N: usize> Neg for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                Simd(lanewise(self.0, 0, <$t>::wrapping_neg))
            }
        }

        impl<const N: usize> Not for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn not(self) -> Self {
                Simd(lanewise(self.0, 0, |a| !a))
            }
        }

        /// Shift every lane by the same count (logical for unsigned lanes, arithmetic for signed).
        impl<const N: usize> Shl<u32> for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn shl(self, count: u32) -> Self {
                Simd(lanewise(self.0, 0, |a| a << count))
            }
        }
        impl<const N: usize> Shr<u32> for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn shr(self, count: u32) -> Self {
                Simd(lanewise(self.0, 0, |a| a >> count))
            }
        }

        /// Shift each lane by its own count, below the lane width. A count of the width or
        /// more gives what x86's variable shifts give (0, or the sign for an arithmetic shift),
        /// so that the lanes compile to one vector shift in every profile: a plain `<<` keeps
        /// a per-lane overflow check where overflow checks are on (the test profile), and
        /// that branch keeps the loop scalar.
        impl<const N: usize> Shl for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn shl(self, count: Self) -> Self {
                Simd(zip(self.0, count.0, |a, n| a.checked_shl(n as u32).unwrap_or(0)))
            }
        }
        impl<const N: usize> Shr for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn shr(self, count: Self) -> Self {
                Simd(zip(self.0, count.0, |a, n| a.checked_shr(n as u32).unwrap_or((a >> (<$t>::BITS - 1)) >> 1)))
            }
        }

        impl<const N: usize> Simd<$t, N> {
            pub(crate) const ZERO: Self = Simd([0; N]);
            pub(crate) const ONE: Self = Simd([1; N]);

            /// `mask ? yes : no` bit by bit (a mask lane is all ones or all zeros).
            #[inline(always)]
            pub(crate) fn select(self, yes: Self, no: Self) -> Self {
                (self & yes) | (!self & no)
            }

            /// Whether any lane is nonzero.
            #[inline(always)]
            pub(crate) fn any(self) -> bool {
                let mut acc = 0;
                for a in self.0 {
                    acc |= a;
                }
                acc != 0
            }

            /// Whether every lane is nonzero.
            #[inline(always)]
            pub(crate) fn all(self) -> bool {
                let mut acc = true;
                for a in self.0 {
                    acc &= a != 0;
                }
                acc
            }

            /// Whether every lane is zero.
            #[inline(always)]
            pub(crate) fn none(self) -> bool {
                !self.any()
            }

            /// The lanes' top bits, lane i in bit i.
            #[inline(always)]
            pub(crate) fn to_bitmask(self) -> u64 {
                let mut mask = 0;
                for i in 0..N {
                    mask |= (((self.0[i] >> (<$t>::BITS - 1)) & 1) as u64) << i;
                }
                mask
            }

            #[inline(always)]
            pub(crate) fn min(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, <$t>::min))
            }

            /// The leading zero bits of each lane (its width for 0).
            #[inline(always)]
            pub(crate) fn leading_zeros(self) -> Self {
                Simd(lanewise(self.0, 0, |a| a.leading_zeros() as $t))
            }

            #[inline(always)]
            pub(crate) fn max(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, <$t>::max))
            }

            /// The smallest lane.
            #[inline(always)]
            pub(crate) fn reduce_min(self) -> $t {
                let mut acc = self.0[0];
                for a in self.0 {
                    acc = acc.min(a);
                }
                acc
            }

            /// The largest lane.
            #[inline(always)]
            pub(crate) fn reduce_max(self) -> $t {
                let mut acc = self.0[0];
                for a in self.0 {
                    acc = acc.max(a);
                }
                acc
            }

            /// Each lane shifted left by its own count; a count of the lane width or more gives 0.
            #[inline(always)]
            pub(crate) fn unbounded_shl(self, count: Simd<$other, N>) -> Self {
                let mut out = self.0;
                for i in 0..N {
                    out[i] = self.0[i].checked_shl(count.0[i] as u32).unwrap_or(0);
                }
                Simd(out)
            }

            /// Each lane shifted right by its own count; a count of the lane width or more gives
            /// 0 (or, for signed lanes, the sign).
            #[inline(always)]
            pub(crate) fn unbounded_shr(self, count: Simd<$other, N>) -> Self {
                let mut out = self.0;
                for i in 0..N {
                    out[i] = self.0[i].checked_shr(count.0[i] as u32).unwrap_or(if self.0[i] < 0 as $t { !0 } else { 0 });
                }
                Simd(out)
            }
        }
    )*};
}

integer!(u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

/// The signed and unsigned views of integer lanes.
macro_rules! signedness {
    ($($u:ty => $i:ty),*) => {$(
        impl<const N: usize> Simd<$u, N> {
            #[inline(always)]
            pub(crate) fn cast_signed(self) -> Simd<$i, N> {
                Simd(lanewise(self.0, 0, |a| a as $i))
            }
        }
        impl<const N: usize> Simd<$i, N> {
            #[inline(always)]
            pub(crate) fn cast_unsigned(self) -> Simd<$u, N> {
                Simd(lanewise(self.0, 0, |a| a as $u))
            }

            /// |self|, wrapping: the most negative lane stays as it is.
            #[inline(always)]
            pub(crate) fn abs(self) -> Self {
                Simd(lanewise(self.0, 0, <$i>::wrapping_abs))
            }

            /// `self − rhs` clamped to the lanes' range. Written with the wrapped difference
            /// and its overflow, as there is no vector instruction for it at 32 and 64 bits
            /// (`<$i>::saturating_sub` stays scalar in lanes).
            #[inline(always)]
            pub(crate) fn saturating_sub(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a: $i, b: $i| {
                    let d = a.wrapping_sub(b);
                    let overflow = ((a ^ b) & (a ^ d)) < 0;
                    if overflow { (a >> (<$i>::BITS - 1)) ^ <$i>::MAX } else { d }
                }))
            }
        }
    )*};
}
signedness!(u16 => i16, u32 => i32, u64 => i64);

/// Unsigned lanes of any width, for kernels written once for the encodings of several formats
/// (each method is the type's own).
pub(crate) trait Unsigned:
    Copy
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Add<Output = Self>
    + Sub<Output = Self>
    + Shl<Output = Self>
    + Shr<u32, Output = Self>
{
    /// `bits` truncated to the lane width, in every lane.
    fn splat_bits(bits: u64) -> Self;
    fn simd_eq(self, rhs: Self) -> Self;
    fn simd_ne(self, rhs: Self) -> Self;
    fn simd_lt(self, rhs: Self) -> Self;
    fn simd_gt(self, rhs: Self) -> Self;
    fn select(self, yes: Self, no: Self) -> Self;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl<const N: usize> Unsigned for Simd<$t, N> {
            #[inline(always)]
            fn splat_bits(bits: u64) -> Self {
                Self::splat(bits as $t)
            }
            #[inline(always)]
            fn simd_eq(self, rhs: Self) -> Self {
                Self::simd_eq(self, rhs)
            }
            #[inline(always)]
            fn simd_ne(self, rhs: Self) -> Self {
                Self::simd_ne(self, rhs)
            }
            #[inline(always)]
            fn simd_lt(self, rhs: Self) -> Self {
                Self::simd_lt(self, rhs)
            }
            #[inline(always)]
            fn simd_gt(self, rhs: Self) -> Self {
                Self::simd_gt(self, rhs)
            }
            #[inline(always)]
            fn select(self, yes: Self, no: Self) -> Self {
                Self::select(self, yes, no)
            }
        }
    )*};
}
unsigned!(u16, u32, u64);

/// Float lanes: IEEE arithmetic as Rust defines it (round to nearest), masks as float bits.
macro_rules! float {
    ($($t:ty => $bits:ty),*) => {$(
        binary!($t,
            Add add AddAssign add_assign => |a: $t, b: $t| a + b,
            Sub sub SubAssign sub_assign => |a: $t, b: $t| a - b,
            Mul mul MulAssign mul_assign => |a: $t, b: $t| a * b,
            Div div DivAssign div_assign => |a: $t, b: $t| a / b
        );

        impl<const N: usize> Neg for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                Simd(lanewise(self.0, 0.0, |a| -a))
            }
        }

        /// Bit operations on the lanes' bits, for masks.
        impl<const N: usize> BitAnd for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn bitand(self, rhs: Self) -> Self {
                Self::from_bits(self.to_bits() & rhs.to_bits())
            }
        }
        impl<const N: usize> BitOr for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn bitor(self, rhs: Self) -> Self {
                Self::from_bits(self.to_bits() | rhs.to_bits())
            }
        }
        impl<const N: usize> BitXor for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn bitxor(self, rhs: Self) -> Self {
                Self::from_bits(self.to_bits() ^ rhs.to_bits())
            }
        }
        impl<const N: usize> Not for Simd<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn not(self) -> Self {
                Self::from_bits(!self.to_bits())
            }
        }
        impl<const N: usize> BitAndAssign for Simd<$t, N> {
            #[inline(always)]
            fn bitand_assign(&mut self, rhs: Self) {
                *self = *self & rhs;
            }
        }
        impl<const N: usize> BitOrAssign for Simd<$t, N> {
            #[inline(always)]
            fn bitor_assign(&mut self, rhs: Self) {
                *self = *self | rhs;
            }
        }
        impl<const N: usize> BitXorAssign for Simd<$t, N> {
            #[inline(always)]
            fn bitxor_assign(&mut self, rhs: Self) {
                *self = *self ^ rhs;
            }
        }

        impl<const N: usize> Simd<$t, N> {
            pub(crate) const ZERO: Self = Simd([0.0; N]);
            pub(crate) const ONE: Self = Simd([1.0; N]);

            #[inline(always)]
            pub(crate) fn to_bits(self) -> Simd<$bits, N> {
                Simd(lanewise(self.0, 0, <$t>::to_bits))
            }

            #[inline(always)]
            pub(crate) fn from_bits(bits: Simd<$bits, N>) -> Self {
                Simd(lanewise(bits.0, 0.0, <$t>::from_bits))
            }

            /// Lanes where `self == rhs` numerically, as a mask of float bits.
            #[inline(always)]
            pub(crate) fn simd_eq(self, rhs: Self) -> Self {
                Self::from_bits(Simd(zip(self.0, rhs.0, |a, b| if a == b { !0 } else { 0 })))
            }

            #[inline(always)]
            pub(crate) fn simd_lt(self, rhs: Self) -> Self {
                Self::from_bits(Simd(zip(self.0, rhs.0, |a, b| if a < b { !0 } else { 0 })))
            }

            #[inline(always)]
            pub(crate) fn simd_gt(self, rhs: Self) -> Self {
                Self::from_bits(Simd(zip(self.0, rhs.0, |a, b| if a > b { !0 } else { 0 })))
            }

            /// Lanes where `self != rhs`, NaN lanes included.
            #[inline(always)]
            pub(crate) fn simd_ne(self, rhs: Self) -> Self {
                Self::from_bits(Simd(zip(self.0, rhs.0, |a, b| if a != b { !0 } else { 0 })))
            }

            #[inline(always)]
            pub(crate) fn simd_le(self, rhs: Self) -> Self {
                Self::from_bits(Simd(zip(self.0, rhs.0, |a, b| if a <= b { !0 } else { 0 })))
            }

            #[inline(always)]
            pub(crate) fn simd_ge(self, rhs: Self) -> Self {
                Self::from_bits(Simd(zip(self.0, rhs.0, |a, b| if a >= b { !0 } else { 0 })))
            }

            /// The NaN lanes, as a mask.
            #[inline(always)]
            pub(crate) fn is_nan(self) -> Self {
                self.simd_ne(self)
            }

            /// The lanes neither infinite nor NaN, as a mask: the exponent field below all ones,
            /// compared as integers (a float comparison of |x| with infinity becomes a class
            /// test that the compiler evaluates lane by lane).
            #[inline(always)]
            pub(crate) fn is_finite(self) -> Self {
                let infinity = <$t>::INFINITY.to_bits() << 1;
                Self::from_bits(Simd(lanewise(self.0, 0, |a: $t| if a.to_bits() << 1 < infinity { !0 } else { 0 })))
            }

            /// Whether any lane of a mask is set.
            #[inline(always)]
            pub(crate) fn any(self) -> bool {
                self.to_bits().any()
            }

            /// Whether every lane of a mask is set.
            #[inline(always)]
            pub(crate) fn all(self) -> bool {
                self.to_bits().all()
            }

            /// Whether no lane of a mask is set.
            #[inline(always)]
            pub(crate) fn none(self) -> bool {
                self.to_bits().none()
            }

            /// The lanes' sign bits, lane i in bit i.
            #[inline(always)]
            pub(crate) fn to_bitmask(self) -> u64 {
                self.to_bits().to_bitmask()
            }

            /// `self > rhs ? self : rhs` in each lane: `rhs` where either is NaN, and where
            /// both are zeros (as x86's `maxpd`/`maxps`).
            #[inline(always)]
            pub(crate) fn fast_max(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a > b { a } else { b }))
            }

            /// `self < rhs ? self : rhs` in each lane (as x86's `minpd`/`minps`).
            #[inline(always)]
            pub(crate) fn fast_min(self, rhs: Self) -> Self {
                Simd(zip(self.0, rhs.0, |a, b| if a < b { a } else { b }))
            }

            /// `mask ? yes : no` bit by bit, the mask being float lanes of all ones or zeros.
            #[inline(always)]
            pub(crate) fn select(self, yes: Self, no: Self) -> Self {
                Self::from_bits(self.to_bits().select(yes.to_bits(), no.to_bits()))
            }

            #[inline(always)]
            pub(crate) fn abs(self) -> Self {
                Simd(lanewise(self.0, 0.0, <$t>::abs))
            }

            /// The correctly rounded square root.
            #[inline(always)]
            pub(crate) fn sqrt(self) -> Self {
                Simd(lanewise(self.0, 0.0, <$t>::sqrt))
            }

            /// `self·b + c` with one rounding. Only where the instruction set has FMA is this
            /// one instruction; elsewhere it is a library call per lane.
            #[inline(always)]
            pub(crate) fn mul_add(self, b: Self, c: Self) -> Self {
                let mut out = self.0;
                for i in 0..N {
                    out[i] = self.0[i].mul_add(b.0[i], c.0[i]);
                }
                Simd(out)
            }

            /// `c − self·b` with one rounding, as [`Simd::mul_add`].
            #[inline(always)]
            pub(crate) fn mul_neg_add(self, b: Self, c: Self) -> Self {
                let mut out = self.0;
                for i in 0..N {
                    out[i] = (-self.0[i]).mul_add(b.0[i], c.0[i]);
                }
                Simd(out)
            }
        }
    )*};
}

float!(f32 => u32, f64 => u64);

impl<const N: usize> Simd<f32, N> {
    /// Each i32 lane converted (rounded to nearest where it needs more than 24 bits).
    #[inline(always)]
    pub(crate) fn from_i32(v: Simd<i32, N>) -> Self {
        Simd(lanewise(v.0, 0.0, |a| a as f32))
    }
}

impl<const N: usize> Simd<f64, N> {
    /// Each i32 lane converted exactly.
    #[inline(always)]
    pub(crate) fn from_i32(v: Simd<i32, N>) -> Self {
        Simd(lanewise(v.0, 0.0, f64::from))
    }

    /// Each f32 lane converted exactly.
    #[inline(always)]
    pub(crate) fn from_f32(v: Simd<f32, N>) -> Self {
        Simd(lanewise(v.0, 0.0, f64::from))
    }

    /// Each lane rounded to f32 (`as f32`: to nearest even, subnormals and overflow
    /// included).
    #[inline(always)]
    pub(crate) fn to_f32(self) -> Simd<f32, N> {
        Simd(lanewise(self.0, 0.0, |a| a as f32))
    }
}

impl i16x32 {
    /// `self[2i]·rhs[2i] + self[2i+1]·rhs[2i+1]` in lane i of sixteen i32 lanes (`pmaddwd`;
    /// only −2^15·−2^15 twice wraps).
    #[inline(always)]
    pub(crate) fn dot(self, rhs: i16x32) -> i32x16 {
        let mut out = [0; 16];
        for (i, o) in out.iter_mut().enumerate() {
            let product = inlined(
                #[inline(always)]
                |k: usize| i32::from(self.0[k]) * i32::from(rhs.0[k]),
            );
            *o = product(2 * i).wrapping_add(product(2 * i + 1));
        }
        Simd(out)
    }
}

impl<const N: usize> From<Simd<u16, N>> for Simd<u32, N> {
    /// Zero-extended.
    #[inline(always)]
    fn from(v: Simd<u16, N>) -> Self {
        Simd(lanewise(v.0, 0, u32::from))
    }
}

/// Placed in a loop whose body is lane code, keeps the compiler from vectorising the loop
/// across its iterations, which would put each lane of the body in a vector of its own and
/// reach the memory by gathers and scatters. It is an empty `asm!`, which costs nothing.
#[inline(always)]
pub(crate) fn lane_loop() {
    // SAFETY: no instruction.
    unsafe { core::arch::asm!("", options(nomem, nostack, preserves_flags)) }
}

/// The registers of `core::arch` as lanes and back (the same bytes).
#[cfg(target_arch = "x86_64")]
mod registers {
    use core::arch::x86_64::{__m128i, __m256, __m256d, __m256i, __m512, __m512d, __m512i};

    use super::*;

    macro_rules! register {
        ($($reg:ty => $($lanes:ty),*);*) => {$($(
            impl From<$lanes> for $reg {
                #[inline(always)]
                fn from(v: $lanes) -> $reg {
                    // SAFETY: both are plain bytes of the same size (checked by transmute).
                    unsafe { core::mem::transmute::<$lanes, $reg>(v) }
                }
            }
            impl From<$reg> for $lanes {
                #[inline(always)]
                fn from(v: $reg) -> $lanes {
                    // SAFETY: as above.
                    unsafe { core::mem::transmute::<$reg, $lanes>(v) }
                }
            }
        )*)*};
    }
    register!(
        __m512 => f32x16;
        __m512d => f64x8;
        __m512i => u32x16, i32x16, u64x8, u16x32, i16x32;
        __m256 => f32x8;
        __m256d => f64x4;
        __m256i => u32x8, i32x8, u16x16, u64x4;
        __m128i => u16x8, u32x4
    );
}
