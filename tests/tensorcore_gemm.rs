//! The matrix product (`ptxfp::mma::Gemm`) against the instruction chained by hand: tiles of
//! the row-major tile call (`Mma::tile`), the operands padded to whole tiles as a kernel pads
//! them, D of each k-step the next one's C, and promotion written with the host's f32 addition.
//! Every form, on a target of each generation, with M, N and K that cross tile boundaries;
//! the SIMD lanes of the floating-point forms at every level the processor has, on finite
//! operands; every thread count gives the same bits; bad operands are refused and D left alone.

mod common;

use common::mma::{codes, finite_codes, some_targets};
use common::Rng;
use ptxfp::mma::{forms, Dims, Gemm, GemmError, Matrices, Mma, MmaInstr, Tile, TileError};
use ptxfp::ptx::Target;
use ptxfp::SimdLevel;

/// Rows `r0..r0+rows`, columns `c0..c0+cols` of a row-major matrix with `width` columns and
/// `height` rows, zero outside it (`fill` outside it for the scales).
fn window(
    x: &[u64],
    height: usize,
    width: usize,
    (r0, rows): (usize, usize),
    (c0, cols): (usize, usize),
    fill: u64,
) -> Vec<u64> {
    let mut out = vec![fill; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            if r0 + r < height && c0 + c < width {
                out[r * cols + c] = x[(r0 + r) * width + c0 + c];
            }
        }
    }
    out
}

/// host `add.rn.f32`: IEEE addition to nearest, NVIDIA's canonical NaN for a NaN.
fn add_f32(a: u64, b: u64) -> u64 {
    let s = f32::from_bits(a as u32) + f32::from_bits(b as u32);
    if s.is_nan() {
        0x7FFF_FFFF
    } else {
        u64::from(s.to_bits())
    }
}

/// The product chained by hand through whole tiles.
fn by_hand(mma: &Mma, promote: Option<usize>, d: Dims, x: Matrices<'_>) -> Vec<u64> {
    let s = mma.instr().shape;
    let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
    let vec = mma.scale_vec().map_or(0, |v| v as usize);
    let scale_cols = k.checked_div(vec).map_or(0, |per| d.k.div_ceil(per));
    let mut out = vec![0u64; d.m * d.n];
    for i0 in (0..d.m).step_by(m) {
        for j0 in (0..d.n).step_by(n) {
            let c = x.c.map(|c| window(c, d.m, d.n, (i0, m), (j0, n), 0)).unwrap_or_else(|| vec![0; m * n]);
            let (mut acc, mut promoted) = (c.clone(), c);
            for k0 in (0..d.k).step_by(k) {
                if promote.is_some_and(|p| k0 % p == 0) {
                    acc.fill(0);
                }
                let a = window(x.a, d.m, d.k, (i0, m), (k0, k), 0);
                let b = window(x.b, d.k, d.n, (k0, k), (j0, n), 0);
                let scales = x.scales.map(|(sa, sb)| {
                    let first = k0 / (k / vec);
                    (
                        window(sa, d.m, scale_cols, (i0, m), (first, vec), 0),
                        window(sb, scale_cols, d.n, (first, vec), (j0, n), 0),
                    )
                });
                let mut next = vec![0u64; m * n];
                let tile = Tile { a: &a, b: &b, c: Some(&acc), scales: scales.as_ref().map(|(x, y)| (&x[..], &y[..])) };
                mma.tile(tile, &mut next).unwrap();
                acc = next;
                let end = (k0 + k).min(d.k);
                if promote.is_some_and(|p| end % p == 0 || end == d.k) {
                    for (p, &a) in promoted.iter_mut().zip(&acc) {
                        *p = add_f32(*p, a);
                    }
                }
            }
            let result = if promote.is_some() { promoted } else { acc };
            for i in 0..m.min(d.m - i0) {
                for j in 0..n.min(d.n - j0) {
                    out[(i0 + i) * d.n + j0 + j] = result[i * n + j];
                }
            }
        }
    }
    out
}

/// Random operands of a product of `dims` with `mma`'s element types.
struct Operands {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Option<Vec<u64>>,
    scales: Option<(Vec<u64>, Vec<u64>)>,
}

impl Operands {
    fn random(rng: &mut Rng, gemm: &Gemm, d: Dims) -> Operands {
        let mma = gemm.mma();
        let [ta, tb, tc, _] = mma.operand_types();
        let scales = gemm.scale_columns(d.k).map(|cols| {
            let st = mma.scale_type().unwrap().1;
            (codes(rng, st, d.m * cols), codes(rng, st, cols * d.n))
        });
        Operands {
            a: codes(rng, ta.1, d.m * d.k),
            b: codes(rng, tb.1, d.k * d.n),
            c: rng.coin().then(|| codes(rng, tc.1, d.m * d.n)),
            scales,
        }
    }

    fn matrices(&self) -> Matrices<'_> {
        Matrices {
            a: &self.a,
            b: &self.b,
            c: self.c.as_deref(),
            scales: self.scales.as_ref().map(|(x, y)| (&x[..], &y[..])),
        }
    }
}

/// `out` is `expected`, or a panic naming the case and the first element of D that differs.
fn assert_same(out: &[u64], expected: &[u64], dims: Dims, case: impl Fn() -> String) {
    if let Some(i) = (0..out.len()).find(|&i| out[i] != expected[i]) {
        panic!("{}: D[{}][{}] = {:#x}, by hand {:#x}", case(), i / dims.n, i % dims.n, out[i], expected[i]);
    }
}

#[test]
fn every_form_is_its_tiles_chained_through_k() {
    let mut rng = Rng::new(0x6E11);
    let (mut products, mut promoted) = (0, 0);
    for form in forms() {
        let [_, _, (c, _), (d, _)] = Mma::new(form.instr, form.targets.iter().next().unwrap()).unwrap().operand_types();
        if c != d {
            continue; // refused, below
        }
        for target in some_targets(form) {
            let mma = Mma::new(form.instr, target).unwrap();
            let s = form.instr.shape;
            let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
            // Across a tile boundary in M and N where the tile is small, inside one where it is large.
            let dims = Dims {
                m: 1 + rng.below((if m > 16 { m } else { 2 * m }) as u64) as usize,
                n: 1 + rng.below((if n > 16 { n } else { 2 * n }) as u64) as usize,
                k: 1 + rng.below(3 * k as u64) as usize,
            };
            let promote = (d == "f32" && rng.coin()).then(|| k * (1 + rng.below(2) as usize));
            let gemm = Gemm::new(mma, promote).unwrap();
            let x = Operands::random(&mut rng, &gemm, dims);
            let mut out = vec![0u64; dims.m * dims.n];
            gemm.run(dims, x.matrices(), &mut out).unwrap();
            let expected = by_hand(&mma, promote, dims, x.matrices());
            assert_same(&out, &expected, dims, || {
                format!("{} on {target}, {dims:?}, promotion {promote:?}", form.instr)
            });
            products += dims.m * dims.n * dims.k;
            promoted += usize::from(promote.is_some());
        }
    }
    eprintln!("{products} products, {promoted} of them promoted");
}

#[test]
fn the_lanes_are_the_tiles_chained_at_every_level() {
    // Finite operands (NaNs and infinities leave the lanes for the scalar definition, which
    // the test above covers), wide and close exponents, at every SIMD level the processor has.
    let mut rng = Rng::new(0x1A4E);
    let levels: Vec<SimdLevel> = SimdLevel::ALL.into_iter().filter(|l| l.is_supported()).collect();
    let (mut forms_run, mut products) = (0, 0);
    for form in forms() {
        for target in some_targets(form) {
            let mma = Mma::new(form.instr, target).unwrap();
            let [ta, tb, tc, (d, _)] = mma.operand_types();
            let Ok(plain) = Gemm::new(mma, None) else { continue };
            if !plain.simd().1 {
                continue;
            }
            forms_run += 1;
            let s = form.instr.shape;
            let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
            for wide in [true, false] {
                let dims = Dims {
                    m: 1 + rng.below(m.min(24) as u64) as usize,
                    n: 1 + rng.below((2 * n).min(40) as u64) as usize,
                    k: 1 + rng.below(3 * k as u64) as usize,
                };
                let promote = (d == "f32" && rng.coin()).then(|| k * (1 + rng.below(2) as usize));
                let gemm = Gemm::new(mma, promote).unwrap();
                let a = finite_codes(&mut rng, ta.0, ta.1, dims.m * dims.k, wide);
                let b = finite_codes(&mut rng, tb.0, tb.1, dims.k * dims.n, wide);
                let c = rng.coin().then(|| finite_codes(&mut rng, tc.0, tc.1, dims.m * dims.n, wide));
                let x = Matrices { a: &a, b: &b, c: c.as_deref(), scales: None };
                let expected = by_hand(&mma, promote, dims, x);
                for &level in &levels {
                    let mut out = vec![0u64; dims.m * dims.n];
                    gemm.at_level(level).unwrap().run(dims, x, &mut out).unwrap();
                    assert_same(&out, &expected, dims, || {
                        format!("{} on {target} at {level}, {dims:?}, wide {wide}, promotion {promote:?}", form.instr)
                    });
                }
                products += dims.m * dims.n * dims.k;
            }
        }
    }
    assert!(forms_run > 50, "only {forms_run} (form, target) pairs take the lanes");
    eprintln!("{forms_run} (form, target) pairs, {products} products at each of {levels:?}");
}

fn spelling(s: &str, arch: &str) -> Mma {
    Mma::new(MmaInstr::parse(s).unwrap(), arch.parse::<Target>().unwrap()).unwrap()
}

#[test]
fn every_thread_count_gives_the_same_bits() {
    let mut rng = Rng::new(0x7EAD);
    for (s, arch, promote) in [
        ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_80", None),
        ("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3", "sm_90a", Some(64)),
        (
            "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
            "sm_120a",
            None,
        ),
    ] {
        let gemm = Gemm::new(spelling(s, arch), promote).unwrap();
        let dims = Dims { m: 37, n: 29, k: 3 * gemm.mma().instr().shape.k as usize + 5 };
        let x = Operands::random(&mut rng, &gemm, dims);
        let mut first = None;
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut out = vec![0u64; dims.m * dims.n];
            pool.install(|| gemm.run(dims, x.matrices(), &mut out)).unwrap();
            match &first {
                None => first = Some(out),
                Some(f) => assert!(f == &out, "{s}: {threads} threads"),
            }
        }
    }
}

#[test]
fn a_product_without_k_is_c() {
    let gemm = Gemm::new(spelling("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "sm_80"), None).unwrap();
    let c: Vec<u64> = (0..6).map(|i| 0x3F80_0000 + i).collect();
    let mut d = vec![0u64; 6];
    gemm.run(Dims { m: 2, n: 3, k: 0 }, Matrices { a: &[], b: &[], c: Some(&c), scales: None }, &mut d).unwrap();
    assert_eq!(d, c);
}

#[test]
fn promotion_adds_each_span_in_f32() {
    // e4m3 on Hopper wgmma keeps 13 fraction bits below the block's largest term (F = 13,
    // RZ-e8m13). Three spans of 32 k, each 1·1 + 2^-6·2^-7: alone a span is 1 + 2^-13, exact.
    // Chained, the third span's C is 2 + 2^-12 (exponent 1), so its 2^-13 falls below the
    // kept bits: 3 + 2^-12. Promoted every 32, f32 adds the three spans: 3 + 3·2^-13.
    let mma = spelling("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "sm_90a");
    let (one, two_m6, two_m7) = (0x38, 0x08, 0x04); // e4m3 1, 2^-6 and the subnormal 2^-7
    let dims = Dims { m: 1, n: 1, k: 96 };
    let (mut a, mut b) = (vec![0u64; 96], vec![0u64; 96]);
    for span in 0..3 {
        a[32 * span] = one;
        b[32 * span] = one;
        a[32 * span + 1] = two_m6;
        b[32 * span + 1] = two_m7;
    }
    let x = Matrices { a: &a, b: &b, c: None, scales: None };
    let (mut plain, mut promoted) = ([0u64], [0u64]);
    Gemm::new(mma, None).unwrap().run(dims, x, &mut plain).unwrap();
    Gemm::new(mma, Some(32)).unwrap().run(dims, x, &mut promoted).unwrap();
    assert_eq!(f32::from_bits(plain[0] as u32), 3.0 + 2f32.powi(-12), "chained in the tensor core");
    assert_eq!(f32::from_bits(promoted[0] as u32), 3.0 + 3.0 * 2f32.powi(-13), "promoted every 32");
}

#[test]
fn bad_products_are_refused_and_d_is_left_alone() {
    let f16_c = spelling("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16", "sm_70");
    let e = Gemm::new(f16_c, None).unwrap_err();
    assert!(matches!(e, GemmError::MixedAccumulator { .. }), "{e}");
    assert!(e.to_string().contains("C and D need one type"), "{e}");
    let bf16 = spelling("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_80");
    let e = Gemm::new(bf16, Some(24)).unwrap_err();
    assert!(e.to_string().contains("not a positive multiple of") && e.to_string().contains("k = 16"), "{e}");
    assert!(Gemm::new(bf16, Some(0)).is_err());
    let f16_d = spelling("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "sm_80");
    let e = Gemm::new(f16_d, Some(128)).unwrap_err();
    assert!(matches!(e, GemmError::PromoteType { d: "f16", .. }), "{e}");

    let gemm = Gemm::new(bf16, None).unwrap();
    let dims = Dims { m: 2, n: 3, k: 4 };
    let (a, b) = (vec![0x3F80u64; 8], vec![0x3F80u64; 12]);
    let mut d = vec![7u64; 6];
    let run = |x: Matrices<'_>, d: &mut Vec<u64>| gemm.run(dims, x, d);
    let e = run(Matrices { a: &a[..7], b: &b, c: None, scales: None }, &mut d).unwrap_err();
    assert!(e.to_string().contains("A has 7 elements") && e.to_string().contains("M×K = 2×4"), "{e}");
    let mut bad = b.clone();
    bad[5] = 0x1_0000;
    let e = run(Matrices { a: &a, b: &bad, c: None, scales: None }, &mut d).unwrap_err();
    assert!(matches!(e, GemmError::Operand(TileError::Code { operand: "B", index: 5, .. })), "{e}");
    let e = run(Matrices { a: &a, b: &b, c: None, scales: Some((&[], &[])) }, &mut d).unwrap_err();
    assert!(matches!(e, GemmError::Operand(TileError::UnexpectedScales { .. })), "{e}");
    let e = run(Matrices { a: &a, b: &b, c: Some(&[0; 5]), scales: None }, &mut d).unwrap_err();
    assert!(e.to_string().contains("C has 5 elements"), "{e}");
    let mut short = vec![7u64; 5];
    assert!(run(Matrices { a: &a, b: &b, c: None, scales: None }, &mut short).is_err());
    assert_eq!(d, vec![7u64; 6], "D untouched");
    assert_eq!(short, vec![7u64; 5], "D untouched");

    let nvf4 = spelling(
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
        "sm_120a",
    );
    let gemm = Gemm::new(nvf4, None).unwrap();
    assert_eq!(gemm.scale_columns(100), Some(7), "one scale per 16 k, ⌈100/16⌉");
    let dims = Dims { m: 1, n: 1, k: 100 };
    let (a, b) = (vec![0u64; 100], vec![0u64; 100]);
    let e = gemm.run(dims, Matrices { a: &a, b: &b, c: None, scales: None }, &mut d[..1]).unwrap_err();
    assert!(matches!(e, GemmError::Operand(TileError::MissingScales { .. })), "{e}");
    let e =
        gemm.run(dims, Matrices { a: &a, b: &b, c: None, scales: Some((&[0; 6], &[0; 7])) }, &mut d[..1]).unwrap_err();
    assert!(e.to_string().contains("scale_A has 6 elements") && e.to_string().contains("1×7"), "{e}");
}
