//! Operands as text: hex bit patterns or decimal values in, hex and decimal out.

use crate::format::{Format, Unpacked};
use crate::narrow::Narrow;
use crate::ops::cvt::cvt;
use crate::ops::cvt_int::IntType;
use crate::ptx::{Element, Type};
use crate::quote::Quoted;
use crate::round::{round_to_grid, Rounded, Rounding, Rule};

/// Parse one operand of type `ty`.
///
/// - `0x…`: the bit pattern; it must fit the type's width (a packed type is one word, element
///   0 in the low half).
/// - a decimal value (`1.5`, `-0`, `1e-40`, `inf`, `-inf`, `nan`): rounded to nearest-even in
///   the element format. For f16/bf16 the literal is read as an f64 first; only a literal with
///   more than 17 significant digits lying within 2^-53 (relative) of a halfway point can come
///   out differently from a direct conversion. `nan` is the quiet NaN with an empty payload.
/// - packed types also take two comma-separated decimal values, element 0 first (`1.5,-2`).
/// - an integer type takes a decimal integer in its range (`-128` … `127` for `.s8`), written
///   as its two's complement word.
pub fn parse_operand(ty: Type, text: &str) -> Result<u64, OperandError> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let value = u64::from_str_radix(hex, 16).map_err(|_| OperandError::BadHex { text: t.to_string() })?;
        if ty.bits() < 64 && value >> ty.bits() != 0 {
            return Err(OperandError::HexTooWide { text: t.to_string(), ty });
        }
        return Ok(value);
    }
    let fmt = match ty.element() {
        Element::Float(fmt) => fmt,
        Element::Int(int) => return parse_integer(int, t),
        Element::Narrow(n) => return parse_narrow(ty, n, t),
    };
    if ty.lanes() == 1 {
        return parse_decimal(fmt, t);
    }
    let parts: Vec<&str> = t.split(',').collect();
    if parts.len() != 2 {
        return Err(OperandError::NotAPair { text: t.to_string(), ty });
    }
    let lo = parse_decimal(fmt, parts[0])?;
    let hi = parse_decimal(fmt, parts[1])?;
    Ok(lo | (hi << fmt.bits()))
}

/// A narrow type's operand from decimal values: one per element, comma-separated, element 0
/// first (`448,-2` for an `.e4m3x2`), each rounded to nearest-even in the format; a value
/// beyond its largest finite one, a negative value of an unsigned format and a special the
/// format lacks are refused.
fn parse_narrow(ty: Type, n: Narrow, text: &str) -> Result<u64, OperandError> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != ty.lanes() as usize {
        return Err(OperandError::NotAPair { text: text.to_string(), ty });
    }
    let mut word = 0;
    for (lane, part) in parts.iter().enumerate() {
        let code = narrow_code(n, part.trim())?;
        word |= code << (lane as u32 * ty.element_bits());
    }
    // tf32's code is the top 19 bits of its word.
    Ok(if n == Narrow::Tf32 { word << 13 } else { word })
}

/// The code of one decimal value in a narrow format.
fn narrow_code(n: Narrow, text: &str) -> Result<u64, OperandError> {
    let refuse =
        |why: &str| OperandError::NotInFormat { text: text.to_string(), format: n.name(), why: why.to_string() };
    let bits = parse_decimal(Format::F64, text)?;
    let neg = Format::F64.is_neg(bits);
    let sign = if neg { n.sign_bit() } else { 0 };
    if neg && !n.signed() && Format::F64.abs(bits) != 0 {
        return Err(refuse("the format is unsigned"));
    }
    let code = match Format::F64.unpack(bits, false) {
        Unpacked::Nan => n.nan().ok_or_else(|| refuse("the format has no NaN"))?,
        Unpacked::Inf { .. } => sign | n.inf().ok_or_else(|| refuse("the format has no infinity"))?,
        Unpacked::Zero { .. } if n == Narrow::Ue8m0 => {
            return Err(refuse("ue8m0 has no zero (its least value is 2^-127)"))
        }
        Unpacked::Zero { .. } => sign,
        Unpacked::Finite { neg, exp, sig } => {
            match round_to_grid(n.grid(), neg, exp, sig, Rule::Dir(Rounding::Rn), false) {
                Rounded::Code(m) if n == Narrow::S2f6 && neg => m.wrapping_neg() & n.mask(),
                Rounded::Code(m) => sign | m,
                // s2f6's −2.0 lies outside its grid of magnitudes.
                Rounded::Overflow { .. } if n == Narrow::S2f6 && neg && Format::F64.to_f64(bits) >= -2.0 => 0x80,
                Rounded::Overflow { .. } => {
                    return Err(refuse(&format!("beyond its largest finite value, {}", n.to_f64(n.max_finite()))))
                }
            }
        }
    };
    Ok(code)
}

/// Why a text is not an operand of a type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OperandError {
    /// `0x` not followed by 1 to 16 hex digits.
    #[error("{} is not a hex word (0x followed by at most 16 hex digits)", Quoted(.text))]
    BadHex { text: String },
    /// A hex word with bits set above the type's width.
    #[error("hex word {} is too wide for .{} ({} bits, at most {:#x})", Quoted(.text), .ty.name(), .ty.bits(), widest_word(*.ty))]
    HexTooWide { text: String, ty: Type },
    /// A packed type's operand that is neither one hex word nor one value per element.
    #[error("a .{} operand is one hex word or {} comma-separated values, element 0 first (got {})", .ty.name(), lanes_in_words(*.ty), Quoted(.text))]
    NotAPair { text: String, ty: Type },
    /// Not a decimal integer.
    #[error("{} is not a .{} operand (give an integer in {} or a hex word 0x…)", Quoted(.text), .ty.name(), int_range(*.ty))]
    NotAnInteger { text: String, ty: IntType },
    /// An integer outside the type's range.
    #[error("{value} is out of the range of .{} ({})", .ty.name(), int_range(*.ty))]
    OutOfRange { value: i128, ty: IntType },
    /// A value a narrow format cannot hold.
    #[error("{} is not a value of {format}: {why}", Quoted(.text))]
    NotInFormat { text: String, format: &'static str, why: String },
    /// Not a decimal value of a float format.
    #[error("{} is not a number (give a decimal like 1.5, -0, 1e-40, inf, nan, or a hex word 0x…)", Quoted(.text))]
    NotANumber { text: String },
}

/// The number of elements of a packed type in words.
fn lanes_in_words(ty: Type) -> &'static str {
    match ty.lanes() {
        4 => "four",
        _ => "two",
    }
}

/// `min..=max` of an integer type, as messages write it.
fn int_range(ty: IntType) -> String {
    format!("{}..={}", ty.min(), ty.max())
}

/// The largest word of `ty`'s width.
fn widest_word(ty: Type) -> u64 {
    u64::MAX >> (64 - ty.bits())
}

fn parse_integer(ty: IntType, text: &str) -> Result<u64, OperandError> {
    let value: i128 = text.parse().map_err(|_| OperandError::NotAnInteger { text: text.to_string(), ty })?;
    if !(ty.min()..=ty.max()).contains(&value) {
        return Err(OperandError::OutOfRange { value, ty });
    }
    Ok(value as u64 & ty.mask())
}

fn parse_decimal(fmt: Format, text: &str) -> Result<u64, OperandError> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let (neg, body) = match lower.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    if body == "nan" {
        let sign = if neg { fmt.sign_bit() } else { 0 };
        return Ok(sign | fmt.exp_mask() | fmt.quiet_bit());
    }
    let bad = || OperandError::NotANumber { text: t.to_string() };
    if body.is_empty() || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == 'i') {
        return Err(bad());
    }
    match fmt {
        Format::F32 => t.parse::<f32>().map(|v| v.to_bits() as u64).map_err(|_| bad()),
        _ => {
            let v: f64 = t.parse().map_err(|_| bad())?;
            Ok(cvt(Format::F64, fmt, v.to_bits(), Rounding::Rn, false))
        }
    }
}

/// The result as text: the hex word padded to the type's width, then the decimal value of
/// each element (element 0 first).
pub fn format_result(ty: Type, bits: u64) -> String {
    let digits = (ty.bits() / 4) as usize;
    let mut out = format!("{bits:#0width$x}", width = digits + 2);
    let fmt = match ty.element() {
        Element::Float(fmt) => fmt,
        Element::Int(int) => return format!("{out} {}", int.value(bits)),
        Element::Narrow(n) => {
            let code_of = |lane: u32| match n {
                Narrow::Tf32 => bits >> 13,
                _ => bits >> (lane * ty.element_bits()),
            };
            for lane in 0..ty.lanes() {
                out.push(' ');
                out.push_str(&format_narrow(n, code_of(lane) & n.mask()));
            }
            return out;
        }
    };
    for lane in 0..ty.lanes() {
        let element = (bits >> (lane * fmt.bits())) & fmt.mask();
        out.push(' ');
        out.push_str(&format_value(fmt, element));
    }
    out
}

/// A narrow code's value in decimal (exact: every narrow value has a short decimal), `NaN`,
/// `inf` or `-inf`.
pub fn format_narrow(n: Narrow, code: u64) -> String {
    let v = n.to_f64(code);
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.into()
    } else if v != 0.0 && v.abs() < 1e-5 {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A value in decimal: the shortest text that reads back to the same bits in `fmt`'s
/// neighbourhood (`inf`, `-inf`, `NaN`, `-NaN` for the specials).
pub fn format_value(fmt: Format, bits: u64) -> String {
    let neg = fmt.is_neg(bits);
    if fmt.is_nan(bits) {
        return if neg { "-NaN".into() } else { "NaN".into() };
    }
    let v = fmt.to_f64(bits);
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let magnitude = v.abs();
    let plain = magnitude == 0.0 || (1e-5..1e16).contains(&magnitude);
    match (fmt, plain) {
        (Format::F64, true) => format!("{v}"),
        (Format::F64, false) => format!("{v:e}"),
        (_, true) => format!("{}", v as f32),
        (_, false) => format!("{:e}", v as f32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_decimal_operands() {
        assert_eq!(parse_operand(Type::F32, "0x3f800000"), Ok(0x3F80_0000));
        assert_eq!(parse_operand(Type::F32, "1.5"), Ok(0x3FC0_0000));
        assert_eq!(parse_operand(Type::F32, "-0"), Ok(0x8000_0000));
        assert_eq!(parse_operand(Type::F32, "inf"), Ok(0x7F80_0000));
        assert_eq!(parse_operand(Type::F32, "-inf"), Ok(0xFF80_0000));
        assert_eq!(parse_operand(Type::F32, "nan"), Ok(0x7FC0_0000));
        assert_eq!(parse_operand(Type::F16, "1"), Ok(0x3C00));
        assert_eq!(parse_operand(Type::BF16, "-2"), Ok(0xC000));
        assert_eq!(parse_operand(Type::F64, "0.1"), Ok(0.1f64.to_bits()));
        assert_eq!(parse_operand(Type::F16x2, "1,-2"), Ok(0xC000_3C00));
        let too_wide = parse_operand(Type::F16, "0x10000").unwrap_err();
        assert_eq!(too_wide, OperandError::HexTooWide { text: "0x10000".into(), ty: Type::F16 });
        assert_eq!(too_wide.to_string(), "hex word '0x10000' is too wide for .f16 (16 bits, at most 0xffff)");
        assert_eq!(parse_operand(Type::F32, "one"), Err(OperandError::NotANumber { text: "one".into() }));
        assert!(parse_operand(Type::F32, "").is_err());
        assert_eq!(
            parse_operand(Type::F16x2, "1.0"),
            Err(OperandError::NotAPair { text: "1.0".into(), ty: Type::F16x2 })
        );
        let s8 = Type::Int(IntType::S8);
        assert_eq!(parse_operand(s8, "128"), Err(OperandError::OutOfRange { value: 128, ty: IntType::S8 }));
        assert_eq!(parse_operand(s8, "128").unwrap_err().to_string(), "128 is out of the range of .s8 (-128..=127)");
    }

    #[test]
    fn narrow_operands_and_results() {
        assert_eq!(parse_operand(Type::E4m3x2, "448,-2"), Ok(0xC07E));
        assert_eq!(parse_operand(Type::E2m1x2, "6,0.5"), Ok(0x17));
        assert_eq!(parse_operand(Type::S2f6x2, "-2,1.984375"), Ok(0x7F80));
        assert_eq!(parse_operand(Type::Tf32, "1"), Ok(0x3F80_0000));
        assert_eq!(parse_operand(Type::Ue8m0x2, "1,nan"), Ok(0xFF7F));
        assert!(parse_operand(Type::E4m3x2, "500,1").unwrap_err().to_string().contains("largest finite value, 448"));
        assert!(parse_operand(Type::E4m3x2, "inf,1").unwrap_err().to_string().contains("no infinity"));
        assert!(parse_operand(Type::Ue8m0x2, "-1,1").unwrap_err().to_string().contains("unsigned"));
        assert!(parse_operand(Type::E4m3x4, "1,2").unwrap_err().to_string().contains("four comma-separated"));
        assert_eq!(format_result(Type::E4m3x2, 0xFF7E), "0xff7e 448 NaN");
        assert_eq!(format_result(Type::E2m1x2, 0x9F), "0x9f -6 -0.5");
        assert_eq!(format_result(Type::Tf32, 0x3F80_0000), "0x3f800000 1");
        assert_eq!(format_result(Type::S2f6x2, 0x8081), "0x8081 -1.984375 -2");
    }

    #[test]
    fn results_print_hex_then_values() {
        assert_eq!(format_result(Type::F32, 0x0080_0000), "0x00800000 1.1754944e-38");
        assert_eq!(format_result(Type::F32, 0x7FFF_FFFF), "0x7fffffff NaN");
        assert_eq!(format_result(Type::F16x2, 0xC000_3C00), "0xc0003c00 1 -2");
        assert_eq!(format_result(Type::F64, 0.5f64.to_bits()), "0x3fe0000000000000 0.5");
        assert_eq!(format_result(Type::F32, 0x8000_0000), "0x80000000 -0");
    }
}
