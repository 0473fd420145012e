//! `cvt.rs.satfinite.f16x2.f32` and `cvt.rs.satfinite.bf16x2.f32` against the published B200
//! reference over its whole band (docs/semantics.md §8.6; ../shared/LOWPREC.md, section 4.1):
//! the test of hibouwu/PTX-Instruction-Accuracy-Test@5961855 (`B200/run_b200_cvt_rs_bf16x2.py`) ran both
//! instructions on a B200 (sm_100a, SASS `F2FP.SATFINITE.{F16,BF16}.F32.PACK_AB.RS`) for every
//! `a` from 0x33000000 to 0x34800000 with `b` = 0xDEADBEEF and `rbits` = 0x1FFF1FFF, and its
//! README reports that all 50,331,650 lanes equal its reference model, which is:
//!
//! - bf16: the random 16 bits added to the low 16 bits of the f32 encoding, the sum's carry
//!   added to the upper 16 bits (truncation otherwise); a result of magnitude 0x7F80 or more,
//!   and ±Inf, give ±0x7F7F; a NaN gives a NaN;
//! - f16: the random 13 bits added to the top 13 discarded bits of the significand on f16's
//!   grid (its subnormal grid included), the carry rounding up; results beyond 0x7BFF, ±Inf
//!   and magnitudes above 0x477FE000 give ±0x7BFF; a NaN gives a NaN.
//!
//! The model is written here from that description, on integers, sharing nothing with ptxfp;
//! every element of the band is compared, through the batch path and (every 61st word) the
//! scalar definition.

use ptxfp::{Instr, Target};

const BAND: std::ops::RangeInclusive<u32> = 0x3300_0000..=0x3480_0000;
const B: u32 = 0xDEAD_BEEF;
const RBITS: u32 = 0x1FFF_1FFF;

/// The bf16 element of the published model; `None` for a NaN.
fn model_bf16(x: u32, random: u32) -> Option<u32> {
    let magnitude = x & 0x7FFF_FFFF;
    let sign = (x >> 16) & 0x8000;
    if magnitude > 0x7F80_0000 {
        return None;
    }
    if magnitude == 0x7F80_0000 {
        return Some(sign | 0x7F7F);
    }
    let r = ((x >> 16) + (((x & 0xFFFF) + random) >> 16)) & 0xFFFF;
    Some(if r & 0x7FFF >= 0x7F80 { sign | 0x7F7F } else { r })
}

/// The f16 element of the published model; `None` for a NaN.
fn model_f16(x: u32, random: u32) -> Option<u32> {
    let magnitude = x & 0x7FFF_FFFF;
    let sign = (x >> 16) & 0x8000;
    let exponent = magnitude >> 23;
    let fraction = magnitude & 0x7F_FFFF;
    if exponent == 0xFF {
        return if fraction != 0 { None } else { Some(sign | 0x7BFF) };
    }
    if magnitude > 0x477F_E000 {
        return Some(sign | 0x7BFF);
    }
    let (e, sig) = if exponent == 0 { (-126, fraction) } else { (exponent as i32 - 127, 0x80_0000 | fraction) };
    let (kept, discarded13) = if e >= -14 {
        (((e + 15) as u32) << 10 | (sig & 0x7F_FFFF) >> 13, sig & 0x1FFF)
    } else {
        // f16's subnormal grid, 2^-24: sig · 2^(e − 23) in units of 2^-24.
        let shift = (-(e + 1)) as u32;
        let kept = if shift < 32 { sig >> shift } else { 0 };
        let rest = if shift < 32 { sig - (kept << shift) } else { sig };
        (kept, if shift >= 13 { rest >> (shift - 13) } else { rest << (13 - shift) })
    };
    Some(sign | (kept + ((discarded13 + random) >> 13)).min(0x7BFF))
}

/// NaN in the destination format, as the published check tests it.
fn is_nan16(bits: u32, bf16: bool) -> bool {
    if bf16 {
        bits & 0x7F80 == 0x7F80 && bits & 0x7F != 0
    } else {
        bits & 0x7C00 == 0x7C00 && bits & 0x3FF != 0
    }
}

/// One element of the published model: source word and random bits in, element out.
type Model = fn(u32, u32) -> Option<u32>;

fn check(spelling: &str, bf16: bool) {
    let instr: Instr = spelling.parse().unwrap();
    let target: Target = "sm_100a".parse().unwrap();
    let (model, random): (Model, u32) = if bf16 { (model_bf16, RBITS & 0xFFFF) } else { (model_f16, RBITS & 0x1FFF) };
    let a: Vec<u32> = BAND.collect();
    let b = vec![B; a.len()];
    let r = vec![RBITS; a.len()];
    let mut d = vec![0u32; a.len()];
    instr.eval_batch(target, &[&a, &b, &r], &mut d).unwrap();
    let (mut bad, mut nan) = (0u64, 0u64);
    for (k, (&x, &got)) in a.iter().zip(&d).enumerate() {
        if k % 61 == 0 {
            let scalar = instr.eval_on(target, &[x.into(), B.into(), RBITS.into()]).unwrap() as u32;
            assert_eq!(scalar, got, "{spelling} a = {x:#010x}: the scalar definition and the batch path");
        }
        for (lane, source) in [(got >> 16, x), (got & 0xFFFF, B)] {
            let ok = match model(source, random) {
                Some(want) => lane == want,
                None => {
                    nan += 1;
                    is_nan16(lane, bf16)
                }
            };
            if !ok {
                bad += 1;
                if bad <= 10 {
                    eprintln!(
                        "{spelling} a = {x:#010x}: ptxfp {got:#010x}, element of {source:#010x} against the B200 model"
                    );
                }
            }
        }
    }
    assert_eq!(a.len(), 25_165_825);
    assert_eq!(nan, 0, "the band holds no NaN");
    assert_eq!(bad, 0, "{spelling}: {bad} elements differ from the published B200 model");
}

#[test]
fn f16x2_over_the_published_band() {
    // The model's own self-test cases.
    assert_eq!(model_f16(0x3380_0000, 0), Some(1));
    assert_eq!(model_f16(0x3F80_0000, 0x1FFF), Some(0x3C00));
    check("cvt.rs.satfinite.f16x2.f32", false);
}

#[test]
fn bf16x2_over_the_published_band() {
    assert_eq!(model_bf16(0x3F80_0000, 0x1FFF), Some(0x3F80));
    assert_eq!(model_bf16(0x7F80_0000, 0), Some(0x7F7F));
    check("cvt.rs.satfinite.bf16x2.f32", true);
}
