//! Kernels for `add`, `sub`, `mul`, `fma` and `mad` on f32 in the four rounding directions,
//! with `.ftz` and `.sat`: every catalog spelling of these on `.f32`, and on `.f32x2`, whose
//! words are two f32 elements computed the same way (docs/semantics.md §4–§5).
//!
//! The lanes are f64 (see [`super::lanes`]): the product of two f32 is exact there, a sum is
//! TwoSum's pair rounded to odd. A plain sum needs no error term under `.rn`: f64 has
//! 53 ≥ 2·24 + 2 bits, so rounding the f64 sum to nearest again is the correct rounding
//! (Figueroa, "When is double rounding innocuous?", 1995), and a sum f64 must round lies far
//! inside f32's normal range.
//!
//! The one rounding to f32 ([`narrow`]) is, under `.rn`, Rust's `f64 as f32`, which is
//! defined to round to nearest-even onto IEEE's subnormal grid and to overflow to ±Inf: the
//! result of [`crate::round::round_pack`] under `.rn`. The directed modes truncate the f64
//! encoding to f32's precision and add one unit where the direction asks, then convert
//! exactly (onto IEEE's subnormal grid they correct nearest by one unit instead); `.ftz` first
//! turns a value whose rounding with an unbounded exponent is below 2^-126 into a zero of its
//! sign. The exact error of a sum is computed only for groups where the f64 result does not
//! already decide the rounding ([`decides`]).
//!
//! Where the build has AVX-512, every spelling takes a shorter path (the `embedded` module):
//! without `.ftz` the scalar definition is the IEEE operation, which AVX-512 computes in f32
//! lanes with the rounding direction encoded in the instruction; with `.ftz` the same
//! operation on flushed operands tells tininess except at a result of magnitude 2^-126, where
//! the group takes the f64 lanes.

use crate::kernels::simd::{f32x16, f64x8, u32x16, u32x8, u64x8};

use super::lanes::{
    build, each, flush_f32, join, map, nan_f32, narrow_mask, nearest_f32, saturate, to_odd, truncate, two_sum,
    widen_f32_bits, zero_sign, Dir, Lanes,
};
use super::lanes::{Rm, Rn, Rp, Rz};
use super::level::{inlined, Isa};
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Mode, Opcode};
use crate::round::Rounding;

const F32: Format = Format::F32;
const F64: Format = Format::F64;

/// The kernel for an f32 or f32x2 `add`, `sub`, `mul`, `fma` or `mad`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    if instr.format() != F32 || !matches!(instr.mode(), Mode::Default | Mode::Round(_)) {
        return None;
    }
    let ftz = instr.modifiers().ftz;
    let op = instr.opcode();
    if !matches!(op, Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma | Opcode::Mad) {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        return Some(Kernel::W32(embedded::select::<L>(op, instr.rounding(), ftz)));
    }
    Some(Kernel::W32(match instr.rounding() {
        Rounding::Rn => specialised::<L, Rn>(op, ftz),
        Rounding::Rz => specialised::<L, Rz>(op, ftz),
        Rounding::Rm => specialised::<L, Rm>(op, ftz),
        Rounding::Rp => specialised::<L, Rp>(op, ftz),
    }))
}

type F32Kernel = fn(&Instr, &[&[u32]], &mut [u32]);

fn specialised<L: Isa, R: Dir>(op: Opcode, ftz: bool) -> F32Kernel {
    match (op, ftz) {
        (Opcode::Add | Opcode::Sub, false) => add::<L, R, false>,
        (Opcode::Add | Opcode::Sub, true) => add::<L, R, true>,
        (Opcode::Mul, false) => mul::<L, R, false>,
        (Opcode::Mul, true) => mul::<L, R, true>,
        (_, false) => fma::<L, R, false>,
        (_, true) => fma::<L, R, true>,
    }
}

/// Elements per group: two f64 vectors.
pub(super) const N: usize = 16;

/// Sixteen f32 operands widened exactly to f64, in two halves; with `.ftz` a subnormal first
/// becomes a zero of its sign (docs/semantics.md §5).
#[inline(always)]
pub(super) fn widen<const FTZ: bool>(words: [u32; N]) -> [f64x8; 2] {
    let w = u32x16::new(words);
    widen_f32_bits(if FTZ { flush_f32(w) } else { w }.to_array())
}

/// `x`, exact or rounded to odd at f64's precision (toward zero for `.rz`), rounded to f32 in
/// direction `R` as [`crate::round::round_pack`] rounds it (module documentation). Nearest
/// is the host's conversion. The directed modes work on the f64 encoding: the 29 bits below
/// f32's last place are cleared (truncation) and, where the direction rounds the magnitude up
/// and one of them was set, one f32 unit is added (a carry renormalises; past the largest f32
/// the value converts to infinity, as it should), then the value converts exactly; a finite
/// |x| ≥ 2^128 rounding toward zero gives the largest f32. That is rounding with an unbounded
/// exponent, right down to 2^-126; below, `.ftz` first makes a tiny value a zero of its sign
/// (and one that is not tiny rounds to 2^-126 itself, which the same steps give), and without
/// `.ftz` a group holding such a value rounds onto IEEE's subnormal grid by
/// [`narrow_subnormal`]. A NaN comes out as some NaN.
#[inline(always)]
pub(super) fn narrow<R: Dir, const FTZ: bool>(x: f64x8) -> u32x8 {
    use crate::kernels::simd::i64x8;
    let shift = F64.frac_bits() - F32.frac_bits();
    let f64_bits = |v: f64| i64x8::splat(v.to_bits() as i64);
    let min_normal = f64_bits(2f64.powi(F32.emin()));
    let mut bits = x.to_bits().cast_signed();
    let sign = bits & i64x8::splat(i64::MIN);
    let magnitude = bits & i64x8::splat(i64::MAX);
    // Lanes whose magnitude rounds up.
    let away = match R::R {
        Rounding::Rn | Rounding::Rz => i64x8::ZERO,
        Rounding::Rm => sign.simd_ne(i64x8::ZERO),
        Rounding::Rp => sign.simd_eq(i64x8::ZERO),
    };
    if FTZ {
        // Tiny iff |x| is below the value that rounds (unbounded) to 2^-126: the midpoint
        // under it for .rn, 2^-126 itself toward zero, and just above its predecessor away
        // from zero.
        let threshold = match R::R {
            Rounding::Rn => min_normal - i64x8::splat(1 << (shift - 1)),
            _ => min_normal - (away & i64x8::splat((1 << shift) - 1)),
        };
        bits = magnitude.simd_lt(threshold).select(sign, bits);
    } else if R::R != Rounding::Rn && (magnitude.simd_lt(min_normal) & magnitude.simd_ne(i64x8::ZERO)).any() {
        return narrow_subnormal::<R>(x, away.cast_unsigned());
    }
    if R::R != Rounding::Rn {
        let cleared = i64x8::splat((1 << shift) - 1);
        let inexact = (bits & cleared).simd_ne(i64x8::ZERO);
        bits = (bits & !cleared) + (away & inexact & i64x8::splat(1 << shift));
        let (overflow, inf) = (f64_bits(2f64.powi(F32.emax() + 1)), f64_bits(f64::INFINITY));
        let huge = !magnitude.simd_lt(overflow) & magnitude.simd_lt(inf);
        bits = (huge & !away).select(sign | f64_bits(f32::MAX.into()), bits);
    }
    u32x8::new(each(f64x8::from_bits(bits.cast_unsigned()).to_array(), |v| (v as f32).to_bits()))
}

/// [`narrow`] without `.ftz` in a directed mode `R`, onto IEEE's subnormal grid too: nearest
/// (the host's conversion), then one unit toward the direction where nearest went the other
/// way (`away`: the lanes whose magnitude rounds up).
#[inline(always)]
fn narrow_subnormal<R: Dir>(x: f64x8, away: u64x8) -> u32x8 {
    let all = u64x8::splat(u64::MAX);
    let (bits, up, down) = nearest_f32(x);
    let one = u32x8::splat(1);
    let bits = narrow_mask(down & away).select(bits + one, bits);
    narrow_mask(up & (away ^ all)).select(bits - one, bits)
}

/// What [`narrow`] needs of the exact `s + e`: its rounding to odd, or toward zero for `.rz`
/// (truncations compose, and nearest from the truncation errs only toward larger magnitude).
#[inline(always)]
fn exact<R: Dir>(s: f64x8, e: f64x8) -> f64x8 {
    if R::R == Rounding::Rz {
        truncate(s, e)
    } else {
        to_odd(s, e)
    }
}

/// Both halves narrowed, then [`nan_and_sat`].
#[inline(always)]
pub(super) fn finish<R: Dir, const FTZ: bool>(x: [f64x8; 2], sat: bool) -> [u32; N] {
    nan_and_sat(u32x16::new(join(narrow::<R, FTZ>(x[0]).to_array(), narrow::<R, FTZ>(x[1]).to_array())), sat)
}

/// Whether `s`, the rounding to nearest in f64 of exact values `v`, stands for them in
/// [`narrow`] in every lane (then the exact error is not needed).
///
/// f32 values and the midpoints between them, with an unbounded exponent, are f64 values, and
/// rounding to nearest in f64 is monotone, so `v` lies in the closed interval between the same
/// two of them as `s`, strictly inside when `s` is neither (a bit below f32's round bit set):
/// then every rounding of `v` to f32 is that of `s`. When `s` is an f32 value `v` is within
/// half an f64 unit of it, so rounding to nearest still gives `s`, and when `s` is a midpoint
/// the directed roundings are those of `s`. So `s` fails only at midpoints under `.rn` and at
/// f32 values (zeros included, whose sign may need the exact operands) in the directed modes.
/// Infinities and NaNs are exact.
#[inline(always)]
fn decides<R: Dir>(s: [f64x8; 2]) -> bool {
    let shift = F64.frac_bits() - F32.frac_bits();
    let below_unit = u64x8::splat((1 << shift) - 1);
    let fails = if R::R == Rounding::Rn { 1 << (shift - 1) } else { 0 };
    let exp = u64x8::splat(F64.exp_mask());
    let fail = inlined(
        #[inline(always)]
        |s: f64x8| {
            let bits = s.to_bits();
            (bits & below_unit).simd_eq(u64x8::splat(fails)) & (bits & exp).simd_ne(exp)
        },
    );
    !(fail(s[0]) | fail(s[1])).any()
}

/// The canonical NaN for every NaN (docs/semantics.md §4), then `.sat` when spelled.
#[inline(always)]
fn nan_and_sat(r: u32x16, sat: bool) -> [u32; N] {
    let r = <f32x16 as Lanes>::select(nan_f32(r), u32x16::splat(F32.canonical_nan() as u32), r);
    if sat { saturate::<f32x16>(r, F32) } else { r }.to_array()
}

/// `add` and `sub` (`a + (−b)`; the sign of a NaN `b` does not matter, every NaN result is
/// canonical). Under `.rn` the f64 sum is rounded again directly (module documentation).
fn add<L: Isa, R: Dir, const FTZ: bool>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    let negate = if instr.opcode() == Opcode::Sub { F32.sign_bit() as u32 } else { 0 };
    let sat = instr.modifiers().sat;
    map::<L, u32, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| add_lanes::<R, FTZ>(a, each(b, |w| w ^ negate), sat),
    );
}

/// `add` of sixteen operand pairs.
#[inline(always)]
fn add_lanes<R: Dir, const FTZ: bool>(a: [u32; N], b: [u32; N], sat: bool) -> [u32; N] {
    let (a, b) = (widen::<FTZ>(a), widen::<FTZ>(b));
    let s = [a[0] + b[0], a[1] + b[1]];
    if R::R == Rounding::Rn || decides::<R>(s) {
        return finish::<R, FTZ>(s, sat);
    }
    finish::<R, FTZ>([directed_sum::<R>(a[0], b[0]), directed_sum::<R>(a[1], b[1])], sat)
}

/// `a + b` by TwoSum, in the form [`narrow`] rounds in direction `R` (a function, not a
/// closure, so that it is always inlined into the level's loop).
#[inline(always)]
fn directed_sum<R: Dir>(a: f64x8, b: f64x8) -> f64x8 {
    let (s, e) = two_sum(a, b);
    exact::<R>(zero_sign::<_, R>(s, a, b), e)
}

/// `mul`.
fn mul<L: Isa, R: Dir, const FTZ: bool>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    let sat = instr.modifiers().sat;
    map::<L, u32, N, 2>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b]| mul_lanes::<R, FTZ>(a, b, sat),
    );
}

/// `mul` of sixteen operand pairs (also the FMULs of other kernels' sequences): the f64
/// product is exact.
#[inline(always)]
pub(super) fn mul_lanes<R: Dir, const FTZ: bool>(a: [u32; N], b: [u32; N], sat: bool) -> [u32; N] {
    let (a, b) = (widen::<FTZ>(a), widen::<FTZ>(b));
    finish::<R, FTZ>([a[0] * b[0], a[1] * b[1]], sat)
}

/// `fma` and `mad`: the exact f64 product, then TwoSum with `c`, rounded to odd.
fn fma<L: Isa, R: Dir, const FTZ: bool>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    let sat = instr.modifiers().sat;
    map::<L, u32, N, 3>(
        srcs,
        dst,
        #[inline(always)]
        |[a, b, c]| fma_lanes::<L, R, FTZ>(a, b, c, sat),
    );
}

/// `fma` of sixteen operand triples.
#[inline(always)]
fn fma_lanes<L: Isa, R: Dir, const FTZ: bool>(a: [u32; N], b: [u32; N], c: [u32; N], sat: bool) -> [u32; N] {
    let (a, b, c) = (widen::<FTZ>(a), widen::<FTZ>(b), widen::<FTZ>(c));
    // The product is exact, so the fused (where the level has FMA) or unfused sum rounds it
    // once.
    let fused = inlined(
        #[inline(always)]
        |h: usize| if L::AVX2 { a[h].mul_add(b[h], c[h]) } else { a[h] * b[h] + c[h] },
    );
    let s = [fused(0), fused(1)];
    if decides::<R>(s) {
        return finish::<R, FTZ>(s, sat);
    }
    let sums = build(|h| {
        let p = a[h] * b[h];
        let (s, e) = two_sum(p, c[h]);
        exact::<R>(zero_sign::<_, R>(s, p, c[h]), e)
    });
    finish::<R, FTZ>(sums, sat)
}

/// Where the level has AVX-512: the IEEE operation in f32 lanes with the direction encoded in
/// the instruction ([`super::lanes::embedded_rounding`]; `fma` is the fused VFMADD), then the
/// canonical NaN and `.sat` (docs/semantics.md §4). Without `.ftz` that is the scalar definition.
///
/// With `.ftz` (docs/semantics.md §5) subnormal operands are first made zeros of their sign, and a
/// result is tiny when its rounding with an unbounded exponent lies below 2^-126, which is not
/// IEEE's rule; but the IEEE result r tells, except at |r| = 2^-126. Rounding is monotone and
/// 2^-126 is representable, so an exact value of magnitude at least 2^-126 gives the same r on
/// both grids (not tiny), and a smaller one gives |r| ≤ 2^-126. Below 2^-126 the unbounded grid
/// is finer than IEEE's subnormal grid (spacing 2^-150 against 2^-149), so where the unbounded
/// rounding reaches 2^-126, IEEE's does too: |r| < 2^-126 means tiny, and r keeps the exact
/// value's sign (or is an exact zero, whose sign both rules share). At |r| = 2^-126 toward
/// zero the exact value is at least 2^-126 (not tiny); in the other directions it may lie just
/// below, and such groups take the f64 lanes of the portable path.
#[cfg(target_arch = "x86_64")]
mod embedded {
    use std::arch::x86_64::{
        __m512, _mm512_add_round_ps, _mm512_fmadd_round_ps, _mm512_mul_round_ps, _mm512_sub_round_ps,
    };

    use crate::kernels::simd::{f32x16, u32x16};

    use super::super::lanes::{by_embedded_rounding, each, embedded_rounding as imm, flush_f32, Rm, Rn, Rp, Rz};
    use super::super::level::Isa;
    use super::{add_lanes, fma_lanes, map, mul_lanes, nan_and_sat, F32Kernel, F32, N};
    use crate::ptx::{Instr, Opcode};
    use crate::round::Rounding;

    /// `L` must have AVX-512.
    pub(super) fn select<L: Isa>(op: Opcode, rounding: Rounding, ftz: bool) -> F32Kernel {
        match (op, ftz) {
            (Opcode::Add, false) => by_embedded_rounding!(rounding, add, L),
            (Opcode::Sub, false) => by_embedded_rounding!(rounding, sub, L),
            (Opcode::Mul, false) => by_embedded_rounding!(rounding, mul, L),
            (_, false) => by_embedded_rounding!(rounding, fma, L),
            (Opcode::Add, true) => by_embedded_rounding!(rounding, add_ftz, L),
            (Opcode::Sub, true) => by_embedded_rounding!(rounding, sub_ftz, L),
            (Opcode::Mul, true) => by_embedded_rounding!(rounding, mul_ftz, L),
            (_, true) => by_embedded_rounding!(rounding, fma_ftz, L),
        }
    }

    /// `dst[i] = op(srcs[0][i], …)`, then [`nan_and_sat`], sixteen lanes at a time.
    #[inline(always)]
    fn eval<L: Isa, const K: usize>(
        instr: &Instr,
        srcs: &[&[u32]],
        dst: &mut [u32],
        op: impl Fn([f32x16; K]) -> __m512,
    ) {
        let sat = instr.modifiers().sat;
        map::<L, u32, N, K>(
            srcs,
            dst,
            #[inline(always)]
            |group| {
                let r = op(each(group, |g| f32x16::from_bits(u32x16::new(g))));
                nan_and_sat(f32x16::from(r).to_bits(), sat)
            },
        );
    }

    /// The same with `.ftz` (module documentation): `op` on the flushed operands, tiny results
    /// flushed; a group with a result of magnitude 2^-126 in a direction `R` other than toward
    /// zero is computed by `lanes` (the portable path) instead.
    #[inline(always)]
    fn eval_ftz<L: Isa, const K: usize, const R: i32>(
        instr: &Instr,
        srcs: &[&[u32]],
        dst: &mut [u32],
        op: impl Fn([f32x16; K]) -> __m512,
        lanes: impl Fn([[u32; N]; K], bool) -> [u32; N],
    ) {
        let sat = instr.modifiers().sat;
        // 2^-126, the smallest normal magnitude.
        let (sign, min_normal) = (u32x16::splat(F32.sign_bit() as u32), u32x16::splat(1 << F32.frac_bits()));
        map::<L, u32, N, K>(
            srcs,
            dst,
            #[inline(always)]
            |group| {
                let r = op(each(group, |g| f32x16::from_bits(flush_f32(u32x16::new(g)))));
                let r = f32x16::from(r).to_bits();
                let magnitude = r & !sign;
                if R != imm::RZ && magnitude.simd_eq(min_normal).any() {
                    return lanes(group, sat);
                }
                let tiny = magnitude.simd_lt(min_normal);
                nan_and_sat((tiny & r & sign) | (!tiny & r), sat)
            },
        );
    }

    /// The portable path's `$f::<G…, R, true>` for the direction of the immediate `$imm`.
    macro_rules! by_direction {
        ($imm:expr, $f:ident $(, $g:ty)*) => {
            match $imm {
                imm::RN => $f::<$($g,)* Rn, true>,
                imm::RZ => $f::<$($g,)* Rz, true>,
                imm::RM => $f::<$($g,)* Rm, true>,
                _ => $f::<$($g,)* Rp, true>,
            }
        };
    }

    // SAFETY (the intrinsics below): these kernels are selected only for a level with AVX-512
    // (`select`), whose loop is compiled with it, and the intrinsics only compute.

    fn add<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        eval::<L, 2>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_add_round_ps::<R>(a.into(), b.into()) },
        );
    }

    fn sub<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        eval::<L, 2>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_sub_round_ps::<R>(a.into(), b.into()) },
        );
    }

    fn mul<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        eval::<L, 2>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_mul_round_ps::<R>(a.into(), b.into()) },
        );
    }

    fn fma<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        eval::<L, 3>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| unsafe { _mm512_fmadd_round_ps::<R>(a.into(), b.into(), c.into()) },
        );
    }

    fn add_ftz<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        let lanes = by_direction!(R, add_lanes);
        eval_ftz::<L, 2, R>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_add_round_ps::<R>(a.into(), b.into()) },
            |[a, b], sat| lanes(a, b, sat),
        );
    }

    /// `a + (−b)` in the portable path (the sign of a NaN b does not matter, every NaN result
    /// is canonical).
    fn sub_ftz<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        let lanes = by_direction!(R, add_lanes);
        let negate = F32.sign_bit() as u32;
        eval_ftz::<L, 2, R>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_sub_round_ps::<R>(a.into(), b.into()) },
            |[a, b], sat| lanes(a, each(b, |w| w ^ negate), sat),
        );
    }

    fn mul_ftz<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        let lanes = by_direction!(R, mul_lanes);
        eval_ftz::<L, 2, R>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b]| unsafe { _mm512_mul_round_ps::<R>(a.into(), b.into()) },
            |[a, b], sat| lanes(a, b, sat),
        );
    }

    fn fma_ftz<L: Isa, const R: i32>(instr: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
        let lanes = by_direction!(R, fma_lanes, L);
        eval_ftz::<L, 3, R>(
            instr,
            srcs,
            dst,
            #[inline(always)]
            |[a, b, c]| unsafe { _mm512_fmadd_round_ps::<R>(a.into(), b.into(), c.into()) },
            |[a, b, c], sat| lanes(a, b, c, sat),
        );
    }
}
