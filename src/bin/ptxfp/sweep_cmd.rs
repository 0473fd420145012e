//! `ptxfp sweep` and `ptxfp merge`: argument handling, progress display, Ctrl-C, checkpoints
//! and output files around [`ptxfp::sweep`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use ptxfp::sweep::plot::{self, Bucket, Metric, PlotData};
use ptxfp::sweep::report::Report;
use ptxfp::sweep::{Checkpoint, Control, Outcome, Shard, Spec, Sweep};
use serde::{Deserialize, Serialize};

use crate::FAILED;

/// Set by Ctrl-C: the sweep finishes the units in flight and saves a checkpoint.
static STOP: AtomicBool = AtomicBool::new(false);

#[derive(Args)]
pub struct SweepArgs {
    /// The instruction, e.g. ex2.approx.ftz.f32 (optional with --resume).
    instr: Option<String>,
    /// Target architecture (as for `eval`).
    #[arg(long, default_value = "sm_90")]
    arch: String,
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
    /// Seed of --random.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Evaluate only shard K of N (a contiguous slice of the inputs); `ptxfp merge` combines
    /// the shards' JSON reports.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw the error against the input and the ulp histogram (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Where an interrupted sweep saves its state (default: <instr>.checkpoint.json).
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Continue the sweep saved in this checkpoint; it writes the --json and --plot files the
    /// interrupted sweep was given, unless others are given here.
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

/// What `--checkpoint` files hold: the sweep's state and the files the finished sweep writes.
#[derive(Serialize, Deserialize)]
struct Saved {
    checkpoint: Checkpoint,
    json: Option<PathBuf>,
    plot: Option<PathBuf>,
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
        _ => Err(format!("'{text}' is not a whole number of cases (e.g. 1000000 or 1e6)")),
    }
}

pub fn sweep(args: SweepArgs) -> Result<i32, String> {
    let (mut json, mut plot) = (args.json.clone(), args.plot.clone());
    let (spec, shard, resume) = match &args.resume {
        Some(path) => {
            let text = read(path)?;
            let saved: Saved = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not a ptxfp sweep checkpoint: {e}", path.display()))?;
            json = json.or(saved.json);
            plot = plot.or(saved.plot);
            let cp = saved.checkpoint;
            if let Some(instr) = &args.instr {
                if *instr != cp.report.spec.instr {
                    return Err(format!(
                        "{} is a checkpoint of {}, not of {instr}",
                        path.display(),
                        cp.report.spec.instr
                    ));
                }
            }
            let shard = match &cp.report.shard {
                Some(label) => Shard::parse(label)?,
                None => Shard::WHOLE,
            };
            (cp.report.spec.clone(), shard, Some(cp))
        }
        None => {
            let instr =
                args.instr.clone().ok_or("name the instruction to sweep (e.g. ptxfp sweep ex2.approx.ftz.f32)")?;
            let spec = Spec {
                instr,
                arch: args.arch.clone(),
                range: args.range.clone(),
                binade: args.binade,
                random: args.random,
                seed: args.seed,
                reference: args.reference.clone(),
            };
            let shard = args.shard.as_deref().map_or(Ok(Shard::WHOLE), Shard::parse)?;
            (spec, shard, None)
        }
    };
    let sweep = Sweep::new(&spec, shard, true)?;
    check_extension(plot.as_deref())?;
    // Saved absolute, so that a sweep resumed elsewhere writes the same files.
    let absolute = |p: &Option<PathBuf>| p.as_deref().map(std::path::absolute).transpose().map_err(|e| e.to_string());
    let outputs = (absolute(&json)?, absolute(&plot)?);
    let checkpoint_path = args
        .checkpoint
        .clone()
        .or_else(|| args.resume.clone())
        .unwrap_or_else(|| PathBuf::from(format!("{}.checkpoint.json", sweep.instr)));
    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)).map_err(|e| format!("cannot catch Ctrl-C: {e}"))?;

    let total = sweep.count();
    if !args.quiet {
        eprintln!("sweeping {} over {} ({} inputs)", sweep.instr, sweep.domain.describe(), total);
    }
    let display = Progress::new(args.quiet);
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
        let saved = Saved { checkpoint: cp.clone(), json: outputs.0.clone(), plot: outputs.1.clone() };
        let text = serde_json::to_string(&saved).expect("a checkpoint always serializes");
        if let Err(e) = ptxfp::io::write_atomically(&checkpoint_path, text.as_bytes()) {
            *save_error.lock().unwrap() = Some(e.to_string());
        }
    };
    let control = Control { progress: &progress, stop: &STOP, checkpoint: &save, checkpoint_every: 60.0 };
    let outcome = sweep.run(resume, &control)?;
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
            Ok(130)
        }
        Outcome::Complete(report) => {
            if let Some(e) = save_error.into_inner().unwrap() {
                eprintln!("ptxfp: warning: a periodic checkpoint could not be saved: {e}");
            }
            write_outputs(&report, json.as_deref(), plot.as_deref())?;
            // The sweep is complete: a checkpoint of it is no longer needed.
            if checkpoint_path.exists() {
                let _ = std::fs::remove_file(&checkpoint_path);
            }
            Ok(verdict(&report, args.no_fail))
        }
    }
}

pub fn merge(args: MergeArgs) -> Result<i32, String> {
    check_extension(args.plot.as_deref())?;
    let reports: Vec<Report> = args
        .reports
        .iter()
        .map(|p| Report::from_json(&read(p)?).map_err(|e| format!("{}: {e}", p.display())))
        .collect::<Result<_, _>>()?;
    let merged = ptxfp::sweep::merge(&reports)?;
    write_outputs(&merged, args.json.as_deref(), args.plot.as_deref())?;
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

/// The summary on stdout, then the JSON report and the plot (each written atomically).
fn write_outputs(report: &Report, json: Option<&Path>, plot_path: Option<&Path>) -> Result<(), String> {
    print!("{}", report.summary());
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
        plot::write(path, &data)?;
    }
    Ok(())
}

/// Progress on standard error: a bar redrawn in place on a terminal, a plain line every ten
/// seconds otherwise.
struct Progress {
    quiet: bool,
    tty: bool,
    started: Instant,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        Progress { quiet, tty: std::io::stderr().is_terminal(), started: Instant::now(), last: Mutex::new(None) }
    }

    fn update(&self, done: u64, total: u64) {
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
                "\r[{}{}] {:5.1}%  {:.3e} inputs/s  ETA {}   ",
                "#".repeat(filled),
                " ".repeat(width - filled),
                100.0 * fraction,
                rate,
                duration(eta)
            );
        } else {
            let _ = writeln!(
                err,
                "sweep: {:.1}% ({done} of {total} inputs), {rate:.3e} inputs/s, ETA {}",
                100.0 * fraction,
                duration(eta)
            );
        }
        let _ = err.flush();
    }

    fn finish(&self) {
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
