//! The tensor-core datapath against public hardware captures: 5,000 dot products per (GPU,
//! input type, output type) of V100, A100, Ada (RTX 1000), H100 and B200, from
//! `north-numerical-computing/MATLAB-tensor-core` (BSD-2-Clause, Khattak & Mikaitis, "Accurate
//! models of NVIDIA tensor cores", arXiv 2512.07004). Every expected value is the GPU's.
//!
//! The archive is read from `../shared/tensorcore/model_validation.tar.xz` next to the crate (or
//! the file `PTXFP_TENSORCORE_DATA` names) and never copied into the project. Without it every
//! test here writes `NOT RUN: …` to standard error; with `CI` or `PTXFP_REQUIRE_DATA` set, it
//! fails instead.
//!
//! Files per set: `a_*`, `b_*` (one dot product per row, K values as f32 hex words: the input
//! value widened to f32), `c_*_fp32.txt` and `d_*_{fp32,fp16}.txt` (one value per row, the f32
//! bits as a binary string; an f16 result as the f32 of the half). The capture kernels
//! (`CUDA/` in the archive): `wmma` m16n16k16 for f16 and bf16, m16n16k8 for tf32, with the
//! set's K values first and zeros after; `mma.sync.aligned.m16n8k32` for FP8; for f16 output
//! `C = __float2half(c)`. The authors' validation script compares the H100 FP8 → f32 sets with
//! C = 0 ("D = AB + D where D is zero for fp8 with WGMMA").

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;

use ptxfp::mma::table::{row, Generation, InputKind, OutType, Unit};
use ptxfp::mma::MmaType;

use common::exact_dot::{self as exact, Fmt, Params, Round};

/// The archive's files by path, or why it could not be read.
fn archive() -> Result<&'static BTreeMap<String, Vec<u8>>, String> {
    static FILES: OnceLock<Result<BTreeMap<String, Vec<u8>>, String>> = OnceLock::new();
    FILES
        .get_or_init(|| {
            let path = std::env::var_os("PTXFP_TENSORCORE_DATA").map(PathBuf::from).unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tensorcore/model_validation.tar.xz")
            });
            let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut tar = Vec::new();
            xz4rust::XzReader::new(file).read_to_end(&mut tar).map_err(|e| format!("{}: {e:?}", path.display()))?;
            untar(&tar).map_err(|e| format!("{}: {e}", path.display()))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The regular files of a ustar archive.
fn untar(tar: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files = BTreeMap::new();
    let mut at = 0;
    while at + 512 <= tar.len() && tar[at..at + 512].iter().any(|&b| b != 0) {
        let header = &tar[at..at + 512];
        let field = |r: std::ops::Range<usize>| {
            let f = &header[r];
            String::from_utf8_lossy(&f[..f.iter().position(|&b| b == 0).unwrap_or(f.len())]).into_owned()
        };
        let size = usize::from_str_radix(field(124..136).trim(), 8).map_err(|e| format!("tar size field: {e}"))?;
        let name = match field(345..500) {
            prefix if prefix.is_empty() => field(0..100),
            prefix => format!("{prefix}/{}", field(0..100)),
        };
        let body = at + 512;
        if body + size > tar.len() {
            return Err(format!("tar entry {name} is truncated"));
        }
        if header[156] == b'0' || header[156] == 0 {
            files.insert(name, tar[body..body + size].to_vec());
        }
        at = body + size.div_ceil(512) * 512;
    }
    Ok(files)
}

/// Skips the calling test (`NOT RUN` on standard error) or, under `CI`, fails it.
fn require_data() -> Option<&'static BTreeMap<String, Vec<u8>>> {
    match archive() {
        Ok(files) => Some(files),
        Err(why) if std::env::var_os("CI").is_some() || std::env::var_os("PTXFP_REQUIRE_DATA").is_some() => {
            panic!("tensor-core hardware data missing: {why}")
        }
        Err(why) => {
            eprintln!("tensorcore_hardware: NOT RUN: {why}");
            None
        }
    }
}

/// One set: the GPU's dot products.
struct Set {
    a: Vec<Vec<u32>>,
    b: Vec<Vec<u32>>,
    c: Vec<u32>,
    d: Vec<u32>,
}

fn text<'a>(files: &'a BTreeMap<String, Vec<u8>>, path: &str) -> &'a str {
    std::str::from_utf8(files.get(&format!("model_validation/{path}")).unwrap_or_else(|| panic!("{path} missing")))
        .unwrap()
}

fn hex_rows(s: &str) -> Vec<Vec<u32>> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|w| u32::from_str_radix(w, 16).unwrap()).collect())
        .collect()
}

fn binary_rows(s: &str) -> Vec<u32> {
    s.lines().filter(|l| !l.trim().is_empty()).map(|l| u32::from_str_radix(l.trim(), 2).unwrap()).collect()
}

/// The code of `ty` whose value is the f32 `word` (every input of the sets is one).
fn code_of(ty: MmaType, word: u32) -> u32 {
    let v = f32::from_bits(word);
    match ty {
        MmaType::Tf32 | MmaType::F32 => word,
        MmaType::F16 => {
            let h = half::f16::from_f32(v);
            assert_eq!(h.to_f32().to_bits(), word, "{word:#x} is not an f16");
            h.to_bits() as u32
        }
        MmaType::Bf16 => {
            assert_eq!(word & 0xFFFF, 0, "{word:#x} is not a bf16");
            word >> 16
        }
        _ => (0..1u32 << ty.bits())
            .find(|&code| {
                let x = ptxfp::Narrow::ALL.into_iter().find(|n| n.name() == ty.name()).unwrap().to_f64(code as u64);
                x == v as f64 && x.is_sign_negative() == v.is_sign_negative()
            })
            .unwrap_or_else(|| panic!("{v} is not an {ty}")),
    }
}

fn f16_of_f32_word(word: u32) -> u32 {
    let h = half::f16::from_f32(f32::from_bits(word));
    assert_eq!(h.to_f32().to_bits(), word, "{word:#x} is not an f16");
    h.to_bits() as u32
}

/// The set of `gpu`, input `dir` (`fp16`, `E4M3` …) and output `out` (`fp32`, `fp16`), as the
/// capture kernel received it: inputs as codes, zero-padded to the instruction's K; C in the
/// output type.
fn set(files: &BTreeMap<String, Vec<u8>>, gpu: &str, dir: &str, ty: MmaType, out: OutType, k: usize) -> Set {
    let rows = |side: &str| -> Vec<Vec<u32>> {
        hex_rows(text(files, &format!("{gpu}/{dir}/{side}_{gpu}_{dir}.txt")))
            .into_iter()
            .map(|r| {
                let mut r: Vec<u32> = r.into_iter().map(|w| code_of(ty, w)).collect();
                assert!(r.len() <= k);
                r.resize(k, 0);
                r
            })
            .collect()
    };
    let c32 = binary_rows(text(files, &format!("{gpu}/{dir}/c_{gpu}_fp32.txt")));
    let (c, d) = match out {
        OutType::F32 => (c32, binary_rows(text(files, &format!("{gpu}/{dir}/d_{gpu}_fp32.txt")))),
        OutType::F16 => (
            c32.iter().map(|&w| half::f16::from_f32(f32::from_bits(w)).to_bits() as u32).collect(),
            binary_rows(text(files, &format!("{gpu}/{dir}/d_{gpu}_fp16.txt")))
                .into_iter()
                .map(f16_of_f32_word)
                .collect(),
        ),
    };
    let (a, b) = (rows("a"), rows("b"));
    assert_eq!((a.len(), b.len(), c.len(), d.len()), (5000, 5000, 5000, 5000), "{gpu} {dir}");
    Set { a, b, c, d }
}

/// How many of the set's dot products `dot` reproduces, and the first mismatch.
fn matches(set: &Set, dot: impl Fn(&[u32], &[u32], u32) -> u32) -> (usize, Option<String>) {
    let mut hits = 0;
    let mut first = None;
    for i in 0..set.d.len() {
        let got = dot(&set.a[i], &set.b[i], set.c[i]);
        if got == set.d[i] {
            hits += 1;
        } else if first.is_none() {
            first = Some(format!("row {i}: got {got:#010x}, GPU {:#010x}", set.d[i]));
        }
    }
    (hits, first)
}

fn kind_of(ty: MmaType) -> InputKind {
    match ty {
        MmaType::Tf32 => InputKind::Tf32,
        MmaType::F16 | MmaType::Bf16 => InputKind::Half,
        _ => InputKind::Fp8,
    }
}

/// One captured set: the GPU, the set's directory, its input type and output, and the instruction
/// that captured it (its generation, unit and K; `c_zero` where the capture ran with C = 0).
#[derive(Clone, Copy)]
struct Capture {
    gpu: &'static str,
    dir: &'static str,
    ty: MmaType,
    out: OutType,
    generation: Generation,
    unit: Unit,
    k: usize,
    c_zero: bool,
}

const fn capture(
    (gpu, dir, ty, out): (&'static str, &'static str, MmaType, OutType),
    (generation, unit, k, c_zero): (Generation, Unit, usize, bool),
) -> Capture {
    Capture { gpu, dir, ty, out, generation, unit, k, c_zero }
}

/// Every set a published model fits.
const FITTING: [Capture; 22] = {
    use Generation::*;
    use MmaType::*;
    use OutType::{F16 as H, F32 as S};
    use Unit::*;
    [
        capture(("V100", "fp16", F16, S), (Volta, Mma, 16, false)),
        capture(("V100", "fp16", F16, H), (Volta, Mma, 16, false)),
        capture(("A100", "fp16", F16, S), (Ampere, Mma, 16, false)),
        capture(("A100", "fp16", F16, H), (Ampere, Mma, 16, false)),
        capture(("A100", "bf16", Bf16, S), (Ampere, Mma, 16, false)),
        capture(("A100", "tf32", Tf32, S), (Ampere, Mma, 8, false)),
        capture(("Ada", "fp16", F16, S), (Ada, Mma, 16, false)),
        capture(("Ada", "fp16", F16, H), (Ada, Mma, 16, false)),
        capture(("Ada", "bf16", Bf16, S), (Ada, Mma, 16, false)),
        capture(("Ada", "tf32", Tf32, S), (Ada, Mma, 8, false)),
        capture(("Ada", "E4M3", E4m3, S), (Ada, Mma, 32, false)),
        capture(("Ada", "E5M2", E5m2, S), (Ada, Mma, 32, false)),
        capture(("H100", "fp16", F16, S), (Hopper, Mma, 16, false)),
        capture(("H100", "fp16", F16, H), (Hopper, Mma, 16, false)),
        capture(("H100", "bf16", Bf16, S), (Hopper, Mma, 16, false)),
        capture(("H100", "tf32", Tf32, S), (Hopper, Mma, 8, false)),
        capture(("H100", "E4M3", E4m3, S), (Hopper, Wgmma, 32, true)),
        capture(("H100", "E5M2", E5m2, S), (Hopper, Wgmma, 32, true)),
        capture(("B200", "fp16", F16, S), (Blackwell, Mma, 16, false)),
        capture(("B200", "fp16", F16, H), (Blackwell, Mma, 16, false)),
        capture(("B200", "bf16", Bf16, S), (Blackwell, Mma, 16, false)),
        capture(("B200", "tf32", Tf32, S), (Blackwell, Mma, 8, false)),
    ]
};

#[test]
fn every_set_a_published_model_fits_matches_bit_for_bit() {
    let Some(files) = require_data() else { return };
    let mut failures = Vec::new();
    for Capture { gpu, dir, ty, out, generation, unit, k, c_zero } in FITTING {
        let set = set(files, gpu, dir, ty, out, k);
        let fdpa = row(generation, unit, kind_of(ty), out).expect("a row").fdpa;
        let (hits, first) = matches(&set, |a, b, c| fdpa.dot(ty, a, ty, b, if c_zero { 0 } else { c }, None));
        eprintln!("{gpu} {dir} -> {out:?}: {hits}/5000");
        if hits != 5000 {
            failures.push(format!("{gpu} {dir} -> {out:?}: {hits}/5000, {}", first.unwrap()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A candidate datapath for a set no published model fits, evaluated by the independent exact
/// reference (tests/common/exact_dot.rs).
struct Candidate {
    name: &'static str,
    params: Params,
    /// The inputs as f16 codes (an FP8-to-f16 conversion ahead of an f16 datapath).
    as_f16: bool,
    c_zero: bool,
    /// An f32 accumulator (E8M13 or f32) converted to f16 at the end (RNE), for f16 output.
    then_f16: bool,
}

const fn candidate(name: &'static str, params: Params, as_f16: bool, c_zero: bool, then_f16: bool) -> Candidate {
    Candidate { name, params, as_f16, c_zero, then_f16 }
}

const fn p(block: usize, frac: Option<i64>, round: Round, e_zero: i64) -> Params {
    Params { block, frac, round, e_zero, group: 0 }
}

/// The sets no published model fits, with every candidate tried: MMA-Sim's rows of the same
/// generation (with C, and with C = 0), the FP8-to-f16-then-HMMA reading (the capture kernel is
/// `mma.sync`, which ptxas may lower that way), round to nearest of the exact sum.
fn open_sets() -> Vec<(Capture, Vec<Candidate>)> {
    use Round::*;
    let b200 = |dir| {
        capture(
            ("B200", dir, if dir == "E4M3" { MmaType::E4m3 } else { MmaType::E5m2 }, OutType::F32),
            (Generation::Blackwell, Unit::Mma, 32, false),
        )
    };
    let h100 = |dir, out| {
        capture(
            ("H100", dir, if dir == "E4M3" { MmaType::E4m3 } else { MmaType::E5m2 }, out),
            (Generation::Hopper, Unit::Mma, 32, false),
        )
    };
    let b200_candidates = || {
        vec![
            candidate("MMA-Sim sm_100 FP8 row (L 32, F 25, RZ)", p(32, Some(25), RzF32, -133), false, false, false),
            candidate("to f16, then the f16 row (L 16, F 25, RZ)", p(16, Some(25), RzF32, -133), true, false, false),
            candidate("L 32, F 25, RNE", p(32, Some(25), RneF32, -133), false, false, false),
            candidate("exact sum, RZ", p(32, None, RzF32, -133), false, false, false),
            candidate("exact sum, RNE", p(32, None, RneF32, -133), false, false, false),
        ]
    };
    let h100_f16_candidates = || {
        vec![
            candidate("MMA-Sim wgmma row (L 32, F 13, RNE-f16)", p(32, Some(13), RneF16, -21), false, false, false),
            candidate("MMA-Sim wgmma row, C = 0", p(32, Some(13), RneF16, -21), false, true, false),
            candidate("MMA-Sim mma.sync row (L 32, F 25, RNE-f16)", p(32, Some(25), RneF16, -21), false, false, false),
            candidate(
                "to f16, then the f16 row (L 16, F 25, RNE-f16)",
                p(16, Some(25), RneF16, -21),
                true,
                false,
                false,
            ),
            candidate("to f16, then the f16 row, C = 0", p(16, Some(25), RneF16, -21), true, true, false),
            candidate("E8M13 accumulator (L 32, F 13), then f16", p(32, Some(13), RzE8m13, -133), false, false, true),
            candidate("E8M13 accumulator, C = 0, then f16", p(32, Some(13), RzE8m13, -133), false, true, true),
            candidate("exact sum, RNE-f16", p(32, None, RneF16, -21), false, false, false),
        ]
    };
    let h100_f32_candidates = || {
        vec![
            candidate(
                "MMA-Sim wgmma row (L 32, F 13, RZ-E8M13), C = 0",
                p(32, Some(13), RzE8m13, -133),
                false,
                true,
                false,
            ),
            candidate("MMA-Sim wgmma row, with the set's C", p(32, Some(13), RzE8m13, -133), false, false, false),
            candidate(
                "MMA-Sim mma.sync row (L 32, F 25, RZ), with C",
                p(32, Some(25), RzF32, -133),
                false,
                false,
                false,
            ),
            candidate(
                "to f16, then the f16 row (L 16, F 25, RZ), with C",
                p(16, Some(25), RzF32, -133),
                true,
                false,
                false,
            ),
        ]
    };
    vec![
        (b200("E4M3"), b200_candidates()),
        (b200("E5M2"), b200_candidates()),
        (h100("E4M3", OutType::F16), h100_f16_candidates()),
        (h100("E5M2", OutType::F16), h100_f16_candidates()),
        (h100("E4M3", OutType::F32), h100_f32_candidates()),
        (h100("E5M2", OutType::F32), h100_f32_candidates()),
    ]
}

fn fmt_of(ty: MmaType) -> Fmt {
    match ty {
        MmaType::E4m3 => Fmt::E4m3,
        MmaType::E5m2 => Fmt::E5m2,
        other => panic!("no open set of {other}"),
    }
}

/// The f16 code of an FP8 code (exact: every e4m3 and e5m2 value is an f16).
fn to_f16(ty: MmaType, code: u32) -> u32 {
    let narrow = ptxfp::Narrow::ALL.into_iter().find(|n| n.name() == ty.name()).unwrap();
    let x = narrow.to_f64(code as u64);
    let h = half::f16::from_f64(x);
    assert!(h.to_f64() == x || x.is_nan());
    h.to_bits() as u32
}

/// How many dot products of the set `candidate` reproduces.
fn candidate_hits(set: &Set, cap: Capture, cand: &Candidate) -> usize {
    let fmt = fmt_of(cap.ty);
    let f32_c: Vec<u32> = set.c.clone();
    (0..set.d.len())
        .filter(|&i| {
            let (a, b): (Vec<u32>, Vec<u32>) = if cand.as_f16 {
                (
                    set.a[i].iter().map(|&x| to_f16(cap.ty, x)).collect(),
                    set.b[i].iter().map(|&x| to_f16(cap.ty, x)).collect(),
                )
            } else {
                (set.a[i].clone(), set.b[i].clone())
            };
            let f = if cand.as_f16 { Fmt::F16 } else { fmt };
            // The set's C is in the output type; an f32 accumulator ahead of an f16 result
            // takes C widened.
            let c = match (cand.c_zero, cand.then_f16) {
                (true, _) => 0,
                (false, true) => half::f16::from_bits(f32_c[i] as u16).to_f32().to_bits(),
                (false, false) => f32_c[i],
            };
            let d = exact::dot(cand.params, f, &a, f, &b, c, None);
            let d = if cand.then_f16 { half::f16::from_f32(f32::from_bits(d)).to_bits() as u32 } else { d };
            d == set.d[i]
        })
        .count()
}

/// The README's evidence table lists, for each open set, every candidate with its match count:
/// the counts are recomputed here and must agree with what the README says.
#[test]
fn the_sets_no_model_fits_have_their_candidates_counted_in_the_readme() {
    let Some(files) = require_data() else { return };
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut missing = Vec::new();
    for (cap, candidates) in open_sets() {
        let set = set(files, cap.gpu, cap.dir, cap.ty, cap.out, cap.k);
        for cand in &candidates {
            let hits = candidate_hits(&set, cap, cand);
            let line = format!(
                "| {} {} → {} | {} | {hits} / 5000 |",
                cap.gpu,
                cap.dir,
                if cap.out == OutType::F32 { "f32" } else { "f16" },
                cand.name
            );
            eprintln!("{line}");
            if !readme.lines().any(|l| l.trim() == line) {
                missing.push(line);
            }
        }
    }
    assert!(missing.is_empty(), "README.md lacks these lines of its evidence table:\n{}", missing.join("\n"));
}
