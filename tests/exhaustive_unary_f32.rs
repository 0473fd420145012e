//! Every unary f32 SIMD kernel against its scalar definition on all 2^32 inputs, on sm_90:
//! `rcp`, `rsqrt`, `sqrt`, `lg2`, `ex2`, `sin`, `cos` `.approx{.ftz}.f32`, `tanh.approx.f32`,
//! `MUFU.RCP/RSQ/SQRT/LG2/EX2/SIN/COS{.SAT}` and `MUFU.TANH`, and the IEEE
//! `rcp` and `sqrt` `.rn/rz/rm/rp{.ftz}.f32`.
//!
//! The all-input tests (one per MUFU function) are the exhaustive tier, run with
//! `--include-ignored`. The default tier checks that the groups below cover every such kernel
//! and the readings below on a sample; tests/batch_equivalence_mufu.rs compares the kernels on
//! 12.6 million inputs.
//!
//! ## The scalar results
//!
//! Evaluating each spelling's scalar definition through `Instr::eval_unchecked` costs 15–60 ns
//! an input, hours for the 46 spellings. The definitions are instead read from one evaluation
//! of a function per input and group (the dispatch of `eval_unchecked` is about half of its
//! cost). For the ten MUFU groups that is the MUFU function (`ptxfp::mufu`, compiled into the
//! reading loop: [`mufu_in_place`]), read exactly as `ptx::lower` composes the spellings on
//! sm_70 and later (docs/semantics.md §1.1):
//! - `MUFU.X` is the function, `MUFU.X.SAT` its result through `round::saturate`;
//! - `rcp`, `rsqrt`, `sqrt`, `lg2` and `ex2` `.approx.ftz.f32` and `tanh.approx.f32` are the
//!   function itself;
//! - `sin` and `cos` `.approx{.ftz}.f32` are the function of `FMUL.RZ(x, 0x3E22F983)`, which
//!   the host computes ([`turns`]; `.ftz` changes nothing there);
//! - the other `.approx.f32` forms are the function itself outside the inputs that take a
//!   scaling branch, where `eval_unchecked` is called: for `rsqrt`, `sqrt` and `lg2` the inputs
//!   below FLT_MIN in magnitude and the NaNs; for `ex2` the NaNs and the inputs in (−256, −126)
//!   (at or below −256 the scaling gives +0, as the function does: [`ex2_scaled`]);
//!   for `rcp` the inputs below FLT_MIN or above 2^126 in magnitude (elsewhere the scale is 1:
//!   `FMUL(x, 1)` is `x` for a normal x and the canonical NaN for a NaN, whose MUFU.RCP is the
//!   canonical NaN either way, and `FMUL(1, r)` is `r` for every MUFU result, which is never
//!   subnormal and whose NaN is canonical).
//!
//!
//! The IEEE `rcp` and `sqrt` read the host's division `1/x` and square root, which IEEE 754
//! rounds to nearest (an oracle independent of ptxfp): the canonical NaN for a NaN, and in a
//! directed mode the neighbour toward the exact value where nearest went the other way, which
//! the exact residual in f64 tells (`1 − r·x` and `r² − x`; `r·x` and `r²` have at most 48
//! bits). `.ftz` changes the result only for a subnormal input and, for `rcp`, for |x| ≥ 2^125,
//! whose reciprocal may be tiny; there the definition is evaluated.
//!
//! The function values and readings are plain loops compiled for the widest SIMD level the
//! processor has (`SimdLevel::compiled_for`; the host's arithmetic gives the same bits at
//! every level), as the kernels are, rather than as the baseline x86-64 build compiles them.
//!
//! Each reading is checked against `eval_unchecked` itself, for every spelling: in the
//! all-input tests on every 4096th input of each block (2^20 inputs per spelling), in the
//! default tier on every 65537th input and around every threshold of the scaling branches.

use std::cmp::Ordering;

use common::{fill, side};
use ptxfp::ptx::{catalog, MufuFn};
use ptxfp::round::saturate;
use ptxfp::{mufu, Format, Instr, Opcode, Rounding, SimdLevel, Target, Type};

const F32: Format = Format::F32;
const FLT_MIN: u32 = 0x0080_0000;
const TWO_125: u32 = 0x7E00_0000;
const TWO_126: u32 = 0x7E80_0000;
const INF: u32 = 0x7F80_0000;
/// −126.0.
const MINUS_126: u32 = 0xC2FC_0000;
/// −256.0.
const MINUS_256: u32 = 0xC380_0000;
/// RN(1/2π), the FMUL.RZ constant before MUFU.SIN/COS.
const INV_2PI: u32 = 0x3E22_F983;

/// The function a group's spellings read, and where it is evaluated.
#[derive(Clone, Copy)]
enum Function {
    /// A MUFU function (sm_70 and later: on the float) at the input.
    Mufu(MufuFn),
    /// A MUFU function at `FMUL.RZ(x, 1/2π)` ([`turns`]).
    MufuOfTurns(MufuFn),
    /// The host's IEEE `1/x` ([`host_rcp`]), with [`rcp_side`].
    HostRcp,
    /// The host's IEEE `√x` ([`host_sqrt`]), with [`sqrt_side`].
    HostSqrt,
}

/// How a spelling's scalar definition reads its group's function value `f`.
#[derive(Clone, Copy)]
enum Reading {
    /// `f`.
    Value,
    /// `saturate(f)`.
    Saturated,
    /// `f` except on the inputs of `.0` (the scaling branches), where the definition is
    /// evaluated.
    ValueOutside(Evaluated),
    /// `f`, rounded to nearest, in direction `.0` ([`directed`]) by its side of the exact
    /// value; the definition is evaluated on the inputs of `.1`.
    Directed(Rounding, Evaluated),
}

/// The inputs on which a reading evaluates the scalar definition rather than reading the
/// function value (a `match` outside the reading loops, each of which inlines its test).
#[derive(Clone, Copy)]
enum Evaluated {
    Never,
    /// [`subnormal`].
    Subnormal,
    /// [`subnormal_or_from_2_125`].
    SubnormalOrFrom2_125,
    /// [`below_flt_min_or_nan`].
    BelowFltMinOrNan,
    /// [`rcp_scaled`].
    RcpScaled,
    /// [`ex2_scaled`].
    Ex2Scaled,
}

/// A function (MUFU's, or the host's IEEE operation) and the spellings whose scalar definitions
/// read it.
struct Group {
    function: Function,
    spellings: &'static [(&'static str, Reading)],
}

fn magnitude(x: u32) -> u32 {
    x & 0x7FFF_FFFF
}

fn is_nan(x: u32) -> bool {
    magnitude(x) > INF
}

/// `rsqrt`, `sqrt`, `lg2` `.approx.f32`: zeros, subnormals and NaNs are scaled by 2^24 first.
fn below_flt_min_or_nan(x: u32) -> bool {
    magnitude(x) < FLT_MIN || is_nan(x)
}

/// `rcp.approx.f32`: inputs below FLT_MIN are scaled by 2^24, those above 2^126 by 1/4.
fn rcp_scaled(x: u32) -> bool {
    !is_nan(x) && (magnitude(x) < FLT_MIN || magnitude(x) > TWO_126)
}

/// `ex2.approx.f32`: unless x ≥ −126, the argument is halved and the result squared; but at
/// or below −256 (−Inf included) that gives +0, as MUFU.EX2 of x itself does: both x and x/2
/// are at or below −128, where MUFU.EX2 underflows to +0, and FMUL(+0, +0) is +0. The scaled
/// inputs whose result differs from the function's are the NaNs and those in (−256, −126).
fn ex2_scaled(x: u32) -> bool {
    is_nan(x) || (x >> 31 == 1 && magnitude(x) > magnitude(MINUS_126) && magnitude(x) < magnitude(MINUS_256))
}

/// The host's IEEE `1/x`, rounded to nearest.
fn host_rcp(x: u32) -> u32 {
    (1.0 / f32::from_bits(x)).to_bits()
}

/// The host's IEEE `√x`, rounded to nearest.
fn host_sqrt(x: u32) -> u32 {
    f32::from_bits(x).sqrt().to_bits()
}

/// Whether x is a zero, an infinity or a NaN (for `rcp` and `sqrt` the IEEE result is exact).
fn exact_input(x: u32) -> bool {
    magnitude(x) == 0 || magnitude(x) >= INF
}

/// Where `r`, the nearest f32 to 1/x, lies against 1/x: r − 1/x = (r·x − 1)/x, and r·x − 1
/// is exact in f64 (r·x has at most 48 bits and lies in [1/2, 2]). An infinite r is an
/// overflow, beyond the exact value.
fn rcp_side(x: u32, r: u32) -> Ordering {
    let (x, r) = (f64::from(f32::from_bits(x)), f64::from(f32::from_bits(r)));
    if r.is_infinite() {
        return if r > 0.0 { Ordering::Greater } else { Ordering::Less };
    }
    side((r * x - 1.0) * x, 0.0)
}

/// Where `r`, the nearest f32 to √x, lies against √x: as r² against x, both exact in f64.
fn sqrt_side(x: u32, r: u32) -> Ordering {
    let (x, r) = (f64::from(f32::from_bits(x)), f64::from(f32::from_bits(r)));
    side(r * r, x)
}

/// `r`, the f32 nearest to an exact value on whose `side` it lies, rounded in direction `rnd`
/// instead: r, or its neighbour toward the exact value (one unit of the encoding: from an
/// infinity the largest finite value, from the smallest subnormal a zero) where the direction
/// asks for the other side; the canonical NaN for a NaN.
fn directed(rnd: Rounding, r: u32, side: Ordering) -> u32 {
    let negative = r >> 31 == 1;
    let down = side == Ordering::Greater && (rnd == Rounding::Rm || (rnd == Rounding::Rz && !negative));
    let up = side == Ordering::Less && (rnd == Rounding::Rp || (rnd == Rounding::Rz && negative));
    // Toward larger values a positive magnitude grows and a negative one shrinks. Written
    // without branches: `side` is as often one way as the other.
    let toward_larger = i32::from(up) - i32::from(down);
    let moved = r.wrapping_add_signed(if negative { -toward_larger } else { toward_larger });
    if is_nan(r) {
        F32.canonical_nan() as u32
    } else {
        moved
    }
}

/// `.ftz` of `sqrt`: a subnormal input is flushed (the root of a normal one is normal).
fn subnormal(x: u32) -> bool {
    magnitude(x) != 0 && magnitude(x) < FLT_MIN
}

/// `.ftz` of `rcp`: a subnormal input is flushed; for |x| ≥ 2^125 the result may be tiny.
fn subnormal_or_from_2_125(x: u32) -> bool {
    subnormal(x) || (magnitude(x) >= TWO_125 && !is_nan(x))
}

const GROUPS: [(&str, Group); 12] = {
    use Evaluated::{BelowFltMinOrNan, Ex2Scaled, Never, RcpScaled, Subnormal, SubnormalOrFrom2_125};
    use Function::{HostRcp, HostSqrt, Mufu, MufuOfTurns};
    use Reading::{Directed, Saturated, Value, ValueOutside};
    use Rounding::{Rm, Rn, Rp, Rz};
    [
        (
            "rcp",
            Group {
                function: Mufu(MufuFn::Rcp),
                spellings: &[
                    ("MUFU.RCP", Value),
                    ("MUFU.RCP.SAT", Saturated),
                    ("rcp.approx.ftz.f32", Value),
                    ("rcp.approx.f32", ValueOutside(RcpScaled)),
                ],
            },
        ),
        (
            "rsq",
            Group {
                function: Mufu(MufuFn::Rsq),
                spellings: &[
                    ("MUFU.RSQ", Value),
                    ("MUFU.RSQ.SAT", Saturated),
                    ("rsqrt.approx.ftz.f32", Value),
                    ("rsqrt.approx.f32", ValueOutside(BelowFltMinOrNan)),
                ],
            },
        ),
        (
            "sqrt",
            Group {
                function: Mufu(MufuFn::Sqrt),
                spellings: &[
                    ("MUFU.SQRT", Value),
                    ("MUFU.SQRT.SAT", Saturated),
                    ("sqrt.approx.ftz.f32", Value),
                    ("sqrt.approx.f32", ValueOutside(BelowFltMinOrNan)),
                ],
            },
        ),
        (
            "lg2",
            Group {
                function: Mufu(MufuFn::Lg2),
                spellings: &[
                    ("MUFU.LG2", Value),
                    ("MUFU.LG2.SAT", Saturated),
                    ("lg2.approx.ftz.f32", Value),
                    ("lg2.approx.f32", ValueOutside(BelowFltMinOrNan)),
                ],
            },
        ),
        (
            "ex2",
            Group {
                function: Mufu(MufuFn::Ex2),
                spellings: &[
                    ("MUFU.EX2", Value),
                    ("MUFU.EX2.SAT", Saturated),
                    ("ex2.approx.ftz.f32", Value),
                    ("ex2.approx.f32", ValueOutside(Ex2Scaled)),
                ],
            },
        ),
        ("sin", Group { function: Mufu(MufuFn::Sin), spellings: &[("MUFU.SIN", Value), ("MUFU.SIN.SAT", Saturated)] }),
        ("cos", Group { function: Mufu(MufuFn::Cos), spellings: &[("MUFU.COS", Value), ("MUFU.COS.SAT", Saturated)] }),
        (
            "sin.approx",
            Group {
                function: MufuOfTurns(MufuFn::Sin),
                spellings: &[("sin.approx.f32", Value), ("sin.approx.ftz.f32", Value)],
            },
        ),
        (
            "cos.approx",
            Group {
                function: MufuOfTurns(MufuFn::Cos),
                spellings: &[("cos.approx.f32", Value), ("cos.approx.ftz.f32", Value)],
            },
        ),
        (
            "tanh",
            Group { function: Mufu(MufuFn::Tanh), spellings: &[("MUFU.TANH", Value), ("tanh.approx.f32", Value)] },
        ),
        (
            "rcp.ieee",
            Group {
                function: HostRcp,
                spellings: &[
                    ("rcp.rn.f32", Directed(Rn, Never)),
                    ("rcp.rz.f32", Directed(Rz, Never)),
                    ("rcp.rm.f32", Directed(Rm, Never)),
                    ("rcp.rp.f32", Directed(Rp, Never)),
                    ("rcp.rn.ftz.f32", Directed(Rn, SubnormalOrFrom2_125)),
                    ("rcp.rz.ftz.f32", Directed(Rz, SubnormalOrFrom2_125)),
                    ("rcp.rm.ftz.f32", Directed(Rm, SubnormalOrFrom2_125)),
                    ("rcp.rp.ftz.f32", Directed(Rp, SubnormalOrFrom2_125)),
                ],
            },
        ),
        (
            "sqrt.ieee",
            Group {
                function: HostSqrt,
                spellings: &[
                    ("sqrt.rn.f32", Directed(Rn, Never)),
                    ("sqrt.rz.f32", Directed(Rz, Never)),
                    ("sqrt.rm.f32", Directed(Rm, Never)),
                    ("sqrt.rp.f32", Directed(Rp, Never)),
                    ("sqrt.rn.ftz.f32", Directed(Rn, Subnormal)),
                    ("sqrt.rz.ftz.f32", Directed(Rz, Subnormal)),
                    ("sqrt.rm.ftz.f32", Directed(Rm, Subnormal)),
                    ("sqrt.rp.ftz.f32", Directed(Rp, Subnormal)),
                ],
            },
        ),
    ]
};

/// `FMUL.RZ(x, 1/2π)` from the host's arithmetic: the product of two f32s is exact in f64
/// (48 significant bits, exponents far inside its range), and its rounding toward zero to
/// f32 is the rounding to nearest (`as f32`, subnormals and overflow included) stepped one
/// encoding toward zero where that went away from zero; a NaN gives the canonical NaN
/// (docs/semantics.md §4).
fn turns(x: u32) -> u32 {
    let exact = f64::from(f32::from_bits(x)) * f64::from(f32::from_bits(INV_2PI));
    if exact.is_nan() {
        return F32.canonical_nan() as u32;
    }
    let nearest = exact as f32;
    if f64::from(nearest).abs() > exact.abs() {
        nearest.to_bits() - 1
    } else {
        nearest.to_bits()
    }
}

/// A block's function values and, for a correctly rounded function, on which side of the
/// exact value each lies (equal at an exact input or a NaN).
#[derive(Default)]
struct Values {
    value: Vec<u32>,
    side: Vec<Ordering>,
}

/// The group's function at each input of `xs`, into `v`. One plain loop per function, so that
/// the host's operations and [`turns`] are compiled into it (vectorised where the level
/// allows) rather than called through a pointer (`fill`: `Vec::extend` kept its loop in a
/// separate function compiled for the baseline).
#[inline(always)]
fn values(group: &Group, xs: &[u32], v: &mut Values) {
    #[inline(always)]
    fn each_side(xs: &[u32], v: &mut Values, side: impl Fn(u32, u32) -> Ordering) {
        v.side.resize(xs.len(), Ordering::Equal);
        for ((s, &x), &r) in v.side.iter_mut().zip(xs).zip(&v.value) {
            let side = side(x, r);
            *s = if exact_input(x) || is_nan(r) { Ordering::Equal } else { side };
        }
    }
    match group.function {
        Function::Mufu(f) => {
            v.value.clear();
            v.value.extend_from_slice(xs);
            mufu_in_place(f, &mut v.value);
        }
        Function::MufuOfTurns(f) => {
            // The arguments first, in a loop of their own that vectorises.
            fill(&mut v.value, xs.len(), xs.iter().map(|&x| turns(x)));
            mufu_in_place(f, &mut v.value);
        }
        Function::HostRcp => {
            fill(&mut v.value, xs.len(), xs.iter().map(|&x| host_rcp(x)));
            each_side(xs, v, rcp_side);
        }
        Function::HostSqrt => {
            fill(&mut v.value, xs.len(), xs.iter().map(|&x| host_sqrt(x)));
            each_side(xs, v, sqrt_side);
        }
    }
}

/// The MUFU function `f` (on the float, as on sm_70 and later) of each word of `words`, in
/// place: a loop per function that calls it directly, so that its (inlinable) definition is
/// compiled into the loop, vectorised where the level allows, instead of called per word (a
/// `for` loop: a `for_each` stays a baseline call, see [`read`]).
#[inline(always)]
fn mufu_in_place(f: MufuFn, words: &mut [u32]) {
    macro_rules! each {
        ($($f:ident => $function:path,)*) => {
            match f {
                $(MufuFn::$f => {
                    for w in words.iter_mut() {
                        *w = $function(*w);
                    }
                })*
                MufuFn::Rcp64h | MufuFn::Rsq64h => unreachable!("no f32 group reads {f:?}"),
            }
        };
    }
    each! {
        Rcp => mufu::rcp::rcp,
        Rsq => mufu::rsq::rsq,
        Sqrt => mufu::sqrt::sqrt,
        Lg2 => mufu::lg2::lg2,
        Ex2 => mufu::ex2::ex2,
        Sin => mufu::sincos::sin,
        Cos => mufu::sincos::cos,
        Tanh => mufu::tanh::tanh,
    }
}

/// A spelling's scalar results on inputs `xs` as read from their function values `v` (from
/// [`values`]), into `want`; `scalar` evaluates the definition. Each reading is a plain loop
/// (vectorised), and the few inputs where the definition is evaluated are mended after.
#[inline(always)]
fn read(reading: Reading, xs: &[u32], v: &Values, want: &mut [u32], scalar: impl Fn(u32) -> u32) {
    // `for` loops rather than `for_each`: they inline into the level's compiled function,
    // where a `fold` stayed a baseline call.
    let evaluated = match reading {
        Reading::Value => {
            want.copy_from_slice(&v.value);
            return;
        }
        Reading::Saturated => {
            for (w, &f) in want.iter_mut().zip(&v.value) {
                *w = saturate(F32, f.into()) as u32;
            }
            return;
        }
        Reading::ValueOutside(scaled) => {
            want.copy_from_slice(&v.value);
            scaled
        }
        Reading::Directed(rnd, evaluated) => {
            // A loop per direction, each with its tests of `rnd` decided.
            #[inline(always)]
            fn each(rnd: Rounding, v: &Values, want: &mut [u32]) {
                for ((w, &f), &side) in want.iter_mut().zip(&v.value).zip(&v.side) {
                    *w = directed(rnd, f, side);
                }
            }
            match rnd {
                Rounding::Rn => each(Rounding::Rn, v, want),
                Rounding::Rz => each(Rounding::Rz, v, want),
                Rounding::Rm => each(Rounding::Rm, v, want),
                Rounding::Rp => each(Rounding::Rp, v, want),
            }
            evaluated
        }
    };
    // One loop per set of inputs, each with its test inlined.
    #[inline(always)]
    fn mend(xs: &[u32], want: &mut [u32], holds: impl Fn(u32) -> bool, scalar: impl Fn(u32) -> u32) {
        // Most blocks hold none of these inputs: a count first, which vectorises (the loop
        // below, with its call, does not).
        let mut count = 0u32;
        for &x in xs {
            count = count.wrapping_add(u32::from(holds(x)));
        }
        if count == 0 {
            return;
        }
        for (w, &x) in want.iter_mut().zip(xs) {
            if holds(x) {
                *w = scalar(x);
            }
        }
    }
    match evaluated {
        Evaluated::Never => {}
        Evaluated::Subnormal => mend(xs, want, subnormal, scalar),
        Evaluated::SubnormalOrFrom2_125 => mend(xs, want, subnormal_or_from_2_125, scalar),
        Evaluated::BelowFltMinOrNan => mend(xs, want, below_flt_min_or_nan, scalar),
        Evaluated::RcpScaled => mend(xs, want, rcp_scaled, scalar),
        Evaluated::Ex2Scaled => mend(xs, want, ex2_scaled, scalar),
    }
}

fn parse(spellings: &[(&str, Reading)]) -> Vec<(Instr, Reading)> {
    spellings.iter().map(|&(s, reading)| (s.parse().expect("a catalog spelling"), reading)).collect()
}

/// The groups hold every unary f32 spelling of the catalog that has a kernel on sm_90, once,
/// but for `abs`, `neg` and `testp` (bit operations, in batch_equivalence_arith.rs's
/// 10^7-word tiers), `cvt` (batch_equivalence_cvt.rs), and MUFU.RCP64H/RSQ64H and RRO
/// (batch_equivalence_mufu.rs: every input of the 64H datapaths, all 2^32 RRO inputs).
#[test]
fn groups_cover_every_unary_f32_kernel() {
    let elsewhere = |op: Opcode| {
        matches!(
            op,
            Opcode::Abs
                | Opcode::Neg
                | Opcode::Testp(_)
                | Opcode::Cvt { .. }
                | Opcode::Rro(_)
                | Opcode::Mufu(MufuFn::Rcp64h | MufuFn::Rsq64h)
        )
    };
    let mut covered: Vec<String> = GROUPS
        .iter()
        .flat_map(|(_, g)| g.spellings.iter().map(|(s, _)| s.parse::<Instr>().unwrap().to_string()))
        .collect();
    let mut kernels: Vec<String> = catalog::entries()
        .iter()
        .filter(|e| e.sources == 1 && e.instr.ty() == Type::F32 && !elsewhere(e.instr.opcode()))
        .filter(|e| e.instr.is_vectorized(Target::DEFAULT))
        .map(|e| e.instr.to_string())
        .collect();
    covered.sort_unstable();
    kernels.sort_unstable();
    assert_eq!(covered, kernels);
}

/// The readings against `eval_unchecked` on every 65537th input and on the neighbours of
/// the scaling thresholds (±FLT_MIN, ±2^126, −126), of 2^125 and of zero and infinity.
#[test]
fn readings_match_the_scalar_definitions_on_a_sample() {
    let target = Target::DEFAULT;
    let mut xs: Vec<u32> = (0..=u32::MAX).step_by(65537).collect();
    for edge in [0, FLT_MIN, TWO_125, TWO_126, INF, MINUS_126 & 0x7FFF_FFFF, MINUS_256 & 0x7FFF_FFFF] {
        for d in 0..4 {
            for m in [edge.wrapping_add(d), edge.wrapping_sub(d)] {
                xs.extend([m, m | 0x8000_0000]);
            }
        }
    }
    let (mut function_values, mut read_values) = (Values::default(), vec![0; xs.len()]);
    for (name, group) in &GROUPS {
        values(group, &xs, &mut function_values);
        for (instr, reading) in parse(group.spellings) {
            let scalar = |x: u32| instr.eval_unchecked(target, &[x.into()]) as u32;
            read(reading, &xs, &function_values, &mut read_values, scalar);
            for (&x, &got) in xs.iter().zip(&read_values) {
                let want = scalar(x);
                assert_eq!(got, want, "{name}: {instr} {x:#010x} read {got:#010x}, scalar {want:#010x}");
            }
        }
    }
}

mod all_cores;
mod common;
mod failures;

mod all_inputs {
    use std::time::Instant;

    use rayon::prelude::*;

    use super::failures::Failures;
    use super::*;

    fn group(name: &str) -> &'static Group {
        &GROUPS.iter().find(|(n, _)| *n == name).expect("a group of GROUPS").1
    }

    /// All 2^32 inputs of every spelling of the group, in blocks of 2^16 on every core; the
    /// readings compiled for the widest level the processor has (the host's arithmetic gives
    /// the same bits at every level).
    fn exhaustive(name: &str) {
        let _all_cores = all_cores::hold();
        let group = group(name);
        let target = Target::DEFAULT;
        let spellings = parse(group.spellings);
        for (instr, _) in &spellings {
            assert!(instr.is_vectorized(target), "{instr} has no kernel on {target}");
        }
        let start = Instant::now();
        let kernels = Failures::new();
        let readings = Failures::new();
        (0..1u32 << 16).into_par_iter().for_each_init(
            || (vec![0u32; 1 << 16], Values::default(), vec![0u32; 1 << 16], vec![0u32; 1 << 16]),
            |(xs, value, want, got), block| {
                for (i, x) in xs.iter_mut().enumerate() {
                    *x = block << 16 | i as u32;
                }
                let level = SimdLevel::detected();
                level.compiled_for(
                    #[inline(always)]
                    || values(group, xs, value),
                );
                for (instr, reading) in &spellings {
                    let scalar = |x: u32| instr.eval_unchecked(target, &[x.into()]) as u32;
                    level.compiled_for(
                        #[inline(always)]
                        || read(*reading, xs, value, want, scalar),
                    );
                    instr.eval_batch(target, &[&xs[..]], &mut got[..]).unwrap();
                    if got != want {
                        for ((&x, &g), &w) in xs.iter().zip(got.iter()).zip(want.iter()).filter(|((_, g), w)| g != w) {
                            kernels.record(|| format!("{instr} {x:#010x}: kernel {g:#010x}, scalar {w:#010x}"));
                        }
                    }
                    for (&x, &w) in xs.iter().zip(want.iter()).step_by(4096) {
                        let s = scalar(x);
                        if s != w {
                            readings.record(|| format!("{instr} {x:#010x}: scalar {s:#010x}, read {w:#010x}"));
                        }
                    }
                }
            },
        );
        let ((differ, differ_examples), (misread, misread_examples)) = (kernels.into_report(), readings.into_report());
        eprintln!(
            "{name}: all 2^32 inputs of {} spellings in {:.1} s: {differ} kernel mismatches, {misread} misread scalar results",
            spellings.len(),
            start.elapsed().as_secs_f64()
        );
        assert!(misread == 0, "{name}: {misread} readings differ:\n{misread_examples}");
        assert!(differ == 0, "{name}: {differ} kernel mismatches:\n{differ_examples}");
    }

    macro_rules! exhaustive_tests {
        ($($name:ident: $group:literal,)*) => {$(
            #[test]
            #[ignore = "exhaustive tier: run with --include-ignored"]
            fn $name() {
                exhaustive($group);
            }
        )*};
    }

    exhaustive_tests! {
        exhaustive_rcp: "rcp",
        exhaustive_rsq: "rsq",
        exhaustive_sqrt: "sqrt",
        exhaustive_lg2: "lg2",
        exhaustive_ex2: "ex2",
        exhaustive_sin: "sin",
        exhaustive_cos: "cos",
        exhaustive_sin_approx: "sin.approx",
        exhaustive_cos_approx: "cos.approx",
        exhaustive_tanh: "tanh",
        exhaustive_rcp_ieee: "rcp.ieee",
        exhaustive_sqrt_ieee: "sqrt.ieee",
    }
}
