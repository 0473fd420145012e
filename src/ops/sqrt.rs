//! `sqrt.rn/rz/rm/rp` (PTX 9.7.3.15): the IEEE square root, correctly rounded, with NVIDIA's
//! NaN and flush-to-zero rules (docs/semantics.md §4–§5).

use crate::format::{Format, Unpacked};
use crate::nan;
use crate::round::{round_pack, Rounding};

/// `√a` correctly rounded to `fmt`; √(−0) = −0, the root of any other negative value is the
/// invalid-operation NaN.
pub fn sqrt(fmt: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    match fmt.unpack(a, ftz) {
        Unpacked::Nan => nan::propagate(fmt, &[a]),
        Unpacked::Zero { neg } => fmt.zero(neg),
        Unpacked::Inf { neg: false } => fmt.inf(false),
        Unpacked::Inf { neg: true } | Unpacked::Finite { neg: true, .. } => nan::invalid(fmt),
        Unpacked::Finite { neg: false, exp, sig } => {
            // Radicand with its top bit at 124 or 125 and an even exponent: the integer root
            // has at least 62 bits, and an inexact root gets a sticky bit.
            let top = 63 - sig.leading_zeros() as i32;
            let mut shift = 124 - top;
            if (exp - shift) % 2 != 0 {
                shift += 1;
            }
            let n = (sig as u128) << shift;
            let root = n.isqrt();
            let sticky = (root * root != n) as u128;
            round_pack(fmt, false, (exp - shift) / 2, root | sticky, rnd, ftz)
        }
    }
}
