//! Batch evaluation: one instruction over buffers of operands, in parallel over chunks (rayon),
//! through a SIMD kernel where `crate::kernels` has one and through the scalar definition
//! otherwise. Every kernel is tested bit-identical to the scalar definition, so the result never
//! depends on the thread count, the SIMD width or the build flags.
//!
//! ```
//! use ptxfp::{Instr, Target};
//! let add: Instr = "add.rz.f32".parse().unwrap();
//! let a = [1.0f32, 2.0, 3.0];
//! let b = [1e-8f32, 1e-8, 1e-8];
//! let mut d = [0u32; 3];
//! let a: &[u32] = bytemuck::cast_slice(&a);
//! let b: &[u32] = bytemuck::cast_slice(&b);
//! add.eval_batch(Target::DEFAULT, &[a, b], &mut d).unwrap();
//! assert_eq!(f32::from_bits(d[0]), 1.0);
//! ```

use rayon::prelude::*;

use crate::kernels::{self, SimdLevel, SimdLevelError};
use crate::ptx::{alternatives, Instr, Target, TargetError, MAX_SOURCES};

/// A machine word holding one operand: `u8` (u8, s8), `u16` (f16, bf16, u16, s16), `u32` (f32,
/// f16x2, bf16x2, u32, s32) or `u64` (f64, f32x2, u64, s64). Typed buffers (`f32`, `f64`,
/// `half::f16`, `half::bf16`, `i32`, …) convert with `bytemuck::cast_slice`.
pub trait Word: bytemuck::Pod + Send + Sync + PartialEq {
    const BITS: u32;
    fn to_u64(self) -> u64;
    fn from_u64(bits: u64) -> Self;
    /// `self + t`, wrapping at the word's width.
    fn wrapping_offset(self, t: usize) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(bits: u64) -> Self {
                bits as $t
            }
            #[inline]
            fn wrapping_offset(self, t: usize) -> Self {
                self.wrapping_add(t as $t)
            }
        }
    };
}
word!(u8);
word!(u16);
word!(u32);
word!(u64);

/// Work generic over the word types of an instruction's sources (`S`) and result (`D`), run by
/// [`with_words`] for widths known only at run time.
pub trait WordsFn {
    type Output;
    fn call<S: Word, D: Word>(self) -> Self::Output;
}

/// `f` with the word types of `src_bits` and `dst_bits`: every pair of widths an instruction
/// has (8, 16, 32, 64; no instruction takes and writes 8-bit words). `None` for any other pair.
pub fn with_words<F: WordsFn>(src_bits: u32, dst_bits: u32, f: F) -> Option<F::Output> {
    macro_rules! pairs {
        ($($s:ty => $($d:ty),*;)*) => {
            match (src_bits, dst_bits) {
                $($((<$s>::BITS, <$d>::BITS) => Some(f.call::<$s, $d>()),)*)*
                _ => None,
            }
        };
    }
    pairs! {
        u8 => u16, u32, u64;
        u16 => u8, u16, u32, u64;
        u32 => u8, u16, u32, u64;
        u64 => u8, u16, u32, u64;
    }
}

/// Why buffers could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    /// The number of source buffers is not an operand count of the instruction.
    #[error("{instr} takes {} operand buffer(s), got {got}", alternatives(.legal))]
    Arity { instr: String, legal: Vec<usize>, got: usize },
    /// A source buffer's length differs from the destination's.
    #[error(
        "operand {} of {instr} has {len} elements but the destination has {expected}; all buffers must have the same length",
        .operand + 1
    )]
    Length { instr: String, operand: usize, len: usize, expected: usize },
    /// The word type of a buffer does not match the width of its operand type.
    #[error("{what} of {instr} is a {bits}-bit buffer; it must hold {expected}-bit words")]
    Width { instr: String, what: String, bits: u32, expected: u32 },
    /// The target lacks the instruction.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The processor cannot run the requested SIMD level.
    #[error(transparent)]
    SimdLevel(#[from] SimdLevelError),
}

/// How batch evaluation computes an instruction ([`Instr::batch_path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchPath {
    /// A SIMD kernel (src/kernels/).
    Simd,
    /// A table of the scalar definition over every element value, built on first use
    /// (the low-precision up-conversions, src/kernels/cvt_narrow.rs).
    Table,
    /// The scalar definition, element by element.
    Scalar,
}

impl BatchPath {
    pub const fn name(self) -> &'static str {
        match self {
            BatchPath::Simd => "simd",
            BatchPath::Table => "table",
            BatchPath::Scalar => "scalar",
        }
    }
}

impl std::fmt::Display for BatchPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Elements per parallel task: large enough to amortise scheduling, small enough to balance.
const CHUNK: usize = 1 << 14;

impl Instr {
    /// Evaluate element-wise: `out[i] = instr(sources[0][i], sources[1][i], …)` as `target`
    /// computes it. Source words must have the width of the source type, destination words the
    /// width of the destination type (they differ only for `cvt`).
    pub fn eval_batch<S: Word, D: Word>(
        &self,
        target: Target,
        sources: &[&[S]],
        out: &mut [D],
    ) -> Result<(), BatchError> {
        self.eval_batch_at(target, SimdLevel::active(), sources, out)
    }

    /// [`Instr::eval_batch`] through the kernels of a chosen SIMD level, for tests and
    /// comparisons: every level gives the same bits. Fails if the processor lacks the level.
    pub fn eval_batch_at<S: Word, D: Word>(
        &self,
        target: Target,
        level: SimdLevel,
        sources: &[&[S]],
        out: &mut [D],
    ) -> Result<(), BatchError> {
        if !level.is_supported() {
            return Err(BatchError::SimdLevel(SimdLevelError::Unsupported { level, detected: SimdLevel::detected() }));
        }
        self.check_batch(target, sources, out.len(), S::BITS, D::BITS)?;
        let kernel = kernels::select_at(self, target, level);
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(chunk, dst)| {
            let start = chunk * CHUNK;
            let mut srcs: [&[S]; MAX_SOURCES] = [&[]; MAX_SOURCES];
            for (slot, src) in srcs.iter_mut().zip(sources) {
                *slot = &src[start..start + dst.len()];
            }
            self.eval_block(target, kernel, &srcs[..sources.len()], dst);
        });
        Ok(())
    }

    /// One block on the calling thread, through `kernel` (from [`kernels::select`]) or the
    /// scalar definition; the buffers are checked by the caller. The kernel runs only under
    /// the IEEE default floating-point environment, which its float instructions assume; under
    /// another one (a host built with `-ffast-math`, `fesetround`) the scalar definition, which
    /// computes on integers, gives the same bits (src/kernels/float_env.rs).
    pub(crate) fn eval_block<S: Word, D: Word>(
        &self,
        target: Target,
        kernel: Option<kernels::Kernel>,
        srcs: &[&[S]],
        dst: &mut [D],
    ) {
        match kernel {
            Some(k) if kernels::float_env::is_default() => k.run(self, srcs, dst),
            _ => self.eval_scalar_chunk(target, srcs, dst),
        }
    }

    /// The checks of [`Instr::eval_batch`].
    pub fn check_batch(
        &self,
        target: Target,
        sources: &[&[impl Word]],
        len: usize,
        src_bits: u32,
        dst_bits: u32,
    ) -> Result<(), BatchError> {
        target.check(self).map_err(BatchError::Target)?;
        let instr = || self.to_string();
        if !self.takes(sources.len()) {
            return Err(BatchError::Arity { instr: instr(), legal: self.operand_counts(), got: sources.len() });
        }
        target.check_operand_count(self, sources.len()).map_err(BatchError::Target)?;
        for (operand, src) in sources.iter().enumerate() {
            if src.len() != len {
                return Err(BatchError::Length { instr: instr(), operand, len: src.len(), expected: len });
            }
        }
        let expected = self.source_bits();
        if src_bits != expected {
            return Err(BatchError::Width { instr: instr(), what: "a source buffer".into(), bits: src_bits, expected });
        }
        let expected = self.result_bits();
        if dst_bits != expected {
            return Err(BatchError::Width {
                instr: instr(),
                what: "the destination buffer".into(),
                bits: dst_bits,
                expected,
            });
        }
        Ok(())
    }

    /// One chunk through the scalar definition.
    fn eval_scalar_chunk<S: Word, D: Word>(&self, target: Target, srcs: &[&[S]], dst: &mut [D]) {
        let mut ops = [0u64; MAX_SOURCES];
        // The bits of each source's words that its type has (a zero-extended narrower source
        // keeps its own: [`Instr::source_bits`]).
        let keep: [u64; MAX_SOURCES] = std::array::from_fn(|k| !self.above_source[k]);
        for (i, d) in dst.iter_mut().enumerate() {
            for ((op, src), keep) in ops.iter_mut().zip(srcs).zip(keep) {
                *op = src[i].to_u64() & keep;
            }
            *d = D::from_u64(self.eval_unchecked(target, &ops[..srcs.len()]));
        }
    }

    /// Whether batch evaluation of this instruction runs a kernel at the active level (SIMD
    /// lanes, or a table of the scalar definition: [`BatchPath`]), else the scalar definition
    /// element by element, in parallel.
    pub fn is_vectorized(&self, target: Target) -> bool {
        self.batch_path(target) != BatchPath::Scalar
    }

    /// [`Instr::is_vectorized`] at `level`, which the processor must have
    /// ([`SimdLevel::is_supported`]).
    pub fn is_vectorized_at(&self, target: Target, level: SimdLevel) -> bool {
        kernels::select_at(self, target, level).is_some()
    }

    /// How batch evaluation computes this instruction at the active level.
    pub fn batch_path(&self, target: Target) -> BatchPath {
        match kernels::select(self, target) {
            Some(kernels::Kernel::Table(_)) => BatchPath::Table,
            Some(_) => BatchPath::Simd,
            None => BatchPath::Scalar,
        }
    }
}
