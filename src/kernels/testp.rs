//! Kernels for `testp` (PTX 9.7.3.1) on f32 and f64: [`crate::ops::testp`] on the exponent and
//! fraction fields in integer lanes, the predicate written as 1 or 0 (zeros count as normal).

use crate::kernels::simd::{Simd, Unsigned};

use super::lanes::map;
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::ops::testp::Property;
use crate::ptx::{Instr, Opcode};

/// The kernel for a `testp`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    let Opcode::Testp(_) = instr.opcode() else { return None };
    match instr.format() {
        Format::F32 => Some(Kernel::W32(testp::<L, u32, 16>)),
        Format::F64 => Some(Kernel::W64(testp::<L, u64, 8>)),
        Format::F16 | Format::BF16 => None,
    }
}

/// The property on a buffer of words `T`, `N` to a vector.
fn testp<L: Isa, T, const N: usize>(instr: &Instr, srcs: &[&[T]], dst: &mut [T])
where
    T: Copy + Default,
    Simd<T, N>: Unsigned,
{
    let Opcode::Testp(property) = instr.opcode() else { unreachable!("a testp kernel") };
    let fmt = instr.format();
    map::<L, T, N, 1>(
        srcs,
        dst,
        #[inline(always)]
        |[a]| {
            let a = Simd::new(a);
            let zero = Simd::splat_bits(0);
            let exp_mask = Simd::splat_bits(fmt.exp_mask());
            let exponent = a & exp_mask;
            let fraction_zero = (a & Simd::splat_bits(fmt.frac_mask())).simd_eq(zero);
            let top = exponent.simd_eq(exp_mask);
            let bottom = exponent.simd_eq(zero);
            let holds = match property {
                Property::Finite => !top,
                Property::Infinite => top & fraction_zero,
                Property::Number => !top | fraction_zero,
                Property::NotANumber => top & !fraction_zero,
                Property::Normal => !(top | bottom) | (bottom & fraction_zero),
                Property::Subnormal => bottom & !fraction_zero,
            };
            (holds & Simd::splat_bits(1)).to_array()
        },
    );
}
