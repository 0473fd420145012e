//! The element types of tensor-core operands: how a code is decoded to its exact value and the
//! least exponent the datapath aligns it with (docs/tensorcore.md).

use crate::format::{Format, Unpacked};
use crate::narrow::Narrow;

/// The type of an `A`, `B`, `C` or `D` element of a floating-point `mma`, or of a block scale.
///
/// Codes travel in the low bits of a `u32`; a tf32 element is the f32 register that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MmaType {
    F16,
    Bf16,
    /// An f32 register whose low 13 bits the tensor core ignores (PTX ISA §9.7.15.5.2, `wgmma`:
    /// "will truncate lower 13 bits of the 32-bit input data" \[DOC\]; `mma` \[MODEL\]).
    Tf32,
    F32,
    E4m3,
    E5m2,
    E3m2,
    E2m3,
    E2m1,
    /// The block scale of `mxf8f6f4`, `mxf4` and `mxf4nvf4` with `scale_vec::1X/2X`.
    Ue8m0,
    /// The block scale of `mxf4nvf4` with `scale_vec::4X`: an e4m3 byte whose sign bit the
    /// tensor core ignores (MMA-Sim 2.1.1 `truncate_e4m3_to_ue4m3` \[MODEL\]).
    Ue4m3,
}

impl MmaType {
    pub const ALL: [MmaType; 11] = [
        MmaType::F16,
        MmaType::Bf16,
        MmaType::Tf32,
        MmaType::F32,
        MmaType::E4m3,
        MmaType::E5m2,
        MmaType::E3m2,
        MmaType::E2m3,
        MmaType::E2m1,
        MmaType::Ue8m0,
        MmaType::Ue4m3,
    ];

    /// The PTX type suffix.
    pub const fn name(self) -> &'static str {
        match self {
            MmaType::F16 => "f16",
            MmaType::Bf16 => "bf16",
            MmaType::Tf32 => "tf32",
            MmaType::F32 => "f32",
            MmaType::E4m3 => "e4m3",
            MmaType::E5m2 => "e5m2",
            MmaType::E3m2 => "e3m2",
            MmaType::E2m3 => "e2m3",
            MmaType::E2m1 => "e2m1",
            MmaType::Ue8m0 => "ue8m0",
            MmaType::Ue4m3 => "ue4m3",
        }
    }

    /// Width of an element in memory and in the arrays of [`crate::mma`] (tf32: its f32 word).
    pub const fn bits(self) -> u32 {
        match self {
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::Tf32 | MmaType::F32 => 32,
            MmaType::E4m3 | MmaType::E5m2 | MmaType::Ue8m0 | MmaType::Ue4m3 => 8,
            MmaType::E3m2 | MmaType::E2m3 => 6,
            MmaType::E2m1 => 4,
        }
    }

    /// The mask of an element's code; higher bits are ignored by [`MmaType::decode`].
    pub const fn mask(self) -> u32 {
        ((1u64 << self.bits()) - 1) as u32
    }

    /// The exact value of a code. A tf32 element loses the low 13 bits of its word first, so that
    /// an f32 NaN whose payload lies only there becomes an infinity, as the cut makes it
    /// \[MODEL: MMA-Sim `truncate_fp32_to_tf32`\].
    pub fn decode(self, code: u32) -> Unpacked {
        let code = (code & self.mask()) as u64;
        match self {
            MmaType::F16 => Format::F16.unpack(code, false),
            MmaType::Bf16 => Format::BF16.unpack(code, false),
            MmaType::F32 => Format::F32.unpack(code, false),
            MmaType::Tf32 => Format::F32.unpack(code & !0x1FFF, false),
            MmaType::E4m3 => Narrow::E4m3.decode(code),
            MmaType::E5m2 => Narrow::E5m2.decode(code),
            MmaType::E3m2 => Narrow::E3m2.decode(code),
            MmaType::E2m3 => Narrow::E2m3.decode(code),
            MmaType::E2m1 => Narrow::E2m1.decode(code),
            MmaType::Ue8m0 => Narrow::Ue8m0.decode(code),
            MmaType::Ue4m3 => Narrow::Ue4m3.decode(code & 0x7F),
        }
    }

    /// The exponent of the smallest normal binade: the floor of the alignment exponent
    /// `Exp(x) = max(⌊log2 |x|⌋, emin)` (docs/tensorcore.md). ue8m0 has no subnormals; its
    /// least value 2^−127 is its own floor.
    pub const fn emin(self) -> i32 {
        match self {
            MmaType::F16 => -14,
            MmaType::Bf16 | MmaType::Tf32 | MmaType::F32 => -126,
            MmaType::E4m3 | MmaType::Ue4m3 => -6,
            MmaType::E5m2 => -14,
            MmaType::E3m2 => -2,
            MmaType::E2m3 | MmaType::E2m1 => 0,
            MmaType::Ue8m0 => -127,
        }
    }

    /// `Exp(x)` of a finite nonzero `sig · 2^exp`.
    #[inline(always)]
    pub(crate) const fn align_exp(self, exp: i32, sig: u64) -> i32 {
        let floor_log2 = exp + 63 - sig.leading_zeros() as i32;
        if floor_log2 > self.emin() {
            floor_log2
        } else {
            self.emin()
        }
    }
}

impl std::fmt::Display for MmaType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
