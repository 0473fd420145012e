//! The `ptxfp` command line: list the catalog, evaluate instructions, run them over files,
//! measure throughput, sweep their error.

mod capture_cmd;
mod mma_cmd;
mod records;
mod sweep_cmd;

use std::ffi::OsString;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{CommandFactory, Parser, Subcommand};
use ptxfp::operand::{format_result, parse_operand};
use ptxfp::ptx::catalog;
use ptxfp::quote::Quoted;
use ptxfp::{Instr, Opcode, SimdLevel, Target, TargetError, SIMD_LEVEL_VARIABLE};

/// The exit status of a check that found a failure: a bound failed, results differ from
/// `--ref` (`sweep`, `merge`) or from the GPU's (`compare`).
const FAILED: i32 = 3;

/// The exit status when standard output closes early (`ptxfp bench | head -1`): what a shell
/// reports for a command stopped by SIGPIPE.
const CLOSED_OUTPUT: i32 = 141;

/// The exit status of a `sweep` or `run` stopped by Ctrl-C or SIGTERM.
const INTERRUPTED: i32 = 130;

#[derive(Parser)]
#[command(
    name = "ptxfp",
    version = version(),
    about = "Bit-exact CPU evaluation of NVIDIA PTX floating-point instructions",
    after_help = "Exit status: 0 success; 1 a usage, input or I/O error; 3 a check failed (sweep or merge: \
                  the documented bound fails or the results differ from --ref, unless --no-fail; compare: \
                  results differ from the GPU's); 130 a sweep interrupted by Ctrl-C or SIGTERM (its checkpoint \
                  saved) or an interrupted run (its output not written); 141 standard output closed early (nothing more is printed; files are written \
                  before the text on standard output)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every instruction spelling: operand count, evidence level, batch path, targets; the
    /// tensor-core forms with their evidence on each generation and their M and N sets.
    Ops {
        /// Show only spellings containing this text (e.g. `fma`, `.f16x2`, `MUFU`).
        filter: Option<String>,
    },
    /// Evaluate one instruction. Operands are hex words (0x3f800000; packed types as one word)
    /// or decimal values (1.5, -0, inf, nan). With no operands, reads one evaluation per line
    /// from standard input (whitespace-separated operands; blank lines and text after `#`
    /// skipped) and writes one result line each. Options may come before or after the operands.
    Eval {
        /// Target architecture: decides which instructions exist and how the approximate ones
        /// are lowered (sm_5x/6x use RRO).
        #[arg(long, default_value = "sm_90")]
        arch: Target,
        /// The instruction, e.g. fma.rn.ftz.f32
        instr: Instr,
        /// The source operands.
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
    },
    /// Evaluate one instruction over files of operands, element by element: raw little-endian
    /// words, or NumPy .npy arrays (float16/32/64, uint8/16/32/64, int8/16/32/64). Streams in
    /// blocks; the output appears only when complete (written to a temporary file, then
    /// renamed).
    Run {
        /// Target architecture (as for `eval`).
        #[arg(long, default_value = "sm_90")]
        arch: Target,
        /// The instruction, e.g. fma.rn.f32
        instr: Instr,
        /// An input file, one per source operand, in operand order (`.npy`, or raw words).
        #[arg(long = "in", value_name = "FILE")]
        inputs: Vec<PathBuf>,
        /// The output file (`.npy`, or raw words).
        #[arg(long = "out", value_name = "FILE")]
        output: PathBuf,
    },
    /// Measure batch throughput: elements/s with one thread and with all threads, and the ratio
    /// to a baseline that moves the same bytes (sources read, destination written), measured
    /// in the same run.
    Bench {
        /// Write the measurements as a JSON list instead of a table.
        #[arg(long)]
        json: bool,
        /// Elements per buffer; several lengths separated by commas, each like 1000000 or 1e6
        /// (default: 2^20, whose buffers fit a large last-level cache, and 2^24, whose buffers
        /// live in memory).
        #[arg(long, value_delimiter = ',', value_parser = parse_length, default_values_t = ptxfp::bench::DEFAULT_LENGTHS)]
        size: Vec<usize>,
        /// Target architecture (as for `eval`).
        #[arg(long, default_value = "sm_90")]
        arch: Target,
        /// Instructions to measure (default: a representative set).
        instrs: Vec<Instr>,
    },
    /// Error analysis: evaluate an instruction on every input of a domain (all f32 values of a
    /// unary f32 instruction, all f16/bf16 values or operand pairs; otherwise a seeded random
    /// sample) and compare with the correctly rounded exact function, another instruction or a
    /// dump of expected results: ulp histogram, worst cases, error by binade, the verdict
    /// against the documented bound. Ctrl-C saves a checkpoint that --resume continues.
    Sweep(sweep_cmd::SweepArgs),
    /// Merge the JSON reports of every shard of one sweep (`ptxfp sweep --shard K/N`).
    Merge(sweep_cmd::MergeArgs),
    /// Write a capture kit: a PTX kernel per spelling (operands from memory or the thread
    /// index, never immediates) and the inputs of sampled domains, for
    /// `scripts/capture_run.py` to run on a GPU and `ptxfp compare` to check bit for bit.
    Capture(capture_cmd::CaptureArgs),
    /// One tensor-core instruction (mma.sync, wmma.mma, wgmma.mma_async, tcgen05.mma) on a
    /// target: with --a, --b and --out, D = A·B + C for every tile of the files; without them,
    /// its datapath, evidence and targets.
    Mma(mma_cmd::MmaArgs),
    /// A matrix product D = A·B + C (.npy matrices) with a tensor-core instruction's numerics:
    /// its tiles chained through K as a kernel's main loop chains them, with optional
    /// promotion into f32 every P k.
    Gemm(mma_cmd::GemmArgs),
    /// Compare the GPU results of a capture kit with ptxfp, bit for bit: per spelling the
    /// mismatch count and the first mismatching inputs (exit status 3 if any differ).
    Compare(capture_cmd::CompareArgs),
}

/// The package version and the SIMD level the kernels run at on this processor.
fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "{} (SIMD level {}; this processor has {})",
            env!("CARGO_PKG_VERSION"),
            SimdLevel::active(),
            SimdLevel::detected()
        )
    })
}

fn main() -> ExitCode {
    // A level forced through the environment that cannot be taken is an error, not a silent
    // fallback.
    if let Err(e) = SimdLevel::from_env() {
        return exit(Err(format!("{SIMD_LEVEL_VARIABLE}: {e}")));
    }
    let cli = match Cli::try_parse_from(hoist_eval_options(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => {
            if let Some(reason) = own_value_error(&e) {
                return exit(Err(reason));
            }
            // Help and version go to standard output with status 0; usage errors are status 1,
            // like every other error.
            let e = bounded(e);
            let _ = e.print();
            return if e.use_stderr() { ExitCode::FAILURE } else { ExitCode::SUCCESS };
        }
    };
    let result = match cli.command {
        Command::Ops { filter } => list_ops(filter.as_deref()),
        Command::Eval { arch, instr, operands } => eval(arch, &instr, &operands),
        Command::Run { arch, instr, inputs, output } => return exit(run(arch, &instr, &inputs, &output)),
        Command::Bench { json, size, arch, instrs } => bench(json, size, arch, instrs),
        Command::Sweep(args) => return exit(sweep_cmd::sweep(args)),
        Command::Merge(args) => return exit(sweep_cmd::merge(args)),
        Command::Capture(args) => return exit(capture_cmd::capture(args)),
        Command::Compare(args) => return exit(capture_cmd::compare(args)),
        Command::Mma(args) => return exit(mma_cmd::mma(args)),
        Command::Gemm(args) => return exit(mma_cmd::gemm(args)),
    };
    exit(result.map(|()| 0))
}

/// `text` on standard output, flushed; a failure as [`stdout_error`] says.
fn print_out(text: impl std::fmt::Display) -> Result<(), String> {
    let mut out = io::stdout().lock();
    write!(out, "{text}").and_then(|()| out.flush()).map_err(stdout_error)
}

/// A failed write to standard output: a closed pipe ends the program at once, quietly, with
/// [`CLOSED_OUTPUT`] (every command writes its files before it prints); any other failure (a
/// full disk) is an error that names it.
fn stdout_error(e: io::Error) -> String {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_OUTPUT);
    }
    format!("cannot write to standard output: {e}")
}

/// The exit status of a command: 0 on success, its own code, or 1 after printing the error.
fn exit(result: Result<i32, String>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(message) => {
            eprintln!("ptxfp: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The message of a value that ptxfp's own parser refused (an architecture, an instruction, a
/// shard), written on one line like every error ptxfp words itself; `None` for clap's own
/// usage errors.
fn own_value_error(e: &clap::Error) -> Option<String> {
    if e.kind() != clap::error::ErrorKind::ValueValidation {
        return None;
    }
    let reason = std::error::Error::source(e)?;
    let ours = reason.is::<TargetError>() || reason.is::<ptxfp::ParseError>() || reason.is::<ptxfp::sweep::Error>();
    ours.then(|| reason.to_string())
}

/// A usage error of clap's whose quotation of what was typed (a rejected value, an unknown
/// option or subcommand) is cut to [`ptxfp::quote::MAX_CHARS`] characters, as every message
/// ptxfp writes itself quotes user input; a tip that would repeat a longer word says the same
/// in general terms.
fn bounded(mut e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg, ContextKind::InvalidSubcommand] {
        if let Some(ContextValue::String(text)) = e.get(kind) {
            if let (start, more @ 1..) = ptxfp::quote::cut(text) {
                let shown = format!("{start}… ({more} more characters)");
                e.insert(kind, ContextValue::String(shown));
            }
        }
    }
    if let Some(ContextValue::StyledStrs(tips)) = e.get(ContextKind::Suggested) {
        let general = "to pass a word that starts with '-' as a value, put '--' before it";
        let bounded = tips
            .iter()
            .map(|tip| match ptxfp::quote::cut(&tip.to_string()) {
                (_, 0) => tip.clone(),
                _ => general.into(),
            })
            .collect();
        e.insert(ContextKind::Suggested, ContextValue::StyledStrs(bounded));
    }
    e
}

/// `args` with the options of `eval` that follow its instruction or operands moved before the
/// instruction, so that they are options wherever they are written (its operands take values
/// with a leading `-`, such as `-1.5` and `-inf`, which would otherwise take them in). A long
/// option is any word starting with `--` (its value follows it unless written `--arch=…`),
/// and `-h`; after a lone `--` every word is an operand.
fn hoist_eval_options(mut args: Vec<OsString>) -> Vec<OsString> {
    // The subcommand: the first word after the program's name that is not an option.
    let Some(at) = args.iter().skip(1).position(|a| !a.to_string_lossy().starts_with('-')).map(|i| i + 1) else {
        return args;
    };
    if args[at] != "eval" {
        return args;
    }
    let cmd = Cli::command();
    let eval = cmd.find_subcommand("eval").expect("the eval subcommand");
    let takes_value =
        |word: &str| eval.get_arguments().any(|a| a.get_long() == Some(word) && a.get_action().takes_values());
    let rest = args.split_off(at + 1);
    let (mut options, mut words) = (Vec::new(), Vec::new());
    let mut rest = rest.into_iter();
    while let Some(word) = rest.next() {
        let text = word.to_string_lossy().into_owned();
        if text == "--" {
            words.push(word);
            words.extend(rest.by_ref());
        } else if let Some(long) = text.strip_prefix("--") {
            options.push(word);
            if !long.contains('=') && takes_value(long) {
                options.extend(rest.next());
            }
        } else if text == "-h" {
            options.push(word);
        } else {
            words.push(word);
        }
    }
    args.extend(options);
    args.extend(words);
    args
}

/// A buffer length for `bench --size`: as `--random` counts are written (`1e6`, `1_000_000`).
fn parse_length(text: &str) -> Result<usize, String> {
    let n = sweep_cmd::parse_count(text)?;
    usize::try_from(n).map_err(|_| format!("{}: too many elements for this machine", Quoted(text)))
}

fn list_ops(filter: Option<&str>) -> Result<(), String> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let write = |out: &mut BufWriter<_>, line: String| writeln!(out, "{line}").map_err(stdout_error);
    write(&mut out, format!("{:<34} {:>8}  {:<18} {:<14} {}", "spelling", "operands", "evidence", "batch", "targets"))?;
    for e in catalog::entries() {
        let spelling = e.instr.to_string();
        if filter.is_some_and(|f| !spelling.contains(f)) {
            continue;
        }
        // Batch path on sm_90, or on the lowest target that has the instruction.
        let target = if e.targets.contains(Target::DEFAULT) { Target::DEFAULT } else { e.lowest_target() };
        let batch = e.instr.batch_path(target).name();
        // The targets --arch accepts that have it with this many operands, as PTX states them.
        let targets = e.targets.requirement();
        write(
            &mut out,
            format!("{spelling:<34} {:>8}  {:<18} {batch:<14} {targets:#}", e.sources, e.instr.evidence().name()),
        )?;
    }
    // The tensor cores: one line per form, evaluated tile by tile (`ptxfp mma`).
    for line in mma_cmd::ops_lines(filter) {
        write(&mut out, line)?;
    }
    out.flush().map_err(stdout_error)
}

/// Whether `target` has `instr`, in the command line's words: where a newer architecture has
/// it, the message says how to choose one.
fn check_target(target: Target, instr: &Instr) -> Result<(), String> {
    target.check(instr).map_err(|e| {
        if e.wants_newer_target() {
            format!("{e} (choose it with --arch)")
        } else {
            e.to_string()
        }
    })
}

fn eval(target: Target, instr: &Instr, operands: &[String]) -> Result<(), String> {
    check_target(target, instr)?;
    if !operands.is_empty() {
        let line = eval_line(target, instr, operands.iter().map(String::as_str))?;
        return print_out(format_args!("{line}\n"));
    }
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: reading standard input: {e}", n + 1))?;
        // Text from `#` on is a comment; a line with nothing else is skipped.
        let operands = line.split('#').next().unwrap_or_default();
        if operands.trim().is_empty() {
            continue;
        }
        let result =
            eval_line(target, instr, operands.split_whitespace()).map_err(|e| format!("line {}: {e}", n + 1))?;
        writeln!(out, "{result}").map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)
}

fn run(target: Target, instr: &Instr, inputs: &[PathBuf], output: &Path) -> Result<i32, String> {
    check_target(target, instr)?;
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    // Ctrl-C and SIGTERM stop at the next block, removing the unfinished output.
    static STOP: AtomicBool = AtomicBool::new(false);
    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst))
        .map_err(|e| format!("cannot catch Ctrl-C and SIGTERM: {e}"))?;
    match ptxfp::io::run_until(instr, target, &inputs, output, &STOP) {
        Ok(_) => Ok(0),
        Err(e @ ptxfp::io::Error::Interrupted { .. }) => {
            eprintln!("ptxfp: {e}");
            Ok(INTERRUPTED)
        }
        Err(e) => Err(e.to_string()),
    }
}

fn eval_line<'a>(target: Target, instr: &Instr, words: impl Iterator<Item = &'a str>) -> Result<String, String> {
    let mut values = Vec::with_capacity(3);
    for (i, word) in words.enumerate() {
        let ty = instr.source_type(i);
        values.push(parse_operand(ty, word).map_err(|e| format!("operand {}: {e}", i + 1))?);
    }
    let bits = instr.eval_on(target, &values).map_err(|e| e.to_string())?;
    if let Opcode::Testp(_) = instr.opcode() {
        // testp writes a predicate.
        return Ok(format!("{bits:#x} {bits}"));
    }
    Ok(format_result(instr.ty(), bits))
}

fn bench(json: bool, sizes: Vec<usize>, target: Target, instrs: Vec<Instr>) -> Result<(), String> {
    let instrs = if instrs.is_empty() {
        let defaults = ptxfp::bench::DEFAULT_INSTRS.iter().map(|s| s.parse::<Instr>());
        defaults.collect::<Result<_, _>>().map_err(|e: ptxfp::ParseError| e.to_string())?
    } else {
        instrs
    };
    for i in &instrs {
        check_target(target, i)?;
    }
    if let Some(bad) = sizes.iter().find(|&&n| n == 0) {
        return Err(format!("--size {bad}: a buffer needs at least one element"));
    }
    let threads = rayon::current_num_threads();
    if !json {
        print_out(format_args!(
            "{target}, up to {threads} threads, SIMD level {}\n{:<24} {:>10} {:>7} {:>16} {:>16} {:>8}  kernel\n",
            SimdLevel::active(),
            "instr",
            "elements",
            "threads",
            "elements/s",
            "baseline/s",
            "ratio"
        ))?;
    }
    let mut all = Vec::new();
    for i in &instrs {
        for &size in &sizes {
            for m in ptxfp::bench::measure(i, target, size, threads).map_err(|e| e.to_string())? {
                if !json {
                    let kernel = m.path.name();
                    print_out(format_args!(
                        "{:<24} {:>10} {:>7} {:>16.4e} {:>16.4e} {:>8.3}  {kernel}\n",
                        m.instr,
                        m.elements,
                        m.threads,
                        m.elements_per_second,
                        m.copy_elements_per_second,
                        m.ratio_to_copy
                    ))?;
                }
                all.push(m);
            }
        }
    }
    if json {
        print_out(records::to_json(&all))?;
    }
    Ok(())
}
