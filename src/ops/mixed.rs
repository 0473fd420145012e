//! The mixed-precision arithmetic of PTX ISA §9.7.5 (PTX 8.6, sm_100 and later;
//! docs/semantics.md §8.8): `add{.rnd}{.sat}.f32.{f16,bf16} d, a, c`,
//! `sub{.rnd}{.sat}.f32.{f16,bf16} d, a, c` and `fma.rnd{.sat}.f32.{f16,bf16} d, a, b, c`.
//!
//! \[DOC PTX 9.7.5.1\] "Converts input operand a from .atype into .f32 type" and computes
//! `d = convert(a) + c` (`convert(a) − c` for `sub`); \[DOC PTX 9.7.5.3\] `fma` computes
//! `convert(a)·convert(b) + c` "in infinite precision", rounded once by `.rnd`. Subnormals are
//! kept (there is no `.ftz`), and every f16 and bf16 value is an f32 value, so the conversion
//! is exact and each instruction is exactly the f32 instruction of the same modifiers on the
//! widened operands: `add.rn.sat.f32.f16(a, c)` = `add.rn.sat.f32(cvt.f32.f16(a), c)`. The
//! instruction's own definition is that composition ([`crate::Instr`] evaluates it so).
//!
//! NaN results: the f32 operation writes the canonical NaN 0x7FFFFFFF for every NaN operand
//! (docs/semantics.md §4), so the NaN `a` widens to does not show; `.sat` makes a NaN +0.
//! \[INF\]: no capture of an sm_100 GPU has these forms; PTX calls f32 NaN payloads
//! unspecified.

use crate::format::Format;
use crate::ops::cvt;
use crate::round::Rounding;

/// The f32 encoding of an f16 or bf16 operand: `cvt.f32.f16` / `cvt.f32.bf16`, exact, without
/// `.ftz`.
#[inline(always)]
pub fn widen(from: Format, bits: u64) -> u64 {
    cvt::cvt(from, Format::F32, bits, Rounding::Rn, false)
}
