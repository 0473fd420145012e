//! The narrow formats of low-precision training and of tensor-core operands: tf32, the FP8
//! formats e4m3 and e5m2, the FP6 formats e2m3 and e3m2, the FP4 format e2m1, the unsigned
//! block-scale formats ue8m0, ue4m3 and ue5m3, and the fixed-point s2f6 (PTX ISA sections 5.2.3–5.2.4,
//! docs/semantics.md §8.4–§8.5).
//!
//! Each is one row of parameters (field widths, bias, signedness, which codes are not numbers);
//! everything else is derived from them: the decoding of a code to its exact value, the grid that
//! [`crate::round::round_to_grid`] rounds onto, the largest finite code and the NaN. The
//! conversions ([`crate::ops::cvt_narrow`]), the kernels, the bindings and the tensor-core
//! operand decoders all read this one table.

use crate::format::Unpacked;
use crate::round::Grid;

/// A narrow format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Narrow {
    /// tf32: 1 sign, 8 exponent and 10 fraction bits (bias 127), IEEE infinities and NaNs; the
    /// top 19 bits of an f32 word, whose low 13 bits PTX leaves "implementation defined".
    Tf32,
    /// e4m3 (OCP E4M3FN): 1-4-3, bias 7, no infinity; NaN only S.1111.111; largest 448.
    E4m3,
    /// e5m2: 1-5-2, bias 15, IEEE infinities and NaNs; largest 57344.
    E5m2,
    /// e2m3 (FP6): 1-2-3, bias 1, every code finite; largest 7.5.
    E2m3,
    /// e3m2 (FP6): 1-3-2, bias 3, every code finite; largest 28.
    E3m2,
    /// e2m1 (FP4): 1-2-1, bias 1, every code finite; largest 6.
    E2m1,
    /// ue8m0: an unsigned 8-bit exponent, bias 127: 2^(e−127) for e < 255, 0xFF NaN; no zero.
    Ue8m0,
    /// ue4m3: e4m3 without its sign (7 bits), NaN 0x7F; the block scale of NVFP4.
    Ue4m3,
    /// ue5m3: unsigned 5-3, bias 15, NaN 0xFF, no infinity; largest 114688 (PTX 9.4).
    Ue5m3,
    /// s2f6: an 8-bit two's-complement integer times 2^−6, [−2, 1.984375]; no specials.
    S2f6,
}

/// Which codes are not finite numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// The all-ones exponent field holds ±Inf (zero fraction) and the NaNs, as in IEEE 754.
    Ieee,
    /// The one code with every exponent and fraction bit set is NaN (of either sign); there is
    /// no infinity.
    AllOnesNan,
    /// Every code is a number.
    None,
}

impl Narrow {
    pub const ALL: [Narrow; 10] = [
        Narrow::Tf32,
        Narrow::E4m3,
        Narrow::E5m2,
        Narrow::E2m3,
        Narrow::E3m2,
        Narrow::E2m1,
        Narrow::Ue8m0,
        Narrow::Ue4m3,
        Narrow::Ue5m3,
        Narrow::S2f6,
    ];

    /// The PTX name (`e4m3`, `ue8m0`, `tf32`).
    pub const fn name(self) -> &'static str {
        match self {
            Narrow::Tf32 => "tf32",
            Narrow::E4m3 => "e4m3",
            Narrow::E5m2 => "e5m2",
            Narrow::E2m3 => "e2m3",
            Narrow::E3m2 => "e3m2",
            Narrow::E2m1 => "e2m1",
            Narrow::Ue8m0 => "ue8m0",
            Narrow::Ue4m3 => "ue4m3",
            Narrow::Ue5m3 => "ue5m3",
            Narrow::S2f6 => "s2f6",
        }
    }

    /// Width of the exponent field (0 for the fixed-point s2f6).
    pub const fn exp_bits(self) -> u32 {
        match self {
            Narrow::Tf32 | Narrow::Ue8m0 => 8,
            Narrow::E4m3 | Narrow::Ue4m3 => 4,
            Narrow::E5m2 | Narrow::Ue5m3 => 5,
            Narrow::E2m3 | Narrow::E2m1 => 2,
            Narrow::E3m2 => 3,
            Narrow::S2f6 => 0,
        }
    }

    /// Width of the fraction field (for the two's-complement s2f6, the 7 bits below its sign,
    /// in units of 2^−6).
    pub const fn frac_bits(self) -> u32 {
        match self {
            Narrow::Tf32 => 10,
            Narrow::E4m3 | Narrow::E2m3 | Narrow::Ue4m3 | Narrow::Ue5m3 => 3,
            Narrow::E5m2 | Narrow::E3m2 => 2,
            Narrow::E2m1 => 1,
            Narrow::Ue8m0 => 0,
            Narrow::S2f6 => 7,
        }
    }

    /// Whether the code has a sign bit (the `ue` formats have none).
    pub const fn signed(self) -> bool {
        !matches!(self, Narrow::Ue8m0 | Narrow::Ue4m3 | Narrow::Ue5m3)
    }

    /// Width of a code in bits: sign, exponent and fraction.
    pub const fn bits(self) -> u32 {
        self.signed() as u32 + self.exp_bits() + self.frac_bits()
    }

    /// Mask of a code's bits.
    pub const fn mask(self) -> u64 {
        (1u64 << self.bits()) - 1
    }

    /// The sign bit (0 for the unsigned formats).
    pub const fn sign_bit(self) -> u64 {
        if self.signed() {
            1 << (self.bits() - 1)
        } else {
            0
        }
    }

    /// The exponent bias (the exponent field of 1.0; s2f6 has none).
    pub const fn bias(self) -> i32 {
        match self {
            Narrow::S2f6 => 0,
            _ => (1 << (self.exp_bits() - 1)) - 1,
        }
    }

    /// Which codes are not numbers.
    pub const fn specials(self) -> Specials {
        match self {
            Narrow::Tf32 | Narrow::E5m2 => Specials::Ieee,
            Narrow::E4m3 | Narrow::Ue8m0 | Narrow::Ue4m3 | Narrow::Ue5m3 => Specials::AllOnesNan,
            Narrow::E2m3 | Narrow::E3m2 | Narrow::E2m1 | Narrow::S2f6 => Specials::None,
        }
    }

    /// Whether the exponent field 0 holds subnormals and a zero (every format but ue8m0, whose
    /// field 0 is 2^−127).
    const fn subnormals(self) -> bool {
        !matches!(self, Narrow::Ue8m0)
    }

    /// The largest exponent field that holds finite values.
    const fn top_field(self) -> u64 {
        let all = (1u64 << self.exp_bits()) - 1;
        match self.specials() {
            Specials::Ieee => all - 1,
            // ue8m0 has no fraction: its NaN takes the whole all-ones field.
            Specials::AllOnesNan if self.frac_bits() == 0 => all - 1,
            _ => all,
        }
    }

    /// The finite values as a rounding grid. s2f6 is the grid of magnitudes k · 2^−6,
    /// k ≤ 127: one binade [1, 2) with its subnormals below; its −2.0 (k = 128) lies outside,
    /// so a rounding never produces it (docs/semantics.md §8.5: the PTX text saturates to
    /// "sign-preserved MAX_NORM", −1.984375 \[UNK on hardware\]).
    pub(crate) const fn grid(self) -> Grid {
        if let Narrow::S2f6 = self {
            // Magnitudes of 7 bits: the binade [1, 2) of p = 7 bits, its subnormals below.
            return Grid { p: 7, emin: 0, emax: 0, max_top: 0x7F, subnormals: true };
        }
        let p = self.frac_bits() + 1;
        let first_field = self.subnormals() as i32;
        let emin = first_field - self.bias();
        let emax = emin + (self.top_field() as i32 - first_field);
        let all_fraction = (1u64 << p) - 1;
        let nan_in_top = matches!(self.specials(), Specials::AllOnesNan) && self.frac_bits() > 0;
        Grid {
            p,
            emin,
            emax,
            max_top: if nan_in_top { all_fraction - 1 } else { all_fraction },
            subnormals: self.subnormals(),
        }
    }

    /// The code of the largest finite value (positive).
    pub const fn max_finite(self) -> u64 {
        if let Narrow::S2f6 = self {
            return 0x7F;
        }
        let g = self.grid();
        (self.top_field() << self.frac_bits()) | (g.max_top & ((1 << self.frac_bits()) - 1))
    }

    /// The code of +Inf, for the formats that have one.
    pub const fn inf(self) -> Option<u64> {
        match self.specials() {
            Specials::Ieee => Some(((1u64 << self.exp_bits()) - 1) << self.frac_bits()),
            _ => None,
        }
    }

    /// The positive NaN code of the formats with a NaN: the all-ones code (of the magnitude).
    pub const fn nan(self) -> Option<u64> {
        match self.specials() {
            Specials::None => None,
            _ => Some(self.mask() & !self.sign_bit()),
        }
    }

    /// The exact value of a code (its bits above [`Narrow::bits`] ignored).
    pub const fn decode(self, code: u64) -> Unpacked {
        let code = code & self.mask();
        if let Narrow::S2f6 = self {
            let int = code as u8 as i8;
            return match int {
                0 => Unpacked::Zero { neg: false },
                _ => Unpacked::Finite { neg: int < 0, exp: -6, sig: int.unsigned_abs() as u64 },
            };
        }
        let neg = code & self.sign_bit() != 0;
        let mag = code & !self.sign_bit();
        let frac_bits = self.frac_bits();
        let frac = mag & ((1 << frac_bits) - 1);
        let field = mag >> frac_bits;
        let all_ones = (1u64 << self.exp_bits()) - 1;
        match self.specials() {
            Specials::Ieee if field == all_ones => {
                return if frac == 0 { Unpacked::Inf { neg } } else { Unpacked::Nan };
            }
            Specials::AllOnesNan if mag == self.mask() & !self.sign_bit() => return Unpacked::Nan,
            _ => {}
        }
        if !self.subnormals() {
            return Unpacked::Finite {
                neg,
                exp: field as i32 - self.bias() - frac_bits as i32,
                sig: frac | 1 << frac_bits,
            };
        }
        match (field, frac) {
            (0, 0) => Unpacked::Zero { neg },
            (0, _) => Unpacked::Finite { neg, exp: 1 - self.bias() - frac_bits as i32, sig: frac },
            _ => {
                Unpacked::Finite { neg, exp: field as i32 - self.bias() - frac_bits as i32, sig: frac | 1 << frac_bits }
            }
        }
    }

    /// The value of a code as an `f64` (exact: every narrow value is an f64), NaN for a NaN.
    pub fn to_f64(self, code: u64) -> f64 {
        match self.decode(code) {
            Unpacked::Nan => f64::NAN,
            Unpacked::Inf { neg } => {
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Unpacked::Zero { neg } => {
                if neg {
                    -0.0
                } else {
                    0.0
                }
            }
            Unpacked::Finite { neg, exp, sig } => {
                let v = sig as f64 * 2f64.powi(exp);
                if neg {
                    -v
                } else {
                    v
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameters against the values PTX ISA sections 5.2.3–5.2.4 and the OCP MX specification
    /// state for each format: its width, largest finite value, smallest subnormal and NaN.
    #[test]
    fn the_table_gives_the_documented_values() {
        let cases: [(Narrow, u32, f64, f64, Option<u64>); 10] = [
            (Narrow::Tf32, 19, (2.0 - 2f64.powi(-10)) * 2f64.powi(127), 2f64.powi(-136), Some(0x3FFFF)),
            (Narrow::E4m3, 8, 448.0, 2f64.powi(-9), Some(0x7F)),
            (Narrow::E5m2, 8, 57344.0, 2f64.powi(-16), Some(0x7F)),
            (Narrow::E2m3, 6, 7.5, 0.125, None),
            (Narrow::E3m2, 6, 28.0, 0.0625, None),
            (Narrow::E2m1, 4, 6.0, 0.5, None),
            (Narrow::Ue8m0, 8, 2f64.powi(127), 2f64.powi(-127), Some(0xFF)),
            (Narrow::Ue4m3, 7, 448.0, 2f64.powi(-9), Some(0x7F)),
            (Narrow::Ue5m3, 8, 114688.0, 2f64.powi(-17), Some(0xFF)),
            (Narrow::S2f6, 8, 1.984375, 0.015625, None),
        ];
        for (fmt, bits, max, min, nan) in cases {
            assert_eq!(fmt.bits(), bits, "{fmt:?}");
            assert_eq!(fmt.to_f64(fmt.max_finite()), max, "{fmt:?} max");
            // The smallest positive value: code 1 (ue8m0's code 0).
            let least = if fmt == Narrow::Ue8m0 { 0 } else { 1 };
            assert_eq!(fmt.to_f64(least), min, "{fmt:?} min");
            assert_eq!(fmt.nan(), nan, "{fmt:?} nan");
            assert!(nan.is_none_or(|n| fmt.to_f64(n).is_nan()), "{fmt:?} nan");
        }
        assert_eq!(Narrow::E5m2.inf(), Some(0x7C));
        assert_eq!(Narrow::Tf32.inf(), Some(0x7F800000 >> 13));
        assert_eq!(Narrow::E4m3.inf(), None);
        assert_eq!(Narrow::S2f6.to_f64(0x80), -2.0);
        assert_eq!(Narrow::S2f6.to_f64(0x81), -1.984375);
        assert_eq!(Narrow::Ue5m3.to_f64(0x78), 1.0);
        assert_eq!(Narrow::Ue8m0.to_f64(0x7F), 1.0);
        assert!(Narrow::Ue8m0.to_f64(0xFF).is_nan());
        assert!(Narrow::E4m3.to_f64(0xFF).is_nan());
        assert_eq!(Narrow::E4m3.to_f64(0xFE), -448.0);
    }

    /// Every code decodes to a value whose re-encoding on the format's own grid gives the code
    /// back (the grid and the decoder describe the same lattice), and codes ascend with value.
    #[test]
    fn decoding_and_the_grid_describe_one_lattice() {
        use crate::round::{round_to_grid, Rounded, Rounding, Rule};
        for fmt in Narrow::ALL {
            let codes = if fmt == Narrow::Tf32 { 1u64 << 19 } else { 1 << fmt.bits() };
            let mut last = f64::NEG_INFINITY;
            for code in 0..codes {
                let mag = code & !fmt.sign_bit();
                match fmt.decode(code) {
                    Unpacked::Finite { neg, exp, sig } => {
                        // s2f6's grid holds magnitudes; its −2.0 lies beyond them (Narrow::grid).
                        let want = match fmt {
                            Narrow::S2f6 if sig == 128 => Rounded::Overflow { away: true },
                            Narrow::S2f6 => Rounded::Code(sig),
                            _ => Rounded::Code(mag),
                        };
                        let got = round_to_grid(fmt.grid(), neg, exp, sig, Rule::Dir(Rounding::Rn), false);
                        assert_eq!(got, want, "{fmt:?} {code:#x}");
                        if let Rounded::Code(_) = want {
                            for rnd in Rounding::ALL {
                                let got = round_to_grid(fmt.grid(), neg, exp, sig, Rule::Dir(rnd), false);
                                assert_eq!(got, want, "{fmt:?} {code:#x} {rnd:?}");
                            }
                        }
                        if fmt.sign_bit() & code == 0 && fmt != Narrow::S2f6 {
                            let v = fmt.to_f64(code);
                            assert!(v > last, "{fmt:?} {code:#x}");
                            last = v;
                        }
                    }
                    Unpacked::Zero { .. } => assert!(mag == 0 || fmt == Narrow::S2f6),
                    // IEEE formats have many NaNs, the others one.
                    Unpacked::Nan => {
                        assert!(fmt.specials() == Specials::Ieee || Some(mag) == fmt.nan(), "{fmt:?} {code:#x}")
                    }
                    Unpacked::Inf { .. } => assert_eq!(Some(mag), fmt.inf(), "{fmt:?} {code:#x}"),
                }
            }
        }
    }
}
