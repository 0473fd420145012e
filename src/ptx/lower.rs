//! The approximate instructions exactly as ptxas lowers them: a MUFU operation plus the
//! FMUL/FADD/DFMA scaling sequence around it (docs/semantics.md §1.1–§1.4, \[PTXAS\]), evaluated with
//! the exact scalar definitions and the MUFU model of [`crate::mufu`].
//!
//! All FMULs and FADDs are round-to-nearest and not flush-to-zero unless the sequence says
//! otherwise. `FSETP` comparisons are ordered: a NaN makes them false, so `!(x >= c)` is true
//! for NaN and NaN inputs never take a scaling branch's "in range" side.

use super::instr::{MufuFn, Opcode, RroMode};
use super::target::Target;
use crate::format::Format;
use crate::mufu;
use crate::ops::{add::add, fma::fma, mul::mul};
use crate::round::{saturate, Rounding};

const ONE: u32 = 0x3F80_0000;
const HALF: u32 = 0x3F00_0000;
const QUARTER: u32 = 0x3E80_0000;
const FLT_MIN: u32 = 0x0080_0000;
const TWO_24: u32 = 0x4B80_0000;
const TWO_126: u32 = 0x7E80_0000;
const TWO_M12: u32 = 0x3980_0000;
const FOUR_096: u32 = 0x4580_0000;
const MINUS_24: u32 = 0xC1C0_0000;
const MINUS_126: u32 = 0xC2FC_0000;
/// RN(1/2π): the constant of the FMUL.RZ before MUFU.SIN/COS on sm_70+.
const INV_2PI: u32 = 0x3E22_F983;

/// `FMUL` (RN, no FTZ).
fn fmul(a: u32, b: u32) -> u32 {
    mul(Format::F32, a as u64, b as u64, Rounding::Rn, false) as u32
}

/// `FMUL.FTZ` (RN).
fn fmul_ftz(a: u32, b: u32) -> u32 {
    mul(Format::F32, a as u64, b as u64, Rounding::Rn, true) as u32
}

/// `FMUL.RZ` (no FTZ).
fn fmul_rz(a: u32, b: u32) -> u32 {
    mul(Format::F32, a as u64, b as u64, Rounding::Rz, false) as u32
}

/// `FADD` (RN, no FTZ).
fn fadd(a: u32, b: u32) -> u32 {
    add(Format::F32, a as u64, b as u64, Rounding::Rn, false) as u32
}

/// A key whose unsigned order is the numeric order of non-NaN f32 values.
fn order_key(x: u32) -> u32 {
    if x >> 31 == 1 {
        !x
    } else {
        x | 0x8000_0000
    }
}

fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

/// `FSETP.GE x, c` (ordered: false for NaN).
fn ge(x: u32, c: u32) -> bool {
    !is_nan(x) && order_key(x) >= order_key(c)
}

/// `FSETP.GT |x|, c` (ordered).
fn abs_gt(x: u32, c: u32) -> bool {
    ge(x & 0x7FFF_FFFF, c) && x & 0x7FFF_FFFF != c
}

/// `p = !(|x| >= FLT_MIN)`: true for zeros, subnormals and NaN.
fn below_flt_min(x: u32) -> bool {
    !ge(x & 0x7FFF_FFFF, FLT_MIN)
}

/// The f32 approximate instructions (§1.1, §1.2) of the operand `a`, or of the dividend `a`
/// and divisor `b` of `div`.
#[inline(always)]
pub(crate) fn f32_approx(op: Opcode, full: bool, ftz: bool, a: u32, b: u32, target: Target) -> u32 {
    let x = [a, b];
    match op {
        Opcode::Rcp if ftz => mufu::rcp::rcp(x[0]),
        Opcode::Rcp => {
            let a = x[0];
            let s = if below_flt_min(a) && !is_nan(a) { TWO_24 } else { ONE };
            let s = if abs_gt(a, TWO_126) { QUARTER } else { s };
            fmul(s, mufu::rcp::rcp(fmul(a, s)))
        }
        Opcode::Rsqrt if ftz => mufu::rsq::rsq(x[0]),
        Opcode::Rsqrt => scaled(x[0], TWO_24, mufu::rsq::rsq, |r| fmul(r, FOUR_096)),
        Opcode::Sqrt if ftz => mufu_sqrt(x[0], target),
        Opcode::Sqrt => scaled(x[0], TWO_24, |v| mufu_sqrt(v, target), |r| fmul(r, TWO_M12)),
        Opcode::Lg2 if ftz => mufu::lg2::lg2(x[0]),
        Opcode::Lg2 => scaled(x[0], TWO_24, mufu::lg2::lg2, |r| fadd(r, MINUS_24)),
        Opcode::Ex2 if ftz => mufu_ex2_of_float(x[0], target),
        Opcode::Ex2 => {
            // p = !(x >= -126): halve the argument, square the result (§1.1).
            if ge(x[0], MINUS_126) {
                mufu_ex2_of_float(x[0], target)
            } else {
                let r = mufu_ex2_of_float(fmul(x[0], HALF), target);
                fmul(r, r)
            }
        }
        Opcode::Sin | Opcode::Cos => {
            let sin = op == Opcode::Sin;
            if target.has_rro() {
                let w = mufu::rro::rro_sincos(x[0]);
                if sin {
                    mufu::sincos::sin_fixed(w)
                } else {
                    mufu::sincos::cos_fixed(w)
                }
            } else {
                let t = fmul_rz(x[0], INV_2PI);
                if sin {
                    mufu::sincos::sin(t)
                } else {
                    mufu::sincos::cos(t)
                }
            }
        }
        Opcode::Tanh => mufu::tanh::tanh(x[0]),
        Opcode::Div => div(x[0], x[1], full, ftz),
        other => unreachable!("{other:?} has no f32 approximate form"),
    }
}

/// The non-ftz scaling sequence of rsqrt/sqrt/lg2: inputs below FLT_MIN (and NaN) are
/// multiplied by `scale` before MUFU and the result is corrected by `fix`.
fn scaled(x: u32, scale: u32, unit: impl Fn(u32) -> u32, fix: impl Fn(u32) -> u32) -> u32 {
    if below_flt_min(x) {
        fix(unit(fmul(x, scale)))
    } else {
        unit(x)
    }
}

/// MUFU.SQRT, or RCP(RSQ(x)) on sm_50, which lacks it (§1.1).
fn mufu_sqrt(x: u32, target: Target) -> u32 {
    if target.has_mufu_sqrt() {
        mufu::sqrt::sqrt(x)
    } else {
        mufu::rcp::rcp(mufu::rsq::rsq(x))
    }
}

/// `ex2.approx.ftz.f32`: RRO.EX2 then MUFU.EX2 on sm_5x/6x, MUFU.EX2 of the float on sm_70+.
pub(crate) fn mufu_ex2_of_float(x: u32, target: Target) -> u32 {
    if target.has_rro() {
        mufu::ex2::ex2_fixed(mufu::rro::rro_ex2(x))
    } else {
        mufu::ex2::ex2(x)
    }
}

/// `div.approx` and `div.full`, with and without `.ftz` (§1.1).
fn div(a: u32, b: u32, full: bool, ftz: bool) -> u32 {
    let rcp = mufu::rcp::rcp;
    match (full, ftz) {
        (false, true) => fmul_ftz(a, rcp(b)),
        (false, false) => {
            let (a, b) = if below_flt_min(b) { (fmul(a, TWO_24), fmul(b, TWO_24)) } else { (a, b) };
            fmul(rcp(b), a)
        }
        (true, true) => {
            let (a, b) = if abs_gt(b, TWO_126) { (fmul_ftz(a, QUARTER), fmul_ftz(b, QUARTER)) } else { (a, b) };
            fmul_ftz(rcp(b), a)
        }
        (true, false) => {
            let (huge, tiny) = (abs_gt(b, TWO_126), below_flt_min(b));
            let (a, b) = if huge { (fmul(a, QUARTER), fmul(b, QUARTER)) } else { (a, b) };
            let (a, b) = if tiny { (fmul(a, TWO_24), fmul(b, TWO_24)) } else { (a, b) };
            fmul(rcp(b), a)
        }
    }
}

/// The f64 approximate instructions (§1.3).
pub(crate) fn f64_approx(op: Opcode, ftz: bool, x: u64) -> u64 {
    let hi = (x >> 32) as u32;
    match (op, ftz) {
        (Opcode::Rcp, true) => (mufu::rcp64h::rcp64h(hi) as u64) << 32,
        (Opcode::Rsqrt, true) => (mufu::rsq64h::rsq64h(hi) as u64) << 32,
        (Opcode::Rsqrt, false) => rsqrt_f64(x),
        (other, _) => unreachable!("{other:?} has no f64 approximate form"),
    }
}

/// `rsqrt.approx.f64`: RSQ64H seed and one DFMA refinement; the slow path
/// (`__cuda_sm20_drsqrt_f64_slowpath_v2`) handles everything outside the positive normals.
fn rsqrt_f64(x: u64) -> u64 {
    const F64: Format = Format::F64;
    let hi = (x >> 32) as u32;
    if hi.wrapping_sub(0x0010_0000) < 0x7FE0_0000 {
        return rsqrt_f64_refine(x);
    }
    match F64.classify(x) {
        crate::format::Class::Zero => F64.inf(F64.is_neg(x)),
        crate::format::Class::Nan => add(F64, x, x, Rounding::Rn, false),
        _ if F64.is_neg(x) => 0xFFF8_0000_0000_0000,
        crate::format::Class::Inf => 0,
        _ => {
            // Positive subnormal: scale by 2^54, refine, scale the root back by 2^27.
            let scaled = mul(F64, x, 0x4350_0000_0000_0000, Rounding::Rn, false);
            mul(F64, rsqrt_f64_refine(scaled), 0x41A0_0000_0000_0000, Rounding::Rn, false)
        }
    }
}

/// `y0 = {RSQ64H(x.hi), 0}; e = DFMA(x, -DMUL(y0,y0), 1); p = DFMA(e, 0.375, 0.5);
/// y = DFMA(p, DMUL(y0, e), y0)`.
fn rsqrt_f64_refine(x: u64) -> u64 {
    const F64: Format = Format::F64;
    let rn = Rounding::Rn;
    let y0 = (mufu::rsq64h::rsq64h((x >> 32) as u32) as u64) << 32;
    let y0_sq = mul(F64, y0, y0, rn, false) ^ F64.sign_bit();
    let e = fma(F64, x, y0_sq, F64.one(), rn, false);
    let p = fma(F64, e, 0x3FD8_0000_0000_0000, 0x3FE0_0000_0000_0000, rn, false);
    let y0e = mul(F64, y0, e, rn, false);
    fma(F64, p, y0e, y0, rn, false)
}

/// The f16/bf16 approximate instructions, one element (§1.4).
pub(crate) fn half_approx(op: Opcode, fmt: Format, x: u16) -> u16 {
    match (op, fmt) {
        (Opcode::Ex2, Format::F16) => mufu::ex2_half::ex2_f16(x),
        (Opcode::Ex2, Format::BF16) => mufu::ex2_half::ex2_bf16(x),
        (Opcode::Tanh, Format::F16) => mufu::tanh::tanh_f16(x),
        (Opcode::Tanh, Format::BF16) => mufu::tanh::tanh_bf16(x),
        (other, _) => unreachable!("{other:?} has no {fmt:?} approximate form"),
    }
}

/// A SASS MUFU operation on its 32-bit source word (or the 16-bit value of the `.F16`/`.BF16`
/// forms), then `.SAT`. On sm_5x/6x MUFU.SIN/COS/EX2 take the fixed-point word RRO produced
/// (§3); on sm_70+ they take the float. `.SAT` is ignored for RCP64H and RSQ64H \[DOC opMUFU\].
pub(crate) fn mufu_op(func: MufuFn, fmt: Format, sat: bool, x: u64, target: Target) -> u64 {
    let w = x as u32;
    let r = match (func, fmt) {
        (MufuFn::Ex2 | MufuFn::Tanh, Format::F16 | Format::BF16) => {
            half_approx(if func == MufuFn::Ex2 { Opcode::Ex2 } else { Opcode::Tanh }, fmt, x as u16) as u64
        }
        (MufuFn::Rcp, _) => mufu::rcp::rcp(w) as u64,
        (MufuFn::Rsq, _) => mufu::rsq::rsq(w) as u64,
        (MufuFn::Lg2, _) => mufu::lg2::lg2(w) as u64,
        (MufuFn::Sqrt, _) => mufu::sqrt::sqrt(w) as u64,
        (MufuFn::Tanh, _) => mufu::tanh::tanh(w) as u64,
        (MufuFn::Ex2, _) if target.has_rro() => mufu::ex2::ex2_fixed(w) as u64,
        (MufuFn::Ex2, _) => mufu::ex2::ex2(w) as u64,
        (MufuFn::Sin, _) if target.has_rro() => mufu::sincos::sin_fixed(w) as u64,
        (MufuFn::Sin, _) => mufu::sincos::sin(w) as u64,
        (MufuFn::Cos, _) if target.has_rro() => mufu::sincos::cos_fixed(w) as u64,
        (MufuFn::Cos, _) => mufu::sincos::cos(w) as u64,
        (MufuFn::Rcp64h, _) => return mufu::rcp64h::rcp64h(w) as u64,
        (MufuFn::Rsq64h, _) => return mufu::rsq64h::rsq64h(w) as u64,
    };
    if sat {
        saturate(fmt, r)
    } else {
        r
    }
}

/// RRO.SINCOS / RRO.EX2 (sm_5x/6x).
pub(crate) fn rro(mode: RroMode, x: u32) -> u32 {
    match mode {
        RroMode::Sincos => mufu::rro::rro_sincos(x),
        RroMode::Ex2 => mufu::rro::rro_ex2(x),
    }
}
