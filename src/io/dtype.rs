//! The `.npy` element types ptxfp reads and writes, and which one an instruction's results get.

use std::fmt;

use crate::format::Format;
use crate::ptx::{Instr, MufuFn, Opcode, Type};

/// The `.npy` element types ptxfp reads and writes (all little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    Float16,
    Float32,
    Float64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Int8,
    Int16,
    Int32,
    Int64,
}

impl Dtype {
    pub const ALL: [Dtype; 11] = [
        Dtype::Float16,
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Uint8,
        Dtype::Uint16,
        Dtype::Uint32,
        Dtype::Uint64,
        Dtype::Int8,
        Dtype::Int16,
        Dtype::Int32,
        Dtype::Int64,
    ];

    /// The NumPy type string (`descr`) as NumPy writes it in a header (`|` for the one-byte
    /// types, which have no byte order).
    pub const fn descr(self) -> &'static str {
        match self {
            Dtype::Float16 => "<f2",
            Dtype::Float32 => "<f4",
            Dtype::Float64 => "<f8",
            Dtype::Uint8 => "|u1",
            Dtype::Uint16 => "<u2",
            Dtype::Uint32 => "<u4",
            Dtype::Uint64 => "<u8",
            Dtype::Int8 => "|i1",
            Dtype::Int16 => "<i2",
            Dtype::Int32 => "<i4",
            Dtype::Int64 => "<i8",
        }
    }

    /// The NumPy name (`float32`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Dtype::Float16 => "float16",
            Dtype::Float32 => "float32",
            Dtype::Float64 => "float64",
            Dtype::Uint8 => "uint8",
            Dtype::Uint16 => "uint16",
            Dtype::Uint32 => "uint32",
            Dtype::Uint64 => "uint64",
            Dtype::Int8 => "int8",
            Dtype::Int16 => "int16",
            Dtype::Int32 => "int32",
            Dtype::Int64 => "int64",
        }
    }

    /// Width of an element in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Dtype::Uint8 | Dtype::Int8 => 8,
            Dtype::Float16 | Dtype::Uint16 | Dtype::Int16 => 16,
            Dtype::Float32 | Dtype::Uint32 | Dtype::Int32 => 32,
            Dtype::Float64 | Dtype::Uint64 | Dtype::Int64 => 64,
        }
    }

    /// The floating-point format of a float dtype.
    pub const fn float_format(self) -> Option<Format> {
        match self {
            Dtype::Float16 => Some(Format::F16),
            Dtype::Float32 => Some(Format::F32),
            Dtype::Float64 => Some(Format::F64),
            _ => None,
        }
    }

    /// The unsigned dtype of an 8-, 16-, 32- or 64-bit word.
    pub fn unsigned(bits: u32) -> Dtype {
        match bits {
            8 => Dtype::Uint8,
            16 => Dtype::Uint16,
            32 => Dtype::Uint32,
            64 => Dtype::Uint64,
            _ => unreachable!("operand words are 8, 16, 32 or 64 bits"),
        }
    }

    /// The signed dtype of an 8-, 16-, 32- or 64-bit word.
    fn signed(bits: u32) -> Dtype {
        match bits {
            8 => Dtype::Int8,
            16 => Dtype::Int16,
            32 => Dtype::Int32,
            64 => Dtype::Int64,
            _ => unreachable!("operand words are 8, 16, 32 or 64 bits"),
        }
    }

    /// The dtype with this `descr`, if ptxfp supports it (`<u1`/`<i1` as well as NumPy's `|u1`
    /// and `|i1`).
    pub fn from_descr(descr: &str) -> Option<Dtype> {
        let descr = match descr {
            "<u1" => "|u1",
            "<i1" => "|i1",
            other => other,
        };
        Dtype::ALL.into_iter().find(|d| d.descr() == descr)
    }

    /// The dtypes an operand of type `ty` can be read from: the float dtype of its format when
    /// it is a scalar f16, f32 or f64, and the unsigned dtype of its width; for an integer type,
    /// the signed and unsigned dtypes of its width (its two's complement word either way).
    pub fn accepted(ty: Type) -> Vec<Dtype> {
        let first = match ty {
            Type::F16 => Some(Dtype::Float16),
            Type::F32 => Some(Dtype::Float32),
            Type::F64 => Some(Dtype::Float64),
            Type::Int(t) if t.is_signed() => Some(Dtype::signed(t.bits())),
            _ => None,
        };
        let mut accepted: Vec<Dtype> = first.into_iter().chain([Dtype::unsigned(ty.bits())]).collect();
        if let Type::Int(t) = ty {
            if !t.is_signed() {
                accepted.push(Dtype::signed(t.bits()));
            }
        }
        accepted
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The dtype of an `.npy` result of `instr`: the float dtype when the result is an f16, f32 or
/// f64 value, the integer dtype of an integer result (`int32` for `.s32`, `uint8` for `.u8`),
/// else the unsigned dtype of the result word (bf16 and the packed types; the `testp`
/// predicate, written as 0 or 1 in a word of the source width; the fixed-point word of RRO; the
/// high f64 words of MUFU.RCP64H and MUFU.RSQ64H).
pub fn result_dtype(instr: &Instr) -> Dtype {
    let value = writes_a_value(instr);
    match instr.ty() {
        Type::F16 if value => Dtype::Float16,
        Type::F32 if value => Dtype::Float32,
        Type::F64 if value => Dtype::Float64,
        Type::Int(t) => Dtype::accepted(Type::Int(t))[0],
        _ => Dtype::unsigned(instr.result_bits()),
    }
}

/// Whether `instr`'s result word is a value of its type: not the `testp` predicate, the
/// fixed-point word of RRO or the high f64 word of MUFU.RCP64H/RSQ64H.
pub fn writes_a_value(instr: &Instr) -> bool {
    !matches!(instr.opcode(), Opcode::Testp(_) | Opcode::Rro(_) | Opcode::Mufu(MufuFn::Rcp64h | MufuFn::Rsq64h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_dtypes() {
        let d = |s: &str| result_dtype(&s.parse().unwrap());
        assert_eq!(d("add.rn.f32"), Dtype::Float32);
        assert_eq!(d("add.rn.f16"), Dtype::Float16);
        assert_eq!(d("add.rn.bf16"), Dtype::Uint16);
        assert_eq!(d("add.rn.f16x2"), Dtype::Uint32);
        assert_eq!(d("fma.rn.f64"), Dtype::Float64);
        assert_eq!(d("cvt.rn.f16.f32"), Dtype::Float16);
        assert_eq!(d("cvt.f64.f32"), Dtype::Float64);
        assert_eq!(d("testp.finite.f32"), Dtype::Uint32);
        assert_eq!(d("testp.finite.f64"), Dtype::Uint64);
        assert_eq!(d("MUFU.RCP64H"), Dtype::Uint32);
        assert_eq!(d("RRO.EX2"), Dtype::Uint32);
    }
}
