//! The statistics of a sweep: signed ulp-distance histogram, worst cases, error by binade,
//! special-value mismatches, first mismatches, the documented bound's clauses and the plot
//! profile. Every statistic merges associatively and commutatively with deterministic tie
//! breaks (the smaller input index wins), so a report never depends on the thread count, the
//! order of work or on sharding.

use std::collections::BTreeMap;

use super::bound::Clause;
use super::domain::ordinal;
use super::plot::Metric;
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
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub index: u64,
    pub inputs: Vec<u64>,
    pub result: u64,
    pub expected: u64,
    pub error: f64,
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

/// The number of inputs and the largest errors in one binade of operand 0 or one bucket of
/// the plot's input axis.
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

/// Per-block buffers of [`Stats::record_block`], reused from block to block.
#[derive(Default)]
pub struct Scratch {
    d: Vec<i64>,
    rv: Vec<f64>,
    abs: Vec<f64>,
    rel: Vec<f64>,
}

impl Scratch {
    fn resize(&mut self, n: usize) {
        if self.d.len() < n {
            self.d.resize(n, 0);
            self.rv.resize(n, 0.0);
            self.abs.resize(n, 0.0);
            self.rel.resize(n, 0.0);
        }
    }
}

/// [`ordinal`] with the sign bit given.
#[inline(always)]
fn ordinal_of(bits: u64, sign: u64) -> i64 {
    // −1 − m is !m: flip every bit of the magnitude when the sign is set (branch-free, so
    // the block loops vectorize).
    let magnitude = (bits & !sign) as i64;
    magnitude ^ -(((bits & sign) != 0) as i64)
}

/// Absolute and relative errors of results `rv` against exact values `v` (no NaN on either
/// side; an infinite result equals its reference), and their maxima. An exact result has
/// error 0; a relative error against 0 or an infinity is infinite.
fn errors(rv: &[f64], v: &[f64], abs: &mut [f64], rel: &mut [f64]) -> (f64, f64) {
    use wide::f64x8;
    let (zero, inf) = (f64x8::splat(0.0), f64x8::splat(f64::INFINITY));
    let (mut max_abs, mut max_rel) = (zero, zero);
    let n = rv.len() / 8 * 8;
    for k in (0..n).step_by(8) {
        let r = f64x8::from(<[f64; 8]>::try_from(&rv[k..k + 8]).unwrap());
        let x = f64x8::from(<[f64; 8]>::try_from(&v[k..k + 8]).unwrap());
        let same = r.simd_eq(x) | r.abs().simd_eq(inf);
        let a = same.select(zero, (r - x).abs());
        let special = x.simd_eq(zero) | x.abs().simd_eq(inf);
        let q = special.select(inf, a / x.abs());
        let e = same.select(zero, q);
        abs[k..k + 8].copy_from_slice(&a.to_array());
        rel[k..k + 8].copy_from_slice(&e.to_array());
        max_abs = max_abs.max(a);
        max_rel = max_rel.max(e);
    }
    let fold = |v: f64x8| v.to_array().into_iter().fold(0.0, f64::max);
    let (mut ma, mut mr) = (fold(max_abs), fold(max_rel));
    for k in n..rv.len() {
        let (r, x) = (rv[k], v[k]);
        let same = r == x || r.is_infinite();
        abs[k] = if same { 0.0 } else { (r - x).abs() };
        rel[k] = if same {
            0.0
        } else if x == 0.0 || x.is_infinite() {
            f64::INFINITY
        } else {
            abs[k] / x.abs()
        };
        ma = ma.max(abs[k]);
        mr = mr.max(rel[k]);
    }
    (ma, mr)
}

/// Values of a block of words of `fmt`.
fn to_f64_block<W: Word>(fmt: Format, words: &[W], out: &mut [f64]) {
    match fmt {
        Format::F32 => out.iter_mut().zip(words).for_each(|(o, w)| *o = f32::from_bits(w.to_u64() as u32) as f64),
        Format::F64 => out.iter_mut().zip(words).for_each(|(o, w)| *o = f64::from_bits(w.to_u64())),
        Format::BF16 => {
            out.iter_mut().zip(words).for_each(|(o, w)| *o = f32::from_bits((w.to_u64() as u32) << 16) as f64)
        }
        Format::F16 => out.iter_mut().zip(words).for_each(|(o, w)| *o = fmt.to_f64(w.to_u64())),
    }
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

    /// Record inputs `start..start + results.len()`: their operands, the instruction's
    /// results, the reference's results and values. Blocks whose operand 0 stays in one
    /// binade, one plot bucket and one side of every clause's region, and that hold no NaN or
    /// special-value disagreement, are summarised with reductions over `scratch` buffers; the
    /// others input by input.
    #[allow(clippy::too_many_arguments)]
    pub fn record_block<W: Word>(
        &mut self,
        ctx: &Context,
        scratch: &mut Scratch,
        start: u64,
        inputs: &[&[W]],
        results: &[W],
        expected: &[W],
        value: &[f64],
    ) {
        let n = results.len();
        if n == 0 {
            return;
        }
        let (src, dst) = (ctx.src, ctx.dst);
        // Operand 0: ordinal range and exponent-field range.
        let (src_sign, src_exp) = (src.sign_bit(), src.exp_mask());
        let (mut kmin, mut kmax) = (i64::MAX, i64::MIN);
        let (mut emin, mut emax) = (u64::MAX, 0);
        for w in inputs[0] {
            let b = w.to_u64();
            let k = ordinal_of(b, src_sign);
            kmin = kmin.min(k);
            kmax = kmax.max(k);
            let e = b & src_exp;
            emin = emin.min(e);
            emax = emax.max(e);
        }
        let simple_inputs = emin == emax
            && ctx.bucket(kmin) == ctx.bucket(kmax)
            && (0..ctx.clauses.len()).all(|c| ctx.uniform_region(c, kmin, kmax).is_some());
        // Results: signed distances; no NaN, no disagreement at a zero or an infinity.
        let (sign, exp_mask) = (dst.sign_bit(), dst.exp_mask());
        scratch.resize(n);
        let mut irregular = false;
        let mut mismatches = 0u64;
        let mut max_ulp = 0u64;
        // Counts of the distances −2, −1, +1, +2.
        let mut near = [0u64; 4];
        let saturate = dst.bits() == 64;
        for ((d, r), e) in scratch.d.iter_mut().zip(results).zip(expected) {
            let (r, e) = (r.to_u64(), e.to_u64());
            let (rm, em) = (r & !sign, e & !sign);
            let nan = (rm > exp_mask) | (em > exp_mask);
            let edge = (rm == 0) | (rm == exp_mask) | (em == 0) | (em == exp_mask);
            irregular |= nan | ((r != e) & edge);
            mismatches += (r != e) as u64;
            let (a, b) = (ordinal_of(r, sign), ordinal_of(e, sign));
            let x = if saturate { a.saturating_sub(b) } else { a.wrapping_sub(b) };
            *d = x;
            max_ulp = max_ulp.max(x.unsigned_abs());
            near[0] += (x == -2) as u64;
            near[1] += (x == -1) as u64;
            near[2] += (x == 1) as u64;
            near[3] += (x == 2) as u64;
        }
        if !simple_inputs || irregular {
            if n > 256 {
                // Halves are often simple (a block straddling one binade or bucket edge).
                let h = n / 2;
                let (lo, hi): (Vec<&[W]>, Vec<&[W]>) = inputs.iter().map(|s| s.split_at(h)).unzip();
                self.record_block(ctx, scratch, start, &lo, &results[..h], &expected[..h], &value[..h]);
                self.record_block(ctx, scratch, start + h as u64, &hi, &results[h..], &expected[h..], &value[h..]);
                return;
            }
            let mut ops = [0u64; 3];
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
        self.count += n as u64;
        let d = &scratch.d[..n];
        if max_ulp <= 2 {
            for (k, &count) in [-2i64, -1, 1, 2].iter().zip(&near) {
                self.dense[(k + DENSE) as usize] += count;
            }
            self.dense[DENSE as usize] += n as u64 - near.iter().sum::<u64>();
        } else {
            for &x in d {
                self.add_distance(x, 1);
            }
        }
        // Absolute and relative errors (finite results: no infinity in a regular block
        // unless both sides are the same infinity, which is exact).
        to_f64_block(dst, results, &mut scratch.rv[..n]);
        let (max_abs, max_rel) = errors(&scratch.rv[..n], value, &mut scratch.abs[..n], &mut scratch.rel[..n]);
        let (abs, rel) = (&scratch.abs[..n], &scratch.rel[..n]);
        let case = |i: usize, error: f64| Case {
            index: start + i as u64,
            inputs: inputs.iter().map(|s| s[i].to_u64()).collect(),
            result: results[i].to_u64(),
            expected: expected[i].to_u64(),
            error,
        };
        // The first input reaching `max` in `metric`, offered to `slot` when it can win.
        let offer_max = |slot: &mut Option<Case>, metric: Metric, max: f64| {
            // Every index of the block is at least `start`: a tie with an earlier case loses.
            if slot.as_ref().is_some_and(|w| max < w.error || (max == w.error && w.index < start)) {
                return;
            }
            let i = match metric {
                Metric::Ulp => d.iter().position(|x| x.unsigned_abs() as f64 == max),
                Metric::Absolute => abs.iter().position(|&x| x == max),
                Metric::Relative => rel.iter().position(|&x| x == max),
            };
            let i = i.unwrap_or(0);
            offer(slot, max, start + i as u64, |e| case(i, e));
        };
        if max_ulp > 0 {
            offer_max(&mut self.worst_ulp, Metric::Ulp, max_ulp as f64);
        }
        if max_abs > 0.0 {
            offer_max(&mut self.worst_abs, Metric::Absolute, max_abs);
        }
        if max_rel > 0.0 {
            offer_max(&mut self.worst_rel, Metric::Relative, max_rel);
        }
        for c in 0..ctx.clauses.len() {
            if ctx.uniform_region(c, kmin, kmax) == Some(true) {
                let metric = ctx.clauses[c].metric;
                let max = match metric {
                    Metric::Ulp => max_ulp as f64,
                    Metric::Absolute => max_abs,
                    Metric::Relative => max_rel,
                };
                offer_max(&mut self.clauses[c], metric, max);
            }
        }
        if mismatches > 0 {
            self.mismatch_count += mismatches;
            for i in 0..n {
                if results[i].to_u64() != expected[i].to_u64() {
                    if !enters(&self.first_mismatches, start + i as u64) {
                        break;
                    }
                    push_first(&mut self.first_mismatches, case(i, 0.0));
                }
            }
        }
        for b in [&mut self.binades[(emin >> src.frac_bits()) as usize], &mut self.buckets[ctx.bucket(kmin)]] {
            b.count += n as u64;
            b.max_ulp = b.max_ulp.max(max_ulp);
            b.max_abs = b.max_abs.max(max_abs);
            b.max_rel = b.max_rel.max(max_rel);
        }
    }

    /// Record one input. `value` is the exact result (or the expected result as a number).
    pub fn record(&mut self, ctx: &Context, index: u64, inputs: &[u64], result: u64, expected: u64, value: f64) {
        let dst = ctx.dst;
        self.count += 1;
        let case = |error: f64| Case { index, inputs: inputs.to_vec(), result, expected, error };
        let (r_nan, e_nan) = (dst.is_nan(result), dst.is_nan(expected));
        let mismatch = if ctx.bitwise { result != expected } else { result != expected && !(r_nan && e_nan) };
        if mismatch {
            self.mismatch_count += 1;
            if enters(&self.first_mismatches, index) {
                push_first(&mut self.first_mismatches, case(0.0));
            }
        }
        let key = ordinal(ctx.src, inputs[0]);
        let mut xs = [0.0; 3];
        for (slot, &x) in xs.iter_mut().zip(inputs) {
            *slot = ctx.src.to_f64(x);
        }
        let xs = &xs[..inputs.len()];
        if r_nan != e_nan {
            self.special(index, case(f64::INFINITY));
            for c in 0..ctx.clauses.len() {
                if ctx.in_region(c, key, xs, value) {
                    offer(&mut self.clauses[c], f64::INFINITY, index, case);
                }
            }
            return;
        }
        if r_nan {
            self.add_distance(0, 1);
            return;
        }
        let d = ordinal(dst, result).saturating_sub(ordinal(dst, expected));
        self.add_distance(d, 1);
        let edge = |b: u64| b & !dst.sign_bit() == 0 || b & !dst.sign_bit() == dst.exp_mask();
        if result != expected && (edge(result) || edge(expected)) {
            self.special(index, case(d.unsigned_abs() as f64));
        }
        let rv = dst.to_f64(result);
        // An infinite result equal to the reference's is the correctly rounded overflow.
        let same = rv == value || (rv.is_infinite() && result == expected);
        let abs = if same { 0.0 } else { (rv - value).abs() };
        let rel = if same {
            0.0
        } else if value == 0.0 || value.is_infinite() {
            f64::INFINITY
        } else {
            abs / value.abs()
        };
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
        self.binades[((inputs[0] & ctx.src.exp_mask()) >> ctx.src.frac_bits()) as usize].add(1, ulp, abs, rel);
        self.buckets[ctx.bucket(key)].add(1, ulp, abs, rel);
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

    fn special(&mut self, index: u64, case: Case) {
        self.special_count += 1;
        if enters(&self.first_special, index) {
            push_first(&mut self.first_special, case);
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
        let mut seed = 0x1234_5678_9ABC_DEF0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for trial in 0..40u64 {
            let n = 4096;
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
                    _ => e,
                })
                .collect();
            let value: Vec<f64> = expected.iter().map(|&e| f32::from_bits(e) as f64 * (1.0 + 1e-9)).collect();
            let start = trial * 1_000_000;
            let mut block = Stats::new(&ctx);
            block.record_block(&ctx, &mut Scratch::default(), start, &[&inputs[..]], &results, &expected, &value);
            let mut single = Stats::new(&ctx);
            for i in 0..n {
                single.record(
                    &ctx,
                    start + i as u64,
                    &[inputs[i] as u64],
                    results[i] as u64,
                    expected[i] as u64,
                    value[i],
                );
            }
            assert_eq!(block, single, "trial {trial}");
        }
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
