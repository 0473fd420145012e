//! Buffers of the widths an instruction reads and writes, for `eval_batch_at` (the code under
//! test), from and to words held in u64.

use ptxfp::{Instr, SimdLevel, Target, Word};

/// Batch-evaluate at `level` with words of the right widths, starting `offset` words into the
/// buffers.
pub fn batch(instr: &Instr, target: Target, level: SimdLevel, srcs: &[Vec<u64>], offset: usize) -> Vec<u64> {
    fn typed<S: Word, D: Word>(
        instr: &Instr,
        target: Target,
        level: SimdLevel,
        srcs: &[Vec<u64>],
        offset: usize,
    ) -> Vec<u64> {
        let owned: Vec<Vec<S>> = srcs
            .iter()
            .map(|s| std::iter::repeat_n(S::from_u64(0), offset).chain(s.iter().map(|&x| S::from_u64(x))).collect())
            .collect();
        let refs: Vec<&[S]> = owned.iter().map(|s| &s[offset..]).collect();
        let len = srcs.first().map_or(0, Vec::len);
        let mut out = vec![D::from_u64(0); len + offset];
        instr.eval_batch_at(target, level, &refs, &mut out[offset..]).unwrap();
        out[offset..].iter().map(|d| d.to_u64()).collect()
    }
    match (instr.source_type(0).bits(), instr.result_bits()) {
        (16, 16) => typed::<u16, u16>(instr, target, level, srcs, offset),
        (32, 32) => typed::<u32, u32>(instr, target, level, srcs, offset),
        (64, 64) => typed::<u64, u64>(instr, target, level, srcs, offset),
        (32, 16) => typed::<u32, u16>(instr, target, level, srcs, offset),
        (16, 32) => typed::<u16, u32>(instr, target, level, srcs, offset),
        (32, 64) => typed::<u32, u64>(instr, target, level, srcs, offset),
        (64, 32) => typed::<u64, u32>(instr, target, level, srcs, offset),
        (16, 64) => typed::<u16, u64>(instr, target, level, srcs, offset),
        (64, 16) => typed::<u64, u16>(instr, target, level, srcs, offset),
        other => panic!("{instr}: unexpected widths {other:?}"),
    }
}
