//! `ptxfp sweep`: the error of an instruction on every input of a domain (or a seeded random
//! sample of it), against the correctly rounded exact function, another instruction or a file
//! of expected results such as a GPU dump.
//!
//! The domain is cut into units of [`UNIT`] inputs; each unit is generated, evaluated (through
//! the batch kernels), compared and summarised block by block on one thread, and the units'
//! statistics merge exactly (the private module `stats`). That is what makes shards, threads, interrupted
//! and resumed runs give the same report as one uninterrupted run.

mod bound;
pub mod checkpoint;
pub mod domain;
mod error;
pub mod mma;
pub mod plot;
mod reference;
pub mod report;
mod stats;
mod summary;
// The correctly rounded references, which tests/sweep_reference.rs checks directly.
internal_modules! {
    exact,
}

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::batch::Word;
use crate::format::Format;
use crate::kernels::level::{at_level, Isa};
use crate::kernels::{self, SimdLevel};
use crate::ptx::{Instr, Opcode, Target};
use bound::Bound;
pub use checkpoint::Checkpoint;
use domain::Domain;
pub use error::{DomainError, Error, MergeError, PlotError, ReferenceError, ReportError, ResumeError};
use reference::Reference;
use report::Report;
use stats::{Context, Evaluated, Stats};

/// Inputs per unit of work (the granularity of progress, checkpoints and parallelism).
pub const UNIT: u64 = 1 << 20;
/// Inputs per block (buffers that stay in the first-level caches).
const BLOCK: usize = 4096;

/// Shard `index` of `count` (1-based): a contiguous slice of the domain's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Parse `K/N` (1 ≤ K ≤ N).
    pub fn parse(text: &str) -> Result<Shard, Error> {
        let bad = || Error::Shard { text: text.into() };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The input indices of this shard among `total`.
    pub fn range(self, total: u64) -> (u64, u64) {
        let at = |k: u64| (total as u128 * k as u128 / self.count as u128) as u64;
        (at(self.index - 1), at(self.index))
    }

    /// `K/N` as reports carry it; none for the whole domain.
    pub fn label(self) -> Option<String> {
        (self != Shard::WHOLE).then(|| format!("{}/{}", self.index, self.count))
    }
}

/// What a sweep was asked to do, as given on the command line; reports carry it so that
/// `merge` and `--resume` rebuild exactly the same sweep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec {
    pub instr: String,
    pub arch: String,
    /// `--range LO..HI` (applies to every operand).
    pub range: Option<String>,
    /// `--binade E` (applies to every operand).
    pub binade: Option<i32>,
    /// `--random N`.
    pub random: Option<u64>,
    /// `--seed S` (random sampling only).
    pub seed: u64,
    /// `--ref`: an instruction spelling or a file of expected results; none for the default.
    pub reference: Option<String>,
}

impl Spec {
    /// Sweep `instr` on sm_90 over its default domain against its default reference.
    pub fn new(instr: &str) -> Spec {
        Spec {
            instr: instr.into(),
            arch: Target::DEFAULT.to_string(),
            range: None,
            binade: None,
            random: None,
            seed: 1,
            reference: None,
        }
    }
}

/// A sweep: what to evaluate, on which inputs, against what.
pub struct Sweep {
    pub spec: Spec,
    pub instr: Instr,
    pub target: Target,
    pub domain: Domain,
    pub(crate) reference: Reference,
    pub shard: Shard,
    ctx: Context,
    bound: Option<Bound>,
}

/// How a sweep ended.
pub enum Outcome {
    Complete(Report),
    /// Stopped on request; the checkpoint continues it.
    Interrupted(Checkpoint),
}

/// Hooks for long runs: `progress(done, total)` after each unit (inputs), `stop` polled before
/// each unit, and `checkpoint` called with the state every `checkpoint_every` seconds.
pub struct Control<'a> {
    pub progress: &'a (dyn Fn(u64, u64) + Sync),
    pub stop: &'a AtomicBool,
    pub checkpoint: &'a (dyn Fn(&Checkpoint) + Sync),
    pub checkpoint_every: f64,
}

impl Sweep {
    /// Build the sweep `spec` describes (shard `shard`), checking every part. With
    /// `open_dump` false a dump reference is only named, not opened (enough to merge reports).
    pub fn new(spec: &Spec, shard: Shard, open_dump: bool) -> Result<Sweep, Error> {
        let instr: Instr = spec.instr.parse()?;
        let target: Target = spec.arch.parse()?;
        target.check(&instr)?;
        if matches!(instr.opcode(), Opcode::Cvt { .. } | Opcode::Testp(_)) || instr.ty().lanes() != 1 {
            return Err(Error::NotScalar { instr });
        }
        let fmt = instr.format();
        let (set, what) = match (&spec.range, spec.binade) {
            (Some(_), Some(_)) => return Err(DomainError::RangeAndBinade.into()),
            (Some(r), None) => (domain::PatternSet::range(fmt, r)?, format!("range {r}")),
            (None, Some(e)) => (domain::PatternSet::binade(fmt, e)?, format!("binade 2^{e}")),
            (None, None) => (domain::PatternSet::all(fmt), format!("all {} values", fmt.name())),
        };
        let operands = instr.operand_counts()[0];
        let random = spec.random.map(|n| (n, spec.seed));
        let domain = Domain::new(vec![set; operands], what, random)?;
        let reference = match &spec.reference {
            None => Reference::default_for(&instr)?,
            Some(text) => match text.parse::<Instr>() {
                Ok(other) => Reference::instr(other, &instr, target)?,
                Err(parse_error) => {
                    let path = std::path::Path::new(text);
                    if !path.exists() && !text.contains(['/', '\\']) && !text.contains(".npy") && !text.contains(".bin")
                    {
                        return Err(ReferenceError::NeitherInstrNorFile { text: text.clone(), parse_error }.into());
                    }
                    Reference::dump(path, &instr, domain.count(), open_dump)?
                }
            },
        };
        let bound = bound::documented(&instr);
        let clauses = bound.as_ref().map_or(Vec::new(), |b| b.clauses.clone());
        let ctx = Context::new(fmt, fmt, reference.bitwise(), clauses, domain.sets[0].ordinal_span());
        Ok(Sweep { spec: spec.clone(), instr, target, domain, reference, shard, ctx, bound })
    }

    /// The number of inputs this sweep (this shard) covers.
    pub fn count(&self) -> u64 {
        let (lo, hi) = self.shard.range(self.domain.count());
        hi - lo
    }

    /// The report of `stats` over `seconds`.
    pub fn report(&self, stats: &Stats, seconds: f64) -> Report {
        Report::new(self, stats, seconds)
    }

    /// The statistics of `report`, which must describe this sweep.
    pub(crate) fn stats_of(&self, report: &Report) -> Result<Stats, Error> {
        if report.spec != self.spec {
            return Err(ReportError::OtherSweep {
                report: serde_json::to_string(&report.spec).unwrap_or_default(),
                sweep: serde_json::to_string(&self.spec).unwrap_or_default(),
            }
            .into());
        }
        Ok(report.stats(&self.ctx)?)
    }

    /// Check that `cp` continues this sweep — its shard, its spec, its units done within this
    /// shard's and the report's counts consistent with them — and return its statistics.
    pub(crate) fn check_resume(&self, cp: &Checkpoint) -> Result<Stats, Error> {
        if cp.report.shard != self.shard.label() {
            return Err(
                ResumeError::OtherShard { checkpoint: cp.report.shard.clone(), sweep: self.shard.label() }.into()
            );
        }
        let stats = self.stats_of(&cp.report)?;
        let (lo, hi) = self.shard.range(self.domain.count());
        check_done(cp, lo, hi)?;
        Ok(stats)
    }

    /// Run the sweep, continuing `resume` if given: a checkpoint of this sweep (its shard, its
    /// spec, its units done within this shard's, its report's counts consistent with them:
    /// [`ResumeError`] otherwise).
    pub fn run(&self, resume: Option<Checkpoint>, control: &Control) -> Result<Outcome, Error> {
        let started = Instant::now();
        let (lo, hi) = self.shard.range(self.domain.count());
        let units = (hi - lo).div_ceil(UNIT);
        let (stats, prior_seconds, resumed) = match resume {
            Some(cp) => (self.check_resume(&cp)?, cp.report.seconds, cp),
            None => (
                Stats::new(&self.ctx),
                0.0,
                Checkpoint { done: Vec::new(), report: self.report(&Stats::new(&self.ctx), 0.0) },
            ),
        };
        // The units left, never collected: memory stays bounded whatever the count.
        let todo = (0..units).into_par_iter().filter(|&u| !resumed.is_done(u));
        let done_inputs = AtomicU64::new(resumed.report.count);
        let state = Mutex::new(State { stats, done: resumed.done.clone(), last_checkpoint: Instant::now() });
        let kernel = kernels::select(&self.instr, self.target);
        // Err(None): stopped on request, which ends the iteration as an error does.
        let result: Result<(), Option<Error>> = todo.try_for_each(|u| {
            if control.stop.load(Ordering::Relaxed) {
                return Err(None);
            }
            let start = lo + u * UNIT;
            let end = (start + UNIT).min(hi);
            let unit_stats = match self.instr.format().bits() {
                16 => self.unit::<u16>(kernel, start, end),
                32 => self.unit::<u32>(kernel, start, end),
                _ => self.unit::<u64>(kernel, start, end),
            }
            .map_err(Some)?;
            let mut s = state.lock().unwrap();
            s.stats.merge(unit_stats);
            add_unit(&mut s.done, u);
            let n = done_inputs.fetch_add(end - start, Ordering::Relaxed) + end - start;
            (control.progress)(n, hi - lo);
            if s.last_checkpoint.elapsed().as_secs_f64() >= control.checkpoint_every {
                let seconds = prior_seconds + started.elapsed().as_secs_f64();
                (control.checkpoint)(&Checkpoint { done: s.done.clone(), report: self.report(&s.stats, seconds) });
                s.last_checkpoint = Instant::now();
            }
            Ok(())
        });
        if let Err(Some(e)) = result {
            return Err(e);
        }
        let s = state.into_inner().unwrap();
        let seconds = prior_seconds + started.elapsed().as_secs_f64();
        let complete = s.done.iter().map(|&(a, b)| b - a).sum::<u64>() == units;
        if complete {
            Ok(Outcome::Complete(self.report(&s.stats, seconds)))
        } else {
            Ok(Outcome::Interrupted(Checkpoint { done: s.done, report: self.report(&s.stats, seconds) }))
        }
    }

    /// Inputs `start..end` on the calling thread, in blocks. The references and the
    /// statistics compute with float arithmetic, which needs the IEEE default environment.
    fn unit<W: Word>(&self, kernel: Option<kernels::Kernel>, start: u64, end: u64) -> Result<Stats, Error> {
        kernels::float_env::check()?;
        let n_ops = self.domain.operands();
        let mut stats = Stats::new(&self.ctx);
        let mut ops = vec![vec![W::from_u64(0); BLOCK]; n_ops];
        let mut results = [W::from_u64(0); BLOCK];
        let mut rounded = [W::from_u64(0); BLOCK];
        let mut value = vec![0.0f64; BLOCK];
        let mut scratch = stats::Scratch::default();
        let mut at = start;
        while at < end {
            let len = ((end - at) as usize).min(BLOCK);
            let gives_c_throughout = |first: u32, c: u32| match kernel.and_then(|k| k.all_equal_on_run(first, len, c)) {
                Some(all) => all,
                // No form for runs: the block evaluated into the buffers (again below if the
                // run is not recorded).
                None => {
                    self.domain.fill(at, &mut [&mut ops[0][..len]]);
                    self.instr.eval_block(self.target, kernel, &[&ops[0][..len]], &mut results[..len]);
                    all_equal(&results[..len], c.into())
                }
            };
            if self.record_constant_run(&mut stats, at, len, gives_c_throughout) {
                at += len as u64;
                continue;
            }
            {
                let mut bufs: Vec<&mut [W]> = ops.iter_mut().map(|b| &mut b[..len]).collect();
                self.domain.fill(at, &mut bufs);
            }
            let srcs: Vec<&[W]> = ops.iter().map(|b| &b[..len]).collect();
            self.instr.eval_block(self.target, kernel, &srcs, &mut results[..len]);
            self.reference.eval_block(self.target, self.ctx.dst, at, &srcs, &mut rounded[..len], &mut value[..len])?;
            let block = Evaluated { start: at, inputs: &srcs, results: &results[..len], expected: &rounded[..len] };
            stats.record_block(&self.ctx, &mut scratch, block, &value[..len]);
            at += len as u64;
        }
        Ok(stats)
    }

    /// Record the inputs `at..at + len` as one run, without evaluating the reference input by
    /// input ([`Stats::record_constant_run`]), where they are consecutive f32 inputs
    /// ([`Domain::ascending_run`]) on which the reference is constant with monotone values
    /// ([`Reference::f32_constant_run`]) and `gives_c_throughout(first, c)` finds the
    /// instruction's result to be that constant `c` on every one of them (`first` the run's
    /// first input); false, recording nothing, where that does not apply. Most blocks of an
    /// Ex2 or Tanh sweep over every input are such.
    fn record_constant_run(
        &self,
        stats: &mut Stats,
        at: u64,
        len: usize,
        gives_c_throughout: impl FnOnce(u32, u32) -> bool,
    ) -> bool {
        if self.domain.operands() != 1 || self.ctx.src != Format::F32 || self.ctx.dst != Format::F32 {
            return false;
        }
        // The domain says whether its inputs from `at` on are consecutive without writing
        // them; the reference decides from the ends alone.
        let Some(first) = self.domain.ascending_run(at, len as u64) else { return false };
        let first = first as u32;
        let Some(c) = self.reference.f32_constant_run(first, first + (len as u32 - 1)) else { return false };
        gives_c_throughout(first, c)
            && stats.record_constant_run(&self.ctx, at, first.into(), len, c.into(), |i| {
                self.reference.f32_at(first + i as u32).1
            })
    }
}

/// Whether every word of `s` is `c`: a fold without early exit, which vectorises, in lanes
/// of the [`SimdLevel::active`] level, compared at the word's width.
fn all_equal<W: Word>(s: &[W], c: u64) -> bool {
    let w = W::from_u64(c);
    w.to_u64() == c
        && at_level!(SimdLevel::active(), L => L::run(#[inline(always)] || s.iter().fold(true, |same, x| same & (*x == w))))
}

struct State {
    stats: Stats,
    done: Vec<(u64, u64)>,
    last_checkpoint: Instant,
}

fn unit_len(lo: u64, hi: u64, u: u64) -> u64 {
    let start = lo + u * UNIT;
    (start + UNIT).min(hi) - start
}

/// A checkpoint's record of work done must fit the sweep it continues (inputs `lo..hi`): its
/// unit ranges ascending, disjoint, non-empty and within the sweep, and its report counting
/// exactly the inputs of those units.
fn check_done(cp: &Checkpoint, lo: u64, hi: u64) -> Result<(), ResumeError> {
    let units = (hi - lo).div_ceil(UNIT);
    let mut next = 0;
    for &(a, b) in &cp.done {
        if a < next || b <= a || b > units {
            return Err(ResumeError::DoneUnits { start: a, end: b, units });
        }
        next = b;
    }
    let inputs: u64 = cp.done.iter().map(|&(a, b)| unit_len(lo, hi, b - 1) + (b - 1 - a) * UNIT).sum();
    if cp.report.count != inputs {
        return Err(ResumeError::Count { count: cp.report.count, inputs });
    }
    Ok(())
}

/// Add unit `u` to a sorted list of disjoint half-open ranges, coalescing neighbours.
fn add_unit(done: &mut Vec<(u64, u64)>, u: u64) {
    let at = done.partition_point(|&(_, b)| b < u);
    if at < done.len() && done[at].1 == u {
        done[at].1 = u + 1;
        if at + 1 < done.len() && done[at + 1].0 == u + 1 {
            done[at].1 = done[at + 1].1;
            done.remove(at + 1);
        }
    } else if at < done.len() && done[at].0 == u + 1 {
        done[at].0 = u;
    } else {
        done.insert(at, (u, u + 1));
    }
}

/// Merge the reports of every shard of one sweep into the report of the whole sweep (equal to
/// the report of an unsharded run but for `seconds`, here the sum of the shards').
pub fn merge(reports: &[Report]) -> Result<Report, Error> {
    let first = reports.first().ok_or(MergeError::Nothing)?;
    let whole = Sweep::new(&first.spec, Shard::WHOLE, false)?;
    let mut shards: Vec<Shard> = Vec::new();
    let mut stats = Stats::new(&whole.ctx);
    let mut seconds = 0.0;
    for r in reports {
        let label = r
            .shard
            .as_deref()
            .ok_or_else(|| MergeError::NotAShard { instr: r.instr.clone(), domain: r.domain.clone() })?;
        let shard = Shard::parse(label)?;
        if shards.contains(&shard) {
            return Err(MergeError::Twice { label: label.into() }.into());
        }
        if let Some(other) = shards.first() {
            if other.count != shard.count {
                return Err(MergeError::OtherSplits { first: *other, label: label.into() }.into());
            }
        }
        shards.push(shard);
        stats.merge(whole.stats_of(r)?);
        seconds += r.seconds;
    }
    let n = shards[0].count;
    let missing: Vec<String> =
        (1..=n).filter(|k| !shards.iter().any(|s| s.index == *k)).map(|k| format!("{k}/{n}")).collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing { missing }.into());
    }
    Ok(whole.report(&stats, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_inputs() {
        for total in [0u64, 1, 7, 1 << 32] {
            for n in 1..=5 {
                let mut next = 0;
                for k in 1..=n {
                    let (a, b) = Shard { index: k, count: n }.range(total);
                    assert_eq!(a, next);
                    next = b;
                }
                assert_eq!(next, total);
            }
        }
        assert!(Shard::parse("0/3").is_err() && Shard::parse("4/3").is_err() && Shard::parse("x").is_err());
        assert_eq!(Shard::parse("2/3").ok(), Some(Shard { index: 2, count: 3 }));
    }

    /// The sweep API's errors are structured: what was wrong is a variant with its parts, not
    /// only a message.
    #[test]
    fn sweep_errors_say_what_was_wrong_as_variants() {
        assert!(matches!(Shard::parse("4/3"), Err(Error::Shard { text }) if text == "4/3"));
        let sweep = |f: &dyn Fn(&mut Spec)| {
            let mut spec = Spec::new("rcp.approx.f32");
            f(&mut spec);
            Sweep::new(&spec, Shard::WHOLE, false).err()
        };
        assert!(matches!(sweep(&|s| s.instr = "rcp.approx.f33".into()), Some(Error::Instr(_))));
        assert!(matches!(sweep(&|s| s.arch = "sm_1".into()), Some(Error::Target(_))));
        assert!(matches!(
            sweep(&|s| s.instr = "cvt.rn.f16.f32".into()),
            Some(Error::NotScalar { instr }) if instr.to_string() == "cvt.rn.f16.f32"
        ));
        assert!(matches!(
            sweep(&|s| (s.range, s.binade) = (Some("1.0..2.0".into()), Some(0))),
            Some(Error::Domain(DomainError::RangeAndBinade))
        ));
        assert!(matches!(
            sweep(&|s| s.binade = Some(200)),
            Some(Error::Domain(DomainError::NoSuchBinade { binade: 200, lo: -126, hi: 127, .. }))
        ));
        assert!(matches!(
            sweep(&|s| s.reference = Some("add.rn.f16".into())),
            Some(Error::Reference(ReferenceError::OtherTypes { .. }))
        ));
        assert!(matches!(
            sweep(&|s| s.instr = "min.f32".into()),
            Some(Error::Reference(ReferenceError::NoDefault { .. }))
        ));
        assert!(matches!(merge(&[]), Err(Error::Merge(MergeError::Nothing))));
        assert!(matches!(Report::from_json("{}"), Err(ReportError::NoFormat)));
        assert!(matches!(
            Report::from_json(r#"{"format": "ptxfp sweep report", "version": 7}"#),
            Err(ReportError::Version { version: 7 })
        ));
    }

    /// Blocks that the sweep records as constant runs get the statistics of evaluating the
    /// reference on every input and recording the block: 2^x (with and without `.ftz`,
    /// `.SAT`) and tanh x at and across the edges of their constant regions (|x| < 2^-26,
    /// |x| ≥ 1100, x ≥ 128, x < −126, x ≤ −150, and 2^10, where the values overflow f64;
    /// |x| ≥ 20), of the subnormals and of NaN, in blocks of several lengths, and with one
    /// planted wrong result; where nothing is planted, the kernel's check without buffers
    /// (`Kernel::all_equal_on_run`) agrees with the evaluated block.
    #[test]
    fn constant_runs_record_like_evaluated_blocks() {
        for spelling in ["ex2.approx.ftz.f32", "ex2.approx.f32", "MUFU.EX2.SAT", "tanh.approx.f32"] {
            let sweep = Sweep::new(&Spec::new(spelling), Shard::WHOLE, false).unwrap();
            let kernel = kernels::select(&sweep.instr, sweep.target);
            let (mut runs, mut blocks) = (Stats::new(&sweep.ctx), Stats::new(&sweep.ctx));
            let mut scratch = stats::Scratch::default();
            let mut taken = 0;
            for (k, (edge, sign)) in
                exact::CONSTANT_RUN_EDGES.iter().flat_map(|&e| [(e, 0), (e, 0x8000_0000)]).enumerate()
            {
                for (j, (offset, len)) in
                    [(-5000i64, 4096usize), (-4096, 4096), (-2048, 4096), (0, 4096), (-9, 17), (1, 1000)]
                        .into_iter()
                        .enumerate()
                {
                    let first = (edge as i64 + offset).clamp(0, 0x7FFF_FFFF - len as i64) as u32 | sign;
                    let x: Vec<u32> = (first..first + len as u32).collect();
                    let mut results = vec![0u32; len];
                    sweep.instr.eval_block(sweep.target, kernel, &[&x], &mut results);
                    let planted = (k + j) % 7 == 3;
                    if planted {
                        results[len / 3] ^= 1;
                    }
                    let at = first as u64;
                    let (mut rounded, mut value) = (vec![0u32; len], vec![0f64; len]);
                    sweep.reference.eval_block(sweep.target, Format::F32, at, &[&x], &mut rounded, &mut value).unwrap();
                    let block = Evaluated { start: at, inputs: &[&x], results: &results, expected: &rounded };
                    blocks.record_block(&sweep.ctx, &mut scratch, block, &value);
                    // What the sweep finds without buffers, and from the (planted) results.
                    let gives_c_throughout = |first: u32, c: u32| {
                        assert_eq!(first, x[0]);
                        let all = results.iter().all(|&r| r == c);
                        let on_run = kernel.and_then(|k| k.all_equal_on_run(first, len, c));
                        assert!(planted || on_run == Some(all), "{spelling} from {first:#010x}: {on_run:?}");
                        all
                    };
                    if sweep.record_constant_run(&mut runs, at, len, gives_c_throughout) {
                        taken += 1;
                    } else {
                        runs.record_block(&sweep.ctx, &mut scratch, block, &value);
                    }
                    assert_eq!(runs, blocks, "{spelling}, block of {len} from {first:#010x}");
                }
            }
            assert!(taken >= 8, "{spelling}: only {taken} blocks were constant runs");
        }
    }

    #[test]
    fn done_units_coalesce() {
        let mut d = Vec::new();
        for u in [5, 3, 4, 0, 1, 9] {
            add_unit(&mut d, u);
        }
        assert_eq!(d, vec![(0, 2), (3, 6), (9, 10)]);
    }
}
