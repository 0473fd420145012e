//! Kernels for the 16-bit MUFU forms: `ex2.approx.f16{x2}`, `ex2.approx.ftz.bf16{x2}`,
//! `tanh.approx.{f16,bf16}{x2}` and the SASS `MUFU.EX2/TANH.F16/.BF16`, sixteen elements at a
//! time (a packed word is two elements computed the same way), bit-identical to
//! [`crate::mufu::ex2_half`] and [`crate::mufu::tanh`] (tests/batch_equivalence_mufu.rs).
//!
//! These forms are the f32 unit \[measured on sm_90, docs/semantics.md §1.4\]: the operand widened
//! exactly to f32 (F16C or integer lanes for f16, a shift for bf16), the f32 lane datapath of
//! [`super::mufu_f32`], and its result truncated into the 16-bit format
//! ([`crate::mufu::narrow_truncated`]): cvt.rz's rounding, except that an f16 result of 2^16
//! or more is ±Inf, and a NaN the format's canonical NaN.
//!
//! With only 2^16 operands, the kernel runs these lanes once per function and level, on
//! every operand (about 0.1 ms, on first use), and batch evaluation reads the results back
//! from that table: three to four times the rate of running the lanes on each element.

use std::sync::OnceLock;

use super::convert::{half_to_f32, round_to_half};
use super::lanes::{each, map, Rz};
use super::level::Isa;
use super::mufu_f32::{ex2, tanh};
use super::mufu_lanes::{luts, U};
use super::simd::u16x16;
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, MufuFn, Opcode};

/// The kernel for a one-operand MUFU instruction on f16 or bf16 elements.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    macro_rules! k {
        ($f:ident, $fmt:expr, $unit:expr) => {
            Kernel::W16(|_, srcs, dst| {
                let table = tabulated::<L>($unit, |operands, results| {
                    let l = luts();
                    map::<L, u16, 16, 1>(
                        &[operands],
                        results,
                        #[inline(always)]
                        |[h]| narrow_truncated::<L>($fmt, $f::<L>(l, half_to_f32::<L>($fmt, u16x16::new(h)))),
                    )
                });
                for (d, &s) in dst.iter_mut().zip(srcs[0]) {
                    *d = table[usize::from(s)];
                }
            })
        };
    }
    let format = instr.format();
    if !matches!(format, Format::F16 | Format::BF16) || instr.modifiers().sat {
        return None;
    }
    let func = match instr.opcode() {
        Opcode::Ex2 | Opcode::Mufu(MufuFn::Ex2) => MufuFn::Ex2,
        Opcode::Tanh | Opcode::Mufu(MufuFn::Tanh) => MufuFn::Tanh,
        _ => return None,
    };
    Some(match (func, format) {
        (MufuFn::Ex2, Format::F16) => k!(ex2, Format::F16, 0),
        (MufuFn::Ex2, _) => k!(ex2, Format::BF16, 1),
        (_, Format::F16) => k!(tanh, Format::F16, 2),
        _ => k!(tanh, Format::BF16, 3),
    })
}

/// The results of unit `unit` (0..4) at the level `L` on every 16-bit operand, computed by
/// `compute` on first use.
fn tabulated<L: Isa>(unit: usize, compute: fn(&[u16], &mut [u16])) -> &'static [u16; 1 << 16] {
    static TABLES: [OnceLock<Box<[u16; 1 << 16]>>; 12] = [const { OnceLock::new() }; 12];
    TABLES[unit * 3 + L::LEVEL as usize].get_or_init(|| {
        let operands: Vec<u16> = (0..=u16::MAX).collect();
        let mut results = Box::new([0; 1 << 16]);
        compute(&operands, &mut results[..]);
        results
    })
}

/// [`crate::mufu::narrow_truncated`] in lanes: round toward zero into `fmt`, an f32 exponent
/// beyond `fmt`'s largest binade giving the infinity of the sign (only f16 has such results).
#[inline(always)]
fn narrow_truncated<L: Isa>(fmt: Format, r: U) -> [u16; 16] {
    let rounded = round_to_half::<L, Rz>(r, fmt);
    if fmt == Format::BF16 {
        return each(rounded.to_array(), |w| w as u16);
    }
    // Finite magnitudes from 2^(emax + 1) up, and ±Inf; NaNs keep round_to_half's canonical NaN.
    let magnitude = r & U::splat(0x7FFF_FFFF);
    let from = ((Format::F32.bias() + fmt.emax() + 1) as u32) << 23;
    let beyond = magnitude.simd_ge(U::splat(from)) & magnitude.simd_le(U::splat(0x7F80_0000));
    let inf = ((r >> 31u32) << 15u32) | U::splat(fmt.inf(false) as u32);
    each(beyond.select(inf, rounded).to_array(), |w| w as u16)
}
