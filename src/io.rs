//! Operand buffers in files: raw little-endian words and NumPy `.npy` arrays, evaluated with
//! [`Instr::eval_batch`] block by block so that inputs larger than memory work, the result
//! written atomically (a temporary file in the destination's directory, fsync, rename).
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

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self as stdio, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::batch::Word;
use crate::format::Format;
use crate::ptx::{alternatives, Instr, MufuFn, Opcode, Target, Type};
use crate::quote::Quoted;

/// Elements evaluated per block: every input and the output hold one block in memory
/// (at most 4 · 2^22 · 8 bytes = 128 MiB for a three-operand f64 instruction).
pub const BLOCK: usize = 1 << 22;

/// The largest `.npy` header accepted (NumPy writes a few hundred bytes).
const MAX_HEADER: u64 = 1 << 20;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Why files could not be evaluated.
#[derive(Debug)]
pub enum Error {
    /// The instruction cannot run as asked: wrong number of inputs, or the target lacks it.
    Instr(String),
    /// The operating system refused an operation on a file.
    Io { path: PathBuf, action: &'static str, source: stdio::Error },
    /// A file's contents cannot be used: corrupt or unsupported `.npy`, a raw size that is not
    /// a whole number of words, a dtype that does not fit the operand, a different length.
    Data { path: PathBuf, message: String },
    /// Stopped on request ([`run_until`]) before the output was complete: the output file was
    /// not written (a file already there keeps its contents) and no temporary file remains.
    Interrupted { output: PathBuf },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Instr(message) => f.write_str(message),
            Error::Io { path, action, source } => write!(f, "cannot {action} {}: {source}", path.display()),
            Error::Data { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Interrupted { output } => write!(f, "interrupted; {} was not written", output.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_error<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(stdio::Error) -> Error + 'a {
    move |source| Error::Io { path: path.to_path_buf(), action, source }
}

fn data_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Data { path: path.to_path_buf(), message: message.into() }
}

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
}

impl Reader {
    /// Open `path`: an `.npy` file by its header, a raw file as words of `raw_bits` bits.
    pub fn open(path: &Path, raw_bits: u32) -> Result<Reader, Error> {
        let mut file = File::open(path).map_err(io_error(path, "open"))?;
        let meta = file.metadata().map_err(io_error(path, "read"))?;
        if meta.is_dir() {
            return Err(data_error(path, "is a directory, not a file of operands"));
        }
        if !meta.is_file() {
            return Err(data_error(path, "is not a regular file (ptxfp needs its size before reading it)"));
        }
        let size = meta.len();
        match Container::of(path) {
            Container::Raw => {
                let bytes = u64::from(raw_bits / 8);
                if size % bytes != 0 {
                    return Err(data_error(
                        path,
                        format!(
                            "raw file of {size} bytes is not a whole number of {raw_bits}-bit words ({bytes} bytes each)"
                        ),
                    ));
                }
                Ok(Reader {
                    path: path.to_path_buf(),
                    file,
                    len: size / bytes,
                    bits: raw_bits,
                    dtype: None,
                    data_offset: 0,
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
            Some(dtype) => format!("holds {dtype} data"),
            None => format!("holds {}-bit words", self.bits),
        };
        let names: Vec<&str> = accepted.iter().map(|d| d.name()).collect();
        Err(data_error(
            &self.path,
            format!(
                "{held} but {instr} takes {} operands ({}-bit words; use {})",
                ty.name(),
                ty.bits(),
                names.join(" or ")
            ),
        ))
    }

    /// Check that the file holds `len` words of `bits` bits (what a capture kit's manifest says
    /// of its input and result files).
    pub fn expect_words(&self, bits: u32, len: u64) -> Result<(), Error> {
        if self.bits != bits {
            return Err(data_error(&self.path, format!("holds {}-bit words, {bits}-bit words expected", self.bits)));
        }
        if self.len != len {
            return Err(data_error(&self.path, format!("holds {} words, {len} expected", self.len)));
        }
        Ok(())
    }

    /// Read the next `buf.len()` elements. `W` must have the file's element width.
    pub fn read_block<W: Word>(&mut self, buf: &mut [W]) -> Result<(), Error> {
        assert_eq!(W::BITS, self.bits, "read_block: word width differs from the file's");
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(buf);
        self.file.read_exact(bytes).map_err(io_error(&self.path, "read"))?;
        to_native::<W>(bytes);
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

/// What an `.npy` header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    pub dtype: Dtype,
    /// Elements in the array (the product of its shape).
    pub len: u64,
}

/// Read and check the `.npy` header at the start of `file`, a file of `size` bytes named
/// `path` in messages: the magic, the version (1.0, 2.0, 3.0), the header dictionary, and that
/// exactly the data bytes its shape and dtype need follow it. Leaves `file` at the first data
/// byte.
pub fn read_npy_header(path: &Path, file: &mut impl Read, size: u64) -> Result<NpyHeader, Error> {
    let corrupt = |message: String| data_error(path, format!("not a valid .npy file: {message}"));
    let mut prefix = [0u8; 8];
    if size < 8 {
        return Err(corrupt(format!("{size} bytes, too short for the .npy magic and version")));
    }
    file.read_exact(&mut prefix).map_err(io_error(path, "read"))?;
    if &prefix[..6] != MAGIC {
        return Err(corrupt("bad magic (the file does not start with \\x93NUMPY)".into()));
    }
    let (major, minor) = (prefix[6], prefix[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(data_error(
                path,
                format!("unsupported .npy format version {major}.{minor} (ptxfp reads 1.0, 2.0 and 3.0)"),
            ))
        }
    };
    let start = 8 + len_bytes;
    if size < start {
        return Err(corrupt("truncated header length".into()));
    }
    let mut len_buf = [0u8; 4];
    file.read_exact(&mut len_buf[..len_bytes as usize]).map_err(io_error(path, "read"))?;
    let header_len = u64::from(u32::from_le_bytes(len_buf));
    if header_len > MAX_HEADER {
        return Err(corrupt(format!("header length {header_len} is implausibly large")));
    }
    if start + header_len > size {
        return Err(corrupt(format!(
            "truncated header: its length is {header_len} bytes but only {} follow",
            size - start
        )));
    }
    let mut raw = vec![0u8; header_len as usize];
    file.read_exact(&mut raw).map_err(io_error(path, "read"))?;
    // Versions 1.0 and 2.0 are latin-1, 3.0 UTF-8; a valid header dictionary is ASCII in all.
    let text = String::from_utf8(raw).map_err(|_| corrupt("header is not text".into()))?;
    let dict =
        parse_header(&text).map_err(|e| corrupt(format!("header dictionary unparsable ({e}): {}", excerpt(&text))))?;

    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (key, value) in dict {
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            other => return Err(corrupt(format!("unexpected header key {}", Quoted(other)))),
        };
        if slot.replace(value).is_some() {
            return Err(corrupt(format!("header key {} appears twice", Quoted(&key))));
        }
    }
    let missing = |key: &str| corrupt(format!("header lacks '{key}'"));
    let descr = match descr.ok_or_else(|| missing("descr"))? {
        Lit::Str(s) => s,
        Lit::List(_) => return Err(data_error(path, "structured (record) dtypes are not supported; ptxfp reads float16, float32, float64, uint16, uint32 and uint64")),
        _ => return Err(corrupt("'descr' is not a string".into())),
    };
    let fortran = match fortran.ok_or_else(|| missing("fortran_order"))? {
        Lit::Bool(b) => b,
        _ => return Err(corrupt("'fortran_order' is not True or False".into())),
    };
    let dims = match shape.ok_or_else(|| missing("shape"))? {
        Lit::Tuple(items) | Lit::List(items) => items
            .into_iter()
            .map(|d| match d {
                Lit::Int(n) => Ok(n),
                _ => Err(corrupt("'shape' holds something other than integers".into())),
            })
            .collect::<Result<Vec<u64>, Error>>()?,
        _ => return Err(corrupt("'shape' is not a tuple".into())),
    };
    let shape_text = match dims.as_slice() {
        [d] => format!("({d},)"),
        _ => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };

    let dtype = match Dtype::from_descr(&descr) {
        Some(d) => d,
        None => {
            let little = descr.replacen('>', "<", 1);
            let message = if descr.starts_with('>') && Dtype::from_descr(&little).is_some() {
                format!(
                    "big-endian dtype {} is not supported; save the array little-endian (arr.astype('{little}'))",
                    Quoted(&descr)
                )
            } else {
                let names: Vec<&str> = Dtype::ALL.iter().map(|d| d.name()).collect();
                format!("unsupported dtype {}; ptxfp reads {} (little-endian)", Quoted(&descr), names.join(", "))
            };
            return Err(data_error(path, message));
        }
    };
    // A Fortran-order array has the same flat order as a C-order one when at most one
    // dimension exceeds 1; otherwise reading it flat would transpose it.
    if fortran && dims.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(data_error(
            path,
            format!("Fortran-order (column-major) array of shape {shape_text} is not supported; save it in C order (np.ascontiguousarray)"),
        ));
    }
    let len = dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
    let need = len.and_then(|n| n.checked_mul(u64::from(dtype.bits() / 8)));
    let (Some(len), Some(need)) = (len, need) else {
        return Err(corrupt(format!("shape {shape_text} is too large")));
    };
    let have = size - start - header_len;
    if have < need {
        return Err(data_error(
            path,
            format!("truncated .npy: shape {shape_text} of {dtype} needs {need} data bytes but only {have} follow the header"),
        ));
    }
    if have > need {
        return Err(corrupt(format!(
            "{have} data bytes follow the header but shape {shape_text} of {dtype} needs {need}"
        )));
    }
    Ok(NpyHeader { dtype, len })
}

/// The start of a header for a one-line message: escaped, at most 120 characters.
fn excerpt(text: &str) -> String {
    let escaped: String = text.trim_end().escape_debug().collect();
    match escaped.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

/// A Python literal of an `.npy` header.
#[derive(Debug, PartialEq)]
enum Lit {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    Tuple(Vec<Lit>),
    List(Vec<Lit>),
}

/// Parse the header: a Python dict literal with string keys.
fn parse_header(text: &str) -> Result<Vec<(String, Lit)>, String> {
    let mut p = LitParser { s: text.as_bytes(), i: 0 };
    p.skip_ws();
    p.expect(b'{')?;
    let mut entries = Vec::new();
    loop {
        p.skip_ws();
        if p.eat(b'}') {
            break;
        }
        let key = match p.value(0)? {
            Lit::Str(s) => s,
            _ => return Err("a key is not a string".into()),
        };
        p.skip_ws();
        p.expect(b':')?;
        let value = p.value(0)?;
        entries.push((key, value));
        p.skip_ws();
        if !p.eat(b',') {
            p.skip_ws();
            p.expect(b'}')?;
            break;
        }
    }
    p.skip_ws();
    if p.i != p.s.len() {
        return Err(format!("text after the dictionary at byte {}", p.i));
    }
    Ok(entries)
}

struct LitParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl LitParser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.i))
        }
    }

    fn value(&mut self, depth: u32) -> Result<Lit, String> {
        if depth > 16 {
            return Err("nested too deeply".into());
        }
        self.skip_ws();
        let Some(&c) = self.s.get(self.i) else {
            return Err("unexpected end".into());
        };
        match c {
            b'\'' | b'"' => self.string(c),
            b'(' | b'[' => {
                let close = if c == b'(' { b')' } else { b']' };
                self.i += 1;
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    self.skip_ws();
                    if self.eat(close) {
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    trailing_comma = self.eat(b',');
                    if !trailing_comma {
                        self.skip_ws();
                        self.expect(close)?;
                        break;
                    }
                }
                // `(3)` is the integer 3 in Python, not a tuple.
                if c == b'(' && items.len() == 1 && !trailing_comma {
                    return Ok(items.pop().unwrap());
                }
                Ok(if c == b'(' { Lit::Tuple(items) } else { Lit::List(items) })
            }
            b'0'..=b'9' => {
                let start = self.i;
                while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
                let digits = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                self.eat(b'L'); // Python 2 long
                digits.parse().map(Lit::Int).map_err(|_| format!("integer {digits} out of range"))
            }
            _ => {
                for (word, lit) in [("True", Lit::Bool(true)), ("False", Lit::Bool(false)), ("None", Lit::None)] {
                    if self.s[self.i..].starts_with(word.as_bytes()) {
                        self.i += word.len();
                        return Ok(lit);
                    }
                }
                Err(format!("unexpected '{}' at byte {}", c.escape_ascii(), self.i))
            }
        }
    }

    fn string(&mut self, quote: u8) -> Result<Lit, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err("unterminated string".into()),
                Some(&c) if c == quote => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    let &next = self.s.get(self.i + 1).ok_or("unterminated string")?;
                    out.push(next);
                    self.i += 2;
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
        String::from_utf8(out).map(Lit::Str).map_err(|_| "a string is not text".into())
    }
}

/// The `.npy` version 1.0 header of a 1-D array: magic, version, length and the dictionary,
/// padded with spaces and a newline to a multiple of 64 bytes (as NumPy writes it).
pub fn npy_header(dtype: Dtype, len: u64) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({len},), }}", dtype.descr());
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

/// An output file written atomically: the words go to a temporary file next to the
/// destination, which [`Writer::commit`] syncs and renames over it. Dropped without a commit
/// (an error anywhere), the temporary file is removed and the destination left as it was.
#[derive(Debug)]
pub struct Writer {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    bits: u32,
    remaining: u64,
}

impl Writer {
    /// Start writing `len` elements of `dtype` to `dest` (an `.npy` file with that dtype, or raw
    /// words of its width).
    pub fn create(dest: &Path, dtype: Dtype, len: u64) -> Result<Writer, Error> {
        let mut writer = Writer::temporary(dest, dtype.bits(), len)?;
        if Container::of(dest) == Container::Npy {
            let header = npy_header(dtype, len);
            writer.write_bytes(&header)?;
        }
        Ok(writer)
    }

    /// A temporary file beside `dest` (through a symbolic link: beside the file it points
    /// to), which [`Writer::commit`] renames over `dest`.
    fn temporary(dest: &Path, bits: u32, len: u64) -> Result<Writer, Error> {
        // Through a symbolic link the file it points to is replaced, not the link.
        let resolved;
        let dest = match fs::symlink_metadata(dest) {
            Ok(m) if m.file_type().is_symlink() => match fs::canonicalize(dest) {
                Ok(target) => {
                    resolved = target;
                    resolved.as_path()
                }
                Err(_) => dest,
            },
            _ => dest,
        };
        let Some(name) = dest.file_name() else {
            return Err(data_error(dest, "is not a file name"));
        };
        let existing = match fs::metadata(dest) {
            Ok(m) if m.is_dir() => return Err(data_error(dest, "is a directory")),
            Ok(m) if !m.is_file() => {
                return Err(data_error(dest, "is not a regular file; ptxfp replaces its output file as a whole"))
            }
            Ok(m) => Some(m.permissions()),
            Err(_) => None,
        };
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        static SERIAL: AtomicU32 = AtomicU32::new(0);
        let (tmp, file) = loop {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".ptxfp-{}-{}.tmp", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
            let tmp = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => break (tmp, file),
                Err(e) if e.kind() == stdio::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(Error::Io { path: dest.to_path_buf(), action: "create a temporary file for", source })
                }
            }
        };
        let writer = Writer { dest: dest.to_path_buf(), tmp, file: Some(file), bits, remaining: len };
        if let Some(permissions) = existing {
            // The replacement keeps the permissions of the file it replaces.
            let file = writer.file.as_ref().unwrap();
            file.set_permissions(permissions).map_err(io_error(dest, "set the permissions of"))?;
        }
        Ok(writer)
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let file = self.file.as_mut().expect("writer used after commit");
        file.write_all(bytes).map_err(io_error(&self.dest, "write"))
    }

    /// Append words. `W` must have the dtype's width; no more than `len` words in total.
    pub fn write_block<W: Word>(&mut self, words: &[W]) -> Result<(), Error> {
        assert_eq!(W::BITS, self.bits, "write_block: word width differs from the output's");
        assert!(words.len() as u64 <= self.remaining, "write_block: more words than announced");
        self.remaining -= words.len() as u64;
        if cfg!(target_endian = "big") {
            let mut bytes = bytemuck::cast_slice::<W, u8>(words).to_vec();
            for word in bytes.chunks_exact_mut((W::BITS / 8) as usize) {
                word.reverse();
            }
            self.write_bytes(&bytes)
        } else {
            self.write_bytes(bytemuck::cast_slice(words))
        }
    }

    /// Sync the data to disk and rename the file over the destination.
    pub fn commit(mut self) -> Result<(), Error> {
        assert_eq!(self.remaining, 0, "commit: fewer words written than announced");
        let file = self.file.take().expect("writer used after commit");
        file.sync_all().map_err(io_error(&self.dest, "sync"))?;
        drop(file);
        fs::rename(&self.tmp, &self.dest).map_err(io_error(&self.dest, "write"))?;
        self.tmp = PathBuf::new();
        // Make the rename itself durable (best effort: not every platform syncs directories).
        if let Some(dir) = self.dest.parent() {
            let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            self.file.take();
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Whether ptxfp can write `dest` as it writes every output (a temporary file beside it, then
/// a rename): checked before long work, so that a missing directory or a denied permission is
/// reported at once rather than after the work.
pub fn check_writable(dest: &Path) -> Result<(), Error> {
    Writer::temporary(dest, 8, 0).map(drop)
}

/// Replace `dest` with `bytes` as a whole: written to a temporary file beside it, synced, then
/// renamed, so readers see the old file or the complete new one, never a partial one.
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut writer = Writer::temporary(dest, 8, 0)?;
    writer.write_bytes(bytes)?;
    writer.commit()
}

/// Evaluate `instr` over the input files (one per source operand, in operand order) and write
/// the results to `output`, [`BLOCK`] elements at a time. Returns the number of elements.
pub fn run(instr: &Instr, target: Target, inputs: &[&Path], output: &Path) -> Result<u64, Error> {
    run_until(instr, target, inputs, output, &AtomicBool::new(false))
}

/// [`run`] that stops when `stop` is set (polled before each block, e.g. by a Ctrl-C handler),
/// with [`Error::Interrupted`]: the output is then not written and its temporary file removed.
pub fn run_until(
    instr: &Instr,
    target: Target,
    inputs: &[&Path],
    output: &Path,
    stop: &AtomicBool,
) -> Result<u64, Error> {
    run_in_blocks(instr, target, inputs, output, BLOCK, stop)
}

/// [`run_until`] with `block` elements per block (at least 1).
fn run_in_blocks(
    instr: &Instr,
    target: Target,
    inputs: &[&Path],
    output: &Path,
    block: usize,
    stop: &AtomicBool,
) -> Result<u64, Error> {
    target.check(instr).map_err(|e| Error::Instr(e.to_string()))?;
    if !instr.takes(inputs.len()) {
        let legal = instr.operand_counts();
        let files = if legal == [1] { "file" } else { "files" };
        return Err(Error::Instr(format!(
            "{instr} takes {} input {files}, one per source operand; got {}",
            alternatives(&legal),
            inputs.len()
        )));
    }
    let mut readers = Vec::with_capacity(inputs.len());
    for (i, path) in inputs.iter().enumerate() {
        let ty = instr.source_type(i);
        let reader = Reader::open(path, ty.bits())?;
        reader.expect(ty, instr)?;
        readers.push(reader);
    }
    let len = readers.first().map_or(0, Reader::len);
    if let Some(other) = readers.iter().find(|r| r.len() != len) {
        return Err(data_error(
            other.path(),
            format!(
                "has {} elements but {} has {len}; every input must have the same number of elements",
                other.len(),
                readers[0].path().display()
            ),
        ));
    }
    let mut writer = Writer::create(output, result_dtype(instr), len)?;
    let src_bits = instr.source_type(0).bits();
    let dst_bits = instr.result_bits();
    let args = Stream { instr, target, readers: &mut readers[..], writer: &mut writer, len, block, stop };
    crate::batch::with_words(src_bits, dst_bits, args).unwrap_or_else(|| {
        Err(Error::Instr(format!("{instr}: no {src_bits}-bit sources with {dst_bits}-bit results")))
    })?;
    writer.commit()?;
    Ok(len)
}

/// The block loop of [`run_in_blocks`]: read a block of every input, evaluate it, append the
/// results.
struct Stream<'a> {
    instr: &'a Instr,
    target: Target,
    readers: &'a mut [Reader],
    writer: &'a mut Writer,
    len: u64,
    block: usize,
    stop: &'a AtomicBool,
}

impl crate::batch::WordsFn for Stream<'_> {
    type Output = Result<(), Error>;

    fn call<S: Word, D: Word>(self) -> Result<(), Error> {
        let Stream { instr, target, readers, writer, len, block, stop } = self;
        let cap = usize::try_from(len).unwrap_or(usize::MAX).min(block.max(1));
        let mut sources: Vec<Vec<S>> = readers.iter().map(|_| vec![S::zeroed(); cap]).collect();
        let mut out = vec![D::zeroed(); cap];
        let mut done = 0u64;
        while done < len {
            if stop.load(Ordering::Relaxed) {
                return Err(Error::Interrupted { output: writer.dest.clone() });
            }
            let n = (len - done).min(cap as u64) as usize;
            for (reader, buf) in readers.iter_mut().zip(&mut sources) {
                reader.read_block(&mut buf[..n])?;
            }
            let views: Vec<&[S]> = sources.iter().map(|b| &b[..n]).collect();
            instr.eval_batch(target, &views, &mut out[..n]).map_err(|e| Error::Instr(e.to_string()))?;
            writer.write_block(&out[..n])?;
            done += n as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_parser_reads_numpy_headers() {
        let h = parse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }    \n").unwrap();
        assert_eq!(h[0], ("descr".into(), Lit::Str("<f4".into())));
        assert_eq!(h[1], ("fortran_order".into(), Lit::Bool(false)));
        assert_eq!(h[2], ("shape".into(), Lit::Tuple(vec![Lit::Int(3), Lit::Int(4)])));
        let h = parse_header("{\"descr\":\"<u2\",\"fortran_order\":True,\"shape\":(7L,)}").unwrap();
        assert_eq!(h[2].1, Lit::Tuple(vec![Lit::Int(7)]));
        assert_eq!(parse_header("{'shape': ()}").unwrap()[0].1, Lit::Tuple(vec![]));
        for bad in [
            "",
            "{",
            "{'descr' '<f4'}",
            "{'shape': (3,}",
            "{'a': 1} x",
            "{1: 2}",
            "{'a': ((((((((((((((((((1))))))))))))))))))}",
        ] {
            assert!(parse_header(bad).is_err(), "{bad:?}");
        }
    }

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

    /// A scratch directory under the system temporary directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("ptxfp-io-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn names(&self) -> Vec<String> {
            let mut v: Vec<String> =
                fs::read_dir(&self.0).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            v.sort();
            v
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn every_block_size_gives_the_scalar_results() {
        let dir = Scratch::new("blocks");
        let add: Instr = "add.rn.f16x2".parse().unwrap();
        let n = 1000u32;
        let a: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let b: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x85EB_CA6B) ^ 0x3C00_3C00).collect();
        let (pa, pb) = (dir.0.join("a.bin"), dir.0.join("b.npy"));
        fs::write(&pa, bytemuck::cast_slice::<u32, u8>(&a)).unwrap();
        let mut npy = npy_header(Dtype::Uint32, n.into());
        npy.extend_from_slice(bytemuck::cast_slice(&b));
        fs::write(&pb, npy).unwrap();
        let want: Vec<u32> = a.iter().zip(&b).map(|(&x, &y)| add.eval(&[x.into(), y.into()]).unwrap() as u32).collect();
        for block in [1, 2, 7, 64, 999, 1000, 1001, BLOCK] {
            let out = dir.0.join("d.bin");
            let len = run_in_blocks(&add, Target::DEFAULT, &[&pa, &pb], &out, block, &AtomicBool::new(false)).unwrap();
            assert_eq!(len, u64::from(n));
            let got = fs::read(&out).unwrap();
            assert_eq!(bytemuck::cast_slice::<u8, u32>(&got), &want[..], "block {block}");
        }
        assert_eq!(dir.names(), ["a.bin", "b.npy", "d.bin"]);
        // Stopped: the output keeps its contents and no temporary file remains.
        let before = fs::read(dir.0.join("d.bin")).unwrap();
        let stopped = run_until(&add, Target::DEFAULT, &[&pa, &pb], &dir.0.join("d.bin"), &AtomicBool::new(true));
        assert!(matches!(stopped, Err(Error::Interrupted { .. })), "{stopped:?}");
        assert_eq!(fs::read(dir.0.join("d.bin")).unwrap(), before);
        assert_eq!(dir.names(), ["a.bin", "b.npy", "d.bin"]);
    }

    #[test]
    fn an_uncommitted_writer_leaves_nothing() {
        let dir = Scratch::new("uncommitted");
        let fresh = dir.0.join("fresh.npy");
        let mut w = Writer::create(&fresh, Dtype::Float32, 4).unwrap();
        w.write_block(&[1u32, 2]).unwrap();
        drop(w);
        assert!(dir.names().is_empty());
        let old = dir.0.join("old.bin");
        fs::write(&old, b"old").unwrap();
        let mut w = Writer::create(&old, Dtype::Uint16, 1).unwrap();
        w.write_block(&[7u16]).unwrap();
        drop(w);
        assert_eq!(fs::read(&old).unwrap(), b"old");
        assert_eq!(dir.names(), ["old.bin"]);
        let w = Writer::create(&old, Dtype::Uint16, 0).unwrap();
        w.commit().unwrap();
        assert_eq!(fs::read(&old).unwrap(), b"");
    }

    #[cfg(unix)]
    #[test]
    fn the_output_keeps_permissions_and_follows_links() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = Scratch::new("links");
        let target = dir.0.join("target.bin");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.0.join("link.bin");
        symlink(&target, &link).unwrap();
        let mut w = Writer::create(&link, Dtype::Uint16, 1).unwrap();
        w.write_block(&[0x0201u16]).unwrap();
        w.commit().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), [1, 2]);
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(dir.names(), ["link.bin", "target.bin"]);
    }

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
