//! `add` and `sub` (PTX 9.7.3.3–4, 9.7.4.1–2): one correctly rounded IEEE addition with
//! NVIDIA's NaN and flush-to-zero rules (SEMANTICS §4–§5).

use super::{Exact, Term};
use crate::format::Format;
use crate::nan;
use crate::round::{round_pack, Rounding};

/// `a + b` rounded to `fmt`. `ftz` flushes subnormal inputs and results (SEMANTICS §5).
#[inline(always)]
pub fn add(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    match (Term::of(fmt.unpack(a, ftz)), Term::of(fmt.unpack(b, ftz))) {
        (Some(x), Some(y)) => add_terms(fmt, x, y, rnd, ftz),
        _ => nan::propagate(fmt, &[a, b]),
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
/// sign of an exact zero (§6.3: −0 only for (−0) + (−0), or for a cancellation under `.rm`).
#[inline(always)]
pub(crate) fn add_terms(fmt: Format, x: Term, y: Term, rnd: Rounding, ftz: bool) -> u64 {
    match (x, y) {
        (Term::Inf(a), Term::Inf(b)) if a != b => nan::invalid(fmt),
        (Term::Inf(neg), _) | (_, Term::Inf(neg)) => fmt.inf(neg),
        (Term::Zero(a), Term::Zero(b)) => fmt.zero(a && b || (a != b && rnd.cancellation_zero_is_negative())),
        (Term::Zero(_), Term::Finite(v)) | (Term::Finite(v), Term::Zero(_)) => {
            round_pack(fmt, v.neg, v.exp, v.sig, rnd, ftz)
        }
        (Term::Finite(v), Term::Finite(w)) => {
            let sum = exact_sum(v, w);
            if sum.sig == 0 {
                fmt.zero(rnd.cancellation_zero_is_negative())
            } else {
                round_pack(fmt, sum.neg, sum.exp, sum.sig, rnd, ftz)
            }
        }
    }
}

/// The sum of two nonzero finite values, exact or with a sticky bit.
///
/// Both significands (at most 106 bits each) are aligned at bit 125; the operand with the
/// smaller exponent is shifted right with the lost bits jammed into its lowest bit. Whenever
/// bits are lost the result keeps at least 120 bits above the sticky bit, far more than the
/// p + 2 that rounding needs.
#[inline(always)]
fn exact_sum(x: Exact, y: Exact) -> Exact {
    let (x, y) = (x.normalized_to(125), y.normalized_to(125));
    let (hi, lo) = if x.exp >= y.exp { (x, y) } else { (y, x) };
    let lo_sig = shift_right_jam(lo.sig, (hi.exp - lo.exp) as u32);
    if hi.neg == lo.neg {
        Exact { neg: hi.neg, exp: hi.exp, sig: hi.sig + lo_sig }
    } else if hi.sig >= lo_sig {
        Exact { neg: hi.neg, exp: hi.exp, sig: hi.sig - lo_sig }
    } else {
        Exact { neg: lo.neg, exp: hi.exp, sig: lo_sig - hi.sig }
    }
}

/// `sig >> shift` with every discarded 1 bit ORed into the lowest bit of the result.
#[inline(always)]
pub(crate) fn shift_right_jam(sig: u128, shift: u32) -> u128 {
    if shift == 0 {
        sig
    } else if shift >= 128 {
        (sig != 0) as u128
    } else {
        (sig >> shift) | ((sig & ((1u128 << shift) - 1)) != 0) as u128
    }
}
