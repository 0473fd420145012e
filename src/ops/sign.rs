//! `abs`, `neg` (PTX 9.7.3.9–10, 9.7.4.5–6) and `copysign` (9.7.3.2): sign operations with
//! the NaN behaviour of the instructions ptxas lowers them to (docs/semantics.md §4).

use crate::format::Format;
use crate::nan;

/// `|a|`. f32/f16/bf16 are lowered to an add of −0 (`FADD |x|, -RZ`, `HADD2`), so a NaN
/// becomes the canonical NaN \[PTXAS lowering, INF result\] and `.ftz` flushes a subnormal.
/// f64 (`DADD -RZ, |x|`) returns a NaN quieted, payload and sign unchanged \[HW: H200 capture,
/// data/hardware/h200-sm90/; PTX: abs.f64 passes NaN "through unchanged"\].
pub fn abs(fmt: Format, a: u64, ftz: bool) -> u64 {
    set_sign(fmt, a, false, ftz)
}

/// `−a`, with the same NaN and `.ftz` rules as [`abs`].
pub fn neg(fmt: Format, a: u64, ftz: bool) -> u64 {
    let negative = !fmt.is_neg(a);
    set_sign(fmt, a, negative, ftz)
}

fn set_sign(fmt: Format, a: u64, negative: bool, ftz: bool) -> u64 {
    let sign = if negative { fmt.sign_bit() } else { 0 };
    if fmt.is_nan(a) {
        return match fmt {
            Format::F64 => nan::quiet(fmt, a),
            _ => fmt.canonical_nan(),
        };
    }
    let a = if ftz { fmt.flush_subnormal(a) } else { a };
    fmt.abs(a) | sign
}

/// `copysign a, b`: the sign bit of `a` on the value of `b` \[DOC\]. A bit operation (`LOP3`),
/// so NaN payloads pass through untouched \[PTXAS\].
pub fn copysign(fmt: Format, a: u64, b: u64) -> u64 {
    (a & fmt.sign_bit()) | fmt.abs(b)
}
