//! Why files could not be evaluated: [`Error`], and what is wrong with a file's contents
//! ([`DataError`]), its `.npy` header ([`NpyError`]) or the header's Python literal
//! ([`LiteralError`]), each a variant with its parts.

use std::fmt;
use std::io as stdio;
use std::path::{Path, PathBuf};

use super::Dtype;
use crate::batch::BatchError;
use crate::ptx::{alternatives, Instr, TargetError, Type};
use crate::quote::Quoted;

/// Why files could not be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Not one input file per source operand of the instruction (`legal`: the operand counts
    /// it takes).
    #[error(
        "{instr} takes {} input {}, one per source operand; got {got}",
        alternatives(legal),
        if *legal == [1] { "file" } else { "files" }
    )]
    InputCount { instr: Instr, legal: Vec<usize>, got: usize },
    /// No word types for the instruction's operand and result widths.
    #[error("{instr}: no {source_bits}-bit sources with {result_bits}-bit results")]
    NoWords { instr: Instr, source_bits: u32, result_bits: u32 },
    /// The evaluation of a block failed.
    #[error(transparent)]
    Eval(#[from] BatchError),
    /// The target lacks the instruction.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The operating system refused an operation on a file.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io { path: PathBuf, action: &'static str, source: stdio::Error },
    /// The file at `path` cannot be used: `problem` says why.
    #[error("{}: {problem}", .path.display())]
    Data { path: PathBuf, problem: DataError },
    /// A tile could not be evaluated (`ptxfp mma`).
    #[error(transparent)]
    Tile(#[from] crate::mma::TileError),
    /// A matrix product could not be evaluated (`ptxfp gemm`).
    #[error(transparent)]
    Gemm(#[from] crate::mma::GemmError),
    /// Stopped on request ([`run_until`](super::run_until)) before the output was complete:
    /// the output file was not written (a file already there keeps its contents) and no
    /// temporary file remains.
    #[error("interrupted; {} was not written", .output.display())]
    Interrupted { output: PathBuf },
}

/// What is wrong with a file named as an input or an output.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// An output path that names no file (`/`, `..`).
    #[error("is not a file name")]
    NotAFileName,
    /// An output path that is a directory.
    #[error("is a directory")]
    OutputIsADirectory,
    /// An output path that is a device, a pipe or a socket.
    #[error("is not a regular file; ptxfp replaces its output file as a whole")]
    OutputIsNotARegularFile,
    /// An input path that is a directory.
    #[error("is a directory, not a file of operands")]
    InputIsADirectory,
    /// An input path that is a device, a pipe or a socket.
    #[error("is not a regular file (ptxfp needs its size before reading it)")]
    InputIsNotARegularFile,
    /// A raw file of `size` bytes that is not a whole number of `bits`-bit words.
    #[error("raw file of {size} bytes is not a whole number of {bits}-bit words ({} bytes each)", bits / 8)]
    RawSize { size: u64, bits: u32 },
    /// The file's data does not fit operands of type `ty` of `instr`; `accepted` lists the
    /// dtypes that would.
    #[error(
        "{held} but {instr} takes {} operands ({}-bit words; use {})",
        ty.name(),
        ty.bits(),
        accepted.iter().map(|d| d.name()).collect::<Vec<_>>().join(" or ")
    )]
    OperandType { held: Holding, instr: Instr, ty: Type, accepted: Vec<Dtype> },
    /// The file holds words of `held` bits where `expected` bits were (a capture kit's
    /// manifest).
    #[error("holds {held}-bit words, {expected}-bit words expected")]
    WordWidth { held: u32, expected: u32 },
    /// The file holds `held` words where `expected` were (a capture kit's manifest).
    #[error("holds {held} words, {expected} expected")]
    WordCount { held: u64, expected: u64 },
    /// This input has `len` elements, the first input (`first`) `first_len`.
    #[error(
        "has {len} elements but {} has {first_len}; every input must have the same number of elements",
        first.display()
    )]
    InputLengths { len: u64, first: PathBuf, first_len: u64 },
    /// An `.npy` file that does not follow the format.
    #[error("not a valid .npy file: {0}")]
    InvalidNpy(#[from] NpyError),
    /// An `.npy` format version other than 1.0, 2.0 and 3.0.
    #[error("unsupported .npy format version {major}.{minor} (ptxfp reads 1.0, 2.0 and 3.0)")]
    NpyVersion { major: u8, minor: u8 },
    /// An `.npy` array of records.
    #[error("structured (record) dtypes are not supported; ptxfp reads {}", dtype_names())]
    StructuredDtype,
    /// A big-endian `.npy` array of a dtype ptxfp reads little-endian.
    #[error(
        "big-endian dtype {} is not supported; save the array little-endian (arr.astype('{}'))",
        Quoted(descr),
        descr.replacen('>', "<", 1)
    )]
    BigEndian { descr: String },
    /// An `.npy` dtype ptxfp does not read.
    #[error("unsupported dtype {}; ptxfp reads {} (little-endian)", Quoted(descr), dtype_names())]
    UnsupportedDtype { descr: String },
    /// A Fortran-order `.npy` array with more than one dimension above 1, whose flat order
    /// is not C's.
    #[error(
        "Fortran-order (column-major) array of shape {shape} is not supported; save it in C order (np.ascontiguousarray)"
    )]
    FortranOrder { shape: Shape },
    /// A tensor-core operand of a dtype that does not hold its element type.
    #[error(
        "holds {} but operand {operand} is {ty}; use {}",
        dtype.name(),
        accepted.iter().map(|d| d.name()).collect::<Vec<_>>().join(" or ")
    )]
    MmaDtype { operand: &'static str, dtype: Dtype, ty: &'static str, accepted: Vec<Dtype> },
    /// A tensor-core operand whose `.npy` shape does not end in the tile's rows and columns.
    #[error("has shape {shape} but operand {operand} must have shape (…, {rows}, {cols})")]
    MmaShape { operand: &'static str, shape: Shape, rows: u64, cols: u64 },
    /// A raw tensor-core operand that is not a whole number of tiles.
    #[error("holds {len} elements, not a whole number of {operand} tiles of {tile}")]
    MmaRawLength { operand: &'static str, len: u64, tile: u64 },
    /// A signed-dtype element outside its type's range.
    #[error("element {index} of operand {operand} is {value}, outside the {ty} range {lo}..={hi}")]
    MmaValue { operand: &'static str, index: u64, value: i64, ty: &'static str, lo: i64, hi: i64 },
    /// Tensor-core operands holding different stacks of tiles.
    #[error("holds {tiles} tiles but {} holds {first_tiles} (the .npy operands must share their leading dimensions)", first.display())]
    MmaStack { tiles: u64, first: PathBuf, first_tiles: u64 },
    /// A raw file given as an operand of a matrix product.
    #[error("is raw words, but operand {operand} of a product is an .npy matrix of shape {expected}: its shape gives M, N and K")]
    GemmRaw { operand: &'static str, expected: String },
    /// A matrix-product operand of the wrong shape.
    #[error("has shape {shape} but operand {operand} of the product must have shape {expected}")]
    GemmShape { operand: &'static str, shape: Shape, expected: String },
    /// Fewer data bytes (`have`) after the `.npy` header than its shape of `dtype` needs.
    #[error("truncated .npy: shape {shape} of {dtype} needs {need} data bytes but only {have} follow the header")]
    TruncatedData { shape: Shape, dtype: Dtype, need: u64, have: u64 },
}

/// How an `.npy` file breaks the format.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error("{size} bytes, too short for the .npy magic and version")]
    TooShort { size: u64 },
    #[error("bad magic (the file does not start with \\x93NUMPY)")]
    BadMagic,
    #[error("truncated header length")]
    TruncatedHeaderLength,
    #[error("header length {len} is implausibly large")]
    HeaderTooLarge { len: u64 },
    #[error("truncated header: its length is {len} bytes but only {follow} follow")]
    TruncatedHeader { len: u64, follow: u64 },
    #[error("header is not text")]
    HeaderNotText,
    /// The header is not a Python dictionary literal; `excerpt` is its start.
    #[error("header dictionary unparsable ({reason}): {excerpt}")]
    Unparsable { reason: LiteralError, excerpt: String },
    #[error("unexpected header key {}", Quoted(key))]
    UnexpectedKey { key: String },
    #[error("header key {} appears twice", Quoted(key))]
    RepeatedKey { key: String },
    #[error("header lacks '{key}'")]
    MissingKey { key: &'static str },
    #[error("'descr' is not a string")]
    DescrNotAString,
    #[error("'fortran_order' is not True or False")]
    FortranOrderNotABool,
    #[error("'shape' holds something other than integers")]
    ShapeNotIntegers,
    #[error("'shape' is not a tuple")]
    ShapeNotATuple,
    /// The product of the shape (or its size in bytes) exceeds 64 bits.
    #[error("shape {shape} is too large")]
    ShapeTooLarge { shape: Shape },
    /// More data bytes (`have`) after the header than its shape of `dtype` needs.
    #[error("{have} data bytes follow the header but shape {shape} of {dtype} needs {need}")]
    ExtraData { have: u64, shape: Shape, dtype: Dtype, need: u64 },
}

/// Why the Python literal of an `.npy` header could not be read (`at`: a byte offset into it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    #[error("a key is not a string")]
    KeyNotAString,
    #[error("text after the dictionary at byte {at}")]
    TrailingText { at: usize },
    #[error("expected '{}' at byte {at}", char::from(*expected))]
    Expected { expected: u8, at: usize },
    #[error("nested too deeply")]
    TooDeep,
    #[error("unexpected end")]
    UnexpectedEnd,
    #[error("integer {digits} out of range")]
    IntegerOutOfRange { digits: String },
    #[error("unexpected '{}' at byte {at}", found.escape_ascii())]
    Unexpected { found: u8, at: usize },
    #[error("unterminated string")]
    UnterminatedString,
    #[error("a string is not text")]
    StringNotText,
}

/// What an input file holds, for [`DataError::OperandType`]: an `.npy` array's dtype, or raw
/// words of a width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    Dtype(Dtype),
    RawWords { bits: u32 },
}

impl fmt::Display for Holding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holding::Dtype(dtype) => write!(f, "holds {dtype} data"),
            Holding::RawWords { bits } => write!(f, "holds {bits}-bit words"),
        }
    }
}

/// An `.npy` array's shape, written as NumPy writes it: `(5,)`, `(2, 3)`, `()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape(pub Vec<u64>);

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [d] => write!(f, "({d},)"),
            dims => write!(f, "({})", dims.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")),
        }
    }
}

/// The names of the dtypes ptxfp reads.
fn dtype_names() -> String {
    Dtype::ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
}

pub(super) fn io_error<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(stdio::Error) -> Error + 'a {
    move |source| Error::Io { path: path.to_path_buf(), action, source }
}

pub(super) fn data_error(path: &Path, problem: impl Into<DataError>) -> Error {
    Error::Data { path: path.to_path_buf(), problem: problem.into() }
}
