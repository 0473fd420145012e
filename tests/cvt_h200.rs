//! The `cvt` forms an NVIDIA H200 (sm_90, driver 580.159.04, CUDA 13.0) was asked about with
//! `scripts/capture_cvt_fingerprints.py` (data/hardware/h200-sm90/cvt/README.md): which
//! spellings its JIT accepts, its results on special operands, and fingerprints of its results
//! over every operand of 8/16/32-bit sources and 2^24 generated operands of 64-bit ones. Every
//! expected value here is the GPU's; none comes from ptxfp.
//!
//! Every spelling of the capture is checked, through `Instr` as a user evaluates it: the integer
//! conversions (`cvt.rzi.s32.f32`, `cvt.rn.f32.u64`, ...), the same-format forms
//! (`cvt.rni.f32.f32`, `cvt.ftz.f32.f32`, ...) and, as a check of the fingerprint scheme itself,
//! the four float-to-float controls.

mod common;

use std::collections::BTreeMap;
use std::io::Read;

use common::batch::batch;
use ptxfp::{Instr, IntSide, Opcode, SimdLevel, Target};
use rayon::prelude::*;

const CAPTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hardware/h200-sm90/cvt");

fn read_xz(name: &str) -> String {
    let file = std::fs::File::open(format!("{CAPTURE}/{name}")).unwrap();
    let mut text = String::new();
    xz4rust::XzReader::new(file).read_to_string(&mut text).unwrap();
    text
}

fn rows(name: &str) -> impl Iterator<Item = Vec<String>> {
    read_xz(name)
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect::<Vec<_>>()
        .into_iter()
}

/// How ptxfp evaluates one of the capture's spellings.
struct Conversion {
    /// Its results in batches come from batch evaluation (the SIMD kernels at the machine's
    /// level), as a user gets them.
    instr: Instr,
    src_bits: u32,
    src_float: bool,
    dst_bits: u32,
    kind: Kind,
}

impl Conversion {
    /// One result, through the scalar definition.
    fn eval(&self, a: u64) -> u64 {
        self.instr.eval_unchecked(Target::DEFAULT, &[a])
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A float-to-float conversion: a same-format form, or a control.
    Float {
        plain: bool,
    },
    /// Float to integer, or integer to float, without `.ftz` and `.sat` (`plain`) or with.
    FloatToInt {
        plain: bool,
    },
    IntToFloat {
        plain: bool,
    },
}

/// The capture's spellings, as ptxfp parses them: the integer and same-format conversions, and
/// the float-to-float controls.
fn conversion(spelling: &str) -> Option<Conversion> {
    let instr: Instr = spelling.parse().ok()?;
    let m = instr.modifiers();
    let plain = !m.ftz && !m.sat;
    let same_format = matches!(instr.opcode(), Opcode::Cvt { from } if from == instr.ty());
    let control = ["cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rn.f32.f64", "cvt.rn.bf16.f32"].contains(&spelling);
    let kind = match instr.integer_side() {
        Some((_, IntSide::Destination)) => Kind::FloatToInt { plain },
        Some((_, IntSide::Source)) => Kind::IntToFloat { plain },
        None if same_format || control => Kind::Float { plain: same_format && plain },
        None => return None,
    };
    Some(Conversion {
        instr,
        src_bits: instr.source_bits(),
        src_float: instr.source_type(0).float().is_some(),
        dst_bits: instr.result_bits(),
        kind,
    })
}

/// splitmix64's finaliser, as the capture kernel computes it.
fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One input's contribution to its block's fingerprint.
fn term(i: u64, out: u64) -> u64 {
    mix(mix(i.wrapping_add(0x9E37_79B9_7F4A_7C15)) ^ out)
}

/// The operand of input `i` for a 64-bit source (`float`: f64, else a 64-bit integer).
fn gen64(i: u64, float: bool) -> u64 {
    let r1 = mix(i ^ 0xD1B5_4A32_D192_ED03);
    let r2 = mix(r1);
    if float {
        let exp = (1019 + ((r1 >> 52) & 0x7F)) << 52;
        (r1 & (1 << 63)) | exp | (r1 & 0x000F_FFFF_FFFF_FFFF & (u64::MAX << (r2 & 63)))
    } else {
        let x = (r1 >> (r2 & 63)) & (u64::MAX << ((r2 >> 6) & 63));
        if r2 & 4096 != 0 {
            x.wrapping_neg()
        } else {
            x
        }
    }
}

/// ptxfp's fingerprint of inputs `first..first + len` (one block).
fn fingerprint(c: &Conversion, first: u64, len: u64) -> u64 {
    let mask = u64::MAX >> (64 - c.dst_bits);
    let operand = |i| if c.src_bits == 64 { gen64(i, c.src_float) } else { i };
    const CHUNK: u64 = 1 << 16;
    (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let inputs = first + k * CHUNK..first + ((k + 1) * CHUNK).min(len);
            let operands = vec![inputs.clone().map(operand).collect()];
            let results = batch(&c.instr, Target::DEFAULT, SimdLevel::active(), &operands, 0);
            inputs.zip(results).fold(0u64, |sum, (i, r)| sum.wrapping_add(term(i, r & mask)))
        })
        .reduce(|| 0, u64::wrapping_add)
}

struct Fingerprints {
    block: u64,
    sums: Vec<u64>,
}

/// Both passes' fingerprints: the first, and the second's conversions between bf16 and u8/s8
/// (whose repeated controls must equal the first pass's).
fn fingerprints() -> BTreeMap<String, Fingerprints> {
    let mut all = BTreeMap::new();
    for r in rows("fingerprints.tsv.xz").chain(rows("fingerprints_bf16_int8.tsv.xz")) {
        let sums = r[3].split(',').map(|h| u64::from_str_radix(h, 16).unwrap()).collect::<Vec<_>>();
        let count: u64 = r[1].parse().unwrap();
        let block: u64 = r[2].parse().unwrap();
        assert_eq!(sums.len() as u64 * block, count, "{}: blocks cover the inputs", r[0]);
        if let Some(first) = all.insert(r[0].clone(), Fingerprints { block, sums }) {
            assert_eq!(first.sums, all[&r[0]].sums, "{}: the passes differ", r[0]);
        }
    }
    all
}

/// Whether `PTXFP_EXHAUSTIVE_CVT` asks for every block of every spelling.
fn exhaustive() -> bool {
    std::env::var_os("PTXFP_EXHAUSTIVE_CVT").is_some()
}

/// The 32-bit-source integer spellings whose blocks are checked in every run (the others of
/// 32-bit sources in the exhaustive tier): one per rounding direction and destination width.
const CHECKED_32: [&str; 8] = [
    "cvt.rni.s32.f32",
    "cvt.rzi.u8.f32",
    "cvt.rmi.s64.f32",
    "cvt.rpi.u16.f32",
    "cvt.rn.f32.s32",
    "cvt.rz.f16.u32",
    "cvt.rm.bf16.s32",
    "cvt.rp.f64.u32",
];

/// The blocks of `c` checked in this run, as indices into its fingerprints (`blocks` of them).
///
/// Without `PTXFP_EXHAUSTIVE_CVT`: every block of the 8/16-bit sources; the first 16 of the
/// 64-bit sources (2^20 operands); of an f32 source (a block is the operands with the same top
/// 8 bits), both signs of: for a plain same-format spelling zeros and subnormals, [2^-3, 2^25)
/// in part (every value with a fraction, the first binades without) and Inf/NaN; for the other
/// same-format spellings and the controls zeros and subnormals, [0.5, 8) and Inf/NaN; for
/// float to integer zeros and subnormals, [0.5, 2), the binades of the destination's bounds and
/// Inf/NaN. Of an integer source: the smallest and largest words of both signs.
fn blocks_checked(spelling: &str, c: &Conversion, blocks: u64) -> Vec<u64> {
    let all = (0..blocks).collect();
    if exhaustive() || c.src_bits <= 16 {
        return all;
    }
    if c.src_bits == 64 {
        return (0..16).collect();
    }
    let both_signs = |b: &[u64]| b.iter().flat_map(|&b| [b, b | 0x80]).collect();
    match c.kind {
        Kind::Float { plain: true } => both_signs(&[0x00, 0x3E, 0x3F, 0x40, 0x44, 0x4A, 0x4B, 0x7F]),
        Kind::Float { plain: false } => both_signs(&[0x00, 0x3F, 0x40, 0x7F]),
        _ if !CHECKED_32.contains(&spelling) => vec![],
        Kind::FloatToInt { .. } => {
            // The binade [2^(n-1), 2^n) of an n-bit destination: biased exponent 126 + n.
            let bound = (126 + u64::from(c.dst_bits)) >> 1;
            both_signs(&[0x00, 0x3F, bound, 0x7F])
        }
        Kind::IntToFloat { .. } => vec![0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF],
    }
}

/// Every spelling ptxfp defines against the GPU's fingerprints, on the blocks of this run.
#[test]
fn conversions_match_the_h200_fingerprints() {
    let mut checked = BTreeMap::new();
    let mut failures = vec![];
    for (spelling, fp) in fingerprints() {
        let Some(c) = conversion(&spelling) else { continue };
        for b in blocks_checked(&spelling, &c, fp.sums.len() as u64) {
            *checked.entry(c.src_bits).or_insert(0) += 1;
            if fingerprint(&c, b * fp.block, fp.block) != fp.sums[b as usize] {
                failures.push(format!("{spelling}: block {b} (inputs {:#x}..)", b * fp.block));
            }
        }
    }
    assert!(failures.is_empty(), "{} blocks differ from the H200's: {failures:?}", failures.len());
    eprintln!("blocks checked by source width: {checked:?}");
    // One block for every spelling of 8/16-bit sources: u8/s8 to floats 2 × 36; f16 to integers
    // 64, bf16 to integers 32, f16/bf16 same-format 15 and a control, u16/s16 to floats 2 × 36.
    // Of the 64-bit sources (f64 to integers 64, u64/s64 to floats 2 × 36, f64 same-format 10
    // and a control), 16 blocks each, or all 256.
    assert_eq!((checked[&8], checked[&16]), (72, 64 + 32 + 16 + 72));
    assert_eq!(checked[&64], 147 * if exhaustive() { 256 } else { 16 });
}

/// `.sat` changes no float-to-integer result on the GPU: the fingerprints with and without it
/// are equal, as `ops::cvt_int::float_to_int`, which takes no `.sat`, says.
#[test]
fn sat_changes_no_float_to_integer_result() {
    let fps = fingerprints();
    let mut pairs = 0;
    for (spelling, fp) in &fps {
        let Some(Kind::FloatToInt { .. }) = conversion(spelling).map(|c| c.kind) else { continue };
        if let Some(plain) = spelling.contains(".sat").then(|| &fps[&spelling.replace(".sat", "")]) {
            assert_eq!(fp.sums, plain.sums, "{spelling}");
            pairs += 1;
        }
    }
    assert_eq!(pairs, 128);
}

/// The GPU's destination register on special operands: the result word, extended to the
/// register (16 bits for 8-bit results: sign-extended for s8, zero-extended for u8).
#[test]
fn conversions_match_the_h200_on_special_operands() {
    let mut count = 0;
    for r in rows("specials.tsv.xz") {
        let Some(c) = conversion(&r[0]) else { continue };
        let a = u64::from_str_radix(&r[1], 16).unwrap();
        let gpu = u64::from_str_radix(&r[2], 16).unwrap();
        let mut got = c.eval(a);
        if c.dst_bits == 8 && r[0].contains(".s8.") && got & 0x80 != 0 {
            got |= 0xFF00;
        }
        assert_eq!(got, gpu, "{} {a:#x}: ptxfp {got:#x}, H200 {gpu:#x}", r[0]);
        count += 1;
    }
    // Every 32/64-bit-source spelling ptxfp defines: 30 same-format, 192 float to integer, 144
    // integer to float, 3 controls (each 64 to 206 operands).
    assert!(count > 369 * 60, "{count} special operands");
}

/// The `cvt` spellings ptxfp accepts among the capture's candidates (every rounding, `.ftz`
/// and `.sat` between each integer type and each float type, both ways, and from each float type
/// to itself) are exactly those the H200's JIT accepted; for bf16 ↔ u8/s8, the second pass's
/// verdicts with the integer in an 8-bit register.
#[test]
fn cvt_spellings_are_those_the_jit_accepts() {
    let second: BTreeMap<String, String> = rows("jit_bf16_int8.tsv.xz").map(|r| (r[0].clone(), r[1].clone())).collect();
    let mut accepted = 0;
    for r in rows("jit.tsv.xz") {
        let verdict = second.get(&r[0]).unwrap_or(&r[1]);
        let parsed = r[0].parse::<Instr>();
        if verdict == "accepted" {
            accepted += 1;
            assert!(parsed.is_ok(), "{}: the JIT accepts it, ptxfp says {:?}", r[0], parsed.err());
        } else {
            assert!(parsed.is_err(), "{}: the JIT rejects it ({verdict}), ptxfp accepts it", r[0]);
        }
    }
    assert_eq!((second.len(), accepted), (144, 605 + 16));
}
