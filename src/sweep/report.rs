//! Sweep reports: the JSON document (schema in the README), the human summary, and the way
//! back from a report to statistics (for `ptxfp merge` and `--resume`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::domain::{from_ordinal, ordinal};
use super::error::ReportError;
use super::plot::Metric;
use super::stats::{Case, Context, Extremes, Stats};
use super::Sweep;
use crate::format::Format;
use crate::quote::Quoted;

/// The name in every report's `format` field.
pub const FORMAT: &str = "ptxfp sweep report";
/// The version of the report's schema this ptxfp writes and reads.
pub const VERSION: u32 = 1;

/// An f64 that survives JSON: finite values as numbers, the others as "inf", "-inf", "nan".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Real(pub f64);

impl Serialize for Real {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_finite() => s.serialize_f64(v),
            v if v.is_nan() => s.serialize_str("nan"),
            v if v > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }
}

impl<'de> Deserialize<'de> for Real {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Number(f64),
            Text(String),
        }
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(Real(v)),
            Repr::Text(t) => match t.as_str() {
                "inf" => Ok(Real(f64::INFINITY)),
                "-inf" => Ok(Real(f64::NEG_INFINITY)),
                "nan" => Ok(Real(f64::NAN)),
                _ => Err(serde::de::Error::custom(format!("{} is not a number", Quoted(&t)))),
            },
        }
    }
}

/// A hex bit pattern in JSON ("0x3f800000").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hex(pub u64);

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:#x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hex, D::Error> {
        let t = String::deserialize(d)?;
        t.strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .map(Hex)
            .ok_or_else(|| serde::de::Error::custom(format!("{} is not a hex word", Quoted(&t))))
    }
}

/// One input with the instruction's and the reference's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// Position of the input in the domain.
    pub index: u64,
    pub inputs: Vec<Hex>,
    pub input_values: Vec<Real>,
    pub result: Hex,
    pub result_value: Real,
    pub expected: Hex,
    pub expected_value: Real,
    /// The value absolute and relative errors are measured against (the report's
    /// `errors_against`): the exact value of a mathematical reference, else `expected_value`.
    pub reference_value: Real,
    /// What `error` measures: "ulp" (the distance of `result` from `expected` in
    /// representable values; 0 between two NaNs, inf where only one side is a NaN),
    /// "absolute" or "relative" (against `reference_value`).
    pub metric: String,
    /// The error this case is listed for.
    pub error: Real,
}

impl CaseReport {
    /// The operands' values, comma-separated, each in the shortest form that reads back.
    pub fn input_text(&self) -> String {
        join_values(&self.input_values)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Worst {
    pub ulp: Option<CaseReport>,
    pub abs: Option<CaseReport>,
    pub rel: Option<CaseReport>,
}

/// A count and the first cases (smallest indices).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Listed {
    pub count: u64,
    pub first: Vec<CaseReport>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BinadeReport {
    /// The biased exponent field of operand 0.
    pub exponent_field: u64,
    /// "2^e", "zero/subnormal" or "inf/nan".
    pub binade: String,
    pub count: u64,
    pub max_ulp: u64,
    pub max_abs_error: Real,
    pub max_rel_error: Real,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClauseReport {
    pub description: String,
    pub metric: String,
    pub limit: Real,
    /// The largest error on the clause's inputs (0 when none were covered).
    pub max: Real,
    pub worst: Option<CaseReport>,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundReport {
    pub description: String,
    /// The limit of the first clause.
    pub limit: Real,
    pub pass: bool,
    pub clauses: Vec<ClauseReport>,
}

/// One bucket of the error-against-input profile (operand 0's ordinal axis).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BucketReport {
    pub bucket: usize,
    pub input: Real,
    pub count: u64,
    pub max_ulp: u64,
    pub max_abs_error: Real,
    pub max_rel_error: Real,
}

/// The JSON report of a sweep (or of one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`]: what the document is.
    pub format: String,
    /// [`VERSION`]: the version of this schema.
    pub version: u32,
    /// The version of ptxfp that wrote it.
    pub ptxfp: String,
    /// The sweep's parameters as given (what `merge` and `--resume` rebuild it from).
    pub spec: super::Spec,
    pub instr: String,
    pub arch: String,
    pub domain: String,
    pub reference: String,
    /// What the errors are measured against.
    pub errors_against: String,
    /// "k/n" for one shard of a sweep, null for a whole sweep.
    pub shard: Option<String>,
    pub count: u64,
    /// Signed ulp distance (result − expected) → count; from magnitude 4096 on, power-of-two
    /// bins keyed by their smallest magnitude (±2^k counts ±[2^k, 2^(k+1))).
    pub ulp_histogram: BTreeMap<i64, u64>,
    /// The signed distance of largest magnitude.
    pub max_ulp: i64,
    /// The largest absolute and relative errors against the reference value (`errors_against`).
    pub max_abs_error: Real,
    pub max_rel_error: Real,
    pub worst: Worst,
    /// Inputs where one side is NaN, ±Inf or ±0 and the other is not the same value.
    pub special_mismatches: Listed,
    /// Inputs whose result differs from the reference's (NaN payloads count only against a
    /// dump or another instruction).
    pub mismatches: Listed,
    pub binades: Vec<BinadeReport>,
    pub bound: Option<BoundReport>,
    pub profile: Vec<BucketReport>,
    pub seconds: f64,
}

fn metric_name(m: Metric) -> &'static str {
    match m {
        Metric::Ulp => "ulp",
        Metric::Absolute => "absolute",
        Metric::Relative => "relative",
    }
}

fn case_report(src: Format, dst: Format, metric: Metric, c: &Case) -> CaseReport {
    CaseReport {
        index: c.index,
        inputs: c.inputs.iter().map(|&b| Hex(b)).collect(),
        input_values: c.inputs.iter().map(|&b| Real(src.to_f64(b))).collect(),
        result: Hex(c.result),
        result_value: Real(dst.to_f64(c.result)),
        expected: Hex(c.expected),
        expected_value: Real(dst.to_f64(c.expected)),
        reference_value: Real(c.value),
        metric: metric_name(metric).into(),
        error: Real(c.error),
    }
}

fn case_back(c: &CaseReport) -> Case {
    Case {
        index: c.index,
        inputs: c.inputs.iter().map(|h| h.0).collect(),
        result: c.result.0,
        expected: c.expected.0,
        value: c.reference_value.0,
        error: c.error.0,
    }
}

/// The input value at the start of plot bucket `b`.
fn bucket_input(ctx: &Context, b: usize) -> f64 {
    ctx.src.to_f64(from_ordinal(ctx.src, ctx.bucket_start(b)))
}

impl Report {
    /// The report of `sweep`'s statistics `stats`, gathered over `seconds`.
    pub(super) fn new(sweep: &Sweep, stats: &Stats, seconds: f64) -> Report {
        let ctx = &sweep.ctx;
        let (src, dst) = (ctx.src, ctx.dst);
        let case = |metric, c: &Option<Case>| c.as_ref().map(|c| case_report(src, dst, metric, c));
        let list = |count, cases: &[Case]| Listed {
            count,
            first: cases.iter().map(|c| case_report(src, dst, Metric::Ulp, c)).collect(),
        };
        let exp_max = (1u64 << src.exp_bits()) - 1;
        let binades = stats
            .binades
            .iter()
            .enumerate()
            .filter(|(_, b)| b.count > 0)
            .map(|(k, b)| BinadeReport {
                exponent_field: k as u64,
                binade: match k as u64 {
                    0 => "zero/subnormal".into(),
                    k if k == exp_max => "inf/nan".into(),
                    k => format!("2^{}", k as i32 - src.bias()),
                },
                count: b.count,
                max_ulp: b.max_ulp,
                max_abs_error: Real(b.max_abs),
                max_rel_error: Real(b.max_rel),
            })
            .collect();
        let bound = sweep.bound.as_ref().map(|bound| {
            let clauses: Vec<ClauseReport> = bound
                .clauses
                .iter()
                .zip(&stats.clauses)
                .map(|(clause, worst)| {
                    let max = worst.as_ref().map_or(0.0, |w| w.error);
                    ClauseReport {
                        description: clause.describe(),
                        metric: metric_name(clause.metric).into(),
                        limit: Real(clause.limit),
                        max: Real(max),
                        worst: case(clause.metric, worst),
                        pass: max <= clause.limit,
                    }
                })
                .collect();
            BoundReport {
                description: bound.describe(),
                limit: Real(bound.clauses[0].limit),
                pass: clauses.iter().all(|c| c.pass),
                clauses,
            }
        });
        let profile = stats
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, b)| b.count > 0)
            .map(|(k, b)| BucketReport {
                bucket: k,
                input: Real(bucket_input(ctx, k)),
                count: b.count,
                max_ulp: b.max_ulp,
                max_abs_error: Real(b.max_abs),
                max_rel_error: Real(b.max_rel),
            })
            .collect();
        let error = |c: &Option<Case>| c.as_ref().map_or(0.0, |c| c.error);
        let max_ulp = stats.worst_ulp.as_ref().map_or(0, |c| {
            let d = ordinal(dst, c.result) as i128 - ordinal(dst, c.expected) as i128;
            d.clamp(i64::MIN as i128, i64::MAX as i128) as i64
        });
        Report {
            format: FORMAT.into(),
            version: VERSION,
            ptxfp: env!("CARGO_PKG_VERSION").into(),
            spec: sweep.spec.clone(),
            instr: sweep.instr.to_string(),
            arch: sweep.target.to_string(),
            domain: sweep.domain.describe(),
            reference: sweep.reference.description().to_string(),
            errors_against: sweep.reference.errors_against(),
            shard: sweep.shard.label(),
            count: stats.count,
            ulp_histogram: stats.histogram(),
            max_ulp,
            max_abs_error: Real(error(&stats.worst_abs)),
            max_rel_error: Real(error(&stats.worst_rel)),
            worst: Worst {
                ulp: case(Metric::Ulp, &stats.worst_ulp),
                abs: case(Metric::Absolute, &stats.worst_abs),
                rel: case(Metric::Relative, &stats.worst_rel),
            },
            special_mismatches: list(stats.special_count, &stats.first_special),
            mismatches: list(stats.mismatch_count, &stats.first_mismatches),
            binades,
            bound,
            profile,
            seconds,
        }
    }

    /// The statistics this report was made from. A report read back (a shard to merge, the
    /// report in a checkpoint) must be consistent: its binades and its profile each count every
    /// input once, and no tally exceeds the count.
    pub(crate) fn stats(&self, ctx: &Context) -> Result<Stats, ReportError> {
        self.check_counts()?;
        let mut s = Stats::new(ctx);
        s.count = self.count;
        for (&d, &n) in &self.ulp_histogram {
            s.add_distance(d, n);
        }
        s.worst_ulp = self.worst.ulp.as_ref().map(case_back);
        s.worst_abs = self.worst.abs.as_ref().map(case_back);
        s.worst_rel = self.worst.rel.as_ref().map(case_back);
        s.special_count = self.special_mismatches.count;
        s.first_special = self.special_mismatches.first.iter().map(case_back).collect();
        s.mismatch_count = self.mismatches.count;
        s.first_mismatches = self.mismatches.first.iter().map(case_back).collect();
        let bad = |part| ReportError::DoesNotFit { part, instr: self.instr.clone() };
        for b in &self.binades {
            let slot = s.binades.get_mut(b.exponent_field as usize).ok_or_else(|| bad("binades"))?;
            *slot =
                Extremes { count: b.count, max_ulp: b.max_ulp, max_abs: b.max_abs_error.0, max_rel: b.max_rel_error.0 };
        }
        if let Some(bound) = &self.bound {
            if bound.clauses.len() != s.clauses.len() {
                return Err(bad("bound"));
            }
            for (slot, c) in s.clauses.iter_mut().zip(&bound.clauses) {
                *slot = c.worst.as_ref().map(case_back);
            }
        }
        for b in &self.profile {
            let slot = s.buckets.get_mut(b.bucket).ok_or_else(|| bad("profile"))?;
            *slot =
                Extremes { count: b.count, max_ulp: b.max_ulp, max_abs: b.max_abs_error.0, max_rel: b.max_rel_error.0 };
        }
        Ok(s)
    }

    fn check_counts(&self) -> Result<(), ReportError> {
        fn sum(mut counts: impl Iterator<Item = u64>) -> Option<u64> {
            counts.try_fold(0u64, u64::checked_add)
        }
        let totals = [
            ("binade counts", sum(self.binades.iter().map(|b| b.count)), true),
            ("profile counts", sum(self.profile.iter().map(|b| b.count)), true),
            ("ulp histogram", sum(self.ulp_histogram.values().copied()), false),
            ("mismatch count", Some(self.mismatches.count), false),
            ("special-value mismatch count", Some(self.special_mismatches.count), false),
        ];
        for (what, total, exact) in totals {
            let fits = total.is_some_and(|t| if exact { t == self.count } else { t <= self.count });
            if !fits {
                let (instr, count) = (self.instr.clone(), self.count);
                return Err(ReportError::Inconsistent { instr, what, total, exact, count });
            }
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a report always serializes");
        text.push('\n');
        text
    }

    /// Read a report written by [`Report::to_json`]: another JSON document or another version
    /// of the schema is named as such (from its `format` and `version` alone when the rest
    /// does not parse).
    pub fn from_json(text: &str) -> Result<Report, ReportError> {
        #[derive(Deserialize)]
        struct Identity {
            format: Option<String>,
            version: Option<u32>,
        }
        let (identity, parsed) = match serde_json::from_str::<Report>(text) {
            Ok(r) => (Identity { format: Some(r.format.clone()), version: Some(r.version) }, Ok(r)),
            Err(e) => (serde_json::from_str(text)?, Err(e)),
        };
        match identity.format {
            Some(f) if f == FORMAT => {}
            Some(format) => return Err(ReportError::OtherFormat { format }),
            None => return Err(ReportError::NoFormat),
        }
        match identity.version {
            Some(VERSION) => {}
            Some(version) => return Err(ReportError::Version { version }),
            None => return Err(ReportError::NoVersion),
        }
        Ok(parsed?)
    }

    /// The report for a person: what was swept, the error distribution and the verdict.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let pct = |n: u64| if self.count == 0 { 0.0 } else { 100.0 * n as f64 / self.count as f64 };
        let _ = writeln!(out, "{} on {}", self.instr, self.arch);
        let _ = writeln!(out, "  domain      {}", self.domain);
        if let Some(shard) = &self.shard {
            let _ = writeln!(out, "  shard       {shard}");
        }
        let _ = writeln!(out, "  reference   {}", self.reference);
        let _ = writeln!(
            out,
            "  errors      ulp: distance from the reference's result; abs, rel: against {}",
            self.errors_against
        );
        let rate = if self.seconds > 0.0 { self.count as f64 / self.seconds } else { 0.0 };
        let _ = writeln!(out, "  inputs      {} in {:.2} s ({rate:.3e} inputs/s)", self.count, self.seconds);
        let _ = writeln!(out, "  ulp distance (result - reference):");
        let shown: Vec<(&i64, &u64)> = if self.ulp_histogram.len() <= 12 {
            self.ulp_histogram.iter().collect()
        } else {
            let mut by_count: Vec<(&i64, &u64)> = self.ulp_histogram.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            by_count.truncate(12);
            by_count.sort();
            by_count
        };
        for (d, n) in &shown {
            let _ = writeln!(out, "    {d:>+12}  {n:>12}  {:>9.5}%", pct(**n));
        }
        if shown.len() < self.ulp_histogram.len() {
            let _ = writeln!(
                out,
                "    ({} more distances not shown; --json writes every one)",
                self.ulp_histogram.len() - shown.len()
            );
        }
        let without = self.count - self.ulp_histogram.values().sum::<u64>();
        if without > 0 {
            let _ = writeln!(
                out,
                "    {:>12}  {without:>12}  {:>9.5}%  (a NaN on one side only: special-value mismatches)",
                "no distance",
                pct(without)
            );
        }
        let _ = writeln!(out, "  max ulp     {}{}", self.max_ulp, describe(&self.worst.ulp));
        let _ = writeln!(out, "  max abs     {}{}", sci(self.max_abs_error.0), describe(&self.worst.abs));
        let _ = writeln!(out, "  max rel     {}{}", sci(self.max_rel_error.0), describe(&self.worst.rel));
        for (name, list) in [("special-value mismatches", &self.special_mismatches), ("mismatches", &self.mismatches)] {
            let _ = writeln!(out, "  {name}  {} ({:.5}%)", list.count, pct(list.count));
            if list.count > list.first.len() as u64 {
                let _ = writeln!(out, "    the first {} (by input index):", list.first.len());
            }
            for c in &list.first {
                let _ = writeln!(out, "    {}", one_line(c));
            }
        }
        match &self.bound {
            Some(b) => {
                let _ = writeln!(out, "  bound       {} — {}", if b.pass { "PASS" } else { "FAIL" }, b.description);
                for c in &b.clauses {
                    let max = if c.metric == "ulp" { format!("{}", c.max.0) } else { sci(c.max.0) };
                    let _ = writeln!(
                        out,
                        "    {} {}: max {max}{}",
                        if c.pass { "pass" } else { "FAIL" },
                        c.description,
                        describe(&c.worst)
                    );
                }
            }
            None => {
                let _ = writeln!(out, "  bound       none documented");
            }
        }
        out
    }
}

/// " at input …: result …, reference …" for the case of a maximum, with the value absolute and
/// relative errors are measured against.
fn describe(c: &Option<CaseReport>) -> String {
    let Some(c) = c else { return String::new() };
    let against = if c.metric == "ulp" { String::new() } else { format!(", against {}", num(c.reference_value.0)) };
    format!(" at {}{against}", case_words(c))
}

/// `input X (x): result R (r), reference E (e)`: the words and values of one case.
fn case_words(c: &CaseReport) -> String {
    format!(
        "input {} ({}): result {} ({}), reference {} ({})",
        join_hex(&c.inputs),
        join_values(&c.input_values),
        hex(c.result),
        num(c.result_value.0),
        hex(c.expected),
        num(c.expected_value.0)
    )
}

fn hex(h: Hex) -> String {
    format!("{:#x}", h.0)
}

fn join_hex(v: &[Hex]) -> String {
    v.iter().map(|&h| hex(h)).collect::<Vec<_>>().join(", ")
}

fn join_values(v: &[Real]) -> String {
    v.iter().map(|r| num(r.0)).collect::<Vec<_>>().join(", ")
}

/// A value in the shortest form that reads back exactly, in scientific notation when large or
/// tiny.
fn num(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-5..1e7).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// An error in powers of two, the way the documentation states bounds.
fn sci(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.is_finite() {
        format!("{v:.6e} (2^{:.3})", v.log2())
    } else {
        format!("{v}")
    }
}

/// A listed mismatch: its index, input, result, reference and ulp distance.
fn one_line(c: &CaseReport) -> String {
    let distance = match c.error.0 {
        e if e.is_infinite() => "a NaN on one side only".to_string(),
        0.0 => "NaN payloads differ".to_string(),
        e => format!("{e} ulp"),
    };
    format!("#{} {}: {distance}", c.index, case_words(c))
}
