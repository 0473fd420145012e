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

/// Integer operands and results in decimal, and the out-of-range and NaN rules of float →
/// integer (PTX cvt: clamped to the destination's range; NaN → 0 below 64 bits, → the top bit
/// alone in 64 bits \[HW: data/hardware/h200-sm90/cvt\]) and the IEEE overflow of integer → f16.
#[test]
fn eval_takes_and_prints_integers() {
    for (args, want) in [
        (&["cvt.rzi.s32.f32", "-2.5"][..], "0xfffffffe -2"),
        (&["cvt.rni.s32.f32", "2.5"], "0x00000002 2"),
        (&["cvt.rmi.u8.f32", "300"], "0xff 255"),
        (&["cvt.rpi.u8.f32", "-0.5"], "0x00 0"),
        (&["cvt.rzi.s8.f32", "-1000"], "0x80 -128"),
        (&["cvt.rni.s32.f32", "nan"], "0x00000000 0"),
        (&["cvt.rzi.u64.f32", "nan"], "0x8000000000000000 9223372036854775808"),
        (&["cvt.rn.f32.s32", "-16777217"], "0xcb800000 -16777216"),
        (&["cvt.rz.f16.u32", "65520"], "0x7bff 65504"),
        (&["cvt.rn.f16.u32", "65520"], "0x7c00 inf"),
        (&["cvt.rn.f32.u8", "0xff"], "0x437f0000 255"),
    ] {
        let o = ptxfp(&[&["eval"][..], args].concat());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o).trim(), want, "{args:?}");
    }
    let o = ptxfp(&["eval", "cvt.rn.f32.s8", "200"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("out of the range of .s8 (-128..=127)"), "{}", stderr(&o));
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
    let cases: [&[&str]; 14] = [
        &["eval", "frobnicate.f32", "1"],
        // Values that clap parses with ptxfp's own parsers (architecture, instruction, shard).
        &["eval", "--arch", "sm_20", "add.rn.f32", "1", "2"],
        &["run", "--arch", "sm_1", "add.rn.f32", "--out", "never.npy"],
        &["bench", "add.rn.f3"],
        &["capture", "--arch", "x", "--all", "--out", "never"],
        &["sweep", "ex2.approx.f32", "--arch", "sm_7"],
        &["sweep", "ex2.approx.f32", "--shard", "4/3"],
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

/// `ptxfp eval <spelling>` with `input` on its standard input.
fn eval_stdin(spelling: &str, input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxfp"))
        .args(["eval", spelling])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn stdin_skips_blank_lines_and_comments() {
    let o = eval_stdin("add.rn.f32", b"# a, b\n1 2\n\n   \n3 4  # seven\n#\n5 6\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "0x40400000 3\n0x40e00000 7\n0x41300000 11\n");
}

#[test]
fn options_after_the_operands_are_options() {
    let before = ptxfp(&["eval", "--arch", "sm_52", "RRO.EX2", "1"]);
    assert!(before.status.success(), "{}", stderr(&before));
    for args in [
        &["eval", "RRO.EX2", "1", "--arch", "sm_52"][..],
        &["eval", "RRO.EX2", "--arch", "sm_52", "1"],
        &["eval", "RRO.EX2", "1", "--arch=sm_52"],
    ] {
        let o = ptxfp(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), stdout(&before), "{args:?}");
    }
    let o = ptxfp(&["eval", "add.rn.f32", "1", "2", "--help"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("Usage: ptxfp eval"), "{}", stdout(&o));
    // Operands with a leading '-' are still operands, and after `--` everything is.
    let o = ptxfp(&["eval", "add.rn.f32", "-1.5", "-inf"]);
    assert_eq!(stdout(&o).trim(), "0xff800000 -inf", "{}", stderr(&o));
    let o = ptxfp(&["eval", "--", "add.rn.f32", "-0", "-0"]);
    assert_eq!(stdout(&o).trim(), "0x80000000 -0", "{}", stderr(&o));
    // An unknown option is a usage error, status 1, wherever it is written.
    let o = ptxfp(&["eval", "add.rn.f32", "1", "2", "--frobnicate"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--frobnicate"), "{}", stderr(&o));
}

#[test]
fn help_documents_the_exit_statuses() {
    let o = ptxfp(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for status in ["0 success", "1 a usage", "3 a check failed", "--no-fail"] {
        assert!(text.contains(status), "{status}: {text}");
    }
}

#[test]
fn a_bad_stdin_line_names_its_number() {
    let o = eval_stdin("mul.rn.f32", b"1 2\n3\n");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    // A line that is not text (invalid UTF-8) too.
    let o = eval_stdin("mul.rn.f32", b"1 2\n\n3 \xff\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 3"), "{}", stderr(&o));
}

#[test]
fn a_target_that_lacks_the_instruction_says_how_to_choose_another() {
    let hint = "tanh.approx.f32 requires sm_75 or newer; the target is sm_70 (choose it with --arch)";
    for args in [
        &["eval", "--arch", "sm_70", "tanh.approx.f32", "1"][..],
        &["sweep", "--arch", "sm_70", "tanh.approx.f32", "--range", "1..2"][..],
        &["bench", "--arch", "sm_70", "--size", "16", "tanh.approx.f32"][..],
    ] {
        let o = ptxfp(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(hint), "{args:?}: {}", stderr(&o));
    }
    // No newer --arch mends RRO on sm_70, and the message does not suggest one.
    let o = ptxfp(&["eval", "--arch", "sm_70", "RRO.EX2", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("RRO.EX2 exists only on sm_50 to sm_62; the target is sm_70"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("--arch"), "{}", stderr(&o));
}

#[test]
fn ops_lists_the_catalog() {
    let o = ptxfp(&["ops"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let fma = text.lines().find(|l| l.starts_with("fma.rn.ftz.sat.f32 ")).expect("fma.rn.ftz.sat.f32 listed");
    // PTX has it from sm_20; the targets --arch accepts start at sm_50.
    assert!(fma.ends_with(" sm_50+") && fma.contains("ieee-exact"), "{fma}");
    let rro = text.lines().find(|l| l.starts_with("RRO.EX2 ")).expect("RRO.EX2 listed");
    assert!(rro.ends_with(" sm_50-sm_62"), "{rro}");
    let f32x2 = text.lines().find(|l| l.starts_with("add.rn.f32x2 ")).expect("add.rn.f32x2 listed");
    assert!(f32x2.ends_with(" sm_100+"), "{f32x2}");
    // The family- and architecture-specific forms as PTX states them.
    let e2m1 = text.lines().find(|l| l.starts_with("cvt.rn.satfinite.e2m1x2.f32 ")).expect("e2m1x2 listed");
    assert!(e2m1.ends_with(" sm_100f,sm_110f,sm_120f"), "{e2m1}");
    let rs = text.lines().find(|l| l.starts_with("cvt.rs.f16x2.f32 ")).expect("cvt.rs listed");
    assert!(rs.ends_with(" sm_100a,sm_103a,sm_107a"), "{rs}");
    // Every target listed is one --arch accepts.
    let listed: std::collections::BTreeSet<&str> = text
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().last().expect("a target"))
        .flat_map(|targets| targets.trim_end_matches('+').split([',', '-']))
        .collect();
    assert!(listed.len() > 3, "{listed:?}");
    for sm in listed {
        let o = ptxfp(&["eval", "--arch", sm, "add.rn.f32", "1", "2"]);
        assert!(o.status.success(), "{sm}: {}", stderr(&o));
    }
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
    // Lengths are written as --random counts are.
    let o = ptxfp(&["bench", "--json", "--size", "1e3,2_000", "add.rn.f32"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"elements\": 1000,") && stdout(&o).contains("\"elements\": 2000,"));
}

// Messages quote what a user gives only in part (issue 22): a long spelling, operand,
// architecture, range or shard is cut after 80 characters, and so are the values, options and
// subcommands that the argument parser rejects itself.
#[test]
fn long_input_is_quoted_only_in_part() {
    let long = "x".repeat(100_000);
    let in_modifier = format!("add.{long}.f32");
    let in_mnemonic = format!("{long}.f32");
    let wide_hex = format!("0x{}1ffffffff", "0".repeat(100_000));
    let option = format!("--{long}");
    let cases: [&[&str]; 12] = [
        &["eval", &in_modifier, "1", "2"],
        &["eval", &in_mnemonic, "1", "2"],
        &["eval", "add.rn.f32", &long, "1"],
        &["eval", "add.rn.f32", &wide_hex, "1"],
        &["eval", "--arch", &long, "add.rn.f32", "1", "2"],
        &["sweep", "ex2.approx.f32", "--range", &long],
        &["sweep", "ex2.approx.f32", "--shard", &long],
        &["sweep", "ex2.approx.f32", "--seed", &long],
        &["sweep", "ex2.approx.f32", "--binade", &long],
        &["bench", "--size", &long],
        &["sweep", "ex2.approx.f32", &option],
        &[&long],
    ];
    for args in cases {
        let o = ptxfp(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{}", &err[..err.len().min(300)]);
        assert!(err.len() < 2000 && err.contains(" more characters)"), "{}", &err[..err.len().min(300)]);
    }
}

// Issue: bench --size 18446744073709551615 panicked; --size 10000000000 aborted.
#[test]
fn bench_refuses_buffers_beyond_its_memory_bound() {
    for size in ["18446744073709551615", "10000000000", "1e12"] {
        let o = ptxfp(&["bench", "--size", size, "fma.rn.f32"]);
        assert_eq!(o.status.code(), Some(1), "{size}: {}", stderr(&o));
        assert!(stderr(&o).contains("bench takes at most"), "{size}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

// Issue: a closed or full standard output panicked (exit 101).
#[test]
#[cfg(unix)]
fn closed_and_full_standard_output_are_not_panics() {
    // A reader that stops after one line (`| head -1`): a quiet stop with status 141.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxfp"))
        .args(["bench", "--size", "1000", "add.rn.f32", "mul.rn.f32", "fma.rn.f32"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut first).unwrap();
    assert!(first.contains("SIMD level"), "{first}");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    // A full device: an error naming it, status 1.
    for args in [&["eval", "add.rn.f32", "1", "2"][..], &["ops"], &["bench", "--size", "100", "add.rn.f32"]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_ptxfp")).args(args).stdout(full).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("cannot write to standard output"), "{args:?}: {}", stderr(&o));
    }
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
