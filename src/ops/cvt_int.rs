//! `cvt` between the integer types (`u8` … `s64`) and f16, bf16, f32, f64 (PTX `cvt`, integer
//! forms). Every rule here held on an NVIDIA H200 for every operand of the 8-, 16- and 32-bit
//! sources and for 2^24 generated operands plus special ones of the 64-bit sources
//! (data/hardware/h200-sm90/cvt/, tests/cvt_h200.rs).
//!
//! An integer travels in the low bits of a `u64` word, two's complement for the signed types;
//! a result is written in the destination's width (the register a GPU writes a narrow result
//! into holds it sign-extended for the signed types, zero-extended for the unsigned ones
//! \[HW: `cvt.rzi.s8.f32(-1.0)` in a 16-bit register = 0xFFFF\]).

use crate::format::{Format, Unpacked};
use crate::round::{round_pack, shift_right_round, Rounding};

/// An integer operand type of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
}

impl IntType {
    pub const ALL: [IntType; 8] =
        [IntType::U8, IntType::S8, IntType::U16, IntType::S16, IntType::U32, IntType::S32, IntType::U64, IntType::S64];

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            IntType::U8 | IntType::S8 => 8,
            IntType::U16 | IntType::S16 => 16,
            IntType::U32 | IntType::S32 => 32,
            IntType::U64 | IntType::S64 => 64,
        }
    }

    pub const fn is_signed(self) -> bool {
        matches!(self, IntType::S8 | IntType::S16 | IntType::S32 | IntType::S64)
    }

    /// PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            IntType::U8 => "u8",
            IntType::S8 => "s8",
            IntType::U16 => "u16",
            IntType::S16 => "s16",
            IntType::U32 => "u32",
            IntType::S32 => "s32",
            IntType::U64 => "u64",
            IntType::S64 => "s64",
        }
    }

    pub fn from_name(s: &str) -> Option<IntType> {
        IntType::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The bits of a word of this type.
    pub const fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    pub const fn min(self) -> i128 {
        if self.is_signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    pub const fn max(self) -> i128 {
        if self.is_signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    /// The value of the low `bits()` bits of `word`.
    pub const fn value(self, word: u64) -> i128 {
        let w = word & self.mask();
        if self.is_signed() && w >> (self.bits() - 1) != 0 {
            w as i128 - (1i128 << self.bits())
        } else {
            w as i128
        }
    }

    /// `v` clamped to the type's range, as a word of the type.
    const fn saturated_word(self, v: i128) -> u64 {
        let v = if v < self.min() {
            self.min()
        } else if v > self.max() {
            self.max()
        } else {
            v
        };
        v as u64 & self.mask()
    }
}

/// `cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.int.float`: `a` rounded to an integer in the direction
/// `rnd`, clamped to the destination's range (negative values to 0 for the unsigned types, ±Inf
/// to the bounds), with or without `.sat` \[DOC PTX cvt: "the result is clamped to the
/// destination range by default"; HW: the fingerprints with and without `.sat` are equal\].
/// `.ftz` (f32 sources only) turns a subnormal into 0 first (`cvt.rmi.ftz.s32.f32(-min
/// subnormal)` = 0, without `.ftz` −1).
///
/// A NaN gives the integer with only its top bit set when the source is f64 or the destination
/// has 64 bits (`cvt.rzi.u8.f64(NaN)` = 0x80, `cvt.rni.u64.f32(NaN)` = 0x8000000000000000), and 0
/// from f16, bf16 and f32 to destinations of up to 32 bits \[HW: H200\]. PTX documents no NaN
/// result for these conversions.
#[inline]
pub fn float_to_int(from: Format, to: IntType, a: u64, rnd: Rounding, ftz: bool) -> u64 {
    match from.unpack(a, ftz && from == Format::F32) {
        Unpacked::Nan if from == Format::F64 || to.bits() == 64 => 1 << (to.bits() - 1),
        Unpacked::Nan | Unpacked::Zero { .. } => 0,
        Unpacked::Inf { neg } => to.saturated_word(if neg { i128::MIN } else { i128::MAX }),
        Unpacked::Finite { neg, exp, sig } => {
            // Beyond 2^64 every value saturates; below, the integer fits 117 bits.
            let magnitude = match exp {
                64.. => u128::MAX,
                0.. => u128::from(sig) << exp,
                _ => u128::from(shift_right_round(sig, exp.unsigned_abs(), neg, rnd)),
            };
            let magnitude = magnitude.min(1 << 64) as i128;
            to.saturated_word(if neg { -magnitude } else { magnitude })
        }
    }
}

/// `cvt.{rn,rz,rm,rp}{.ftz}{.sat}.float.int`: the integer word `a` rounded to the destination
/// format in the direction `rnd` (IEEE 754: beyond the largest finite value ±Inf or that value,
/// as the direction dictates; `cvt.rz.f16.u32(65520)` = 65504). Zero is +0. `.ftz` changes
/// nothing (no integer is subnormal); `.sat` is applied after by the caller.
#[inline]
pub fn int_to_float(from: IntType, to: Format, a: u64, rnd: Rounding) -> u64 {
    let v = from.value(a);
    if v == 0 {
        return to.zero(false);
    }
    round_pack(to, v < 0, 0, v.unsigned_abs(), rnd, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_types_have_their_ranges() {
        assert_eq!((IntType::S8.min(), IntType::S8.max()), (-128, 127));
        assert_eq!((IntType::U64.min(), IntType::U64.max()), (0, u64::MAX as i128));
        assert_eq!(IntType::S16.value(0xFFFF_8000), -32768);
        assert_eq!(IntType::U16.value(0xFFFF_8000), 32768);
        assert_eq!(IntType::S64.saturated_word(-(1 << 100)), 1 << 63);
    }
}
