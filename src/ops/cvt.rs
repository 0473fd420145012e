//! `cvt` between f16, bf16, f32 and f64 (PTX 9.7.9.21 `cvt`, float-to-float forms): one
//! rounding in the requested direction, `.ftz` on the f32 side only, and NVIDIA's NaN
//! conversions (SEMANTICS §4).

use crate::format::{Format, Unpacked};
use crate::round::{round_pack_sig, Rounding};

/// Convert `a` from `from` to `to`, rounding with `rnd` where the value does not fit.
///
/// `.ftz` flushes subnormal inputs and results only where they are f32 [DOC PTX cvt: "applies
/// only to single precision (.f32) inputs and results"]; tininess is decided after rounding
/// with an unbounded exponent, as for arithmetic (SEMANTICS §5). Except: `cvt.{rn,rz,rm,rp}
/// .ftz.f16.f32` converts a subnormal f32 input as it is \[HW: H200 capture,
/// data/hardware/h200-sm90/, `cvt.rm.ftz.f16.f32(0x80000001)` = 0x8001; the erratum ZLUDA's
/// conformance suite (vosen/ptx_tests, `float_to_float_input_ftz`) records for the float
/// roundings\]; to bf16 and f64 the input is flushed \[HW, same capture\]. Every significand
/// (at most 53 bits) is rounded in 64-bit arithmetic.
#[inline]
pub fn cvt(from: Format, to: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    let ftz_in = ftz && from == Format::F32 && to != Format::F16;
    let ftz_out = ftz && to == Format::F32;
    match from.unpack(a, ftz_in) {
        Unpacked::Nan => convert_nan(from, to, a, ftz),
        Unpacked::Inf { neg } => to.inf(neg),
        Unpacked::Zero { neg } => to.zero(neg),
        Unpacked::Finite { neg, exp, sig } => round_pack_sig(to, neg, exp, sig, rnd, ftz_out),
    }
}

/// The NaN a conversion writes (\[HW\]: every rule below held on an H200 for every NaN among
/// 2^20 edge-biased inputs per spelling, data/hardware/h200-sm90/):
///
/// - f64 to any narrower format: sign kept, payload truncated to its top bits, quieted
///   (`cvt.rn.f16.f64(0x7FF1000000000000)` = 0x7E40);
/// - f32, f16 or bf16 to f16 or bf16, and f16 to f32: the canonical NaN (0x7FFF, 0x7FFFFFFF);
/// - f16 or f32 to f64: sign and payload kept (left-aligned), quieted;
/// - bf16 to f32: the bits shifted, not quieted (`cvt.f32.bf16(0x7F81)` = 0x7F810000); bf16 to
///   f64: sign and payload kept, quieted;
/// - with `.ftz`, a NaN from or to f32 other than f64 to f32 becomes the f32 canonical NaN
///   (`cvt.ftz.f64.f32(0x7FC00000)` = 0x7FFFFFFFE0000000, `cvt.ftz.f32.bf16(0x7FC0)` =
///   0x7FFFFFFF).
fn convert_nan(from: Format, to: Format, a: u64, ftz: bool) -> u64 {
    match (from, to) {
        (Format::F64, _) => realign_nan(from, to, a),
        (_, Format::F16 | Format::BF16) | (Format::F16, Format::F32) => to.canonical_nan(),
        _ if ftz => realign_nan(Format::F32, to, Format::F32.canonical_nan()),
        (Format::BF16, Format::F32) => a << 16,
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
