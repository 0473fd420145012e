//! The NumPy `.npy` format: reading and checking a header (versions 1.0, 2.0, 3.0) and writing
//! the version 1.0 header of a 1-D array.

use std::io::Read;
use std::path::Path;

use super::python_literal::{parse_header, Lit};
use super::{data_error, io_error, DataError, Dtype, Error, NpyError, Shape};

/// The largest `.npy` header accepted (NumPy writes a few hundred bytes).
const MAX_HEADER: u64 = 1 << 20;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// What an `.npy` header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    pub dtype: Dtype,
    /// Elements in the array (the product of its shape).
    pub len: u64,
    pub shape: Shape,
}

/// Read and check the `.npy` header at the start of `file`, a file of `size` bytes named
/// `path` in messages: the magic, the version (1.0, 2.0, 3.0), the header dictionary, and that
/// exactly the data bytes its shape and dtype need follow it. Leaves `file` at the first data
/// byte.
pub fn read_npy_header(path: &Path, file: &mut impl Read, size: u64) -> Result<NpyHeader, Error> {
    let invalid = |e: NpyError| data_error(path, e);
    let mut prefix = [0u8; 8];
    if size < 8 {
        return Err(invalid(NpyError::TooShort { size }));
    }
    file.read_exact(&mut prefix).map_err(io_error(path, "read"))?;
    if &prefix[..6] != MAGIC {
        return Err(invalid(NpyError::BadMagic));
    }
    let (major, minor) = (prefix[6], prefix[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(data_error(path, DataError::NpyVersion { major, minor })),
    };
    let start = 8 + len_bytes;
    if size < start {
        return Err(invalid(NpyError::TruncatedHeaderLength));
    }
    let mut len_buf = [0u8; 4];
    file.read_exact(&mut len_buf[..len_bytes as usize]).map_err(io_error(path, "read"))?;
    let header_len = u64::from(u32::from_le_bytes(len_buf));
    if header_len > MAX_HEADER {
        return Err(invalid(NpyError::HeaderTooLarge { len: header_len }));
    }
    if start + header_len > size {
        return Err(invalid(NpyError::TruncatedHeader { len: header_len, follow: size - start }));
    }
    let mut raw = vec![0u8; header_len as usize];
    file.read_exact(&mut raw).map_err(io_error(path, "read"))?;
    // Versions 1.0 and 2.0 are latin-1, 3.0 UTF-8; a valid header dictionary is ASCII in all.
    let text = String::from_utf8(raw).map_err(|_| invalid(NpyError::HeaderNotText))?;
    let dict =
        parse_header(&text).map_err(|reason| invalid(NpyError::Unparsable { reason, excerpt: excerpt(&text) }))?;

    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (key, value) in dict {
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            _ => return Err(invalid(NpyError::UnexpectedKey { key })),
        };
        if slot.replace(value).is_some() {
            return Err(invalid(NpyError::RepeatedKey { key }));
        }
    }
    let missing = |key: &'static str| invalid(NpyError::MissingKey { key });
    let descr = match descr.ok_or_else(|| missing("descr"))? {
        Lit::Str(s) => s,
        Lit::List(_) => return Err(data_error(path, DataError::StructuredDtype)),
        _ => return Err(invalid(NpyError::DescrNotAString)),
    };
    let fortran = match fortran.ok_or_else(|| missing("fortran_order"))? {
        Lit::Bool(b) => b,
        _ => return Err(invalid(NpyError::FortranOrderNotABool)),
    };
    let shape = match shape.ok_or_else(|| missing("shape"))? {
        Lit::Tuple(items) | Lit::List(items) => Shape(
            items
                .into_iter()
                .map(|d| match d {
                    Lit::Int(n) => Ok(n),
                    _ => Err(invalid(NpyError::ShapeNotIntegers)),
                })
                .collect::<Result<Vec<u64>, Error>>()?,
        ),
        _ => return Err(invalid(NpyError::ShapeNotATuple)),
    };

    let Some(dtype) = Dtype::from_descr(&descr) else {
        let big_endian = descr.starts_with('>') && Dtype::from_descr(&descr.replacen('>', "<", 1)).is_some();
        let problem = if big_endian { DataError::BigEndian { descr } } else { DataError::UnsupportedDtype { descr } };
        return Err(data_error(path, problem));
    };
    // A Fortran-order array has the same flat order as a C-order one when at most one
    // dimension exceeds 1; otherwise reading it flat would transpose it.
    if fortran && shape.0.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(data_error(path, DataError::FortranOrder { shape }));
    }
    let len = shape.0.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
    let need = len.and_then(|n| n.checked_mul(u64::from(dtype.bits() / 8)));
    let (Some(len), Some(need)) = (len, need) else {
        return Err(invalid(NpyError::ShapeTooLarge { shape }));
    };
    let have = size - start - header_len;
    if have < need {
        return Err(data_error(path, DataError::TruncatedData { shape, dtype, need, have }));
    }
    if have > need {
        return Err(invalid(NpyError::ExtraData { have, shape, dtype, need }));
    }
    Ok(NpyHeader { dtype, len, shape })
}

/// The start of a header for a one-line message: escaped, at most 120 characters.
fn excerpt(text: &str) -> String {
    let escaped: String = text.trim_end().escape_debug().collect();
    match escaped.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

/// The `.npy` version 1.0 header of a 1-D array: magic, version, length and the dictionary,
/// padded with spaces and a newline to a multiple of 64 bytes (as NumPy writes it).
pub fn npy_header(dtype: Dtype, len: u64) -> Vec<u8> {
    npy_header_shaped(dtype, &Shape(vec![len]))
}

/// The `.npy` version 1.0 header of a C-order array of `shape`.
pub fn npy_header_shaped(dtype: Dtype, shape: &Shape) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", dtype.descr());
    let unpadded = MAGIC.len() + 2 + 2 + dict.len() + 1;
    dict.extend(std::iter::repeat_n(' ', unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + dict.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_header_is_aligned_and_parsable() {
        for len in [0, 1, 5_000_000, u64::MAX] {
            let h = npy_header(Dtype::Float16, len);
            assert_eq!(h.len() % 64, 0);
            assert_eq!(*h.last().unwrap(), b'\n');
            let n = u16::from_le_bytes([h[8], h[9]]) as usize;
            assert_eq!(n + 10, h.len());
            let dict = parse_header(std::str::from_utf8(&h[10..]).unwrap()).unwrap();
            assert_eq!(dict[2].1, Lit::Tuple(vec![Lit::Int(len)]));
        }
    }
}
