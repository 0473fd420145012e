//! An instruction prepared for repeated evaluation on one target: checked against the target
//! once, with its batch kernel chosen once at the active SIMD level. This is what a simulator
//! holds per static instruction and calls per lane or per warp, on the calling thread.
//!
//! ```
//! use ptxfp::{Prepared, Target};
//! let fma = Prepared::new("fma.rn.f32".parse().unwrap(), Target::DEFAULT).unwrap();
//! assert_eq!(fma.eval(&[0x3F80_0000, 0x4000_0000, 0x3F80_0000]), Ok(0x4040_0000)); // 1·2 + 1
//! let (a, b, c) = ([1.0f32, 2.0], [2.0f32, 2.0], [1.0f32, 0.5]);
//! let mut d = [0u32; 2];
//! let words = |v: &[f32; 2]| v.map(f32::to_bits);
//! fma.eval_serial(&[&words(&a), &words(&b), &words(&c)], &mut d).unwrap();
//! assert_eq!(d, [3.0f32.to_bits(), 4.5f32.to_bits()]);
//! ```

use crate::batch::{BatchError, Word};
use crate::kernels::{self, Kernel};
use crate::ptx::{EvalError, Instr, Target};

/// An [`Instr`] bound to a [`Target`] that has it, with its batch kernel selected.
#[derive(Clone, Copy)]
pub struct Prepared {
    instr: Instr,
    target: Target,
    kernel: Option<Kernel>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Prepared({} on {})", self.instr, self.target)
    }
}

impl Prepared {
    /// Fails if `target` lacks the instruction ([`EvalError::Target`], naming the lowest
    /// architecture that has it).
    pub fn new(instr: Instr, target: Target) -> Result<Prepared, EvalError> {
        target.check(&instr)?;
        Ok(Prepared { instr, target, kernel: kernels::select(&instr, target) })
    }

    pub fn instr(&self) -> Instr {
        self.instr
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// One evaluation, as [`Instr::eval_on`] with the target checked once when it was
    /// prepared: the operand count (and whether the target has the instruction with that
    /// count) and the widths are checked, nothing is allocated unless they fail.
    #[inline]
    pub fn eval(&self, operands: &[u64]) -> Result<u64, EvalError> {
        self.instr.check_operands(operands)?;
        self.target.check_operand_count(&self.instr, operands.len())?;
        Ok(self.instr.eval_unchecked(self.target, operands))
    }

    /// [`Instr::eval_batch`] on the calling thread: no thread is started or used but this one.
    /// Checks the buffers as [`Instr::eval_batch`] does.
    pub fn eval_serial<S: Word, D: Word>(&self, sources: &[&[S]], out: &mut [D]) -> Result<(), BatchError> {
        self.instr.check_batch(self.target, sources, out.len(), S::BITS, D::BITS)?;
        self.instr.eval_block(self.target, self.kernel, sources, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::catalog;

    /// The serial batch gives what the scalar definition gives, element by element, for every
    /// spelling (through its kernel, table or scalar loop), on operands of every class.
    #[test]
    fn serial_batch_is_the_scalar_definition() {
        let mut rng = crate::sweep::domain::Rng::for_case(11, 0);
        for e in catalog::entries() {
            let target = if e.targets.contains(Target::DEFAULT) { Target::DEFAULT } else { e.lowest_target() };
            let p = Prepared::new(e.instr, target).unwrap();
            let (sb, db) = (e.instr.source_bits(), e.instr.result_bits());
            // Each operand within its type (a scale may be narrower than the widest source).
            let srcs: Vec<Vec<u64>> = (0..e.sources)
                .map(|k| (0..100).map(|_| rng.next() & e.instr.source_type(k).code_bits()).collect())
                .collect();
            let want: Vec<u64> = (0..100)
                .map(|i| {
                    let ops: Vec<u64> = srcs.iter().map(|s| s[i]).collect();
                    p.eval(&ops).unwrap()
                })
                .collect();
            struct Run<'a>(&'a Prepared, &'a [Vec<u64>]);
            impl crate::batch::WordsFn for Run<'_> {
                type Output = Vec<u64>;
                fn call<S: Word, D: Word>(self) -> Vec<u64> {
                    let Run(p, srcs) = self;
                    let typed: Vec<Vec<S>> = srcs.iter().map(|s| s.iter().map(|&w| S::from_u64(w)).collect()).collect();
                    let refs: Vec<&[S]> = typed.iter().map(Vec::as_slice).collect();
                    let mut out = vec![D::from_u64(0); 100];
                    p.eval_serial(&refs, &mut out).unwrap();
                    out.into_iter().map(Word::to_u64).collect()
                }
            }
            let got = crate::batch::with_words(sb, db, Run(&p, &srcs)).expect("an instruction's widths");
            assert_eq!(got, want, "{} on {target}", e.instr);
        }
    }

    #[test]
    fn a_target_without_the_instruction_is_refused() {
        let tanh: Instr = "tanh.approx.f32".parse().unwrap();
        let err = Prepared::new(tanh, Target::new(70).unwrap()).unwrap_err();
        assert!(err.to_string().contains("requires sm_75"), "{err}");
    }
}
