//! Tensor-core tiles from files: stacks of `A` (…, m, k), `B` (…, k, n) and `C` (…, m, n), and
//! for a block-scaled form `scale_A` (…, m, vec) and `scale_B` (…, vec, n), evaluated tile by
//! tile with [`Mma::tile`]; `D` (…, m, n) written atomically.
//!
//! Every operand is an `.npy` array or a raw file of little-endian words. An element is read as
//! its type's code: from the unsigned dtype of its container (`uint8` for the 8-, 6-, 4- and
//! 1-bit types, `uint16` for f16 and bf16, `uint32` for tf32, f32 and s32, `uint64` for f64),
//! from the float dtype of its own format (`float16`, `float32` also for tf32, `float64`), or
//! for s8, s4 and s32 from the signed dtype of the container, whose values must lie in the
//! type's range. A raw file holds container words. The `.npy` operands must share their
//! leading dimensions; raw ones need only hold the same number of tiles. `D` gets the float
//! dtype of its format (`int32` for s32) and the leading dimensions of `A` (a raw `A`: one).
//!
//! A matrix product (`ptxfp gemm`, [`run_gemm`]) reads two-dimensional `.npy` matrices, whose
//! shapes give M, N and K: A (M, K), B (K, N), C (M, N), scale_A (M, ⌈K/s⌉) and scale_B
//! (⌈K/s⌉, N); D is written (M, N).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::npy::npy_header_shaped;
use super::{data_error, write_atomically, Container, DataError, Dtype, Error, Reader, Shape};
use crate::mma::{Dims, Gemm, Matrices, Mma, Tile, TileError};

/// The files of one evaluation (`ptxfp mma`).
#[derive(Clone, Copy, Debug)]
pub struct MmaFiles<'a> {
    pub a: &'a Path,
    pub b: &'a Path,
    /// `None`: `C` = +0.
    pub c: Option<&'a Path>,
    /// `scale_A` and `scale_B` of a block-scaled form.
    pub scales: Option<(&'a Path, &'a Path)>,
}

/// One operand read whole: its codes, and the leading dimensions of an `.npy` array.
struct Operand {
    path: PathBuf,
    codes: Vec<u64>,
    lead: Option<Vec<u64>>,
    tiles: u64,
}

/// The container width of a code of `bits` bits.
const fn container(bits: u32) -> u32 {
    match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// The dtypes an element type may be read from (module documentation).
fn accepted(ty: &str, bits: u32) -> Vec<Dtype> {
    let own = match ty {
        "f16" => Some(Dtype::Float16),
        "f32" | "tf32" => Some(Dtype::Float32),
        "f64" => Some(Dtype::Float64),
        "s8" | "s4" => Some(Dtype::Int8),
        "s32" => Some(Dtype::Int32),
        _ => None,
    };
    std::iter::once(Dtype::unsigned(container(bits))).chain(own).collect()
}

fn read_operand(
    path: &Path,
    name: &'static str,
    (ty, bits): (&'static str, u32),
    rows: u64,
    cols: u64,
) -> Result<Operand, Error> {
    let mut reader = open_operand(path, name, (ty, bits))?;
    let tile = rows * cols;
    let (lead, tiles) = match reader.shape() {
        Some(shape) => {
            let dims = &shape.0;
            if dims.len() < 2 || dims[dims.len() - 2..] != [rows, cols] {
                return Err(data_error(path, DataError::MmaShape { operand: name, shape: shape.clone(), rows, cols }));
            }
            let lead = dims[..dims.len() - 2].to_vec();
            (Some(lead), reader.len() / tile.max(1))
        }
        None => {
            if reader.len() % tile != 0 {
                return Err(data_error(path, DataError::MmaRawLength { operand: name, len: reader.len(), tile }));
            }
            (None, reader.len() / tile)
        }
    };
    let codes = read_codes(&mut reader, path, name, (ty, bits))?;
    Ok(Operand { path: path.to_path_buf(), codes, lead, tiles })
}

/// Every element of an opened operand as its type's code (module documentation).
fn read_codes(
    reader: &mut Reader,
    path: &Path,
    name: &'static str,
    (ty, bits): (&'static str, u32),
) -> Result<Vec<u64>, Error> {
    let mut codes = vec![0u64; reader.len() as usize];
    reader.read_block(&mut codes)?;
    if reader.dtype().is_some_and(|d| matches!(d, Dtype::Int8 | Dtype::Int32)) {
        // A signed dtype holds values: each must fit the type, whose code is its low bits.
        let width = container(bits);
        for (index, code) in codes.iter_mut().enumerate() {
            let value = ((*code << (64 - width)) as i64) >> (64 - width);
            let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
            if !(lo..=hi).contains(&value) {
                return Err(data_error(
                    path,
                    DataError::MmaValue { operand: name, index: index as u64, value, ty, lo, hi },
                ));
            }
            *code = (value as u64) & ((1u64 << bits) - 1);
        }
    }
    Ok(codes)
}

/// An opened operand whose dtype is one its element type may be read from.
fn open_operand(path: &Path, name: &'static str, (ty, bits): (&'static str, u32)) -> Result<Reader, Error> {
    let reader = Reader::open(path, container(bits))?;
    let accepted = accepted(ty, bits);
    if let Some(dtype) = reader.dtype() {
        if !accepted.contains(&dtype) {
            return Err(data_error(path, DataError::MmaDtype { operand: name, dtype, ty, accepted }));
        }
    }
    Ok(reader)
}

/// Evaluate every tile of the files and write `D` to `out`; returns the number of tiles.
/// Nothing is written unless every tile evaluates.
pub fn run_mma(mma: &Mma, files: MmaFiles<'_>, out: &Path) -> Result<u64, Error> {
    let shape = mma.instr().shape;
    let (m, n, k) = (u64::from(shape.m), u64::from(shape.n), u64::from(shape.k));
    let [ta, tb, tc, td] = mma.operand_types();
    super::check_writable(out)?;
    let a = read_operand(files.a, "A", ta, m, k)?;
    let b = read_operand(files.b, "B", tb, k, n)?;
    let c = files.c.map(|p| read_operand(p, "C", tc, m, n)).transpose()?;
    let scales = match (mma.scale_vec(), files.scales) {
        (Some(v), Some((sa, sb))) => {
            let st = mma.scale_type().expect("a block-scaled form has a scale type");
            Some((read_operand(sa, "scale_A", st, m, u64::from(v))?, read_operand(sb, "scale_B", st, u64::from(v), n)?))
        }
        (Some(_), None) => return Err(Error::Tile(TileError::MissingScales { instr: mma.instr().to_string() })),
        (None, Some(_)) => return Err(Error::Tile(TileError::UnexpectedScales { instr: mma.instr().to_string() })),
        (None, None) => None,
    };
    let mut others: Vec<&Operand> = vec![&b];
    others.extend(c.as_ref());
    if let Some((sa, sb)) = &scales {
        others.extend([sa, sb]);
    }
    for o in &others {
        let lead_differs = matches!((&a.lead, &o.lead), (Some(x), Some(y)) if x != y);
        if o.tiles != a.tiles || lead_differs {
            return Err(data_error(
                &o.path,
                DataError::MmaStack { tiles: o.tiles, first: a.path.clone(), first_tiles: a.tiles },
            ));
        }
    }
    let (mk, kn, mn) = ((m * k) as usize, (k * n) as usize, (m * n) as usize);
    let vec = mma.scale_vec().unwrap_or(0) as usize;
    let mut d = vec![0u64; a.tiles as usize * mn];
    d.par_chunks_mut(mn.max(1)).enumerate().try_for_each(|(t, d)| {
        let tile = Tile {
            a: &a.codes[t * mk..(t + 1) * mk],
            b: &b.codes[t * kn..(t + 1) * kn],
            c: c.as_ref().map(|c| &c.codes[t * mn..(t + 1) * mn]),
            scales: scales.as_ref().map(|(sa, sb)| {
                let (sa_len, sb_len) = (m as usize * vec, vec * n as usize);
                (&sa.codes[t * sa_len..(t + 1) * sa_len], &sb.codes[t * sb_len..(t + 1) * sb_len])
            }),
        };
        mma.tile(tile, d)
    })?;
    let mut dims = a.lead.clone().unwrap_or_else(|| vec![a.tiles]);
    dims.extend([m, n]);
    write_d(out, td.0, dims, &d)?;
    Ok(a.tiles)
}

/// D written atomically to `out`: in the float dtype of its type (`int32` for s32), an `.npy`
/// of shape `dims` or raw words.
fn write_d(out: &Path, ty: &str, dims: Vec<u64>, d: &[u64]) -> Result<(), Error> {
    let out_dtype = match ty {
        "f16" => Dtype::Float16,
        "f32" => Dtype::Float32,
        "f64" => Dtype::Float64,
        _ => Dtype::Int32,
    };
    let width = (out_dtype.bits() / 8) as usize;
    let mut bytes = match Container::of(out) {
        Container::Npy => npy_header_shaped(out_dtype, &Shape(dims)),
        Container::Raw => Vec::new(),
    };
    bytes.reserve(d.len() * width);
    for w in d {
        bytes.extend_from_slice(&w.to_le_bytes()[..width]);
    }
    write_atomically(out, &bytes)
}

/// One matrix of a product: its codes and its rows and columns.
struct Matrix {
    codes: Vec<u64>,
    rows: u64,
    cols: u64,
}

/// A two-dimensional `.npy` operand of a product, with the rows and columns it must have
/// where they are known already.
fn read_matrix(
    path: &Path,
    name: &'static str,
    ty: (&'static str, u32),
    rows: Option<u64>,
    cols: Option<u64>,
) -> Result<Matrix, Error> {
    let mut reader = open_operand(path, name, ty)?;
    let expected = || {
        let dim = |d: Option<u64>, x: &str| d.map_or(x.to_string(), |d| d.to_string());
        let (r, c) = match name {
            "A" => ("M", "K"),
            "B" => ("K", "N"),
            "scale_A" => ("M", "⌈K/s⌉"),
            "scale_B" => ("⌈K/s⌉", "N"),
            _ => ("M", "N"),
        };
        format!("({}, {})", dim(rows, r), dim(cols, c))
    };
    let Some(shape) = reader.shape().cloned() else {
        return Err(data_error(path, DataError::GemmRaw { operand: name, expected: expected() }));
    };
    let fits = |d: u64, want: Option<u64>| want.is_none_or(|w| w == d);
    match shape.0[..] {
        [r, c] if fits(r, rows) && fits(c, cols) => {
            let codes = read_codes(&mut reader, path, name, ty)?;
            Ok(Matrix { codes, rows: r, cols: c })
        }
        _ => Err(data_error(path, DataError::GemmShape { operand: name, shape, expected: expected() })),
    }
}

/// `D = A·B + C` of the matrices in the files with `gemm`, written to `out` (an M×N `.npy`
/// or raw words), calling `progress(done, total)` with the products evaluated so far (from any
/// thread). Returns M, N and K.
/// Nothing is written unless the whole product evaluates.
pub fn run_gemm(
    gemm: &Gemm,
    files: MmaFiles<'_>,
    out: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Dims, Error> {
    let mma = gemm.mma();
    let [ta, tb, tc, td] = mma.operand_types();
    super::check_writable(out)?;
    let a = read_matrix(files.a, "A", ta, None, None)?;
    let b = read_matrix(files.b, "B", tb, Some(a.cols), None)?;
    let (m, n, k) = (a.rows, b.cols, a.cols);
    let c = files.c.map(|p| read_matrix(p, "C", tc, Some(m), Some(n))).transpose()?;
    let scales = match (gemm.scale_columns(k as usize), files.scales) {
        (Some(cols), Some((sa, sb))) => {
            let st = mma.scale_type().expect("a block-scaled form has a scale type");
            let cols = cols as u64;
            Some((
                read_matrix(sa, "scale_A", st, Some(m), Some(cols))?,
                read_matrix(sb, "scale_B", st, Some(cols), Some(n))?,
            ))
        }
        (Some(_), None) => return Err(Error::Tile(TileError::MissingScales { instr: mma.instr().to_string() })),
        (None, Some(_)) => return Err(Error::Tile(TileError::UnexpectedScales { instr: mma.instr().to_string() })),
        (None, None) => None,
    };
    let dims = Dims { m: m as usize, n: n as usize, k: k as usize };
    let x = Matrices {
        a: &a.codes,
        b: &b.codes,
        c: c.as_ref().map(|c| &c.codes[..]),
        scales: scales.as_ref().map(|(sa, sb)| (&sa.codes[..], &sb.codes[..])),
    };
    let mut d = vec![0u64; dims.m * dims.n];
    let rows = std::sync::atomic::AtomicU64::new(0);
    let rows_done = |r: usize| {
        let done = rows.fetch_add(r as u64, std::sync::atomic::Ordering::Relaxed) + r as u64;
        progress(done * n * k, m * n * k);
    };
    gemm.run_with_progress(dims, x, &mut d, &rows_done)?;
    write_d(out, td.0, vec![m, n], &d)?;
    Ok(dims)
}
