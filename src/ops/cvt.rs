//! `cvt` between f16, bf16, f32 and f64 (PTX 9.7.9.21 `cvt`, float-to-float forms): one
//! rounding in the requested direction, `.ftz` on the f32 side only, and NVIDIA's NaN
//! conversions (SEMANTICS §4).

use crate::format::{Format, Unpacked};
use crate::round::{round_pack_sig, Rounding};

/// Convert `a` from `from` to `to`, rounding with `rnd` where the value does not fit.
///
/// `.ftz` flushes subnormal inputs and results only where they are f32 [DOC PTX cvt: "applies
/// only to single precision (.f32) inputs and results"]; tininess is decided after rounding
/// with an unbounded exponent, as for arithmetic (SEMANTICS §5). Every significand (at most
/// 53 bits) is rounded in 64-bit arithmetic.
#[inline]
pub fn cvt(from: Format, to: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    let ftz_in = ftz && from == Format::F32;
    let ftz_out = ftz && to == Format::F32;
    match from.unpack(a, ftz_in) {
        Unpacked::Nan => convert_nan(from, to, a),
        Unpacked::Inf { neg } => to.inf(neg),
        Unpacked::Zero { neg } => to.zero(neg),
        Unpacked::Finite { neg, exp, sig } => round_pack_sig(to, neg, exp, sig, rnd, ftz_out),
    }
}

/// The NaN a conversion writes.
///
/// - to f16 or bf16: the canonical 0x7FFF \[PTXAS fold, SEMANTICS §4\];
/// - f16 to f32: the canonical 0x7FFFFFFF (`HADD2.F32`) \[PTXAS fold\]; f16 to f64 goes the
///   same way and widens that NaN \[INF\];
/// - f32 to f64, bf16 to f32/f64: sign and payload kept (left-aligned), quieted
///   \[PTXAS fold for f32; INF for bf16, whose widening is a bit shift\];
/// - f64 to f32: sign kept, payload truncated to its top bits, quieted \[PTXAS fold\].
fn convert_nan(from: Format, to: Format, a: u64) -> u64 {
    match (from, to) {
        (_, Format::F16 | Format::BF16) => to.canonical_nan(),
        (Format::F16, Format::F32) => Format::F32.canonical_nan(),
        (Format::F16, Format::F64) => realign_nan(Format::F32, to, Format::F32.canonical_nan()),
        _ => realign_nan(from, to, a),
    }
}

/// Move a NaN's sign and payload to another width, keeping the payload's top bits, and set the
/// quiet bit.
fn realign_nan(from: Format, to: Format, a: u64) -> u64 {
    let sign = if from.is_neg(a) { to.sign_bit() } else { 0 };
    let frac = a & from.frac_mask();
    let (fb, tb) = (from.frac_bits(), to.frac_bits());
    let payload = if tb >= fb { frac << (tb - fb) } else { frac >> (fb - tb) };
    sign | to.exp_mask() | to.quiet_bit() | payload
}
