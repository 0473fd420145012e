//! `ptxfp capture` and `ptxfp compare`: argument handling and the per-spelling report around
//! [`ptxfp::capture`].

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use ptxfp::capture::compare::{self, Outcome};
use ptxfp::capture::{self, Manifest, Request};
use ptxfp::io::{Dtype, Writer};
use ptxfp::{Instr, Target, TargetError};

use crate::sweep_cmd::parse_count;
use crate::{print_out, FAILED};

#[derive(Args)]
pub struct CaptureArgs {
    /// The spellings to capture (PTX spellings; see `ptxfp ops`).
    instrs: Vec<Instr>,
    /// Every PTX spelling the architecture has: the approximate scalar ones and the
    /// low-precision conversions from one word of 16 bits or fewer over every input, the
    /// others on edge-biased samples, and the `.ftz` tininess boundary of mul/fma.f32. (A
    /// named pair conversion from two f32 takes every f32 value through both lanes.)
    #[arg(long)]
    all: bool,
    /// The architecture the kernels are written for (their `.target`; the GPU must have it).
    #[arg(long, default_value = "sm_90")]
    arch: Target,
    /// Only values in LO..HI or LO..=HI, for every operand of the named spellings (as for
    /// `sweep`; their operands must be of one floating-point format).
    #[arg(long, value_name = "LO..HI", allow_hyphen_values = true)]
    range: Option<String>,
    /// N edge-biased random inputs instead of the whole domain (default with --all for the
    /// spellings not swept whole: 2^20).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    random: Option<u64>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The directory of the kit (created if needed).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Args)]
pub struct CompareArgs {
    /// A kit written by `ptxfp capture` whose results `scripts/capture_run.py` wrote.
    dir: PathBuf,
    /// Write the per-spelling report here as JSON (default: DIR/summary.json).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also write each differing spelling's mismatches (the first 2^22) to
    /// DIR/<stem>.mismatches.npy: uint64 triples index, GPU result, ptxfp result.
    #[arg(long)]
    mismatches: bool,
}

/// A capture error as the command line words it: the request's parts named by their options.
fn capture_error(e: capture::Error) -> String {
    use capture::Error;
    match e {
        Error::Sass { instr } => {
            format!("{instr} is a SASS operation: capture the PTX spellings that lower to it (see `ptxfp ops`)")
        }
        Error::Nothing => "name the spellings to capture, or --all".into(),
        Error::RangeNotOneFloat { instr } => format!("{instr}: --range is for sources of one floating-point format"),
        Error::RangeOfPacked { instr } => format!("{instr}: a --range of a packed type needs --random"),
        Error::TooManyIntervals { instr, count } => {
            format!("{instr}: a domain of {count} inputs in several intervals is too large to write; use --random N")
        }
        e => e.to_string(),
    }
}

pub fn capture(args: CaptureArgs) -> Result<i32, String> {
    let request = Request {
        target: args.arch,
        instrs: args.instrs,
        all: args.all,
        range: args.range,
        random: args.random,
        seed: args.seed,
    };
    let manifest = capture::write_kit(&request, &args.out).map_err(capture_error)?;
    let inputs: u64 = manifest.entries.iter().map(|e| e.count).sum();
    print_out(format_args!(
        "wrote {} kernels for {} ({inputs} inputs) to {}\nrun them on the GPU: python3 scripts/capture_run.py {}\nthen compare: ptxfp compare {}\n",
        manifest.entries.len(),
        manifest.arch,
        args.out.display(),
        args.out.display(),
        args.out.display()
    ))?;
    Ok(0)
}

/// Exit status 0 when every spelling run matches bit for bit, [`FAILED`] when one differs, 1
/// when none was run.
pub fn compare(args: CompareArgs) -> Result<i32, String> {
    let manifest = Manifest::load(&args.dir).map_err(|e| e.to_string())?;
    let target: Target = manifest.arch.parse().map_err(|e: TargetError| e.to_string())?;
    let mut outcomes = Vec::with_capacity(manifest.entries.len());
    for entry in &manifest.entries {
        let outcome = compare::compare_entry(&args.dir, target, entry, args.mismatches).map_err(|e| e.to_string())?;
        if let Some(c) = outcome.compared.as_ref().filter(|c| !c.kept.is_empty()) {
            let stem = entry.output.trim_end_matches(".out.npy");
            let path = args.dir.join(format!("{stem}.mismatches.npy"));
            let words: Vec<u64> = c.kept.iter().flatten().copied().collect();
            let mut writer = Writer::create(&path, Dtype::Uint64, words.len() as u64).map_err(|e| e.to_string())?;
            writer.write_block(&words).map_err(|e| e.to_string())?;
            writer.commit().map_err(|e| e.to_string())?;
        }
        // A closed pipe (`| head`) stops the listing, not the comparison.
        let _ = writeln!(std::io::stdout(), "{}", line(&outcome));
        outcomes.push(outcome);
    }
    let json = serde_json::to_string_pretty(&outcomes).expect("outcomes always serialize");
    let path = args.json.unwrap_or_else(|| args.dir.join("summary.json"));
    ptxfp::io::write_atomically(&path, json.as_bytes()).map_err(|e| e.to_string())?;
    let run = outcomes.iter().filter(|o| o.compared.is_some()).count();
    let differing = outcomes.iter().filter(|o| o.compared.as_ref().is_some_and(|c| c.mismatches > 0)).count();
    print_out(format_args!(
        "{run} of {} spellings compared, {differing} differ; report: {}\n",
        outcomes.len(),
        path.display()
    ))?;
    Ok(match (run, differing) {
        (0, _) => 1,
        (_, 0) => 0,
        _ => FAILED,
    })
}

/// One line per spelling: the verdict, then the first mismatching inputs.
fn line(o: &Outcome) -> String {
    let mut s = format!("{:<34} ", o.instr);
    match &o.compared {
        None => s.push_str("not run (no results file)"),
        Some(c) if c.mismatches == 0 => {
            let _ = write!(s, "identical on {} inputs ({})", o.count, o.domain);
        }
        Some(c) => {
            let _ = write!(s, "{} of {} inputs differ ({})", c.mismatches, o.count, o.domain);
            for m in c.first.iter().take(4) {
                let _ = write!(s, "\n    [{}] {} -> gpu {} ptxfp {}", m.index, m.operands.join(" "), m.gpu, m.ptxfp);
            }
        }
    }
    s
}
