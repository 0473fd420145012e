//! Kernels for `abs`, `neg` (PTX 9.7.3.9–10, 9.7.4.5–6) and `copysign` (9.7.3.2) on every
//! format, a packed word's elements one by one: [`crate::ops::sign`] in integer lanes of the
//! format's width. `abs` and `neg` are lowered to an add of −0, so a NaN becomes the canonical
//! NaN (f64 returns the NaN quieted, its sign unchanged) and `.ftz` flushes a
//! subnormal; `copysign` is a bit operation.

use crate::kernels::simd::{Simd, Unsigned};

use super::lanes::{flush_subnormal, is_nan, map};
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Opcode};

/// The kernel for an `abs`, `neg` or `copysign`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let sign_op = matches!(instr.opcode(), Opcode::Abs | Opcode::Neg | Opcode::Copysign);
    sign_op.then(|| by_width!(instr.format(), sign::<L>))
}

/// The instruction on buffers of words `T`, `N` to a vector.
fn sign<L: Isa, T, const N: usize>(instr: &Instr, srcs: &[&[T]], dst: &mut [T])
where
    T: Copy + Default,
    Simd<T, N>: Unsigned,
{
    let fmt = instr.format();
    let ftz = instr.modifiers().ftz;
    match instr.opcode() {
        Opcode::Copysign => map::<L, T, N, 2>(
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| {
                let sign = Simd::splat_bits(fmt.sign_bit());
                ((Simd::new(a) & sign) | (Simd::new(b) & !sign)).to_array()
            },
        ),
        Opcode::Abs => map::<L, T, N, 1>(
            srcs,
            dst,
            #[inline(always)]
            |[a]| set_sign(fmt, Simd::new(a), Simd::splat_bits(0), ftz).to_array(),
        ),
        _ => map::<L, T, N, 1>(
            srcs,
            dst,
            #[inline(always)]
            |[a]| negated(fmt, Simd::new(a), ftz).to_array(),
        ),
    }
}

/// `a` with its sign bit flipped, through [`set_sign`].
#[inline(always)]
fn negated<B: Unsigned>(fmt: Format, a: B, ftz: bool) -> B {
    let sign_bit = B::splat_bits(fmt.sign_bit());
    set_sign(fmt, a, (a & sign_bit) ^ sign_bit, ftz)
}

/// `a`'s magnitude with the sign bits `sign`, as [`crate::ops::sign`]'s `set_sign`.
#[inline(always)]
fn set_sign<B: Unsigned>(fmt: Format, a: B, sign: B, ftz: bool) -> B {
    let sign_bit = B::splat_bits(fmt.sign_bit());
    let x = if ftz { flush_subnormal(fmt, a) } else { a };
    let r = (x & !sign_bit) | sign;
    let nan_result =
        if fmt == Format::F64 { a | B::splat_bits(fmt.quiet_bit()) } else { B::splat_bits(fmt.canonical_nan()) };
    is_nan(fmt, a).select(nan_result, r)
}
