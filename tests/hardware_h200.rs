//! Results an NVIDIA H200 (sm_90, driver 580.159.04, CUDA 13.0) returned, captured with
//! `ptxfp capture --all` and `scripts/capture_run.py` (data/hardware/h200-sm90/README.md). Every
//! expected word here is the GPU's, read from the capture's comparison report; none comes from
//! ptxfp.

use ptxfp::{Instr, Target};

fn eval(spelling: &str, operands: &[u64]) -> u64 {
    let instr: Instr = spelling.parse().unwrap();
    instr.eval_on(Target::DEFAULT, operands).unwrap()
}

fn check(spelling: &str, cases: &[(&[u64], u64)]) {
    for &(operands, gpu) in cases {
        let got = eval(spelling, operands);
        assert_eq!(got, gpu, "{spelling} {operands:x?}: ptxfp {got:#x}, H200 {gpu:#x}");
    }
}

#[test]
fn f64_arithmetic_returns_b_when_both_operands_are_nan() {
    let (qn, nq, all) = (0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF);
    for spelling in ["add.rn.f64", "add.rm.f64", "sub.rz.f64", "mul.rn.f64", "mul.rp.f64", "min.f64", "max.f64"] {
        check(spelling, &[(&[all, qn], qn), (&[all, nq], nq), (&[nq, qn], qn), (&[nq, all], all)]);
    }
    // A signalling b is quieted, payload and sign kept.
    check("add.rn.f64", &[(&[qn, 0xFFF3_FFFF_FFFF_FFFF], 0xFFFB_FFFF_FFFF_FFFF)]);
    check("add.rn.f64", &[(&[qn, 0x7FF4_E70E_4FE0_8D84], 0x7FFC_E70E_4FE0_8D84)]);
    check("sub.rn.f64", &[(&[nq, 0x7FF3_4585_FE63_A0CA], 0x7FFB_4585_FE63_A0CA)]);
}

#[test]
fn f64_fma_searches_b_then_c_then_a() {
    for spelling in ["fma.rn.f64", "fma.rz.f64", "mad.rm.f64"] {
        check(
            spelling,
            &[
                (&[0xFFFF_FFFF_FFFF_FFFF, 0x7FF8_0000_0000_0000, 0x257A_B65B_EAC7_1E93], 0x7FF8_0000_0000_0000),
                (&[0xFFFF_FFFF_FFFF_FFFF, 0xFFF8_0000_0000_0000, 0x2746_3B8F_F47B_4618], 0xFFF8_0000_0000_0000),
                (&[0xFFF8_0000_0000_0000, 0xB4DE_D58B_DB84_9CE4, 0xFFFF_FFFF_FFFF_FFFF], 0xFFFF_FFFF_FFFF_FFFF),
                (&[0xFFF8_0000_0000_0000, 0x7FF8_0000_0000_0000, 0x7BBB_6618_7B08_DA75], 0x7FF8_0000_0000_0000),
            ],
        );
    }
}

#[test]
fn f64_abs_and_neg_return_a_nan_quieted_with_its_sign() {
    for spelling in ["abs.f64", "neg.f64"] {
        check(
            spelling,
            &[
                (&[0xFFFF_FFFF_FFFF_FFFF], 0xFFFF_FFFF_FFFF_FFFF),
                (&[0xFFF8_0000_0000_0000], 0xFFF8_0000_0000_0000),
                (&[0xFFF0_1FFF_FFFF_FFFF], 0xFFF8_1FFF_FFFF_FFFF),
                (&[0xFFF0_0000_0000_0001], 0xFFF8_0000_0000_0001),
            ],
        );
    }
    check(
        "neg.f64",
        &[(&[0x7FF1_0000_0000_0000], 0x7FF9_0000_0000_0000), (&[0x7FF8_0000_0000_0000], 0x7FF8_0000_0000_0000)],
    );
}

#[test]
fn conversion_nans() {
    for mode in ["rn", "rz", "rm", "rp"] {
        check(
            &format!("cvt.{mode}.f16.f64"),
            &[
                (&[0xFFFF_FFFF_FFFF_FFFF], 0xFFFF),
                (&[0x7FF8_0000_0000_0000], 0x7E00),
                (&[0xFFF8_0000_0000_0000], 0xFE00),
                (&[0xFFF0_1FFF_FFFF_FFFF], 0xFE07),
                (&[0x7FF1_0000_0000_0000], 0x7E40),
            ],
        );
        check(
            &format!("cvt.{mode}.bf16.f64"),
            &[
                (&[0xFFFF_FFFF_FFFF_FFFF], 0xFFFF),
                (&[0x7FF8_0000_0000_0000], 0x7FC0),
                (&[0xFFF0_1FFF_FFFF_FFFF], 0xFFC0),
                (&[0x7FF1_0000_0000_0000], 0x7FC8),
            ],
        );
    }
    check(
        "cvt.f64.f16",
        &[
            (&[0xFFFF], 0xFFFF_FC00_0000_0000),
            (&[0x7E00], 0x7FF8_0000_0000_0000),
            (&[0x7C01], 0x7FF8_0400_0000_0000),
            (&[0x7C63], 0x7FF9_8C00_0000_0000),
            (&[0xFF28], 0xFFFC_A000_0000_0000),
        ],
    );
    check(
        "cvt.ftz.f64.f32",
        &[
            (&[0xFFFF_FFFF], 0x7FFF_FFFF_E000_0000),
            (&[0x7FC0_0000], 0x7FFF_FFFF_E000_0000),
            (&[0x7F80_0001], 0x7FFF_FFFF_E000_0000),
            (&[0xFF80_003F], 0x7FFF_FFFF_E000_0000),
        ],
    );
    check(
        "cvt.f32.bf16",
        &[(&[0x7FB8], 0x7FB8_0000), (&[0xFF8F], 0xFF8F_0000), (&[0x7F81], 0x7F81_0000), (&[0xFFBF], 0xFFBF_0000)],
    );
    check("cvt.ftz.f32.bf16", &[(&[0xFFFF], 0x7FFF_FFFF), (&[0x7FC0], 0x7FFF_FFFF), (&[0x7F81], 0x7FFF_FFFF)]);
}

#[test]
fn cvt_ftz_f16_f32_converts_subnormal_inputs_as_they_are() {
    for spelling in ["cvt.rm.ftz.f16.f32", "cvt.rm.f16.f32"] {
        check(spelling, &[(&[0x8000_0001], 0x8001), (&[0x807F_FFFF], 0x8001)]);
    }
    for spelling in ["cvt.rp.ftz.f16.f32", "cvt.rp.ftz.sat.f16.f32"] {
        check(spelling, &[(&[0x0000_0001], 0x0001), (&[0x007F_FFFF], 0x0001)]);
    }
}

#[test]
fn fma_oob_zeroes_for_a_multiplicand_0x7ff7_of_either_sign() {
    for spelling in ["fma.rn.oob.f16", "fma.rn.oob.relu.f16"] {
        check(
            spelling,
            &[
                (&[0xDC01, 0x7FFF, 0x895C], 0x7FFF),
                (&[0x7FFF, 0x2DC0, 0x6BE4], 0x7FFF),
                (&[0x7FF7, 0x7C07, 0x0000], 0x0000),
                (&[0xFFF7, 0x03FF, 0x4402], 0x0000),
                (&[0x8F01, 0xFFF7, 0x7001], 0x0000),
                // As the addend it is an ordinary NaN (the second run, 2^18 samples).
                (&[0x1781, 0xBDFF, 0xFFF7], 0x7FFF),
                (&[0x4E3C, 0xE829, 0x7FF7], 0x7FFF),
            ],
        );
    }
    for spelling in ["fma.rn.oob.bf16", "fma.rn.oob.relu.bf16"] {
        check(
            spelling,
            &[
                (&[0xCC90, 0x7FFF, 0xE549], 0x7FFF),
                (&[0x7FF7, 0x7C07, 0x0000], 0x0000),
                (&[0xFFF7, 0x007F, 0x2882], 0x0000),
                (&[0x8F01, 0xFFF7, 0x2E03], 0x0000),
                (&[0xBC76, 0x431E, 0xFFF7], 0x7FFF),
            ],
        );
    }
    check(
        "fma.rn.oob.relu.f16x2",
        &[
            (&[0x7C07_7FF7, 0xE440_0000, 0x846E_0AA6], 0x7FFF_0000),
            (&[0x03FF_FFF7, 0x3E75_4402, 0x6388_2823], 0x6388_0000),
            (&[0xD00F_B092, 0x6528_AD45, 0x9700_FFF7], 0x0000_7FFF),
            (&[0xD7A5_11DB, 0xB07B_AC00, 0xFFF7_303E], 0x7FFF_303E),
        ],
    );
}

/// The `.ftz.f32` tininess boundary: all 263,682 products of the capture (a within 2^-15 of 1,
/// b within 128 units of 2^-126, both signs) agreed with ptxfp in the four rounding modes,
/// these two of them among them (docs/semantics.md §5's ptxas folds, which the H200 confirms).
#[test]
fn ftz_tininess_follows_rounding_with_an_unbounded_exponent() {
    check("mul.rn.ftz.f32", &[(&[0x3F7F_FFFE, 0x0080_0001], 0x0080_0000)]);
    check("mul.rp.ftz.f32", &[(&[0x3F7F_FFFF, 0x0080_0000], 0x0000_0000)]);
}

/// A hash of a sequence of result words: FNV-1a over 64-bit words with a shift mix.
fn hash(words: impl Iterator<Item = u64>) -> u64 {
    words.fold(0xCBF2_9CE4_8422_2325, |h, w| {
        let h = (h ^ w).wrapping_mul(0x100_0000_01B3);
        h ^ (h >> 29)
    })
}

/// `ptxfp capture rcp.approx.ftz.f64 rsqrt.approx.ftz.f64 rsqrt.approx.f64 --range 1.0..4.0
/// --random 4194304 --seed 7`: the GPU's 4,194,304 results of each (1,790,804 distinct high
/// words, so nearly every input of the MUFU.RCP64H/RSQ64H datapath), hashed as [`hash`] does.
/// The hashes were computed from the GPU's results files.
#[test]
fn f64_high_word_approximations_match_the_capture() {
    use ptxfp::sweep::domain::{Domain, PatternSet};
    use ptxfp::Format;
    let domain =
        Domain::new(vec![PatternSet::range(Format::F64, "1.0..4.0").unwrap()], String::new(), Some((1 << 22, 7)))
            .unwrap();
    let mut inputs = vec![0u64; 1 << 22];
    domain.fill(0, &mut [&mut inputs[..]]);
    assert_eq!(inputs[..3], [0x400C_D308_1017_5625, 0x400C_AE0D_1D21_C186, 0x400E_3701_5C49_7022]);
    for (spelling, gpu_hash, first) in [
        ("rcp.approx.ftz.f64", 0x058A_0713_42B0_790B, 0x3FD1_C344_0000_0000),
        ("rsqrt.approx.ftz.f64", 0xB3A7_4F69_EA64_5A9F, 0x3FE0_DBBD_0000_0000),
        ("rsqrt.approx.f64", 0x437A_8B71_7C8F_2E5C, 0x3FE0_DBBD_59C2_543D),
    ] {
        let instr: Instr = spelling.parse().unwrap();
        let mut out = vec![0u64; inputs.len()];
        instr.eval_batch(Target::DEFAULT, &[&inputs[..]], &mut out).unwrap();
        assert_eq!(out[0], first, "{spelling}");
        assert_eq!(hash(out.iter().copied()), gpu_hash, "{spelling}: results differ from the H200's");
    }
}

/// The directory of the H200 capture's files.
const CAPTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hardware/h200-sm90");

/// The words of a `slices/*.xz` file: little-endian u32, xz-compressed.
fn slice(name: &str) -> Vec<u32> {
    use std::io::Read;
    let file = std::fs::File::open(format!("{CAPTURE}/slices/{name}.xz")).unwrap();
    let mut bytes = vec![];
    xz4rust::XzReader::new(file).read_to_end(&mut bytes).unwrap();
    bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect()
}

/// The u16 results of a `*.out.npy` file (numpy format 1.0, little-endian).
fn npy_u16(name: &str) -> Vec<u16> {
    let bytes = std::fs::read(format!("{CAPTURE}/{name}.out.npy")).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{name}: numpy format 1.0");
    let header = 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    bytes[header..].chunks_exact(2).map(|w| u16::from_le_bytes([w[0], w[1]])).collect()
}

/// `spelling` on `inputs` (batch evaluation, as a user gets it) against the GPU's words:
/// the number of differing inputs and the first few.
fn differences<W: ptxfp::Word + PartialEq + std::fmt::LowerHex>(spelling: &str, inputs: &[W], gpu: &[W]) {
    let instr: Instr = spelling.parse().unwrap();
    let mut out = vec![inputs[0]; inputs.len()];
    instr.eval_batch(Target::DEFAULT, &[inputs], &mut out).unwrap();
    let diff: Vec<String> = (0..inputs.len())
        .filter(|&i| out[i] != gpu[i])
        .map(|i| format!("{:#x}: ptxfp {:#x}, H200 {:#x}", inputs[i], out[i], gpu[i]))
        .collect();
    assert!(diff.is_empty(), "{spelling}: {} inputs differ, first {:?}", diff.len(), &diff[..diff.len().min(8)]);
}

/// Every input of the binades an H200 was dumped on, each of its 2^23 results compared:
/// `sqrt.approx{.ftz}.f32` on [1, 2), [2, 4) and the positive subnormals (MUFU.SQRT's whole
/// table; other normal inputs differ only in the exponent), `tanh.approx.f32` on
/// [2^-24, 16) (MUFU.TANH's whole table and the binades around it), and every 512th
/// positive input of `tanh.approx.f32`.
#[test]
fn sqrt_and_tanh_reproduce_every_dumped_result() {
    let binade = |e: i32| -> Vec<u32> { (0..1 << 23).map(|f| ((127 + e) as u32) << 23 | f).collect() };
    for ftz in ["", "_ftz"] {
        let spelling = format!("sqrt.approx{}.f32", ftz.replace('_', "."));
        for (e, name) in [(0, "binade+0"), (1, "binade+1")] {
            differences(&spelling, &binade(e), &slice(&format!("sqrt_approx{ftz}_f32_{name}")));
        }
        let subnormals: Vec<u32> = (0..1 << 23).collect();
        differences(&spelling, &subnormals, &slice(&format!("sqrt_approx{ftz}_f32_subnormal")));
    }
    for e in -24..=3 {
        differences("tanh.approx.f32", &binade(e), &slice(&format!("tanh_approx_f32_binade{e:+}")));
    }
    let gpu = slice("tanh_approx_f32_stride512");
    let inputs: Vec<u32> = (0..gpu.len() as u32).map(|i| i * 512).collect();
    differences("tanh.approx.f32", &inputs, &gpu);
}

/// All 2^16 inputs of the four 16-bit MUFU spellings the capture dumped.
#[test]
fn half_precision_ex2_and_tanh_reproduce_every_result() {
    let inputs: Vec<u16> = (0..=u16::MAX).collect();
    for spelling in ["ex2.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.f16", "tanh.approx.bf16"] {
        differences(spelling, &inputs, &npy_u16(spelling));
    }
}
