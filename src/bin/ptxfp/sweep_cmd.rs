//! `ptxfp sweep` and `ptxfp merge`: argument handling, progress display, Ctrl-C, checkpoints
//! and output files around [`ptxfp::sweep`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use ptxfp::quote::Quoted;
use ptxfp::sweep::checkpoint::{CheckpointError, Saved};
use ptxfp::sweep::plot::{self, Bucket, Metric, PlotData};
use ptxfp::sweep::report::Report;
use ptxfp::sweep::{self, Checkpoint, Control, Outcome, ReferenceError, Shard, Spec, Sweep};
use ptxfp::{Instr, Target};

use crate::FAILED;

/// Set by Ctrl-C: the sweep finishes the units in flight and saves a checkpoint.
static STOP: AtomicBool = AtomicBool::new(false);

#[derive(Args)]
pub struct SweepArgs {
    /// The instruction, e.g. ex2.approx.ftz.f32 (optional with --resume).
    instr: Option<String>,
    /// Target architecture (as for `eval`) [default: sm_90].
    #[arg(long)]
    arch: Option<Target>,
    /// Reference: an instruction (`--ref sqrt.rn.f32`) or a file of expected results in
    /// domain order (`--ref gpu.npy`, raw words or .npy). Default: the exact function,
    /// correctly rounded.
    #[arg(long = "ref", value_name = "INSTR|FILE")]
    reference: Option<String>,
    /// Only values in LO..HI or LO..=HI (decimal values such as 1.0..2.0, or hex bit
    /// patterns such as 0x3f800000..0x40000000), for every operand.
    #[arg(long, value_name = "LO..HI", allow_hyphen_values = true, conflicts_with = "binade")]
    range: Option<String>,
    /// Only the positive values of binade 2^E, for every operand.
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    binade: Option<i32>,
    /// N edge-biased random inputs instead of all (default for domains above 2^32 inputs:
    /// 10^7). Accepts 1e7 and 10_000_000.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    random: Option<u64>,
    /// Seed of --random [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Evaluate only shard K of N (a contiguous slice of the inputs); `ptxfp merge` combines
    /// the shards' JSON reports.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw the error against the input and the ulp histogram (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Where an interrupted sweep saves its state (default: <instr>.<digest of the sweep's
    /// options>.checkpoint.json in the current directory). A finished sweep removes the
    /// checkpoint it wrote or resumed, and no other file.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Continue the sweep saved in this checkpoint; it writes the --json and --plot files the
    /// interrupted sweep was given, unless others are given here. Options that define the
    /// sweep may be repeated but must agree with the checkpoint.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Exit with status 0 even when the bound fails or the results differ from --ref.
    #[arg(long)]
    no_fail: bool,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
    /// Stop after this many units of work, as Ctrl-C would (for testing checkpoints).
    #[arg(long, hide = true)]
    stop_after_units: Option<u64>,
}

#[derive(Args)]
pub struct MergeArgs {
    /// The JSON reports of every shard of one sweep.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Write the merged JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw the merged report (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Exit with status 0 even when the bound fails or the results differ from --ref.
    #[arg(long)]
    no_fail: bool,
}

/// The exit status of a finished sweep whose report is `report`: [`FAILED`] when the bound
/// fails or the results differ from a `--ref` (unless `no_fail`), else 0; the reason on
/// standard error.
fn verdict(report: &Report, no_fail: bool) -> i32 {
    let mut reasons = Vec::new();
    if report.bound.as_ref().is_some_and(|b| !b.pass) {
        reasons.push("the documented bound fails".to_string());
    }
    if report.spec.reference.is_some() && report.mismatches.count > 0 {
        reasons.push(format!("{} results differ from --ref", report.mismatches.count));
    }
    if reasons.is_empty() || no_fail {
        return 0;
    }
    eprintln!("ptxfp: {} (exit status {FAILED}; --no-fail reports without failing)", reasons.join(", "));
    FAILED
}

/// `1e7`, `10_000_000` or `10000000`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let t = text.replace('_', "");
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    match t.parse::<f64>() {
        Ok(v) if v >= 1.0 && v.fract() == 0.0 && v <= 2f64.powi(63) => Ok(v as u64),
        _ => Err(format!("{} is not a whole number of cases (e.g. 1000000 or 1e6)", Quoted(text))),
    }
}

/// A sweep error as the command line words it: the parts of the spec named by their options.
fn sweep_error(e: impl Into<sweep::Error>) -> String {
    match e.into() {
        sweep::Error::Reference(ReferenceError::NoDefault { instr }) => format!(
            "{instr} has no default reference (no approximated function): compare it with another instruction (--ref add.rn.f32) or a file of expected results (--ref dump.npy)"
        ),
        sweep::Error::Reference(ReferenceError::NeitherInstrNorFile { text, parse_error }) => {
            format!("--ref {}: not an instruction ({parse_error}) and no such file", Quoted(&text))
        }
        e => e.to_string(),
    }
}

pub fn sweep(args: SweepArgs) -> Result<i32, String> {
    let (mut json, mut plot) = (args.json.clone(), args.plot.clone());
    let (spec, shard, resume) = match &args.resume {
        Some(path) => {
            let text = read(path)?;
            let saved = Saved::from_text(&text).map_err(|e| match e {
                CheckpointError::Checksum => format!("{}: {e} without --resume", path.display()),
                _ => format!("{}: {e}", path.display()),
            })?;
            json = json.or(saved.json);
            plot = plot.or(saved.plot);
            let cp = saved.checkpoint;
            let shard = match &cp.report.shard {
                Some(label) => Shard::parse(label).map_err(sweep_error)?,
                None => Shard::WHOLE,
            };
            check_agrees(&args, &cp.report.spec, shard, path)?;
            (cp.report.spec.clone(), shard, Some((cp, text.into_bytes())))
        }
        None => {
            let instr =
                args.instr.clone().ok_or("name the instruction to sweep (e.g. ptxfp sweep ex2.approx.ftz.f32)")?;
            let defaults = Spec::new(&instr);
            let spec = Spec {
                arch: args.arch.map_or(defaults.arch, |t| t.to_string()),
                range: args.range.clone(),
                binade: args.binade,
                random: args.random,
                seed: args.seed.unwrap_or(defaults.seed),
                reference: args.reference.clone(),
                instr,
            };
            let shard = args.shard.unwrap_or(Shard::WHOLE);
            (spec, shard, None)
        }
    };
    // The command line's wording of a target that lacks the instruction (`Sweep::new` checks
    // it as well).
    if let (Ok(instr), Ok(target)) = (spec.instr.parse::<Instr>(), spec.arch.parse::<Target>()) {
        crate::check_target(target, &instr)?;
    }
    let sweep = Sweep::new(&spec, shard, true).map_err(sweep_error)?;
    check_extension(plot.as_deref())?;
    // Saved absolute, so that a sweep resumed elsewhere writes the same files.
    let absolute = |p: &Option<PathBuf>| p.as_deref().map(std::path::absolute).transpose().map_err(|e| e.to_string());
    let outputs = (absolute(&json)?, absolute(&plot)?);
    let default_checkpoint = args.checkpoint.is_none() && args.resume.is_none();
    let checkpoint_path = args
        .checkpoint
        .clone()
        .or_else(|| args.resume.clone())
        .unwrap_or_else(|| PathBuf::from(format!("{}.{:08x}.checkpoint.json", sweep.instr, digest(&spec, shard))));
    if default_checkpoint && checkpoint_path.exists() {
        return Err(format!(
            "a checkpoint of this sweep exists: continue it with `ptxfp sweep --resume {0}`, or remove {0} to start again",
            checkpoint_path.display()
        ));
    }
    check_outputs(
        &spec,
        [("--json", json.as_deref()), ("--plot", plot.as_deref()), ("--checkpoint", Some(&checkpoint_path))],
    )?;
    // The bytes of the checkpoint file this run resumed or last wrote: the finished sweep
    // removes the file only while it still holds them.
    let resumed_from_here = args.checkpoint.is_none() || args.checkpoint == args.resume;
    let (resume, owned) = match resume {
        Some((cp, bytes)) => (Some(cp), if resumed_from_here { Some(bytes) } else { None }),
        None => (None, None),
    };
    let owned = Mutex::new(owned);
    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst))
        .map_err(|e| format!("cannot catch Ctrl-C and SIGTERM: {e}"))?;

    let total = sweep.count();
    if !args.quiet {
        eprintln!("sweeping {} over {} ({} inputs)", sweep.instr, sweep.domain.describe(), total);
    }
    let display = Progress::new("sweep", "inputs", args.quiet);
    let units_seen = std::sync::atomic::AtomicU64::new(0);
    let progress = |done: u64, total: u64| {
        display.update(done, total);
        let n = units_seen.fetch_add(1, Ordering::Relaxed) + 1;
        if args.stop_after_units.is_some_and(|limit| n >= limit) {
            STOP.store(true, Ordering::SeqCst);
        }
    };
    let save_error = Mutex::new(None);
    let save = |cp: &Checkpoint| {
        let text = Saved { checkpoint: cp.clone(), json: outputs.0.clone(), plot: outputs.1.clone() }.to_text();
        match ptxfp::io::write_atomically(&checkpoint_path, text.as_bytes()) {
            Ok(()) => *owned.lock().unwrap() = Some(text.into_bytes()),
            Err(e) => *save_error.lock().unwrap() = Some(e.to_string()),
        }
    };
    let control = Control { progress: &progress, stop: &STOP, checkpoint: &save, checkpoint_every: 60.0 };
    let outcome = sweep.run(resume, &control).map_err(sweep_error)?;
    display.finish();
    match outcome {
        Outcome::Interrupted(cp) => {
            save(&cp);
            if let Some(e) = save_error.into_inner().unwrap() {
                return Err(format!("interrupted, and the checkpoint could not be saved: {e}"));
            }
            let files: Vec<String> =
                [&outputs.0, &outputs.1].into_iter().flatten().map(|p| p.display().to_string()).collect();
            let writes = if files.is_empty() {
                String::new()
            } else {
                format!(" (when done it writes {})", files.join(" and "))
            };
            eprintln!(
                "ptxfp: interrupted after {} of {} inputs; checkpoint saved to {}\n       continue with: ptxfp sweep --resume {}{writes}",
                cp.report.count,
                total,
                checkpoint_path.display(),
                checkpoint_path.display()
            );
            Ok(crate::INTERRUPTED)
        }
        Outcome::Complete(report) => {
            if let Some(e) = save_error.into_inner().unwrap() {
                eprintln!("ptxfp: warning: a periodic checkpoint could not be saved: {e}");
            }
            write_files(&report, json.as_deref(), plot.as_deref())?;
            // The sweep is complete: its checkpoint is no longer needed. Any other file at that
            // path (one this run did not write, or one another run has replaced since) stays.
            if let Some(bytes) = owned.into_inner().unwrap() {
                if std::fs::read(&checkpoint_path).is_ok_and(|now| now == bytes) {
                    let _ = std::fs::remove_file(&checkpoint_path);
                }
            }
            crate::print_out(report.summary())?;
            Ok(verdict(&report, args.no_fail))
        }
    }
}

/// A short digest of what defines a sweep, for its default checkpoint name: two different
/// sweeps (instruction, options or shard) never share one.
fn digest(spec: &Spec, shard: Shard) -> u32 {
    let text = serde_json::to_string(&(spec, shard.label())).expect("a spec always serializes");
    crc32fast::hash(text.as_bytes())
}

/// Options given with `--resume` must agree with the checkpoint's sweep.
fn check_agrees(args: &SweepArgs, spec: &Spec, shard: Shard, path: &Path) -> Result<(), String> {
    let shown = |v: Option<String>| v.map_or("not given".into(), |v| Quoted(&v).to_string());
    let checks: [(&str, Option<String>, Option<String>, bool); 8] = [
        ("the instruction", args.instr.clone(), Some(spec.instr.clone()), args.instr.as_ref() == Some(&spec.instr)),
        (
            "--arch",
            args.arch.map(|t| t.to_string()),
            Some(spec.arch.clone()),
            args.arch.is_some() && args.arch == spec.arch.parse().ok(),
        ),
        ("--range", args.range.clone(), spec.range.clone(), args.range == spec.range),
        (
            "--binade",
            args.binade.map(|e| e.to_string()),
            spec.binade.map(|e| e.to_string()),
            args.binade == spec.binade,
        ),
        (
            "--random",
            args.random.map(|n| n.to_string()),
            spec.random.map(|n| n.to_string()),
            args.random == spec.random,
        ),
        ("--seed", args.seed.map(|n| n.to_string()), Some(spec.seed.to_string()), args.seed == Some(spec.seed)),
        ("--ref", args.reference.clone(), spec.reference.clone(), args.reference == spec.reference),
        ("--shard", args.shard.map(|s| s.label().unwrap_or("1/1".into())), shard.label(), args.shard == Some(shard)),
    ];
    for (name, given, saved, agree) in checks {
        if let Some(given) = given.filter(|_| !agree) {
            return Err(format!(
                "{name} {} contradicts the checkpoint {}, whose sweep has {name} {}; resume without it, or start a new sweep",
                Quoted(&given),
                path.display(),
                shown(saved)
            ));
        }
    }
    Ok(())
}

/// The output files (and the dump a `--ref` reads) are distinct files, and ptxfp can create
/// each output, before any work starts.
fn check_outputs<const N: usize>(spec: &Spec, outputs: [(&str, Option<&Path>); N]) -> Result<(), String> {
    let dump = spec.reference.as_deref().map(Path::new).filter(|p| p.is_file());
    let named: Vec<(&str, &Path)> =
        outputs.iter().filter_map(|&(name, p)| p.map(|p| (name, p))).chain(dump.map(|p| ("--ref", p))).collect();
    for (i, &(a, pa)) in named.iter().enumerate() {
        for &(b, pb) in &named[i + 1..] {
            if identity(pa) == identity(pb) {
                return Err(format!("{a} and {b} name the same file, {}: give each its own", pa.display()));
            }
        }
    }
    for (name, path) in outputs {
        if let Some(path) = path {
            ptxfp::io::check_writable(path).map_err(|e| format!("{name}: {e}"))?;
        }
    }
    Ok(())
}

/// What a path names, whether or not the file exists: its canonical form, or its directory's
/// canonical form and its name.
fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(dir), path.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

pub fn merge(args: MergeArgs) -> Result<i32, String> {
    check_extension(args.plot.as_deref())?;
    let reports: Vec<Report> = args
        .reports
        .iter()
        .map(|p| Report::from_json(&read(p)?).map_err(|e| format!("{}: {e}", p.display())))
        .collect::<Result<_, _>>()?;
    let merged = ptxfp::sweep::merge(&reports).map_err(sweep_error)?;
    for input in &args.reports {
        for (option, output) in [("--json", &args.json), ("--plot", &args.plot)] {
            if output.as_deref().is_some_and(|o| identity(o) == identity(input)) {
                return Err(format!(
                    "{option} {} is one of the reports to merge: give the merged report another name",
                    input.display()
                ));
            }
        }
    }
    write_files(&merged, args.json.as_deref(), args.plot.as_deref())?;
    crate::print_out(merged.summary())?;
    Ok(verdict(&merged, args.no_fail))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn check_extension(plot: Option<&Path>) -> Result<(), String> {
    match plot.and_then(|p| p.extension()).and_then(|e| e.to_str()).map(str::to_ascii_lowercase) {
        None if plot.is_none() => Ok(()),
        Some(e) if e == "svg" || e == "png" => Ok(()),
        _ => Err(format!("--plot {}: the plot file must end in .svg or .png", plot.unwrap().display())),
    }
}

/// The JSON report and the plot, each written atomically (before anything is printed, so that
/// a closed standard output costs no file).
fn write_files(report: &Report, json: Option<&Path>, plot_path: Option<&Path>) -> Result<(), String> {
    if let Some(path) = json {
        ptxfp::io::write_atomically(path, report.to_json().as_bytes()).map_err(|e| e.to_string())?;
    }
    if let Some(path) = plot_path {
        let clause = report.bound.as_ref().and_then(|b| b.clauses.first());
        let metric = match clause.map(|c| c.metric.as_str()) {
            Some("absolute") => Metric::Absolute,
            Some("relative") => Metric::Relative,
            _ => Metric::Ulp,
        };
        let buckets: Vec<Bucket> = report
            .profile
            .iter()
            .map(|b| Bucket {
                key: b.bucket as f64,
                input: b.input.0,
                error: match metric {
                    Metric::Ulp => b.max_ulp as f64,
                    Metric::Absolute => b.max_abs_error.0,
                    Metric::Relative => b.max_rel_error.0,
                }
                .min(f64::MAX),
            })
            .collect();
        let title = format!("{} on {} | {} | vs {}", report.instr, report.arch, report.domain, report.reference);
        let worst = match metric {
            Metric::Ulp => &report.worst.ulp,
            Metric::Absolute => &report.worst.abs,
            Metric::Relative => &report.worst.rel,
        };
        let worst_input = worst.as_ref().map(|c| c.input_text());
        let data = PlotData {
            title: &title,
            metric,
            buckets: &buckets,
            bound: clause.map(|c| c.limit.0),
            worst_input: worst_input.as_deref(),
            histogram: &report.ulp_histogram,
        };
        plot::write(path, &data).map_err(sweep_error)?;
    }
    Ok(())
}

/// Progress on standard error: a bar redrawn in place on a terminal, a plain line every ten
/// seconds otherwise.
/// A progress display on standard error: a bar on a terminal, a line every ten seconds
/// otherwise; `what` names the command and `unit` what it counts.
pub struct Progress {
    what: &'static str,
    unit: &'static str,
    quiet: bool,
    tty: bool,
    started: Instant,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    pub fn new(what: &'static str, unit: &'static str, quiet: bool) -> Progress {
        Progress {
            what,
            unit,
            quiet,
            tty: std::io::stderr().is_terminal(),
            started: Instant::now(),
            last: Mutex::new(None),
        }
    }

    pub fn update(&self, done: u64, total: u64) {
        if self.quiet {
            return;
        }
        let interval = if self.tty { 0.2 } else { 10.0 };
        let mut last = self.last.lock().unwrap();
        let now = Instant::now();
        if last.is_some_and(|t| now.duration_since(t).as_secs_f64() < interval) && done < total {
            return;
        }
        if last.is_none() && !self.tty && done < total && now.duration_since(self.started).as_secs_f64() < interval {
            return;
        }
        *last = Some(now);
        let elapsed = now.duration_since(self.started).as_secs_f64();
        let fraction = if total == 0 { 1.0 } else { done as f64 / total as f64 };
        let rate = done as f64 / elapsed.max(1e-9);
        let eta = if rate > 0.0 { (total - done) as f64 / rate } else { 0.0 };
        let mut err = std::io::stderr().lock();
        if self.tty {
            let width = 30;
            let filled = (fraction * width as f64) as usize;
            let _ = write!(
                err,
                "\r[{}{}] {:5.1}%  {:.3e} {}/s  ETA {}   ",
                "#".repeat(filled),
                " ".repeat(width - filled),
                100.0 * fraction,
                rate,
                self.unit,
                duration(eta)
            );
        } else {
            let _ = writeln!(
                err,
                "{}: {:.1}% ({done} of {total} {unit}), {rate:.3e} {unit}/s, ETA {}",
                self.what,
                100.0 * fraction,
                duration(eta),
                unit = self.unit
            );
        }
        let _ = err.flush();
    }

    pub fn finish(&self) {
        if !self.quiet && self.tty && self.last.lock().unwrap().is_some() {
            eprintln!();
        }
    }
}

fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}
