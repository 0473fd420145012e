//! Input files opened for streaming: raw little-endian words or `.npy` arrays, read block by
//! block or at an index.

use std::fs::File;
use std::io::{self as stdio, Read, Seek};
use std::path::{Path, PathBuf};

use super::npy::read_npy_header;
use super::{data_error, io_error, DataError, Dtype, Error, Holding, Shape};
use crate::batch::Word;
use crate::ptx::{Instr, Type};

/// How a file stores its words, decided by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// Little-endian words, nothing else.
    Raw,
    /// A NumPy `.npy` array.
    Npy,
}

impl Container {
    /// `.npy` (any case) is NumPy, every other name raw words.
    pub fn of(path: &Path) -> Container {
        match path.extension() {
            Some(ext) if ext.eq_ignore_ascii_case("npy") => Container::Npy,
            _ => Container::Raw,
        }
    }
}

/// An input file opened for streaming: its header (if any) checked, positioned at the data.
#[derive(Debug)]
pub struct Reader {
    path: PathBuf,
    file: File,
    len: u64,
    bits: u32,
    dtype: Option<Dtype>,
    /// Byte offset of the first element.
    data_offset: u64,
    /// The `.npy` shape, `None` for a raw file.
    shape: Option<Shape>,
}

impl Reader {
    /// Open `path`: an `.npy` file by its header, a raw file as words of `raw_bits` bits.
    pub fn open(path: &Path, raw_bits: u32) -> Result<Reader, Error> {
        let mut file = File::open(path).map_err(io_error(path, "open"))?;
        let meta = file.metadata().map_err(io_error(path, "read"))?;
        if meta.is_dir() {
            return Err(data_error(path, DataError::InputIsADirectory));
        }
        if !meta.is_file() {
            return Err(data_error(path, DataError::InputIsNotARegularFile));
        }
        let size = meta.len();
        match Container::of(path) {
            Container::Raw => {
                let bytes = u64::from(raw_bits / 8);
                if size % bytes != 0 {
                    return Err(data_error(path, DataError::RawSize { size, bits: raw_bits }));
                }
                Ok(Reader {
                    path: path.to_path_buf(),
                    file,
                    len: size / bytes,
                    bits: raw_bits,
                    dtype: None,
                    data_offset: 0,
                    shape: None,
                })
            }
            Container::Npy => {
                let header = read_npy_header(path, &mut file, size)?;
                let data_offset = file.stream_position().map_err(io_error(path, "read"))?;
                Ok(Reader {
                    path: path.to_path_buf(),
                    file,
                    len: header.len,
                    bits: header.dtype.bits(),
                    dtype: Some(header.dtype),
                    data_offset,
                    shape: Some(header.shape),
                })
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of elements (words).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `.npy` dtype, `None` for a raw file.
    pub fn dtype(&self) -> Option<Dtype> {
        self.dtype
    }

    /// The `.npy` array's shape, `None` for a raw file.
    pub fn shape(&self) -> Option<&Shape> {
        self.shape.as_ref()
    }

    /// Width of an element in bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Check that the file can hold operands of type `ty` of `instr` (see the module
    /// documentation for the dtypes each type accepts).
    pub fn expect(&self, ty: Type, instr: &Instr) -> Result<(), Error> {
        let accepted = Dtype::accepted(ty);
        let fits = match self.dtype {
            Some(dtype) => accepted.contains(&dtype),
            None => self.bits == ty.bits(),
        };
        if fits {
            return Ok(());
        }
        let held = match self.dtype {
            Some(dtype) => Holding::Dtype(dtype),
            None => Holding::RawWords { bits: self.bits },
        };
        Err(data_error(&self.path, DataError::OperandType { held, instr: *instr, ty, accepted }))
    }

    /// Check that the file holds `len` words of `bits` bits (what a capture kit's manifest says
    /// of its input and result files).
    pub fn expect_words(&self, bits: u32, len: u64) -> Result<(), Error> {
        if self.bits != bits {
            return Err(data_error(&self.path, DataError::WordWidth { held: self.bits, expected: bits }));
        }
        if self.len != len {
            return Err(data_error(&self.path, DataError::WordCount { held: self.len, expected: len }));
        }
        Ok(())
    }

    /// Read the next `buf.len()` elements. `W` is at least as wide as the file's elements;
    /// narrower elements (the `.f16` operand of `fma.rn.f32.f16` among words of its `.f32`
    /// one, [`Instr::source_bits`]) are zero-extended.
    pub fn read_block<W: Word>(&mut self, buf: &mut [W]) -> Result<(), Error> {
        assert!(W::BITS >= self.bits, "read_block: words narrower than the file's");
        if W::BITS == self.bits {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(buf);
            self.file.read_exact(bytes).map_err(io_error(&self.path, "read"))?;
            to_native::<W>(bytes);
            return Ok(());
        }
        let width = (self.bits / 8) as usize;
        let mut bytes = vec![0u8; buf.len() * width];
        self.file.read_exact(&mut bytes).map_err(io_error(&self.path, "read"))?;
        for (word, element) in buf.iter_mut().zip(bytes.chunks_exact(width)) {
            let mut le = [0u8; 8];
            le[..width].copy_from_slice(element);
            *word = W::from_u64(u64::from_le_bytes(le));
        }
        Ok(())
    }

    /// Read `buf.len()` elements starting at element `index`, independently of the streaming
    /// position (several threads may read one file). `W` must have the file's element width.
    pub fn read_at<W: Word>(&self, index: u64, buf: &mut [W]) -> Result<(), Error> {
        assert_eq!(W::BITS, self.bits, "read_at: word width differs from the file's");
        let offset = self.data_offset + index * u64::from(W::BITS / 8);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(buf);
        read_exact_at(&self.file, bytes, offset).map_err(io_error(&self.path, "read"))?;
        to_native::<W>(bytes);
        Ok(())
    }
}

/// Little-endian storage to native words: swap each word (never taken on x86-64 or AArch64).
fn to_native<W: Word>(bytes: &mut [u8]) {
    if cfg!(target_endian = "big") {
        for word in bytes.chunks_exact_mut((W::BITS / 8) as usize) {
            word.reverse();
        }
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> stdio::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> stdio::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset)? {
            0 => return Err(stdio::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}
