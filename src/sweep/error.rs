//! Why a sweep cannot be built, resumed, run, merged or plotted: one error type for the sweep
//! API ([`Error`]), its variants grouped by what was wrong, each message naming the problem
//! and what is legal instead.

use std::path::PathBuf;

use thiserror::Error;

use super::report::{FORMAT, VERSION};
use super::Shard;
use crate::format::Format;
use crate::kernels::FloatEnvironmentError;
use crate::operand::OperandError;
use crate::ptx::{Instr, ParseError, TargetError};
use crate::quote::Quoted;

/// An error of the sweep API.
#[derive(Debug, Error)]
pub enum Error {
    /// The spec's instruction does not parse.
    #[error(transparent)]
    Instr(#[from] ParseError),
    /// The spec's architecture does not parse, or lacks the instruction or the reference.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The instruction is a conversion, a `testp` or a packed form.
    #[error(
        "{instr}: sweep covers instructions whose operands and results are one scalar format (not cvt, testp or packed forms)"
    )]
    NotScalar { instr: Instr },
    /// Not `K/N` with 1 ≤ K ≤ N.
    #[error("{} is not a shard: write K/N with 1 <= K <= N, e.g. 2/3", Quoted(text))]
    Shard { text: String },
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error(transparent)]
    Resume(#[from] ResumeError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A thread of the sweep runs under a floating-point environment other than the IEEE
    /// default, under which the references' float arithmetic would measure wrongly.
    #[error(transparent)]
    FloatEnvironment(#[from] FloatEnvironmentError),
}

/// The inputs asked for (`range`, `binade`, `random` of the spec) are not a domain.
#[derive(Debug, Error)]
pub enum DomainError {
    #[error("both a range and a binade given: give one of them")]
    RangeAndBinade,
    #[error("binade {binade} does not exist in {}: normal binades are {lo}..={hi}", fmt.name())]
    NoSuchBinade { binade: i32, fmt: Format, lo: i32, hi: i32 },
    #[error(
        "{} is not a range: write LO..HI or LO..=HI with decimal values (1.0..2.0) or hex bit patterns (0x3f800000..0x40000000)",
        Quoted(text)
    )]
    RangeSyntax { text: String },
    #[error("range start: {0}")]
    RangeStart(OperandError),
    #[error("range end: {0}")]
    RangeEnd(OperandError),
    #[error("{}: give both bounds as decimal values or both as hex bit patterns", Quoted(text))]
    MixedBounds { text: String },
    #[error("a value range cannot have a NaN bound ({text}); use hex bit patterns")]
    NanBound { text: String },
    #[error("the range {text} contains no {} value", fmt.name())]
    EmptyRange { text: String, fmt: Format },
    #[error("a random sample needs at least one case")]
    NoCases,
}

/// The reference (`--ref`, or the instruction's default) cannot be used.
#[derive(Debug, Error)]
pub enum ReferenceError {
    #[error(
        "{instr} evaluates each element of a packed .{} word independently: sweep its scalar form (.{})",
        instr.ty().name(),
        instr.format().name()
    )]
    Packed { instr: Instr },
    #[error("no f64 reference for {formula}")]
    NoF64 { formula: &'static str },
    #[error(
        "{instr} has no default reference (no approximated function): compare it with another instruction or a file of expected results"
    )]
    NoDefault { instr: Instr },
    #[error("reference {}: not an instruction ({parse_error}) and no such file", Quoted(text))]
    NeitherInstrNorFile { text: String, parse_error: ParseError },
    #[error(
        "the reference {reference} takes .{} operands and writes {}-bit results, but {instr} takes .{} and writes {}-bit results",
        reference.source_type(0).name(),
        reference.result_bits(),
        instr.source_type(0).name(),
        instr.result_bits()
    )]
    OtherTypes { reference: Instr, instr: Instr },
    #[error("the reference {reference} does not take {operands} operand(s) as {instr} does")]
    OtherOperandCount { reference: Instr, instr: Instr, operands: usize },
    /// The dump cannot be opened or read.
    #[error(transparent)]
    Dump(#[from] crate::io::Error),
    /// `held` says what the dump holds (`16-bit words`, `f16 data`); `legal`, the dtypes that
    /// would do.
    #[error(
        "{}: holds {held}, but {instr} writes {}-bit results ({})",
        path.display(),
        instr.result_bits(),
        legal.join(" or ")
    )]
    DumpWidth { path: PathBuf, held: String, instr: Instr, legal: Vec<&'static str> },
    #[error(
        "{}: holds {len} results, but the domain has {count} inputs (the dump must list the result of every input of the domain, in domain order)",
        path.display()
    )]
    DumpLength { path: PathBuf, len: u64, count: u64 },
    /// A sweep built with its dump only named (for a merge) was run.
    #[error("the dump was not opened")]
    DumpNotOpened,
}

/// A report read back is not one, or not one of this sweep.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error("not a ptxfp sweep report: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a ptxfp sweep report: its format is {}", Quoted(format))]
    OtherFormat { format: String },
    #[error("not a ptxfp sweep report: it has no \"format\": \"{FORMAT}\"")]
    NoFormat,
    #[error("a sweep report of schema version {version}; this ptxfp reads version {VERSION}")]
    Version { version: u32 },
    #[error("not a ptxfp sweep report: it has no schema \"version\"")]
    NoVersion,
    /// `part` (`binades`, `bound`, `profile`) has more entries than `instr`'s sweep.
    #[error("the report's {part} does not fit {instr}")]
    DoesNotFit { part: &'static str, instr: String },
    /// A total (`what`) that must equal the count (`exact`), or not exceed it, does not; `None`
    /// where the total overflows.
    #[error(
        "the report of {instr} is inconsistent: its {what} total {}, where {}its count {count} is expected",
        total.map_or("more than 2^64".into(), |t| t.to_string()),
        if *exact { "" } else { "at most " }
    )]
    Inconsistent { instr: String, what: &'static str, total: Option<u64>, exact: bool, count: u64 },
    /// The report's spec (JSON) is not this sweep's.
    #[error("the report is of a different sweep: {report} instead of {sweep}")]
    OtherSweep { report: String, sweep: String },
}

/// A checkpoint does not continue this sweep.
#[derive(Debug, Error)]
pub enum ResumeError {
    #[error(
        "the checkpoint is of shard {}, this sweep is shard {}",
        checkpoint.as_deref().map_or("(whole)".into(), |s| Quoted(s).to_string()),
        sweep.as_deref().unwrap_or("(whole)")
    )]
    OtherShard { checkpoint: Option<String>, sweep: Option<String> },
    #[error(
        "the checkpoint's done units {start}..{end} do not fit this sweep of {units} units (ascending, non-overlapping ranges within 0..{units})"
    )]
    DoneUnits { start: u64, end: u64, units: u64 },
    #[error("the checkpoint's report counts {count} inputs, but its done units hold {inputs}")]
    Count { count: u64, inputs: u64 },
}

/// Shard reports that do not make one whole sweep.
#[derive(Debug, Error)]
pub enum MergeError {
    #[error("nothing to merge: give the shard reports")]
    Nothing,
    #[error("the report of {instr} on {domain} is not a shard")]
    NotAShard { instr: String, domain: String },
    #[error("shard {label} is given twice")]
    Twice { label: String },
    #[error("shards of different splits: {}/{} and {label}", first.index, first.count)]
    OtherSplits { first: Shard, label: String },
    #[error("shard(s) {} missing: a merge needs every shard of the sweep", missing.join(", "))]
    Missing { missing: Vec<String> },
}

/// A plot cannot be written.
#[derive(Debug, Error)]
pub enum PlotError {
    #[error("{}: a plot's file name must end in .svg or .png", path.display())]
    Extension { path: PathBuf },
    #[error("cannot encode the PNG: {0}")]
    Png(#[from] png::EncodingError),
    #[error(transparent)]
    Write(#[from] crate::io::Error),
}
