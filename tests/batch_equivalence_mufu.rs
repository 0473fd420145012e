//! The MUFU-backed kernels (src/kernels/mufu_f32.rs, mufu_half.rs, mufu_64h.rs, rro.rs) against
//! the scalar definitions: `eval_batch_at` at every SIMD level the processor has and
//! `eval_unchecked` on the same inputs, bit for bit, for every spelling the kernels cover:
//! `rcp`, `rsqrt`, `sqrt`, `lg2`, `ex2`, `sin`, `cos` `.approx{.ftz}.f32`, `tanh.approx.f32`,
//! `MUFU.RCP/RSQ/SQRT/LG2/EX2/SIN/COS{.SAT}` and `MUFU.TANH`; `ex2`/`tanh` on f16 and bf16
//! (scalar and `x2`) and `MUFU.EX2/TANH.F16/.BF16` (every 16-bit operand);
//! `MUFU.RCP64H/RSQ64H{.SAT}`, `rcp.approx.ftz.f64`, `rsqrt.approx{.ftz}.f64` (their inputs as
//! f64 high words, with three kinds of low word) and `RRO.SINCOS/EX2` (on sm_50 and sm_62).
//!
//! Default tier: each spelling on sm_90 on the same 12.6 million inputs: a strided walk over
//! all 2^32 patterns, every 7th subnormal of either sign, and edge cases (every exponent with
//! fractions at the table-row and datapath boundaries, both signs, and the neighbours of the
//! scaling and range thresholds). The spellings that sm_52 has and whose lowering does not
//! depend on the target also run there (an eighth of the inputs); the others must have no
//! kernel there (RRO lowering), nor `sqrt.approx` on sm_50 (RCP(RSQ(x))).
//!
//! All 2^32 inputs of every f32 spelling are compared in tests/exhaustive_unary_f32.rs, and of
//! RRO here (exhaustive tier).

#[cfg(not(feature = "internals"))]
compile_error!("these tests reach ptxfp's internals: run them as the README says, with --features ptxfp/internals");

use std::fmt::LowerHex;

use ptxfp::{mufu, Instr, SimdLevel, Target, Word};
use rayon::prelude::*;

/// Every spelling with a kernel on sm_75 and later.
const SPELLINGS: [&str; 30] = [
    "rcp.approx.ftz.f32",
    "rcp.approx.f32",
    "rsqrt.approx.ftz.f32",
    "rsqrt.approx.f32",
    "sqrt.approx.ftz.f32",
    "sqrt.approx.f32",
    "lg2.approx.ftz.f32",
    "lg2.approx.f32",
    "ex2.approx.ftz.f32",
    "ex2.approx.f32",
    "sin.approx.ftz.f32",
    "sin.approx.f32",
    "cos.approx.ftz.f32",
    "cos.approx.f32",
    "tanh.approx.f32",
    "MUFU.RCP",
    "MUFU.RCP.SAT",
    "MUFU.RSQ",
    "MUFU.RSQ.SAT",
    "MUFU.SQRT",
    "MUFU.SQRT.SAT",
    "MUFU.LG2",
    "MUFU.LG2.SAT",
    "MUFU.EX2",
    "MUFU.EX2.SAT",
    "MUFU.SIN",
    "MUFU.SIN.SAT",
    "MUFU.COS",
    "MUFU.COS.SAT",
    "MUFU.TANH",
];

/// The spellings whose sm_5x/6x lowering goes through RRO (docs/semantics.md §1.2): no kernel there.
fn uses_rro(spelling: &str) -> bool {
    ["ex2", "sin", "cos", "MUFU.EX2", "MUFU.SIN", "MUFU.COS"].iter().any(|p| spelling.starts_with(p))
}

/// Words per batch: not a multiple of 16, so the kernels' padded tail runs too.
const BLOCK: usize = (1 << 16) + 5;

/// The default-tier inputs.
fn inputs() -> Vec<u32> {
    // Stride 421 (prime) over all 2^32 patterns: 10.2 million words.
    let mut v: Vec<u32> = (0..(1u64 << 32).div_ceil(421)).map(|i| (i * 421) as u32).collect();
    // Every 7th subnormal of either sign: 2.4 million words.
    v.extend((1..1u32 << 23).step_by(7).flat_map(|f| [f, f | 0x8000_0000]));
    // Every exponent with fractions at the row boundaries of the 64- and 128-row tables (and
    // TANH's, every 2^20) and at the ends of the fraction range.
    let fracs = [
        0, 1, 2, 3, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x1_0001, 0x1_FFFF, 0x2_0000, 0x2_0001, 0xF_FFFF, 0x10_0000,
        0x10_0007, 0x10_0008, 0x3F_FFFF, 0x40_0000, 0x40_0001, 0x55_5555, 0x2A_AAAA, 0x6F_FFFF, 0x70_0000, 0x7F_FFFD,
        0x7F_FFFE, 0x7F_FFFF,
    ];
    for sign in [0, 0x8000_0000] {
        for e in 0..256u32 {
            for f in fracs {
                v.push(sign | e << 23 | f);
            }
        }
    }
    // Boundaries of the scaling branches (FLT_MIN, 2^126, −126), of EX2's Inf code (128) and
    // zero word (2^-23), and of TANH's table range (2^-5, 1, 8), with their neighbours.
    let edges = [
        0x0080_0000u32,
        0x7E80_0000,
        0xC2FC_0000,
        0x4300_0000,
        0xC300_0000,
        0x3400_0000,
        0x3F80_0000,
        0x3D00_0000,
        0x4100_0000,
    ];
    for x in edges {
        for d in 0..8 {
            v.extend([x.wrapping_add(d), x.wrapping_sub(d), x ^ 0x8000_0000]);
        }
    }
    v
}

/// Compare `instr` on `target` over `xs`: the kernels of every SIMD level this processor has
/// (`eval_batch_at`) against the scalar definition (`eval_unchecked`). Panics naming the
/// instruction, the level and the first mismatching inputs.
fn check<W: Word + PartialEq + LowerHex>(spelling: &str, target: Target, xs: &[W]) {
    let instr: Instr = spelling.parse().unwrap();
    assert!(instr.is_vectorized(target), "{spelling} has no kernel on {target}");
    let levels: Vec<SimdLevel> = SimdLevel::ALL.into_iter().filter(|l| l.is_supported()).collect();
    let mismatches: Vec<(SimdLevel, W, W, W)> = xs
        .par_chunks(BLOCK)
        .flat_map_iter(|chunk| {
            let want: Vec<W> =
                chunk.iter().map(|&x| W::from_u64(instr.eval_unchecked(target, &[x.to_u64()]))).collect();
            let mut found = Vec::new();
            for &level in &levels {
                let mut out = vec![W::from_u64(0); chunk.len()];
                instr.eval_batch_at(target, level, &[chunk], &mut out).unwrap();
                found.extend(
                    chunk
                        .iter()
                        .zip(out)
                        .zip(&want)
                        .filter(|((_, got), want)| got != *want)
                        .map(|((&x, got), &want)| (level, x, got, want))
                        .take(4),
                );
            }
            found
        })
        .collect();
    if !mismatches.is_empty() {
        let lines: Vec<String> = mismatches
            .iter()
            .take(8)
            .map(|(level, x, got, want)| format!("  [{level}] input {x:#x}: kernel {got:#x}, scalar {want:#x}"))
            .collect();
        panic!(
            "{spelling} on {target}: kernel and scalar definition differ ({} or more inputs):\n{}",
            mismatches.len(),
            lines.join("\n")
        );
    }
}

/// The default-tier inputs read as f64 high words: [`inputs`]; every 20-bit fraction with the
/// exponents of 1 and 2 (the datapaths read nothing else but the exponent's parity, so these
/// are all their table lookups and interpolations); and every f64 exponent of either sign with
/// fractions at the row boundaries of the RCP (2^13) and RSQ (2^14) tables and at the ends of
/// the fraction range.
fn high_word_inputs() -> Vec<u32> {
    let mut v = inputs();
    v.extend((0..1u32 << 21).map(|i| (0x3FF + (i >> 20)) << 20 | (i & 0xF_FFFF)));
    let fracs = [0, 1, 2, 0x1FFF, 0x2000, 0x2001, 0x3FFF, 0x4000, 0x4001, 0x8_0000, 0xA_AAAA, 0xF_FFFE, 0xF_FFFF];
    for sign in [0, 0x8000_0000] {
        for e in 0..2048u32 {
            v.extend(fracs.iter().map(|f| sign | e << 20 | f));
        }
    }
    v
}

#[test]
fn kernels_match_scalar_on_sm_90() {
    let xs = inputs();
    assert!(xs.len() >= 10_000_000);
    for spelling in SPELLINGS {
        check(spelling, Target::DEFAULT, &xs);
    }
}

#[test]
fn target_independent_kernels_match_scalar_on_sm_52() {
    let xs: Vec<u32> = inputs().into_iter().step_by(8).collect();
    let sm52 = Target::new(52).unwrap();
    for spelling in SPELLINGS {
        let instr: Instr = spelling.parse().unwrap();
        if sm52.check(&instr).is_err() {
            continue;
        }
        if uses_rro(spelling) {
            assert!(!instr.is_vectorized(sm52), "{spelling} must run its RRO lowering on sm_52");
        } else {
            check(spelling, sm52, &xs);
        }
    }
}

/// sm_50 has no MUFU.SQRT and lowers `sqrt.approx` to RCP(RSQ(x)) (docs/semantics.md §1.1).
#[test]
fn sqrt_approx_has_no_kernel_on_sm_50() {
    let sm50 = Target::new(50).unwrap();
    for spelling in ["sqrt.approx.ftz.f32", "sqrt.approx.f32"] {
        let instr: Instr = spelling.parse().unwrap();
        assert!(!instr.is_vectorized(sm50), "{spelling} must run its RCP(RSQ(x)) lowering on sm_50");
    }
}

/// The 16-bit forms (mufu_half.rs): `ex2`/`tanh` `.approx` on f16, bf16 and their `x2` words
/// and `MUFU.EX2/TANH.F16/.BF16`, on every 16-bit operand at every level, on each spelling's
/// lowest target and sm_90 (a packed word holds the operand in element 0 and another one in
/// element 1, so each element sees all 2^16).
#[test]
fn sixteen_bit_forms_match_scalar_on_every_operand() {
    let spellings = [
        "ex2.approx.f16",
        "ex2.approx.ftz.bf16",
        "tanh.approx.f16",
        "tanh.approx.bf16",
        "MUFU.EX2.F16",
        "MUFU.EX2.BF16",
        "MUFU.TANH.F16",
        "MUFU.TANH.BF16",
    ];
    let packed = ["ex2.approx.f16x2", "ex2.approx.ftz.bf16x2", "tanh.approx.f16x2", "tanh.approx.bf16x2"];
    let scalar: Vec<u16> = (0..=u16::MAX).collect();
    let words: Vec<u32> = (0..1u32 << 16).map(|x| x | (x ^ 0x8001) << 16).collect();
    for target in [Target::new(75).unwrap(), Target::new(90).unwrap()] {
        for spelling in spellings {
            if target.check(&spelling.parse().unwrap()).is_ok() {
                check(spelling, target, &scalar);
            }
        }
        for spelling in packed {
            if target.check(&spelling.parse().unwrap()).is_ok() {
                check(spelling, target, &words);
            }
        }
    }
}

/// MUFU.RCP64H and MUFU.RSQ64H on their 32-bit high words (mufu_64h.rs), on sm_90.
#[test]
fn high_word_units_match_scalar() {
    let xs = high_word_inputs();
    for spelling in ["MUFU.RCP64H", "MUFU.RCP64H.SAT", "MUFU.RSQ64H", "MUFU.RSQ64H.SAT"] {
        check(spelling, Target::DEFAULT, &xs);
    }
}

/// `rcp.approx.ftz.f64` and `rsqrt.approx{.ftz}.f64` (mufu_64h.rs) on the high-word inputs,
/// each with a low word: 0, all ones, and one spread over its bits by a multiplicative hash
/// (the DFMA refinement of `rsqrt.approx.f64` reads the whole operand).
#[test]
fn f64_approximations_match_scalar() {
    let xs: Vec<u64> = high_word_inputs()
        .into_iter()
        .enumerate()
        .map(|(i, hi)| {
            let lo = match i % 4 {
                0 => 0,
                1 => u32::MAX,
                _ => hi.wrapping_mul(0x9E37_79B9) ^ i as u32,
            };
            u64::from(hi) << 32 | u64::from(lo)
        })
        .collect();
    for spelling in ["rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64"] {
        check(spelling, Target::DEFAULT, &xs);
    }
}

/// RRO.SINCOS and RRO.EX2 (rro.rs), which exist on sm_5x and sm_6x.
#[test]
fn rro_kernels_match_scalar() {
    let xs = inputs();
    for target in [50, 62] {
        for spelling in ["RRO.SINCOS", "RRO.EX2"] {
            check(spelling, Target::new(target).unwrap(), &xs);
        }
    }
}

/// All 2^32 inputs of RRO.SINCOS and RRO.EX2 at the level the processor picks, against the
/// range reductions `ptx::lower` calls ([`mufu::rro`]); exhaustive tier.
#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn rro_kernels_match_scalar_on_every_input() {
    let sm52 = Target::new(52).unwrap();
    for (spelling, scalar) in [("RRO.SINCOS", mufu::rro::rro_sincos as fn(u32) -> u32), ("RRO.EX2", mufu::rro::rro_ex2)]
    {
        let instr: Instr = spelling.parse().unwrap();
        let mismatches: Vec<String> = (0..1u32 << 16)
            .into_par_iter()
            .flat_map_iter(|block| {
                let xs: Vec<u32> = (0..1u32 << 16).map(|i| block << 16 | i).collect();
                let mut got = vec![0u32; xs.len()];
                instr.eval_batch(sm52, &[&xs[..]], &mut got).unwrap();
                xs.into_iter()
                    .zip(got)
                    .filter(|&(x, g)| g != scalar(x))
                    .map(|(x, g)| format!("  input {x:#010x}: kernel {g:#010x}, scalar {:#010x}", scalar(x)))
                    .take(2)
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(
            mismatches.is_empty(),
            "{spelling}: {} or more mismatches:\n{}",
            mismatches.len(),
            mismatches[..mismatches.len().min(8)].join("\n")
        );
    }
}
