//! The IBM FPgen IEEE 754 test vectors (binary32) as an independent oracle for the f32
//! arithmetic: add, sub, mul, div, fma and sqrt in the four rounding modes, without `.ftz`.
//!
//! The vectors are CI-only data read from `../shared/vectors/ibm-fpgen` next to the crate (or
//! the directory `PTXFP_FPGEN_DIR` names); they are never copied into the project. When that
//! directory is absent every test here writes a line `fpgen <op>: NOT CHECKED: …` to the
//! process's standard error, which the test harness does not capture, so `cargo test` shows
//! it; with the environment variable `CI` or `PTXFP_REQUIRE_DATA` set, the tests fail instead.
//! When it is present, each test asserts that a large number of lines was checked.
//!
//! Line format (the suite's `syntax.txt`):
//!
//! ```text
//! b32<op> <rounding> [<enabled traps>] <operands…> -> <result> [<flags>]
//! ```
//!
//! - rounding: `=0` nearest-even, `0` toward zero, `<` toward −∞, `>` toward +∞ (`=^`,
//!   nearest-away, has no PTX spelling for these instructions and is skipped if it appears);
//! - enabled traps: letters of `x` inexact, `u` underflow, `o` overflow, `z` divide by zero,
//!   `i` invalid;
//! - operands and results: `±h.hhhhhhPe` (leading bit, 23-bit fraction as six hex digits,
//!   unbiased exponent; subnormals are `±0.hhhhhhP-126`), `±Zero`, `±Inf`, `Q` (quiet NaN),
//!   `S` (signalling NaN), and `#` for "no result written";
//! - flags: `x` inexact, `u`/`v`/`w` underflow (three tininess definitions), `o` overflow,
//!   `z` divide by zero, `i` invalid.
//!
//! A line whose enabled trap fires (its flag is among the raised flags) has trap semantics: the
//! value shown is the one handed to the trap handler (for overflow and underflow it has a
//! wrapped exponent), not the default result, so such lines are skipped, as are lines with no
//! result. ptxfp has no flags, so the raised flags are otherwise ignored; only the result bits
//! are compared. A NaN result is compared by class, and ptxfp must return the canonical f32 NaN
//! 0x7FFFFFFF for it.

#[cfg(not(feature = "internals"))]
compile_error!("these tests reach ptxfp's internals: run them as the README says, with --features ptxfp/internals");

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ptxfp::ops::{add, div, fma, mul, sqrt};
use ptxfp::{Format, Instr, Rounding};

const CANONICAL_NAN: u32 = 0x7FFF_FFFF;
/// Bit patterns given to ptxfp for the operand tokens `Q` and `S`. The vectors name only the
/// class; non-default sign and payload make sure no payload reaches the result.
const QNAN_IN: u32 = 0xFFC0_1234;
const SNAN_IN: u32 = 0x7F80_1234;

/// Lines that failed to parse or mismatched are listed up to this many.
const SHOW: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
}

impl Op {
    fn from_token(t: &str) -> Option<Op> {
        Some(match t {
            "+" => Op::Add,
            "-" => Op::Sub,
            "*" => Op::Mul,
            "/" => Op::Div,
            "*+" => Op::Fma,
            "V" => Op::Sqrt,
            _ => return None,
        })
    }

    fn arity(self) -> usize {
        match self {
            Op::Sqrt => 1,
            Op::Fma => 3,
            _ => 2,
        }
    }

    fn ptx(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Fma => "fma",
            Op::Sqrt => "sqrt",
        }
    }

    /// The scalar definition under test, f32 without `.ftz`.
    fn scalar(self, x: &[u64], rnd: Rounding) -> u64 {
        let f = Format::F32;
        match self {
            Op::Add => add::add(f, x[0], x[1], rnd, false),
            Op::Sub => add::sub(f, x[0], x[1], rnd, false),
            Op::Mul => mul::mul(f, x[0], x[1], rnd, false),
            Op::Div => div::div(f, x[0], x[1], rnd, false),
            Op::Fma => fma::fma(f, x[0], x[1], x[2], rnd, false),
            Op::Sqrt => sqrt::sqrt(f, x[0], rnd, false),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expected {
    Bits(u32),
    Nan,
}

#[derive(Debug)]
enum Outcome {
    /// Usable: compare ptxfp with `expected`.
    Check { rnd: Rounding, operands: Vec<u64>, expected: Expected },
    /// Not comparable, with the reason it is counted under.
    Skip(String),
}

#[derive(Debug)]
struct Vector {
    file: String,
    line: usize,
    text: String,
    op: Op,
    outcome: Outcome,
}

#[derive(Debug)]
struct Suite {
    dir: PathBuf,
    vectors: Vec<Vector>,
    /// b32 lines of the six operations that could not be read: (operation, file, line, text, why).
    errors: Vec<(Op, String, usize, String, String)>,
}

/// One binary32 datum: `±h.hhhhhhPe`, `±Zero`, `±Inf`, `Q`, `S`.
fn parse_datum(t: &str) -> Result<Expected, String> {
    match t {
        "Q" | "S" => return Ok(Expected::Nan),
        _ => {}
    }
    let (neg, body) = match t.as_bytes().first() {
        Some(b'+') => (false, &t[1..]),
        Some(b'-') => (true, &t[1..]),
        _ => return Err(format!("datum `{t}` has no sign")),
    };
    let sign = (neg as u32) << 31;
    match body {
        "Zero" => return Ok(Expected::Bits(sign)),
        "Inf" => return Ok(Expected::Bits(sign | 0x7F80_0000)),
        _ => {}
    }
    let (sig, exp) = body.split_once('P').ok_or_else(|| format!("datum `{t}` has no P"))?;
    let (int, frac) = sig.split_once('.').ok_or_else(|| format!("datum `{t}` has no point"))?;
    let exp: i32 = exp.parse().map_err(|_| format!("datum `{t}`: bad exponent"))?;
    if frac.len() != 6 || !frac.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("datum `{t}`: fraction is not six hex digits"));
    }
    let frac = u32::from_str_radix(frac, 16).unwrap();
    if frac > 0x7F_FFFF {
        return Err(format!("datum `{t}`: fraction exceeds 23 bits"));
    }
    let biased = match int {
        "1" if (-126..=127).contains(&exp) => (exp + 127) as u32,
        "0" if exp == -126 => 0,
        _ => return Err(format!("datum `{t}`: not a binary32 normal or subnormal")),
    };
    Ok(Expected::Bits(sign | biased << 23 | frac))
}

fn operand_bits(t: &str) -> Result<u64, String> {
    Ok(match t {
        "Q" => QNAN_IN,
        "S" => SNAN_IN,
        _ => match parse_datum(t)? {
            Expected::Bits(b) => b,
            Expected::Nan => unreachable!(),
        },
    } as u64)
}

/// The letters of the enabled traps whose exception is among the raised flags.
fn fired_traps(traps: &str, flags: &str) -> String {
    traps
        .chars()
        .filter(|&t| match t {
            'u' => flags.contains(['u', 'v', 'w']),
            _ => flags.contains(t),
        })
        .collect()
}

/// Parse one `b32…` line whose operation is one of the six (`op`), tokens after the operation.
fn parse_line(op: Op, rest: &[&str]) -> Result<Outcome, String> {
    let (&mode, rest) = rest.split_first().ok_or("no rounding mode")?;
    let rnd = match mode {
        "=0" => Rounding::Rn,
        "0" => Rounding::Rz,
        "<" => Rounding::Rm,
        ">" => Rounding::Rp,
        "=^" => return Ok(Outcome::Skip("rounding =^ (ties away; no PTX spelling)".into())),
        _ => return Err(format!("unknown rounding mode `{mode}`")),
    };
    let arrow = rest.iter().position(|&t| t == "->").ok_or("no `->`")?;
    let (inputs, outputs) = (&rest[..arrow], &rest[arrow + 1..]);
    // Trap enables are lower-case letters; every operand begins with a sign, `Q` or `S`.
    let (traps, inputs) = match inputs.first() {
        Some(t) if !t.is_empty() && t.chars().all(|c| "xuozi".contains(c)) => (*t, &inputs[1..]),
        _ => ("", inputs),
    };
    if inputs.len() != op.arity() {
        return Err(format!("{} operand(s), expected {}", inputs.len(), op.arity()));
    }
    let operands = inputs.iter().map(|t| operand_bits(t)).collect::<Result<Vec<u64>, _>>()?;
    let (&result, flags) = outputs.split_first().ok_or("no result")?;
    let flags = flags.concat();
    if !flags.chars().all(|c| "xuvwozi".contains(c)) {
        return Err(format!("unknown flags `{flags}`"));
    }
    if result == "#" {
        return Ok(Outcome::Skip("no result (#)".into()));
    }
    let expected = parse_datum(result)?;
    let fired = fired_traps(traps, &flags);
    if !fired.is_empty() {
        return Ok(Outcome::Skip(format!("enabled trap fires: {fired}")));
    }
    Ok(Outcome::Check { rnd, operands, expected })
}

fn read_suite(dir: &Path) -> Suite {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fptest"))
        .collect();
    files.sort();
    let mut vectors = Vec::new();
    let mut errors = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let text = String::from_utf8_lossy(&bytes);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let tokens: Vec<&str> = line.split_whitespace().collect();
            let Some(op) = tokens.first().and_then(|t| t.strip_prefix("b32")).and_then(Op::from_token) else {
                continue;
            };
            match parse_line(op, &tokens[1..]) {
                Ok(outcome) => vectors.push(Vector { file: name.clone(), line: i + 1, text: line.into(), op, outcome }),
                Err(why) => errors.push((op, name.clone(), i + 1, line.to_string(), why)),
            }
        }
    }
    Suite { dir: dir.to_path_buf(), vectors, errors }
}

/// Environment variables that make absent vectors a failure.
const REQUIRE: [&str; 2] = ["CI", "PTXFP_REQUIRE_DATA"];

/// The parsed suite, or `None` when the vector directory is absent: then `op`'s test says so
/// on the process's standard error (shown by `cargo test`, unlike captured output), or fails
/// where the data is required ([`REQUIRE`]).
fn suite(op: Op) -> Option<&'static Suite> {
    static SUITE: OnceLock<Option<Suite>> = OnceLock::new();
    let dir = std::env::var_os("PTXFP_FPGEN_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors/ibm-fpgen"), PathBuf::from);
    let suite = SUITE.get_or_init(|| dir.is_dir().then(|| read_suite(&dir)));
    if suite.is_none() {
        let message = format!("fpgen {}: NOT CHECKED: no IBM FPgen vectors at {}", op.ptx(), dir.display());
        if let Some(var) = REQUIRE.iter().find(|v| std::env::var_os(v).is_some()) {
            panic!("{message} (required because {var} is set)");
        }
        let _ = writeln!(std::io::stderr(), "{message} (set PTXFP_REQUIRE_DATA=1 to fail instead)");
    }
    suite.as_ref()
}

fn show(e: Expected) -> String {
    match e {
        Expected::Bits(b) => format!("{b:#010x}"),
        Expected::Nan => format!("NaN (canonical {CANONICAL_NAN:#010x})"),
    }
}

fn agrees(expected: Expected, actual: u64) -> bool {
    match expected {
        Expected::Bits(b) => actual == b as u64,
        // NaN by class, and the class has exactly one f32 encoding in PTX.
        Expected::Nan => actual == CANONICAL_NAN as u64,
    }
}

/// Check every usable line of `op`; `min_checked` guards against a silently empty run.
fn run(op: Op, min_checked: usize) {
    let Some(suite) = suite(op) else { return };
    let parse_errors: Vec<_> = suite.errors.iter().filter(|e| e.0 == op).collect();
    assert!(
        parse_errors.is_empty(),
        "fpgen {}: {} b32 line(s) in {} could not be parsed; first {}:\n{}",
        op.ptx(),
        parse_errors.len(),
        suite.dir.display(),
        SHOW.min(parse_errors.len()),
        parse_errors
            .iter()
            .take(SHOW)
            .map(|(_, f, n, t, why)| format!("  {f}:{n}: `{t}`: {why}"))
            .collect::<Vec<_>>()
            .join("\n")
    );

    let instrs: Vec<(Rounding, Instr)> = Rounding::ALL
        .iter()
        .map(|&r| {
            let s = format!("{}.{}.f32", op.ptx(), r.name());
            (r, s.parse::<Instr>().unwrap_or_else(|e| panic!("`{s}` does not parse: {e:?}")))
        })
        .collect();

    let mut checked = 0usize;
    let mut nan_results = 0usize;
    let mut per_mode: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mismatches: Vec<String> = Vec::new();
    for v in suite.vectors.iter().filter(|v| v.op == op) {
        let (rnd, operands, expected) = match &v.outcome {
            Outcome::Skip(why) => {
                *skipped.entry(why.as_str()).or_default() += 1;
                continue;
            }
            Outcome::Check { rnd, operands, expected } => (*rnd, operands, *expected),
        };
        checked += 1;
        *per_mode.entry(rnd.name()).or_default() += 1;
        nan_results += (expected == Expected::Nan) as usize;
        let hex: Vec<String> = operands.iter().map(|x| format!("{x:#010x}")).collect();
        let actual = op.scalar(operands, rnd);
        if !agrees(expected, actual) {
            mismatches.push(format!(
                "{}:{}: `{}`\n      {}.{}.f32 {}: expected {}, ptxfp {actual:#010x}",
                v.file,
                v.line,
                v.text,
                op.ptx(),
                rnd.name(),
                hex.join(" "),
                show(expected)
            ));
        }
        // The instruction layer must give the scalar definition's bits.
        let instr = &instrs.iter().find(|(r, _)| *r == rnd).unwrap().1;
        match instr.eval(operands) {
            Ok(via) if via == actual => {}
            other => mismatches.push(format!(
                "{}:{}: `{}`\n      `{instr}`.eval({}) = {other:?}, scalar call {actual:#010x}",
                v.file,
                v.line,
                v.text,
                hex.join(", ")
            )),
        }
    }

    let total_skipped: usize = skipped.values().sum();
    let reasons: Vec<String> = skipped.iter().map(|(why, n)| format!("{why}: {n}")).collect();
    let modes: Vec<String> = per_mode.iter().map(|(m, n)| format!("{m} {n}")).collect();
    eprintln!(
        "fpgen {}: checked {checked} line(s) ({}; {nan_results} NaN results; each also through the \
         instruction layer), skipped {total_skipped} ({})",
        op.ptx(),
        modes.join(", "),
        if reasons.is_empty() { "none".to_string() } else { reasons.join(", ") }
    );

    assert!(
        mismatches.is_empty(),
        "fpgen {}: {} mismatch(es) in {} checked line(s); first {}:\n{}",
        op.ptx(),
        mismatches.len(),
        checked,
        SHOW.min(mismatches.len()),
        mismatches.iter().take(SHOW).map(|m| format!("  {m}")).collect::<Vec<_>>().join("\n")
    );
    assert!(
        checked >= min_checked,
        "fpgen {}: only {checked} line(s) checked (expected at least {min_checked}); are the \
         vectors in {} complete?",
        op.ptx(),
        suite.dir.display()
    );
}

#[test]
fn fpgen_add() {
    run(Op::Add, 10_000);
}

#[test]
fn fpgen_sub() {
    run(Op::Sub, 10_000);
}

#[test]
fn fpgen_mul() {
    run(Op::Mul, 1_000);
}

#[test]
fn fpgen_div() {
    run(Op::Div, 1_000);
}

#[test]
fn fpgen_fma() {
    run(Op::Fma, 20_000);
}

#[test]
fn fpgen_sqrt() {
    run(Op::Sqrt, 50);
}

/// Without the vectors `fpgen_add` passes with its NOT CHECKED line on standard error, and
/// fails where they are required (this test binary run on a directory that does not exist).
#[test]
fn absent_vectors_are_reported_and_fail_where_required() {
    let run = |require: Option<&str>| {
        let mut child = Command::new(std::env::current_exe().unwrap());
        child.args(["--exact", "fpgen_add"]).env("PTXFP_FPGEN_DIR", "/nonexistent/ibm-fpgen");
        for var in REQUIRE {
            child.env_remove(var);
        }
        if let Some(var) = require {
            child.env(var, "1");
        }
        child.output().unwrap()
    };
    let quiet = run(None);
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(quiet.status.success(), "{stderr}");
    assert!(stderr.contains("fpgen add: NOT CHECKED: no IBM FPgen vectors at /nonexistent/ibm-fpgen"), "{stderr}");
    for var in REQUIRE {
        let required = run(Some(var));
        let stdout = String::from_utf8_lossy(&required.stdout);
        assert!(!required.status.success(), "{var}: {stdout}");
        assert!(stdout.contains(&format!("required because {var} is set")), "{var}: {stdout}");
    }
}
