//! The checks in front of every evaluation still reject what they rejected when they looked the
//! spelling up in the catalog on every call: an instruction on a target below its lowest
//! architecture, RRO on sm_70+, a wrong operand count, an operand wider than its type; with the
//! same messages.

use std::collections::HashMap;

use ptxfp::ptx::catalog::entries;
use ptxfp::ptx::Variant;
use ptxfp::{EvalError, Instr, Target, TargetError};

fn instr(spelling: &str) -> Instr {
    spelling.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn sm(n: u32) -> Target {
    Target::new(n).unwrap()
}

fn eval_on_error(spelling: &str, target: Target, operands: &[u64]) -> String {
    match instr(spelling).eval_on(target, operands) {
        Ok(bits) => panic!("{spelling} on {target} evaluated to {bits:#x}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_target_below_the_lowest_architecture_is_rejected() {
    let tanh = instr("tanh.approx.f32");
    assert_eq!(tanh.min_sm(), 75);
    let want = "tanh.approx.f32 requires sm_75 or newer; the target is sm_72";
    let too_old = TargetError::TooOld { instr: tanh, lowest_sm: 75, target: sm(72) };
    assert!(too_old.wants_newer_target());
    assert_eq!(too_old.to_string(), want);
    assert_eq!(sm(72).check(&tanh), Err(too_old.clone()));
    assert_eq!(tanh.eval_on(sm(72), &[0x3F80_0000]), Err(EvalError::Target(too_old)));
    assert!(tanh.eval_on(sm(75), &[0x3F80_0000]).is_ok());
    // The target is checked before the operands.
    assert_eq!(eval_on_error("tanh.approx.f32", sm(72), &[1, 2]), want);
    assert_eq!(
        eval_on_error("add.rn.bf16", sm(89), &[0, 0]),
        "add.rn.bf16 requires sm_90 or newer; the target is sm_89"
    );
    assert_eq!(
        eval_on_error("fma.rn.f32x2", sm(90), &[0, 0, 0]),
        "fma.rn.f32x2 requires sm_100 or newer; the target is sm_90"
    );
    // Batch evaluation reports the same message.
    let mut out = [0u32; 1];
    let err = tanh.eval_batch(sm(70), &[&[0x3F80_0000u32][..]], &mut out).unwrap_err();
    assert_eq!(err.to_string(), "tanh.approx.f32 requires sm_75 or newer; the target is sm_70");
}

#[test]
fn rro_exists_only_before_sm_70() {
    assert_eq!(
        eval_on_error("RRO.EX2", sm(70), &[0x3F80_0000]),
        "RRO.EX2 exists only on sm_50 to sm_62; the target is sm_70"
    );
    let removed = TargetError::RroRemoved { instr: instr("RRO.EX2"), target: sm(70) };
    assert_eq!(sm(70).check(&instr("RRO.EX2")), Err(removed.clone()));
    assert!(!removed.wants_newer_target());
    assert_eq!(instr("RRO.EX2").eval_on(sm(62), &[0x3F80_0000]), Ok(0x0080_0000));
}

#[test]
fn the_lowest_architecture_spans_every_operand_count() {
    // min.f32 has two operands from sm_10 and three from sm_100: the spelling exists on every
    // target, its three-operand form only from sm_100.
    let min = instr("min.f32");
    // PTX has it from sm_10; the lowest target ptxfp knows is sm_50.
    assert_eq!(min.min_sm(), 50);
    assert_eq!(min.min_sm_with(3), 100);
    assert_eq!(min.eval_on(sm(50), &[0x3F80_0000, 0x4000_0000]), Ok(0x3F80_0000));
    assert_eq!(min.eval_on(sm(100), &[0x3F80_0000, 0x4000_0000, 0]), Ok(0));
    assert_eq!(
        eval_on_error("min.f32", sm(90), &[0x3F80_0000, 0x4000_0000, 0]),
        "min.f32 with 3 operands requires sm_100 or newer; the target is sm_90"
    );
    assert_eq!(
        sm(90).check_with(&min, 3),
        Err(TargetError::TooOldForOperands { instr: min, operands: 3, lowest_sm: 100, target: sm(90) })
    );
    // Every catalog entry's instruction carries its spelling's lowest known architecture, which
    // is what parsing the spelling gives; it is the parsed instruction.
    let mut lowest_of: HashMap<String, u32> = HashMap::new();
    for e in entries() {
        let sm = lowest_of.entry(e.instr.to_string()).or_insert(u32::MAX);
        *sm = (*sm).min(e.targets.lowest_sm());
    }
    for e in entries() {
        let spelling = e.instr.to_string();
        let lowest = lowest_of[&spelling];
        assert_eq!(e.instr.min_sm(), lowest, "{spelling}");
        assert_eq!(instr(&spelling).min_sm(), lowest, "{spelling}");
        assert_eq!(instr(&spelling), e.instr, "{spelling}");
    }
}

#[test]
fn a_wrong_operand_count_is_rejected() {
    let t = Target::DEFAULT;
    assert_eq!(eval_on_error("add.rn.f32", t, &[1, 2, 3]), "add.rn.f32 takes 2 operand(s), got 3");
    assert_eq!(eval_on_error("fma.rn.f32", t, &[1, 2]), "fma.rn.f32 takes 3 operand(s), got 2");
    assert_eq!(eval_on_error("rcp.approx.ftz.f32", t, &[]), "rcp.approx.ftz.f32 takes 1 operand(s), got 0");
    assert_eq!(eval_on_error("min.f32", t, &[1]), "min.f32 takes 2 or 3 operand(s), got 1");
    // The count is checked before the widths.
    assert_eq!(
        instr("add.rn.f32").eval(&[1 << 40, 2, 3]),
        Err(EvalError::OperandCount { instr: "add.rn.f32".into(), legal: vec![2], got: 3 })
    );
}

#[test]
fn an_operand_wider_than_its_type_is_rejected() {
    let t = Target::DEFAULT;
    assert_eq!(
        eval_on_error("add.rn.f32", t, &[0x1_0000_0000, 0]),
        "operand 1 of add.rn.f32 is 0x100000000, wider than its type .f32 (32 bits)"
    );
    assert_eq!(
        instr("fma.rz.f32").eval_on(t, &[0, 0x3F80_0000, 1 << 63]),
        Err(EvalError::OperandTooWide { instr: "fma.rz.f32".into(), index: 2, value: 1 << 63, ty: ptxfp::Type::F32 })
    );
    assert_eq!(
        eval_on_error("add.f16", t, &[0x3C00, 0x1_3C00]),
        "operand 2 of add.f16 is 0x13c00, wider than its type .f16 (16 bits)"
    );
    // cvt checks against the source type.
    assert_eq!(
        eval_on_error("cvt.rn.f16.f32", t, &[0x1_0000_0000]),
        "operand 1 of cvt.rn.f16.f32 is 0x100000000, wider than its type .f32 (32 bits)"
    );
    assert!(instr("cvt.rn.f16.f32").eval_on(t, &[0xFFFF_FFFF]).is_ok());
    // The first of several wide operands is named; eval checks as eval_on does.
    assert_eq!(
        instr("ex2.approx.ftz.f32").eval(&[1 << 32]).unwrap_err().to_string(),
        "operand 1 of ex2.approx.ftz.f32 is 0x100000000, wider than its type .f32 (32 bits)"
    );
    // A 64-bit operand type admits every word.
    assert!(instr("mul.rn.f32x2").eval_on(sm(100), &[u64::MAX, u64::MAX]).is_ok());
}

#[test]
fn an_unknown_architecture_is_a_typed_error() {
    assert_eq!(Target::new(20), Err(TargetError::Unknown { sm: 20 }));
    assert_eq!("sm_20".parse::<Target>(), Err(TargetError::Unknown { sm: 20 }));
    assert_eq!("gfx90a".parse::<Target>(), Err(TargetError::Unparsable { text: "gfx90a".to_string() }));
    let message = Target::new(20).unwrap_err().to_string();
    assert!(message.starts_with("unknown architecture sm_20; known: sm_50 sm_52 "), "{message}");
    assert_eq!("sm_90a".parse::<Target>(), Target::with_variant(90, Variant::Arch));
    assert_eq!("sm_100f".parse::<Target>().map(|t| (t.sm(), t.variant())), Ok((100, Variant::Family)));
    assert_eq!("sm_89f".parse::<Target>(), Err(TargetError::NoVariant { sm: 89, variant: Variant::Family }));
}
