//! Capturing what a real GPU returns, and comparing it bit for bit with ptxfp.
//!
//! `ptxfp capture` writes a kit into a directory: per spelling a PTX kernel that evaluates the
//! instruction once per thread ([`ptx`]), the operand files of sampled domains, and
//! `manifest.json` ([`Manifest`]). `scripts/capture_run.py` runs every kernel on a GPU through
//! the CUDA driver and writes each spelling's results as an `.npy` file in domain order — the
//! layout `ptxfp sweep --ref` reads. `ptxfp compare` ([`compare`]) evaluates ptxfp on the same
//! inputs and reports per spelling the mismatch count and the first mismatching inputs.
//!
//! Operands never reach the GPU as immediates, which ptxas would fold with its own (correctly
//! rounded) arithmetic: they are loaded from memory or computed from the thread index.

pub mod compare;
pub mod ptx;

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::batch::{BatchError, Word};
use crate::format::Format;
use crate::io::{self, Dtype, Writer};
use crate::ops::cvt_int::IntType;
use crate::ptx::{catalog, Element, Instr, Mode, Opcode, ParseError, Target, TargetError, Type};
use crate::round::Rounding;
use crate::sweep::domain::{count_up, Domain, PatternSet, Sampling};
use crate::sweep::DomainError;

/// The name of the kit's index in its directory.
pub const MANIFEST: &str = "manifest.json";

/// Edge-biased samples per exact spelling by default (each operand file holds this many words).
pub const DEFAULT_SAMPLES: u64 = 1 << 20;

/// Inputs the kit writes to files at most per spelling (larger domains are generated on the
/// GPU, which needs each operand's set to be one interval).
const MAX_FILE_INPUTS: u64 = 1 << 28;

/// A capture kit: what to run on the GPU and where its results go.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The `sm_XX` the kernels were written for (their `.target`).
    pub arch: String,
    pub entries: Vec<Entry>,
}

/// One spelling over one domain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The spelling as ptxfp and PTX write it.
    pub instr: String,
    /// What the inputs are, for reports (`all f32 values`, `1048576 edge-biased random ...`).
    pub domain: String,
    /// The kernel file (its entry point is [`ptx::KERNEL`]).
    pub ptx: String,
    /// Source operands per input.
    pub sources: usize,
    /// Width of a source operand word.
    pub source_bits: u32,
    /// Width of a result word, and the `.npy` dtype of the results.
    pub result_bits: u32,
    pub result_dtype: String,
    /// Inputs in the domain; the results file holds one word per input, in domain order.
    pub count: u64,
    pub inputs: Inputs,
    /// Where the runner writes the results.
    pub output: String,
}

/// Where the kernel takes input `i`'s operands from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Inputs {
    /// Computed on the GPU: operand `j` of input `i` is `lo + (i / stride) % len` of counter `j`.
    Counted { counters: Vec<Counter> },
    /// Read from these `.npy` files (one per operand, `count` words each).
    Files { files: Vec<String> },
}

/// One operand of a counted domain (the exhaustive odometer of [`Domain::fill`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    pub lo: u64,
    pub len: u64,
    pub stride: u64,
}

impl Counter {
    /// Operand bits of input `i`.
    pub fn at(&self, i: u64) -> u64 {
        self.lo + (i / self.stride) % self.len
    }

    /// The operands [`Counter::at`] gives inputs `start..start + out.len()`, a run at a time
    /// instead of a division per input: runs of `stride` equal operands, or with `stride` 1
    /// runs of consecutive ones up to the counter's wrap.
    pub fn fill<W: Word>(&self, start: u64, out: &mut [W]) {
        let mut digit = (start / self.stride) % self.len;
        let mut left = self.stride - start % self.stride;
        let mut i = 0;
        while i < out.len() {
            let rest = (out.len() - i) as u64;
            if self.stride == 1 {
                let run = (self.len - digit).min(rest) as usize;
                count_up(&mut out[i..i + run], self.lo + digit);
                i += run;
                digit = 0;
            } else {
                let run = left.min(rest) as usize;
                out[i..i + run].fill(W::from_u64(self.lo + digit));
                i += run;
                digit = if digit + 1 == self.len { 0 } else { digit + 1 };
                left = self.stride;
            }
        }
    }
}

/// Why a kit could not be written, read or compared.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A SASS operation (MUFU, RRO) named: only PTX spellings are captured.
    #[error("{instr} is a SASS operation: capture the PTX spellings that lower to it")]
    Sass { instr: Instr },
    /// The target lacks a spelling named.
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("nothing to capture: name the spellings, or ask for all")]
    Nothing,
    /// The range or sample count asked for is not a domain.
    #[error(transparent)]
    Domain(#[from] DomainError),
    /// A range names values of one float format: the operands of `instr` are integers or
    /// low-precision words, or of several types.
    #[error("{instr}: a range is for sources of one floating-point format")]
    RangeNotOneFloat { instr: Instr },
    #[error("{instr}: a range of a packed type needs a random sample")]
    RangeOfPacked { instr: Instr },
    #[error("{instr}: a domain of {count} inputs in several intervals is too large to write; sample it")]
    TooManyIntervals { instr: Instr, count: u64 },
    #[error("{instr}: {count} sampled inputs exceed the {MAX_FILE_INPUTS} a kit writes per spelling")]
    TooManySamples { instr: Instr, count: u64 },
    /// ptxfp's evaluation of a kit's inputs failed.
    #[error(transparent)]
    Eval(#[from] BatchError),
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// `manifest.json` is missing or not a kit's.
    #[error("{}: {problem}", path.display())]
    Manifest { path: PathBuf, problem: ManifestError },
}

/// What is wrong with a kit's manifest.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read it: {0}")]
    Unreadable(std::io::Error),
    #[error("not a ptxfp capture manifest: {0}")]
    NotAManifest(serde_json::Error),
    #[error("entry {entry}: {error}")]
    Spelling { entry: String, error: ParseError },
    #[error("entry {entry}: the word widths are not the instruction's")]
    WordWidths { entry: String },
    #[error("entry {entry}: {files} operand sources for {sources} operands")]
    OperandCount { entry: String, files: usize, sources: usize },
    #[error("entry {entry}: {source_bits}-bit sources, {result_bits}-bit results are not operand words")]
    NotWords { entry: String, source_bits: u32, result_bits: u32 },
    #[error(
        "entry {entry}: operand {operand}'s counter (lo {}, len {}, stride {}) does not count {bits}-bit operands \
         (len and stride at least 1, lo + len − 1 below 2^{bits})",
        counter.lo, counter.len, counter.stride
    )]
    Counter { entry: String, operand: usize, counter: Counter, bits: u32 },
}

/// What to capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub target: Target,
    /// The spellings named; empty with `all`.
    pub instrs: Vec<Instr>,
    /// Every PTX spelling the target has: the approximate scalar ones and the low-precision
    /// conversions from one word of at most 16 bits over every input, the rest on `random`
    /// (default [`DEFAULT_SAMPLES`]) edge-biased inputs, and the `.ftz` tininess boundary of
    /// `mul`/`fma`.
    pub all: bool,
    /// `--range LO..HI` for every operand of the named spellings.
    pub range: Option<String>,
    /// Sample size for domains that are not enumerated (`--random`); `None`: the default rule.
    pub random: Option<u64>,
    pub seed: u64,
}

impl Manifest {
    /// Read the manifest of the kit in `dir`.
    pub fn load(dir: &Path) -> Result<Manifest, Error> {
        let path = dir.join(MANIFEST);
        let text = fs::read_to_string(&path)
            .map_err(|e| Error::Manifest { path: path.clone(), problem: ManifestError::Unreadable(e) })?;
        serde_json::from_str(&text).map_err(|e| Error::Manifest { path, problem: ManifestError::NotAManifest(e) })
    }
}

/// Whether ptxfp can write a PTX kernel for `instr`: every PTX spelling (the SASS MUFU and RRO
/// operations are reached through the PTX spellings that lower to them).
pub fn is_ptx(instr: &Instr) -> bool {
    !matches!(instr.opcode(), Opcode::Mufu(_) | Opcode::Rro(_))
}

/// Whether `--all` sweeps `instr` over every input: the approximate scalar spellings whose
/// domain has at most 2^32 inputs (all f32, f16 and bf16 values of the unary ones), and the
/// low-precision conversions from one word of at most 16 bits (every FP8, FP6, FP4 and ue8m0
/// pair).
fn exhaustive_in_all(instr: &Instr) -> bool {
    let unary = instr.operand_counts()[0] == 1;
    let approximate = matches!(instr.mode(), Mode::Approx | Mode::Full) && instr.ty().lanes() == 1;
    unary && ((approximate && instr.source_bits() <= 32) || (instr.is_low_precision() && instr.source_bits() <= 16))
}

/// Write the kit `request` describes into `dir` (created if needed) and return its manifest.
pub fn write_kit(request: &Request, dir: &Path) -> Result<Manifest, Error> {
    let mut plans = Vec::new();
    if request.all {
        for entry in catalog::entries() {
            let instr = entry.instr;
            if !is_ptx(&instr) || !entry.targets.contains(request.target) {
                continue;
            }
            let random = if exhaustive_in_all(&instr) { None } else { Some(request.random.unwrap_or(DEFAULT_SAMPLES)) };
            plans.push(Plan::standard(instr, entry.sources, None, random, request.seed)?);
        }
        plans.extend(tininess_plans());
    }
    for &instr in &request.instrs {
        if !is_ptx(&instr) {
            return Err(Error::Sass { instr });
        }
        request.target.check(&instr)?;
        let sources = instr.operand_counts()[0];
        plans.push(Plan::standard(instr, sources, request.range.as_deref(), request.random, request.seed)?);
    }
    if plans.is_empty() {
        return Err(Error::Nothing);
    }
    fs::create_dir_all(dir).map_err(|source| io::Error::Io { path: dir.into(), action: "create", source })?;
    let mut entries = Vec::with_capacity(plans.len());
    let mut stems = std::collections::HashSet::new();
    for plan in plans {
        let mut stem = plan.stem();
        let mut k = 2;
        while !stems.insert(stem.clone()) {
            stem = format!("{}-{k}", plan.stem());
            k += 1;
        }
        entries.push(plan.write(request.target, dir, &stem)?);
    }
    let manifest = Manifest { arch: request.target.to_string(), entries };
    let json = serde_json::to_string_pretty(&manifest).expect("a manifest always serializes");
    io::write_atomically(&dir.join(MANIFEST), json.as_bytes())?;
    Ok(manifest)
}

/// Every word of an integer type, as the pattern set of the float format of its width (an 8-bit
/// type: f16 patterns 0 to 0xFF). Samples of a 64-bit type are f64 patterns, edge-biased as
/// floats: large magnitudes of both signs, many with long runs of trailing zeros.
fn integer_patterns(int: IntType) -> PatternSet {
    match int.bits() {
        8 => PatternSet::first_patterns(Format::F16, int.mask()),
        16 => PatternSet::all(Format::F16),
        32 => PatternSet::all(Format::F32),
        _ => PatternSet::all(Format::F64),
    }
}

/// The pattern set of one element of `ty`: every value of its float format (edge-biased when
/// sampled), every word of its integer type, every code of its narrow format (an FP6 code's
/// padding bits clear: ptxfp refuses a set one, as PTX leaves its result undefined).
fn element_patterns(ty: Type) -> PatternSet {
    match ty.element() {
        Element::Float(fmt) => PatternSet::all(fmt),
        Element::Int(int) => integer_patterns(int),
        Element::Narrow(_) => {
            let bits = ty.element_bits();
            let codes = ty.code_bits() & (u64::MAX >> (64 - bits));
            match bits {
                32 => PatternSet::all(Format::F32),
                _ => PatternSet::first_patterns(Format::F16, codes),
            }
        }
    }
}

/// Whether `instr`'s explicit capture covers every value of its two f32 sources through both
/// lanes, as `a = b` ([`Source::Counters`]): the pair conversions from two f32
/// (`cvt.rn.satfinite.e4m3x2.f32 d, a, b`), each of whose lanes converts one operand.
fn both_lanes_of_every_f32(instr: &Instr, sources: usize) -> bool {
    matches!(instr.opcode(), Opcode::Cvt { .. })
        && sources == 2
        && instr.ty().lanes() == 2
        && (0..2).all(|j| instr.source_type(j) == Type::F32)
}

/// One spelling over one domain, before its files are written.
struct Plan {
    instr: Instr,
    sources: usize,
    what: String,
    source: Source,
}

enum Source {
    /// A domain of [`Domain`]: one pattern set per element of each operand, operand by operand
    /// (a packed operand's lanes from the lowest).
    Domain(Domain),
    /// Counted on the GPU, `count` inputs.
    Counters { counters: Vec<Counter>, count: u64 },
    /// Explicit operand lists.
    Lists(Vec<Vec<u64>>),
}

impl Plan {
    /// `instr` with `sources` operands over every operand pattern of its source types (or of
    /// `range`, for sources of one float format): enumerated when that is at most 2^32 inputs
    /// and `random` is `None`, else `random` (or the sweep's default count of) edge-biased
    /// samples. A pair conversion from two f32 without `random` takes every f32 value through
    /// both lanes ([`both_lanes_of_every_f32`]).
    fn standard(
        instr: Instr,
        sources: usize,
        range: Option<&str>,
        random: Option<u64>,
        seed: u64,
    ) -> Result<Plan, Error> {
        let types: Vec<Type> = (0..sources).map(|j| instr.source_type(j)).collect();
        let ty = types[0];
        let one_type = types.iter().all(|&t| t == ty);
        if random.is_none() && range.is_none() && both_lanes_of_every_f32(&instr, sources) {
            let all = Counter { lo: 0, len: 1 << 32, stride: 1 };
            let what = "every f32 value through both lanes (a = b): 4294967296 inputs".to_string();
            return Ok(Plan {
                instr,
                sources,
                what,
                source: Source::Counters { counters: vec![all; 2], count: 1 << 32 },
            });
        }
        let (range_set, what) = match (ty.element(), range) {
            (Element::Float(fmt), Some(r)) if one_type => (Some(PatternSet::range(fmt, r)?), format!("range {r}")),
            (_, Some(_)) => return Err(Error::RangeNotOneFloat { instr }),
            (Element::Float(fmt), None) if one_type => (None, format!("all {} values", fmt.name())),
            (Element::Int(int), None) if one_type => {
                let what = match int.bits() {
                    64 => format!("{} words", int.name()),
                    _ => format!("all {} {} words", integer_patterns(int).len(), int.name()),
                };
                (None, what)
            }
            (_, None) => {
                let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                (None, format!("{} words", names.join(" × ")))
            }
        };
        // One pattern set per element of each operand.
        let sets: Vec<PatternSet> = types
            .iter()
            .flat_map(|&t| {
                let set = range_set.clone().unwrap_or_else(|| element_patterns(t));
                std::iter::repeat_n(set, t.lanes() as usize)
            })
            .collect();
        let domain = Domain::new(sets, what, random.map(|n| (n, seed)))?;
        if domain.sampling == Sampling::Exhaustive && ty.lanes() > 1 && range.is_some() {
            return Err(Error::RangeOfPacked { instr });
        }
        let what = match domain.sampling {
            Sampling::Exhaustive if ty.int().is_some() && one_type => domain.what.clone(),
            Sampling::Exhaustive if ty.float().is_some() && one_type && ty.lanes() == 1 => domain.describe(),
            Sampling::Exhaustive => format!("{}: all {} inputs", domain.what, domain.count()),
            Sampling::Random { n, seed } => {
                format!("{}: {n} edge-biased random inputs (seed {seed})", domain.what)
            }
        };
        Ok(Plan { instr, sources, what, source: Source::Domain(domain) })
    }

    /// The file name stem: the spelling (only letters, digits and dots).
    fn stem(&self) -> String {
        let tag = match self.source {
            Source::Lists(_) => "-tininess",
            Source::Domain(_) | Source::Counters { .. } => "",
        };
        format!("{}{tag}", self.instr)
    }

    /// Write the kernel and any operand files; return the manifest entry.
    fn write(&self, target: Target, dir: &Path, stem: &str) -> Result<Entry, Error> {
        let bits = self.instr.source_bits();
        let (count, inputs) = match &self.source {
            Source::Counters { counters, count } => (*count, Inputs::Counted { counters: counters.clone() }),
            Source::Domain(d) => {
                let exhaustive = d.sampling == Sampling::Exhaustive;
                let count = d.count();
                let counted = if exhaustive { counters(&self.instr, self.sources, d) } else { None };
                match counted {
                    Some(counters) => (count, Inputs::Counted { counters }),
                    _ if count > MAX_FILE_INPUTS && exhaustive => {
                        return Err(Error::TooManyIntervals { instr: self.instr, count })
                    }
                    _ if count > MAX_FILE_INPUTS => return Err(Error::TooManySamples { instr: self.instr, count }),
                    _ => (count, self.write_files(dir, stem, count, |start, out| self.fill_from(d, start, out))?),
                }
            }
            Source::Lists(lists) => {
                let count = lists[0].len() as u64;
                (
                    count,
                    self.write_files(dir, stem, count, |start, out| {
                        for (list, operand) in lists.iter().zip(out.iter_mut()) {
                            let n = operand.len();
                            operand.copy_from_slice(&list[start as usize..start as usize + n]);
                        }
                    })?,
                )
            }
        };
        let ptx_name = format!("{stem}.ptx");
        let text = ptx::kernel(&self.instr, self.sources, matches!(inputs, Inputs::Counted { .. }), target);
        io::write_atomically(&dir.join(&ptx_name), text.as_bytes())?;
        Ok(Entry {
            instr: self.instr.to_string(),
            domain: self.what.clone(),
            ptx: ptx_name,
            sources: self.sources,
            source_bits: bits,
            result_bits: self.instr.result_bits(),
            result_dtype: io::result_dtype(&self.instr).descr().to_string(),
            count,
            inputs,
            output: format!("{stem}.out.npy"),
        })
    }

    /// The operand words of inputs `start..start + out[0].len()` of `domain`: its elements
    /// drawn set by set, each operand's lanes packed from the lowest.
    fn fill_from(&self, domain: &Domain, start: u64, out: &mut [&mut [u64]]) {
        let n = out[0].len();
        let mut draws: Vec<Vec<u64>> = vec![vec![0; n]; domain.sets.len()];
        let mut views: Vec<&mut [u64]> = draws.iter_mut().map(|v| &mut v[..]).collect();
        domain.fill(start, &mut views);
        let mut set = 0;
        for (j, operand) in out.iter_mut().enumerate() {
            let ty = self.instr.source_type(j);
            let (lanes, lane_bits) = (ty.lanes() as usize, ty.element_bits());
            for (i, word) in operand.iter_mut().enumerate() {
                *word = (0..lanes).fold(0, |w, l| w | draws[set + l][i] << (l as u32 * lane_bits));
            }
            set += lanes;
        }
    }

    /// Write `count` inputs, generated a block at a time by `fill(start, operands)`, as one
    /// `.npy` file of unsigned words per operand.
    fn write_files(
        &self,
        dir: &Path,
        stem: &str,
        count: u64,
        fill: impl Fn(u64, &mut [&mut [u64]]),
    ) -> Result<Inputs, Error> {
        let bits = self.instr.source_bits();
        let names: Vec<String> = (0..self.sources).map(|j| format!("{stem}.in{j}.npy")).collect();
        let mut writers = names
            .iter()
            .map(|name| Writer::create(&dir.join(name), Dtype::unsigned(bits), count))
            .collect::<Result<Vec<_>, _>>()?;
        const BLOCK: u64 = 1 << 16;
        let mut buffers = vec![vec![0u64; BLOCK as usize]; self.sources];
        let mut start = 0;
        while start < count {
            let n = (count - start).min(BLOCK) as usize;
            let mut views: Vec<&mut [u64]> = buffers.iter_mut().map(|b| &mut b[..n]).collect();
            fill(start, &mut views);
            for (writer, buffer) in writers.iter_mut().zip(&buffers) {
                match bits {
                    8 => writer.write_block(&buffer[..n].iter().map(|&w| w as u8).collect::<Vec<_>>())?,
                    16 => writer.write_block(&buffer[..n].iter().map(|&w| w as u16).collect::<Vec<_>>())?,
                    32 => writer.write_block(&buffer[..n].iter().map(|&w| w as u32).collect::<Vec<_>>())?,
                    _ => writer.write_block(&buffer[..n])?,
                }
            }
            start += n as u64;
        }
        for writer in writers {
            writer.commit()?;
        }
        Ok(Inputs::Files { files: names })
    }
}

/// The counters of an exhaustive domain whose operands are each one interval of words: an
/// unpacked operand whose set is one interval, or a packed one whose every lane takes every
/// pattern of its width (every f16x2 word, every e4m3x2 pair).
fn counters(instr: &Instr, sources: usize, domain: &Domain) -> Option<Vec<Counter>> {
    let mut intervals = Vec::with_capacity(sources);
    let mut set = 0;
    for j in 0..sources {
        let ty = instr.source_type(j);
        let lanes = ty.lanes() as usize;
        let lane_sets = domain.sets.get(set..set + lanes)?;
        set += lanes;
        let interval = match lane_sets {
            [one] => match one.intervals() {
                &[(lo, hi)] => (lo, hi),
                _ => return None,
            },
            _ => {
                let top = u64::MAX >> (64 - ty.element_bits());
                let full = |s: &PatternSet| s.intervals() == [(0, top)];
                if !lane_sets.iter().all(full) {
                    return None;
                }
                (0, u64::MAX >> (64 - ty.bits()))
            }
        };
        intervals.push(interval);
    }
    let mut stride = 1;
    let mut out = vec![Counter { lo: 0, len: 0, stride: 0 }; intervals.len()];
    for (j, &(lo, hi)) in intervals.iter().enumerate().rev() {
        out[j] = Counter { lo, len: hi - lo + 1, stride };
        stride *= hi - lo + 1;
    }
    Some(out)
}

/// The `.ftz.f32` tininess boundary of `mul` and `fma` in the four rounding modes (docs/semantics.md
/// §5: ptxfp follows ptxas' constant folding, which no public hardware run settles): products
/// of `a` near 1 and `b` near the smallest normal 2^-126, from below and above it, both signs;
/// `fma` adds ±0.
fn tininess_plans() -> Vec<Plan> {
    let mut a = Vec::new();
    let mut b = Vec::new();
    // a in [1 − 2^-16, 1 + 2^-15], b from 2^-126 − 128 ulps to 2^-126 + 128 ulps.
    for x in 0x3F7F_FF00u64..=0x3F80_0100 {
        for y in 0x007F_FF80u64..=0x0080_0080 {
            for sign in [0, 0x8000_0000] {
                a.push(x | sign);
                b.push(y);
            }
        }
    }
    let rounding = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];
    let mut plans = Vec::new();
    for r in rounding {
        let mul: Instr = format!("mul.{}.ftz.f32", r.name()).parse().expect("a catalog spelling");
        plans.push(Plan {
            instr: mul,
            sources: 2,
            what: format!("{} products near ±2^-126", a.len()),
            source: Source::Lists(vec![a.clone(), b.clone()]),
        });
        let fma: Instr = format!("fma.{}.ftz.f32", r.name()).parse().expect("a catalog spelling");
        let c: Vec<u64> = (0..a.len()).map(|i| if i % 4 < 2 { 0 } else { 0x8000_0000 }).collect();
        plans.push(Plan {
            instr: fma,
            sources: 3,
            what: format!("{} products near ±2^-126 plus ±0", a.len()),
            source: Source::Lists(vec![a.clone(), b.clone(), c]),
        });
    }
    plans
}
