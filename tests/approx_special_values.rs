//! Every special-value table of the PTX ISA (§9.7.3.13–22, §9.7.4.9–10) and of the SASS MUFU
//! page, through the instruction layer, for every approximate spelling.

use ptxfp::{Instr, Target};

const NEG_INF: u64 = 0xFF80_0000;
const NEG_ZERO: u64 = 0x8000_0000;
const POS_ZERO: u64 = 0;
const POS_INF: u64 = 0x7F80_0000;
const NAN: u64 = 0x7FC0_0000;
const CNAN: u64 = 0x7FFF_FFFF;
const ONE: u64 = 0x3F80_0000;
const NEG_ONE: u64 = 0xBF80_0000;
const NEG_NORMAL: u64 = 0xC040_0000; // -3
const POS_SUB: u64 = 0x0000_0123;
const NEG_SUB: u64 = 0x8000_0123;

fn eval_on(target: Target, spelling: &str, x: &[u64]) -> u64 {
    let i: Instr = spelling.parse().unwrap_or_else(|e| panic!("{e}"));
    i.eval_on(target, x).unwrap_or_else(|e| panic!("{e}"))
}

/// Check a table on every listed spelling, on sm_90 and on sm_52 where the spelling exists.
fn table(spellings: &[&str], rows: &[(u64, u64)]) {
    for target in [Target::DEFAULT, Target::new(52).unwrap()] {
        for spelling in spellings {
            let i: Instr = spelling.parse().unwrap();
            // On sm_5x/6x MUFU.SIN/COS/EX2 take RRO's fixed-point word, not a float.
            let fixed_point_input = ["MUFU.SIN", "MUFU.COS", "MUFU.EX2"].iter().any(|p| spelling.starts_with(p));
            if target.check(&i).is_err() || (fixed_point_input && target.has_rro()) {
                continue;
            }
            for &(input, want) in rows {
                let got = eval_on(target, spelling, &[input]);
                assert_eq!(got, want, "{spelling} on {target}: input {input:#x} gave {got:#x}, table says {want:#x}");
            }
        }
    }
}

#[test]
fn rcp_approx_f32() {
    table(
        &["rcp.approx.f32", "rcp.approx.ftz.f32", "MUFU.RCP"],
        &[(NEG_INF, NEG_ZERO), (NEG_ZERO, NEG_INF), (POS_ZERO, POS_INF), (POS_INF, POS_ZERO), (NAN, CNAN), (ONE, ONE)],
    );
    // MUFU flushes denormal inputs: RCP(±denorm) = ±Inf; rcp.approx.f32 rescales them instead.
    table(&["rcp.approx.ftz.f32", "MUFU.RCP"], &[(NEG_SUB, NEG_INF), (POS_SUB, POS_INF)]);
}

#[test]
fn sqrt_approx_f32() {
    table(
        &["sqrt.approx.f32", "sqrt.approx.ftz.f32", "MUFU.SQRT"],
        &[
            (NEG_INF, CNAN),
            (NEG_NORMAL, CNAN),
            (NEG_ZERO, NEG_ZERO),
            (POS_ZERO, POS_ZERO),
            (POS_INF, POS_INF),
            (NAN, CNAN),
            (ONE, ONE),
        ],
    );
    table(&["MUFU.SQRT", "sqrt.approx.ftz.f32"], &[(NEG_SUB, NEG_ZERO), (POS_SUB, POS_ZERO)]);
}

#[test]
fn rsqrt_approx_f32() {
    table(
        &["rsqrt.approx.f32", "rsqrt.approx.ftz.f32", "MUFU.RSQ"],
        &[
            (NEG_INF, CNAN),
            (NEG_NORMAL, CNAN),
            (NEG_ZERO, NEG_INF),
            (POS_ZERO, POS_INF),
            (POS_INF, POS_ZERO),
            (NAN, CNAN),
            (ONE, ONE),
        ],
    );
    table(&["MUFU.RSQ", "rsqrt.approx.ftz.f32"], &[(NEG_SUB, NEG_INF), (POS_SUB, POS_INF)]);
    table(&["MUFU.RSQ"], &[(0x4080_0000, 0x3F00_0000)]);
}

#[test]
fn f64_high_word_approximations() {
    const HI: u32 = 32;
    let rows = |nan_row: u64| {
        [
            (0xFFF0_0000u64 << HI, 0x8000_0000u64 << HI, 0x7FFF_FFFFu64 << HI), // -Inf
            (0x800F_FFFF << HI, 0xFFF0_0000 << HI, 0xFFF0_0000 << HI),          // -subnormal
            (0x8000_0000 << HI, 0xFFF0_0000 << HI, 0xFFF0_0000 << HI),          // -0
            (0, 0x7FF0_0000 << HI, 0x7FF0_0000 << HI),                          // +0
            (0x0000_0001, 0x7FF0_0000 << HI, 0x7FF0_0000 << HI),                // +subnormal
            (0x7FF0_0000 << HI, 0, 0),                                          // +Inf
            (nan_row, 0x7FFF_FFFF << HI, 0x7FFF_FFFF << HI),                    // NaN
            (0x3FF0_0000 << HI, 0x3FF0_0000 << HI, 0x3FF0_0000 << HI),          // 1.0 exactly
        ]
    };
    for (x, rcp, rsqrt) in rows(0x7FF8_0000_0000_0001) {
        assert_eq!(eval_on(Target::DEFAULT, "rcp.approx.ftz.f64", &[x]), rcp, "rcp.approx.ftz.f64({x:#x})");
        assert_eq!(eval_on(Target::DEFAULT, "rsqrt.approx.ftz.f64", &[x]), rsqrt, "rsqrt.approx.ftz.f64({x:#x})");
        // Only the high word is read.
        assert_eq!(eval_on(Target::DEFAULT, "rcp.approx.ftz.f64", &[x | 0xFFFF]), rcp);
    }
    // The MUFU forms work on the high word alone; .SAT is ignored for them [DOC opMUFU].
    assert_eq!(eval_on(Target::DEFAULT, "MUFU.RCP64H", &[0x3FF0_0000]), 0x3FF0_0000);
    assert_eq!(
        eval_on(Target::DEFAULT, "MUFU.RSQ64H.SAT", &[0x3FD0_0000]),
        eval_on(Target::DEFAULT, "MUFU.RSQ64H", &[0x3FD0_0000])
    );
    assert_eq!(eval_on(Target::DEFAULT, "MUFU.RSQ64H", &[0xBFF0_0000]), 0x7FFF_FFFF);
}

#[test]
fn rsqrt_approx_f64_software_sequence_slow_path() {
    // docs/semantics.md §1.3: ±0 → ±Inf; NaN → x + x; negative → 0xFFF8000000000000; +Inf → +0.
    let t = Target::DEFAULT;
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0]), 0x7FF0_0000_0000_0000);
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0x8000_0000_0000_0000]), 0xFFF0_0000_0000_0000);
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0x7FF0_0000_0000_0123]), 0x7FF8_0000_0000_0123);
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0xBFF0_0000_0000_0000]), 0xFFF8_0000_0000_0000);
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0xFFF0_0000_0000_0000]), 0xFFF8_0000_0000_0000);
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0x8000_0000_0000_0001]), 0xFFF8_0000_0000_0000);
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0x7FF0_0000_0000_0000]), 0);
    // Exact-power inputs (ZLUDA asserts rsqrt.approx.f64(0.25) = 2.0 on hardware).
    assert_eq!(eval_on(t, "rsqrt.approx.f64", &[0.25f64.to_bits()]), 2.0f64.to_bits());
    // A subnormal is rescaled by 2^54 and the root by 2^27: rsqrt(2^-1074) = 2^537.
    let r = f64::from_bits(eval_on(t, "rsqrt.approx.f64", &[1]));
    assert!((r / 2f64.powi(537) - 1.0).abs() < 1e-14, "{r:e}");
}

#[test]
fn sin_cos_approx() {
    let sin = [(NEG_INF, CNAN), (NEG_ZERO, NEG_ZERO), (POS_ZERO, POS_ZERO), (POS_INF, CNAN), (NAN, CNAN)];
    table(&["sin.approx.f32", "sin.approx.ftz.f32"], &sin);
    let cos = [(NEG_INF, CNAN), (NEG_ZERO, ONE), (POS_ZERO, ONE), (POS_INF, CNAN), (NAN, CNAN)];
    table(&["cos.approx.f32", "cos.approx.ftz.f32"], &cos);
    // Subnormal arguments: FMUL.RZ keeps a subnormal that MUFU then flushes (docs/semantics.md §5).
    table(&["sin.approx.f32", "sin.approx.ftz.f32"], &[(NEG_SUB, NEG_ZERO), (POS_SUB, POS_ZERO)]);
    table(&["cos.approx.f32", "cos.approx.ftz.f32"], &[(NEG_SUB, ONE), (POS_SUB, ONE)]);
    // The MUFU page: SIN(±denorm) = ±0, COS(denorm) = 1.
    table(
        &["MUFU.SIN"],
        &[(NEG_SUB, NEG_ZERO), (POS_SUB, POS_ZERO), (NEG_ZERO, NEG_ZERO), (POS_INF, CNAN), (NAN, CNAN)],
    );
    table(&["MUFU.COS"], &[(NEG_SUB, ONE), (POS_SUB, ONE), (NEG_ZERO, ONE), (NEG_INF, CNAN), (NAN, CNAN)]);
}

#[test]
fn lg2_ex2_approx_f32() {
    let lg2 = [
        (NEG_INF, CNAN),
        (NEG_NORMAL, CNAN),
        (NEG_ZERO, NEG_INF),
        (POS_ZERO, NEG_INF),
        (POS_INF, POS_INF),
        (NAN, CNAN),
        (ONE, 0),
    ];
    table(&["lg2.approx.f32", "lg2.approx.ftz.f32", "MUFU.LG2"], &lg2);
    table(&["lg2.approx.ftz.f32", "MUFU.LG2"], &[(NEG_SUB, NEG_INF), (POS_SUB, NEG_INF)]);
    let ex2 = [(NEG_INF, POS_ZERO), (NEG_ZERO, ONE), (POS_ZERO, ONE), (POS_INF, POS_INF), (NAN, CNAN)];
    table(&["ex2.approx.f32", "ex2.approx.ftz.f32", "MUFU.EX2"], &ex2);
    table(&["ex2.approx.ftz.f32", "MUFU.EX2"], &[(NEG_SUB, ONE), (POS_SUB, ONE)]);
    // Overflow and underflow of the MUFU page: +Inf and +0.
    table(&["ex2.approx.ftz.f32"], &[(0x4300_0000, POS_INF), (0xC300_0000, POS_ZERO)]);
}

#[test]
fn tanh_approx() {
    let rows = [(NEG_INF, NEG_ONE), (NEG_ZERO, NEG_ZERO), (POS_ZERO, POS_ZERO), (POS_INF, ONE), (NAN, CNAN)];
    table(&["tanh.approx.f32", "MUFU.TANH"], &rows);
    // Subnormals pass through (PTX 9.7.3.22).
    table(&["tanh.approx.f32"], &[(POS_SUB, POS_SUB), (NEG_SUB, NEG_SUB)]);
    for spelling in ["tanh.approx.f16", "tanh.approx.bf16"] {
        // Rows in f16 encoding: -Inf → -1, -0 → -0, +0 → +0, +Inf → 1, NaN → canonical NaN.
        for (x, want) in [(0xFC00u64, 0xBC00u64), (0x8000, 0x8000), (0, 0), (0x7C00, 0x3C00), (0x7E00, 0x7FFF)] {
            let bf16 = spelling.ends_with("bf16");
            let x = if bf16 { bf16_special(x) } else { x };
            let want = if bf16 && want != 0x7FFF { bf16_special(want) } else { want };
            assert_eq!(eval_on(Target::DEFAULT, spelling, &[x]), want, "{spelling}({x:#x})");
        }
    }
    // f16 subnormals are supported: tanh of the smallest subnormal is itself.
    assert_eq!(eval_on(Target::DEFAULT, "tanh.approx.f16", &[0x0001]), 0x0001);
}

/// Map an f16 special pattern (±0, ±1, ±Inf, NaN) to its bf16 counterpart.
fn bf16_special(x: u64) -> u64 {
    let sign = x & 0x8000;
    let body = match x & 0x7FFF {
        0 => 0,
        0x3C00 => 0x3F80,
        0x7C00 => 0x7F80,
        0x7E00 => 0x7FC0,
        other => panic!("not a special: {other:#x}"),
    };
    sign | body
}

#[test]
fn ex2_approx_half() {
    for (x, want) in [(0xFC00u64, 0u64), (0x8000, 0x3C00), (0, 0x3C00), (0x7C00, 0x7C00), (0x7E00, 0x7FFF)] {
        assert_eq!(eval_on(Target::DEFAULT, "ex2.approx.f16", &[x]), want, "ex2.approx.f16({x:#x})");
    }
    let bf = [
        (0xFF80u64, 0u64),
        (0x8001, 0x3F80),
        (0x8000, 0x3F80),
        (0, 0x3F80),
        (0x0001, 0x3F80),
        (0x7F80, 0x7F80),
        (0x7FC0, 0x7FFF),
    ];
    for (x, want) in bf {
        assert_eq!(eval_on(Target::DEFAULT, "ex2.approx.ftz.bf16", &[x]), want, "ex2.approx.ftz.bf16({x:#x})");
    }
    // Packed forms apply the same function to each half.
    let one = eval_on(Target::DEFAULT, "ex2.approx.f16", &[0x3C00]);
    assert_eq!(eval_on(Target::DEFAULT, "ex2.approx.f16x2", &[0x3C00_0000]), (one << 16) | 0x3C00);
}

#[test]
fn mufu_sat_clamps() {
    let t = Target::DEFAULT;
    assert_eq!(eval_on(t, "MUFU.RCP.SAT", &[0x3F00_0000]), ONE); // 1/0.5 = 2 → 1
    assert_eq!(eval_on(t, "MUFU.RCP.SAT", &[0xBF80_0000]), 0); // −1 → +0
    assert_eq!(eval_on(t, "MUFU.LG2.SAT", &[NAN]), 0); // NaN → +0
    assert_eq!(eval_on(t, "MUFU.EX2.SAT", &[0]), ONE);
}

#[test]
fn targets_gate_instructions() {
    let i: Instr = "tanh.approx.f32".parse().unwrap();
    let err = i.eval_on(Target::new(70).unwrap(), &[0]).unwrap_err().to_string();
    assert!(err.contains("sm_75"), "{err}");
    let i: Instr = "RRO.EX2".parse().unwrap();
    assert!(i.eval_on(Target::DEFAULT, &[0]).is_err());
    assert_eq!(i.eval_on(Target::new(60).unwrap(), &[0x3F80_0000]).unwrap(), 0x0080_0000);
    let i: Instr = "add.rn.f32x2".parse().unwrap();
    assert!(i.eval_on(Target::DEFAULT, &[0, 0]).unwrap_err().to_string().contains("sm_100"));
    assert!(i.eval_on(Target::new(100).unwrap(), &[0, 0]).is_ok());
    assert!("sm_91".parse::<Target>().is_err());
    assert_eq!("sm_90".parse::<Target>().unwrap(), Target::DEFAULT);
}

#[test]
fn sm5x_lowers_sin_cos_ex2_through_rro() {
    // On sm_52 sin.approx = MUFU.SIN(RRO.SINCOS(x)), on sm_90 MUFU.SIN(FMUL.RZ(x, 1/2π)); both
    // must agree with the mathematical value within the documented 2^-20.5 on [−2π, 2π].
    for x in [0.5f32, 1.0, 2.0, -3.0, 6.0] {
        for target in [Target::new(52).unwrap(), Target::DEFAULT] {
            let s = f32::from_bits(eval_on(target, "sin.approx.f32", &[x.to_bits() as u64]) as u32);
            assert!((s as f64 - (x as f64).sin()).abs() <= 2f64.powf(-20.5), "sin({x}) on {target} = {s}");
            let e = f32::from_bits(eval_on(target, "ex2.approx.ftz.f32", &[x.to_bits() as u64]) as u32);
            assert!(((e as f64) / (x as f64).exp2() - 1.0).abs() < 2f64.powi(-21), "ex2({x}) on {target} = {e}");
        }
    }
    // sqrt.approx on sm_50 is RCP(RSQ(x)).
    let sm50 = Target::new(50).unwrap();
    let four = 4.0f32.to_bits() as u64;
    assert_eq!(eval_on(sm50, "sqrt.approx.ftz.f32", &[four]), 2.0f32.to_bits() as u64);
}
