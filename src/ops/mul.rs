//! `mul` (PTX 9.7.3.5, 9.7.4.3): one correctly rounded IEEE multiplication with NVIDIA's NaN
//! and flush-to-zero rules (docs/semantics.md §4–§5).

use super::{fits_u64, is_normal, Exact};
use crate::format::{Format, Unpacked};
use crate::nan;
use crate::round::{round_pack_sig, Rounding, Sig};

/// `a · b` rounded to `fmt`. The exact product (at most 106 bits) goes to round-and-pack, so
/// `.ftz` decides tininess after rounding with an unbounded exponent (docs/semantics.md §5).
#[inline(always)]
pub fn mul(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    if fits_u64(fmt) {
        mul_in::<u64>(fmt, a, b, rnd, ftz)
    } else {
        mul_in::<u128>(fmt, a, b, rnd, ftz)
    }
}

/// [`mul`] with the product held in `S`, which holds its 2p bits (48 in a `u64` for the
/// formats up to 32 bits, 106 in a `u128` for f64).
#[inline(always)]
pub(crate) fn mul_in<S: Sig>(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    use Unpacked::*;
    let neg = fmt.is_neg(a) != fmt.is_neg(b);
    if is_normal(fmt, a) & is_normal(fmt, b) {
        let (v, w) = (Exact::<S>::of_normal(fmt, a), Exact::<S>::of_normal(fmt, b));
        return round_pack_sig(fmt, neg, v.exp + w.exp, v.sig * w.sig, rnd, ftz);
    }
    match (fmt.unpack(a, ftz), fmt.unpack(b, ftz)) {
        (Nan, _) | (_, Nan) => nan::propagate(fmt, &nan::in_order([a, b], nan::F64_NAN_ORDER)),
        (Inf { .. }, Zero { .. }) | (Zero { .. }, Inf { .. }) => nan::invalid(fmt),
        (Inf { .. }, _) | (_, Inf { .. }) => fmt.inf(neg),
        (Zero { .. }, _) | (_, Zero { .. }) => fmt.zero(neg),
        (Finite { exp: ea, sig: sa, .. }, Finite { exp: eb, sig: sb, .. }) => {
            round_pack_sig(fmt, neg, ea + eb, S::from_u64(sa) * S::from_u64(sb), rnd, ftz)
        }
    }
}
