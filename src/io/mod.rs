//! Operand buffers in files: raw little-endian words and NumPy `.npy` arrays, evaluated with
//! [`Instr::eval_batch`](crate::Instr::eval_batch) block by block so that inputs larger than
//! memory work, the result written atomically (a temporary file in the destination's
//! directory, fsync, rename).
//!
//! A file is read as `.npy` when its name ends in `.npy` (any case) and as raw words otherwise.
//! A raw file holds little-endian words of the operand width (2, 4 or 8 bytes), nothing else.
//! An `.npy` file (format version 1.0, 2.0 or 3.0) holds little-endian `float16`, `float32`,
//! `float64`, `uint16`, `uint32` or `uint64` data in C order; its shape is ignored (the array
//! is read flat). An input's dtype must fit the operand type: the unsigned dtype of the operand
//! width always does, a float dtype only when it is the operand's own format (`float16` for
//! f16, `float32` for f32, `float64` for f64). bf16 and the packed types take `uint16`,
//! `uint32` or `uint64`.
//!
//! An `.npy` output gets the dtype of [`result_dtype`]: the float dtype of an f16, f32 or f64
//! result, the unsigned dtype of the word otherwise (bf16, packed types, the `testp` predicate,
//! the fixed-point RRO word, the high words of MUFU.RCP64H/RSQ64H).
//!
//! ```no_run
//! use std::path::Path;
//! let fma: ptxfp::Instr = "fma.rn.f32".parse().unwrap();
//! let inputs = [Path::new("a.npy"), Path::new("b.npy"), Path::new("c.bin")];
//! let n = ptxfp::io::run(&fma, ptxfp::Target::DEFAULT, &inputs, Path::new("d.npy")).unwrap();
//! println!("{n} results");
//! ```

mod dtype;
mod npy;
mod output;
mod python_literal;
mod read;
mod run;

use std::io as stdio;
use std::path::{Path, PathBuf};

use crate::batch::BatchError;
use crate::ptx::{alternatives, Instr, TargetError};

pub use dtype::{result_dtype, writes_a_value, Dtype};
pub use npy::{npy_header, read_npy_header, NpyHeader};
pub use output::{check_writable, write_atomically, Writer};
pub use read::{Container, Reader};
pub use run::{run, run_until, BLOCK};

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
    /// A file's contents cannot be used: corrupt or unsupported `.npy`, a raw size that is not
    /// a whole number of words, a dtype that does not fit the operand, a different length.
    #[error("{}: {message}", .path.display())]
    Data { path: PathBuf, message: String },
    /// Stopped on request ([`run_until`]) before the output was complete: the output file was
    /// not written (a file already there keeps its contents) and no temporary file remains.
    #[error("interrupted; {} was not written", .output.display())]
    Interrupted { output: PathBuf },
}

fn io_error<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(stdio::Error) -> Error + 'a {
    move |source| Error::Io { path: path.to_path_buf(), action, source }
}

fn data_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Data { path: path.to_path_buf(), message: message.into() }
}

/// The names in a test's scratch directory, sorted.
#[cfg(test)]
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}
