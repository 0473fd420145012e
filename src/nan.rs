//! NVIDIA's NaN rules (SEMANTICS §4), in one place. Every arithmetic definition that meets a
//! NaN operand or performs an invalid operation asks this module for the result.

use crate::format::Format;

/// The result of an arithmetic operation some of whose `operands` are NaN.
///
/// f32, f16, bf16: the canonical NaN, no payload propagation \[DOC, SEMANTICS §4\].
/// f64: the first NaN operand in operand order, quieted, payload and sign kept. Payload
/// propagation is \[DOC\]; which operand wins when several are NaN is \[UNK\] and taken to be the
/// first, as x86 SSE does (opDMNMX says f64 NaN behaviour "matches Intel's SSE") \[INF\].
#[inline]
pub fn propagate(fmt: Format, operands: &[u64]) -> u64 {
    match fmt {
        Format::F64 => operands.iter().copied().find(|&x| fmt.is_nan(x)).map_or(fmt.canonical_nan(), |x| quiet(fmt, x)),
        _ => fmt.canonical_nan(),
    }
}

/// The NaN produced by an invalid operation (∞ − ∞, 0 · ∞, 0/0, ∞/∞, √negative):
/// the canonical NaN for f32/f16/bf16 \[DOC\], 0xFFF8000000000000 for f64 \[INF, SEMANTICS §4\].
#[inline]
pub const fn invalid(fmt: Format) -> u64 {
    fmt.canonical_nan()
}

/// Set the quiet bit of a NaN, keeping sign and payload.
#[inline]
pub const fn quiet(fmt: Format, nan: u64) -> u64 {
    (nan | fmt.quiet_bit()) & fmt.mask()
}
