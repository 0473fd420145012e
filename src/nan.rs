//! NVIDIA's NaN rules (docs/semantics.md §4), in one place. Every arithmetic definition that meets a
//! NaN operand or performs an invalid operation asks this module for the result.

use crate::format::Format;

/// The result of an arithmetic operation some of whose `operands` are NaN.
///
/// f32, f16, bf16: the canonical NaN, no payload propagation \[DOC, docs/semantics.md §4\].
/// f64: the first NaN of `operands`, quieted, payload and sign kept \[DOC: payloads propagate\].
/// Callers list the operands in the order the hardware searches them, which is not operand
/// order: [`F64_NAN_ORDER`] and [`F64_NAN_ORDER_FMA`].
#[inline]
pub fn propagate(fmt: Format, operands: &[u64]) -> u64 {
    match fmt {
        Format::F64 => operands.iter().copied().find(|&x| fmt.is_nan(x)).map_or(fmt.canonical_nan(), |x| quiet(fmt, x)),
        _ => fmt.canonical_nan(),
    }
}

/// The order in which f64 `add`, `sub`, `mul`, `min` and `max` look for the NaN they return:
/// `b` before `a` (a NaN `b` of `sub` keeps its sign). \[HW: on an H200, sm_90, every pair of NaN
/// operands among 2^20 edge-biased inputs per spelling returned `b`, quieted; captured with
/// `ptxfp capture`, data/hardware/h200-sm90/\]. `div` (a software sequence) returns `a`.
pub const F64_NAN_ORDER: [usize; 2] = [1, 0];

/// The order of f64 `fma` and `mad`: `b`, then `c`, then `a` \[HW, as [`F64_NAN_ORDER`]\].
pub const F64_NAN_ORDER_FMA: [usize; 3] = [1, 2, 0];

/// `operands` in the order `order` lists them.
#[inline(always)]
pub fn in_order<const K: usize>(operands: [u64; K], order: [usize; K]) -> [u64; K] {
    order.map(|i| operands[i])
}

/// The magnitude of the "OOB NaN" that makes `fma.oob` return +0 when it is a multiplicand
/// (PTX 9.7.4.4 refers to the tensor section for its encoding, which the excerpts lack): 0x7FF7
/// in f16 and in bf16, with either sign \[HW: on an H200, sm_90, among 2^20 edge-biased inputs
/// per `fma.rn.oob{.relu}` spelling every `a` or `b` of ±0x7FF7 gave +0, while a `c` of ±0x7FF7
/// and every other NaN (0x7FFF included) gave a NaN; data/hardware/h200-sm90/\].
pub const OOB_NAN_MAGNITUDE: u16 = 0x7FF7;

/// Whether a 16-bit multiplicand is the OOB NaN ([`OOB_NAN_MAGNITUDE`], either sign).
#[inline(always)]
pub const fn is_oob_nan(x: u64) -> bool {
    x & 0x7FFF == OOB_NAN_MAGNITUDE as u64
}

/// The NaN produced by an invalid operation (∞ − ∞, 0 · ∞, 0/0, ∞/∞, √negative):
/// the canonical NaN for f32/f16/bf16 \[DOC\], 0xFFF8000000000000 for f64 \[INF, docs/semantics.md §4\].
#[inline]
pub const fn invalid(fmt: Format) -> u64 {
    fmt.canonical_nan()
}

/// Set the quiet bit of a NaN, keeping sign and payload.
#[inline]
pub const fn quiet(fmt: Format, nan: u64) -> u64 {
    (nan | fmt.quiet_bit()) & fmt.mask()
}
