//! `div.rn/rz/rm/rp` and `rcp.rn/rz/rm/rp` (PTX 9.7.3.8, 9.7.3.13): the IEEE quotient,
//! correctly rounded, with NVIDIA's NaN and flush-to-zero rules (docs/semantics.md §4–§5).

use crate::format::{Format, Unpacked};
use crate::nan;
use crate::round::{round_pack, Rounding};

/// `a / b` correctly rounded to `fmt`.
pub fn div(fmt: Format, a: u64, b: u64, rnd: Rounding, ftz: bool) -> u64 {
    use Unpacked::*;
    let neg = fmt.is_neg(a) != fmt.is_neg(b);
    match (fmt.unpack(a, ftz), fmt.unpack(b, ftz)) {
        (Nan, _) | (_, Nan) => nan::propagate(fmt, &[a, b]),
        (Inf { .. }, Inf { .. }) | (Zero { .. }, Zero { .. }) => nan::invalid(fmt),
        (Inf { .. }, _) | (_, Zero { .. }) => fmt.inf(neg),
        (_, Inf { .. }) | (Zero { .. }, _) => fmt.zero(neg),
        (Finite { exp: ea, sig: sa, .. }, Finite { exp: eb, sig: sb, .. }) => {
            // Dividend with its top bit at 125, divisor at 63: the quotient has at least 62
            // bits, and a nonzero remainder becomes the sticky bit.
            let shift_a = 125 - (63 - sa.leading_zeros());
            let shift_b = 63 - (63 - sb.leading_zeros());
            let n = (sa as u128) << shift_a;
            let d = (sb as u128) << shift_b;
            let q = n / d;
            let sticky = !n.is_multiple_of(d) as u128;
            let exp = (ea - shift_a as i32) - (eb - shift_b as i32);
            round_pack(fmt, neg, exp, q | sticky, rnd, ftz)
        }
    }
}

/// `1 / a` correctly rounded: exactly `div(1.0, a)`.
pub fn rcp(fmt: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    div(fmt, fmt.one(), a, rnd, ftz)
}
