//! `ptxfp run`: operands from files (raw words and NumPy .npy), results equal to the scalar
//! evaluation element by element, streaming across block boundaries, and errors that leave no
//! output behind. The .npy fixtures are written byte by byte here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ptxfp::Instr;

mod tempdir;
use tempdir::TempDir;

fn ptxfp<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxfp")).args(args).output().expect("run ptxfp")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `ptxfp run <instr> --in … --out <out>`.
fn run(instr: &str, inputs: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<std::ffi::OsString> = vec!["run".into(), instr.into()];
    for input in inputs {
        args.push("--in".into());
        args.push(input.into());
    }
    args.push("--out".into());
    args.push(out.into());
    args.extend(extra.iter().map(Into::into));
    ptxfp(&args)
}

/// Little-endian words of `bytes` bytes each.
fn le_bytes(words: &[u64], bytes: usize) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()[..bytes].to_vec()).collect()
}

fn from_le_bytes(data: &[u8], bytes: usize) -> Vec<u64> {
    assert_eq!(data.len() % bytes, 0);
    data.chunks_exact(bytes)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..bytes].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// An .npy file: `major`.0 header with this dictionary text, padded to 64 bytes, then `data`.
fn npy_with_dict(major: u8, dict: &str, data: &[u8]) -> Vec<u8> {
    let len_bytes = if major == 1 { 2 } else { 4 };
    let mut header = dict.to_string();
    while !(8 + len_bytes + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    out.extend_from_slice(&(header.len() as u32).to_le_bytes()[..len_bytes]);
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn npy_dict(descr: &str, fortran: bool, shape: &str) -> String {
    let fortran = if fortran { "True" } else { "False" };
    format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
}

/// A 1-D version 1.0 .npy file of `words`.
fn npy(descr: &str, words: &[u64]) -> Vec<u8> {
    let bytes = descr[2..].parse::<usize>().unwrap();
    npy_with_dict(1, &npy_dict(descr, false, &format!("({},)", words.len())), &le_bytes(words, bytes))
}

/// Read an output file: its .npy descr (None for raw) and its words.
fn read_output(path: &Path, bytes: usize) -> (Option<String>, Vec<u64>) {
    let data = fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy")) {
        assert_eq!(&data[..8], b"\x93NUMPY\x01\x00");
        let header_len = u16::from_le_bytes([data[8], data[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0, "header not aligned");
        let header = std::str::from_utf8(&data[10..10 + header_len]).unwrap();
        assert!(header.ends_with('\n'));
        let descr = header.split("'descr': '").nth(1).unwrap().split('\'').next().unwrap().to_string();
        let words = from_le_bytes(&data[10 + header_len..], bytes);
        assert!(header.contains(&format!("'shape': ({},)", words.len())), "{header}");
        assert!(header.contains("'fortran_order': False"));
        (Some(descr), words)
    } else {
        (None, from_le_bytes(&data, bytes))
    }
}

/// Deterministic operands of `bits` bits: random words mixed with zeros, infinities, NaNs,
/// subnormals and ones of the element format (`elem` bits; packed words get them per half).
fn operands(seed: u64, n: usize, bits: u32, elem: u32) -> Vec<u64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (exp_bits, frac_bits) = match elem {
        // An 8-bit integer: any split gives zero, one, the top bit and their neighbours.
        8 => (4, 3),
        16 if seed & 1 == 0 => (5, 10),
        16 => (8, 7),
        32 => (8, 23),
        _ => (11, 52),
    };
    let one = ((1u64 << (exp_bits - 1)) - 1) << frac_bits;
    let inf = ((1u64 << exp_bits) - 1) << frac_bits;
    let sign = 1u64 << (elem - 1);
    let specials =
        [0, sign, inf, inf | sign, inf | 1, inf | (1 << (frac_bits - 1)), 1, sign | 3, one, one | sign, inf - 1];
    let elem_mask = if elem == 64 { u64::MAX } else { (1 << elem) - 1 };
    (0..n)
        .map(|_| {
            let mut word = 0;
            for lane in 0..bits / elem {
                let r = next();
                let e = if r % 4 == 0 { specials[(r >> 8) as usize % specials.len()] } else { next() & elem_mask };
                word |= e << (lane * elem);
            }
            word
        })
        .collect()
}

/// Expected results through the scalar definition.
fn expected(instr: &str, inputs: &[Vec<u64>]) -> Vec<u64> {
    let instr: Instr = instr.parse().unwrap();
    (0..inputs[0].len())
        .map(|i| {
            let ops: Vec<u64> = inputs.iter().map(|v| v[i]).collect();
            instr.eval(&ops).unwrap()
        })
        .collect()
}

/// Run `instr` on generated operands twice: all files raw, then all .npy (`in_descr`), the
/// .npy output checked to have `out_descr`; both outputs equal the scalar evaluation.
fn round_trip(instr: &str, n: usize, in_descr: &str, out_descr: &str) {
    let parsed: Instr = instr.parse().unwrap();
    let arity = *parsed.operand_counts().last().unwrap();
    let src = parsed.source_type(0);
    let (src_bits, elem) = (src.bits(), src.element_bits());
    let out_bytes = parsed.result_bits() as usize / 8;
    let inputs: Vec<Vec<u64>> = (0..arity).map(|k| operands(k as u64 + 7 * n as u64, n, src_bits, elem)).collect();
    let want = expected(instr, &inputs);
    let dir = TempDir::new("round-trip");
    let in_bytes = src_bits as usize / 8;
    let mut raw = Vec::new();
    let mut numpy = Vec::new();
    for (k, words) in inputs.iter().enumerate() {
        let r = dir.path(&format!("in{k}.bin"));
        fs::write(&r, le_bytes(words, in_bytes)).unwrap();
        raw.push(r);
        let p = dir.path(&format!("in{k}.npy"));
        fs::write(&p, npy(in_descr, words)).unwrap();
        numpy.push(p);
    }
    for (ins, out, descr) in [(&raw, "out.bin", None), (&numpy, "out.npy", Some(out_descr))] {
        let ins: Vec<&Path> = ins.iter().map(PathBuf::as_path).collect();
        let out = dir.path(out);
        // The newest architecture the form with this many operands needs (three-input min).
        let arch = format!("sm_{}", parsed.min_sm_with(arity).max(90));
        let o = run(instr, &ins, &out, &["--arch", &arch]);
        assert!(o.status.success(), "{instr}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "run prints nothing on stdout");
        let (got_descr, got) = read_output(&out, out_bytes);
        assert_eq!(got_descr.as_deref(), descr, "{instr}: output dtype");
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{instr} element {i}: operands {:x?}", inputs.iter().map(|v| v[i]).collect::<Vec<_>>());
        }
    }
}

#[test]
fn f32_add_raw_and_float32_npy() {
    round_trip("add.rn.f32", 10_000, "<f4", "<f4");
    round_trip("add.rz.ftz.f32", 1_000, "<u4", "<f4");
}

#[test]
fn f16_mul_float16_npy() {
    round_trip("mul.rn.f16", 10_000, "<f2", "<f2");
}

#[test]
fn bf16_as_uint16() {
    round_trip("fma.rn.bf16", 10_000, "<u2", "<u2");
    round_trip("add.rn.bf16", 1_000, "<u2", "<u2");
}

#[test]
fn f64_fma_float64_npy() {
    round_trip("fma.rn.f64", 10_000, "<f8", "<f8");
    round_trip("fma.rm.f64", 1_000, "<u8", "<f8");
}

#[test]
fn f16x2_as_uint32() {
    round_trip("add.rn.f16x2", 10_000, "<u4", "<u4");
    round_trip("fma.rn.relu.bf16x2", 1_000, "<u4", "<u4");
}

/// Integer operands and results in `.npy` files of NumPy's integer dtypes (and raw words):
/// `int8` … `uint64`, one-byte ones with NumPy's `|` byte order.
#[test]
fn integer_conversions_read_and_write_integer_dtypes() {
    round_trip("cvt.rzi.s32.f32", 10_000, "<f4", "<i4");
    round_trip("cvt.rni.sat.u8.f64", 1_000, "<f8", "|u1");
    round_trip("cvt.rmi.s8.bf16", 1_000, "<u2", "|i1");
    round_trip("cvt.rpi.u64.f16", 1_000, "<f2", "<u8");
    round_trip("cvt.rn.f32.s32", 10_000, "<i4", "<f4");
    round_trip("cvt.rm.bf16.s8", 1_000, "|i1", "<u2");
    round_trip("cvt.rp.f16.u64", 1_000, "<u8", "<f2");
    round_trip("cvt.rz.sat.f64.s16", 1_000, "<u2", "<f8");
}

#[test]
fn cvt_f32_to_f16_and_wider() {
    round_trip("cvt.rn.f16.f32", 10_000, "<f4", "<f2");
    round_trip("cvt.rn.f16x2.f32", 1_000, "<f4", "<u4");
    round_trip("cvt.f64.f32", 1_000, "<f4", "<f8");
    round_trip("cvt.rn.f32.f64", 1_000, "<f8", "<f4");
}

#[test]
fn testp_writes_a_uint_predicate() {
    round_trip("testp.notanumber.f32", 1_000, "<f4", "<u4");
    round_trip("testp.subnormal.f64", 1_000, "<f8", "<u8");
}

#[test]
fn three_operand_min_and_arch() {
    round_trip("min.NaN.f32", 1_000, "<f4", "<f4"); // the 3-input form
                                                    // The approximate instructions follow --arch: sm_52 lowers sin through RRO.
    let dir = TempDir::new("arch");
    let x: Vec<u64> = operands(3, 1_000, 32, 32);
    let a = dir.path("x.npy");
    fs::write(&a, npy("<f4", &x)).unwrap();
    let out = dir.path("d.bin");
    let o = run("sin.approx.f32", &[&a], &out, &["--arch", "sm_52"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let instr: Instr = "sin.approx.f32".parse().unwrap();
    let target = ptxfp::Target::new(52).unwrap();
    let want: Vec<u64> = x.iter().map(|&v| instr.eval_on(target, &[v]).unwrap()).collect();
    assert_eq!(read_output(&out, 4).1, want);
}

#[test]
fn npy_versions_shapes_and_mixed_containers() {
    let dir = TempDir::new("versions");
    let a: Vec<u64> = operands(1, 24, 32, 32);
    let b: Vec<u64> = operands(2, 24, 32, 32);
    let want = expected("sub.rp.f32", &[a.clone(), b.clone()]);
    let data = le_bytes(&a, 4);
    let cases = [
        npy_with_dict(2, &npy_dict("<f4", false, "(24,)"), &data),
        npy_with_dict(3, &npy_dict("<f4", false, "(2, 3, 4)"), &data),
        npy_with_dict(1, &npy_dict("<u4", false, "(4, 6)"), &data),
        // Fortran order with one dimension above 1 has the flat order of C.
        npy_with_dict(1, &npy_dict("<f4", true, "(1, 24)"), &data),
        npy_with_dict(1, "{'shape':(24L,),'fortran_order':False,\"descr\":\"<f4\"}", &data),
    ];
    let b_raw = dir.path("b.f32");
    fs::write(&b_raw, le_bytes(&b, 4)).unwrap();
    for (k, file) in cases.iter().enumerate() {
        let a_path = dir.path(&format!("a{k}.npy"));
        fs::write(&a_path, file).unwrap();
        let out = dir.path("d.NPY");
        let o = run("sub.rp.f32", &[&a_path, &b_raw], &out, &[]);
        assert!(o.status.success(), "case {k}: {}", stderr(&o));
        let (descr, got) = read_output(&out, 4);
        assert_eq!(descr.as_deref(), Some("<f4"), "case {k}");
        assert_eq!(got, want, "case {k}");
    }
    // A 0-d array is one element.
    let s = dir.path("s.npy");
    fs::write(&s, npy_with_dict(1, &npy_dict("<f4", false, "()"), &0x4040_0000u32.to_le_bytes())).unwrap();
    let out = dir.path("neg.npy");
    let o = run("neg.f32", &[&s], &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_output(&out, 4).1, [0xC040_0000]);
}

#[test]
fn empty_inputs_give_an_empty_output() {
    let dir = TempDir::new("empty");
    let a = dir.path("a.npy");
    fs::write(&a, npy("<f8", &[])).unwrap();
    let b = dir.path("b.bin");
    fs::write(&b, b"").unwrap();
    for out in ["d.npy", "d.bin"] {
        let out = dir.path(out);
        let o = run("add.rn.f64", &[&a, &b], &out, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(read_output(&out, 8).1.is_empty());
    }
}

#[test]
fn success_replaces_an_existing_output_and_may_overwrite_an_input() {
    let dir = TempDir::new("replace");
    let a: Vec<u64> = operands(5, 100, 32, 32);
    let path = dir.path("a.bin");
    fs::write(&path, le_bytes(&a, 4)).unwrap();
    let out = dir.path("d.bin");
    fs::write(&out, b"old contents").unwrap();
    let o = run("abs.f32", &[&path], &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_output(&out, 4).1, expected("abs.f32", std::slice::from_ref(&a)));
    // In place: the input is read completely before the result is renamed over it.
    let o = run("add.rn.f32", &[&path, &path], &path, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_output(&path, 4).1, expected("add.rn.f32", &[a.clone(), a]));
    assert_eq!(dir.names(), ["a.bin", "d.bin"], "no temporary file left");
}

/// More elements than one block (2^22), not a multiple of it: every element, and those around
/// the block boundary in particular, must equal the scalar evaluation.
#[test]
fn large_input_streams_across_blocks() {
    const N: usize = 5_000_003;
    let dir = TempDir::new("large");
    let a = operands(11, N, 32, 32);
    let b = operands(12, N, 32, 32);
    let c = operands(13, N, 32, 32);
    let (pa, pb, pc) = (dir.path("a.bin"), dir.path("b.npy"), dir.path("c.npy"));
    fs::write(&pa, le_bytes(&a, 4)).unwrap();
    fs::write(&pb, npy("<f4", &b)).unwrap();
    fs::write(&pc, npy("<u4", &c)).unwrap();
    let out = dir.path("d.npy");
    let o = run("fma.rn.f32", &[&pa, &pb, &pc], &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (descr, got) = read_output(&out, 4);
    assert_eq!(descr.as_deref(), Some("<f4"));
    assert_eq!(got.len(), N);
    let want = expected("fma.rn.f32", &[a, b, c]);
    let block = ptxfp::io::BLOCK;
    for i in [0, block - 1, block, block + 1, N - 1] {
        assert_eq!(got[i], want[i], "element {i} at the block boundary");
    }
    let bad = got.iter().zip(&want).position(|(g, w)| g != w);
    assert_eq!(bad, None, "first differing element");
}

/// One failing invocation: its arguments and the words its message must contain.
struct Failure {
    name: &'static str,
    instr: &'static str,
    inputs: Vec<PathBuf>,
    extra: Vec<&'static str>,
    message: Vec<String>,
}

/// Every error case, its files written into `dir`.
fn failures(dir: &TempDir) -> Vec<Failure> {
    let f32s = operands(21, 8, 32, 32);
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.path(name);
        fs::write(&p, bytes).unwrap();
        p
    };
    let good = write("good.npy", npy("<f4", &f32s));
    let good_raw = write("good.bin", le_bytes(&f32s, 4));
    let data = le_bytes(&f32s, 4);
    let header = |dict: &str| npy_with_dict(1, dict, &data);
    let f = |name: &'static str, instr: &'static str, inputs: Vec<PathBuf>, message: &[&str]| Failure {
        name,
        instr,
        inputs,
        extra: vec![],
        message: message.iter().map(|s| s.to_string()).collect(),
    };
    let mut cases = vec![
        f("missing file", "add.rn.f32", vec![good.clone(), dir.path("missing.bin")], &["cannot open", "missing.bin"]),
        f(
            "different lengths",
            "add.rn.f32",
            vec![good.clone(), write("short.bin", le_bytes(&f32s[..7], 4))],
            &["short.bin", "7 elements", "good.npy has 8"],
        ),
        f(
            "raw size not a multiple of the word",
            "add.rn.f32",
            vec![write("odd.bin", vec![0; 10]), good_raw.clone()],
            &["odd.bin", "10 bytes", "not a whole number of 32-bit words"],
        ),
        f(
            "npy shorter than its magic",
            "neg.f32",
            vec![write("tiny.npy", b"\x93NU".to_vec())],
            &["tiny.npy", "too short"],
        ),
        f(
            "bad magic",
            "neg.f32",
            vec![write("magic.npy", {
                let mut b = npy("<f4", &f32s);
                b[1] = b'X';
                b
            })],
            &["magic.npy", "bad magic"],
        ),
        f(
            "unsupported version",
            "neg.f32",
            vec![write("v4.npy", {
                let mut b = npy("<f4", &f32s);
                b[6] = 4;
                b
            })],
            &["v4.npy", "version 4.0"],
        ),
        f(
            "truncated header",
            "neg.f32",
            vec![write("trunc_header.npy", npy("<f4", &f32s)[..40].to_vec())],
            &["trunc_header.npy", "truncated header"],
        ),
        f(
            "unparsable header",
            "neg.f32",
            vec![write("garbled.npy", header("{'descr': '<f4', 'fortran_order': False, 'shape': (8,}"))],
            &["garbled.npy", "unparsable"],
        ),
        f(
            "header not a dict",
            "neg.f32",
            vec![write("notdict.npy", header("[1, 2, 3]"))],
            &["notdict.npy", "unparsable"],
        ),
        f(
            "header lacks shape",
            "neg.f32",
            vec![write("noshape.npy", header("{'descr': '<f4', 'fortran_order': False}"))],
            &["noshape.npy", "lacks 'shape'"],
        ),
        f(
            "truncated data",
            "neg.f32",
            vec![write("trunc_data.npy", {
                let b = npy("<f4", &f32s);
                b[..b.len() - 5].to_vec()
            })],
            &["trunc_data.npy", "truncated", "needs 32 data bytes but only 27"],
        ),
        f(
            "shape larger than the data",
            "neg.f32",
            vec![write("bigshape.npy", header(&npy_dict("<f4", false, "(3, 4)")))],
            &["bigshape.npy", "truncated"],
        ),
        f(
            "big-endian",
            "neg.f32",
            vec![write("big.npy", header(&npy_dict(">f4", false, "(8,)")))],
            &["big.npy", "big-endian", ">f4"],
        ),
        f(
            "Fortran order",
            "neg.f32",
            vec![write("fortran.npy", header(&npy_dict("<f4", true, "(2, 4)")))],
            &["fortran.npy", "Fortran"],
        ),
        f(
            "unsupported dtype",
            "neg.f32",
            vec![write("complex.npy", header(&npy_dict("<c8", false, "(8,)")))],
            &["complex.npy", "unsupported dtype '<c8'", "int32"],
        ),
        f(
            "structured dtype",
            "neg.f32",
            vec![write("record.npy", header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (8,)}"))],
            &["record.npy", "structured"],
        ),
        f("input is a directory", "neg.f32", vec![dir.0.clone()], &["is a directory"]),
        f("too few inputs", "add.rn.f32", vec![good.clone()], &["add.rn.f32", "takes 2 input files", "got 1"]),
        f("too many inputs", "neg.f32", vec![good.clone(), good.clone()], &["neg.f32", "takes 1 input file,", "got 2"]),
        f("no inputs", "min.f32", vec![], &["min.f32", "2 or 3", "got 0"]),
        f(
            "float32 for f16",
            "add.rn.f16",
            vec![good.clone(), good.clone()],
            &["good.npy", "float32", "f16", "float16 or uint16"],
        ),
        f(
            "float16 for f32",
            "add.rn.f32",
            vec![write("h.npy", npy("<f2", &[0x3c00; 8])), good.clone()],
            &["h.npy", "float16", "f32"],
        ),
        f(
            "float16 for bf16",
            "add.rn.bf16",
            vec![write("h2.npy", npy("<f2", &[0x3c00; 8])); 2],
            &["h2.npy", "float16", "bf16", "use uint16"],
        ),
        f("float32 for f16x2", "add.rn.f16x2", vec![good.clone(), good.clone()], &["float32", "f16x2", "use uint32"]),
        f("uint32 for f64", "fma.rn.f64", vec![write("u4.npy", npy("<u4", &f32s)); 3], &["u4.npy", "uint32", "f64"]),
        f("cvt source dtype", "cvt.rn.f16.f32", vec![write("d.npy", npy("<f8", &f32s))], &["d.npy", "float64", "f32"]),
        f("unknown instruction", "add.rn.f33", vec![good.clone(), good.clone()], &["add.rn.f33"]),
    ];
    let mut arch = f("unknown arch", "add.rn.f32", vec![good.clone(), good], &["sm_13"]);
    arch.extra = vec!["--arch", "sm_13"];
    cases.push(arch);
    let bf16 = write("u2.npy", npy("<u2", &[0x3f80; 8]));
    let mut old = f("instruction newer than --arch", "add.rn.bf16", vec![bf16.clone(), bf16], &["sm_90", "sm_80"]);
    old.extra = vec!["--arch", "sm_80"];
    cases.push(old);
    cases
}

fn assert_one_line_error(o: &Output, case: &Failure) {
    assert_eq!(o.status.code(), Some(1), "{}: exit status; stderr {}", case.name, stderr(o));
    assert!(o.stdout.is_empty(), "{}: stdout {:?}", case.name, String::from_utf8_lossy(&o.stdout));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{}: one line: {err}", case.name);
    assert!(err.starts_with("ptxfp: "), "{}: {err}", case.name);
    for word in &case.message {
        assert!(err.contains(word.as_str()), "{}: {err:?} lacks {word:?}", case.name);
    }
}

#[test]
fn errors_are_one_line_and_leave_no_output() {
    let dir = TempDir::new("errors");
    let cases = failures(&dir);
    let before = dir.names();
    for case in &cases {
        for out_name in ["out.npy", "out.bin"] {
            let out = dir.path(out_name);
            let inputs: Vec<&Path> = case.inputs.iter().map(PathBuf::as_path).collect();
            let o = run(case.instr, &inputs, &out, &case.extra);
            assert_one_line_error(&o, case);
            assert!(!out.exists(), "{}: output file created", case.name);
            assert_eq!(dir.names(), before, "{}: files left behind", case.name);
        }
    }
}

#[test]
fn errors_leave_an_existing_output_untouched() {
    let dir = TempDir::new("errors-existing");
    let cases = failures(&dir);
    let out = dir.path("precious.npy");
    fs::write(&out, b"precious contents").unwrap();
    let before = dir.names();
    for case in &cases {
        let inputs: Vec<&Path> = case.inputs.iter().map(PathBuf::as_path).collect();
        let o = run(case.instr, &inputs, &out, &case.extra);
        assert_one_line_error(&o, case);
        assert_eq!(fs::read(&out).unwrap(), b"precious contents", "{}: output changed", case.name);
        assert_eq!(dir.names(), before, "{}: files left behind", case.name);
    }
}

#[test]
fn unusable_output_paths_are_errors() {
    let dir = TempDir::new("bad-out");
    let a = dir.path("a.bin");
    fs::write(&a, le_bytes(&[0x3f80_0000; 4], 4)).unwrap();
    let cases = [(dir.path("no/such/dir/d.bin"), "cannot create a temporary file"), (dir.0.clone(), "is a directory")];
    for (out, word) in cases {
        let o = run("neg.f32", &[&a], &out, &[]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("ptxfp: ") && err.contains(word), "{err}");
    }
    assert_eq!(dir.names(), ["a.bin"]);
}

/// Ctrl-C and SIGTERM during a run: status 130, the destination as it was, no temporary file.
/// (A run that finishes before the signal arrives has nothing to check.)
#[test]
#[cfg(unix)]
fn a_signal_stops_a_run_without_leaving_its_output() {
    let dir = TempDir::new("signal");
    let input = dir.path("a.bin");
    fs::write(&input, vec![0x3Fu8; 256 << 20]).unwrap();
    let out = dir.path("d.bin");
    for signal in ["-INT", "-TERM"] {
        fs::write(&out, "old").unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_ptxfp"))
            .args(["run", "fma.rn.f32", "--out"])
            .arg(&out)
            .args(["--in", input.to_str().unwrap(), "--in", input.to_str().unwrap(), "--in", input.to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
        let o = child.wait_with_output().unwrap();
        if o.status.success() {
            continue;
        }
        assert_eq!(o.status.code(), Some(130), "{signal}: {}", stderr(&o));
        assert!(stderr(&o).contains("was not written"), "{}", stderr(&o));
        assert_eq!(fs::read_to_string(&out).unwrap(), "old");
        assert_eq!(dir.names(), ["a.bin", "d.bin"], "{signal}");
    }
}
