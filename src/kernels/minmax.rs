//! Kernels for `min` and `max` (PTX 9.7.3.11–12, 9.7.4.7–8) on f32, f64, f16 and bf16 (a
//! packed word's elements one by one): two or three operands, with `.ftz`, `.NaN`, `.abs` and
//! `.xorsign.abs` — `ops::minmax` in integer lanes of the format's width (docs/semantics.md §4).
//!
//! Each operand is prepared (`.ftz` makes a subnormal a zero of its sign, `.abs` clears the
//! sign), then the operands are folded left by the two-operand selection: one NaN gives the
//! other operand (the canonical NaN with `.NaN`), two give [`crate::nan::propagate`]'s NaN (the
//! canonical NaN, or for f64 the first operand quieted), and otherwise the order of
//! [`order_key`] decides, in which −0 < +0. `.xorsign` then gives a non-NaN result the XOR of
//! the two operands' signs.

use crate::kernels::simd::{Simd, Unsigned};

use super::lanes::{each, flush_subnormal, is_nan, map};
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Modifiers, Opcode};

/// The kernel for a `min` or `max`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let min = match instr.opcode() {
        Opcode::Min => true,
        Opcode::Max => false,
        _ => return None,
    };
    Some(if min { by_width!(instr.format(), minmax::<L, true>) } else { by_width!(instr.format(), minmax::<L, false>) })
}

/// `min` (`MIN`) or `max` of two or three operand buffers of words `T`, `N` to a vector.
fn minmax<L: Isa, T, const N: usize, const MIN: bool>(instr: &Instr, srcs: &[&[T]], dst: &mut [T])
where
    T: Copy + Default,
    Simd<T, N>: Unsigned,
{
    let fmt = instr.format();
    let m = instr.modifiers();
    if srcs.len() == 2 {
        map::<L, T, N, 2>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| {
                let (a, b) = (Simd::new(a), Simd::new(b));
                let r = pick::<_, MIN>(fmt, prepare(fmt, a, m), prepare(fmt, b, m), m.nan);
                if m.xorsign {
                    let sign = Simd::splat_bits(fmt.sign_bit());
                    return is_nan(fmt, r).select(r, (r & !sign) | ((a ^ b) & sign)).to_array();
                }
                r.to_array()
            },
        );
    } else {
        map::<L, T, N, 3>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| {
                let [a, b, c] = each([a, b, c], |x| prepare(fmt, Simd::new(x), m));
                pick::<_, MIN>(fmt, pick::<_, MIN>(fmt, a, b, m.nan), c, m.nan).to_array()
            },
        );
    }
}

/// `.ftz` and `.abs` on an operand.
#[inline(always)]
fn prepare<B: Unsigned>(fmt: Format, x: B, m: Modifiers) -> B {
    let x = if m.ftz { flush_subnormal(fmt, x) } else { x };
    if m.abs {
        x & !B::splat_bits(fmt.sign_bit())
    } else {
        x
    }
}

/// A key whose unsigned order is the numeric order of non-NaN values, with −0 < +0.
#[inline(always)]
fn order_key<B: Unsigned>(fmt: Format, x: B) -> B {
    let sign = B::splat_bits(fmt.sign_bit());
    let negative = (x & sign).simd_ne(B::splat_bits(0));
    negative.select(!x, x | sign)
}

/// The two-operand selection of `min` (`MIN`) or `max` (module documentation).
#[inline(always)]
fn pick<B: Unsigned, const MIN: bool>(fmt: Format, x: B, y: B, nan_mode: bool) -> B {
    let (x_nan, y_nan) = (is_nan(fmt, x), is_nan(fmt, y));
    let x_below = order_key(fmt, x).simd_lt(order_key(fmt, y));
    let x_first = if MIN { x_below } else { !x_below };
    let r = x_first.select(x, y);
    let r = x_nan.select(y, r);
    let r = y_nan.select(x, r);
    let both = x_nan & y_nan;
    let one = if nan_mode { x_nan | y_nan } else { B::splat_bits(0) };
    // Two NaNs: crate::nan::propagate.
    let two = if fmt == Format::F64 { y | B::splat_bits(fmt.quiet_bit()) } else { B::splat_bits(fmt.canonical_nan()) };
    let r = both.select(two, r);
    (one & !both).select(B::splat_bits(fmt.canonical_nan()), r)
}
