//! `fma` and `mad` (PTX 9.7.3.6–7, 9.7.4.4): `a · b + c` with a single rounding. `mad` with a
//! rounding modifier is the same operation \[DOC PTX 9.7.3.7\].

use super::add::{add_terms, align_bit, aligned_finite_sum};
use super::{fits_u64, is_normal, Exact, Term};
use crate::format::Format;
use crate::nan;
use crate::round::{Rounding, Sig};

/// `a · b + c`: exact product, exact sum, one rounding to `fmt`. `ftz` flushes subnormal
/// inputs and decides result tininess after rounding (docs/semantics.md §5).
///
/// A NaN operand wins over the invalid cases (∞·0, ∞ − ∞); for f64 the first NaN in operand
/// order is propagated (docs/semantics.md §4, order \[INF\]).
#[inline(always)]
pub fn fma(fmt: Format, a: u64, b: u64, c: u64, rnd: Rounding, ftz: bool) -> u64 {
    if fits_u64(fmt) {
        fma_in::<u64>(fmt, a, b, c, rnd, ftz)
    } else {
        fma_in::<u128>(fmt, a, b, c, rnd, ftz)
    }
}

/// [`fma`] with significands held in `S`, which holds the exact product (2p bits).
#[inline(always)]
pub(crate) fn fma_in<S: Sig>(fmt: Format, a: u64, b: u64, c: u64, rnd: Rounding, ftz: bool) -> u64 {
    if is_normal(fmt, a) & is_normal(fmt, b) & is_normal(fmt, c) {
        let (v, w) = (Exact::<S>::of_normal(fmt, a), Exact::<S>::of_normal(fmt, b));
        let product = Exact::normal_product_at(fmt, v, w, align_bit::<S>());
        let addend = Exact::of_normal(fmt, c).normalized_to(align_bit::<S>());
        return aligned_finite_sum(fmt, product, addend, rnd, ftz);
    }
    let terms =
        (Term::<S>::of(fmt.unpack(a, ftz)), Term::<S>::of(fmt.unpack(b, ftz)), Term::<S>::of(fmt.unpack(c, ftz)));
    let (Some(x), Some(y), Some(z)) = terms else {
        return nan::propagate(fmt, &nan::in_order([a, b, c], nan::F64_NAN_ORDER_FMA));
    };
    let neg = fmt.is_neg(a) != fmt.is_neg(b);
    let product = match (x, y) {
        (Term::Inf(_), Term::Zero(_)) | (Term::Zero(_), Term::Inf(_)) => return nan::invalid(fmt),
        (Term::Inf(_), _) | (_, Term::Inf(_)) => Term::Inf(neg),
        (Term::Zero(_), _) | (_, Term::Zero(_)) => Term::Zero(neg),
        (Term::Finite(v), Term::Finite(w)) => Term::Finite(Exact { neg, exp: v.exp + w.exp, sig: v.sig * w.sig }),
    };
    add_terms(fmt, product, z, rnd, ftz)
}
