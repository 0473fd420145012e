//! Buffers of the widths an instruction reads and writes, for `eval_batch_at` (the code under
//! test), from and to words held in u64; the comparison of the kernels with the scalar
//! definition.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ptxfp::ptx::catalog;
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
    let (sb, db) = (instr.source_bits(), instr.result_bits());
    with_words(sb, db, Typed { instr, target, level, srcs, offset })
        .unwrap_or_else(|| panic!("{instr}: unexpected widths {sb}, {db}"))
}

/// Mismatches of `instr`'s kernels at `levels` on `srcs` against the scalar definition
/// (`eval_unchecked`): their count and up to 10 reports.
pub fn compare(instr: &Instr, target: Target, levels: &[SimdLevel], srcs: &[Vec<u64>]) -> (u64, Vec<String>) {
    let got: Vec<Vec<u64>> = levels.iter().map(|&level| batch(instr, target, level, srcs, 0)).collect();
    let (mut failed, mut examples) = (0, Vec::new());
    let mut ops = [0u64; ptxfp::ptx::MAX_SOURCES];
    for i in 0..srcs[0].len() {
        for (op, src) in ops.iter_mut().zip(srcs) {
            *op = src[i];
        }
        let ops = &ops[..srcs.len()];
        let want = instr.eval_unchecked(target, ops);
        for (level, got) in levels.iter().zip(&got) {
            if got[i] != want {
                failed += 1;
                if examples.len() < 10 {
                    examples.push(format!("[{level}] {instr} {ops:#x?}: kernel {:#x} scalar {want:#x}", got[i]));
                }
            }
        }
    }
    (failed, examples)
}

/// Collects the mismatches of [`compare`] across parallel blocks and fails with the first
/// reports.
#[derive(Default)]
pub struct Tally {
    failed: AtomicU64,
    examples: Mutex<Vec<String>>,
}

impl Tally {
    pub fn add(&self, (failed, examples): (u64, Vec<String>)) {
        self.failed.fetch_add(failed, Ordering::Relaxed);
        let mut all = self.examples.lock().unwrap();
        let room = 10usize.saturating_sub(all.len());
        all.extend(examples.into_iter().take(room));
    }

    pub fn check(self, what: &str) {
        let failed = self.failed.into_inner();
        assert_eq!(failed, 0, "{what}: {failed} mismatches, e.g.\n{}", self.examples.into_inner().unwrap().join("\n"));
    }
}

/// The SIMD levels this processor runs.
pub fn levels() -> Vec<SimdLevel> {
    SimdLevel::ALL.into_iter().filter(|l| l.is_supported()).collect()
}

/// The catalog's spellings for which `keep` holds, each with the oldest known target that has
/// it.
pub fn spellings_on_their_targets(keep: impl Fn(&Instr) -> bool) -> Vec<(Instr, Target)> {
    catalog::entries().iter().filter(|e| keep(&e.instr)).map(|e| (e.instr, e.lowest_target())).collect()
}

/// Fails unless every spelling has a kernel at every level this processor runs.
pub fn assert_vectorized_at_every_level(all: &[(Instr, Target)]) {
    for level in levels() {
        for (instr, target) in all {
            assert!(instr.is_vectorized_at(*target, level), "{instr} has no SIMD kernel at {level}");
        }
    }
}

/// `instr`'s kernel at `level` on the 32-bit operands `xs` (the target sm_90), its words in
/// `got`, against the expected words `want`: the mismatch count and up to 10 reports, for
/// [`Tally::add`].
fn against<D: Word>(instr: &Instr, level: SimdLevel, xs: &[u32], got: &mut Vec<D>, want: &[D]) -> (u64, Vec<String>) {
    got.resize(xs.len(), D::from_u64(0));
    instr.eval_batch_at(Target::DEFAULT, level, &[xs], got).unwrap();
    if bytemuck::cast_slice::<D, u8>(got) == bytemuck::cast_slice::<D, u8>(want) {
        return (0, Vec::new());
    }
    let (mut failed, mut examples) = (0, Vec::new());
    for ((&x, g), w) in xs.iter().zip(got.iter()).zip(want) {
        let (g, w) = (g.to_u64(), w.to_u64());
        if g != w {
            failed += 1;
            if examples.len() < 10 {
                examples.push(format!("[{level}] {instr} {x:#010x}: kernel {g:#x}, reference {w:#x}"));
            }
        }
    }
    (failed, examples)
}

/// A worker's buffers of one word width for [`against`]: the kernel's words and the expected
/// ones.
#[derive(Default)]
pub struct Words<D> {
    got: Vec<D>,
    want: Vec<D>,
}

impl<D: Word> Words<D> {
    /// [`against`] with the expected words `want` (one per operand of `xs`).
    #[inline(always)]
    pub fn check(
        &mut self,
        instr: &Instr,
        level: SimdLevel,
        xs: &[u32],
        want: impl Iterator<Item = D>,
    ) -> (u64, Vec<String>) {
        super::fill(&mut self.want, xs.len(), want);
        against(instr, level, xs, &mut self.got, &self.want)
    }

    /// [`against`] with the expected words those that the previous check on these buffers
    /// read from its kernel (a spelling that must give the same words), `fix` changing some
    /// of them first: an exhaustive check that shares the previous one's reference.
    #[inline(always)]
    pub fn check_like_previous(
        &mut self,
        instr: &Instr,
        level: SimdLevel,
        xs: &[u32],
        fix: impl FnOnce(&mut [D]),
    ) -> (u64, Vec<String>) {
        std::mem::swap(&mut self.got, &mut self.want);
        fix(&mut self.want);
        against(instr, level, xs, &mut self.got, &self.want)
    }
}
