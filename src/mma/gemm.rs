//! A matrix product with a tensor-core instruction's numerics (docs/tensorcore.md, "GEMM"):
//! `D = A·B + C` for M×N×K operands, evaluated as tiles of one instruction whose accumulator
//! is chained through the k-steps in k order, as the main loop of a CUTLASS-style kernel runs
//! it.
//!
//! - A is M×K, B K×N, C and D M×N, row-major codes as in [`Mma::tile`]. A K that the
//!   instruction's k does not divide is padded with zero codes, as a kernel pads its last
//!   k-step; M and N need no padding (each element of D is a dot product of its own).
//! - A block-scaled form takes scale_A M×⌈K/s⌉ and scale_B ⌈K/s⌉×N, s = k/vec the k one scale
//!   covers. The scales of a padded k-step's missing blocks are code 0 (never a NaN; they
//!   scale only zero products).
//! - Promotion every P k (DeepGEMM, FlashAttention-3): the tensor-core accumulator starts from
//!   +0 every P k, and each span's result is added with `add.rn.f32` into an f32 accumulator
//!   that starts from C. P is a multiple of the instruction's k; the instruction's D is f32.
//! - The instruction's C and D have one type: the accumulator a kernel keeps in registers.
//!
//! The element of D at (i, j) is [`Mma::dot`] applied k-step by k-step to row i of A and
//! column j of B; rows of D are evaluated in parallel, with the same bits for every thread
//! count.

use rayon::prelude::*;

use crate::format::Format;
use crate::kernels::SimdLevel;
use crate::mma::lanes::{decode_row, LaneB, Lanes, LANES};
use crate::mma::tile::{check_codes, Mma, TileError};
use crate::ops::add::add;
use crate::round::Rounding;

/// The operands of a product (module documentation for their shapes).
#[derive(Clone, Copy, Debug)]
pub struct Matrices<'a> {
    pub a: &'a [u64],
    pub b: &'a [u64],
    /// `None`: C = +0.
    pub c: Option<&'a [u64]>,
    /// scale_A and scale_B of a block-scaled form.
    pub scales: Option<(&'a [u64], &'a [u64])>,
}

/// M, N and K of a product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

/// Why a product cannot be evaluated with an instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GemmError {
    #[error(transparent)]
    Operand(#[from] TileError),
    #[error(
        "{instr} takes C as {c} and writes D as {d}: a product chains D into the next k-step's C, so C and D need one type (choose a spelling with C and D both {d})"
    )]
    MixedAccumulator { instr: String, c: &'static str, d: &'static str },
    #[error("promotion every {every} k: not a positive multiple of {instr}'s k = {k} (try {k}, {k2} or 128)", k2 = 2 * k)]
    PromoteStep { instr: String, every: usize, k: usize },
    #[error("promotion adds each span into an f32 accumulator: {instr} writes D as {d}, not f32 (choose a spelling with an f32 D)")]
    PromoteType { instr: String, d: &'static str },
}

/// A product evaluated with one instruction on one target.
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
    mma: Mma,
    promote_every: Option<usize>,
    lanes: Option<Lanes>,
    level: SimdLevel,
}

impl Gemm {
    /// Products with `mma`'s tiles, promoted every `promote_every` k where given.
    pub fn new(mma: Mma, promote_every: Option<usize>) -> Result<Gemm, GemmError> {
        let instr = || mma.instr().to_string();
        let [_, _, (c, _), (d, _)] = mma.operand_types();
        if c != d {
            return Err(GemmError::MixedAccumulator { instr: instr(), c, d });
        }
        if let Some(every) = promote_every {
            let k = mma.instr().shape.k as usize;
            if every == 0 || every % k != 0 {
                return Err(GemmError::PromoteStep { instr: instr(), every, k });
            }
            if d != "f32" {
                return Err(GemmError::PromoteType { instr: instr(), d });
            }
        }
        Ok(Gemm { mma, promote_every, lanes: mma.lanes(), level: SimdLevel::active() })
    }

    /// The same product with the lanes compiled for `level` (the bits are the same at every
    /// level; for tests and comparisons). `None` where the processor lacks the level.
    pub fn at_level(self, level: SimdLevel) -> Option<Gemm> {
        level.is_supported().then_some(Gemm { level, ..self })
    }

    /// The SIMD level of the lanes, and whether this form takes them (the unscaled
    /// floating-point forms; the others are the scalar definition, row-parallel).
    pub fn simd(&self) -> (SimdLevel, bool) {
        (self.level, self.lanes.is_some())
    }

    pub fn mma(&self) -> &Mma {
        &self.mma
    }

    pub fn promote_every(&self) -> Option<usize> {
        self.promote_every
    }

    /// The number of scales per row of A (and per column of B) for a K: ⌈K/s⌉, s the k one
    /// scale covers; `None` for a form without scales.
    pub fn scale_columns(&self, k: usize) -> Option<usize> {
        let step = self.mma.instr().shape.k as usize;
        self.mma.scale_vec().map(|vec| k.div_ceil(step / vec as usize))
    }

    /// `D = A·B + C` written to `d` (M×N). Checks every length and every code first; writes
    /// nothing on an error.
    pub fn run(&self, dims: Dims, x: Matrices<'_>, d: &mut [u64]) -> Result<(), GemmError> {
        self.run_with_progress(dims, x, d, &|_| {})
    }

    /// [`Gemm::run`], calling `rows_done(r)` as each batch of `r` rows of D is finished (from
    /// any thread).
    pub fn run_with_progress(
        &self,
        dims: Dims,
        x: Matrices<'_>,
        d: &mut [u64],
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> Result<(), GemmError> {
        self.check(dims, x, d)?;
        let Dims { m: _, n, k } = dims;
        if n == 0 {
            return Ok(());
        }
        if let Some(lanes) = self.lanes {
            let b = lanes.decode_b(x.b, k, n);
            d.par_chunks_mut(n).enumerate().for_each(|(i, d_row)| {
                self.lane_row(lanes, &b, dims, x, i, d_row);
                rows_done(1);
            });
            return Ok(());
        }
        let cols = self.scale_columns(k).unwrap_or(0);
        // B and scale_B by column, so that every dot product reads contiguous memory.
        let b_cols = transpose(x.b, k, n);
        let sb_cols = x.scales.map(|(_, sb)| transpose(sb, cols, n));
        d.par_chunks_mut(n).enumerate().for_each(|(i, d_row)| {
            let a_row = &x.a[i * k..(i + 1) * k];
            let sa_row = x.scales.map(|(sa, _)| &sa[i * cols..(i + 1) * cols]);
            for (j, out) in d_row.iter_mut().enumerate() {
                let scales = sa_row.zip(sb_cols.as_deref()).map(|(sa, sb)| (sa, &sb[j * cols..(j + 1) * cols]));
                let c = x.c.map_or(0, |c| c[i * n + j]);
                *out = self.element(a_row, &b_cols[j * k..(j + 1) * k], c, scales);
            }
            rows_done(1);
        });
        Ok(())
    }

    /// Row `i` of D by the lanes; the elements they leave (module `lanes`) by
    /// [`Gemm::element`].
    fn lane_row(
        &self,
        lanes: Lanes,
        b: &LaneB,
        Dims { m: _, n, k }: Dims,
        x: Matrices<'_>,
        i: usize,
        d_row: &mut [u64],
    ) {
        let a_row = &x.a[i * k..(i + 1) * k];
        let a = decode_row(lanes.a, a_row, lanes.padded_k(k));
        let promote = |acc: u32, span: u32| add(Format::F32, acc.into(), span.into(), Rounding::Rn, false) as u32;
        for (group, d_group) in d_row.chunks_mut(LANES).enumerate() {
            let j0 = group * LANES;
            let mut c = [0u32; LANES];
            for (lane, c) in c.iter_mut().enumerate().take(d_group.len()) {
                *c = x.c.map_or(0, |c| c[i * n + j0 + lane] as u32);
            }
            let (lane_d, bad) = match &a {
                Some(a) => lanes.run(self.level, a, b.group(group), c, self.promote_every, &promote),
                None => ([0; LANES], [true; LANES]),
            };
            for (lane, out) in d_group.iter_mut().enumerate() {
                let j = j0 + lane;
                *out = if bad[lane] || b.special[j] {
                    let column: Vec<u64> = (0..k).map(|kk| x.b[kk * n + j]).collect();
                    self.element(a_row, &column, c[lane].into(), None)
                } else {
                    lane_d[lane].into()
                };
            }
        }
    }

    /// Every operand's length and codes (the instruction's element types).
    fn check(&self, Dims { m, n, k }: Dims, x: Matrices<'_>, d: &[u64]) -> Result<(), GemmError> {
        let name = || self.mma.instr().to_string();
        let [ea, eb, ec, _, es] = self.mma.elements();
        let (ea, eb, ec) = (ea.expect("A"), eb.expect("B"), ec.expect("C"));
        check_codes(&name, "A", format!("M×K = {m}×{k}"), x.a, m * k, ea)?;
        check_codes(&name, "B", format!("K×N = {k}×{n}"), x.b, k * n, eb)?;
        if let Some(c) = x.c {
            check_codes(&name, "C", format!("M×N = {m}×{n}"), c, m * n, ec)?;
        }
        if d.len() != m * n {
            let what = format!("M×N = {m}×{n}");
            return Err(TileError::Len { instr: name(), operand: "D", what, expected: m * n, got: d.len() }.into());
        }
        match (self.scale_columns(k), x.scales) {
            (Some(cols), Some((sa, sb))) => {
                let es = es.expect("a block-scaled form has a scale type");
                check_codes(&name, "scale_A", format!("M×⌈K/s⌉ = {m}×{cols}"), sa, m * cols, es)?;
                check_codes(&name, "scale_B", format!("⌈K/s⌉×N = {cols}×{n}"), sb, cols * n, es)?;
            }
            (Some(_), None) => return Err(TileError::MissingScales { instr: name() }.into()),
            (None, Some(_)) => return Err(TileError::UnexpectedScales { instr: name() }.into()),
            (None, None) => {}
        }
        Ok(())
    }

    /// One element of D: row `a` of A and column `b` of B (K codes each), its `c`, and the
    /// scales of the row and of the column (⌈K/s⌉ each) — [`Mma::dot`] chained k-step by
    /// k-step (module documentation).
    pub fn element(&self, a: &[u64], b: &[u64], c: u64, scales: Option<(&[u64], &[u64])>) -> u64 {
        let step = self.mma.instr().shape.k as usize;
        let vec = self.mma.scale_vec().map_or(0, |v| v as usize);
        let span = self.promote_every.unwrap_or(usize::MAX);
        let (mut acc, mut promoted) = (c, c);
        let (mut step_a, mut step_b) = ([0u64; MAX_STEP], [0u64; MAX_STEP]);
        let (mut step_sa, mut step_sb) = ([0u64; 4], [0u64; 4]);
        for start in (0..a.len()).step_by(step) {
            let end = (start + step).min(a.len());
            step_a[..end - start].copy_from_slice(&a[start..end]);
            step_b[..end - start].copy_from_slice(&b[start..end]);
            step_a[end - start..step].fill(0);
            step_b[end - start..step].fill(0);
            let step_scales = scales.map(|(sa, sb)| {
                let first = start / (step / vec);
                for s in 0..vec {
                    step_sa[s] = sa.get(first + s).copied().unwrap_or(0);
                    step_sb[s] = sb.get(first + s).copied().unwrap_or(0);
                }
                (&step_sa[..vec], &step_sb[..vec])
            });
            if self.promote_every.is_some() && start % span == 0 {
                acc = 0;
            }
            acc = self.mma.dot(&step_a[..step], &step_b[..step], acc, step_scales);
            if self.promote_every.is_some() && (end.is_multiple_of(span) || end == a.len()) {
                promoted = add(Format::F32, promoted, acc, Rounding::Rn, false);
            }
        }
        if self.promote_every.is_some() {
            promoted
        } else {
            acc
        }
    }
}

/// The longest k of one instruction (b1 `m16n8k256`).
const MAX_STEP: usize = 256;

/// A rows×cols row-major matrix by column.
fn transpose(x: &[u64], rows: usize, cols: usize) -> Vec<u64> {
    let mut t = vec![0u64; x.len()];
    for (r, row) in x.chunks(cols.max(1)).enumerate().take(rows) {
        for (col, &v) in row.iter().enumerate() {
            t[col * rows + r] = v;
        }
    }
    t
}
