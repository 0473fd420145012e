//! The tensor cores' dot product against an independent exact reference
//! (`tests/common/exact_dot.rs`: big-integer arithmetic written from the published description
//! of the datapath, with its own decoding of every format), on random and edge-biased dot
//! products of every parameter row: subnormals, zeros, NaN and Inf (in operands, scales and C),
//! planted cancellation, clustered and scattered exponents, FP6/FP4 mixes, ue8m0 and ue4m3
//! scales with the ignored sign bit set. The parameters the reference uses are its own
//! transcription of ../shared/TENSORCORE.md's table, checked first against ptxfp's.
//!
//! Default tier: 20,000 dot products per row. `--include-ignored` (CI): 10^6 per row.

mod common;

use common::exact_dot::{self as exact, Fmt, Params, Round, Val};
use common::{seed, Rng};
use ptxfp::mma::table::{row, Generation, InputKind, OutType, Unit};
use ptxfp::mma::{BlockScales, MmaType, Rho};
use rayon::prelude::*;

const GENERATIONS: [Generation; 7] = [
    Generation::Volta,
    Generation::Turing,
    Generation::Ampere,
    Generation::Ada,
    Generation::Hopper,
    Generation::Blackwell,
    Generation::RtxBlackwell,
];
const UNITS: [Unit; 3] = [Unit::Mma, Unit::Wgmma, Unit::Tcgen05];
const KINDS: [InputKind; 5] = [InputKind::Tf32, InputKind::Half, InputKind::Fp8, InputKind::Mxf8f6f4, InputKind::Mxf4];
const OUTS: [OutType; 2] = [OutType::F32, OutType::F16];

/// TENSORCORE.md's parameter table, transcribed: L, F, ρ and e_zero (and G for GST-FDPA).
fn transcribed(g: Generation, unit: Unit, kind: InputKind, out: OutType) -> Option<Params> {
    use Generation::*;
    use InputKind::*;
    let unit_exists = match unit {
        Unit::Mma => true,
        Unit::Wgmma => g == Hopper,
        Unit::Tcgen05 => g == Blackwell,
    };
    let f16_out = out == OutType::F16;
    if !unit_exists || (f16_out && !matches!(kind, Half | Fp8)) {
        return None;
    }
    // (L, F, ρ for f32 output, e_zero for f32 output); f16 output: RNE-f16, e_zero + 112.
    let (block, frac, rz, e_zero) = match (g, kind) {
        (Volta, Half) => (4, 23, Round::RzF32, -131),
        (Turing, Half) | (Ampere | Ada, Half) => (8, 24, Round::RzF32, -132),
        (Ampere | Ada, Tf32) => (4, 24, Round::RzF32, -132),
        (Ada, Fp8) => (16, 13, Round::RzE8m13, -132),
        (Hopper | Blackwell | RtxBlackwell, Tf32) => (8, 25, Round::RzF32, -133),
        (Hopper | Blackwell | RtxBlackwell, Half) => (16, 25, Round::RzF32, -133),
        (Hopper, Fp8) if unit == Unit::Wgmma => (32, 13, Round::RzE8m13, -133),
        (Hopper | Blackwell | RtxBlackwell, Fp8) => (32, 25, Round::RzF32, -133),
        (Blackwell | RtxBlackwell, Mxf8f6f4) => (32, 25, Round::RzF32, -133),
        (Blackwell | RtxBlackwell, Mxf4) => {
            return Some(Params { block: 64, frac: Some(35), round: Round::RzF32, e_zero: -139, group: 16 })
        }
        _ => return None,
    };
    let (round, e_zero) = if f16_out { (Round::RneF16, e_zero + 112) } else { (rz, e_zero) };
    Some(Params { block, frac: Some(frac), round, e_zero, group: 0 })
}

fn round_of(rho: Rho) -> Round {
    match rho {
        Rho::RzF32 => Round::RzF32,
        Rho::RzE8m13 => Round::RzE8m13,
        Rho::RneF16 => Round::RneF16,
    }
}

fn ptxfp_params(g: Generation, unit: Unit, kind: InputKind, out: OutType) -> Option<Params> {
    row(g, unit, kind, out).map(|r| Params {
        block: r.fdpa.block as usize,
        frac: Some(r.fdpa.frac as i64),
        round: round_of(r.fdpa.rho),
        e_zero: r.fdpa.e_zero as i64,
        group: r.fdpa.group as usize,
    })
}

#[test]
fn ptxfp_table_is_the_published_table() {
    for g in GENERATIONS {
        for unit in UNITS {
            for kind in KINDS {
                for out in OUTS {
                    assert_eq!(
                        ptxfp_params(g, unit, kind, out),
                        transcribed(g, unit, kind, out),
                        "{g:?} {unit:?} {kind:?} {out:?}"
                    );
                }
            }
        }
    }
}

fn mma_type(f: Fmt) -> MmaType {
    match f {
        Fmt::F32 => MmaType::F32,
        Fmt::Tf32 => MmaType::Tf32,
        Fmt::F16 => MmaType::F16,
        Fmt::Bf16 => MmaType::Bf16,
        Fmt::E4m3 => MmaType::E4m3,
        Fmt::E5m2 => MmaType::E5m2,
        Fmt::E3m2 => MmaType::E3m2,
        Fmt::E2m3 => MmaType::E2m3,
        Fmt::E2m1 => MmaType::E2m1,
        Fmt::Ue8m0 => MmaType::Ue8m0,
        Fmt::Ue4m3 => MmaType::Ue4m3,
    }
}

/// A code of `fmt` with exponent field `e` (clamped into the finite range), a random fraction
/// and sign.
fn with_exponent(rng: &mut Rng, fmt: Fmt, e: i64) -> u32 {
    let (ebits, mbits, signed) = fmt.fields();
    let (has_inf, has_nan) = fmt.specials();
    let top = (1i64 << ebits) - 1 - has_inf as i64;
    let e = e.clamp(0, top) as u32;
    let mut frac = rng.bits(mbits) as u32;
    let body = e << mbits | frac;
    if has_nan && !has_inf && body == (1 << (ebits + mbits)) - 1 {
        frac -= 1; // E4M3's S.1111.111 is NaN: the largest finite instead.
    }
    let sign = if signed && rng.coin() { 1 << (ebits + mbits) } else { 0 };
    let code = sign | e << mbits | frac;
    if fmt == Fmt::Tf32 {
        code | rng.bits(13) as u32 // the bits the instruction ignores, set at random
    } else {
        code
    }
}

/// How the elements of one dot product are drawn.
#[derive(Clone, Copy)]
enum Shape {
    /// Exponent fields uniform over the finite range.
    Scattered,
    /// Exponent fields within ±2 of one centre: alignment and truncation at work.
    Clustered(i64),
    /// Half the elements subnormal or zero.
    Subnormal,
}

fn element(rng: &mut Rng, fmt: Fmt, shape: Shape) -> u32 {
    let (ebits, _, _) = fmt.fields();
    let top = (1i64 << ebits) - 1;
    match rng.below(100) {
        0..=7 => with_exponent(rng, fmt, 0) & !((1 << fmt.fields().1) - 1) & !0x1FFF, // ±0
        8..=11 => with_exponent(rng, fmt, top),                                       // the largest binade
        _ => match shape {
            Shape::Scattered => {
                let e = rng.range(0, top);
                with_exponent(rng, fmt, e)
            }
            Shape::Clustered(centre) => {
                let e = centre + rng.range(-2, 2);
                with_exponent(rng, fmt, e)
            }
            Shape::Subnormal if rng.coin() => with_exponent(rng, fmt, 0),
            Shape::Subnormal => {
                let e = rng.range(1, 3);
                with_exponent(rng, fmt, e)
            }
        },
    }
}

/// A special of `fmt` (NaN, +Inf or −Inf), where it has them.
fn special(rng: &mut Rng, fmt: Fmt, neg_inf: Option<bool>) -> Option<u32> {
    let (ebits, mbits, signed) = fmt.fields();
    let (has_inf, has_nan) = fmt.specials();
    let ones = ((1u32 << ebits) - 1) << mbits;
    let sign = 1 << (ebits + mbits);
    match neg_inf {
        Some(neg) if has_inf => Some(ones | if neg { sign } else { 0 }),
        None if has_nan => {
            let frac = if has_inf { 1 + rng.bits(mbits) as u32 % ((1 << mbits) - 1) } else { (1 << mbits) - 1 };
            Some(ones | frac | if signed && rng.coin() { sign } else { 0 })
        }
        _ => None,
    }
}

/// One dot product's operands: A and B codes, C, and the scale codes.
struct Case {
    a: Vec<u32>,
    b: Vec<u32>,
    c: u32,
    sa: Vec<u32>,
    sb: Vec<u32>,
}

/// The accumulator: zero, near the first product, scattered, subnormal, a special.
fn accumulator(rng: &mut Rng, out: Fmt, near: Option<i64>) -> u32 {
    let bias = if out == Fmt::F16 { 15 } else { 127 };
    let (near, scattered, neg) = (near.unwrap_or(0) + bias + rng.range(-4, 4), rng.range(1, 2 * bias), rng.coin());
    match rng.below(100) {
        0..=24 => with_exponent(rng, out, 0) & (1 << (out.fields().0 + out.fields().1)), // ±0
        25..=59 => with_exponent(rng, out, near),
        60..=79 => with_exponent(rng, out, scattered),
        80..=89 => with_exponent(rng, out, 0),
        90..=93 => special(rng, out, None).unwrap(),
        94..=97 => special(rng, out, Some(neg)).unwrap(),
        _ => with_exponent(rng, out, 2 * bias),
    }
}

fn scale(rng: &mut Rng, fmt: Fmt) -> u32 {
    match fmt {
        // Near 2^0 mostly, the extremes and NaN sometimes.
        Fmt::Ue8m0 => match rng.below(100) {
            0..=79 => (127 + rng.range(-12, 12)) as u32,
            80..=89 => rng.below(255) as u32,
            90..=93 => 0,
            94..=97 => 254,
            _ => 255,
        },
        // Any 7-bit code (zero and NaN included) with the ignored bit 7 at random.
        _ => match rng.below(100) {
            0..=3 => 0x7F | (rng.bits(1) as u32) << 7,
            4..=7 => (rng.bits(1) as u32) << 7,
            _ => rng.bits(8) as u32,
        },
    }
}

fn case(rng: &mut Rng, (fa, fb): (Fmt, Fmt), k: usize, out: Fmt, scales: Option<(Fmt, usize)>) -> Case {
    let shape = match rng.below(3) {
        0 => Shape::Scattered,
        1 => Shape::Clustered(rng.range(0, (1 << fa.fields().0) - 1)),
        _ => Shape::Subnormal,
    };
    let mut a: Vec<u32> = (0..k).map(|_| element(rng, fa, shape)).collect();
    let mut b: Vec<u32> = (0..k).map(|_| element(rng, fb, shape)).collect();
    // Planted cancellation: the second half of the products negates the first, a few perturbed.
    if rng.below(4) == 0 {
        let sign = 1 << (fb.fields().0 + fb.fields().1);
        for i in 0..k / 2 {
            a[k / 2 + i] = a[i];
            b[k / 2 + i] = b[i] ^ sign;
        }
        for _ in 0..rng.below(3) {
            let i = rng.below(k as u64) as usize;
            a[i] = element(rng, fa, shape);
        }
    }
    // Specials in A or B: one NaN, one infinity, or infinities of both signs.
    match rng.below(100) {
        0..=2 => {
            let i = rng.below(k as u64) as usize;
            if let Some(x) = special(rng, fa, None) {
                a[i] = x;
            }
        }
        3..=5 => {
            let (i, neg) = (rng.below(k as u64) as usize, rng.coin());
            if let Some(x) = special(rng, fb, Some(neg)) {
                b[i] = x;
            }
        }
        6 => {
            for neg in [false, true] {
                let i = rng.below(k as u64) as usize;
                if let Some(x) = special(rng, fa, Some(neg)) {
                    a[i] = x;
                }
            }
        }
        _ => {}
    }
    let near = match (fa.value(a[0]), fb.value(b[0])) {
        (Val::Num { align: x, .. }, Val::Num { align: y, .. }) => Some(x + y),
        _ => None,
    };
    let c = accumulator(rng, out, near);
    let (sa, sb) = match scales {
        Some((fmt, block)) => {
            ((0..k / block).map(|_| scale(rng, fmt)).collect(), (0..k / block).map(|_| scale(rng, fmt)).collect())
        }
        None => (Vec::new(), Vec::new()),
    };
    Case { a, b, c, sa, sb }
}

/// A and B's types, and the scales' type and block where the row is block-scaled.
type Inputs = ((Fmt, Fmt), Option<(Fmt, usize)>);

/// The input types and scales a row is exercised with.
fn inputs(g: Generation, kind: InputKind, out: OutType) -> Vec<Inputs> {
    let pairs =
        |types: &[Fmt]| -> Vec<(Fmt, Fmt)> { types.iter().flat_map(|&x| types.iter().map(move |&y| (x, y))).collect() };
    let f8f6f4 = [Fmt::E4m3, Fmt::E5m2, Fmt::E3m2, Fmt::E2m3, Fmt::E2m1];
    match kind {
        InputKind::Tf32 => vec![((Fmt::Tf32, Fmt::Tf32), None)],
        InputKind::Half if out == OutType::F16 => vec![((Fmt::F16, Fmt::F16), None)],
        InputKind::Half => vec![((Fmt::F16, Fmt::F16), None), ((Fmt::Bf16, Fmt::Bf16), None)],
        InputKind::Fp8 if matches!(g, Generation::Blackwell | Generation::RtxBlackwell) => {
            pairs(&f8f6f4).into_iter().map(|p| (p, None)).collect()
        }
        InputKind::Fp8 => pairs(&[Fmt::E4m3, Fmt::E5m2]).into_iter().map(|p| (p, None)).collect(),
        InputKind::Mxf8f6f4 => pairs(&f8f6f4).into_iter().map(|p| (p, Some((Fmt::Ue8m0, 32)))).collect(),
        InputKind::Mxf4 => {
            vec![((Fmt::E2m1, Fmt::E2m1), Some((Fmt::Ue8m0, 32))), ((Fmt::E2m1, Fmt::E2m1), Some((Fmt::Ue4m3, 16)))]
        }
    }
}

/// Every distinct parameter row with the (generation, unit, kind, output) it first appears under.
fn rows() -> Vec<(Params, Generation, Unit, InputKind, OutType)> {
    let mut rows: Vec<(Params, Generation, Unit, InputKind, OutType)> = Vec::new();
    for g in GENERATIONS {
        for unit in UNITS {
            for kind in KINDS {
                for out in OUTS {
                    if let Some(p) = transcribed(g, unit, kind, out) {
                        // Rows with equal parameters but other inputs (FP6/FP4 on Blackwell) stay.
                        if !rows.iter().any(|r| r.0 == p && inputs(r.1, r.3, r.4) == inputs(g, kind, out)) {
                            rows.push((p, g, unit, kind, out));
                        }
                    }
                }
            }
        }
    }
    rows
}

fn agree(per_row: usize) {
    let mut failures = Vec::new();
    for (p, g, unit, kind, out) in rows() {
        let fdpa = row(g, unit, kind, out).unwrap().fdpa;
        let combos = inputs(g, kind, out);
        let k = 2 * p.block;
        let name = format!("{g:?} {unit:?} {kind:?} {out:?}");
        let chunks = 64u64;
        let per_chunk = per_row.div_ceil(chunks as usize);
        let bad: Vec<String> = (0..chunks)
            .into_par_iter()
            .flat_map_iter(|chunk| {
                let mut rng = Rng::new(seed(&name, chunk));
                let mut bad = Vec::new();
                for i in 0..per_chunk {
                    let (types, scales) = combos[i % combos.len()];
                    let case = case(&mut rng, types, k, p.round.output(), scales);
                    let ex_scales = scales.map(|(fmt, block)| exact::Scales { fmt, a: &case.sa, b: &case.sb, block });
                    let want = exact::dot(p, types.0, &case.a, types.1, &case.b, case.c, ex_scales);
                    let bs = scales.map(|(fmt, block)| BlockScales { ty: mma_type(fmt), a: &case.sa, b: &case.sb, block });
                    let got = fdpa.dot(mma_type(types.0), &case.a, mma_type(types.1), &case.b, case.c, bs);
                    if got != want && bad.len() < 3 {
                        bad.push(format!(
                            "{name} {types:?}: a {:x?} b {:x?} c {:#x} scales {:x?} {:x?}: ptxfp {got:#x}, reference {want:#x}",
                            case.a, case.b, case.c, case.sa, case.sb
                        ));
                    }
                }
                bad
            })
            .collect();
        eprintln!("{name}: {} dot products, {} shown mismatches", per_chunk * chunks as usize, bad.len());
        failures.extend(bad.into_iter().take(3));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_row_agrees_with_the_exact_reference() {
    agree(20_000);
}

#[test]
#[ignore = "10^6 dot products per row: the CI tier (--include-ignored)"]
fn every_row_agrees_with_the_exact_reference_on_a_million_dot_products() {
    agree(1_000_000);
}

/// The reference's own rounding, on cases worked by hand from the description.
#[test]
fn the_reference_reproduces_hand_worked_cases() {
    let f16 = |x: f32| half::f16::from_f32(x).to_bits() as u32;
    let volta = transcribed(Generation::Volta, Unit::Mma, InputKind::Half, OutType::F32).unwrap();
    // 2^12·2^11 − 2^12·2^11 − 0.5·1 − 0.25·1 + c = −0.125: every small term is below 2^(23−23).
    let a = [f16(4096.0), f16(-4096.0), f16(-0.5), f16(-0.25)];
    let b = [f16(2048.0), f16(2048.0), f16(1.0), f16(1.0)];
    assert_eq!(exact::dot(volta, Fmt::F16, &a, Fmt::F16, &b, (-0.125f32).to_bits(), None), 0);
    let exact_rn = Params { frac: None, round: Round::RneF32, ..volta };
    assert_eq!(exact::dot(exact_rn, Fmt::F16, &a, Fmt::F16, &b, (-0.125f32).to_bits(), None), (-0.875f32).to_bits());
}
