//! The four scalar floating-point formats and their bit-level anatomy.
//!
//! Every value travels through ptxfp as raw bits in the low bits of a `u64`. This module knows
//! how wide each format is, where its fields sit, what its canonical NaN is (docs/semantics.md §4), how
//! to classify a bit pattern and how to flush a subnormal input to a sign-preserving zero
//! (docs/semantics.md §5). Packed forms (f16x2, bf16x2, f32x2) are split into these scalars by
//! [`crate::ptx::Type`].

/// A scalar IEEE-style binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// IEEE binary16: 1 sign, 5 exponent, 10 fraction bits.
    F16,
    /// bfloat16: 1 sign, 8 exponent, 7 fraction bits (the top half of an f32).
    BF16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

/// What a bit pattern encodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Nan,
    Inf,
    Zero,
    Subnormal,
    Normal,
}

/// A bit pattern taken apart: the operands every arithmetic definition works on.
///
/// A finite nonzero value is `(-1)^neg · sig · 2^exp` with `sig` the integer significand
/// (implicit bit included for normals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unpacked {
    Nan,
    Inf { neg: bool },
    Zero { neg: bool },
    Finite { neg: bool, exp: i32, sig: u64 },
}

impl Format {
    pub const ALL: [Format; 4] = [Format::F16, Format::BF16, Format::F32, Format::F64];

    /// Total width in bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        match self {
            Format::F16 | Format::BF16 => 16,
            Format::F32 => 32,
            Format::F64 => 64,
        }
    }

    /// Significand precision p in bits, implicit bit included.
    #[inline]
    pub const fn precision(self) -> u32 {
        match self {
            Format::F16 => 11,
            Format::BF16 => 8,
            Format::F32 => 24,
            Format::F64 => 53,
        }
    }

    /// Width of the stored fraction field (p − 1).
    #[inline]
    pub const fn frac_bits(self) -> u32 {
        self.precision() - 1
    }

    /// Width of the exponent field.
    #[inline]
    pub const fn exp_bits(self) -> u32 {
        self.bits() - self.precision()
    }

    /// Exponent bias.
    #[inline]
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits() - 1)) - 1
    }

    /// Largest unbiased exponent of a finite value.
    #[inline]
    pub const fn emax(self) -> i32 {
        self.bias()
    }

    /// Smallest unbiased exponent of a normal value.
    #[inline]
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    /// The finite values, as [`crate::round::round_to_grid`] rounds onto them: every code of
    /// the top binade finite, subnormals below 2^emin.
    #[inline]
    pub(crate) const fn grid(self) -> crate::round::Grid {
        crate::round::Grid {
            p: self.precision(),
            emin: self.emin(),
            emax: self.emax(),
            max_top: (1u64 << self.precision()) - 1,
            subnormals: true,
        }
    }

    /// Mask of all bits of the format.
    #[inline]
    pub const fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1u64 << (self.bits() - 1)
    }

    #[inline]
    pub const fn frac_mask(self) -> u64 {
        (1u64 << self.frac_bits()) - 1
    }

    /// The exponent field, in place.
    #[inline]
    pub const fn exp_mask(self) -> u64 {
        self.mask() & !self.sign_bit() & !self.frac_mask()
    }

    /// The quiet bit of a NaN (top fraction bit).
    #[inline]
    pub const fn quiet_bit(self) -> u64 {
        1u64 << (self.frac_bits() - 1)
    }

    #[inline]
    pub const fn inf(self, neg: bool) -> u64 {
        self.exp_mask() | if neg { self.sign_bit() } else { 0 }
    }

    #[inline]
    pub const fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign_bit()
        } else {
            0
        }
    }

    /// Largest finite magnitude with the given sign.
    #[inline]
    pub const fn max_finite(self, neg: bool) -> u64 {
        (self.inf(neg)) - 1
    }

    /// 1.0
    #[inline]
    pub const fn one(self) -> u64 {
        (self.bias() as u64) << self.frac_bits()
    }

    /// The NaN NVIDIA hardware writes for this format \[DOC, docs/semantics.md §4\]: f32 0x7FFFFFFF,
    /// f16 and bf16 0x7FFF. f64 has no canonical NaN (payloads propagate); for an invalid
    /// operation it produces 0xFFF8000000000000 \[INF, docs/semantics.md §4\].
    #[inline]
    pub const fn canonical_nan(self) -> u64 {
        match self {
            Format::F16 | Format::BF16 => 0x7FFF,
            Format::F32 => 0x7FFF_FFFF,
            Format::F64 => 0xFFF8_0000_0000_0000,
        }
    }

    #[inline]
    pub const fn is_neg(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }

    #[inline]
    pub const fn abs(self, bits: u64) -> u64 {
        bits & self.mask() & !self.sign_bit()
    }

    #[inline]
    pub const fn is_nan(self, bits: u64) -> bool {
        self.abs(bits) > self.exp_mask()
    }

    #[inline]
    pub const fn classify(self, bits: u64) -> Class {
        let mag = self.abs(bits);
        let exp = mag & self.exp_mask();
        if exp == self.exp_mask() {
            if mag & self.frac_mask() == 0 {
                Class::Inf
            } else {
                Class::Nan
            }
        } else if exp == 0 {
            if mag == 0 {
                Class::Zero
            } else {
                Class::Subnormal
            }
        } else {
            Class::Normal
        }
    }

    /// Flush a subnormal to a zero of the same sign (the input side of `.ftz`, docs/semantics.md §5
    /// \[DOC\]); every other pattern is returned unchanged.
    #[inline]
    pub const fn flush_subnormal(self, bits: u64) -> u64 {
        if matches!(self.classify(bits), Class::Subnormal) {
            bits & self.sign_bit()
        } else {
            bits
        }
    }

    /// Take a bit pattern apart, flushing a subnormal to zero first when `ftz` is set.
    #[inline(always)]
    pub fn unpack(self, bits: u64, ftz: bool) -> Unpacked {
        let neg = self.is_neg(bits);
        let frac = bits & self.frac_mask();
        let biased = ((bits & self.exp_mask()) >> self.frac_bits()) as i32;
        match self.classify(bits) {
            Class::Nan => Unpacked::Nan,
            Class::Inf => Unpacked::Inf { neg },
            Class::Zero => Unpacked::Zero { neg },
            Class::Subnormal if ftz => Unpacked::Zero { neg },
            Class::Subnormal => Unpacked::Finite { neg, exp: self.emin() - self.frac_bits() as i32, sig: frac },
            Class::Normal => Unpacked::Finite {
                neg,
                exp: biased - self.bias() - self.frac_bits() as i32,
                sig: frac | (1u64 << self.frac_bits()),
            },
        }
    }

    /// Lower-case PTX type suffix (`f16`, `bf16`, `f32`, `f64`).
    #[inline]
    pub const fn name(self) -> &'static str {
        match self {
            Format::F16 => "f16",
            Format::BF16 => "bf16",
            Format::F32 => "f32",
            Format::F64 => "f64",
        }
    }

    /// Interpret bits as a number, for printing.
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Format::F16 => half::f16::from_bits(bits as u16).to_f64(),
            Format::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
            Format::F32 => f32::from_bits(bits as u32) as f64,
            Format::F64 => f64::from_bits(bits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_layout_matches_ieee() {
        assert_eq!(Format::F32.exp_mask(), 0x7F80_0000);
        assert_eq!(Format::F16.exp_mask(), 0x7C00);
        assert_eq!(Format::BF16.exp_mask(), 0x7F80);
        assert_eq!(Format::F64.exp_mask(), 0x7FF0_0000_0000_0000);
        assert_eq!(Format::F32.one(), 1.0f32.to_bits() as u64);
        assert_eq!(Format::F64.one(), 1.0f64.to_bits());
        assert_eq!(Format::F16.one(), 0x3C00);
        assert_eq!(Format::BF16.one(), 0x3F80);
        assert_eq!(Format::F32.max_finite(false), f32::MAX.to_bits() as u64);
        assert_eq!(Format::F16.emin(), -14);
    }

    #[test]
    fn unpack_value_matches_host() {
        for bits in [1u32, 0x0080_0000, 0x3F80_0000, 0x7F7F_FFFF, 0x8000_0001, 0xC0A0_0000] {
            let Unpacked::Finite { neg, exp, sig } = Format::F32.unpack(bits as u64, false) else {
                panic!("finite expected")
            };
            let v = sig as f64 * 2f64.powi(exp) * if neg { -1.0 } else { 1.0 };
            assert_eq!(v, f32::from_bits(bits) as f64);
        }
        assert_eq!(Format::F32.unpack(1, true), Unpacked::Zero { neg: false });
        assert_eq!(Format::F32.unpack(0x8000_0001, true), Unpacked::Zero { neg: true });
    }
}
