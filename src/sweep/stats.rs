//! The statistics of a sweep: signed ulp-distance histogram, worst cases, error by binade,
//! special-value mismatches, first mismatches, the documented bound's clauses and the plot
//! profile. Every statistic merges associatively and commutatively with deterministic tie
//! breaks (the smaller input index wins), so a report never depends on the thread count, the
//! order of work or on sharding.

use std::collections::BTreeMap;

use super::bound::Clause;
use super::domain::ordinal;
use super::plot::Metric;
use super::summary::{
    constant_run, distance, errors_of, first_reaching, first_reaching_monotone, summarize, Block, LaneScratch, Summary,
};
use crate::batch::Word;
use crate::format::Format;

/// How many first mismatches and special-value mismatches a report keeps.
pub const FIRST: usize = 20;
/// Buckets of the error-against-input profile.
pub const PLOT_BUCKETS: usize = 2048;
/// Distances below this magnitude have histogram entries of their own.
pub const EXACT_DISTANCES: u64 = 1 << 12;
/// Distances in `-DENSE..=DENSE` are counted at index `d + DENSE` of one array.
const DENSE: i64 = EXACT_DISTANCES as i64 - 1;
/// Power-of-two bins 2^12 … 2^62 of each sign.
const BINS: usize = 51;

/// The histogram key of distance `d`: itself below [`EXACT_DISTANCES`], else its power-of-two
/// bin's smallest magnitude with its sign.
pub fn distance_key(d: i64) -> i64 {
    let m = d.unsigned_abs();
    if m < EXACT_DISTANCES {
        return d;
    }
    // The top bin, ±2^62, also holds the magnitude 2^63 (i64::MIN), which has no positive i64.
    let key = (1u64 << (63 - m.leading_zeros())).min(1 << 62) as i64;
    if d < 0 {
        -key
    } else {
        key
    }
}

/// One evaluated input with its result, the reference's result and an error.
#[derive(Clone, Debug)]
pub struct Case {
    pub index: u64,
    pub inputs: Vec<u64>,
    pub result: u64,
    pub expected: u64,
    /// The reference's value, which absolute and relative errors are measured against (the
    /// exact value of a mathematical reference).
    pub value: f64,
    pub error: f64,
}

/// Equal fields, values compared by their bits (a NaN value equals itself).
impl PartialEq for Case {
    fn eq(&self, other: &Case) -> bool {
        (self.index, &self.inputs, self.result, self.expected, self.error)
            == (other.index, &other.inputs, other.result, other.expected, other.error)
            && self.value.to_bits() == other.value.to_bits()
    }
}

/// Keep the case with the larger error; on equal errors the smaller index.
fn worse(a: &Option<Case>, b: &Option<Case>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.error > b.error || (a.error == b.error && a.index < b.index),
        (Some(_), None) => true,
        _ => false,
    }
}

fn keep_worse(slot: &mut Option<Case>, other: Option<Case>) {
    if worse(&other, slot) {
        *slot = other;
    }
}

/// Offer the input `index` with `error` to `slot`; the case is built only if it wins.
#[inline]
fn offer(slot: &mut Option<Case>, error: f64, index: u64, case: impl FnOnce(f64) -> Case) {
    let wins = match slot {
        Some(w) => error > w.error || (error == w.error && index < w.index),
        None => true,
    };
    if wins {
        *slot = Some(case(error));
    }
}

/// Whether a case with `index` would enter a first-cases list.
#[inline]
fn enters(list: &[Case], index: u64) -> bool {
    list.len() < FIRST || list.last().is_some_and(|last| index < last.index)
}

/// The number of inputs (every one) and the largest errors (of the inputs with no NaN on
/// either side) in one binade of operand 0 or one bucket of the plot's input axis.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extremes {
    pub count: u64,
    pub max_ulp: u64,
    pub max_abs: f64,
    pub max_rel: f64,
}

impl Extremes {
    fn add(&mut self, count: u64, ulp: u64, abs: f64, rel: f64) {
        self.count += count;
        self.max_ulp = self.max_ulp.max(ulp);
        self.max_abs = self.max_abs.max(abs);
        self.max_rel = self.max_rel.max(rel);
    }
}

/// Consecutive inputs `start..start + results.len()` as a sweep evaluated them: the operands
/// (a slice per source operand), the instruction's results and the reference's results.
#[derive(Clone, Copy)]
pub struct Evaluated<'a, W> {
    pub start: u64,
    pub inputs: &'a [&'a [W]],
    pub results: &'a [W],
    pub expected: &'a [W],
}

impl<'a, W> Evaluated<'a, W> {
    /// The block's first `h` inputs and the rest, given the operands' halves (`lo`, `hi`).
    fn split(self, h: usize, lo: &'a [&'a [W]], hi: &'a [&'a [W]]) -> (Evaluated<'a, W>, Evaluated<'a, W>) {
        let (results, expected) = (self.results.split_at(h), self.expected.split_at(h));
        (
            Evaluated { start: self.start, inputs: lo, results: results.0, expected: expected.0 },
            Evaluated { start: self.start + h as u64, inputs: hi, results: results.1, expected: expected.1 },
        )
    }
}

/// Per-block buffers of [`Stats::record_block`], reused from block to block.
#[derive(Default)]
pub struct Scratch {
    lanes: LaneScratch,
}

/// What the statistics need to know about the sweep.
#[derive(Clone, Debug)]
pub struct Context {
    /// Format of the operands and of the results.
    pub src: Format,
    pub dst: Format,
    /// Results match only when their bits are equal (a dump or another instruction); with a
    /// mathematical reference two NaNs match whatever their payloads.
    pub bitwise: bool,
    pub clauses: Vec<Clause>,
    /// Each clause's region as ordinal intervals of operand 0, when it depends on it alone.
    regions: Vec<Option<Vec<(i64, i64)>>>,
    /// Ordinal range of operand 0 mapped onto the plot buckets.
    lo: i64,
    /// Bucket = ((ordinal − lo) · scale) >> 64.
    scale: u128,
}

impl Context {
    /// `span`: the smallest and largest ordinal of operand 0 in the domain.
    pub fn new(src: Format, dst: Format, bitwise: bool, clauses: Vec<Clause>, span: (i64, i64)) -> Context {
        let regions = clauses.iter().map(|c| c.region.ordinal_intervals(src)).collect();
        let width = (span.1 as i128 - span.0 as i128 + 1) as u128;
        let scale = ((PLOT_BUCKETS as u128) << 64) / width;
        Context { src, dst, bitwise, clauses, regions, lo: span.0, scale }
    }

    #[inline]
    fn bucket(&self, key: i64) -> usize {
        let offset = (key as i128 - self.lo as i128).max(0) as u128;
        (((offset * self.scale) >> 64) as usize).min(PLOT_BUCKETS - 1)
    }

    /// The first ordinal of bucket `b` (for plot labels).
    pub fn bucket_start(&self, b: usize) -> i64 {
        let k = ((b as u128) << 64).div_ceil(self.scale);
        (self.lo as i128 + k as i128) as i64
    }

    /// Whether input `x` (operand ordinals and values) with exact result `value` is in the
    /// region of clause `c`.
    fn in_region(&self, c: usize, key: i64, xs: &[f64], value: f64) -> bool {
        if value.is_nan() {
            return false;
        }
        match &self.regions[c] {
            Some(intervals) => intervals.iter().any(|&(a, b)| (a..=b).contains(&key)),
            None => self.clauses[c].region.contains(self.dst, xs, value),
        }
    }

    /// Whether a block of summary `sum` lies in one binade, one plot bucket and on one side
    /// of every clause's region, so that its statistics are recorded as one.
    fn simple(&self, sum: &Summary) -> bool {
        sum.emin == sum.emax
            && self.bucket(sum.kmin) == self.bucket(sum.kmax)
            && (0..self.clauses.len()).all(|c| self.uniform_region(c, sum.kmin, sum.kmax).is_some())
    }

    /// Some(membership) of clause `c` when every ordinal in `lo..=hi` has the same one.
    fn uniform_region(&self, c: usize, lo: i64, hi: i64) -> Option<bool> {
        let intervals = self.regions[c].as_ref()?;
        if intervals.iter().any(|&(a, b)| a <= lo && hi <= b) {
            return Some(true);
        }
        let disjoint = intervals.iter().all(|&(a, b)| hi < a || b < lo);
        disjoint.then_some(false)
    }
}

/// The statistics of any part of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub count: u64,
    dense: Vec<u64>,
    /// Bin 2^(12 + k) at index k for positive distances, BINS + k for negative ones.
    binned: Vec<u64>,
    pub worst_ulp: Option<Case>,
    pub worst_abs: Option<Case>,
    pub worst_rel: Option<Case>,
    pub special_count: u64,
    pub first_special: Vec<Case>,
    pub mismatch_count: u64,
    pub first_mismatches: Vec<Case>,
    pub binades: Vec<Extremes>,
    /// The worst case of each clause of the bound, in clause order.
    pub clauses: Vec<Option<Case>>,
    pub buckets: Vec<Extremes>,
}

impl Stats {
    pub fn new(ctx: &Context) -> Stats {
        Stats {
            count: 0,
            dense: vec![0; (2 * DENSE + 1) as usize],
            binned: vec![0; 2 * BINS],
            worst_ulp: None,
            worst_abs: None,
            worst_rel: None,
            special_count: 0,
            first_special: Vec::new(),
            mismatch_count: 0,
            first_mismatches: Vec::new(),
            binades: vec![Extremes::default(); 1 << ctx.src.exp_bits()],
            clauses: vec![None; ctx.clauses.len()],
            buckets: vec![Extremes::default(); PLOT_BUCKETS],
        }
    }

    /// Signed ulp distance (result − expected, in representable values) → count. Inputs whose
    /// result and expected value disagree on being NaN have no distance and are counted as
    /// special mismatches only.
    pub fn histogram(&self) -> BTreeMap<i64, u64> {
        let mut h = BTreeMap::new();
        for (i, &n) in self.binned.iter().enumerate() {
            if n != 0 {
                let key = 1i64 << (12 + i % BINS);
                h.insert(if i < BINS { key } else { -key }, n);
            }
        }
        for (i, &n) in self.dense.iter().enumerate() {
            if n != 0 {
                h.insert(i as i64 - DENSE, n);
            }
        }
        h
    }

    /// Count distance `d` `n` times. Distances of magnitude [`EXACT_DISTANCES`] or more are
    /// counted in power-of-two bins keyed by their smallest magnitude (±2^k stands for
    /// ±[2^k, 2^(k+1))), which bounds the histogram's size whatever the errors.
    pub fn add_distance(&mut self, d: i64, n: u64) {
        if (-DENSE..=DENSE).contains(&d) {
            self.dense[(d + DENSE) as usize] += n;
        } else {
            let k = distance_key(d);
            let bin = (63 - k.unsigned_abs().leading_zeros() - 12) as usize;
            self.binned[if k < 0 { BINS + bin } else { bin }] += n;
        }
    }

    /// Record a block of evaluated inputs and the reference's values. Blocks whose operand 0 stays in one
    /// binade, one plot bucket and one side of every clause's region, and that hold no NaN and
    /// no disagreement at an infinity, are summarised in one pass (`summary::summarize`); the others
    /// input by input.
    pub fn record_block<W: Word>(&mut self, ctx: &Context, scratch: &mut Scratch, block: Evaluated<W>, value: &[f64]) {
        let Evaluated { start, inputs, results, expected } = block;
        let n = results.len();
        if n == 0 {
            return;
        }
        let (src, dst) = (ctx.src, ctx.dst);
        let lanes = Block { src, dst, bitwise: ctx.bitwise, operand0: inputs[0], results, expected, values: value };
        let sum = summarize(lanes, &mut scratch.lanes);
        if !ctx.simple(&sum) || sum.irregular {
            if n > 256 {
                // Halves are often simple (a block straddling one binade or bucket edge).
                let h = n / 2;
                let (lo, hi): (Vec<&[W]>, Vec<&[W]>) = inputs.iter().map(|s| s.split_at(h)).unzip();
                let (first, second) = block.split(h, &lo, &hi);
                self.record_block(ctx, scratch, first, &value[..h]);
                self.record_block(ctx, scratch, second, &value[h..]);
                return;
            }
            let mut ops = [0u64; crate::ptx::MAX_SOURCES];
            for i in 0..n {
                for (slot, src) in ops.iter_mut().zip(inputs) {
                    *slot = src[i].to_u64();
                }
                self.record(
                    ctx,
                    start + i as u64,
                    &ops[..inputs.len()],
                    results[i].to_u64(),
                    expected[i].to_u64(),
                    value[i],
                );
            }
            return;
        }
        let c = results[0].to_u64();
        let pair = |i: usize| (results[i].to_u64(), expected[i].to_u64());
        let case = |i: usize, error: f64| {
            let (result, expected) = pair(i);
            let inputs = inputs.iter().map(|s| s[i].to_u64()).collect();
            Case { index: start + i as u64, inputs, result, expected, value: value[i], error }
        };
        self.record_summary(ctx, (start, n), &sum, pair, case, |metric, max| {
            first_reaching(dst, c, value, metric == Metric::Relative, max)
        });
    }

    /// Record a run of `n` consecutive inputs from `start` on, whose operand 0 is the ascending
    /// bit patterns of one sign from `first` on, whose results the caller has found to be all the
    /// reference's result `c`, and whose reference values are monotone along the run
    /// (`value_at(i)` is input i's): the statistics [`Stats::record_block`] records for such a
    /// block, from the values at the run's ends and, where a worst case may be at stake, a
    /// bisection for the first input reaching a maximum (`summary::constant_run`,
    /// `summary::first_reaching_monotone`). Returns false, recording nothing, where the run is
    /// not summarised as one block (it straddles a binade, a plot bucket or a clause's region).
    pub fn record_constant_run(
        &mut self,
        ctx: &Context,
        start: u64,
        first: u64,
        n: usize,
        c: u64,
        value_at: impl Fn(usize) -> f64,
    ) -> bool {
        if n == 0 {
            return false;
        }
        let ends = (value_at(0), value_at(n - 1));
        let last = first + n as u64 - 1;
        let Some(sum) = constant_run(ctx.src, ctx.dst, first, last, c, ends).filter(|sum| ctx.simple(sum)) else {
            return false;
        };
        // Every expected result is c, as every result is.
        let case = |i: usize, error: f64| Case {
            index: start + i as u64,
            inputs: vec![first + i as u64],
            result: c,
            expected: c,
            value: value_at(i),
            error,
        };
        self.record_summary(
            ctx,
            (start, n),
            &sum,
            |_| (c, c),
            case,
            |metric, max| first_reaching_monotone(ctx.dst, c, n, metric == Metric::Relative, max, &value_at),
        );
        true
    }

    /// The rest of [`Stats::record_block`] for the `n` inputs from `start` on summarised as one
    /// (`sum`): `pair(i)` is input i's result and expected result, `case(i, error)` its
    /// [`Case`], `first_reaching(metric, max)` the first input reaching the maximum `max` of
    /// `metric` where the summary does not say.
    fn record_summary(
        &mut self,
        ctx: &Context,
        (start, n): (u64, usize),
        sum: &Summary,
        pair: impl Fn(usize) -> (u64, u64),
        case: impl Fn(usize, f64) -> Case,
        first_reaching: impl Fn(Metric, f64) -> usize,
    ) {
        let (src, dst) = (ctx.src, ctx.dst);
        let (kmin, kmax) = (sum.kmin, sum.kmax);
        self.count += n as u64;
        let (max_ulp, max_abs, max_rel) = (sum.max_ulp, sum.max_abs, sum.max_rel);
        let d = |i: usize| {
            let (r, e) = pair(i);
            ulp_distance(dst, r, e)
        };
        if max_ulp <= 2 {
            for (k, &count) in [-2i64, -1, 1, 2].iter().zip(&sum.near) {
                self.dense[(k + DENSE) as usize] += count;
            }
            self.dense[DENSE as usize] += n as u64 - sum.near.iter().sum::<u64>();
        } else {
            for i in 0..n {
                self.add_distance(d(i), 1);
            }
        }
        // The first input reaching the block's maximum of `metric`, offered to `slot` (and
        // looked for only where it may win).
        let offer_max = |slot: &mut Option<Case>, metric: Metric| {
            let (max, at) = match metric {
                Metric::Ulp => (max_ulp as f64, Some(sum.at_ulp)),
                Metric::Absolute => (max_abs, sum.at_abs),
                Metric::Relative => (max_rel, sum.at_rel),
            };
            if slot.as_ref().is_some_and(|w| max < w.error) {
                return;
            }
            let i = at.unwrap_or_else(|| first_reaching(metric, max));
            offer(slot, max, start + i as u64, |e| case(i, e));
        };
        if max_ulp > 0 {
            offer_max(&mut self.worst_ulp, Metric::Ulp);
        }
        if max_abs > 0.0 {
            offer_max(&mut self.worst_abs, Metric::Absolute);
        }
        if max_rel > 0.0 {
            offer_max(&mut self.worst_rel, Metric::Relative);
        }
        for c in 0..ctx.clauses.len() {
            if ctx.uniform_region(c, kmin, kmax) == Some(true) {
                offer_max(&mut self.clauses[c], ctx.clauses[c].metric);
            }
        }
        if sum.specials > 0 {
            // Results or expected results at a zero: special-value mismatches.
            self.special_count += sum.specials;
            let edge = |b: u64| b & !dst.sign_bit() == 0;
            for i in 0..n {
                let (r, e) = pair(i);
                if r != e && (edge(r) || edge(e)) {
                    if !enters(&self.first_special, start + i as u64) {
                        break;
                    }
                    push_first(&mut self.first_special, case(i, d(i).unsigned_abs() as f64));
                }
            }
        }
        if sum.mismatches > 0 {
            self.mismatch_count += sum.mismatches;
            for i in 0..n {
                let (r, e) = pair(i);
                if r != e && (ctx.bitwise || !(dst.is_nan(r) && dst.is_nan(e))) {
                    if !enters(&self.first_mismatches, start + i as u64) {
                        break;
                    }
                    push_first(&mut self.first_mismatches, case(i, d(i).unsigned_abs() as f64));
                }
            }
        }
        for b in [&mut self.binades[(sum.emin >> src.frac_bits()) as usize], &mut self.buckets[ctx.bucket(kmin)]] {
            b.add(n as u64, max_ulp, max_abs, max_rel);
        }
    }

    /// Record one input. `value` is the exact result (or the expected result as a number).
    pub fn record(&mut self, ctx: &Context, index: u64, inputs: &[u64], result: u64, expected: u64, value: f64) {
        let dst = ctx.dst;
        self.count += 1;
        let case = |error: f64| Case { index, inputs: inputs.to_vec(), result, expected, value, error };
        let (r_nan, e_nan) = (dst.is_nan(result), dst.is_nan(expected));
        let d = ulp_distance(dst, result, expected);
        let mismatch = if ctx.bitwise { result != expected } else { result != expected && !(r_nan && e_nan) };
        if mismatch {
            self.mismatch_count += 1;
            if enters(&self.first_mismatches, index) {
                let error = if r_nan != e_nan { f64::INFINITY } else { d.unsigned_abs() as f64 };
                push_first(&mut self.first_mismatches, case(error));
            }
        }
        let key = ordinal(ctx.src, inputs[0]);
        let mut xs = [0.0; 3];
        for (slot, &x) in xs.iter_mut().zip(inputs) {
            *slot = ctx.src.to_f64(x);
        }
        let xs = &xs[..inputs.len()];
        // Every input counts in its binade and bucket; those with a NaN on either side add no
        // error there.
        let binade = ((inputs[0] & ctx.src.exp_mask()) >> ctx.src.frac_bits()) as usize;
        let bucket = ctx.bucket(key);
        if r_nan || e_nan {
            self.binades[binade].add(1, 0, 0.0, 0.0);
            self.buckets[bucket].add(1, 0, 0.0, 0.0);
        }
        if r_nan != e_nan {
            self.special(index, || case(f64::INFINITY));
            for c in 0..ctx.clauses.len() {
                if ctx.in_region(c, key, xs, value) {
                    offer(&mut self.clauses[c], f64::INFINITY, index, case);
                }
            }
            return;
        }
        self.add_distance(d, 1);
        if r_nan {
            return;
        }
        let edge = |b: u64| b & !dst.sign_bit() == 0 || b & !dst.sign_bit() == dst.exp_mask();
        if result != expected && (edge(result) || edge(expected)) {
            self.special(index, || case(d.unsigned_abs() as f64));
        }
        let (abs, rel) = errors_of(dst.to_f64(result), value, result == expected);
        let ulp = d.unsigned_abs();
        if ulp > 0 {
            offer(&mut self.worst_ulp, ulp as f64, index, case);
        }
        if abs > 0.0 {
            offer(&mut self.worst_abs, abs, index, case);
        }
        if rel > 0.0 {
            offer(&mut self.worst_rel, rel, index, case);
        }
        self.binades[binade].add(1, ulp, abs, rel);
        self.buckets[bucket].add(1, ulp, abs, rel);
        for c in 0..ctx.clauses.len() {
            if !ctx.in_region(c, key, xs, value) {
                continue;
            }
            let error = match ctx.clauses[c].metric {
                Metric::Ulp => ulp as f64,
                Metric::Absolute => abs,
                Metric::Relative => rel,
            };
            offer(&mut self.clauses[c], error, index, case);
        }
    }

    fn special(&mut self, index: u64, case: impl FnOnce() -> Case) {
        self.special_count += 1;
        if enters(&self.first_special, index) {
            push_first(&mut self.first_special, case());
        }
    }

    /// Fold `other` (statistics of disjoint inputs) into `self`.
    pub fn merge(&mut self, other: Stats) {
        self.count += other.count;
        for (a, b) in self.dense.iter_mut().zip(&other.dense) {
            *a += b;
        }
        for (a, b) in self.binned.iter_mut().zip(&other.binned) {
            *a += b;
        }
        keep_worse(&mut self.worst_ulp, other.worst_ulp);
        keep_worse(&mut self.worst_abs, other.worst_abs);
        keep_worse(&mut self.worst_rel, other.worst_rel);
        self.special_count += other.special_count;
        for c in other.first_special {
            push_first(&mut self.first_special, c);
        }
        self.mismatch_count += other.mismatch_count;
        for c in other.first_mismatches {
            push_first(&mut self.first_mismatches, c);
        }
        for (a, b) in self.binades.iter_mut().zip(&other.binades) {
            a.add(b.count, b.max_ulp, b.max_abs, b.max_rel);
        }
        for (a, b) in self.clauses.iter_mut().zip(other.clauses) {
            keep_worse(a, b);
        }
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            a.add(b.count, b.max_ulp, b.max_abs, b.max_rel);
        }
    }
}

/// The signed ulp distance of `result` from `expected`: 0 between two NaNs (whose payloads
/// have no distance), else [`distance`].
fn ulp_distance(dst: Format, result: u64, expected: u64) -> i64 {
    if dst.is_nan(result) && dst.is_nan(expected) {
        0
    } else {
        distance(dst, result, expected)
    }
}

/// Keep the `FIRST` cases with the smallest indices.
fn push_first(list: &mut Vec<Case>, case: Case) {
    if list.len() == FIRST && list.last().is_some_and(|last| last.index < case.index) {
        return;
    }
    let at = list.partition_point(|c| c.index < case.index);
    list.insert(at, case);
    list.truncate(FIRST);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::bound::{Clause, Region};

    /// Record one block of `inputs` (operand 0, truncated to words `W`) that all give the
    /// result `c`, the reference agreeing, with the reference values `value`.
    fn record_as<W: Word>(
        stats: &mut Stats,
        ctx: &Context,
        scratch: &mut Scratch,
        start: u64,
        inputs: &[u64],
        c: u64,
        value: &[f64],
    ) {
        let x: Vec<W> = inputs.iter().map(|&b| W::from_u64(b)).collect();
        let r = vec![W::from_u64(c); inputs.len()];
        stats.record_block(ctx, scratch, Evaluated { start, inputs: &[&x], results: &r, expected: &r }, value);
    }

    /// Record `results` both as blocks and input by input, and compare.
    fn block_equals_single<W: Word>(
        ctx: &Context,
        start: u64,
        inputs: &[W],
        results: &[W],
        expected: &[W],
        value: &[f64],
    ) {
        let mut block = Stats::new(ctx);
        block.record_block(
            ctx,
            &mut Scratch::default(),
            Evaluated { start, inputs: &[inputs], results, expected },
            value,
        );
        let mut single = Stats::new(ctx);
        for i in 0..results.len() {
            let (x, r, e) = (inputs[i].to_u64(), results[i].to_u64(), expected[i].to_u64());
            single.record(ctx, start + i as u64, &[x], r, e, value[i]);
        }
        assert_eq!(block, single, "{:?} block of {} from {start}", ctx.dst, results.len());
    }

    /// One clause over every input for each metric, with small limits.
    fn clauses_of_every_metric() -> Vec<Clause> {
        vec![
            Clause { region: Region::All, metric: Metric::Ulp, limit: 1.0 },
            Clause { region: Region::All, metric: Metric::Absolute, limit: 1e-9 },
            Clause { region: Region::All, metric: Metric::Relative, limit: 1e-9 },
        ]
    }

    /// The ordinals of −Inf and +Inf: the span of every input of `fmt`.
    fn whole_span(fmt: Format) -> (i64, i64) {
        (ordinal(fmt, fmt.inf(true)), ordinal(fmt, fmt.inf(false)))
    }

    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// The block summaries equal input-by-input recording, on blocks that exercise the fast
    /// path, the halving and the per-input path (NaNs, zeros, infinities, large distances).
    #[test]
    fn block_summaries_equal_per_input_recording() {
        let clauses = vec![
            Clause { region: Region::All, metric: Metric::Ulp, limit: 1.0 },
            Clause { region: Region::AbsAtMost(2.0), metric: Metric::Absolute, limit: 1e-6 },
            Clause { region: Region::Positive, metric: Metric::Relative, limit: 1e-6 },
        ];
        let ctx = Context::new(Format::F32, Format::F32, false, clauses, (-(1 << 31), (1 << 31) - 1));
        let mut next = xorshift(0x1234_5678_9ABC_DEF0);
        for trial in 0..40u64 {
            let n = 4096 - (trial as usize % 3) * 7;
            // Contiguous inputs from a random start (crossing binades sometimes), results
            // within a few units of the reference, with occasional specials.
            let base = (next() as u32) & 0xFFFF_F000;
            let inputs: Vec<u32> =
                (0..n as u32).map(|i| base.wrapping_add(i * (1 + (trial as u32 % 3) * 1000))).collect();
            let expected: Vec<u32> = inputs.iter().map(|&x| (x >> 1) + 0x1000_0000).collect();
            let results: Vec<u32> = expected
                .iter()
                .map(|&e| match next() % 1000 {
                    0 if trial % 4 == 0 => 0x7FFF_FFFF,
                    1 if trial % 4 == 1 => 0,
                    2..=300 => e.wrapping_add((next() % 5) as u32).wrapping_sub(2),
                    301 if trial % 4 == 2 => e ^ 0x0040_0000,
                    302 if trial % 4 == 3 => e ^ 0x8000_0000,
                    _ => e,
                })
                .collect();
            let value: Vec<f64> = expected.iter().map(|&e| f32::from_bits(e) as f64 * (1.0 + 1e-9)).collect();
            block_equals_single(&ctx, trial * 1_000_000, &inputs, &results, &expected, &value);
        }
    }

    /// Blocks where results and expected results are both NaN (with equal or different
    /// payloads) in places, compared bitwise (a dump) or not (a mathematical reference).
    #[test]
    fn nan_pairs_equal_per_input_recording() {
        let mut next = xorshift(0x5EED_0000_1111_2222);
        for bitwise in [false, true] {
            let ctx = Context::new(Format::F32, Format::F32, bitwise, Vec::new(), (-(1 << 31), (1 << 31) - 1));
            for trial in 0..8u64 {
                let n = 4096 - trial as usize;
                let base = 0x3F80_0000u32 + (trial as u32) * 0x10_0000;
                let inputs: Vec<u32> = (0..n as u32).map(|i| base + i).collect();
                let (expected, results): (Vec<u32>, Vec<u32>) = inputs
                    .iter()
                    .map(|&x| match next() % 4 {
                        0 => (0x7FC0_0000, [0x7FC0_0000, 0x7FFF_FFFF, 0xFFC0_0001][(next() % 3) as usize]),
                        1 => (x, x + (next() % 3) as u32),
                        _ => (x, x),
                    })
                    .unzip();
                let value: Vec<f64> = expected.iter().map(|&e| f32::from_bits(e) as f64 * (1.0 + 1e-9)).collect();
                block_equals_single(&ctx, trial << 20, &inputs, &results, &expected, &value);
            }
        }
    }

    /// The relative-error maximum of the lane pass (approximate quotients, exact division of
    /// the candidates) is exact, with its first input, also where many inputs tie, where
    /// quotients differ in the last bits only, and where exact values are f64 subnormals or
    /// beyond 2^1000; in f32, f16 and bf16.
    #[test]
    fn relative_error_maxima_are_exact() {
        let mut next = xorshift(0x0DDB_A11C_0FFE_E000);
        for fmt in [Format::F32, Format::F16, Format::BF16] {
            let ctx = Context::new(fmt, fmt, false, Vec::new(), whole_span(fmt));
            let one = fmt.one();
            for trial in 0..24u64 {
                let n = [4096, 1000, 17][trial as usize % 3];
                let inputs: Vec<u64> = (0..n as u64).map(|i| one + (i & 0xF)).collect();
                let (expected, value): (Vec<u64>, Vec<f64>) = (0..n)
                    .map(|_| match trial % 4 {
                        // Every relative error 1: results 0 against f64 subnormal values.
                        0 => (0, f64::from_bits(1 + (next() % 1000))),
                        // Values beyond 2^1000 under infinite results.
                        1 => (fmt.inf(false), 2f64.powi(1000 + (next() % 20) as i32)),
                        // Quotients 1/3 to within a few f64 units (closer than the
                        // approximate quotients can tell), of different values.
                        2 => {
                            let r = one + next() % (1 << fmt.frac_bits());
                            (r, fmt.to_f64(r) * 1.5)
                        }
                        _ => (one + (next() % 4), fmt.to_f64(one) * (1.0 + (next() % 1024) as f64 * 2f64.powi(-40))),
                    })
                    .unzip();
                let results: Vec<u64> =
                    expected.iter().map(|&e| if next().is_multiple_of(3) { e + 1 } else { e }).collect();
                let results = if trial % 4 < 3 { expected.clone() } else { results };
                match fmt {
                    Format::F32 => {
                        let w = |v: &[u64]| v.iter().map(|&b| b as u32).collect::<Vec<u32>>();
                        block_equals_single(&ctx, trial, &w(&inputs), &w(&results), &w(&expected), &value);
                    }
                    _ => {
                        let w = |v: &[u64]| v.iter().map(|&b| b as u16).collect::<Vec<u16>>();
                        block_equals_single(&ctx, trial, &w(&inputs), &w(&results), &w(&expected), &value);
                    }
                }
            }
        }
    }

    /// Constant blocks (one result throughout, equal to the expected one), recorded one after
    /// another into the same statistics, equal input-by-input recording: at infinities, at
    /// zeros of both signs, at ±1 and ±1.5 with exact values on both sides, repeated (ties) and
    /// in every order, and with values beyond [c/2, 2c] (no longer summarised from the
    /// extremes); in f32, f16 and bf16, with clauses of every metric.
    #[test]
    fn constant_blocks_equal_per_input_recording() {
        let mut next = xorshift(0xC0B5_7A47_0000_0001);
        let clauses = clauses_of_every_metric();
        for fmt in [Format::F32, Format::F16, Format::BF16] {
            let ctx = Context::new(fmt, fmt, false, clauses.clone(), whole_span(fmt));
            let (mut blocks, mut single) = (Stats::new(&ctx), Stats::new(&ctx));
            let mut scratch = Scratch::default();
            let mut start = 0u64;
            for trial in 0..60u64 {
                let n = [4096, 1000, 17, 5, 4096][trial as usize % 5];
                let one = fmt.to_f64(fmt.one());
                let (c, centre) = match trial % 6 {
                    0 => (fmt.inf(trial % 12 == 0), 1e300),
                    1 => (fmt.zero(trial % 12 == 1), 0.0),
                    2 => (fmt.one(), one),
                    3 => (fmt.one() | fmt.sign_bit(), -one),
                    4 => (fmt.one() + (1 << (fmt.frac_bits() - 1)), 1.5),
                    _ => (fmt.one() | fmt.sign_bit(), -one),
                };
                // Few distinct values (ties at the extremes) or many; spread within a few
                // units of the result, or (every sixth trial) past half or twice it.
                let distinct = if trial % 2 == 0 { 7 } else { 1 << 20 };
                let spread = if trial % 6 == 5 { 0.7 } else { 2f64.powi(-24) };
                let value: Vec<f64> = (0..n)
                    .map(|i| {
                        let k = match trial % 3 {
                            0 => next() % distinct,
                            1 => i as u64 % distinct,
                            _ => (n - i) as u64 % distinct,
                        };
                        let t = (k as f64 / distinct as f64 - 0.5) * 2.0 * spread;
                        match trial % 6 {
                            // Tiny values of both signs and exact zeros under a zero result.
                            1 if k % 3 == 0 => 0.0,
                            1 => t * 1e-30,
                            _ => centre * (1.0 + t),
                        }
                    })
                    .collect();
                let inputs: Vec<u64> = (0..n as u64).map(|i| (start + i) & 0x7FFF).collect();
                match fmt {
                    Format::F32 => record_as::<u32>(&mut blocks, &ctx, &mut scratch, start, &inputs, c, &value),
                    _ => record_as::<u16>(&mut blocks, &ctx, &mut scratch, start, &inputs, c, &value),
                }
                for i in 0..n {
                    single.record(&ctx, start + i as u64, &[inputs[i]], c, c, value[i]);
                }
                start += n as u64;
                assert_eq!(blocks, single, "{fmt:?}, after trial {trial}");
            }
        }
    }

    /// Runs of consecutive inputs with one result throughout and monotone exact values,
    /// recorded from their ends (`record_constant_run`, input-by-input recording of the
    /// blocks it declines), equal input-by-input recording: at infinities, zeros, ±1 and 1.5,
    /// with values rising or falling, with ties (the first input reaching a maximum then lies
    /// inside the run) or all distinct, within [c/2, 2c] or past it and across zero; runs that
    /// straddle a binade must be declined, and those holding one different result are not
    /// offered (as the sweep checks every result first).
    #[test]
    fn constant_runs_equal_per_input_recording() {
        let mut next = xorshift(0x2C0D_57A1_7000_0005);
        let clauses = clauses_of_every_metric();
        let fmt = Format::F32;
        let ctx = Context::new(fmt, fmt, false, clauses, whole_span(fmt));
        let (mut runs, mut single) = (Stats::new(&ctx), Stats::new(&ctx));
        let mut scratch = Scratch::default();
        let (mut start, mut taken, mut declined) = (0u64, 0, 0);
        for trial in 0..600 {
            let n = [4096, 1000, 17, 2, 1][(next() % 5) as usize];
            let (c, centre) = match next() % 6 {
                0 => (fmt.inf(next().is_multiple_of(2)), 1e300),
                1 => (fmt.zero(next().is_multiple_of(2)), 0.0),
                2 => (fmt.one(), 1.0),
                3 => (fmt.one() | fmt.sign_bit(), -1.0),
                _ => (fmt.one() + (1 << 22), 1.5),
            };
            let distinct = if next().is_multiple_of(2) { 5 } else { 1 << 30 };
            // Within a few units of the result, or past half or twice it, or across zero.
            let spread = [0.7, 1.5, 2f64.powi(-24), 2f64.powi(-24)][(next() % 4) as usize];
            let mut ks: Vec<u64> = (0..n).map(|_| next() % distinct).collect();
            ks.sort_unstable();
            if next().is_multiple_of(2) {
                ks.reverse();
            }
            let value: Vec<f64> = ks
                .iter()
                .map(|&k| {
                    let t = (k as f64 / distinct as f64 - 0.5) * 2.0 * spread;
                    if centre == 0.0 {
                        t * 1e-30
                    } else {
                        centre * (1.0 + t)
                    }
                })
                .collect();
            // Consecutive inputs of either sign inside one binade, or across the binade at 2.
            let straddles = next().is_multiple_of(8) && n > 1;
            let sign = if next().is_multiple_of(2) { 0x8000_0000 } else { 0 };
            let base =
                if straddles { 0x4000_0000 - n as u32 / 2 } else { 0x3F80_0000 + (next() % 64) as u32 * 0x1_0000 };
            let base = base | sign;
            let x: Vec<u32> = (0..n as u32).map(|i| base + i).collect();
            let mut r = vec![c as u32; n];
            let planted = next().is_multiple_of(8) && n > 1;
            if planted {
                r[n / 2] += 1;
            }
            // Into statistics of all trials so far, and into fresh ones (where every maximum
            // is a worst case, so the first input reaching it is always looked for).
            let (mut fresh_runs, mut fresh_single) = (Stats::new(&ctx), Stats::new(&ctx));
            let mut taken_here = 0;
            for runs in [&mut runs, &mut fresh_runs] {
                let all_c = r.iter().all(|&w| u64::from(w) == c);
                if all_c && runs.record_constant_run(&ctx, start, x[0].into(), n, c, |i| value[i]) {
                    assert!(
                        !planted && !straddles,
                        "trial {trial}: a run with a different result or two binades was taken"
                    );
                    taken_here += 1;
                } else {
                    let e = vec![c as u32; n];
                    runs.record_block(
                        &ctx,
                        &mut scratch,
                        Evaluated { start, inputs: &[&x], results: &r, expected: &e },
                        &value,
                    );
                }
            }
            (taken, declined) = (taken + taken_here / 2, declined + 1 - taken_here / 2);
            for single in [&mut single, &mut fresh_single] {
                for i in 0..n {
                    single.record(&ctx, start + i as u64, &[x[i] as u64], r[i] as u64, c, value[i]);
                }
            }
            start += n as u64;
            assert_eq!(fresh_runs, fresh_single, "trial {trial}");
            assert_eq!(runs, single, "after trial {trial}");
        }
        assert!(taken > 250 && declined > 100, "{taken} runs taken, {declined} declined");
    }

    /// A zero result against exact values that are all −0 has error +0, as input by input
    /// (`Stats` compares −0 and +0 equal, so the bits are checked).
    #[test]
    fn constant_zero_blocks_have_positive_zero_errors() {
        let clauses = vec![
            Clause { region: Region::All, metric: Metric::Absolute, limit: 1e-9 },
            Clause { region: Region::All, metric: Metric::Relative, limit: 1e-9 },
        ];
        let ctx = Context::new(Format::F32, Format::F32, false, clauses, (-(1 << 31), (1 << 31) - 1));
        for zero in [0u32, 0x8000_0000] {
            let mut s = Stats::new(&ctx);
            let words = [zero; 20];
            s.record_block(
                &ctx,
                &mut Scratch::default(),
                Evaluated { start: 0, inputs: &[&[0x3F80_0000u32; 20]], results: &words, expected: &words },
                &[-0.0; 20],
            );
            for case in &s.clauses {
                assert_eq!(case.as_ref().unwrap().error.to_bits(), 0, "result {zero:#x}: {case:?}");
            }
        }
    }

    /// NaN inputs and results count in their binade and bucket, so that both sum to the
    /// count; listed mismatches carry their ulp distance (infinite where one side alone is
    /// NaN, 0 between NaNs of different payloads).
    #[test]
    fn every_input_counts_and_mismatches_carry_their_distance() {
        let ctx = Context::new(Format::F32, Format::F32, true, Vec::new(), whole_span(Format::F32));
        let mut s = Stats::new(&ctx);
        let cases: [(u32, u32, u32); 5] = [
            (0x3F80_0000, 0x3F80_0001, 0x3F80_0000), // one ulp above
            (0x7FC0_0000, 0x7FFF_FFFF, 0x7FFF_FFFF), // a NaN input, equal NaN results
            (0xFFC0_0001, 0x7FFF_FFFF, 0x7FC0_0000), // NaN payloads differ
            (0x4000_0000, 0x7FFF_FFFF, 0x4000_0000), // a NaN result against a number
            (0xC000_0000, 0xBF80_0000, 0xBF7F_FFFE), // two ulps away
        ];
        for (i, &(x, r, e)) in cases.iter().enumerate() {
            s.record(&ctx, i as u64, &[x as u64], r as u64, e as u64, f32::from_bits(e) as f64);
        }
        assert_eq!(s.count, 5);
        assert_eq!(s.binades.iter().map(|b| b.count).sum::<u64>(), 5);
        assert_eq!(s.buckets.iter().map(|b| b.count).sum::<u64>(), 5);
        let errors: Vec<(u64, f64)> = s.first_mismatches.iter().map(|c| (c.index, c.error)).collect();
        assert_eq!(errors, [(0, 1.0), (2, 0.0), (3, f64::INFINITY), (4, 2.0)]);
        // Inputs of both signs fall in buckets of both halves.
        let half = PLOT_BUCKETS / 2;
        assert!(s.buckets[..half].iter().any(|b| b.count > 0) && s.buckets[half..].iter().any(|b| b.count > 0));
    }

    #[test]
    fn large_distances_fall_in_power_of_two_bins() {
        assert_eq!(distance_key(4095), 4095);
        assert_eq!(distance_key(-4095), -4095);
        assert_eq!(distance_key(4096), 4096);
        assert_eq!(distance_key(8191), 4096);
        assert_eq!(distance_key(-8192), -8192);
        assert_eq!(distance_key(i64::MIN), -(1 << 62));
        assert_eq!(distance_key(i64::MAX), 1 << 62);
        for d in [4096i64, 1 << 40, 1 << 62, -(1 << 62)] {
            assert_eq!(distance_key(distance_key(d)), distance_key(d), "keys are their own bins");
        }
        let ctx = Context::new(Format::F32, Format::F32, false, Vec::new(), (0, 1 << 31));
        let mut s = Stats::new(&ctx);
        for d in 0..1_000_000i64 {
            s.add_distance(d * 977, 1);
        }
        assert!(s.histogram().len() < EXACT_DISTANCES as usize + 64);
        assert_eq!(s.histogram().values().sum::<u64>(), 1_000_000);
    }

    #[test]
    fn merging_is_order_independent() {
        let ctx = Context::new(Format::F16, Format::F16, true, Vec::new(), (-(1 << 15), (1 << 15) - 1));
        let parts: Vec<Stats> = (0..4u64)
            .map(|p| {
                let mut s = Stats::new(&ctx);
                for i in 0..100u64 {
                    let x = p * 100 + i;
                    s.record(&ctx, x, &[x], x + (i % 3), x, x as f64);
                }
                s
            })
            .collect();
        let mut forward = Stats::new(&ctx);
        parts.iter().cloned().for_each(|p| forward.merge(p));
        let mut backward = Stats::new(&ctx);
        parts.iter().rev().cloned().for_each(|p| backward.merge(p));
        assert_eq!(forward, backward);
        assert_eq!(forward.count, 400);
        assert_eq!(forward.first_mismatches.len(), FIRST);
        assert_eq!(forward.first_mismatches[0].index, 1);
    }
}
