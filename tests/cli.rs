//! The `ptxfp` command line as a user drives it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ptxfp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxfp")).args(args).output().expect("run ptxfp")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn eval_prints_hex_then_decimal() {
    let o = ptxfp(&["eval", "mul.rn.ftz.f32", "0x3F7FF448", "0x008005DC"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).split_whitespace().next(), Some("0x00000000"));
    let o = ptxfp(&["eval", "mul.rn.f32", "0x3F7FF448", "0x008005DC"]);
    assert_eq!(stdout(&o).split_whitespace().next(), Some("0x00800000"));
    let o = ptxfp(&["eval", "fma.rn.f32", "1.5", "-2", "inf"]);
    assert_eq!(stdout(&o).trim(), "0x7f800000 inf");
    let o = ptxfp(&["eval", "add.rn.f16x2", "1,2", "0x3c003c00"]);
    assert_eq!(stdout(&o).trim(), "0x42004000 2 3");
    let o = ptxfp(&["eval", "testp.notanumber.f32", "nan"]);
    assert_eq!(stdout(&o).trim(), "0x1 1");
}

#[test]
fn eval_reads_lines_from_stdin() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxfp"))
        .args(["eval", "add.rn.f32"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = (0..1000).map(|i| format!("{i} 0x3f800000\n")).collect();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 1000);
    assert_eq!(lines[0], "0x3f800000 1");
    assert_eq!(lines[999], "0x447a0000 1000");
}

#[test]
fn bad_input_is_a_one_line_error_and_nonzero_exit() {
    let cases: [&[&str]; 8] = [
        &["eval", "frobnicate.f32", "1"],
        &["eval", "add.sat.f64", "1", "2"],
        &["eval", "fma.rn.f32", "1", "2"],
        &["eval", "add.rn.f32", "1", "two"],
        &["eval", "add.rn.f16", "0x10000", "1"],
        &["eval", "add.rn.f32", "0x1ffffffff", "1"],
        &["eval", "cvt.f16.f32", "1"],
        &["eval", "add.rn.f16x2", "1.0", "1,1"],
    ];
    for args in cases {
        let o = ptxfp(args);
        assert!(!o.status.success(), "{args:?} must fail");
        let err = stderr(&o);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("ptxfp: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn a_bad_stdin_line_names_its_number() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxfp"))
        .args(["eval", "mul.rn.f32"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"1 2\n3\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
}

#[test]
fn ops_lists_the_catalog() {
    let o = ptxfp(&["ops"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let fma = text.lines().find(|l| l.starts_with("fma.rn.ftz.sat.f32 ")).expect("fma.rn.ftz.sat.f32 listed");
    assert!(fma.contains("sm_20") && fma.contains("ieee-exact"), "{fma}");
    assert!(text.lines().any(|l| l.starts_with("MUFU.RCP ")));
    assert!(text.lines().any(|l| l.starts_with("cvt.rn.f16.f32 ")));
    let o = ptxfp(&["ops", "f16x2"]);
    assert!(stdout(&o).lines().skip(1).all(|l| l.contains("f16x2")));
}

#[test]
fn bench_reports_rates_and_the_baseline_ratio_as_json() {
    let o = ptxfp(&["bench", "--json", "--size", "20000,3001", "add.rn.f32", "cvt.rn.f16.f32"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let records: Vec<&str> = text.lines().filter(|l| l.contains("\"instr\"")).collect();
    // Two instructions × two lengths × one thread and all threads (one record if one thread).
    assert!(records.len() >= 4 && records.len().is_multiple_of(4), "{text}");
    for r in &records {
        for field in ["\"instr\"", "\"elements\"", "\"threads\"", "\"elements_per_second\"", "\"ratio_to_copy\""] {
            assert!(r.contains(field), "{r}");
        }
    }
    for n in ["20000", "3001"] {
        let with_n = records.iter().filter(|r| r.contains(&format!("\"elements\": {n},"))).count();
        assert_eq!(with_n, records.len() / 2, "{text}");
    }
    let o = ptxfp(&["bench", "frobnicate.f32"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("frobnicate"));
    let o = ptxfp(&["bench", "--size", "0", "add.rn.f32"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--size 0"), "{}", stderr(&o));
}

#[test]
fn simd_level_is_reported_and_forced_by_the_environment() {
    let run = |level: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ptxfp")).env("PTXFP_SIMD", level).args(args).output().expect("run ptxfp")
    };
    let o = run("baseline", &["--version"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("SIMD level baseline; this processor has "), "{}", stdout(&o));
    // Every level gives the same bits.
    let o = run("baseline", &["eval", "fma.rz.ftz.f32", "0x3F7FFFFF", "0x00800001", "0x80000000"]);
    let baseline = stdout(&o);
    let o = run("", &["eval", "fma.rz.ftz.f32", "0x3F7FFFFF", "0x00800001", "0x80000000"]);
    assert_eq!(stdout(&o), baseline);
    let o = run("sse9", &["--version"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "ptxfp: PTXFP_SIMD: 'sse9' is not a SIMD level; the levels are baseline, avx2 and avx512"
    );
}
