//! `cvt` between f16, bf16, f32 and f64 (PTX 9.7.9.21 `cvt`, float-to-float forms): one
//! rounding in the requested direction, `.ftz` on the f32 side only, and NVIDIA's NaN
//! conversions (docs/semantics.md §4); and from a format to itself, as a move or rounded to an
//! integral value (`.rni .rzi .rmi .rpi`). `.sat` is applied after these by the caller.

use crate::format::{Format, Unpacked};
use crate::round::{round_pack_sig, shift_right_round, Rounding};

/// Convert `a` from `from` to `to`, rounding with `rnd` where the value does not fit.
///
/// `.ftz` flushes subnormal inputs and results only where they are f32 [DOC PTX cvt: "applies
/// only to single precision (.f32) inputs and results"]; tininess is decided after rounding
/// with an unbounded exponent, as for arithmetic (docs/semantics.md §5). Except: `cvt.{rn,rz,rm,rp}
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

/// `cvt{.ftz}.t.t` without a rounding modifier: the operand unchanged, NaN included
/// (`cvt.f32.f32(0x7F800001)` = 0x7F800001), except that `.ftz` flushes an f32 subnormal to
/// a zero of its sign and makes an f32 NaN canonical, and that f16 and bf16 NaNs become the
/// canonical 0x7FFF \[HW: H200, every f16/bf16 operand and f32/f64 special operands,
/// data/hardware/h200-sm90/cvt/\].
#[inline]
pub fn same_format(fmt: Format, a: u64, ftz: bool) -> u64 {
    match fmt {
        Format::F16 | Format::BF16 if fmt.is_nan(a) => fmt.canonical_nan(),
        Format::F32 if ftz && fmt.is_nan(a) => fmt.canonical_nan(),
        _ if ftz => fmt.flush_subnormal(a),
        _ => a,
    }
}

/// `cvt.{rni,rzi,rmi,rpi}{.ftz}.t.t`: `a` rounded to an integral value in the direction `rnd`
/// (`.rni` to nearest, ties to even), the sign kept (`cvt.rni.f32.f32(-0.5)` = −0,
/// `cvt.rmi.f32.f32(-min subnormal)` = −1). `.ftz` flushes an f32 subnormal operand to a zero of
/// its sign first. A NaN becomes the canonical NaN of f16, bf16 and f32, and an f64 NaN is
/// quieted with its sign and payload \[HW: H200, every f16/bf16 operand, f32 and f64 special
/// operands, f32 operands through fingerprints, data/hardware/h200-sm90/cvt/\].
#[inline]
pub fn round_to_integral(fmt: Format, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    match fmt.unpack(a, ftz) {
        Unpacked::Nan if fmt == Format::F64 => a | fmt.quiet_bit(),
        Unpacked::Nan => fmt.canonical_nan(),
        Unpacked::Finite { neg, exp, sig } if exp < 0 => match shift_right_round(sig, exp.unsigned_abs(), neg, rnd) {
            0 => fmt.zero(neg),
            n => round_pack_sig(fmt, neg, 0, n, rnd, false),
        },
        // Zeros keep their sign (a flushed subnormal included); Inf and values of at least
        // 2^(p-1) are integral already.
        Unpacked::Zero { neg } => fmt.zero(neg),
        _ => a,
    }
}
