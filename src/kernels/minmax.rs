//! Kernels for `min` and `max` on f32 (PTX 9.7.3.11–12): two or three operands, with `.ftz`,
//! `.NaN`, `.abs` and `.xorsign.abs` — `ops::minmax` in sixteen integer lanes (SEMANTICS §4).
//!
//! Each operand is prepared (`.ftz` makes a subnormal a zero of its sign, `.abs` clears the
//! sign), then the operands are folded left by the two-operand selection: one NaN gives the
//! other operand (the canonical NaN with `.NaN`), two give the canonical NaN, and otherwise
//! the order of [`order_key`] decides, in which −0 < +0. `.xorsign` then gives a non-NaN
//! result the XOR of the two operands' signs.

use crate::kernels::simd::{f32x16, u32x16};

use super::lanes::{each, flush_f32, map, nan_f32, Lanes};
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Modifiers, Opcode, Type};

const F32: Format = Format::F32;

/// Elements per group: one vector.
const N: usize = 16;

/// The kernel for an f32 `min` or `max`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    match (instr.ty(), instr.opcode()) {
        (Type::F32, Opcode::Min) => Some(Kernel::W32(minmax::<L, true>)),
        (Type::F32, Opcode::Max) => Some(Kernel::W32(minmax::<L, false>)),
        _ => None,
    }
}

/// `min` (`MIN`) or `max` of two or three operand buffers.
fn minmax<L: Isa, const MIN: bool>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    let m = instr.modifiers();
    if srcs.len() == 2 {
        map::<L, u32, N, 2>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| {
                let (a, b) = (u32x16::new(a), u32x16::new(b));
                let r = pick::<MIN>(prepare(a, m), prepare(b, m), m.nan);
                if m.xorsign {
                    let sign = splat(F32.sign_bit());
                    let nan = nan_f32(r);
                    return <f32x16 as Lanes>::select(nan, r, (r & !sign) | ((a ^ b) & sign)).to_array();
                }
                r.to_array()
            },
        );
    } else {
        map::<L, u32, N, 3>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| {
                let [a, b, c] = each([a, b, c], |x| prepare(u32x16::new(x), m));
                pick::<MIN>(pick::<MIN>(a, b, m.nan), c, m.nan).to_array()
            },
        );
    }
}

#[inline(always)]
fn splat(bits: u64) -> u32x16 {
    u32x16::splat(bits as u32)
}

/// `.ftz` and `.abs` on an operand.
#[inline(always)]
fn prepare(x: u32x16, m: Modifiers) -> u32x16 {
    let sign = splat(F32.sign_bit());
    let mut x = if m.ftz { flush_f32(x) } else { x };
    if m.abs {
        x &= !sign;
    }
    x
}

/// A key whose unsigned order is the numeric order of non-NaN values, with −0 < +0.
#[inline(always)]
fn order_key(x: u32x16) -> u32x16 {
    let sign = splat(F32.sign_bit());
    let negative = (x & sign).simd_ne(u32x16::ZERO);
    <f32x16 as Lanes>::select(negative, !x, x | sign)
}

/// The two-operand selection of `min` (`MIN`) or `max` (module documentation).
#[inline(always)]
fn pick<const MIN: bool>(x: u32x16, y: u32x16, nan_mode: bool) -> u32x16 {
    let (x_nan, y_nan) = (nan_f32(x), nan_f32(y));
    let x_below = order_key(x).simd_lt(order_key(y));
    let x_first = if MIN { x_below } else { !x_below };
    let r = <f32x16 as Lanes>::select(x_first, x, y);
    let r = <f32x16 as Lanes>::select(x_nan, y, r);
    let r = <f32x16 as Lanes>::select(y_nan, x, r);
    let canonical = if nan_mode { x_nan | y_nan } else { x_nan & y_nan };
    <f32x16 as Lanes>::select(canonical, splat(F32.canonical_nan()), r)
}
