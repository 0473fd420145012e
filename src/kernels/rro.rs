//! Kernels for `RRO.SINCOS` and `RRO.EX2` (sm_5x/sm_6x), the range reduction into the
//! fixed-point words MUFU.SIN/COS/EX2 read there, sixteen lanes at a time, bit-identical to
//! [`crate::mufu::rro`] (docs/semantics.md §3 \[RE\]: subnormals flush to a signed zero, every shift
//! truncates; bit 30 and bits 24:23 code NaN and infinity).

use super::lanes::{join, map};
use super::level::{inlined, Isa};
use super::simd::{i32x16, u32x16, u64x8};
use super::Kernel;
use crate::mufu::rro::{INF_CODE, NAN_CODE};
use crate::ptx::{Instr, Opcode, RroMode};

type U = u32x16;
type I = i32x16;

const SIGN: u32 = 0x8000_0000;

/// The kernel for `RRO.SINCOS` or `RRO.EX2`.
pub(super) fn select<L: Isa>(instr: &Instr) -> Option<Kernel> {
    match instr.opcode() {
        Opcode::Rro(RroMode::Sincos) => Some(Kernel::W32(rro::<L, true>)),
        Opcode::Rro(RroMode::Ex2) => Some(Kernel::W32(rro::<L, false>)),
        _ => None,
    }
}

fn rro<L: Isa, const SINCOS: bool>(_: &Instr, srcs: &[&[u32]], dst: &mut [u32]) {
    map::<L, u32, 16, 1>(
        srcs,
        dst,
        #[inline(always)]
        |[x]| {
            let x = U::new(x);
            let sign = x & SIGN;
            let expo = x >> 23 & 0xFFu32;
            // A zero or subnormal is a zero significand (its exponent then does not matter).
            let m = expo.simd_eq(U::ZERO).select(U::ZERO, x & 0x7F_FFFFu32 | 1u32 << 23);
            let e = expo.cast_signed() - 127;
            let word = if SINCOS {
                // m·(2/π·2^24, truncated) >> 16, then shifted by e − 8 and cut to 25 bits.
                let scaled = inlined(
                    #[inline(always)]
                    |at: usize| {
                        let m = u64x8::new(core::array::from_fn(|i| u64::from(m.to_array()[at + i])));
                        ((m * 0xA2_F983u64) >> 16).to_array().map(|w| w as u32)
                    },
                );
                shift_truncate(U::new(join(scaled(0), scaled(8))), e - 8) & 0x1FF_FFFFu32
            } else {
                // |x| ≥ 128 (e ≥ 7) is out of the 1.7.23 range.
                e.simd_ge(I::splat(7)).cast_unsigned().select(U::splat(INF_CODE), shift_truncate(m, e))
            };
            let special = expo.simd_eq(U::splat(0xFF));
            let code = (x & 0x7F_FFFFu32).simd_eq(U::ZERO).select(U::splat(INF_CODE), U::splat(NAN_CODE));
            (sign | special.select(code, word)).to_array()
        },
    );
}

/// `m·2^shift` per lane, truncated; a shift of 32 or more either way gives 0
/// ([`crate::mufu::rro::shift_truncate`]).
#[inline(always)]
fn shift_truncate(m: U, shift: I) -> U {
    let left = m.unbounded_shl(shift.cast_unsigned());
    let right = m.unbounded_shr((-shift).cast_unsigned());
    shift.simd_lt(I::ZERO).cast_unsigned().select(right, left)
}
