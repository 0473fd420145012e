//! SIMD batch kernels written with `wide`, one file per family, and the dispatch that picks
//! one for an instruction. A kernel evaluates a chunk of buffers and must be bit-identical to
//! the scalar definition of every instruction it accepts (tests/batch_equivalence.rs).
//! Instructions without a kernel are evaluated by their scalar definition in parallel.

use crate::batch::Word;
use crate::ptx::{Instr, Target};

/// A kernel over one chunk: `dst[i] = instr(srcs[0][i], …)`.
#[derive(Clone, Copy)]
pub(crate) enum Kernel {
    /// 32-bit operand and result words (f32, f16x2, bf16x2).
    W32(fn(&Instr, &[&[u32]], &mut [u32])),
}

impl Kernel {
    /// Run on buffers whose word widths [`Instr::check_batch`] has verified.
    pub(crate) fn run<S: Word, D: Word>(self, instr: &Instr, srcs: &[&[S]], dst: &mut [D]) {
        match self {
            Kernel::W32(f) => {
                let mut words: [&[u32]; 3] = [&[]; 3];
                for (w, s) in words.iter_mut().zip(srcs) {
                    *w = bytemuck::cast_slice(s);
                }
                f(instr, &words[..srcs.len()], bytemuck::cast_slice_mut(dst));
            }
        }
    }
}

/// The kernel for `instr` on `target`, if there is one.
pub(crate) fn select(_instr: &Instr, _target: Target) -> Option<Kernel> {
    None
}
