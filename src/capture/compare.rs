//! `ptxfp compare`: ptxfp's results against a kit's GPU results, bit for bit, per spelling.

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Counter, Entry, Error, Inputs, ManifestError};
use crate::batch::Word;
use crate::io::Reader;
use crate::ptx::{Instr, Target};

/// Inputs evaluated per block.
const BLOCK: usize = 1 << 20;

/// Blocks compared in parallel at a time.
const WAVE: u64 = 32;

/// Mismatching inputs listed per spelling.
pub const LISTED: usize = 16;

/// Mismatches written per spelling at most by [`compare_entry`] with `keep` (the first ones).
pub const KEPT: usize = 1 << 22;

/// How ptxfp compares with the GPU on one spelling.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub instr: String,
    pub domain: String,
    pub count: u64,
    /// `None` when the GPU results file is absent (the spelling was not run).
    pub compared: Option<Comparison>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Inputs whose result bits differ.
    pub mismatches: u64,
    /// The first [`LISTED`] of them, in domain order.
    pub first: Vec<Mismatch>,
    /// With `keep`: the first [`KEPT`] as `[index, gpu, ptxfp]` (not in reports).
    #[serde(skip)]
    pub kept: Vec<[u64; 3]>,
}

/// One input where ptxfp and the GPU differ (words in hex).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    pub index: u64,
    pub operands: Vec<String>,
    pub gpu: String,
    pub ptxfp: String,
}

/// Compare one entry of the kit in `dir` whose results file exists (`compared` is `None` when
/// it does not); with `keep`, also keep the first [`KEPT`] mismatches whole.
pub fn compare_entry(dir: &Path, target: Target, entry: &Entry, keep: bool) -> Result<Outcome, Error> {
    let manifest_error = |problem| Error::Manifest { path: dir.join(super::MANIFEST), problem };
    let instr: Instr = entry
        .instr
        .parse()
        .map_err(|error| manifest_error(ManifestError::Spelling { entry: entry.instr.clone(), error }))?;
    let outcome =
        |compared| Outcome { instr: entry.instr.clone(), domain: entry.domain.clone(), count: entry.count, compared };
    let path = dir.join(&entry.output);
    if !path.exists() {
        return Ok(outcome(None));
    }
    if entry.result_bits != instr.result_bits() || entry.source_bits != instr.source_bits() {
        return Err(manifest_error(ManifestError::WordWidths { entry: entry.instr.clone() }));
    }
    let gpu = Reader::open(&path, entry.result_bits)?;
    gpu.expect_words(entry.result_bits, entry.count)?;
    let operands = match &entry.inputs {
        Inputs::Counted { counters } => counters.len(),
        Inputs::Files { files } => files.len(),
    };
    if operands != entry.sources || !instr.takes(entry.sources) {
        let (entry, files, sources) = (entry.instr.clone(), operands, entry.sources);
        return Err(manifest_error(ManifestError::OperandCount { entry, files, sources }));
    }
    if let Inputs::Counted { counters } = &entry.inputs {
        let top = u64::MAX >> (64 - entry.source_bits.clamp(1, 64));
        let usable = |c: &Counter| c.len > 0 && c.stride > 0 && c.lo.checked_add(c.len - 1).is_some_and(|hi| hi <= top);
        if let Some((operand, &counter)) = counters.iter().enumerate().find(|(_, c)| !usable(c)) {
            let (entry, bits) = (entry.instr.clone(), entry.source_bits);
            return Err(manifest_error(ManifestError::Counter { entry, operand, counter, bits }));
        }
    }
    let mut files = Vec::with_capacity(operands);
    if let Inputs::Files { files: names } = &entry.inputs {
        for name in names {
            let reader = Reader::open(&dir.join(name), entry.source_bits)?;
            reader.expect_words(entry.source_bits, entry.count)?;
            files.push(reader);
        }
    }
    let run = Run { instr, target, entry, gpu, files, keep };
    let (s, d) = (entry.source_bits, entry.result_bits);
    let comparison = crate::batch::with_words(s, d, run).unwrap_or_else(|| {
        let entry = entry.instr.clone();
        Err(manifest_error(ManifestError::NotWords { entry, source_bits: s, result_bits: d }))
    })?;
    Ok(outcome(Some(comparison)))
}

struct Run<'a> {
    instr: Instr,
    target: Target,
    entry: &'a Entry,
    gpu: Reader,
    files: Vec<Reader>,
    keep: bool,
}

impl crate::batch::WordsFn for Run<'_> {
    type Output = Result<Comparison, Error>;

    /// Blocks in parallel, each read at its offset, a wave of [`WAVE`] blocks at a time; their
    /// counts and first mismatches merge in domain order (once [`KEPT`] mismatches are kept,
    /// later waves keep none, which bounds the memory a mostly differing spelling takes).
    fn call<S: Word, D: Word>(mut self) -> Result<Comparison, Error> {
        let blocks = self.entry.count.div_ceil(BLOCK as u64);
        let mut result = Comparison { mismatches: 0, first: Vec::new(), kept: Vec::new() };
        let mut wave = 0;
        while wave < blocks {
            let end = (wave + WAVE).min(blocks);
            let this = &self;
            let per_block: Vec<Comparison> =
                (wave..end).into_par_iter().map(|b| this.block::<S, D>(b * BLOCK as u64)).collect::<Result<_, _>>()?;
            for c in per_block {
                result.mismatches += c.mismatches;
                let room = LISTED - result.first.len();
                result.first.extend(c.first.into_iter().take(room));
                let room = KEPT - result.kept.len();
                result.kept.extend(c.kept.into_iter().take(room));
            }
            self.keep &= result.kept.len() < KEPT;
            wave = end;
        }
        Ok(result)
    }
}

impl Run<'_> {
    /// The inputs `start..start + BLOCK` (or to the end).
    fn block<S: Word, D: Word>(&self, start: u64) -> Result<Comparison, Error> {
        let n = (self.entry.count - start).min(BLOCK as u64) as usize;
        let mut operands: Vec<Vec<S>> = vec![vec![S::zeroed(); n]; self.entry.sources];
        match &self.entry.inputs {
            Inputs::Counted { counters } => {
                for (operand, counter) in operands.iter_mut().zip(counters) {
                    counter.fill(start, operand);
                }
            }
            Inputs::Files { .. } => {
                for (operand, reader) in operands.iter_mut().zip(&self.files) {
                    reader.read_at(start, operand)?;
                }
            }
        }
        let mut gpu = vec![D::zeroed(); n];
        self.gpu.read_at(start, &mut gpu)?;
        let mut model = vec![D::zeroed(); n];
        let views: Vec<&[S]> = operands.iter().map(Vec::as_slice).collect();
        self.instr.eval_batch(self.target, &views, &mut model)?;
        let mut result = Comparison { mismatches: 0, first: Vec::new(), kept: Vec::new() };
        for i in (0..n).filter(|&i| gpu[i].to_u64() != model[i].to_u64()) {
            result.mismatches += 1;
            if self.keep {
                result.kept.push([start + i as u64, gpu[i].to_u64(), model[i].to_u64()]);
            }
            if result.first.len() < LISTED {
                result.first.push(Mismatch {
                    index: start + i as u64,
                    operands: operands.iter().map(|o| hex(o[i].to_u64(), S::BITS)).collect(),
                    gpu: hex(gpu[i].to_u64(), D::BITS),
                    ptxfp: hex(model[i].to_u64(), D::BITS),
                });
            }
        }
        Ok(result)
    }
}

/// `0x` and the word's hex digits, zero-padded to its width.
fn hex(word: u64, bits: u32) -> String {
    format!("0x{word:0width$x}", width = bits as usize / 4)
}
