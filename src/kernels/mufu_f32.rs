//! Kernels for the f32 instructions the MUFU model evaluates: `rcp`, `rsqrt`, `sqrt`, `lg2`,
//! `ex2`, `sin`, `cos` `.approx{.ftz}.f32`, `tanh.approx.f32`, `div.approx` and `div.full`
//! `{.ftz}.f32`, and the SASS
//! `MUFU.RCP/RSQ/SQRT/LG2/EX2/SIN/COS{.SAT}` and `MUFU.TANH`, sixteen lanes at a time,
//! bit-identical to [`crate::mufu`] and [`crate::ptx::lower`] (tests/batch_equivalence_mufu.rs).
//!
//! Each lane function follows its scalar datapath (docs/semantics.md §2.2, the sm_70+ conversions of
//! §2.3) with the arithmetic of [`super::mufu_lanes`]; special inputs are computed like any
//! other lane and replaced by their results (docs/semantics.md §4 NaN, §5 FTZ) with masks. The
//! non-`.ftz` forms add the scaling FMULs/FADDs of docs/semantics.md §1.1. Those run on the host's
//! f32 unit only where every operand and result is normal, infinite or NaN (the host's RN
//! rounding is then NVIDIA's non-FTZ rounding and no flush-to-zero setting can interfere);
//! scalings into or out of the subnormal range are done in integers or f64.
//!
//! sm_5x/sm_6x, whose MUFU.SIN/COS/EX2 read RRO's fixed-point word (docs/semantics.md §1.2), have no
//! kernel for those operations and run the scalar definition; neither has sm_50's
//! `sqrt.approx`, which is RCP(RSQ(x)) there (docs/semantics.md §1.1).

use super::arith_f32::mul_lanes;
#[cfg(feature = "sweep")]
use super::lanes::all_equal_on_run;
use super::lanes::{map, nan_f32, Rn};
use super::level::{inlined, Isa};
use super::mufu_64h::{rcp64h, rsq64h};
use super::mufu_lanes::{
    eq, f32_rz, f32_subnormal_rn, f64_halves, lg2_rz, luts, narrow, pow2, quadrant_word, s, sin_rz, splat, sq, u,
    widen, Luts, I, U,
};
use super::simd::{f32x16, f64x8, u64x8};
use super::Kernel;
use crate::ptx::{Instr, Mode, MufuFn, Opcode, Target, Type};

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7F80_0000;
const NAN: u32 = crate::mufu::NAN;
const ONE: u32 = 0x3F80_0000;

/// The kernel for `instr` on `target`, if it is one of the MUFU-backed f32 instructions.
pub(super) fn select<L: Isa>(instr: &Instr, target: Target) -> Option<Kernel> {
    // `dst[i] = post(f(src[i]))`, sixteen lanes at a time (the loop of `map`; for the sweep's
    // runs of consecutive inputs that of `all_equal_on_run`); `k!(sat f)` applies `.SAT`. The
    // lane function is called directly in the loop's closure, which is always inlined into the
    // level's loop, so that the whole datapath is compiled for the level.
    macro_rules! k {
        ($f:ident) => {
            k!($f, core::convert::identity)
        };
        (sat $f:ident) => {
            k!($f, saturate)
        };
        ($f:ident, $post:expr) => {
            Kernel::F32Unary {
                block: |_, srcs, dst| {
                    let l = luts();
                    map::<L, u32, 16, 1>(
                        &[srcs[0]],
                        dst,
                        #[inline(always)]
                        |[x]| $post($f::<L>(l, U::new(x))).to_array(),
                    )
                },
                #[cfg(feature = "sweep")]
                on_run: |first, n, c| {
                    let l = luts();
                    all_equal_on_run::<L, 16>(
                        first,
                        n,
                        c,
                        #[inline(always)]
                        |x| $post($f::<L>(l, U::new(x))).to_array(),
                    )
                },
            }
        };
    }
    if instr.ty() != Type::F32 {
        return None;
    }
    // sm_5x/6x: MUFU.EX2/SIN/COS take RRO's word, and the PTX forms lower through RRO.
    let float_input = !target.has_rro();
    // sm_50: sqrt.approx is RCP(RSQ(x)).
    let mufu_sqrt = target.has_mufu_sqrt();
    let ftz = instr.modifiers().ftz;
    Some(match (instr.opcode(), instr.mode()) {
        (Opcode::Rcp, Mode::Approx) if ftz => k!(rcp),
        (Opcode::Rcp, Mode::Approx) => k!(rcp_approx),
        (Opcode::Rsqrt, Mode::Approx) if ftz => k!(rsq),
        (Opcode::Rsqrt, Mode::Approx) => k!(rsqrt_approx),
        (Opcode::Sqrt, Mode::Approx) if mufu_sqrt && ftz => k!(sqrt),
        (Opcode::Sqrt, Mode::Approx) if mufu_sqrt => k!(sqrt_approx),
        (Opcode::Tanh, Mode::Approx) => k!(tanh),
        (Opcode::Lg2, Mode::Approx) if ftz => k!(lg2),
        (Opcode::Lg2, Mode::Approx) => k!(lg2_approx),
        (Opcode::Ex2, Mode::Approx) if float_input && ftz => k!(ex2),
        (Opcode::Ex2, Mode::Approx) if float_input => k!(ex2_approx),
        (Opcode::Sin, Mode::Approx) if float_input => k!(sin_approx),
        (Opcode::Cos, Mode::Approx) if float_input => k!(cos_approx),
        (Opcode::Div, Mode::Approx) if ftz => Kernel::W32(div::<L, false, true>),
        (Opcode::Div, Mode::Approx) => Kernel::W32(div::<L, false, false>),
        (Opcode::Div, Mode::Full) if ftz => Kernel::W32(div::<L, true, true>),
        (Opcode::Div, Mode::Full) => Kernel::W32(div::<L, true, false>),
        (Opcode::Mufu(func), _) => {
            let sat = instr.modifiers().sat;
            match func {
                MufuFn::Rcp if sat => k!(sat rcp),
                MufuFn::Rcp => k!(rcp),
                MufuFn::Rsq if sat => k!(sat rsq),
                MufuFn::Rsq => k!(rsq),
                MufuFn::Sqrt if sat => k!(sat sqrt),
                MufuFn::Sqrt => k!(sqrt),
                // The catalog has no MUFU.TANH.SAT.
                MufuFn::Tanh if !sat => k!(tanh),
                // `.SAT` is ignored (opMUFU); mufu_64h.rs.
                MufuFn::Rcp64h => k!(rcp64h),
                MufuFn::Rsq64h => k!(rsq64h),
                MufuFn::Lg2 if sat => k!(sat lg2),
                MufuFn::Lg2 => k!(lg2),
                MufuFn::Ex2 if float_input && sat => k!(sat ex2),
                MufuFn::Ex2 if float_input => k!(ex2),
                MufuFn::Sin if float_input && sat => k!(sat sin),
                MufuFn::Sin if float_input => k!(sin),
                MufuFn::Cos if float_input && sat => k!(sat cos),
                MufuFn::Cos if float_input => k!(cos),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Sign bit, biased exponent and fraction of f32 lanes.
#[inline(always)]
fn fields(x: U) -> (U, U, U) {
    (x & SIGN, x >> 23 & 0xFFu32, x & 0x7F_FFFFu32)
}

/// Pack an SFU result (docs/semantics.md §2.2, `pack` in [`crate::mufu`]): `bits` is
/// `(biased exponent − 1) << 23` plus the significand with its implicit bit (2^23..=2^24, so a
/// carry renormalises by itself); anything below FLT_MIN flushes to +0 (docs/semantics.md §5).
#[inline(always)]
fn flush(bits: I) -> U {
    u(bits.simd_lt(I::splat(0x80_0000))).select(U::ZERO, u(bits))
}

/// `.SAT`: NaN and negative results (−0 included) give +0, results above 1 give 1
/// ([`crate::round::saturate`]). Unsigned, NaNs and negatives are exactly the words above +Inf.
#[inline(always)]
fn saturate(r: U) -> U {
    r.simd_gt(splat(INF)).select(U::ZERO, r.min(splat(ONE)))
}

/// MUFU.RCP ([`crate::mufu::rcp`]): `q = (interpolation + 0x47E7) >> 15` over xl = frac[15:0]
/// with `sq::<L>(xl << 1)`, biased exponent 253 − e (docs/semantics.md §2.2).
#[inline(always)]
fn rcp<L: Isa>(l: &Luts, x: U) -> U {
    let (sign, expo, frac) = fields(x);
    let xl = x & 0xFFFFu32;
    let (p, y) = l.rcp.interpolate::<L>(frac >> 16, xl, sq::<L>(xl << 1), 0, crate::mufu::rcp::ROUND as i32);
    let q = u(p + (y >> 9)) >> 6;
    let r = flush(s((252u32 << 23) - (x & INF) + q)) | sign;
    let r = eq(expo, 0).select(sign | INF, r);
    eq(expo, 255).select(eq(frac, 0).select(sign, splat(NAN)), r)
}

/// The RSQ/SQRT operand (docs/semantics.md §2.2): with e the unbiased exponent, the fraction with
/// bit 23 set for an odd e (the [2,4) half of the table), and ⌊e/2⌋.
#[inline(always)]
fn root_operand(x: U) -> (U, I) {
    let (_, expo, frac) = fields(x);
    // e = expo − 127 is odd exactly when bit 23 of x is clear.
    (frac | (!x & 0x80_0000u32), (s(expo) - 127) >> 1)
}

/// MUFU.RSQ ([`crate::mufu::rsq`]): the exponent parity selects the [2,4) half of the table,
/// `q = (interpolation + 0x7FFF) >> 16`, biased exponent 126 − ⌊e/2⌋; an even power of two
/// is exact (docs/semantics.md §2.2).
#[inline(always)]
fn rsq<L: Isa>(l: &Luts, x: U) -> U {
    let (sign, expo, _) = fields(x);
    let (f, half) = root_operand(x);
    let xl = f & 0x1_FFFFu32;
    let (p, y) = l.rsq.interpolate::<L>(f >> 17, xl, sq::<L>(xl), 2, crate::mufu::rsq::ROUND as i32);
    let q = eq(f, 0).select(splat(1 << 24), u(p + (y >> 9)) >> 7);
    let r = u((125 - half) << 23) + q;
    let r = eq(expo, 255).select(eq(x, INF).select(U::ZERO, splat(NAN)), r);
    let r = sign.simd_ne(U::ZERO).select(splat(NAN), r);
    eq(expo, 0).select(sign | INF, r)
}

/// MUFU.SQRT ([`crate::mufu::sqrt`]): the RSQ operand and index into its own table,
/// `acc = interpolation + 0x7FFF` ≈ √y·2^40 for y ∈ [0.5, 2), `q = acc >> 17` when acc ≥ 2^40,
/// else `acc >> 16`; never subnormal; ±0 and subnormals give ±0 (docs/semantics.md §5).
#[inline(always)]
fn sqrt<L: Isa>(l: &Luts, x: U) -> U {
    let (sign, expo, _) = fields(x);
    let (f, half) = root_operand(x);
    let xl = f & 0x1_FFFFu32;
    let (p, y) = l.sqrt.interpolate::<L>(f >> 17, xl, sq::<L>(xl), 0, crate::mufu::rsq::ROUND as i32);
    // acc >> 9 < 2^32; acc ≥ 2^40 exactly when it is ≥ 2^31.
    let acc = u(p + (y >> 9));
    let big = acc.simd_ge(splat(1 << 31));
    let q = big.select(acc >> 8, acc >> 7);
    // Biased exponent 127 + ⌊e/2⌋ + parity, one lower for √y < 1; q carries the implicit bit.
    let r = u((half + 125) << 23) + (f >> 23 << 23) + (big & splat(1 << 23)) + q;
    let r = eq(expo, 255).select(eq(x, INF).select(splat(INF), splat(NAN)), r);
    let r = sign.simd_ne(U::ZERO).select(splat(NAN), r);
    eq(expo, 0).select(sign, r)
}

/// MUFU.TANH ([`crate::mufu::tanh`]) of |x|, the sign copied: for 2^-8 ≤ |x| < 8 the row and
/// operand of [`super::mufu_lanes::TanhTable`], `acc = c0·2^16 + c1·xl + c2·sq(xl)` exactly in
/// f64, and the result `acc·2^(T − 39)` (T = min(E, −1)) truncated to 24 bits; smaller |x|
/// passes through unflushed, larger gives ±1 (docs/semantics.md §5).
#[inline(always)]
pub(super) fn tanh<L: Isa>(l: &Luts, x: U) -> U {
    use crate::mufu::tanh::{PASS_BELOW, SATURATE_FROM};
    let a = x & 0x7FFF_FFFFu32;
    // Lanes outside [2^-8, 8) are computed at the nearest binade (a normal result) and replaced
    // below.
    let expo = (a >> 23).max(splat(119)).min(splat(129));
    let (row, xl) = l.tanh.segment::<L>(expo << 23 | (a & 0x7F_FFFFu32));
    let [c0, c1, c2] = l.tanh.coefficients::<L>(row);
    let (c0, c1, c2) = (f64_halves(c0), f64_halves(c1), f64_halves(c2));
    let (xl, x2) = (f64_halves(s(xl)), f64_halves(s(sq::<L>(xl))));
    // 2^(T − 39) as f64 bits: (1023 + T − 39) << 52 with T + 127 = min(expo, 126).
    let scale = widen::<L>(expo.min(splat(126)) + (1023 - 39 - 127));
    let value = inlined(
        #[inline(always)]
        |h: usize| {
            let acc = c0[h] * f64x8::splat(65536.0) + c1[h] * xl[h] + c2[h] * x2[h];
            acc * f64x8::from_bits(scale[h] << 52)
        },
    );
    let r = f32_rz([value(0), value(1)]);
    let r = a.simd_lt(splat(PASS_BELOW)).select(a, r);
    let r = a.simd_ge(splat(SATURATE_FROM)).select(splat(ONE), r) | (x & SIGN);
    nan_f32(x).select(splat(NAN), r)
}

/// MUFU.EX2 on sm_70+ ([`crate::mufu::ex2`]): the PREEX2 conversion of x to a truncated 7.23
/// sign-magnitude word, then the EX2 datapath, `q = (interpolation + 0x77E2) >> 15`
/// (docs/semantics.md §2.2, §2.3 \[INF\]).
#[inline(always)]
pub(super) fn ex2<L: Isa>(l: &Luts, x: U) -> U {
    let (sign, expo, frac) = fields(x);
    // |x| ≥ 128, ±Inf and NaN: the Inf code, +Inf or +0; NaN.
    let neg = u(s(sign) >> 31);
    let beyond = nan_f32(x).select(splat(NAN), neg.select(U::ZERO, splat(INF)));
    let big = expo.simd_ge(splat(127 + 7));
    // |x| < 2^-23 truncates to the fixed-point word 0, whose result is ex2(0) = 1. Vectors of
    // such inputs only (most of the f32 patterns) skip the datapath.
    let small = expo.simd_lt(splat(127 - 23));
    if (big | small).all() {
        return small.select(splat(ONE), beyond);
    }
    // |x| as a 7.23 fixed-point word, truncated; zero for a zero or subnormal x. Lanes with
    // |x| ≥ 128 are replaced below.
    let m = eq(expo, 0).select(U::ZERO, frac | 0x80_0000u32);
    let e = s(expo) - 127;
    let fixed = m.unbounded_shl(u(e)) | m.unbounded_shr(u(-e));
    // A negative word becomes its ones' complement, or its two's complement when the fraction
    // is 0: integer part −i − 1 or −i.
    let g = (fixed ^ neg) + (neg & eq(fixed & 0x7F_FFFFu32, 0) & 1);
    let f = g & 0x7F_FFFFu32;
    let xl = f & 0x1_FFFFu32;
    let (p, y) = l.ex2.interpolate::<L>(f >> 17, xl, sq::<L>(xl), 0, 0x77E2);
    let q = u(p + (y >> 9)) >> 6;
    let r = flush((((s(g) >> 23) + 126) << 23) + s(q));
    big.select(beyond, r)
}

/// MUFU.LG2 ([`crate::mufu::lg2`]): `r = (interpolation + 0x3345) >> 2`, log2 of the
/// significand in units of 2^-36, plus the exponent; a negative sum is replaced by its ones'
/// complement and the sign, then truncated to 24 bits (docs/semantics.md §2.2).
#[inline(always)]
fn lg2<L: Isa>(l: &Luts, x: U) -> U {
    let (sign, expo, frac) = fields(x);
    let xl = x & 0x1_FFFFu32;
    let (p, y) = l.lg2.interpolate::<L>(frac >> 17, xl, sq::<L>(xl), 1, 0x3345);
    let r = lg2_rz::<L>(p, y, s(expo) - 127);
    let r = eq(x, ONE).select(U::ZERO, r);
    let r = eq(expo, 255).select(eq(x, INF).select(splat(INF), splat(NAN)), r);
    let r = sign.simd_ne(U::ZERO).select(splat(NAN), r);
    eq(expo, 0).select(splat(SIGN | INF), r)
}

/// The SIN/COS datapath on a quadrant word without special flag ([`crate::mufu::sin_fixed`]):
/// COS reads quadrant q + 1 without the sign; an odd quadrant complements the fraction, and
/// quadrants 2 and 3 negate. The 38-bit interpolation is normalised and truncated to 24 bits
/// (docs/semantics.md §2.2).
#[inline(always)]
fn sincos<L: Isa, const COS: bool>(l: &Luts, w: U) -> U {
    let bit23 = u(s(w << 8) >> 31);
    let (odd, neg) = if COS { (!bit23, ((w << 7) ^ (w << 8)) & SIGN) } else { (bit23, (w ^ (w << 7)) & SIGN) };
    let f = (w ^ odd) & 0x7F_FFFFu32;
    let xl = f & 0x1_FFFFu32;
    let (p, y) = l.sin.interpolate::<L>(f >> 17, xl, sq::<L>(xl), 0, 0);
    sin_rz::<L>(p, y) | neg
}

/// MUFU.SIN on sm_70+, of an angle `t` in turns ([`crate::mufu::sin`], docs/semantics.md §2.3 \[INF\]).
#[inline(always)]
fn sin<L: Isa>(l: &Luts, t: U) -> U {
    let r = sincos::<L, false>(l, quadrant_word::<L, false>(t));
    is_special(t).select(splat(NAN), r)
}

/// MUFU.COS on sm_70+, of an angle `t` in turns ([`crate::mufu::cos`]).
#[inline(always)]
fn cos<L: Isa>(l: &Luts, t: U) -> U {
    let r = sincos::<L, true>(l, quadrant_word::<L, false>(t));
    is_special(t).select(splat(NAN), r)
}

/// `sin.approx{.ftz}.f32` on sm_70+: MUFU.SIN of `FMUL.RZ(x, 0x3E22F983)` (docs/semantics.md §1.1).
#[inline(always)]
fn sin_approx<L: Isa>(l: &Luts, x: U) -> U {
    let r = sincos::<L, false>(l, quadrant_word::<L, true>(x));
    is_special(x).select(splat(NAN), r)
}

/// `cos.approx{.ftz}.f32` on sm_70+: MUFU.COS of `FMUL.RZ(x, 0x3E22F983)` (docs/semantics.md §1.1).
#[inline(always)]
fn cos_approx<L: Isa>(l: &Luts, x: U) -> U {
    let r = sincos::<L, true>(l, quadrant_word::<L, true>(x));
    is_special(x).select(splat(NAN), r)
}

/// Lanes holding ±Inf or a NaN.
#[inline(always)]
fn is_special(x: U) -> U {
    (x & INF).simd_eq(splat(INF))
}

/// Host f32 multiply by a constant, only of MUFU results, which are never subnormal: the
/// product is then the IEEE one, rounded to nearest as the non-FTZ FMUL rounds, overflow
/// included, whatever the host's flush-to-zero settings.
#[inline(always)]
fn fmul(a: U, b: f32) -> U {
    (f32x16::from_bits(a) * b).to_bits()
}

/// `x·2^-k` of a normal `x` whose product is normal, or of ±Inf: exact, as an exponent
/// decrement, without host arithmetic (whose subnormal operands in unused lanes would be slow).
#[inline(always)]
fn scale_down(x: U, k: u32) -> U {
    is_special(x).select(x, x - (k << 23))
}

/// `x·2^24` for a zero or subnormal `x`, exactly and without subnormal host arithmetic: the
/// fraction f converted to float is f·2^0, and (f·2^-149)·2^24 = f·2^-125.
#[inline(always)]
fn scale_up_24(x: U) -> U {
    let frac = x & 0x7F_FFFFu32;
    let f = f32x16::from_i32(s(frac)).to_bits();
    (x & SIGN) | eq(frac, 0).select(U::ZERO, f - (125 << 23))
}

/// Lanes with 2^126 < |x| ≤ +Inf.
#[inline(always)]
fn huge(x: U) -> U {
    ((x & 0x7FFF_FFFFu32) - 0x7E80_0001u32).simd_lt(splat(0x0100_0000))
}

/// Lanes with |x| < FLT_MIN: the zeros and subnormals.
#[inline(always)]
fn tiny(x: U) -> U {
    (x & 0x7FFF_FFFFu32).simd_lt(splat(0x80_0000))
}

/// RN(r·2^k) of positive normal or zero f32 lanes `r` (squared first when `SQUARE`), for
/// results below FLT_MIN: the exact f64 value (f32 bits → f64 bits), scaled so that the unit is
/// the subnormal spacing 2^-149, rounded by [`f32_subnormal_rn`].
#[inline(always)]
fn below_flt_min_rn<L: Isa, const SQUARE: bool>(r: U, k: i32) -> U {
    let [lo, hi] = widen::<L>(r);
    narrow::<L>([below_flt_min_half::<SQUARE>(lo, k), below_flt_min_half::<SQUARE>(hi, k)])
}

/// [`below_flt_min_rn`] of eight f32 encodings widened to u64 lanes.
#[inline(always)]
fn below_flt_min_half<const SQUARE: bool>(bits: u64x8, k: i32) -> u64x8 {
    let wide = bits.simd_eq(u64x8::ZERO).select(u64x8::ZERO, (bits << 29) + ((1023u64 - 127) << 52));
    let v = f64x8::from_bits(wide);
    let v = if SQUARE { v * v } else { v };
    f32_subnormal_rn(v * f64x8::splat(pow2(149 + k)))
}

/// `rcp.approx.f32`: `s·MUFU.RCP(x·s)` with s = 2^24 for |x| < FLT_MIN, 0.25 for
/// |x| > 2^126, else 1 (docs/semantics.md §1.1). The 0.25 branch rounds MUFU's result once more,
/// into the subnormal range.
#[inline(always)]
fn rcp_approx<L: Isa>(l: &Luts, x: U) -> U {
    let (tiny, huge) = (tiny(x), huge(x));
    let r = rcp::<L>(l, tiny.select(scale_up_24(x), huge.select(scale_down(x, 2), x)));
    let quarter = below_flt_min_rn::<L, false>(r & 0x7FFF_FFFFu32, -2) | (r & SIGN);
    tiny.select(fmul(r, 16_777_216.0), huge.select(quarter, r))
}

/// The non-`.ftz` sequence of `rsqrt`, `sqrt` and `lg2` (docs/semantics.md §1.1, `scaled` in
/// [`crate::ptx::lower`]): for |x| < FLT_MIN, `fix(unit(x·2^24))`, else `unit(x)`.
#[inline(always)]
fn scaled(l: &Luts, x: U, unit: impl Fn(&Luts, U) -> U, fix: impl Fn(U) -> U) -> U {
    let tiny = tiny(x);
    let r = unit(l, tiny.select(scale_up_24(x), x));
    tiny.select(fix(r), r)
}

/// `rsqrt.approx.f32`: for |x| < FLT_MIN, `MUFU.RSQ(x·2^24)·4096` (docs/semantics.md §1.1).
#[inline(always)]
fn rsqrt_approx<L: Isa>(l: &Luts, x: U) -> U {
    scaled(
        l,
        x,
        #[inline(always)]
        |l, x| rsq::<L>(l, x),
        #[inline(always)]
        |r| fmul(r, 4096.0),
    )
}

/// `sqrt.approx.f32` on sm_52+: for |x| < FLT_MIN, `MUFU.SQRT(x·2^24)·2^-12` (docs/semantics.md §1.1).
/// MUFU.SQRT's results are zero or at least 2^-63, so the product is never subnormal.
#[inline(always)]
fn sqrt_approx<L: Isa>(l: &Luts, x: U) -> U {
    scaled(
        l,
        x,
        #[inline(always)]
        |l, x| sqrt::<L>(l, x),
        #[inline(always)]
        |r| fmul(r, 1.0 / 4096.0),
    )
}

/// `lg2.approx.f32`: for |x| < FLT_MIN, `MUFU.LG2(x·2^24) + (−24)` (docs/semantics.md §1.1).
#[inline(always)]
fn lg2_approx<L: Isa>(l: &Luts, x: U) -> U {
    scaled(
        l,
        x,
        #[inline(always)]
        |l, x| lg2::<L>(l, x),
        #[inline(always)]
        |r| (f32x16::from_bits(r) + -24.0).to_bits(),
    )
}

/// `ex2.approx.f32` on sm_70+: for x < −126, `MUFU.EX2(x·0.5)` squared by a non-FTZ FMUL,
/// whose result is subnormal or zero (docs/semantics.md §1.1). NaN goes straight to MUFU, which gives
/// the canonical NaN either way.
#[inline(always)]
fn ex2_approx<L: Isa>(l: &Luts, x: U) -> U {
    // −Inf ≤ x < −126: the words 0xC2FC_0001..=0xFF80_0000.
    let low = (x - 0xC2FC_0001u32).simd_lt(splat(0xFF80_0000 - 0xC2FC_0000));
    let r = ex2::<L>(l, low.select(scale_down(x, 1), x));
    // Most vectors have no such lane, and the rounding costs more than the rest of the lane.
    if low.none() {
        return r;
    }
    low.select(below_flt_min_rn::<L, true>(r, 0), r)
}

/// `div.approx` (`FULL` false) and `div.full`, with and without `.ftz` ([`crate::ptx::lower`],
/// docs/semantics.md §1.1): `a·MUFU.RCP(b)` by an FMUL(.FTZ); `div.full` first scales both operands by
/// 1/4 where |b| > 2^126, and without `.ftz` both are scaled by 2^24 where b is below FLT_MIN
/// (zero or subnormal; the sequence scales a NaN b too, which gives the canonical NaN either
/// way).
fn div<L: Isa, const FULL: bool, const FTZ: bool>(_: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    let l = luts();
    map::<L, u32, 16, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| {
            let (mut a, mut b) = (U::new(a), U::new(b));
            let (huge, tiny) = (huge(b), tiny(b));
            if FULL {
                (a, b) = scale_both::<FTZ>(huge, splat(0x3E80_0000), (a, b));
            }
            if !FTZ {
                (a, b) = scale_both::<FTZ>(tiny, splat(0x4B80_0000), (a, b));
            }
            fmul_rn::<FTZ>(rcp::<L>(l, b), a).to_array()
        },
    );
}

/// The FMUL(.FTZ) of the `div` sequences: `mul.rn{.ftz}.f32` of the lanes.
#[inline(always)]
fn fmul_rn<const FTZ: bool>(a: U, b: U) -> U {
    U::new(mul_lanes::<Rn, FTZ>(a.to_array(), b.to_array(), false))
}

/// Where `lanes` hold, both operands times `factor` by [`fmul_rn`].
#[inline(always)]
fn scale_both<const FTZ: bool>(lanes: U, factor: U, (a, b): (U, U)) -> (U, U) {
    (lanes.select(fmul_rn::<FTZ>(a, factor), a), lanes.select(fmul_rn::<FTZ>(b, factor), b))
}

#[cfg(all(test, feature = "sweep"))]
mod tests {
    use crate::kernels::{select_at, Kernel, SimdLevel};
    use crate::ptx::{catalog, Target, Type};

    /// The check of a run without buffers (`Kernel::all_equal_on_run`) says what the block
    /// kernel's results say, for every f32 spelling with that form, at every level this
    /// processor has: runs of 1 to 4096 inputs from and before the edges of the datapaths'
    /// special cases (zero, the smallest normal, 2^-23, 1, 20, 128, +Inf, the NaNs, both
    /// signs) and up to the last pattern, against the run's first result and its last, which
    /// differ where a run crosses an edge (then the form must say false).
    #[test]
    fn runs_without_buffers_agree_with_blocks() {
        let target = Target::DEFAULT;
        let edges = [0, 0x0080_0000, 0x3400_0000, 0x3F80_0000, 0x41A0_0000, 0x4300_0000, 0x7F80_0000, 0x7FC0_0000u32];
        let starts: Vec<u32> = edges
            .into_iter()
            .flat_map(|e| [e, e | 0x8000_0000])
            .flat_map(|e| [e.saturating_sub(2000), e.saturating_sub(9), e])
            .chain([u32::MAX - 4095, u32::MAX - 16, u32::MAX])
            .collect();
        let spellings: Vec<_> = catalog::entries()
            .iter()
            .filter(|e| e.sources == 1 && e.instr.ty() == Type::F32 && e.min_sm <= target.sm())
            .map(|e| e.instr)
            .collect();
        for level in SimdLevel::ALL.into_iter().filter(|l| l.is_supported()) {
            let (mut with_form, mut equal, mut differing) = (0, 0, 0);
            for instr in &spellings {
                let Some(kernel @ Kernel::F32Unary { .. }) = select_at(instr, target, level) else { continue };
                with_form += 1;
                for &first in &starts {
                    for n in [1usize, 5, 16, 17, 100, 4096] {
                        let n = n.min((u32::MAX - first) as usize + 1);
                        let x: Vec<u32> = (0..n as u32).map(|i| first + i).collect();
                        let mut r = vec![0u32; n];
                        kernel.run(instr, &[&x], &mut r);
                        for c in [r[0], r[n - 1]] {
                            let all = r.iter().all(|&w| w == c);
                            let got = kernel.all_equal_on_run(first, n, c);
                            assert_eq!(
                                got,
                                Some(all),
                                "{instr} at {level}, {n} inputs from {first:#010x}, c {c:#010x}"
                            );
                            (equal, differing) = if all { (equal + 1, differing) } else { (equal, differing + 1) };
                        }
                    }
                }
            }
            // The 30 spellings of tests/batch_equivalence_mufu.rs and MUFU.RCP64H/RSQ64H{.SAT}.
            assert!(with_form >= 30, "{level}: {with_form} spellings have the form");
            assert!(equal > 1000 && differing > 1000, "{level}: {equal} equal runs, {differing} not");
        }
    }
}
