//! Kernels for the mixed-precision arithmetic of §9.7.5 ([`crate::ops::mixed`]): the f16 or
//! bf16 operands of a block widened exactly sixteen at a time (convert.rs's
//! [`half_to_f32`]), then the kernel of the f32 instruction the definition composes with
//! (arith_f32.rs) on the widened block. A widened NaN's payload does not matter: the f32
//! kernels write every NaN result as the scalar definition does.

use super::convert::half_to_f32;
use super::lanes::map_to;
use super::level::Isa;
use super::Kernel;
use crate::format::Format;
use crate::kernels::simd::u16x16;
use crate::ptx::{Instr, Opcode, Target, Type};

/// Elements widened per block: two blocks of f32 words stay in the first-level cache.
const BLOCK: usize = 1024;

/// The kernel of a mixed-precision instruction: its f32 form's, on widened operands.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    instr.mixed_source()?;
    match super::select_for::<L>(&instr.f32_form(), Target::DEFAULT)? {
        Kernel::W32(_) => Some(Kernel::W32(mixed::<L>)),
        _ => None,
    }
}

/// `a` (and `b` of `fma`) widened block by block, then the f32 kernel.
fn mixed<L: Isa>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    let f32_form = instr.f32_form();
    let Some(Kernel::W32(f32_kernel)) = super::select_for::<L>(&f32_form, Target::DEFAULT) else {
        unreachable!("select gives this kernel only where the f32 form has one")
    };
    let from = instr.mixed_source().and_then(Type::float).expect("a mixed-precision instruction has a float source");
    let converted = if instr.opcode() == Opcode::Fma { 2 } else { 1 };
    let mut wide = [[0u32; BLOCK]; 2];
    for start in (0..dst.len()).step_by(BLOCK) {
        let n = BLOCK.min(dst.len() - start);
        for (k, w) in wide.iter_mut().enumerate().take(converted) {
            widen::<L>(from, &srcs[k][start..start + n], &mut w[..n]);
        }
        let mut block: [&[u32]; 3] = [&[]; 3];
        for (k, b) in block.iter_mut().enumerate().take(srcs.len()) {
            *b = if k < converted { &wide[k][..n] } else { &srcs[k][start..start + n] };
        }
        f32_kernel(&f32_form, &block[..srcs.len()], &mut dst[start..start + n]);
    }
}

/// f16 or bf16 encodings in the low halves of 32-bit words, widened to f32 encodings.
#[inline(always)]
fn widen<L: Isa>(from: Format, src: &[u32], dst: &mut [u32]) {
    map_to::<L, u32, u32, 16, 1>(
        &[src],
        dst,
        #[inline(always)]
        |[w]| half_to_f32::<L>(from, u16x16::new(w.map(|x| x as u16))).to_array(),
    );
}
