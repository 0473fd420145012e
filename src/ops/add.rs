//! `add` and `sub` (PTX 9.7.3.3–4, 9.7.4.1–2): one correctly rounded IEEE addition with
//! NVIDIA's NaN and flush-to-zero rules (docs/semantics.md §4–§5).

use super::{fits_u64, is_normal, Exact, Term};
use crate::format::Format;
use crate::nan;
use crate::round::{round_pack_sig, Rounding, Sig};

/// `a + b` rounded to `fmt`. `ftz` flushes subnormal inputs and results (docs/semantics.md §5).
#[inline(always)]
pub fn add(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    if fits_u64(fmt) {
        add_in::<u64>(fmt, a, b, rnd, ftz)
    } else {
        add_in::<u128>(fmt, a, b, rnd, ftz)
    }
}

/// [`add`] with significands held in `S`.
#[inline(always)]
pub(crate) fn add_in<S: Sig>(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    if is_normal(fmt, a) & is_normal(fmt, b) {
        return finite_sum(fmt, Exact::<S>::of_normal(fmt, a), Exact::of_normal(fmt, b), rnd, ftz);
    }
    match (Term::<S>::of(fmt.unpack(a, ftz)), Term::<S>::of(fmt.unpack(b, ftz))) {
        (Some(x), Some(y)) => add_terms(fmt, x, y, rnd, ftz),
        _ => nan::propagate(fmt, &nan::in_order([a, b], nan::F64_NAN_ORDER)),
    }
}

/// `a − b`: `a + (−b)`. A NaN `b` keeps its sign (the negation is an operand modifier of the
/// adder, which does not touch NaNs) \[INF\].
#[inline(always)]
pub fn sub(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    let neg_b = if fmt.is_nan(b) { b } else { b ^ fmt.sign_bit() };
    add(fmt, a, neg_b, rnd, ftz)
}

/// The rounded sum of two non-NaN terms, with the IEEE 754 rules for infinities and for the
/// sign of an exact zero (IEEE 754-2019 clause 6.3: −0 only for (−0) + (−0), or for a
/// cancellation under `.rm`).
///
/// The finite case comes first and every arm binds its finite value from one position: an
/// or-pattern binding a value from either operand compiles to a pointer selected between two
/// stack copies of the terms, a store and a reload on every call.
#[inline(always)]
pub(crate) fn add_terms<S: Sig>(fmt: Format, x: Term<S>, y: Term<S>, rnd: Rounding, ftz: bool) -> u64 {
    match (x, y) {
        (Term::Finite(v), Term::Finite(w)) => finite_sum(fmt, v, w, rnd, ftz),
        (Term::Inf(a), Term::Inf(b)) if a != b => nan::invalid(fmt),
        (Term::Inf(neg), _) | (_, Term::Inf(neg)) => fmt.inf(neg),
        (Term::Zero(a), Term::Zero(b)) => fmt.zero(a && b || (a != b && rnd.cancellation_zero_is_negative())),
        (Term::Zero(_), Term::Finite(v)) => round_pack_sig(fmt, v.neg, v.exp, v.sig, rnd, ftz),
        (Term::Finite(v), Term::Zero(_)) => round_pack_sig(fmt, v.neg, v.exp, v.sig, rnd, ftz),
    }
}

/// The rounded sum of two finite nonzero values: an exact zero is +0, or −0 under `.rm`.
#[inline(always)]
pub(crate) fn finite_sum<S: Sig>(fmt: Format, v: Exact<S>, w: Exact<S>, rnd: Rounding, ftz: bool) -> u64 {
    aligned_finite_sum(fmt, v.normalized_to(align_bit::<S>()), w.normalized_to(align_bit::<S>()), rnd, ftz)
}

/// The bit [`exact_sum`] wants the top bits of both significands at: `S::BITS − 3`.
#[inline(always)]
pub(crate) const fn align_bit<S: Sig>() -> u32 {
    S::BITS - 3
}

/// [`finite_sum`] of values whose significands have their top bits at [`align_bit`] already.
#[inline(always)]
pub(crate) fn aligned_finite_sum<S: Sig>(fmt: Format, v: Exact<S>, w: Exact<S>, rnd: Rounding, ftz: bool) -> u64 {
    let sum = exact_sum(v, w);
    if sum.sig == S::ZERO {
        fmt.zero(rnd.cancellation_zero_is_negative())
    } else {
        round_pack_sig(fmt, sum.neg, sum.exp, sum.sig, rnd, ftz)
    }
}

/// The sum of two nonzero finite values, exact or with a sticky bit.
///
/// Both significands come with their top bits at [`align_bit`] (125 in a `u128`, 61 in a
/// `u64`), which leaves room for the carry; the operand with the smaller exponent is shifted right with the
/// lost bits jammed into its lowest bit. A term has at most 2p significant bits (the exact
/// product of `fma`; p = 53 in a `u128`, p ≤ 24 in a `u64`), so after the alignment its lowest
/// `S::BITS − 2 − 2p` bits are zero and a shift by at most that many loses nothing: the sum is
/// exact. A longer shift leaves the smaller operand below 2^(2p−1) while the larger is at least
/// 2^(BITS−3), so even their difference is at least 2^(BITS−4): the result keeps at least
/// 60 bits above the sticky bit, more than the p + 2 that rounding needs.
///
/// So both widths hand [`round_pack_sig`] either the exact sum or the sum with its bits below
/// some position at least p + 2 below its top replaced by one sticky 1. That replacement
/// changes neither the top bit, nor whether the part below any rounding position (normal or
/// subnormal, at least 2 bits above the sticky bit) is zero, nor how it compares with half a
/// unit there; so the rounded result is the same, whatever the width.
#[inline(always)]
fn exact_sum<S: Sig>(x: Exact<S>, y: Exact<S>) -> Exact<S> {
    // The larger and the smaller operand, selected field by field (a selection of whole
    // terms compiled to stack copies).
    let swap = x.exp < y.exp;
    let (hi_sig, lo_sig) = (if swap { y.sig } else { x.sig }, if swap { x.sig } else { y.sig });
    let (hi_neg, lo_neg) = (if swap { y.neg } else { x.neg }, if swap { x.neg } else { y.neg });
    let (hi_exp, lo_exp) = (x.exp.max(y.exp), x.exp.min(y.exp));
    let lo_sig = shift_right_jam(lo_sig, (hi_exp - lo_exp) as u32);
    if (hi_neg != lo_neg) & (hi_sig < lo_sig) {
        // Only when both exponents are equal (rare: `&` rather than `&&`, so that the signs
        // alone are not a branch of their own).
        return Exact { neg: lo_neg, exp: hi_exp, sig: lo_sig - hi_sig };
    }
    // The sum stays below 2^(BITS-1).
    let sig = if hi_neg == lo_neg { hi_sig + lo_sig } else { hi_sig - lo_sig };
    Exact { neg: hi_neg, exp: hi_exp, sig }
}

/// `sig >> shift` with every discarded 1 bit ORed into the lowest bit of the result.
#[inline(always)]
pub(crate) fn shift_right_jam<S: Sig>(sig: S, shift: u32) -> S {
    if shift >= S::BITS {
        S::from_bool(sig != S::ZERO)
    } else {
        // For shift 0 the mask is empty and `sig` comes back unchanged.
        (sig >> shift) | S::from_bool((sig & ((S::ONE << shift) - S::ONE)) != S::ZERO)
    }
}
