//! ptxfp's scalar definitions against an independent IEEE 754 reference, `rustc_apfloat`
//! (LLVM's APFloat in Rust), on edge-biased random operands (tests/common).
//!
//! Without `.ftz`, every add/sub/mul/fma/div/rcp/sqrt/cvt of f16, bf16, f32 and f64 must be
//! the correctly rounded IEEE result in all four rounding modes (bf16 follows the same rules
//! with p = 8). NaN results are compared by class, and every f32/f16/bf16 NaN ptxfp writes
//! must be the canonical pattern (docs/semantics.md §4); f64 payload rules are not checked here.
//!
//! rustc_apfloat has no square root, so sqrt is checked by verification: the candidate root
//! is bracketed with exact binary128 squares (`common::sqrt_is_correct`). As a second opinion
//! the `.rn` forms of f32/f64 are also compared with the host's IEEE arithmetic.
//!
//! Each (instruction, format, mode) gets `N` cases; the runner spreads them over all cores.

mod common;

use common::*;
use ptxfp::ops::cvt_int::{self, IntType};
use ptxfp::ops::{add, cvt, div, fma, mul, sqrt};
use ptxfp::{Format, Instr, Rounding};
use rustc_apfloat::Float;

/// Cases per (instruction, format, rounding mode).
const N: u64 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Rcp,
    Sqrt,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Fma => "fma",
            Op::Div => "div",
            Op::Rcp => "rcp",
            Op::Sqrt => "sqrt",
        }
    }
}

/// The host's IEEE round-to-nearest result for f32/f64 (`None` where there is none to ask).
fn host_rn(fmt: Format, op: Op, x: &[u64]) -> Option<u64> {
    match fmt {
        Format::F32 => {
            let f = |i: usize| f32::from_bits(x[i] as u32);
            let r = match op {
                Op::Add => f(0) + f(1),
                Op::Sub => f(0) - f(1),
                Op::Mul => f(0) * f(1),
                Op::Fma => f(0).mul_add(f(1), f(2)),
                Op::Div => f(0) / f(1),
                Op::Rcp => 1.0 / f(0),
                Op::Sqrt => f(0).sqrt(),
            };
            Some(r.to_bits() as u64)
        }
        Format::F64 => {
            let f = |i: usize| f64::from_bits(x[i]);
            let r = match op {
                Op::Add => f(0) + f(1),
                Op::Sub => f(0) - f(1),
                Op::Mul => f(0) * f(1),
                Op::Fma => f(0).mul_add(f(1), f(2)),
                Op::Div => f(0) / f(1),
                Op::Rcp => 1.0 / f(0),
                Op::Sqrt => f(0).sqrt(),
            };
            Some(r.to_bits())
        }
        _ => None,
    }
}

/// One case of `op` in `fmt` and mode `rnd`: draw operands, evaluate, compare.
fn case(rng: &mut Rng, l: Layout, op: Op, rnd: Rounding, instr: &str) -> Option<String> {
    let fmt = l.fmt;
    let (x, n): ([u64; 3], usize) = match op {
        Op::Add => {
            let (a, b) = pair(rng, l, Kind::Add);
            ([a, b, 0], 2)
        }
        Op::Sub => {
            let (a, b) = pair(rng, l, Kind::Sub);
            ([a, b, 0], 2)
        }
        Op::Mul => {
            let (a, b) = pair(rng, l, Kind::Mul);
            ([a, b, 0], 2)
        }
        Op::Div => {
            let (a, b) = pair(rng, l, Kind::Div);
            ([a, b, 0], 2)
        }
        Op::Fma => {
            let (a, b, c) = triple(rng, l);
            ([a, b, c], 3)
        }
        Op::Rcp => ([rcp_operand(rng, l), 0, 0], 1),
        Op::Sqrt => ([sqrt_operand(rng, l), 0, 0], 1),
    };
    let got = match op {
        Op::Add => add::add(fmt, x[0], x[1], rnd, false),
        Op::Sub => add::sub(fmt, x[0], x[1], rnd, false),
        Op::Mul => mul::mul(fmt, x[0], x[1], rnd, false),
        Op::Fma => fma::fma(fmt, x[0], x[1], x[2], rnd, false),
        Op::Div => div::div(fmt, x[0], x[1], rnd, false),
        Op::Rcp => div::rcp(fmt, x[0], rnd, false),
        Op::Sqrt => sqrt::sqrt(fmt, x[0], rnd, false),
    };
    let ops = &x[..n];
    if op == Op::Sqrt {
        let canonical_ok = !l.is_nan(got) || l.canonical_nan().is_none_or(|c| got == c);
        if !canonical_ok || !sqrt_is_correct(l, x[0], got, rnd) {
            // For the report, look for the correctly rounded root near ptxfp's answer (or the
            // host's RN root, the canonical NaN, the operand itself).
            let host = host_rn(fmt, op, ops).unwrap_or(got);
            let want = (-8..=8)
                .flat_map(|k| [l.nudge(got, k), l.nudge(host, k)])
                .chain([l.canonical_nan().unwrap_or(l.exp_mask() | l.quiet_bit()), x[0]])
                .find(|&r| sqrt_is_correct(l, x[0], r, rnd));
            return Some(match want {
                Some(want) => report(instr, l, ops, got, want),
                None => format!(
                    "{instr} [{}]: ptxfp {} is not the correctly rounded root (exact-square bracket)",
                    l.hex(x[0]),
                    l.hex(got)
                ),
            });
        }
    } else {
        let want = match op {
            Op::Add => ap_add(fmt, x[0], x[1], rnd),
            Op::Sub => ap_sub(fmt, x[0], x[1], rnd),
            Op::Mul => ap_mul(fmt, x[0], x[1], rnd),
            Op::Fma => ap_fma(fmt, x[0], x[1], x[2], rnd),
            Op::Div => ap_div(fmt, x[0], x[1], rnd),
            Op::Rcp => ap_div(fmt, l.one(), x[0], rnd),
            Op::Sqrt => unreachable!(),
        };
        if !agrees(l, got, want) {
            return Some(report(instr, l, ops, got, want));
        }
    }
    if rnd == Rounding::Rn {
        if let Some(host) = host_rn(fmt, op, ops) {
            if !agrees(l, got, host) {
                return Some(format!("{} (host IEEE)", report(instr, l, ops, got, host)));
            }
        }
    }
    None
}

/// All four rounding modes of `op` in `fmt`, N cases each.
fn scalar(fmt: Format, op: Op) {
    let l = Layout::of(fmt);
    let mut total = 0;
    for rnd in Rounding::ALL {
        let instr = format!("{}.{}.{}", op.name(), rnd.name(), l.name());
        total += run(&instr, N, |rng| case(rng, l, op, rnd, &instr));
    }
    eprintln!("{} {}: {total} cases in total", op.name(), l.name());
}

macro_rules! scalar_tests {
    ($($name:ident: $fmt:ident $op:ident;)*) => {
        $(
            #[test]
            fn $name() {
                scalar(Format::$fmt, Op::$op);
            }
        )*
    };
}

scalar_tests! {
    f32_add: F32 Add;
    f32_sub: F32 Sub;
    f32_mul: F32 Mul;
    f32_fma: F32 Fma;
    f32_div: F32 Div;
    f32_rcp: F32 Rcp;
    f32_sqrt: F32 Sqrt;
    f64_add: F64 Add;
    f64_sub: F64 Sub;
    f64_mul: F64 Mul;
    f64_fma: F64 Fma;
    f64_div: F64 Div;
    f64_rcp: F64 Rcp;
    f64_sqrt: F64 Sqrt;
    f16_add: F16 Add;
    f16_sub: F16 Sub;
    f16_mul: F16 Mul;
    f16_fma: F16 Fma;
    bf16_add: BF16 Add;
    bf16_sub: BF16 Sub;
    bf16_mul: BF16 Mul;
    bf16_fma: BF16 Fma;
}

// ---------------------------------------------------------------------------------------------
// The PTX spellings of the f16/bf16 instructions, through `Instr::eval`

/// `spelling` evaluated on edge-biased operands, each lane compared with the reference at RN.
fn ptx_spelling(spelling: &str, fmt: Format, op: Op, lanes: u32) {
    let instr: Instr = spelling.parse().unwrap_or_else(|e| panic!("{spelling}: {e:?}"));
    let l = Layout::of(fmt);
    let n = run(spelling, N, |rng| {
        let mut words = [0u64; 3];
        let mut lane_ops = [[0u64; 3]; 2];
        for (lane, ops) in lane_ops.iter_mut().enumerate().take(lanes as usize) {
            *ops = match op {
                Op::Add => {
                    let (a, b) = pair(rng, l, Kind::Add);
                    [a, b, 0]
                }
                Op::Mul => {
                    let (a, b) = pair(rng, l, Kind::Mul);
                    [a, b, 0]
                }
                Op::Fma => {
                    let (a, b, c) = triple(rng, l);
                    [a, b, c]
                }
                _ => unreachable!(),
            };
            for (w, &x) in words.iter_mut().zip(ops.iter()) {
                *w |= x << (lane as u32 * l.bits);
            }
        }
        let arity = if op == Op::Fma { 3 } else { 2 };
        let got_word = instr.eval(&words[..arity]).unwrap();
        for (lane, ops) in lane_ops.iter().enumerate().take(lanes as usize) {
            let got = (got_word >> (lane as u32 * l.bits)) & l.mask();
            let want = match op {
                Op::Add => ap_add(fmt, ops[0], ops[1], Rounding::Rn),
                Op::Mul => ap_mul(fmt, ops[0], ops[1], Rounding::Rn),
                _ => ap_fma(fmt, ops[0], ops[1], ops[2], Rounding::Rn),
            };
            if !agrees(l, got, want) {
                let label = format!("{spelling} lane {lane} (words {:#x?})", &words[..arity]);
                return Some(report(&label, l, &ops[..arity], got, want));
            }
        }
        if lanes == 1 && got_word >> l.bits != 0 {
            return Some(format!("{spelling}: result {got_word:#x} wider than its type"));
        }
        None
    });
    eprintln!("{spelling}: {n} instructions, {} lanes", n * lanes as u64);
}

#[test]
fn ptx_add_rn_f16() {
    ptx_spelling("add.rn.f16", Format::F16, Op::Add, 1);
}

#[test]
fn ptx_mul_rn_bf16() {
    ptx_spelling("mul.rn.bf16", Format::BF16, Op::Mul, 1);
}

#[test]
fn ptx_fma_rn_f16x2() {
    ptx_spelling("fma.rn.f16x2", Format::F16, Op::Fma, 2);
}

#[test]
fn ptx_fma_rn_bf16x2() {
    ptx_spelling("fma.rn.bf16x2", Format::BF16, Op::Fma, 2);
}

// ---------------------------------------------------------------------------------------------
// cvt between every ordered pair of distinct formats

fn convert(from: Format, to: Format) {
    let (lf, lt) = (Layout::of(from), Layout::of(to));
    let mut total = 0;
    for rnd in Rounding::ALL {
        let instr = format!("cvt.{}.{}.{}", rnd.name(), lt.name(), lf.name());
        total += run(&instr, N, |rng| {
            let a = cvt_operand(rng, lf, lt);
            let got = cvt::cvt(from, to, a, rnd, false);
            let want = ap_cvt(from, to, a, rnd);
            // docs/semantics.md §4 and the H200 capture (tests/hardware_h200.rs): a conversion from f64,
            // or to f32 from bf16, keeps the sign and payload; the other f16/bf16 destinations
            // (and f16 → f32) must write the canonical NaN. The payload rules are checked there.
            let keeps_payload = from == Format::F64 || (to == Format::F32 && from != Format::F16);
            let ok = if lt.is_nan(want) && keeps_payload { lt.is_nan(got) } else { agrees(lt, got, want) };
            (!ok).then(|| format!("{instr} [{}]: ptxfp {} oracle {}", lf.hex(a), lt.hex(got), lt.hex(want)))
        });
    }
    eprintln!("cvt {} -> {}: {total} cases in total", lf.name(), lt.name());
}

macro_rules! cvt_tests {
    ($($name:ident: $from:ident -> $to:ident;)*) => {
        $(
            #[test]
            fn $name() {
                convert(Format::$from, Format::$to);
            }
        )*
    };
}

cvt_tests! {
    cvt_f16_to_bf16: F16 -> BF16;
    cvt_f16_to_f32: F16 -> F32;
    cvt_f16_to_f64: F16 -> F64;
    cvt_bf16_to_f16: BF16 -> F16;
    cvt_bf16_to_f32: BF16 -> F32;
    cvt_bf16_to_f64: BF16 -> F64;
    cvt_f32_to_f16: F32 -> F16;
    cvt_f32_to_bf16: F32 -> BF16;
    cvt_f32_to_f64: F32 -> F64;
    cvt_f64_to_f16: F64 -> F16;
    cvt_f64_to_bf16: F64 -> BF16;
    cvt_f64_to_f32: F64 -> F32;
}

/// `cvt.{rni,rzi,rmi,rpi}.t.t` (rounding to an integral value): every f16 and bf16 operand,
/// and N edge-biased f32 and f64 operands per direction, half of them at exponents where the
/// value has a fraction (|a| in [2^-3, 2^p)), with exact midpoints among them.
#[test]
fn cvt_round_to_integral() {
    for fmt in [Format::F16, Format::BF16, Format::F32, Format::F64] {
        let l = Layout::of(fmt);
        for rnd in Rounding::ALL {
            let instr = format!("cvt.{}i.{}.{}", rnd.name(), l.name(), l.name());
            let check = |a: u64| {
                let got = cvt::round_to_integral(fmt, a, rnd, false);
                let want = ap_round_to_integral(fmt, a, rnd);
                (!agrees(l, got, want))
                    .then(|| format!("{instr} [{}]: ptxfp {} oracle {}", l.hex(a), l.hex(got), l.hex(want)))
            };
            if fmt.bits() == 16 {
                let bad: Vec<String> = (0..1u64 << 16).filter_map(check).collect();
                assert!(bad.is_empty(), "{} of 65536 differ: {:?}", bad.len(), &bad[..bad.len().min(10)]);
                continue;
            }
            run(&instr, N, |rng| {
                let a = if rng.coin() {
                    operand(rng, l)
                } else {
                    let e = rng.range(-3, i64::from(fmt.precision()) - 1) as i32;
                    let x = l.at_exp(rng.coin(), e, rng);
                    // An exact midpoint between integers: the bits above 2^-1 kept, 2^-1 set,
                    // the bits below it clear.
                    if rng.coin() && (0..fmt.frac_bits() as i32).contains(&e) {
                        let half = fmt.frac_bits() - e as u32 - 1;
                        (x >> (half + 1) << (half + 1)) | (1 << half)
                    } else {
                        x
                    }
                };
                check(a)
            });
        }
    }
}

/// A float operand for a conversion to an integer of `bits` bits: edge-biased, or a value
/// from 2^-2 to 2^(bits+1) (the fractions, the range's bounds, just beyond), half of those an
/// exact midpoint between integers where the format has one.
fn to_int_operand(rng: &mut Rng, l: Layout, fmt: Format, bits: u32) -> u64 {
    if rng.below(4) == 0 {
        return operand(rng, l);
    }
    let e = rng.range(-2, i64::from(bits) + 1) as i32;
    let x = l.at_exp(rng.coin(), e, rng);
    if rng.coin() && (0..fmt.frac_bits() as i32).contains(&e) {
        let half = fmt.frac_bits() - e as u32 - 1;
        (x >> (half + 1) << (half + 1)) | (1 << half)
    } else {
        x
    }
}

/// `cvt.{rni,rzi,rmi,rpi}.int.float`: every f16/bf16 operand, N edge-biased f32 and f64
/// operands per (integer type, direction); NaN results are NVIDIA's own (tests/cvt_h200.rs).
#[test]
fn cvt_float_to_integer() {
    for fmt in Format::ALL {
        let l = Layout::of(fmt);
        for to in IntType::ALL {
            for rnd in Rounding::ALL {
                let instr = format!("cvt.{}i.{}.{}", rnd.name(), to.name(), l.name());
                let check = |a: u64| {
                    let got = cvt_int::float_to_int(fmt, to, a, rnd, false);
                    let want = ap_to_int(fmt, a, to, rnd)?;
                    (got != want).then(|| format!("{instr} [{}]: ptxfp {got:#x} oracle {want:#x}", l.hex(a)))
                };
                if fmt.bits() == 16 {
                    let bad: Vec<String> = (0..1u64 << 16).filter_map(check).collect();
                    assert!(bad.is_empty(), "{} of 65536 differ: {:?}", bad.len(), &bad[..bad.len().min(10)]);
                } else {
                    run(&instr, N, |rng| check(to_int_operand(rng, l, fmt, to.bits())));
                }
            }
        }
    }
}

/// `cvt.{rn,rz,rm,rp}.float.int`: every operand of the 8/16-bit types, N of the others per
/// (format, direction), with every count of leading zeros (and ones) and random trailing zeros,
/// so that ties and the overflow of f16 occur.
#[test]
fn cvt_integer_to_float() {
    for from in IntType::ALL {
        for to in Format::ALL {
            let lt = Layout::of(to);
            for rnd in Rounding::ALL {
                let instr = format!("cvt.{}.{}.{}", rnd.name(), lt.name(), from.name());
                let check = |a: u64| {
                    let got = cvt_int::int_to_float(from, to, a, rnd);
                    let want = ap_from_int(from, to, a, rnd);
                    (got != want).then(|| format!("{instr} [{a:#x}]: ptxfp {} oracle {}", lt.hex(got), lt.hex(want)))
                };
                if from.bits() <= 16 {
                    let bad: Vec<String> = (0..1u64 << from.bits()).filter_map(check).collect();
                    assert!(bad.is_empty(), "{} differ: {:?}", bad.len(), &bad[..bad.len().min(10)]);
                } else {
                    run(&instr, N, |rng| {
                        let r = rng.next() >> rng.below(64);
                        let r = r >> rng.below(64) << rng.below(64);
                        check(if rng.coin() { r.wrapping_neg() } else { r } & from.mask())
                    });
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The generators themselves: each category must actually occur

/// Guards against a generator that silently stopped producing its edge cases: among N
/// operands of each format every class shows up in a reasonable share, and the tie
/// constructors really produce exact midpoints.
#[test]
fn generators_cover_the_edges() {
    for fmt in [Format::F16, Format::BF16, Format::F32, Format::F64] {
        let l = Layout::of(fmt);
        let mut rng = Rng::new(seed("generators", fmt as u64));
        let (mut sub, mut zero, mut inf, mut nan, mut snan, mut near_max, mut near_min) = (0, 0, 0, 0, 0, 0, 0);
        let n = 100_000;
        for _ in 0..n {
            let x = operand(&mut rng, l);
            let mag = l.abs(x);
            if l.is_nan(x) {
                nan += 1;
                if x & l.quiet_bit() == 0 {
                    snan += 1;
                }
            } else if l.is_inf(x) {
                inf += 1;
            } else if mag == 0 {
                zero += 1;
            } else if mag < l.min_normal() {
                sub += 1;
            }
            if mag <= l.max_finite() && mag + 16 > l.max_finite() {
                near_max += 1;
            }
            if mag.abs_diff(l.min_normal()) <= 16 {
                near_min += 1;
            }
        }
        for (what, count) in [
            ("subnormal", sub),
            ("zero", zero),
            ("inf", inf),
            ("nan", nan),
            ("signalling nan", snan),
            ("near max finite", near_max),
            ("near min normal", near_min),
        ] {
            assert!(count * 100 >= n * 2, "{}: only {count} {what} operands of {n}", l.name());
        }
        // Additions on an exact midpoint of the result grid: RN and RZ must differ from RP or
        // RM, and the RN result must be even; count how often the tie generator hits one.
        let mut ties = 0;
        for _ in 0..n {
            let (a, b) = pair(&mut rng, l, Kind::Add);
            let up = ap_add(fmt, a, b, Rounding::Rp);
            let down = ap_add(fmt, a, b, Rounding::Rm);
            if l.is_finite_nonzero(up) && l.is_finite_nonzero(down) && up != down {
                // Inexact: is the exact sum the midpoint? a + b − down == up − (a + b).
                let q = |x| to_quad(fmt, x);
                let s = q(a).add_r(q(b), rustc_apfloat::Round::NearestTiesToEven).value;
                let d1 = s.sub_r(q(down), rustc_apfloat::Round::NearestTiesToEven).value;
                let d2 = q(up).sub_r(s, rustc_apfloat::Round::NearestTiesToEven).value;
                if d1.abs().partial_cmp(&d2.abs()) == Some(std::cmp::Ordering::Equal) {
                    ties += 1;
                }
            }
        }
        eprintln!("{}: {ties} exact-midpoint sums among {n} add pairs", l.name());
        assert!(ties * 100 >= n, "{}: only {ties} midpoint sums of {n}", l.name());
    }
}
