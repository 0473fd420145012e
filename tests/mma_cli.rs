//! `ptxfp mma` and `ptxfp gemm` as a user drives them: stacks of tiles in `.npy` and raw files,
//! whole matrices, D checked against the library's tile and product evaluation, and every kind
//! of bad input refused with nothing written.

use std::path::Path;
use std::process::{Command, Output};

use ptxfp::io::{npy_header_shaped, Dtype, Shape};
use ptxfp::mma::{Dims, Gemm, Matrices, Mma, MmaInstr, Tile};
use ptxfp::ptx::Target;

fn ptxfp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxfp")).args(args).output().expect("run ptxfp")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn write_npy(path: &Path, dtype: Dtype, shape: &[u64], words: &[u64]) {
    let mut bytes = npy_header_shaped(dtype, &Shape(shape.to_vec()));
    let width = (dtype.bits() / 8) as usize;
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes()[..width]);
    }
    std::fs::write(path, bytes).unwrap();
}

/// The data words of an `.npy` file ptxfp wrote, after checking its header.
fn read_npy(path: &Path, dtype: Dtype, shape: &[u64]) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap();
    let header = npy_header_shaped(dtype, &Shape(shape.to_vec()));
    assert_eq!(&bytes[..header.len()], &header[..], "{}: header", path.display());
    let width = (dtype.bits() / 8) as usize;
    bytes[header.len()..]
        .chunks_exact(width)
        .map(|c| {
            let mut le = [0u8; 8];
            le[..width].copy_from_slice(c);
            u64::from_le_bytes(le)
        })
        .collect()
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

#[test]
fn mma_evaluates_stacks_of_tiles_from_npy_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let spelling = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
    // Two by three tiles; bf16 as uint16 codes, C as float32.
    let mut seed = 1;
    let a: Vec<u64> = (0..6 * 16 * 16).map(|_| lcg(&mut seed) & 0xFFFF).collect();
    let b: Vec<u64> = (0..6 * 16 * 8).map(|_| lcg(&mut seed) & 0xFFFF).collect();
    let c: Vec<u64> = (0..6 * 16 * 8).map(|_| lcg(&mut seed) & 0xFFFF_FFFF).collect();
    write_npy(&p("a.npy"), Dtype::Uint16, &[2, 3, 16, 16], &a);
    write_npy(&p("b.npy"), Dtype::Uint16, &[2, 3, 16, 8], &b);
    write_npy(&p("c.npy"), Dtype::Float32, &[2, 3, 16, 8], &c);
    let (pa, pb, pc, pd) = (p("a.npy"), p("b.npy"), p("c.npy"), p("d.npy"));
    let args = ["mma", spelling, "--arch", "sm_80", "--a", pa.to_str().unwrap(), "--b", pb.to_str().unwrap()];
    let o = ptxfp(&[&args[..], &["--c", pc.to_str().unwrap(), "--out", pd.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o)
            .contains("6 tiles of mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 on sm_80 (hardware-verified)"),
        "{}",
        text(&o)
    );
    let d = read_npy(&pd, Dtype::Float32, &[2, 3, 16, 8]);
    let mma = Mma::new(MmaInstr::parse(spelling).unwrap(), Target::new(80).unwrap()).unwrap();
    for t in 0..6 {
        let mut want = vec![0u64; 128];
        let tile =
            Tile { a: &a[t * 256..][..256], b: &b[t * 128..][..128], c: Some(&c[t * 128..][..128]), scales: None };
        mma.tile(tile, &mut want).unwrap();
        assert_eq!(&d[t * 128..][..128], &want[..], "tile {t}");
    }
    // Raw files of container words, no C: D is raw too, one tile after another.
    let raw = |name: &str, words: &[u64], width: usize| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()[..width].to_vec()).collect();
        std::fs::write(p(name), bytes).unwrap();
    };
    raw("a.bin", &a, 2);
    raw("b.bin", &b, 2);
    let (ra, rb, rd) = (p("a.bin"), p("b.bin"), p("d.bin"));
    let o = ptxfp(&[
        "mma",
        spelling,
        "--arch",
        "sm_80",
        "--a",
        ra.to_str().unwrap(),
        "--b",
        rb.to_str().unwrap(),
        "--out",
        rd.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let d = std::fs::read(&rd).unwrap();
    assert_eq!(d.len(), 6 * 128 * 4);
    let mut want = vec![0u64; 128];
    mma.tile(Tile { a: &a[..256], b: &b[..128], c: None, scales: None }, &mut want).unwrap();
    let got: Vec<u64> =
        d[..512].chunks_exact(4).map(|c| u64::from(u32::from_le_bytes(c.try_into().unwrap()))).collect();
    assert_eq!(got, want);
}

#[test]
fn mma_reads_signed_values_and_block_scales() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // s4 from int8 values: all −8 against all 7 over k = 32 gives −1792; C as int32.
    let s = "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32";
    write_npy(Path::new(&p("a.npy")), Dtype::Int8, &[8, 32], &vec![0xF8; 256]);
    write_npy(Path::new(&p("b.npy")), Dtype::Int8, &[32, 8], &vec![7; 256]);
    write_npy(Path::new(&p("c.npy")), Dtype::Int32, &[8, 8], &vec![0xFFFF_FFFF; 64]);
    let o = ptxfp(&[
        "mma",
        s,
        "--arch",
        "sm_75",
        "--a",
        &p("a.npy"),
        "--b",
        &p("b.npy"),
        "--c",
        &p("c.npy"),
        "--out",
        &p("d.npy"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let d = read_npy(Path::new(&p("d.npy")), Dtype::Int32, &[8, 8]);
    assert!(d.iter().all(|&x| x as u32 == (-1793i32) as u32), "{d:?}");
    // A value outside s4 is refused by value and position.
    write_npy(Path::new(&p("a.npy")), Dtype::Int8, &[8, 32], &[vec![0xF8; 9], vec![8], vec![0; 246]].concat());
    let o = ptxfp(&["mma", s, "--arch", "sm_75", "--a", &p("a.npy"), "--b", &p("b.npy"), "--out", &p("e.npy")]);
    assert!(!o.status.success());
    assert!(text(&o).contains("element 9 of operand A is 8, outside the s4 range -8..=7"), "{}", text(&o));
    assert!(!Path::new(&p("e.npy")).exists());
    // mxf4 on sm_120a: 1.0 · 1.0 over k = 64 under scales 2^1 · 2^-1 (ue8m0 128 and 126) is 64.
    let s = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0";
    write_npy(Path::new(&p("a.npy")), Dtype::Uint8, &[16, 64], &vec![0x2; 1024]);
    write_npy(Path::new(&p("b.npy")), Dtype::Uint8, &[64, 8], &vec![0x2; 512]);
    write_npy(Path::new(&p("sa.npy")), Dtype::Uint8, &[16, 2], &[128; 32]);
    write_npy(Path::new(&p("sb.npy")), Dtype::Uint8, &[2, 8], &[126; 16]);
    let args = ["mma", s, "--arch", "sm_120a", "--a", &p("a.npy"), "--b", &p("b.npy"), "--out", &p("d.npy")];
    let o = ptxfp(&[&args[..], &["--scale-a", &p("sa.npy"), "--scale-b", &p("sb.npy")]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let d = read_npy(Path::new(&p("d.npy")), Dtype::Float32, &[16, 8]);
    assert!(d.iter().all(|&x| f32::from_bits(x as u32) == 64.0), "{:?}", &d[..4]);
    let o = ptxfp(&args);
    assert!(!o.status.success() && text(&o).contains("give scale_A and scale_B"), "{}", text(&o));
}

#[test]
fn mma_refuses_bad_input_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let s = "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16";
    write_npy(Path::new(&p("a.npy")), Dtype::Float16, &[4, 16, 8], &vec![0x3C00; 512]);
    write_npy(Path::new(&p("b.npy")), Dtype::Float16, &[4, 8, 8], &vec![0x3C00; 256]);
    write_npy(Path::new(&p("b3.npy")), Dtype::Float16, &[3, 8, 8], &vec![0x3C00; 192]);
    write_npy(Path::new(&p("bt.npy")), Dtype::Float16, &[4, 8, 16], &vec![0x3C00; 512]);
    write_npy(Path::new(&p("bf.npy")), Dtype::Float32, &[4, 8, 8], &vec![0; 256]);
    std::fs::write(p("short.npy"), &npy_header_shaped(Dtype::Float16, &Shape(vec![4, 8, 8]))[..]).unwrap();
    let run = |b: &str, arch: &str| {
        ptxfp(&["mma", s, "--arch", arch, "--a", &p("a.npy"), "--b", &p(b), "--out", &p("d.npy")])
    };
    for (b, arch, want) in [
        ("b3.npy", "sm_80", "holds 3 tiles but"),
        ("bt.npy", "sm_80", "has shape (4, 8, 16) but operand B must have shape (…, 8, 8)"),
        ("bf.npy", "sm_80", "holds float32 but operand B is f16; use uint16 or float16"),
        ("short.npy", "sm_80", "truncated .npy"),
        ("missing.npy", "sm_80", "cannot open"),
        ("b.npy", "sm_70", "requires sm_75 or newer; the target is sm_70 (choose it with --arch)"),
    ] {
        let o = run(b, arch);
        assert_eq!(o.status.code(), Some(1), "{b}: {}", text(&o));
        assert!(text(&o).contains(want), "{b}: {}\n  lacks {want:?}", text(&o));
        assert!(!Path::new(&p("d.npy")).exists(), "{b}: output written");
    }
    // A spelling error is one line naming the alternatives; half the files is a usage error.
    let o = ptxfp(&["mma", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16", "--arch", "sm_80"]);
    assert!(!o.status.success() && text(&o).contains(".dtype.atype.btype.ctype"), "{}", text(&o));
    let o = ptxfp(&["mma", s, "--arch", "sm_80", "--a", &p("a.npy")]);
    assert!(!o.status.success() && text(&o).contains("give --a, --b and --out"), "{}", text(&o));
    // eval and run point to ptxfp mma.
    let o = ptxfp(&["eval", s, "1", "2", "3"]);
    assert!(
        !o.status.success() && text(&o).contains("tensor-core instruction, evaluated tile by tile: `ptxfp mma"),
        "{}",
        text(&o)
    );
    // Without files: the datapath, its evidence and targets.
    let o = ptxfp(&["mma", "wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e4m3", "--arch", "sm_90a"]);
    assert!(o.status.success(), "{}", text(&o));
    for want in ["blocks of 32 products", "RNE-f16", "evidence    no-model-fits", "targets     sm_90a"] {
        assert!(text(&o).contains(want), "{}\n  lacks {want:?}", text(&o));
    }
}

#[test]
fn mma_error_prints_and_writes_the_cancellation_table() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("e.json");
    let s = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32";
    let o = ptxfp(&["mma", s, "--arch", "sm_89", "--error", "1_700", "--seed", "3", "--json", json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("D against the exact sum, in ulps of D at the exact value; seed 3"), "{out}");
    // k = 32: 0 to 16 cancelling pairs, 100 cases each.
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), 17);
    assert!(rows.iter().all(|r| r["cases"] == 100), "{rows:?}");
    assert_eq!(out.lines().count(), 2 + 17, "{out}");
    let o = ptxfp(&["mma", "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", "--arch", "sm_80", "--error", "10"]);
    assert!(!o.status.success() && text(&o).contains("covers the floating-point forms"), "{}", text(&o));
}

#[test]
fn ops_lists_every_tensor_core_form_with_its_evidence_and_targets() {
    let o = ptxfp(&["ops", "mma"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = |start: &str| {
        out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start} not listed")).to_string()
    };
    let f16 = line("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ");
    assert!(f16.contains("hardware-verified (sm_80,sm_89,sm_90,sm_100,sm_120)") && f16.ends_with(" sm_80+"), "{f16}");
    let fp8 = line("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 ");
    assert!(fp8.contains("no-model-fits (sm_100)") && fp8.contains("model (sm_90,sm_120)"), "{fp8}");
    let wg = line("wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16[N=8..256/8] ");
    assert!(wg.ends_with(" sm_90a"), "{wg}");
    let tc = line("tcgen05.mma.cta_group::1.kind::tf32.mMnNk8.f32.tf32.tf32[M=64,128;N=8..256/8] ");
    assert!(tc.contains(" sm_100f,sm_110f"), "{tc}");
    let dmma = line("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64.rz ");
    assert!(dmma.contains("documented (sm_90,sm_100,sm_120)") && dmma.ends_with(" sm_90+"), "{dmma}");
    assert_eq!(out.lines().filter(|l| l.contains(" tile ")).count(), ptxfp::mma::forms().len());
}

#[test]
fn gemm_multiplies_npy_matrices_with_promotion() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let spelling = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3";
    let (m, n, k) = (70, 9, 100);
    let mut seed = 7;
    // e4m3 codes without NaNs (0x7F, 0xFF), C as float32.
    let a: Vec<u64> = (0..m * k).map(|_| (lcg(&mut seed) % 0x7F) | ((lcg(&mut seed) & 1) << 7)).collect();
    let b: Vec<u64> = (0..k * n).map(|_| lcg(&mut seed) % 0x7F).collect();
    let c: Vec<u64> = (0..m * n).map(|i| 0x3F80_0000 + i as u64).collect();
    write_npy(Path::new(&p("a.npy")), Dtype::Uint8, &[m as u64, k as u64], &a);
    write_npy(Path::new(&p("b.npy")), Dtype::Uint8, &[k as u64, n as u64], &b);
    write_npy(Path::new(&p("c.npy")), Dtype::Float32, &[m as u64, n as u64], &c);
    let run = |extra: &[&str]| {
        let args = ["gemm", spelling, "--arch", "sm_90a", "--a", &p("a.npy"), "--b", &p("b.npy"), "--c", &p("c.npy")];
        ptxfp(&[&args[..], extra].concat())
    };
    let mma = Mma::new(MmaInstr::parse(spelling).unwrap(), "sm_90a".parse::<Target>().unwrap()).unwrap();
    let dims = Dims { m, n, k };
    for promote in [None, Some("64")] {
        let out = p("d.npy");
        let o = match promote {
            None => run(&["--out", &out, "-q"]),
            Some(every) => run(&["--out", &out, "-q", "--promote-every", every]),
        };
        assert!(o.status.success(), "{}", text(&o));
        assert!(text(&o).contains(&format!("70×9×100 with {spelling} on sm_90a (hardware-verified)")), "{}", text(&o));
        let gemm = Gemm::new(mma, promote.map(|e| e.parse().unwrap())).unwrap();
        let mut want = vec![0u64; m * n];
        gemm.run(dims, Matrices { a: &a, b: &b, c: Some(&c), scales: None }, &mut want).unwrap();
        assert_eq!(read_npy(Path::new(&out), Dtype::Float32, &[m as u64, n as u64]), want, "promotion {promote:?}");
    }
    // Bad input: nothing written, the problem named.
    let out = p("never.npy");
    let refused = |o: Output, needle: &str| {
        assert!(!o.status.success() && text(&o).contains(needle), "{needle}: {}", text(&o));
        assert!(!Path::new(&out).exists());
    };
    refused(run(&["--out", &out, "--promote-every", "48"]), "not a positive multiple of");
    write_npy(Path::new(&p("b_short.npy")), Dtype::Uint8, &[99, n as u64], &b[..99 * n]);
    let o = ptxfp(&["gemm", spelling, "--arch", "sm_90a", "--a", &p("a.npy"), "--b", &p("b_short.npy"), "--out", &out]);
    refused(o, "has shape (99, 9) but operand B of the product must have shape (100, N)");
    std::fs::write(p("raw.bin"), vec![0u8; m * k]).unwrap();
    let o = ptxfp(&["gemm", spelling, "--arch", "sm_90a", "--a", &p("raw.bin"), "--b", &p("b.npy"), "--out", &out]);
    refused(o, "is raw words, but operand A of a product is an .npy matrix of shape (M, K)");
    let o = ptxfp(&["gemm", spelling, "--arch", "sm_90a", "--a", &p("c.npy"), "--b", &p("b.npy"), "--out", &out]);
    refused(o, "float32");
    let o = ptxfp(&["gemm", spelling, "--arch", "sm_90", "--a", &p("a.npy"), "--b", &p("b.npy"), "--out", &out]);
    refused(o, "sm_90a");
    let f16_c = "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16";
    let o = ptxfp(&["gemm", f16_c, "--arch", "sm_70", "--a", &p("a.npy"), "--b", &p("b.npy"), "--out", &out]);
    refused(o, "C and D need one type");
}
