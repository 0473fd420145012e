//! The spellings of the tensor-core instructions (src/mma/spelling.rs) and the evaluation of a
//! tile (src/mma/tile.rs): PTX's own example spellings parse, every form prints a spelling that
//! parses back to it, illegal spellings are refused with the legal alternatives named, every
//! form has a datapath on every target that has it, and a tile is the dot product of each row
//! of A with each column of B, checked here with its own indexing.

mod common;

use common::mma::{codes, some_targets};
use common::Rng;
use ptxfp::mma::spelling::Dims;
use ptxfp::mma::{dmma_dot, forms, int_dot, popc_dot, BlockScales, Mma, MmaInstr, MmaType, Operation, Tile, TileError};
use ptxfp::ptx::{Evidence, Target, Variant, KNOWN_TARGETS};

/// Spellings from the examples and syntax blocks of PTX ISA 9.0 (§9.7.14.5.14, §9.7.14.4.5,
/// §9.7.15.5.2), written out by hand, and tcgen05.mma with its descriptor's fields appended.
const PTX_SPELLINGS: [&str; 24] = [
    "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16",
    "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m3.f32.ue8m0",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64.rn",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
    "mma.sync.aligned.m8n8k32.row.col.s32.u4.s4.s32",
    "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16",
    "wmma.mma.sync.aligned.m16n16k16.row.col.f32.f32",
    "wmma.mma.sync.aligned.row.row.m8n8k4.rz.f64.f64.f64.f64",
    "wmma.mma.xor.popc.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32",
    "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite",
    "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32",
    "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X.m256n256k64.f32.e2m1.e2m1.ue4m3",
];

#[test]
fn ptx_example_spellings_parse() {
    for s in PTX_SPELLINGS {
        let instr = MmaInstr::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        // The canonical spelling reads back as the same instruction.
        assert_eq!(MmaInstr::parse(&instr.to_string()), Ok(instr), "{s}");
    }
    let f64_rz = MmaInstr::parse("wmma.mma.sync.aligned.row.row.m8n8k4.rz.f64.f64.f64.f64").unwrap();
    assert_eq!(f64_rz.op, Operation::F64 { rnd: ptxfp::Rounding::Rz });
    let wgmma = MmaInstr::parse("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite").unwrap();
    assert!(matches!(wgmma.op, Operation::Int { satfinite: true, .. }));
    assert_eq!(
        MmaInstr::parse(PTX_SPELLINGS[10]).unwrap().to_string(),
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"
    );
}

fn values(d: Dims) -> Vec<u32> {
    (1..=512).filter(|&v| d.contains(v)).collect()
}

#[test]
fn every_form_reads_back_from_its_spelling_at_every_m_and_n() {
    let mut spellings = 0;
    for form in forms() {
        for m in values(form.ms) {
            for n in values(form.ns) {
                let instr = MmaInstr { shape: ptxfp::mma::Shape { m, n, ..form.instr.shape }, ..form.instr };
                let s = instr.to_string();
                assert_eq!(MmaInstr::parse(&s), Ok(instr), "{s}");
                assert!(std::ptr::eq(instr.form(), form), "{s}");
                spellings += 1;
            }
        }
        // An N just outside the set is refused.
        let n = values(form.ns).last().unwrap() + 8;
        let instr = MmaInstr { shape: ptxfp::mma::Shape { n, ..form.instr.shape }, ..form.instr };
        assert!(MmaInstr::parse(&instr.to_string()).is_err(), "{instr}");
    }
    // No two forms share a spelling.
    let mut patterns: Vec<String> = forms().iter().map(|f| f.pattern()).collect();
    patterns.sort();
    let before = patterns.len();
    patterns.dedup();
    assert_eq!(patterns.len(), before, "two forms print the same pattern");
    eprintln!("{} forms, {spellings} spellings", forms().len());
}

#[test]
fn illegal_spellings_name_the_problem_and_the_legal_alternatives() {
    for (s, wants) in [
        ("mma.sync.aligned.m16n8k12.row.col.f32.f16.f16.f32", &["no shape m16n8k12", "m16n8k16", "m8n8k4"][..]),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f16",
            &["does not take the types .f32.e4m3.e4m3.f16", ".f16.e4m3.e4m3.f16"],
        ),
        ("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32", &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"]),
        ("mma.sync.aligned.m16n8k32.row.col.f32.e2m1.e2m1.f32", &["kind::f8f6f4.f32.e2m1.e2m1.f32"]),
        ("mma.sync.aligned.m16n8k16.row.col.rz.f32.f16.f16.f32", &[".rz applies to the f64 forms only"]),
        ("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32", &["s8/u8/s4/u4 forms only"]),
        (
            "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
            &["scale_vec::2X or ::4X"],
        ),
        (
            "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
            &["not a legal form", "kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"],
        ),
        ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16", &[".dtype.atype.btype.ctype"]),
        ("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32", &[".xor.popc or .and.popc"]),
        ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.bogus", &["unknown qualifier .bogus", ".row/.col"]),
        ("mma.sync.m16n8k16.row.col.f32.f16.f16.f32", &["begin with mma.sync.aligned"]),
        ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", &["sparse", "not evaluated"]),
        (
            "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32",
            &["does not take the types .s32.s8.u8.s32", ".s32.s8.s8.s32"],
        ),
        ("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16", &["no shape m64n12k16", "m64nNk16 (N=8..256/8)"]),
        ("wgmma.mma_async.sync.aligned.m64n64k16.f16.bf16.bf16", &[".f32.bf16.bf16"]),
        ("tcgen05.mma.kind::f16.m128n256k16.f32.f16.f16", &["cta_group::1/2 is required"]),
        ("tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.e4m3.e4m3", &["kind::f16 does not match the types"]),
        (
            "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.m64n256k64.f32.e2m1.e2m1.ue8m0",
            &["no shape m64n256k64", "M=64,128"],
        ),
        (
            "tcgen05.mma.cta_group::2.kind::i8.m128n48k32.s32.s8.s8",
            &["not a legal form", "tcgen05.mma.cta_group::1.kind::i8.m128n48k32.s32.s8.s8"],
        ),
        ("add.rn.f32", &["not a tensor-core instruction"]),
    ] {
        let e = MmaInstr::parse(s).expect_err(s).to_string();
        for want in wants {
            assert!(e.contains(want), "{s}: {e}\n  lacks {want:?}");
        }
    }
}

#[test]
fn every_form_has_a_datapath_on_every_target_that_has_it_and_is_refused_elsewhere() {
    for form in forms() {
        for &t in &KNOWN_TARGETS {
            match Mma::new(form.instr, t) {
                Ok(_) => assert!(form.targets.contains(t), "{} on {t}", form.instr),
                Err(e) => {
                    assert!(!form.targets.contains(t), "{} on {t}: {e}", form.instr);
                    let required = form.targets.requirement().to_string();
                    assert!(e.to_string().contains(&required), "{e}");
                }
            }
        }
        assert!(!form.targets.is_empty(), "{}", form.instr);
    }
    // The lowest targets as PTX states them.
    let lowest = |s: &str| MmaInstr::parse(s).unwrap().form().targets.requirement().to_string();
    assert_eq!(lowest(PTX_SPELLINGS[0]), "sm_70 or newer");
    assert_eq!(lowest(PTX_SPELLINGS[6]), "sm_89 or newer");
    assert_eq!(lowest(PTX_SPELLINGS[13]), "sm_90 or newer");
    assert_eq!(lowest(PTX_SPELLINGS[21]), "sm_90a");
    assert!(lowest(PTX_SPELLINGS[8]).starts_with("sm_120f"), "{}", lowest(PTX_SPELLINGS[8]));
    assert_eq!(lowest(PTX_SPELLINGS[11]), "sm_120a or sm_121a");
    assert!(lowest(PTX_SPELLINGS[23]).contains("sm_100a"));
}

#[test]
fn evidence_follows_the_hardware_data() {
    let on = |s: &str, sm, v| {
        Mma::new(MmaInstr::parse(s).unwrap(), Target::with_variant(sm, v).unwrap()).unwrap().evidence()
    };
    use Variant::{Arch, Base};
    let f16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
    assert_eq!(on(f16, 80, Base), Evidence::HardwareVerified);
    let fp8 = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32";
    assert_eq!(on(fp8, 100, Base), Evidence::NoModelFits, "B200 mma.sync FP8 -> f32");
    assert_eq!(on(fp8, 90, Base), Evidence::Model, "no H100 mma.sync FP8 data");
    let wgmma_f16 = "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3";
    assert_eq!(on(wgmma_f16, 90, Arch), Evidence::NoModelFits, "H100 FP8 -> f16");
    assert_eq!(on("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 80, Base), Evidence::Documented);
}

/// One element of D computed from the definitions, with this test's own indexing of the
/// row-major A (m×k), B (k×n), C (m×n) and the scales (m×vec, vec×n).
fn element(mma: &Mma, t: &Tile<'_>, i: usize, j: usize) -> u64 {
    let s = mma.instr().shape;
    let (n, k) = (s.n as usize, s.k as usize);
    let a: Vec<u64> = (0..k).map(|kk| t.a[i * k + kk]).collect();
    let b: Vec<u64> = (0..k).map(|kk| t.b[kk * n + j]).collect();
    let c = t.c.map_or(0, |c| c[i * n + j]);
    let (a32, b32): (Vec<u32>, Vec<u32>) =
        (a.iter().map(|&x| x as u32).collect(), b.iter().map(|&x| x as u32).collect());
    match mma.instr().op {
        Operation::F64 { rnd } => dmma_dot(&a, &b, c, rnd),
        Operation::Int { a: ta, b: tb, satfinite } => u64::from(int_dot(ta, &a32, tb, &b32, c as u32, satfinite)),
        Operation::Bits { op } => u64::from(popc_dot(op, &a32, &b32, c as u32)),
        Operation::Float { a: ta, b: tb, c: tc, d: td, .. } => {
            let fdpa = mma.fdpa().unwrap();
            // An f16 C of an f32 D enters the first block as an f16 (MMA-Sim decodes C in its type).
            let tc_in = if tc == MmaType::F16 && td == MmaType::F32 { MmaType::F16 } else { fdpa.rho.output() };
            let d = fdpa.dot_with_c(ta, &a32, tb, &b32, tc_in, c as u32, None);
            if tc == MmaType::F32 && td == MmaType::F16 {
                let x = f32::from_bits(d);
                if x.is_nan() {
                    0x7FFF
                } else {
                    u64::from(half::f16::from_f32(x).to_bits())
                }
            } else {
                u64::from(d)
            }
        }
        Operation::BlockScaled { a: ta, b: tb, scale, vec, .. } => {
            let (sa, sb) = t.scales.unwrap();
            let v = vec as usize;
            let row: Vec<u32> = (0..v).map(|x| sa[i * v + x] as u32).collect();
            let col: Vec<u32> = (0..v).map(|x| sb[x * n + j] as u32).collect();
            let scales = BlockScales { ty: scale, a: &row, b: &col, block: k / v };
            u64::from(mma.fdpa().unwrap().dot(ta, &a32, tb, &b32, c as u32, Some(scales)))
        }
    }
}

#[test]
fn a_tile_is_every_row_of_a_with_every_column_of_b() {
    let mut rng = Rng::new(0x7117);
    let mut checked = 0;
    for form in forms() {
        // One M and N of each form (the smallest), on one target of each generation.
        for target in some_targets(form) {
            let mma = Mma::new(form.instr, target).unwrap();
            let s = form.instr.shape;
            let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
            let [ta, tb, tc, _] = mma.operand_types();
            let a = codes(&mut rng, ta.1, m * k);
            let b = codes(&mut rng, tb.1, k * n);
            let c = codes(&mut rng, tc.1, m * n);
            let scales = mma.scale_vec().map(|v| {
                let st = mma.scale_type().unwrap().1;
                (codes(&mut rng, st, m * v as usize), codes(&mut rng, st, v as usize * n))
            });
            let with_c = rng.coin();
            let tile = Tile {
                a: &a,
                b: &b,
                c: with_c.then_some(&c[..]),
                scales: scales.as_ref().map(|(x, y)| (&x[..], &y[..])),
            };
            let mut d = vec![0u64; m * n];
            mma.tile(tile, &mut d).unwrap();
            // Every element of small tiles, a sample of the large ones.
            for _ in 0..(m * n).min(64) {
                let (i, j) = (rng.below(m as u64) as usize, rng.below(n as u64) as usize);
                assert_eq!(d[i * n + j], element(&mma, &tile, i, j), "{} on {target}: D[{i}][{j}]", form.instr);
            }
            checked += 1;
        }
    }
    eprintln!("{checked} (form, generation) tiles");
}

#[test]
fn a_tile_on_volta_and_on_hopper_keeps_what_each_generation_keeps() {
    // MMA-Sim's table 8 through the tile: row 0 of A against column 0 of B, C[0][0] = −0.125.
    let f16 = |x: f32| u64::from(half::f16::from_f32(x).to_bits());
    let s = "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32";
    let instr = MmaInstr::parse(s).unwrap();
    let mut a = vec![0u64; 8 * 4];
    let mut b = vec![0u64; 4 * 8];
    for (kk, (x, y)) in [(4096.0, 2048.0), (-4096.0, 2048.0), (-0.5, 1.0), (-0.25, 1.0)].into_iter().enumerate() {
        a[kk] = f16(x);
        b[kk * 8] = f16(y);
    }
    let mut c = vec![0u64; 64];
    c[0] = u64::from((-0.125f32).to_bits());
    // sm_75 runs m8n8k4 on Volta's datapath (MMA-Sim 2.1.1), not on its own (F = 24: −0.5).
    for (sm, want) in [(70, 0.0f32), (75, 0.0), (80, -0.5), (90, -0.75)] {
        let mma = Mma::new(instr, Target::new(sm).unwrap()).unwrap();
        let mut d = vec![0u64; 64];
        mma.tile(Tile { a: &a, b: &b, c: Some(&c), scales: None }, &mut d).unwrap();
        assert_eq!(f32::from_bits(d[0] as u32), want, "sm_{sm}");
        assert_eq!(d[1], 0, "sm_{sm}: D[0][1] has no products and C = +0");
    }
}

#[test]
fn bad_tiles_are_refused_and_d_is_left_alone() {
    let instr = MmaInstr::parse("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32").unwrap();
    let mma = Mma::new(instr, Target::with_variant(120, Variant::Arch).unwrap()).unwrap();
    let (a, b) = (vec![0u64; 16 * 32], vec![0u64; 32 * 8]);
    let mut d = vec![7u64; 16 * 8];
    let err = |t: Tile<'_>, d: &mut [u64]| mma.tile(t, d).unwrap_err();
    let short = err(Tile { a: &a[1..], b: &b, c: None, scales: None }, &mut d);
    assert!(matches!(short, TileError::Len { operand: "A", expected: 512, got: 511, .. }), "{short}");
    let mut wide = a.clone();
    wide[5] = 0x10;
    let code = err(Tile { a: &wide, b: &b, c: None, scales: None }, &mut d);
    assert!(code.to_string().contains("element 5 of A is 0x10, not a e2m1 code (4 bits)"), "{code}");
    let mut b6 = b.clone();
    b6[3] = 0x40;
    let code = err(Tile { a: &a, b: &b6, c: None, scales: None }, &mut d);
    assert!(code.to_string().contains("e3m2 code (6 bits)"), "{code}");
    let scales = err(Tile { a: &a, b: &b, c: None, scales: Some((&a, &b)) }, &mut d);
    assert!(matches!(scales, TileError::UnexpectedScales { .. }), "{scales}");
    assert!(d.iter().all(|&x| x == 7), "D written on an error");
    let scaled =
        MmaInstr::parse("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0").unwrap();
    let scaled = Mma::new(scaled, Target::with_variant(120, Variant::Arch).unwrap()).unwrap();
    let (a, b) = (vec![0u64; 16 * 64], vec![0u64; 64 * 8]);
    let missing = scaled.tile(Tile { a: &a, b: &b, c: None, scales: None }, &mut d).unwrap_err();
    assert!(matches!(missing, TileError::MissingScales { .. }), "{missing}");
    // scale_A is m×2, scale_B 2×n.
    let (sa, sb) = (vec![127u64; 32], vec![127u64; 15]);
    let bad = scaled.tile(Tile { a: &a, b: &b, c: None, scales: Some((&sa, &sb)) }, &mut d).unwrap_err();
    assert!(bad.to_string().contains("scale_B has 15 elements"), "{bad}");
}
