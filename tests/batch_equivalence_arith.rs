//! The exact-arithmetic kernels (src/kernels/arith_f32.rs, half.rs, arith_f64.rs, f64_directed.rs,
//! div_sqrt.rs)
//! against the scalar definitions: `eval_batch` and `eval_unchecked` on the same operands, bit
//! for bit.
//!
//! Default tier: every catalog spelling of `add`, `sub`, `mul`, `fma` and `mad` on f32, f32x2,
//! f16, f16x2, bf16 and bf16x2, of `div`, `rcp` and `sqrt` `.rn/rz/rm/rp{.ftz}.f32`, of `min`
//! and `max` (two and three operands, every modifier), `abs`, `neg`, `copysign` and `testp` on
//! every format (the 16-bit `abs` and `neg` on all 2^16 operands too), and (where
//! the processor has AVX2) of all these operations on f64 must be vectorized, and each family
//! (add/sub, mul, fma/mad, div, rcp/sqrt, min/max) × format gets at least 10^7 operand words of
//! edge-biased random operands
//! (tests/common: subnormals, the smallest normal, overflow, signed zeros, infinities, NaNs
//! with payloads, ties, cancellation; here also exact results next to the smallest normal,
//! where `.ftz` tininess is decided, and the canonical NaN, which `.oob` looks for, or for f64
//! a signalling NaN), shared
//! equally among its spellings. A packed word carries an independent case in each element.
//! Half of the words come in runs of one kind (near the smallest normal, moderate exponents,
//! uniform bits) that fill whole vectors, where kernels take per-vector shortcuts.
//!
//! All 2^32 operand pairs of every f16 and bf16 kernel of this file (scalar and packed `add`,
//! `sub`, `mul`) are compared in the exhaustive tier by tests/exhaustive_half.rs, which
//! computes the scalar results once for all of them.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use common::{ap_div, operand, pair, seed, triple, Kind, Layout, Rng};
use ptxfp::ptx::catalog;
use ptxfp::{Format, Instr, Mode, Opcode, Rounding, SimdLevel, Target, Word};
use rayon::prelude::*;

/// Operand words per family × format in the default tier.
const CASES: u64 = 10_000_000;

/// Words per batch: not a multiple of any SIMD width, so the kernels' padded tail runs too.
const BLOCK: usize = (1 << 14) + 13;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    AddSub,
    Mul,
    Fma,
    /// `div.approx` and `div.full`.
    Div,
    /// The IEEE `div.rn/rz/rm/rp`.
    IeeeDiv,
    /// The IEEE `rcp` and `sqrt` `.rn/rz/rm/rp` (all 2^32 f32 inputs: tests/exhaustive_unary_f32.rs).
    RcpSqrt,
    /// `min` and `max`, two or three operands.
    MinMax,
    /// `abs`, `neg` and `copysign`.
    Sign,
    /// `testp`, every property.
    Testp,
}

fn family_of(instr: &Instr) -> Option<Family> {
    match instr.opcode() {
        Opcode::Add | Opcode::Sub => Some(Family::AddSub),
        Opcode::Mul => Some(Family::Mul),
        Opcode::Fma | Opcode::Mad => Some(Family::Fma),
        Opcode::Div if matches!(instr.mode(), Mode::Approx | Mode::Full) => Some(Family::Div),
        Opcode::Div if matches!(instr.mode(), Mode::Round(_)) => Some(Family::IeeeDiv),
        Opcode::Rcp | Opcode::Sqrt if matches!(instr.mode(), Mode::Round(_)) => Some(Family::RcpSqrt),
        Opcode::Min | Opcode::Max => Some(Family::MinMax),
        Opcode::Abs | Opcode::Neg | Opcode::Copysign => Some(Family::Sign),
        Opcode::Testp(_) => Some(Family::Testp),
        _ => None,
    }
}

/// The catalog spellings of `family` on the types of `fmt`, with a target that has each and
/// the operand count (a spelling with two legal counts, as the three-input `min`, twice).
fn spellings(family: Family, fmt: Format) -> Vec<(Instr, Target, usize)> {
    let mut out: Vec<(Instr, Target, usize)> = catalog::entries()
        .iter()
        .filter(|e| family_of(&e.instr) == Some(family) && e.instr.format() == fmt)
        .map(|e| (e.instr, e.lowest_target(), e.sources))
        .collect();
    out.dedup_by_key(|(i, _, n)| (*i, *n));
    out
}

/// Operands whose exact `a·b + c` (c = 0 for `mul`) lies within a few units of the smallest
/// normal, either sign: where `.ftz` decides tininess after rounding with an unbounded
/// exponent (docs/semantics.md §5). `a·b` is aimed at (m + 1)·2^emin and `c` is −m·2^emin; half of
/// the time `a` is a power of two, so that the product hits the aim exactly.
fn near_min_normal(rng: &mut Rng, l: Layout, with_addend: bool) -> [u64; 3] {
    let m = if with_addend { rng.below(4) } else { 0 };
    let neg = rng.coin();
    let aim = l.with_sign(l.nudge((m + 1) * l.min_normal(), rng.range(-2, 2)), neg);
    let e = rng.range(-12, 12) as i32;
    let a = if rng.coin() { l.encode(rng.coin(), 1, e).unwrap() } else { l.at_exp(rng.coin(), e, rng) };
    let b = l.nudge(ap_div(l.fmt, aim, a, Rounding::Rn), rng.range(-2, 2));
    let c = l.with_sign(m * l.min_normal(), !neg);
    [a, b, if with_addend { c } else { 0 }]
}

/// How the elements of a run of words are drawn. A kernel may take a shortcut for a whole
/// vector of lanes (exact.rs: when rounding the f64 result to nearest decides every lane),
/// which the edge-biased mix seldom leaves it: runs of one kind fill whole vectors.
#[derive(Clone, Copy)]
enum Run {
    /// [`element`]'s edge-biased mix.
    Mixed,
    /// `mul`, `fma`: exact results near the smallest normal, where `.ftz` decides tininess.
    NearMinNormal,
    /// Normal operands with exponents in [−20, 20].
    Moderate,
    /// Uniformly random words (overflow, NaNs and tiny values included).
    Bits,
}

/// A run of 32 to 95 words: long enough to fill at least one aligned vector of 16.
fn run(instr: &Instr, rng: &mut Rng) -> (Run, usize) {
    let len = 32 + rng.below(64) as usize;
    let kind = match rng.below(8) {
        0..=3 => Run::Mixed,
        4 | 5 if matches!(instr.opcode(), Opcode::Mul | Opcode::Fma | Opcode::Mad) => Run::NearMinNormal,
        4..=6 => Run::Moderate,
        _ => Run::Bits,
    };
    (kind, len)
}

/// One element's `n` operands for `instr` in a run of `kind`.
fn element_of(kind: Run, instr: &Instr, n: usize, l: Layout, rng: &mut Rng) -> [u64; 3] {
    match kind {
        Run::Mixed => element(instr, n, l, rng),
        Run::NearMinNormal => near_min_normal(rng, l, instr.opcode() != Opcode::Mul),
        Run::Moderate => [(); 3].map(|_| l.at_exp(rng.coin(), rng.range(-20, 20) as i32, rng)),
        Run::Bits => [(); 3].map(|_| rng.next() & l.mask()),
    }
}

/// One element's `n` operands for `instr`, edge-biased; now and then the canonical NaN.
fn element(instr: &Instr, n: usize, l: Layout, rng: &mut Rng) -> [u64; 3] {
    let opcode = instr.opcode();
    if matches!(opcode, Opcode::Mul | Opcode::Fma | Opcode::Mad) && rng.below(8) == 0 {
        return near_min_normal(rng, l, opcode != Opcode::Mul);
    }
    if matches!(opcode, Opcode::Fma | Opcode::Mad) && rng.below(16) == 0 {
        return exact_cancellation(rng, instr.format());
    }
    if matches!(opcode, Opcode::Fma | Opcode::Mad) && rng.below(16) == 0 {
        return midpoint_plus_tiny(rng, l);
    }
    let mut ops = match opcode {
        Opcode::Add => {
            let (a, b) = pair(rng, l, Kind::Add);
            [a, b, 0]
        }
        Opcode::Sub => {
            let (a, b) = pair(rng, l, Kind::Sub);
            [a, b, 0]
        }
        Opcode::Mul => {
            let (a, b) = pair(rng, l, Kind::Mul);
            [a, b, 0]
        }
        Opcode::Div => {
            let (a, b) = pair(rng, l, Kind::Div);
            [a, b, 0]
        }
        Opcode::Rcp => [pair(rng, l, Kind::Div).1, 0, 0],
        Opcode::Sqrt if rng.below(4) == 0 => [exact_square(rng, l), 0, 0],
        Opcode::Sqrt => [operand(rng, l), 0, 0],
        Opcode::Min | Opcode::Max | Opcode::Copysign => minmax_operands(rng, l),
        Opcode::Abs | Opcode::Neg | Opcode::Testp(_) => [operand(rng, l), 0, 0],
        _ => {
            let (a, b, c) = triple(rng, l);
            [a, b, c]
        }
    };
    if rng.below(32) == 0 {
        // f64 has no canonical NaN to look for; a signalling one tests quieting instead.
        let nan = l.canonical_nan().unwrap_or(0x7FF0_0000_0000_0000 | rng.below(1 << 51).max(1));
        ops[rng.below(n as u64) as usize] = nan;
    }
    ops
}

/// Operands for `min` and `max`: independent ones (zeros, subnormals, infinities and NaNs
/// among them), or the first one's negation or a near neighbour, so that ±0, equal magnitudes
/// of either sign and values a unit apart meet.
fn minmax_operands(rng: &mut Rng, l: Layout) -> [u64; 3] {
    let a = operand(rng, l);
    let mut related = || match rng.below(4) {
        0 => a ^ l.sign_bit(),
        1 => l.nudge(a, rng.range(-2, 3)),
        _ => operand(rng, l),
    };
    [a, related(), related()]
}

/// A square of a value with at most p/2 + 1 significant bits (exact in the format, when it
/// does not overflow or underflow), either sign: its root is exact, or for a negative square
/// the invalid operation.
fn exact_square(rng: &mut Rng, l: Layout) -> u64 {
    let root = rng.below(1 << (l.p / 2 + 1)).max(1) as u128;
    let e = rng.range((l.emin() / 2) as i64 - 30, (l.emax() / 2) as i64) as i32;
    l.encode(rng.coin(), root * root, 2 * e).unwrap_or(0)
}

/// `a·b + c` with `a·b` the midpoint of two neighbours in the format (`a = 1 + 2^-h`,
/// `b = 1 + 2^-(p−h)`, scaled) and `c` far below its last place, either sign: the sum rounded
/// to nearest in the kernels' wider lanes is the midpoint itself, and only the exact error
/// tells which way it rounds (the double-rounding trap of an fma computed in a wider format).
fn midpoint_plus_tiny(rng: &mut Rng, l: Layout) -> [u64; 3] {
    // Bits of the widest lanes a kernel computes the format in (f64 for f32, f32 otherwise),
    // so that `c` lies below their rounding of the product.
    let wide = if l.fmt == Format::F32 { 53 } else { 24 };
    let gap = (wide + 1 + rng.below(8) as i32).min(l.emax() - 1 - l.emin());
    let h = 1 + rng.below(l.p as u64 - 2) as u32;
    let top = rng.range((l.emin() + gap) as i64, l.emax() as i64 - 1) as i32;
    let ea = rng.range((top - l.emax()).max(l.emin()) as i64, top.min(l.emax()) as i64) as i32;
    let a = l.encode(rng.coin(), (1 << h) + 1, ea - h as i32).unwrap();
    let b = l.encode(rng.coin(), (1 << (l.p - h)) + 1, top - ea - (l.p - h) as i32).unwrap();
    let c = l.encode(rng.coin(), 1, top - gap).unwrap();
    [a, b, c]
}

/// `a·b + c` exactly zero, c = −(a·b) (whose sign under `.rn` is +0): a and b have four
/// significant bits and exponents near 1, so the product is exact in every format.
fn exact_cancellation(rng: &mut Rng, fmt: Format) -> [u64; 3] {
    let mut value = || {
        let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        sign * (8 + rng.below(8)) as f64 * 2f64.powi(rng.below(9) as i32 - 7)
    };
    let (a, b) = (value(), value());
    let bits = |x: f64| match fmt {
        Format::F16 => half::f16::from_f64(x).to_bits() as u64,
        Format::BF16 => half::bf16::from_f64(x).to_bits() as u64,
        Format::F32 => (x as f32).to_bits() as u64,
        Format::F64 => x.to_bits(),
    };
    let ops = [bits(a), bits(b), bits(-(a * b))];
    assert_eq!(fmt.to_f64(ops[2]), -(a * b), "the product must be exact");
    ops
}

/// A mismatch report: the instruction, the operand words, the kernel's word and the scalar
/// definition's.
fn report(instr: &Instr, ops: &[u64], got: u64, want: u64) -> String {
    let digits = (instr.ty().bits() / 4) as usize;
    let hex = |x: u64| format!("{x:#0w$x}", w = digits + 2);
    let ops: Vec<String> = ops.iter().map(|&x| hex(x)).collect();
    format!("{instr} [{}]: kernel {} scalar {}", ops.join(", "), hex(got), hex(want))
}

/// Evaluate `srcs` (words in u64) through `eval_batch_at` with words of type `W`.
fn batch<W: Word>(instr: &Instr, target: Target, level: SimdLevel, srcs: &[Vec<u64>]) -> Vec<u64> {
    let typed: Vec<Vec<W>> = srcs.iter().map(|s| s.iter().map(|&x| W::from_u64(x)).collect()).collect();
    let refs: Vec<&[W]> = typed.iter().map(Vec::as_slice).collect();
    let mut out = vec![W::from_u64(0); srcs[0].len()];
    instr.eval_batch_at(target, level, &refs, &mut out).unwrap();
    out.into_iter().map(W::to_u64).collect()
}

fn batch_any(instr: &Instr, target: Target, level: SimdLevel, srcs: &[Vec<u64>]) -> Vec<u64> {
    match instr.ty().bits() {
        16 => batch::<u16>(instr, target, level, srcs),
        32 => batch::<u32>(instr, target, level, srcs),
        _ => batch::<u64>(instr, target, level, srcs),
    }
}

/// Compare the kernels of every SIMD level this processor has with the scalar definition on
/// `srcs`; return the number of mismatches and up to 10 reports.
fn compare(instr: &Instr, target: Target, srcs: &[Vec<u64>]) -> (u64, Vec<String>) {
    let levels: Vec<SimdLevel> = SimdLevel::ALL.into_iter().filter(|l| l.is_supported()).collect();
    let got: Vec<Vec<u64>> = levels.iter().map(|&level| batch_any(instr, target, level, srcs)).collect();
    let mut failed = 0;
    let mut examples = Vec::new();
    let mut ops = [0u64; 3];
    for i in 0..srcs[0].len() {
        for (op, src) in ops.iter_mut().zip(srcs) {
            *op = src[i];
        }
        let want = instr.eval_unchecked(target, &ops[..srcs.len()]);
        for (level, got) in levels.iter().zip(&got) {
            if got[i] != want {
                failed += 1;
                if examples.len() < 10 {
                    examples.push(format!("[{level}] {}", report(instr, &ops[..srcs.len()], got[i], want)));
                }
            }
        }
    }
    (failed, examples)
}

/// `words` random words for each spelling of `family` × `fmt`, in parallel blocks.
fn random_tier(family: Family, fmt: Format) {
    let start = Instant::now();
    let spellings = spellings(family, fmt);
    assert!(!spellings.is_empty());
    // The f64 arithmetic kernels in the directed modes need hardware fused multiply-add
    // (AVX2 and up); the baseline evaluates some of them with the scalar definition, which
    // this then compares with itself. The bit operations (min, max, abs, neg, copysign,
    // testp) have kernels at every level.
    let bitwise = matches!(family, Family::MinMax | Family::Sign | Family::Testp);
    if fmt != Format::F64 || bitwise || SimdLevel::active() >= SimdLevel::Avx2 {
        for (instr, target, _) in &spellings {
            assert!(instr.is_vectorized(*target), "{instr} has no SIMD kernel");
        }
    }
    let words = CASES.div_ceil(spellings.len() as u64);
    let l = Layout::of(fmt);
    let blocks = words.div_ceil(BLOCK as u64);
    let failed = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    spellings.par_iter().for_each(|&(ref instr, target, n)| {
        let name = format!("{instr}/{n}");
        (0..blocks).into_par_iter().for_each(|block| {
            let mut rng = Rng::new(seed(&name, block));
            let len = BLOCK.min((words - block * BLOCK as u64) as usize);
            let mut srcs = vec![vec![0u64; len]; n];
            let (mut kind, mut left) = run(instr, &mut rng);
            for i in 0..len {
                if left == 0 {
                    (kind, left) = run(instr, &mut rng);
                }
                left -= 1;
                for lane in 0..instr.ty().lanes() {
                    let ops = element_of(kind, instr, n, l, &mut rng);
                    for (src, op) in srcs.iter_mut().zip(ops) {
                        src[i] |= op << (lane * fmt.bits());
                    }
                }
            }
            let (f, ex) = compare(instr, target, &srcs);
            failed.fetch_add(f, Ordering::Relaxed);
            examples.lock().unwrap().extend(ex);
        });
    });
    let failed = failed.into_inner();
    let total = words * spellings.len() as u64;
    eprintln!(
        "{family:?} {}: {} spellings, {total} words, {failed} mismatches, {:.2?}",
        fmt.name(),
        spellings.len(),
        start.elapsed()
    );
    let mut examples = examples.into_inner().unwrap();
    examples.truncate(10);
    assert!(failed == 0, "{failed} of {total} words differ:\n{}", examples.join("\n"));
}

#[test]
fn add_sub_f32() {
    random_tier(Family::AddSub, Format::F32);
}

#[test]
fn mul_f32() {
    random_tier(Family::Mul, Format::F32);
}

#[test]
fn fma_mad_f32() {
    random_tier(Family::Fma, Format::F32);
}

#[test]
fn div_approx_full_f32() {
    random_tier(Family::Div, Format::F32);
}

#[test]
fn div_ieee_f32() {
    random_tier(Family::IeeeDiv, Format::F32);
}

#[test]
fn min_max_f32() {
    random_tier(Family::MinMax, Format::F32);
}

#[test]
fn min_max_f64() {
    random_tier(Family::MinMax, Format::F64);
}

#[test]
fn min_max_f16() {
    random_tier(Family::MinMax, Format::F16);
}

#[test]
fn min_max_bf16() {
    random_tier(Family::MinMax, Format::BF16);
}

#[test]
fn sign_f32() {
    random_tier(Family::Sign, Format::F32);
}

#[test]
fn sign_f64() {
    random_tier(Family::Sign, Format::F64);
}

#[test]
fn sign_f16() {
    random_tier(Family::Sign, Format::F16);
}

#[test]
fn sign_bf16() {
    random_tier(Family::Sign, Format::BF16);
}

#[test]
fn testp_f32() {
    random_tier(Family::Testp, Format::F32);
}

#[test]
fn testp_f64() {
    random_tier(Family::Testp, Format::F64);
}

/// Every 16-bit operand of each f16 and bf16 `abs` and `neg` spelling (in a packed word, in
/// both elements).
#[test]
fn sign_f16_bf16_every_operand() {
    let every: Vec<u64> = (0..1 << 16).collect();
    let packed: Vec<u64> = every.iter().map(|&x| x | (x ^ 0x8001) << 16).collect();
    for fmt in [Format::F16, Format::BF16] {
        for (instr, target, n) in spellings(Family::Sign, fmt) {
            if n != 1 {
                continue;
            }
            let srcs = if instr.ty().lanes() == 2 { [packed.clone()] } else { [every.clone()] };
            let (failed, examples) = compare(&instr, target, &srcs);
            assert!(failed == 0, "{failed} words differ:\n{}", examples.join("\n"));
        }
    }
}

#[test]
fn rcp_sqrt_f32() {
    random_tier(Family::RcpSqrt, Format::F32);
}

/// The f64 kernels in the directed modes (other than `add` and `sub`) exist from the AVX2
/// level up; at the baseline those compare the scalar definition with itself.
#[test]
fn div_ieee_f64() {
    random_tier(Family::IeeeDiv, Format::F64);
}

#[test]
fn rcp_sqrt_f64() {
    random_tier(Family::RcpSqrt, Format::F64);
}

#[test]
fn add_sub_f64() {
    random_tier(Family::AddSub, Format::F64);
}

#[test]
fn mul_f64() {
    random_tier(Family::Mul, Format::F64);
}

#[test]
fn fma_mad_f64() {
    random_tier(Family::Fma, Format::F64);
}

#[test]
fn add_sub_f16() {
    random_tier(Family::AddSub, Format::F16);
}

#[test]
fn mul_f16() {
    random_tier(Family::Mul, Format::F16);
}

#[test]
fn fma_f16() {
    random_tier(Family::Fma, Format::F16);
}

#[test]
fn add_sub_bf16() {
    random_tier(Family::AddSub, Format::BF16);
}

#[test]
fn mul_bf16() {
    random_tier(Family::Mul, Format::BF16);
}

#[test]
fn fma_bf16() {
    random_tier(Family::Fma, Format::BF16);
}

/// Every f32 `mul`, `fma` and `mad` spelling (f32x2 too) on exact results within a few units
/// of 2^-126, where `.ftz` decides tininess after rounding with an unbounded exponent, in
/// whole vectors: `a·b = 2^-126·(1 − i·2^-24)·(1 + j·2^-23)` for i, j < 64, and for `fma`
/// `(2a)·b − 2^-126`, the same value; both signs.
#[test]
fn products_near_min_normal_f32() {
    let mut cases = Vec::new();
    for i in 0..64u64 {
        for j in 0..64u64 {
            for sign in [0, 0x8000_0000] {
                let a = (0x3F80_0000 - 2 * i) | sign;
                let b = 0x0080_0000 + j;
                cases.push(([a, b, 0], [a + 0x0080_0000, b, 0x8080_0000 ^ sign]));
            }
        }
    }
    let mut failed = Vec::new();
    for family in [Family::Mul, Family::Fma] {
        for (instr, target, n) in spellings(family, Format::F32) {
            let lanes = instr.ty().lanes() as usize;
            let mut srcs = vec![vec![0u64; cases.len() / lanes]; n];
            for (k, (mul, fma)) in cases.iter().enumerate() {
                let ops = if family == Family::Mul { mul } else { fma };
                for (src, op) in srcs.iter_mut().zip(ops) {
                    src[k / lanes] |= op << (32 * (k % lanes));
                }
            }
            let (f, ex) = compare(&instr, target, &srcs);
            if f > 0 {
                failed.push(format!("{instr}: {f} mismatches\n{}", ex.join("\n")));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
