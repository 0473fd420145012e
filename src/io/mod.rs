//! Operand buffers in files: raw little-endian words and NumPy `.npy` arrays, evaluated with
//! [`Instr::eval_batch`](crate::Instr::eval_batch) block by block so that inputs larger than
//! memory work, the result written atomically (a temporary file in the destination's
//! directory, fsync, rename).
//!
//! A file is read as `.npy` when its name ends in `.npy` (any case) and as raw words otherwise.
//! A raw file holds little-endian words of the operand width (2, 4 or 8 bytes), nothing else.
//! An `.npy` file (format version 1.0, 2.0 or 3.0) holds little-endian data of one of the
//! dtypes of [`Dtype::ALL`] (`float16`, `float32`, `float64`, and the signed and unsigned
//! integers of 8 to 64 bits) in C order; its shape is ignored (the array is read flat). An
//! input's dtype must fit the operand type ([`Dtype::accepted`]): the unsigned dtype of the
//! operand width always does, a float dtype only when it is the operand's own format
//! (`float16` for f16, `float32` for f32, `float64` for f64), a signed one when the operand is
//! an integer of its width. bf16 and the packed types take `uint16`, `uint32` or `uint64`.
//!
//! What goes wrong is an [`Error`]; a file that cannot be used is [`Error::Data`], whose
//! [`DataError`] names the problem with its parts (an `.npy` header that breaks the format:
//! [`NpyError`]).
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
mod error;
mod mma_files;
mod npy;
mod output;
mod python_literal;
mod read;
mod run;

#[cfg(test)]
use std::path::Path;

pub use dtype::{result_dtype, writes_a_value, Dtype};
use error::{data_error, io_error};
pub use error::{DataError, Error, Holding, LiteralError, NpyError, Shape};
pub use mma_files::{run_gemm, run_mma, MmaFiles};
pub use npy::{npy_header, npy_header_shaped, read_npy_header, NpyHeader};
pub use output::{check_writable, write_atomically, Writer};
pub use read::{Container, Reader};
pub use run::{run, run_until, BLOCK};

/// The names in a test's scratch directory, sorted.
#[cfg(test)]
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}
