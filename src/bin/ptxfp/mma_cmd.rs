//! `ptxfp mma`: one tensor-core instruction on a target, its datapath described, or evaluated
//! over stacks of tiles in files; `ptxfp gemm`, a whole matrix product with an instruction's
//! numerics; and the tensor-core lines of `ptxfp ops`.

use std::path::PathBuf;

use ptxfp::io::{run_gemm, run_mma, MmaFiles};
use ptxfp::mma::{forms, Form, Gemm, Generation, Mma, MmaInstr};
use ptxfp::ptx::Evidence;
use ptxfp::Target;

#[derive(clap::Args)]
pub struct MmaArgs {
    /// The instruction as PTX spells it, e.g. mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
    /// (tcgen05.mma appends its instruction descriptor's shape and types:
    /// tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.bf16.bf16). `ptxfp ops mma` lists them.
    spelling: String,
    /// Target architecture: chooses the generation's datapath (sm_90a for wgmma, sm_100a for
    /// tcgen05, sm_120a for the block-scaled mma.sync).
    #[arg(long, default_value = "sm_90")]
    arch: Target,
    /// A: (…, m, k) tiles, row-major (`.npy`, or raw words of the element's container).
    #[arg(long, value_name = "FILE")]
    a: Option<PathBuf>,
    /// B: (…, k, n) tiles.
    #[arg(long, value_name = "FILE")]
    b: Option<PathBuf>,
    /// C: (…, m, n) tiles; without it C is +0.
    #[arg(long, value_name = "FILE")]
    c: Option<PathBuf>,
    /// scale_A of a block-scaled form: (…, m, vec).
    #[arg(long = "scale-a", value_name = "FILE")]
    scale_a: Option<PathBuf>,
    /// scale_B of a block-scaled form: (…, vec, n).
    #[arg(long = "scale-b", value_name = "FILE")]
    scale_b: Option<PathBuf>,
    /// D: (…, m, n), written when every tile has been evaluated.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Error analysis instead: this many seeded random dot products with planted cancellation,
    /// D against the exact sum in ulps, by the number of cancelling product pairs (1e5 or
    /// 100_000 accepted).
    #[arg(long, value_name = "CASES", value_parser = super::sweep_cmd::parse_count)]
    error: Option<u64>,
    /// The seed of --error's cases.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// With --error: also write the rows as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub fn mma(args: MmaArgs) -> Result<i32, String> {
    let instr = MmaInstr::parse(&args.spelling).map_err(|e| e.to_string())?;
    let mma = Mma::new(instr, args.arch).map_err(|e| format!("{e} (choose it with --arch)"))?;
    if let Some(cases) = args.error {
        return error_analysis(&mma, cases, args.seed, args.json.as_deref());
    }
    if args.json.is_some() {
        return Err("--json goes with --error".into());
    }
    let (a, b, out) = match (&args.a, &args.b, &args.out) {
        (None, None, None) if args.c.is_none() && args.scale_a.is_none() && args.scale_b.is_none() => {
            super::print_out(describe(&mma))?;
            return Ok(0);
        }
        (Some(a), Some(b), Some(out)) => (a, b, out),
        _ => return Err("give --a, --b and --out (and --c, --scale-a, --scale-b as the form needs), or none of them to describe the datapath".into()),
    };
    let scales = match (&args.scale_a, &args.scale_b) {
        (Some(sa), Some(sb)) => Some((sa.as_path(), sb.as_path())),
        (None, None) => None,
        _ => return Err("give both --scale-a and --scale-b".into()),
    };
    let files = MmaFiles { a, b, c: args.c.as_deref(), scales };
    let tiles = run_mma(&mma, files, out).map_err(|e| e.to_string())?;
    super::print_out(format_args!(
        "{tiles} tiles of {} on {} ({}) written to {}\n",
        mma.instr(),
        mma.target(),
        mma.evidence().name(),
        out.display()
    ))?;
    Ok(0)
}

/// `ptxfp mma SPELLING --error N`: the table of [`ptxfp::sweep::mma::cancellation_error`].
fn error_analysis(mma: &Mma, cases: u64, seed: u64, json: Option<&std::path::Path>) -> Result<i32, String> {
    let rows = ptxfp::sweep::mma::cancellation_error(mma, cases, seed).map_err(|e| e.to_string())?;
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
        ptxfp::io::write_atomically(path, text.as_bytes()).map_err(|e| e.to_string())?;
    }
    let mut s = format!(
        "{} on {} ({}): D against the exact sum, in ulps of D at the exact value; seed {seed}\n",
        mma.instr(),
        mma.target(),
        mma.evidence().name()
    );
    s += &format!(
        "{:>17} {:>9} {:>18} {:>9} {:>12} {:>12} {:>10}\n",
        "cancelling pairs", "cases", "correctly rounded", "faithful", "mean |err|", "max |err|", "not finite"
    );
    for r in rows.iter().filter(|r| r.cases > 0) {
        s += &format!(
            "{:>17} {:>9} {:>18} {:>9} {:>12.4} {:>12.4} {:>10}\n",
            r.cancelling_pairs, r.cases, r.correctly_rounded, r.faithful, r.mean_abs_ulps, r.max_abs_ulps, r.not_finite
        );
    }
    super::print_out(s)?;
    Ok(0)
}

/// What `ptxfp mma SPELLING --arch X` prints: the form, its datapath and evidence.
fn describe(mma: &Mma) -> String {
    let instr = mma.instr();
    let [a, b, c, d] = mma.operand_types();
    let mut s = format!("{instr}\n  target      {}\n  shape       {}\n", mma.target(), instr.shape);
    s += &format!("  types       A {} ({} bits), B {} ({} bits), C {}, D {}\n", a.0, a.1, b.0, b.1, c.0, d.0);
    if let (Some(vec), Some((st, _))) = (mma.scale_vec(), mma.scale_type()) {
        s += &format!("  scales      {st}, {vec} per row of A and column of B\n");
    }
    match mma.fdpa() {
        Some(f) => {
            s += &format!(
                "  datapath    fused dot product: blocks of {} products, {} fraction bits kept, {} rounding, zero terms at 2^{}{}\n",
                f.block,
                f.frac,
                f.rho.name(),
                f.e_zero,
                if f.group > 0 { format!(", groups of {}", f.group) } else { String::new() }
            )
        }
        None => s += "  datapath    exact (f64: a chain of fma.f64; integers: exact sums)\n",
    }
    s += &format!("  evidence    {}\n  source      {}\n", mma.evidence().name(), mma.source());
    let form = instr.form();
    s += &format!("  targets     {}\n", form.targets.requirement());
    if let Some(note) = form.note {
        s += &format!("  note        {note}\n");
    }
    s
}

/// The evidence of a form on each generation that has it: `hardware-verified (sm_80, sm_90);
/// model (sm_120)`.
pub fn evidence_by_generation(form: &Form) -> String {
    let mut groups: Vec<(Evidence, Vec<String>)> = Vec::new();
    let mut seen: Vec<Generation> = Vec::new();
    for target in form.targets.iter() {
        let Some(generation) = Generation::of(target.sm()) else { continue };
        if seen.contains(&generation) {
            continue;
        }
        seen.push(generation);
        let Ok(mma) = Mma::new(form.instr, target) else { continue };
        let name = format!("sm_{}", target.sm());
        match groups.iter_mut().find(|(e, _)| *e == mma.evidence()) {
            Some((_, list)) => list.push(name),
            None => groups.push((mma.evidence(), vec![name])),
        }
    }
    let parts: Vec<String> = groups.iter().map(|(e, list)| format!("{} ({})", e.name(), list.join(","))).collect();
    parts.join("; ")
}

/// The tensor-core lines of `ptxfp ops`: pattern with its M and N sets, operand count,
/// evidence per generation, "tile", targets.
pub fn ops_lines(filter: Option<&str>) -> Vec<String> {
    forms()
        .iter()
        .filter(|f| filter.is_none_or(|x| f.pattern().contains(x)))
        .map(|f| {
            let operands = if f.instr.to_string().contains("block_scale") { 5 } else { 3 };
            let sets = f.sets();
            let pattern = if sets.is_empty() { f.pattern() } else { format!("{}[{sets}]", f.pattern()) };
            format!(
                "{pattern:<34} {operands:>8}  {:<18} {:<14} {:#}",
                evidence_by_generation(f),
                "tile",
                f.targets.requirement()
            )
        })
        .collect()
}

#[derive(clap::Args)]
pub struct GemmArgs {
    /// The instruction whose tiles make the product, as PTX spells it (its C and D of one
    /// type), e.g. wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3.
    spelling: String,
    /// Target architecture: chooses the generation's datapath.
    #[arg(long, default_value = "sm_90")]
    arch: Target,
    /// A: an (M, K) .npy matrix of the instruction's A type.
    #[arg(long, value_name = "FILE")]
    a: PathBuf,
    /// B: (K, N).
    #[arg(long, value_name = "FILE")]
    b: PathBuf,
    /// C: (M, N); without it C is +0.
    #[arg(long, value_name = "FILE")]
    c: Option<PathBuf>,
    /// scale_A of a block-scaled form: (M, ⌈K/s⌉), s the k one scale covers.
    #[arg(long = "scale-a", value_name = "FILE")]
    scale_a: Option<PathBuf>,
    /// scale_B of a block-scaled form: (⌈K/s⌉, N).
    #[arg(long = "scale-b", value_name = "FILE")]
    scale_b: Option<PathBuf>,
    /// D: (M, N), written when the whole product has been evaluated.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Promote every P k: a fresh tensor-core accumulator every P k, each span added into an
    /// f32 accumulator with add.rn.f32 (DeepGEMM, FlashAttention-3 use 128).
    #[arg(long = "promote-every", value_name = "P")]
    promote_every: Option<usize>,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

/// `ptxfp gemm`: D = A·B + C with one instruction's numerics, from .npy matrices.
pub fn gemm(args: GemmArgs) -> Result<i32, String> {
    let instr = MmaInstr::parse(&args.spelling).map_err(|e| e.to_string())?;
    let mma = Mma::new(instr, args.arch).map_err(|e| format!("{e} (choose it with --arch)"))?;
    let gemm = Gemm::new(mma, args.promote_every).map_err(|e| e.to_string())?;
    let scales = match (&args.scale_a, &args.scale_b) {
        (Some(sa), Some(sb)) => Some((sa.as_path(), sb.as_path())),
        (None, None) => None,
        _ => return Err("give both --scale-a and --scale-b".into()),
    };
    let files = MmaFiles { a: &args.a, b: &args.b, c: args.c.as_deref(), scales };
    let display = super::sweep_cmd::Progress::new("gemm", "products", args.quiet);
    let started = std::time::Instant::now();
    let dims =
        run_gemm(&gemm, files, &args.out, &|done, total| display.update(done, total)).map_err(|e| e.to_string())?;
    display.finish();
    let seconds = started.elapsed().as_secs_f64();
    let products = (dims.m * dims.n * dims.k) as f64;
    let promotion = gemm.promote_every().map_or(String::new(), |p| format!(", promoted every {p} k"));
    super::print_out(format_args!(
        "{}×{}×{} with {} on {} ({}){promotion}: written to {} ({seconds:.2} s, {:.3e} products/s)\n",
        dims.m,
        dims.n,
        dims.k,
        mma.instr(),
        mma.target(),
        mma.evidence().name(),
        args.out.display(),
        products / seconds.max(1e-9)
    ))?;
    Ok(0)
}
