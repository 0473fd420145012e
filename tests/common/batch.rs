//! Buffers of the widths an instruction reads and writes, for `eval_batch_at` (the code under
//! test), from and to words held in u64.

use ptxfp::{with_words, Instr, SimdLevel, Target, Word, WordsFn};

/// Batch-evaluate at `level` with words of the right widths, starting `offset` words into the
/// buffers.
pub fn batch(instr: &Instr, target: Target, level: SimdLevel, srcs: &[Vec<u64>], offset: usize) -> Vec<u64> {
    struct Typed<'a> {
        instr: &'a Instr,
        target: Target,
        level: SimdLevel,
        srcs: &'a [Vec<u64>],
        offset: usize,
    }
    impl WordsFn for Typed<'_> {
        type Output = Vec<u64>;
        fn call<S: Word, D: Word>(self) -> Vec<u64> {
            let Typed { instr, target, level, srcs, offset } = self;
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
    }
    let (sb, db) = (instr.source_type(0).bits(), instr.result_bits());
    with_words(sb, db, Typed { instr, target, level, srcs, offset })
        .unwrap_or_else(|| panic!("{instr}: unexpected widths {sb}, {db}"))
}
