//! Kernels for the f64 approximations built on MUFU.RCP64H and MUFU.RSQ64H (docs/semantics.md §1.3,
//! §2.3): the lane functions of `MUFU.RCP64H{.SAT}` and `MUFU.RSQ64H{.SAT}` on their 32-bit
//! high word (`.SAT` is ignored, opMUFU; mufu_f32.rs selects them), `rcp.approx.ftz.f64` and
//! `rsqrt.approx.ftz.f64` (the unit's word as the high word of the result, the low word 0) and `rsqrt.approx.f64` (the RSQ64H
//! seed refined by DFMAs), sixteen lanes at a time, bit-identical to [`crate::mufu::rcp64h`],
//! [`crate::mufu::rsq64h`] and the lowering in `ptx::lower` (tests/batch_equivalence_mufu.rs).
//!
//! The two units are the f32 RCP and RSQ datapaths on the top 20 fraction bits, their result
//! truncated to the 20 fraction bits of the high word (hardware-verified on an H200,
//! docs/semantics.md §2.3b), so the lanes are the f32 kernels' table lookup and interpolation
//! ([`super::mufu_lanes`]) with that rounding and the f64 exponent arithmetic.

use super::lanes::{each, join, map};
use super::level::Isa;
use super::mufu_lanes::{eq, luts, s, splat, sq, u, Luts, I, U};
use super::simd::{f64x8, u64x8};
use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Mode, Opcode, Type};

const SIGN: u32 = 0x8000_0000;
/// The high word of an f64 infinity: its exponent field.
const INF_HI: u32 = 0x7FF0_0000;
/// The smallest normal's high word.
const MIN_NORMAL_HI: u32 = 0x0010_0000;
const NAN: u32 = crate::mufu::NAN;
const F64: Format = Format::F64;

/// The kernel for `rcp.approx.ftz.f64` or `rsqrt.approx{.ftz}.f64` (the SASS forms on 32-bit
/// words are among mufu_f32.rs's kernels).
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    macro_rules! ftz_f64 {
        ($f:ident) => {
            Kernel::W64(|_, srcs, dst| {
                let l = luts();
                map::<L, u64, 16, 1>(
                    &[srcs[0]],
                    dst,
                    #[inline(always)]
                    |[x]| each($f::<L>(l, high_words(x)).to_array(), |r| u64::from(r) << 32),
                )
            })
        };
    }
    Some(match (instr.opcode(), instr.mode()) {
        (Opcode::Rcp, Mode::Approx) if instr.ty() == Type::F64 && instr.modifiers().ftz => ftz_f64!(rcp64h),
        (Opcode::Rsqrt, Mode::Approx) if instr.ty() == Type::F64 && instr.modifiers().ftz => ftz_f64!(rsq64h),
        (Opcode::Rsqrt, Mode::Approx) if instr.ty() == Type::F64 => Kernel::W64(rsqrt_f64::<L>),
        _ => return None,
    })
}

/// The high words of sixteen f64 encodings.
#[inline(always)]
fn high_words(x: [u64; 16]) -> U {
    U::new(each(x, |w| (w >> 32) as u32))
}

/// Sign bit, biased exponent and 20-bit fraction of f64 high words.
#[inline(always)]
fn fields(hi: U) -> (U, U, U) {
    (hi & SIGN, hi >> 20 & 0x7FFu32, hi & 0xF_FFFFu32)
}

/// MUFU.RCP64H ([`crate::mufu::rcp64h`]): the RCP table on f = frac << 3 (idx = f[22:16],
/// xl = f[15:0]), `q = (interpolation + 0x47E7) >> 18`, biased exponent 2045 − e packed
/// as `(2044 − e) << 20 + q` (a q of 2^21 renormalises); results below 2^−1022 flush to a
/// zero of the operand's sign.
#[inline(always)]
pub(super) fn rcp64h<L: Isa>(l: &Luts, hi: U) -> U {
    let (sign, expo, frac) = fields(hi);
    let f = frac << 3;
    let xl = f & 0xFFFFu32;
    let (p, y) = l.rcp.interpolate::<L>(f >> 16, xl, sq::<L>(xl << 1), 0, crate::mufu::rcp::ROUND as i32);
    let q = u(p + (y >> 9)) >> 9;
    let bits = I::splat(2044 << 20) - s(expo << 20) + s(q);
    let r = bits.simd_lt(I::splat(MIN_NORMAL_HI as i32)).cast_unsigned().select(U::ZERO, u(bits)) | sign;
    let r = eq(expo, 0).select(sign | INF_HI, r);
    eq(expo, 0x7FF).select(eq(frac, 0).select(sign, splat(NAN)), r)
}

/// MUFU.RSQ64H ([`crate::mufu::rsq64h`]): the exponent parity (e = expo − 1023 is odd
/// exactly when bit 20 is clear) selects the [2,4) half of the RSQ table,
/// `q = (interpolation + 0x7FFF) >> 19`, packed as `(1021 − ⌊e/2⌋) << 20 + q`; an even
/// power of two (f = 0) is exact (q = 2^21). Never subnormal.
#[inline(always)]
pub(super) fn rsq64h<L: Isa>(l: &Luts, hi: U) -> U {
    let (sign, expo, frac) = fields(hi);
    let f = frac << 3 | (!hi & MIN_NORMAL_HI) << 3;
    let half = (s(expo) - I::splat(1023)) >> 1;
    let xl = f & 0x1_FFFFu32;
    let (p, y) = l.rsq.interpolate::<L>(f >> 17, xl, sq::<L>(xl), 2, crate::mufu::rsq::ROUND as i32);
    let q = eq(f, 0).select(splat(1 << 21), u(p + (y >> 9)) >> 10);
    let r = u(I::splat(1021 << 20) - (half << 20)) + q;
    let r = sign.simd_ne(U::ZERO).select(splat(NAN), r);
    let r = eq(expo, 0x7FF).select(eq(hi, INF_HI).select(U::ZERO, splat(NAN)), r);
    eq(expo, 0).select(sign | INF_HI, r)
}

/// `rsqrt.approx.f64` (`ptx::lower`): on a positive normal x, with y0 = {RSQ64H(x.hi), 0},
/// `e = DFMA(x, −DMUL(y0, y0), 1); p = DFMA(e, 0.375, 0.5); y = DFMA(p, DMUL(y0, e), y0)`,
/// each rounded to nearest (host f64 arithmetic, fused where it is an FMA; no operand or
/// result of a normal x is subnormal). The slow path: a positive subnormal x is scaled by
/// 2^54 (exactly), refined, and its result scaled by 2^27; ±0 gives ±∞, a NaN is quieted, a
/// negative x gives the canonical NaN, +∞ gives +0.
fn rsqrt_f64<L: Isa>(_: &Instr, srcs: &[&[u64]], dst: &mut [u64]) {
    let l = luts();
    map::<L, u64, 16, 1>(
        &[srcs[0]],
        dst,
        #[inline(always)]
        |[x]| {
            let words = [0, 8].map(|at| u64x8::new(core::array::from_fn(|i| x[at + i])));
            let operands = words.map(scale_subnormal);
            let seed = rsq64h::<L>(l, high_words(join(operands[0].to_array(), operands[1].to_array()))).to_array();
            let (lo, hi) = seed.split_at(8);
            join(
                rsqrt_half(words[0], operands[0], lo.try_into().unwrap()),
                rsqrt_half(words[1], operands[1], hi.try_into().unwrap()),
            )
        },
    );
}

const SCALE_OPERAND: f64 = 18014398509481984.0; // 2^54
const SCALE_RESULT: f64 = 134217728.0; // 2^27

/// The positive subnormal lanes of f64 encodings.
#[inline(always)]
fn subnormal(bits: u64x8) -> u64x8 {
    (bits - u64x8::ONE).simd_lt(u64x8::splat(F64.frac_mask()))
}

/// The operand the refinement reads: a positive subnormal scaled by 2^54.
#[inline(always)]
fn scale_subnormal(bits: u64x8) -> u64x8 {
    subnormal(bits).select((f64x8::from_bits(bits) * SCALE_OPERAND).to_bits(), bits)
}

/// `rsqrt.approx.f64` of eight encodings `bits`, from their scaled operands and RSQ64H words.
#[inline(always)]
fn rsqrt_half(bits: u64x8, operand: u64x8, seed: [u32; 8]) -> [u64; 8] {
    let a = f64x8::from_bits(operand);
    let y0 = f64x8::from_bits(u64x8::new(seed.map(|w| u64::from(w) << 32)));
    let e = a.mul_add(-(y0 * y0), f64x8::ONE);
    let p = e.mul_add(f64x8::splat(0.375), f64x8::splat(0.5));
    let refined = p.mul_add(y0 * e, y0);
    let r = subnormal(bits).select((refined * SCALE_RESULT).to_bits(), refined.to_bits());
    let magnitude = bits & u64x8::splat(!F64.sign_bit());
    let negative = (bits & u64x8::splat(F64.sign_bit())).simd_ne(u64x8::ZERO);
    let nan = magnitude.simd_gt(u64x8::splat(F64.inf(false)));
    let r = magnitude.simd_eq(u64x8::splat(F64.inf(false))).select(u64x8::ZERO, r);
    let r = negative.select(u64x8::splat(F64.canonical_nan()), r);
    let r = nan.select(bits | u64x8::splat(F64.quiet_bit()), r);
    magnitude.simd_eq(u64x8::ZERO).select(bits | u64x8::splat(F64.inf(false)), r).to_array()
}
