//! The scalar definitions: one file per instruction family, each the specification in code of
//! what the GPU writes. They work on raw bits in the low bits of a `u64` and end in
//! [`crate::round::round_pack`] or a rule of [`crate::nan`].

pub mod add;
pub mod cvt;
pub mod div;
pub mod fma;
pub mod minmax;
pub mod mul;
pub mod sign;
pub mod sqrt;
pub mod testp;

use crate::format::Unpacked;

/// A finite nonzero value `(-1)^neg · sig · 2^exp` held exactly, or with a sticky bit in the
/// lowest position of `sig` (see [`crate::round::round_pack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exact {
    pub neg: bool,
    pub exp: i32,
    pub sig: u128,
}

impl Exact {
    /// Shift the significand left so that its top bit is at position `bit`.
    #[inline(always)]
    fn normalized_to(self, bit: u32) -> Exact {
        let top = 127 - self.sig.leading_zeros();
        let shift = bit - top;
        Exact { neg: self.neg, exp: self.exp - shift as i32, sig: self.sig << shift }
    }
}

/// A non-NaN operand of an addition: the inputs of `add`, or the exact product and addend of
/// `fma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    Inf(bool),
    Zero(bool),
    Finite(Exact),
}

impl Term {
    /// The term of an unpacked operand; `None` for a NaN.
    #[inline(always)]
    pub fn of(u: Unpacked) -> Option<Term> {
        match u {
            Unpacked::Nan => None,
            Unpacked::Inf { neg } => Some(Term::Inf(neg)),
            Unpacked::Zero { neg } => Some(Term::Zero(neg)),
            Unpacked::Finite { neg, exp, sig } => Some(Term::Finite(Exact { neg, exp, sig: sig as u128 })),
        }
    }
}
