//! Correctly rounded references for `ptxfp sweep`: for each input, the exact value of the
//! mathematical function approximated in f64, and the correctly rounded (to nearest, ties to
//! even) result in the instruction's result format.
//!
//! # Why the rounded results are correct
//!
//! Every path first computes an f64 `value` with a proven relative error bound e (per path
//! below; [`VALUE_REL_ERROR`] is the largest). No value of a finite f32, f16 or bf16 input is
//! an f64 subnormal except `2^x` for x < −1022, whose f32 result is +0 anyway.
//!
//! - **Innocuous double rounding (Rcp, Sqrt).** `1/x` and `sqrt(x)` are single IEEE f64
//!   operations, so `value` is the correctly rounded f64 of the exact result, and rounding it
//!   once more to a p-bit format (p ≤ 24) is the correct rounding of the exact result: f64's
//!   53 bits are at least 2p + 2, which makes double rounding innocuous for quotients and
//!   square roots of p-bit operands (Figueroa, "When is double rounding innocuous?", 1995).
//!   The format's range ends do not break the theorem: a square root of a finite input never
//!   overflows nor lands in the subnormal range; for `q = 1/x` every rounding boundary B (a
//!   midpoint, on the normal or subnormal grid, or the overflow threshold) is `b·2^β` with an
//!   odd b < 2^(p+2). With x = m·2^ε (m < 2^p), `B·x = b·m·2^(β+ε)` is 1 only if b = 1 (B is
//!   half the smallest subnormal) and x = 1/B, which lies beyond the format's range (2^150,
//!   2^25, 2^134). Otherwise |1 − B·x| ≥ min(1, 2^(β+ε)) ≥ min(1, B·x·2^-50) (b·m < 2^50), so
//!   |q − B| = |1 − B·x|/x ≥ min(q, 2^-50·B), a gap f64's rounding error 2^-53·q cannot bridge
//!   (if q ≥ 8B, |q − B| > q/2 anyway): the f64 quotient lies strictly on the same side of
//!   every boundary as q.
//! - **Bracketing (f32 results of the other functions).** Lemma: let y ≠ 0 be real and v an f64
//!   with |v − y| ≤ e·|y|, 2^-53 ≤ e ≤ 2^-20, e a power of two, and let lo = fl(v·(1 − 4e)),
//!   hi = fl(v·(1 + 4e)) (1 ± 4e are exact in f64). Then y lies between lo and hi. Proof for
//!   v > 0 (v < 0 is symmetric; v = 0 forces y = 0): y ≤ v/(1 − e) ≤ v·(1 + e + 2e²), while
//!   hi ≥ v·(1 + 4e)(1 − 2^-53) ≥ v·(1 + 4e)(1 − e) = v·(1 + 3e − 4e²) ≥ v·(1 + e + 2e²);
//!   likewise y ≥ v/(1 + e) ≥ v·(1 − e) ≥ v·(1 − 3e − 4e²) ≥ lo. Rounding to f32 is monotone,
//!   so when `lo as f32` and `hi as f32` are the same number, it is the correct rounding of y,
//!   boundaries of the subnormal grid and the overflow threshold included. Otherwise (y may lie
//!   close to a boundary) the input is passed to the CORE-MATH correctly rounded f32 function.
//!   For values below 2^-1022 or above 2^1000 (Ex2 only) the lemma's premise may fail, but
//!   then lo, hi and y are all below 2^-1000 and round to +0, or all beyond f32's range.
//! - **Ties (f16 and bf16 results).** Every half-precision path computes a correctly rounded f64
//!   value v = RN64(y). Each rounding boundary B of f16 or bf16 is representable in f64, and
//!   rounding is monotone, so v > B implies y > B and v < B implies y < B: v rounds like y
//!   unless v is itself a boundary. That case is decided when the value is exact (Ex2 of an
//!   integer: `2^-25` for f16 and `2^-134` for bf16 are boundaries and round to +0) or by the
//!   double-rounding argument above (Rcp, Sqrt). Otherwise y lies within half an f64 ulp of B
//!   (y = B itself does not occur: no function takes a boundary value at these inputs but in
//!   the exact case above); the correctly rounded f32 value cannot help there, as B is an f32
//!   too and RN32(y) = B, so the function panics naming the input. The tests run all 2^16 inputs of
//!   every function in both formats: it never happens.
//!
//! # Paths and their bounds e
//!
//! | function | f32 `value` | e | f16/bf16 `value` (e = 2^-53) |
//! |---|---|---|---|
//! | Rcp, Sqrt | f64 `1/x`, `sqrt(x)`, 8 lanes | 2^-53, no check needed | the same |
//! | Rsqrt | f64 `1/sqrt(x)`, 8 lanes (two roundings) | 2^-51 | CORE-MATH |
//! | Ex2, Lg2 | polynomials, 8 lanes (`ex2_lanes`, `lg2_lanes`) | 2^-45 (proved 2^-47.8, 2^-48.9) | CORE-MATH |
//! | Sin, Cos | polynomials, 8 lanes (`trig::sin_lanes`); CORE-MATH beyond ±2^24 | 2^-45 (proved 2^-47.8) | CORE-MATH |
//! | Tanh | CORE-MATH `tanh`, 8 lanes (`tanh_lanes`: x for \|x\| < 2^-27, ±1 for \|x\| ≥ 20) | 2^-53 | CORE-MATH |
//! | SinTurns, CosTurns | CORE-MATH `sinpi(2x)`, `cospi(2x)` (2x is exact) | 2^-53 | CORE-MATH |
//!
//! Over all 2^32 f32 inputs the bracketing check sends 1558 inputs of Ex2, 7405 of Lg2, 256 of
//! Rsqrt, 7168 of Sin and 7366 of Cos (1870 and 1954 of them with |x| ≤ 2^24; beyond, the
//! CORE-MATH values are checked with the same e = 2^-45), 8 of SinTurns, 6 of CosTurns and none
//! of Tanh to the scalar function (`tests/sweep_reference.rs`, exhaustive tier).

use crate::format::{Format, Unpacked};
use crate::kernels::level::{at_level, Isa};
use crate::kernels::simd::{f32x8, f64x8, lane_loop, u32x8, u64x8};
use crate::kernels::SimdLevel;
use crate::round::{round_pack, Rounding};

#[path = "exact_trig.rs"]
mod trig;

/// The mathematical functions the approximate instructions compute or approximate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// 1/x
    Rcp,
    /// sqrt(x)
    Sqrt,
    /// 1/sqrt(x)
    Rsqrt,
    /// 2^x
    Ex2,
    /// log2(x)
    Lg2,
    /// sin(x), x in radians
    Sin,
    /// cos(x)
    Cos,
    /// tanh(x)
    Tanh,
    /// sin(2*pi*x) (what MUFU.SIN computes on sm_70+: input in turns)
    SinTurns,
    /// cos(2*pi*x)
    CosTurns,
}

impl MathFn {
    /// Every function, in declaration order (for tests).
    #[cfg(any(test, feature = "internals"))]
    pub const ALL: [MathFn; 10] = [
        MathFn::Rcp,
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Ex2,
        MathFn::Lg2,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tanh,
        MathFn::SinTurns,
        MathFn::CosTurns,
    ];

    /// A short formula for reports, e.g. "2^x", "1/sqrt(x)", "sin(2*pi*x)".
    pub fn formula(self) -> &'static str {
        match self {
            MathFn::Rcp => "1/x",
            MathFn::Sqrt => "sqrt(x)",
            MathFn::Rsqrt => "1/sqrt(x)",
            MathFn::Ex2 => "2^x",
            MathFn::Lg2 => "log2(x)",
            MathFn::Sin => "sin(x)",
            MathFn::Cos => "cos(x)",
            MathFn::Tanh => "tanh(x)",
            MathFn::SinTurns => "sin(2*pi*x)",
            MathFn::CosTurns => "cos(2*pi*x)",
        }
    }

    /// The correctly rounded f64 value of the function (CORE-MATH, or one IEEE operation).
    fn f64_cr(self, x: f64) -> f64 {
        match self {
            MathFn::Rcp => 1.0 / x,
            MathFn::Sqrt => x.sqrt(),
            MathFn::Rsqrt => core_math::rsqrt(x),
            MathFn::Ex2 => core_math::exp2(x),
            MathFn::Lg2 => core_math::log2(x),
            MathFn::Sin => core_math::sin(x),
            MathFn::Cos => core_math::cos(x),
            MathFn::Tanh => core_math::tanh(x),
            MathFn::SinTurns => core_math::sinpi(2.0 * x),
            MathFn::CosTurns => core_math::cospi(2.0 * x),
        }
    }
}

/// The relative error bound of `value` (|value − f(x)| ≤ VALUE_REL_ERROR·|f(x)| for finite
/// nonzero results) that the rounding-ambiguity check relies on.
///
/// It bounds the f32 Ex2, Lg2, Sin and Cos polynomial paths with a margin (they are proved
/// below 2^-47.8, 2^-48.9 and 2^-47.8 at `ex2_lanes`, `lg2_lanes` and `trig::sin_lanes`);
/// every other path is tighter (module documentation). It holds wherever f(x) is in f64's
/// normal range; beyond it `value` is ±Inf, or for Ex2 an f64 subnormal or zero.
pub const VALUE_REL_ERROR: f64 = 1.0 / (1u64 << 45) as f64;

/// Relative error bound of a correctly rounded f64 value.
const CR_ERROR: f64 = 1.0 / (1u64 << 53) as f64;

/// Relative error bound of f64 `1/sqrt(x)`: (1 + 2^-53)/(1 − 2^-53) − 1 < 2^-51.
const RSQRT_ERROR: f64 = 1.0 / (1u64 << 51) as f64;

/// For each f32 input (bit pattern in `x`), write the exact value `f(x)` approximated in f64
/// into `value` and the correctly rounded (RN, IEEE subnormals, overflow to infinity) f32
/// result bits into `rounded`. All three slices have the same length (panic otherwise is OK —
/// it is an internal API).
///
/// A NaN result is written as 0x7FC00000. Rcp, Sqrt, Rsqrt, Ex2, Lg2, Sin, Cos and Tanh run in
/// lanes of 8 (Sin and Cos call CORE-MATH f64 for |x| > 2^24, Tanh for 2^-27 ≤ |x| < 20); the
/// others call CORE-MATH f64 per element. Every path but Rcp and Sqrt takes the result from the CORE-MATH f32 function
/// exactly for the inputs where `value·(1 − 4e)` and `value·(1 + 4e)` round to different f32
/// values, e being the path's error bound (module documentation; e = [`VALUE_REL_ERROR`] for
/// Ex2, Lg2, Sin and Cos).
///
/// With `ftz` subnormal inputs are read as zeros of their sign and subnormal results written
/// as zeros of their sign (`value` is then the exact value at the flushed input).
///
/// The lanes run at the [`SimdLevel::active`] level; every level gives the same bits. An
/// input's value and result depend on that input alone, not on the others in `x`.
pub fn f32_block(f: MathFn, ftz: bool, x: &[u32], value: &mut [f64], rounded: &mut [u32]) {
    f32_block_at(SimdLevel::active(), f, ftz, x, value, rounded)
}

/// [`f32_block`] at `level`, which the processor must have ([`SimdLevel::is_supported`]).
pub(crate) fn f32_block_at(level: SimdLevel, f: MathFn, ftz: bool, x: &[u32], value: &mut [f64], rounded: &mut [u32]) {
    assert!(x.len() == value.len() && x.len() == rounded.len(), "f32_block: slice lengths differ");
    assert!(level.is_supported(), "the processor lacks the {level} level");
    at_level!(level, L => L::run(#[inline(always)] || f32_block_for::<L>(f, ftz, x, value, rounded)))
}

/// [`f32_block`] at the level `L`: everything but the scalar fallbacks is inlined into the
/// function [`Isa::run`] compiles for the level. (The lane functions are passed as closures
/// marked `#[inline(always)]`: a function item passed on may be compiled out of line, for
/// the baseline.)
#[allow(clippy::redundant_closure)]
#[inline(always)]
fn f32_block_for<L: Isa>(f: MathFn, ftz: bool, x: &[u32], value: &mut [f64], rounded: &mut [u32]) {
    fn each(f: fn(f64) -> f64) -> impl Fn(f64x8) -> (f64x8, bool) {
        move |v| {
            let mut out = v.to_array();
            for o in &mut out {
                *o = f(*o);
            }
            (f64x8::new(out), false)
        }
    }
    // Rcp and Sqrt round correctly by themselves (IEEE f32 division and square root would be
    // their correctly rounded f32 functions).
    // `blocks` on this block with the lane code `$body` of `$v` (compiled as an
    // `#[inline(always)]` closure) and the check `$check`.
    macro_rules! lanes {
        (|$v:ident| $body:expr, $check:expr) => {
            blocks(
                x,
                ftz,
                value,
                rounded,
                #[inline(always)]
                |$v| $body,
                $check,
            )
        };
    }
    match f {
        MathFn::Rcp => lanes!(|v| (f64x8::ONE / v, true), (CR_ERROR, |v| 1.0 / v)),
        MathFn::Sqrt => lanes!(|v| (v.sqrt(), true), (CR_ERROR, f32::sqrt)),
        MathFn::Rsqrt => lanes!(|v| (f64x8::ONE / v.sqrt(), false), (RSQRT_ERROR, core_math::rsqrtf)),
        MathFn::Ex2 => lanes!(|v| ex2_lanes(v), (VALUE_REL_ERROR, core_math::exp2f)),
        MathFn::Lg2 => lanes!(|v| lg2_lanes(v), (VALUE_REL_ERROR, core_math::log2f)),
        MathFn::Sin => lanes!(|v| trig::sin_lanes(v), (VALUE_REL_ERROR, core_math::sinf)),
        MathFn::Cos => lanes!(|v| trig::cos_lanes(v), (VALUE_REL_ERROR, core_math::cosf)),
        MathFn::Tanh => lanes!(|v| tanh_lanes(v), (CR_ERROR, core_math::tanhf)),
        // The fallback doubles x in f32, which overflows only for |x| ≥ 2^127; the check never
        // sends |x| ≥ 2^22 there, since 2x is then an integer and the value an exact ±0 or ±1.
        MathFn::SinTurns => blocks(
            x,
            ftz,
            value,
            rounded,
            each(|v| core_math::sinpi(2.0 * v)),
            (CR_ERROR, |v| core_math::sinpif(2.0 * v)),
        ),
        MathFn::CosTurns => blocks(
            x,
            ftz,
            value,
            rounded,
            each(|v| core_math::cospi(2.0 * v)),
            (CR_ERROR, |v| core_math::cospif(2.0 * v)),
        ),
    }
}

/// Whether [`f32_block`] writes one and the same result for every input of the run of
/// consecutive f32 inputs `first..=last` (ascending bit patterns), with values monotone along
/// the run, wherever the run stands in a block: then the run's statistics follow from its two
/// ends (the sweep's constant runs). Both hold where the value has a closed form:
/// - Ex2: an input with |x| < 2^-26 (after the flush with `ftz`) has the value
///   fl(1 + fl(x·ln 2)), which rounds to 1 (`ex2_lanes`); fl(1 + fl(x·ln 2)) is monotone in
///   x, as IEEE operations are in each operand.
/// - Ex2 beyond the f32 range: x ≥ 128 rounds to +Inf (2^x ≥ 2^128); x < −126 with `ftz`
///   to +0 (2^x is at most 2^-126·(1 − 2^-18) for the largest f32 below −126, a subnormal,
///   flushed), and without `ftz` x ≤ −150 (2^x ≤ 2^-150, half the smallest subnormal: +0,
///   the tie at −150 to even). The values there come from `ex2_reduced` (+Inf or +0 beyond
///   ±1100) and rise with x: two consecutive f32 inputs with |x| ≥ 64 are at least 2^-17
///   apart, so their exact values are at least a factor 2^(2^-17) > 1 + 2^-17.6 apart, which
///   two relative errors of at most 2^-47.8 (on the product p·2^n before its one rounding)
///   cannot undo; that last rounding (to an f64 subnormal, or to +Inf past 2^1024) is
///   monotone.
/// - Tanh: |x| ≥ 20 has the value ±1 (`tanh_lanes`).
///
/// The run must neither hold a NaN nor change sign; then the magnitudes of its inputs lie
/// between those of its ends, before and after the flush.
pub fn f32_constant_run(f: MathFn, ftz: bool, first: u32, last: u32) -> bool {
    const SIGN: u32 = 0x8000_0000;
    let nan = |b: u32| b & !SIGN > 0x7F80_0000;
    if first > last || (first ^ last) & SIGN != 0 || nan(first) || nan(last) {
        return false;
    }
    let magnitude = |b: u32| {
        let b = if ftz { Format::F32.flush_subnormal(b.into()) as u32 } else { b };
        f32::from_bits(b & !SIGN)
    };
    let (a, b) = (magnitude(first), magnitude(last));
    let both = |region: &dyn Fn(f32) -> bool| region(a) && region(b);
    let negative = first & SIGN != 0;
    match f {
        // (x ≥ 1100 and x ≤ −1100 lie beyond the +Inf and +0 thresholds.)
        MathFn::Ex2 => {
            both(&|m| m < 1.0 / (1u32 << 26) as f32)
                || both(&|m| match (negative, ftz) {
                    (false, _) => m >= 128.0,
                    (true, true) => m > 126.0,
                    (true, false) => m >= 150.0,
                })
        }
        MathFn::Tanh => both(&|m| m >= 20.0),
        _ => false,
    }
}

/// Positive f32 patterns where the regions of [`f32_constant_run`] begin or end, for the
/// tests (which take both signs): 0, the smallest normal, 2^-26, 20 (tanh), 126, 128, 150,
/// 1024 (where 2^x overflows f64), 1100 and +Inf.
#[cfg(any(test, feature = "internals"))]
pub const CONSTANT_RUN_EDGES: [u32; 10] = [
    0,
    0x0080_0000,
    0x3280_0000,
    0x41A0_0000,
    0x42FC_0000,
    0x4300_0000,
    0x4316_0000,
    0x4480_0000,
    0x4489_8000,
    0x7F80_0000,
];

/// The same for f16 or bf16 inputs and results (`fmt` is `Format::F16` or `Format::BF16`,
/// from `crate::format::Format`).
///
/// `value` is the correctly rounded f64 result (CORE-MATH, or one IEEE operation for Rcp and
/// Sqrt), and `rounded` its rounding to `fmt`, which is the correct rounding of the exact
/// result (module documentation, "Ties"). A NaN result is written as 0x7E00 (f16) or 0x7FC0
/// (bf16). `ftz` flushes subnormal inputs and results as in [`f32_block`].
///
/// # Panics
///
/// If the slice lengths differ, if `fmt` is not a 16-bit format, or if the f64 value of an
/// inexact result is exactly a rounding boundary, which the tests show never happens.
pub fn half_block(f: MathFn, fmt: Format, ftz: bool, x: &[u16], value: &mut [f64], rounded: &mut [u16]) {
    assert!(x.len() == value.len() && x.len() == rounded.len(), "half_block: slice lengths differ");
    let nan = match fmt {
        Format::F16 => 0x7E00,
        Format::BF16 => 0x7FC0,
        _ => panic!("half_block: {fmt:?} is not a 16-bit format"),
    };
    let flush = |bits: u16| if ftz { fmt.flush_subnormal(bits as u64) as u16 } else { bits };
    for ((&bits, v), r) in x.iter().zip(value.iter_mut()).zip(rounded.iter_mut()) {
        let bits = flush(bits);
        let input = fmt.to_f64(bits as u64);
        *v = f.f64_cr(input);
        *r = match nearest_half(fmt, *v) {
            Nearest::Nan => nan,
            Nearest::Decided(r) => r,
            Nearest::Tie(r) => {
                let exact = matches!(f, MathFn::Rcp | MathFn::Sqrt) || (f == MathFn::Ex2 && input.fract() == 0.0);
                assert!(
                    exact,
                    "half_block: {}({}) = {:e} lies within half an f64 ulp of a {} rounding boundary \
                     (input {bits:#06x}); its correct rounding is undecided",
                    f.formula(),
                    input,
                    *v,
                    fmt.name()
                );
                r
            }
        };
        *r = flush(*r);
    }
}

/// The rounding of an f64 to a 16-bit format.
enum Nearest {
    Nan,
    /// The value lies strictly between two rounding boundaries, or is infinite.
    Decided(u16),
    /// The value is exactly a boundary (a midpoint or the overflow threshold); the bits are
    /// its ties-to-even rounding.
    Tie(u16),
}

/// Round an f64 to `fmt` (f16 or bf16) to nearest, ties to even, with IEEE subnormals and
/// overflow to infinity ([`round_pack`], exact from the f64's bits), and say whether the f64
/// was exactly a rounding boundary.
fn nearest_half(fmt: Format, v: f64) -> Nearest {
    let (neg, exp, sig) = match Format::F64.unpack(v.to_bits(), false) {
        Unpacked::Nan => return Nearest::Nan,
        Unpacked::Inf { neg } => return Nearest::Decided(fmt.inf(neg) as u16),
        Unpacked::Zero { neg } => return Nearest::Decided(fmt.zero(neg) as u16),
        Unpacked::Finite { neg, exp, sig } => (neg, exp, sig),
    };
    let bits = round_pack(fmt, neg, exp, sig as u128, Rounding::Rn, false) as u16;
    // v = sig·2^exp has unbiased exponent `top`; below the overflow range the grid spacing is
    // 2^q, and v is a boundary (2k + 1)·2^(q−1) exactly when its odd part sits at 2^(q−1).
    let top = exp + 63 - sig.leading_zeros() as i32;
    let q = top.max(fmt.emin()) - fmt.frac_bits() as i32;
    if top <= fmt.emax() && exp + sig.trailing_zeros() as i32 == q - 1 {
        Nearest::Tie(bits)
    } else {
        Nearest::Decided(bits)
    }
}

/// The bracketing check of an f32 path: the relative error bound e of its values and the
/// correctly rounded f32 function for undecided inputs.
type Check = (f64, fn(f32) -> f32);

/// Run `eval` on `x` in groups of 8 (the last group padded with zeros) and write `value` and
/// the f32 rounding of it. `eval` returns the values of a group and whether they round
/// correctly by themselves; if not, each has relative error at most e (`check = (e, cr)`, e a
/// power of two in [2^-53, 2^-20]) and an input whose bracket `value·(1 ± 4e)` rounds to two
/// different f32 values gets its result from the correctly rounded `cr` instead (module
/// documentation, "Bracketing").
#[inline(always)]
fn blocks(
    x: &[u32],
    ftz: bool,
    value: &mut [f64],
    rounded: &mut [u32],
    eval: impl Fn(f64x8) -> (f64x8, bool),
    check: Check,
) {
    let full = x.len() - x.len() % GROUP;
    for ((xs, vs), rs) in
        x[..full].chunks_exact(GROUP).zip(value[..full].chunks_exact_mut(GROUP)).zip(rounded.chunks_exact_mut(GROUP))
    {
        lane_loop();
        let (v, r) = group(xs.try_into().unwrap(), ftz, &eval, check);
        vs.copy_from_slice(&v);
        rs.copy_from_slice(&r);
    }
    if full < x.len() {
        let mut xs = [0u32; GROUP];
        xs[..x.len() - full].copy_from_slice(&x[full..]);
        let (v, r) = group(xs, ftz, &eval, check);
        value[full..].copy_from_slice(&v[..x.len() - full]);
        rounded[full..].copy_from_slice(&r[..x.len() - full]);
    }
}

/// Inputs per lane group of [`f32_block`]. Every path gives each input the same value
/// whatever the other inputs of its group (`values_depend_on_the_input_alone`).
const GROUP: usize = 8;

/// One group of [`blocks`]: the values and the f32 results of 8 inputs (subnormal inputs and
/// results flushed with `ftz`).
#[inline(always)]
fn group(xs: [u32; 8], ftz: bool, eval: &impl Fn(f64x8) -> (f64x8, bool), (e, cr): Check) -> ([f64; 8], [u32; 8]) {
    let flush = u32x8::splat(if ftz { u32::MAX } else { 0 });
    let xw = flush_f32(u32x8::new(xs), flush);
    let xs = xw.to_array();
    let (v, decided) = eval(f64x8::from_f32(f32x8::from_bits(xw)));
    let out = if decided {
        nearest_f32(v)
    } else {
        let lo = nearest_f32(v * f64x8::splat(1.0 - 4.0 * e));
        let hi = nearest_f32(v * f64x8::splat(1.0 + 4.0 * e));
        if lo.simd_ne(hi).any() {
            undecided(lo, hi, xs, cr)
        } else {
            lo
        }
    };
    // NaN lanes become 0x7FC00000, written as bit operations, which compile to one masked
    // blend.
    let nan = (out & u32x8::splat(0x7FFF_FFFF)).simd_gt(u32x8::splat(0x7F80_0000));
    let out = (nan & u32x8::splat(0x7FC0_0000)) | (!nan & out);
    (v.to_array(), flush_f32(out, flush).to_array())
}

/// Subnormal f32 words (exponent field 0) become the zero of their sign in the lanes where
/// `flush` is all ones.
#[inline(always)]
fn flush_f32(w: u32x8, flush: u32x8) -> u32x8 {
    let subnormal = (w & u32x8::splat(0x7F80_0000)).simd_eq(u32x8::ZERO) & flush;
    (subnormal & w & u32x8::splat(0x8000_0000)) | (!subnormal & w)
}

/// The rare groups where some lane's bracket rounds to two f32 values (`lo` ≠ `hi`): those
/// lanes take the correctly rounded `cr`.
#[cold]
#[inline(never)]
fn undecided(lo: u32x8, hi: u32x8, xs: [u32; 8], cr: fn(f32) -> f32) -> u32x8 {
    let mut out = lo.to_array();
    for ((o, h), b) in out.iter_mut().zip(hi.to_array()).zip(xs) {
        if *o != h {
            *o = cr(f32::from_bits(b)).to_bits();
        }
    }
    u32x8::new(out)
}

/// `v as f32` in each lane: IEEE round to nearest even, subnormals and overflow included.
#[inline(always)]
fn nearest_f32(v: f64x8) -> u32x8 {
    v.to_f32().to_bits()
}

/// One level of Estrin's scheme for `Σ t[i]·p^i`: neighbouring terms paired as
/// `t[2i] + t[2i+1]·p` (separate IEEE product and sum), an odd one out passed on unchanged;
/// the result is a polynomial in p². A polynomial `Σ c_k·x^k` goes through the levels with
/// p = x, x², x⁴ = fl(x²)², … Each operation's relative rounding error multiplies every
/// coefficient's term below it, so the computed value is `Σ c_k·x^k·(1 + θ_k)` with
/// |θ_k| ≤ γ_N = N·u/(1 − N·u), u = 2^-53, where N is the largest number of roundings on the
/// way of one term: for 13 coefficients 15 (c_11: its product with x, the sums of 4 levels, the
/// products with x² and x⁸ and the 1 + 7 roundings inside those powers), for 10 coefficients 11,
/// for 7 coefficients 8 (c_5: its product with x, the sums of 3 levels, the product with x⁴ and
/// the 3 roundings inside that power).
/// This is the argument of Higham (Accuracy and Stability of Numerical Algorithms, section 5.1) for
/// Horner's rule, where N = 2·degree; Estrin's dependency chain is also a third as long.
#[inline(always)]
fn estrin_level<const N: usize, const M: usize>(t: [f64x8; N], p: f64x8) -> [f64x8; M] {
    let mut out = [f64x8::ZERO; M];
    for (i, o) in out.iter_mut().enumerate() {
        *o = if 2 * i + 1 < N { t[2 * i] + t[2 * i + 1] * p } else { t[2 * i] };
    }
    out
}

/// Each coefficient in every lane.
#[inline(always)]
fn splats<const N: usize>(c: [f64; N]) -> [f64x8; N] {
    let mut out = [f64x8::ZERO; N];
    for (o, c) in out.iter_mut().zip(c) {
        *o = f64x8::splat(c);
    }
    out
}

/// ln(2)^k / k! for k = 0..=12, rounded to f64: the Taylor polynomial of 2^r.
const EX2_TAYLOR: [f64; 13] = [
    1.0,
    core::f64::consts::LN_2,
    0.24022650695910072,
    0.05550410866482158,
    0.009618129107628477,
    0.0013333558146428443,
    0.0001540353039338161,
    1.5252733804059841e-05,
    1.321548679014431e-06,
    1.01780860092397e-07,
    7.054911620801123e-09,
    4.4455382718708116e-10,
    2.5678435993488206e-11,
];

/// 1.5·2^52: adding and subtracting it rounds an f64 of magnitude below 2^51 to an integer
/// (to nearest even), and the sum's low bits hold that integer.
const SHIFTER: f64 = 6755399441055744.0;

/// 2^x for f64 lanes holding f32 values, with relative error below 2^-47.8 ≤
/// [`VALUE_REL_ERROR`] wherever 2^x is a normal f64 (±Inf above, an f64 subnormal or zero
/// below, NaN for NaN), and whether the values round correctly to f32 by themselves (see the
/// last paragraph). Each lane's value is a function of its input alone, whatever the other
/// lanes hold: one of three formulas chosen by |x|, u = 2^-53 below.
///
/// - |x| < 2^-26: fl(1 + fl(x·ln 2)). With t = x·ln 2, |t| < 2^-26.5,
///   |e^t − (1 + t)| ≤ t²·e^|t|/2 < 2^-53.9, the product is off by 2.1u·|t| < 2^-78 and the
///   sum by u, in all below 2^-52 relative.
/// - 2^-26 ≤ |x| < 2^-5 ([`ex2_small`]): the degree-6 Taylor polynomial in x.
/// - otherwise ([`ex2_reduced`]): 2^n times the degree-12 Taylor polynomial of 2^r, where
///   x = n + r, |r| ≤ 1/2.
///
/// A group of 8 lanes all of which are NaN, beyond ±1100 (+Inf or +0, which
/// [`ex2_reduced`]'s clamped polynomial gives there too) or below 2^-26 in magnitude needs no
/// polynomial and no bracketing: 2^x and the value of a tiny lane both lie within 2^-26.4 of
/// 1, whose f32 rounding boundaries are 2^-25 below and 2^-24 above, and the other lanes are
/// exact (2^x ≥ 2^1100 rounds to +Inf, 2^x ≤ 2^-1100 to +0). A group of small lanes only
/// (most of the non-trivial groups of a sweep) evaluates the short polynomial alone.
#[inline(always)]
fn ex2_lanes(input: f64x8) -> (f64x8, bool) {
    // Most f32 bit patterns are trivial, and so are most groups of a sweep.
    let a = input.abs();
    let tiny = a.simd_lt(f64x8::splat(1.0 / (1u64 << 26) as f64));
    let first_order = f64x8::ONE + input * f64x8::splat(EX2_TAYLOR[1]);
    if (tiny | a.simd_ge(f64x8::splat(1100.0)) | input.is_nan()).all() {
        let beyond = input.simd_gt(f64x8::ZERO).select(f64x8::splat(f64::INFINITY), f64x8::ZERO);
        return (tiny.select(first_order, input.is_nan().select(input, beyond)), true);
    }
    let small = a.simd_lt(f64x8::splat(EX2_SMALL));
    let value = if small.all() {
        ex2_small(input)
    } else if small.any() {
        small.select(ex2_small(input), ex2_reduced(input))
    } else {
        ex2_reduced(input)
    };
    (tiny.select(first_order, value), false)
}

/// Below this magnitude [`ex2_lanes`] takes [`ex2_small`]: 2^-5.
const EX2_SMALL: f64 = 1.0 / 32.0;

/// 2^x for |x| < 2^-5 ([`EX2_SMALL`]) with relative error below 2^-49.2: the degree-6 Taylor
/// polynomial in x (the first 7 coefficients of [`EX2_TAYLOR`]) by Estrin's scheme
/// (`estrin_level`). With t = x·ln 2, |t| < 0.021662, and u = 2^-53:
/// - truncation: |e^t − T6(t)| ≤ e^|t|·|t|^7/7!, relative to e^t ≤ e^(2|t|)·|t|^7/7!
///   < 4.2u;
/// - coefficients: each rounded with relative error u, which moves the sum by at most
///   u·Σ c_k |x|^k ≤ u·e^|t| ≤ 1.05u·e^t;
/// - evaluation: at most 8 roundings per term, so off by at most γ8·(1 + u)·e^|t|, relative
///   to e^t at most 1.045·γ8 ≤ 8.37u.
///
/// In total (4.2 + 1.05 + 8.37)u < 13.7u < 2^-49.2.
#[inline(always)]
fn ex2_small(x: f64x8) -> f64x8 {
    let (x2, x4) = (x * x, (x * x) * (x * x));
    let a: [f64x8; 4] = estrin_level(splats(core::array::from_fn::<f64, 7, _>(|k| EX2_TAYLOR[k])), x);
    let [p] = estrin_level::<2, 1>(estrin_level(a, x2), x4);
    p
}

/// 2^x with relative error below 2^-47.8 where 2^x is a normal f64 (+Inf above, an f64
/// subnormal or zero below, NaN for NaN), for every f32 value x.
///
/// x is clamped to [−1100, 1100] (the f64 result is +0 or +Inf beyond either way) and
/// split exactly as x = n + r with n = RN-even integer of x (via [`SHIFTER`]) and |r| ≤ 1/2
/// (r = x − n is exact: both are multiples of x's ulp and |r| ≤ |x|). Then 2^r = e^t with
/// t = r·ln 2, |t| ≤ ln(2)/2, is the degree-12 Taylor polynomial [`EX2_TAYLOR`] in r, by
/// Estrin's scheme (`estrin_level`), with u = 2^-53:
/// - truncation: |e^t − T12(t)| ≤ e^|t|·|t|^13/13!, relative to e^t ≤ e^(2|t|)·|t|^13/13!
///   ≤ 2^-51.4;
/// - coefficients: each rounded with relative error u, which moves the sum by at most
///   u·Σ c_k |r|^k ≤ u·e^|t| ≤ 2u·e^t;
/// - evaluation: at most 15 roundings per term, so off by at most γ15·Σ |ĉ_k||r|^k
///   ≤ γ15·(1 + u)·e^|t|, relative to e^t at most 2.0000001·γ15 ≤ 30.01u.
///
/// In total (30.01 + 2)u + 2^-51.4 ≤ 35.02u < 2^-47.8. The result is scaled by 2^n as two exact
/// multiplications by powers of two built from the exponent bits, so the only further rounding
/// is the underflow of results below 2^-1022. 2^integer comes out exact (r = 0 gives 1).
#[inline(always)]
fn ex2_reduced(input: f64x8) -> f64x8 {
    let x = input.fast_max(f64x8::splat(-1100.0)).fast_min(f64x8::splat(1100.0));
    let shifted = x + f64x8::splat(SHIFTER);
    let r = x - (shifted - f64x8::splat(SHIFTER));
    let (r2, r4) = (r * r, (r * r) * (r * r));
    let a: [f64x8; 7] = estrin_level(splats(EX2_TAYLOR), r);
    let b: [f64x8; 4] = estrin_level(a, r2);
    let [p] = estrin_level::<2, 1>(estrin_level(b, r4), r4 * r4);
    // m = n + 2048 ∈ [948, 3148]; 2^n = 2^(h − 1024) · 2^(m − h − 1024) with h = m/2 rounded
    // down, biased exponents h − 1 and m − h − 1, both in [473, 1573].
    let m = shifted.to_bits() - u64x8::splat(SHIFTER.to_bits() - 2048);
    let h = m >> 1;
    let s1 = f64x8::from_bits((h - u64x8::ONE) << 52);
    let s2 = f64x8::from_bits((m - h - u64x8::ONE) << 52);
    input.is_nan().select(input, (p * s1) * s2)
}

/// tanh(x) correctly rounded to f64 for f64 lanes holding f32 values: CORE-MATH's `tanh`,
/// except where the correctly rounded value is known without it (most f32 inputs):
/// - |x| < 2^-27: x itself. tanh x lies between x − x³/3 and x, within x²/3 < 2^-55.5 of |x|
///   relative, less than half the f64 spacing just below |x| (at least 2^-54·|x|).
/// - |x| ≥ 20 (infinities included): ±1. 1 − tanh|x| = 2/(e^(2|x|) + 1) < 2e^-40 < 2^-56,
///   less than half the f64 spacing below 1 (2^-54).
#[inline(always)]
fn tanh_lanes(x: f64x8) -> (f64x8, bool) {
    let a = x.abs();
    let tiny = a.simd_lt(f64x8::splat(1.0 / (1u64 << 27) as f64));
    let large = a.simd_ge(f64x8::splat(20.0));
    let unit = x.simd_lt(f64x8::ZERO).select(f64x8::splat(-1.0), f64x8::ONE);
    let known = tiny.select(x, unit);
    if (tiny | large).all() {
        return (known, false);
    }
    (tanh_scalar(x, known, tiny | large), false)
}

/// The lanes of [`tanh_lanes`] outside `known`: CORE-MATH's `tanh`.
#[inline(never)]
fn tanh_scalar(x: f64x8, known: f64x8, is_known: f64x8) -> f64x8 {
    let (computed, mut out) = (is_known.to_bitmask(), known.to_array());
    for (j, (o, x)) in out.iter_mut().zip(x.to_array()).enumerate() {
        if computed >> j & 1 == 0 {
            *o = core_math::tanh(x);
        }
    }
    f64x8::new(out)
}

/// 2/(ln 2·(2j + 1)) for j = 0..=9, rounded to f64: log2(z) = s·P(s²) with s = (z − 1)/(z + 1),
/// from ln(z) = 2·atanh(s) = 2·Σ s^(2j+1)/(2j + 1).
const LG2_ATANH: [f64; 10] = [
    2.8853900817779268,
    0.9617966939259756,
    0.5770780163555853,
    0.4121985831111324,
    0.3205988979753252,
    0.2623081892525388,
    0.22195308321368667,
    0.19235933878519512,
    0.16972882833987804,
    0.15186263588304877,
];

/// The bits of √½ rounded to f64 (0.70710678118654757): the reduced argument z lies in
/// [√½, 2·√½).
const SQRT_HALF_BITS: u64 = 0x3FE6_A09E_667F_3BCD;

/// log2(x) for f64 lanes holding f32 values, with relative error below 2^-48.9 ≤
/// [`VALUE_REL_ERROR`]; IEEE special values: log2(±0) = −Inf, log2(+Inf) = +Inf, NaN for NaN
/// and negative x. A group of special values only is reported as rounding correctly by
/// itself.
///
/// A positive finite x (a normal f64, even for subnormal f32 inputs) is split exactly from its
/// bits as x = 2^k·z with z ∈ [c, 2c), c = √½ rounded (powers of two give z = 1, hence
/// exactly k). With u = 2^-53:
/// - s = (z − 1)/(z + 1): z − 1 is exact (Sterbenz), so s has relative error ≤ 2.01u and
///   |s| ≤ 0.17158, s² ≤ 0.029438;
/// - w = s², with relative error ≤ 5.1u, moves P by at most P'(w)·5.1u·w ≤ 0.06u·P;
/// - P(w) = Σ C_j w^j with the 10 positive coefficients [`LG2_ATANH`] (each rounded, ≤ u) by
///   Estrin's scheme (`estrin_level`, at most 11 roundings per term): γ11 + u ≤ 12.1u
///   relative, all terms being positive; the series' tail beyond j = 9 is below 2^-55.2
///   relative;
/// - y = s·P: one more rounding, u. In all, y = log2(z) with relative error
///   ε ≤ (2.01 + 0.06 + 12.1 + 1)u + 2^-55.2 < 15.4u < 2^-49.
///
/// Finally log2(x) = k + y. For k = 0 that is y; otherwise |y| ≤ 1/2 ≤ |k + y| (y ≥ −1/2 when
/// k ≥ 1, y < 1/2 when k ≤ −1), so the relative error is at most ε + u < 16.4u < 2^-48.9.
#[inline(always)]
fn lg2_lanes(x: f64x8) -> (f64x8, bool) {
    // x > 0 and x < ∞, compared as integers: the bits less 1 below those of ∞ less 1. (The two
    // float comparisons of a widened f32 become a class test that the compiler evaluates lane
    // by lane.)
    let below_infinity = u64x8::splat(f64::INFINITY.to_bits() - 1);
    let positive = f64x8::from_bits((x.to_bits() - u64x8::ONE).simd_lt(below_infinity));
    let special = x.simd_eq(f64x8::ZERO).select(
        f64x8::splat(f64::NEG_INFINITY),
        x.simd_eq(f64x8::splat(f64::INFINITY)).select(x, f64x8::splat(f64::NAN)),
    );
    // Half of all f32 bit patterns are negative.
    if positive.none() {
        return (special, true);
    }
    let ix = x.to_bits();
    // t = ix − bits(c) + 1024·2^52 is positive for every positive x; its exponent field is
    // k + 1024, and z = x·2^-k has bits ix − k·2^52.
    let t = ix + u64x8::splat((1024u64 << 52) - SQRT_HALF_BITS);
    let kb = t >> 52;
    let z = f64x8::from_bits(ix - (kb << 52) + u64x8::splat(1024u64 << 52));
    // k + 1024 ∈ [0, 2047] converted exactly through the bits of 2^52 + (k + 1024).
    let k = f64x8::from_bits(kb | u64x8::splat(0x4330_0000_0000_0000)) - f64x8::splat(4503599627371520.0);
    let s = (z - f64x8::ONE) / (z + f64x8::ONE);
    let w = s * s;
    let (w2, w4) = (w * w, (w * w) * (w * w));
    let a: [f64x8; 5] = estrin_level(splats(LG2_ATANH), w);
    let b: [f64x8; 3] = estrin_level(a, w2);
    let [p] = estrin_level::<2, 1>(estrin_level(b, w4), w4 * w4);
    let y = s * p;
    (positive.select(k + y, special), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 65521st f32 pattern and the patterns around the edges of the paths (zeros,
    /// subnormals, 2^-26, 2^-5, 1, 20, 1100, 2^24, the largest finite, infinities, NaNs).
    fn sample_and_edges() -> Vec<u32> {
        let mut x: Vec<u32> = (0..=u32::MAX).step_by(65521).collect();
        let edges: [u32; 9] =
            [0, 0x0080_0000, 0x3280_0000, 0x3D00_0000, 0x3F80_0000, 0x41A0_0000, 0x4489_8000, 0x4B80_0000, 0x7F80_0000];
        for sign in [0, 0x8000_0000u32] {
            for edge in edges {
                x.extend((edge.saturating_sub(5)..=edge.saturating_add(5)).map(|b| b | sign));
            }
            x.extend([0x7FC0_0000, 0x7F80_0001, 0x7FFF_FFFF].map(|b| b | sign));
        }
        x
    }

    /// An input's value and result do not depend on the other inputs of its group: every
    /// function, with and without `ftz`, on [`sample_and_edges`] shuffled (so that groups mix
    /// tiny, small, large and special inputs), against each input evaluated alone.
    #[test]
    fn values_depend_on_the_input_alone() {
        let mut x = sample_and_edges();
        let mut rng = crate::sweep::domain::Rng::for_case(0x6A0C_E5E1_F00D_0001, 0);
        for i in (1..x.len()).rev() {
            x.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        for f in MathFn::ALL {
            for ftz in [false, true] {
                let (mut value, mut rounded) = (vec![0.0f64; x.len()], vec![0u32; x.len()]);
                f32_block(f, ftz, &x, &mut value, &mut rounded);
                for (i, &b) in x.iter().enumerate() {
                    let (mut alone, mut alone_rounded) = ([0.0f64], [0u32]);
                    f32_block(f, ftz, &[b], &mut alone, &mut alone_rounded);
                    assert_eq!(
                        (value[i].to_bits(), rounded[i]),
                        (alone[0].to_bits(), alone_rounded[0]),
                        "{f:?} ftz {ftz}: input {b:#010x} in a group and alone"
                    );
                }
            }
        }
    }

    /// Every SIMD level the processor has gives the baseline's values and results, bit for
    /// bit: every function, with and without `ftz`, on [`sample_and_edges`], in blocks of
    /// uneven lengths.
    #[test]
    fn levels_agree() {
        let x = sample_and_edges();
        let run = |level: SimdLevel, f: MathFn, ftz: bool| {
            let (mut value, mut rounded) = (vec![0.0f64; x.len()], vec![0u32; x.len()]);
            let mut at = 0;
            for len in [4096, 1000, 13, 5].into_iter().cycle() {
                let end = (at + len).min(x.len());
                f32_block_at(level, f, ftz, &x[at..end], &mut value[at..end], &mut rounded[at..end]);
                if end == x.len() {
                    break;
                }
                at = end;
            }
            (value.iter().map(|v| v.to_bits()).collect::<Vec<u64>>(), rounded)
        };
        for f in MathFn::ALL {
            for ftz in [false, true] {
                let baseline = run(SimdLevel::Baseline, f, ftz);
                for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
                    let got = run(level, f, ftz);
                    for (i, &b) in x.iter().enumerate() {
                        assert_eq!(
                            (got.0[i], got.1[i]),
                            (baseline.0[i], baseline.1[i]),
                            "{f:?} ftz {ftz} at {level}: input {b:#010x}"
                        );
                    }
                }
            }
        }
    }
}
