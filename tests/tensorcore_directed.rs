//! Directed cases of the tensor cores' dot product with published per-generation answers
//! (../shared/TENSORCORE.md): MMA-Sim's table 8 (Xie et al., arXiv 2511.10909), Blackwell's
//! unnormalised product alignment (12·24 against 18·16), FTTN's matrix (Li et al., CCGrid 2024,
//! arXiv 2403.00232; its inputs from LLNL/FTTN `utility/common.hpp`), the RZ-E8M13 accumulator
//! of the FP8 paths of Ada and Hopper, and the specials of step 1.

use ptxfp::mma::table::{row, Generation, InputKind, OutType, Unit};
use ptxfp::mma::{BlockScales, Fdpa, MmaType};
use ptxfp::Narrow;

fn fdpa(g: Generation, unit: Unit, kind: InputKind, out: OutType) -> Fdpa {
    row(g, unit, kind, out).unwrap_or_else(|| panic!("no row for {g:?} {unit:?} {kind:?} {out:?}")).fdpa
}

fn f16(x: f32) -> u32 {
    let h = half::f16::from_f32(x);
    assert_eq!(h.to_f32(), x, "{x} is not an f16");
    h.to_bits() as u32
}

/// The code of `ty` (an FP8/FP6/FP4 type or a scale type) whose value is `x`.
fn narrow(ty: Narrow, x: f64) -> u32 {
    (0..1u64 << ty.bits()).find(|&c| ty.to_f64(c) == x).unwrap_or_else(|| panic!("{x} is not an {}", ty.name())) as u32
}

fn padded(mut v: Vec<u32>, k: usize) -> Vec<u32> {
    v.resize(k, 0);
    v
}

/// MMA-Sim's table 8: 2^23 − 2^23 − 0.5 − 0.25 − 0.125 (exact −0.875), the last term as C, in one
/// block: what each generation keeps below its largest alignment exponent.
#[test]
fn mma_sim_table_8_across_generations() {
    use Generation::*;
    use InputKind::*;
    let c = (-0.125f32).to_bits();
    let half_a: Vec<u32> = [4096.0, -4096.0, -0.5, -0.25].map(f16).to_vec();
    let half_b: Vec<u32> = [2048.0, 2048.0, 1.0, 1.0].map(f16).to_vec();
    for (g, want) in [(Volta, 0.0f32), (Turing, -0.5), (Ampere, -0.5), (Hopper, -0.75), (Blackwell, -0.75)] {
        let k = fdpa(g, Unit::Mma, Half, OutType::F32).block as usize;
        let (a, b) = (padded(half_a.clone(), k), padded(half_b.clone(), k));
        let got = fdpa(g, Unit::Mma, Half, OutType::F32).dot(MmaType::F16, &a, MmaType::F16, &b, c, None);
        assert_eq!(f32::from_bits(got), want, "{g:?} f16 -> f32");
    }
    // e5m2: 2^15 · 2^8 = 2^23.
    let e5 = |x| narrow(Narrow::E5m2, x);
    let (a, b) = (
        padded([32768.0, -32768.0, -0.5, -0.25].map(e5).to_vec(), 32),
        padded([256.0, 256.0, 1.0, 1.0].map(e5).to_vec(), 32),
    );
    for (g, unit, want) in [(Ada, Unit::Mma, 0.0f32), (Hopper, Unit::Wgmma, 0.0), (Blackwell, Unit::Tcgen05, -0.75)] {
        let got = fdpa(g, unit, Fp8, OutType::F32).dot(MmaType::E5m2, &a, MmaType::E5m2, &b, c, None);
        assert_eq!(f32::from_bits(got), want, "{g:?} {unit:?} e5m2 -> f32");
    }
    // NVFP4 (ue4m3 scales per 16): 2^23 as a group of 16 products 4·2 under scales 2^8·2^8, −2^23
    // likewise, then −0.5 and −0.25 under scales of 1.
    let e2 = |x| narrow(Narrow::E2m1, x);
    let mut a = vec![e2(4.0); 32];
    let mut b: Vec<u32> = [vec![e2(2.0); 16], vec![e2(-2.0); 16]].concat();
    a.extend([e2(0.5), e2(0.5)]);
    b.extend([e2(-1.0), e2(-0.5)]);
    let (a, b) = (padded(a, 64), padded(b, 64));
    let ue4 = |x| narrow(Narrow::Ue4m3, x);
    let scales = [ue4(256.0), ue4(256.0), ue4(1.0), ue4(1.0)];
    let bs = BlockScales { ty: MmaType::Ue4m3, a: &scales, b: &scales, block: 16 };
    let got = fdpa(Blackwell, Unit::Tcgen05, Mxf4, OutType::F32).dot(MmaType::E2m1, &a, MmaType::E2m1, &b, c, Some(bs));
    assert_eq!(f32::from_bits(got), -0.875, "NVFP4");
}

/// Products align at Exp(a) + Exp(b), not at their own exponent: 12·24 and 18·16 are both 288,
/// but 12·24 aligns at 3 + 4 = 7 and keeps 8 products of 2^−18 (25 bits below 2^7), 18·16 at
/// 4 + 4 = 8 and drops them.
#[test]
fn blackwell_fp8_aligns_products_at_their_factors_exponents() {
    let e4 = |x| narrow(Narrow::E4m3, x);
    let tiny = 2f64.powi(-9);
    let dot = |x: f64, y: f64| {
        let a = padded([vec![e4(x)], vec![e4(tiny); 8]].concat(), 32);
        let b = padded([vec![e4(y)], vec![e4(tiny); 8]].concat(), 32);
        fdpa(Generation::Blackwell, Unit::Tcgen05, InputKind::Fp8, OutType::F32).dot(
            MmaType::E4m3,
            &a,
            MmaType::E4m3,
            &b,
            0,
            None,
        )
    };
    assert_eq!(dot(12.0, 24.0), 0x4390_0001);
    assert_eq!(dot(18.0, 16.0), 0x4390_0000);
}

/// FTTN's matrix: a row of A is 2^10 then 2^−2 and 2^−3 alternating, a column of B 2^10 then
/// −2^−3, K = 8192 (512 `wmma` k-steps of m16n16k16 f16 → f32, the accumulator from 0), C = 2^20.
/// FTTN reports C − A·B as the GPU computes it: 0 on V100 and A100 (every small product falls
/// below the accumulator's kept bits), 191.875 on H100 (exact: 191.984375).
#[test]
fn fttn_matrix_gives_0_on_v100_and_a100_and_191_875_on_h100() {
    let k = 8192;
    let a: Vec<u32> = (0..k)
        .map(|j| {
            f16(if j == 0 {
                1024.0
            } else if j % 2 == 1 {
                0.25
            } else {
                0.125
            })
        })
        .collect();
    let b: Vec<u32> = (0..k).map(|j| f16(if j == 0 { 1024.0 } else { -0.125 })).collect();
    for (g, want) in [(Generation::Volta, 0.0f32), (Generation::Ampere, 0.0), (Generation::Hopper, 191.875)] {
        let acc = fdpa(g, Unit::Mma, InputKind::Half, OutType::F32).dot(MmaType::F16, &a, MmaType::F16, &b, 0, None);
        assert_eq!(1048576.0 - f32::from_bits(acc), want, "{g:?}");
    }
}

/// With A = B = 0 the result is C through the block's rounding: Ada's and Hopper's FP8
/// accumulator keeps 13 fraction bits (the low 10 of an f32 cut toward zero, subnormals too);
/// the f16 path of Hopper and Blackwell's FP8 keep all 23.
#[test]
fn fp8_accumulator_of_ada_and_hopper_keeps_13_fraction_bits() {
    let zeros = vec![0u32; 32];
    for c in [0x3F80_07FFu32, 0xBF80_07FF, 0x0000_07FF, 0x7F7F_FFFF] {
        for (g, unit) in [(Generation::Ada, Unit::Mma), (Generation::Hopper, Unit::Wgmma)] {
            let got =
                fdpa(g, unit, InputKind::Fp8, OutType::F32).dot(MmaType::E4m3, &zeros, MmaType::E4m3, &zeros, c, None);
            assert_eq!(got, c & !0x3FF, "{g:?} {unit:?} c = {c:#x}");
        }
        let keep = [
            fdpa(Generation::Hopper, Unit::Wgmma, InputKind::Half, OutType::F32),
            fdpa(Generation::Blackwell, Unit::Tcgen05, InputKind::Fp8, OutType::F32),
        ];
        for f in keep {
            assert_eq!(f.dot(MmaType::E4m3, &zeros, MmaType::E4m3, &zeros, c, None), c, "{f:?} c = {c:#x}");
        }
    }
}

/// Step 1 and the ends of step 4: NaN as 0x7FFFFFFF or 0x7FFF, Inf·0 and +Inf − Inf invalid,
/// an infinity kept, an exact zero sum +0 whatever the signs, a finite sum past the f32 range
/// Inf even under RZ.
#[test]
fn specials_zero_and_overflow() {
    let ampere = fdpa(Generation::Ampere, Unit::Mma, InputKind::Half, OutType::F32);
    let ampere_h = fdpa(Generation::Ampere, Unit::Mma, InputKind::Half, OutType::F16);
    let (inf, ninf, nan) = (0x7C00, 0xFC00, 0x7E01);
    let one = f16(1.0);
    let dot = |f: Fdpa, a: [u32; 2], b: [u32; 2], c: u32| {
        f.dot(MmaType::F16, &padded(a.to_vec(), 16), MmaType::F16, &padded(b.to_vec(), 16), c, None)
    };
    assert_eq!(dot(ampere, [nan, 0], [one, 0], 0), 0x7FFF_FFFF);
    assert_eq!(dot(ampere_h, [nan, 0], [one, 0], 0), 0x7FFF);
    assert_eq!(dot(ampere, [inf, 0], [0, 0], 0), 0x7FFF_FFFF, "Inf·0");
    assert_eq!(dot(ampere, [inf, ninf], [one, one], 0), 0x7FFF_FFFF, "+Inf − Inf");
    assert_eq!(dot(ampere, [inf, 0], [one, 0], 0xFF80_0000), 0x7FFF_FFFF, "+Inf + C = −Inf");
    assert_eq!(dot(ampere, [ninf, one], [one, one], 0x3F80_0000), 0xFF80_0000);
    assert_eq!(dot(ampere_h, [inf, 0], [inf, 0], 0), 0x7C00);
    assert_eq!(dot(ampere, [one, f16(-1.0)], [one, one], 0x8000_0000), 0, "exact zero: +0");
    assert_eq!(dot(ampere, [f16(-0.0), 0], [one, 0], 0x8000_0000), 0, "−0 + −0·1: +0");
    assert_eq!(dot(ampere_h, [one, f16(-1.0)], [one, one], 0x8000), 0);
    // tf32: (2 − 2^−10)·2^127 · 2 is finite in the exact sum and past f32: Inf under RZ.
    let tf32 = fdpa(Generation::Ampere, Unit::Mma, InputKind::Tf32, OutType::F32);
    let big = padded(vec![0x7F7F_E000, 0xFF7F_E000], 8);
    let two = padded(vec![0x4000_0000, 0x4000_0000], 8);
    assert_eq!(tf32.dot(MmaType::Tf32, &big[..1], MmaType::Tf32, &two[..1], 0, None), 0x7F80_0000);
    assert_eq!(tf32.dot(MmaType::Tf32, &big[1..2], MmaType::Tf32, &two[1..2], 0, None), 0xFF80_0000);
}

/// A nonzero sum that rounds to zero is +0, as MMA-Sim makes every zero result
/// (`ldexp_and_normalize(..) + 0.0`): −2^−75 · 2^−75 with C = +0 truncates to zero under RZ.
#[test]
fn a_negative_sum_that_rounds_to_zero_is_plus_zero() {
    let (a, b) = ((-(2f32.powi(-75))).to_bits(), 2f32.powi(-75).to_bits());
    for g in [Generation::Ampere, Generation::Hopper] {
        let f = fdpa(g, Unit::Mma, InputKind::Tf32, OutType::F32);
        let k = f.block as usize;
        let got = f.dot(MmaType::Tf32, &padded(vec![a], k), MmaType::Tf32, &padded(vec![b], k), 0, None);
        assert_eq!(got, 0, "{g:?}");
    }
    // RNE onto f16: −2^−26 rounds to −0 in f16, written +0.
    let f = fdpa(Generation::Ampere, Unit::Mma, InputKind::Half, OutType::F16);
    let (a, b) = (
        u32::from(half::f16::from_f32(-(2f32.powi(-13))).to_bits()),
        u32::from(half::f16::from_f32(2f32.powi(-13)).to_bits()),
    );
    assert_eq!(f.dot(MmaType::F16, &padded(vec![a], 8), MmaType::F16, &padded(vec![b], 8), 0, None), 0);
}
