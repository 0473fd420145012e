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

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::npy::npy_header_shaped;
use super::{data_error, write_atomically, Container, DataError, Dtype, Error, Reader, Shape};
use crate::mma::{Mma, Tile};

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
    let mut reader = Reader::open(path, container(bits))?;
    let accepted = accepted(ty, bits);
    if let Some(dtype) = reader.dtype() {
        if !accepted.contains(&dtype) {
            return Err(data_error(path, DataError::MmaDtype { operand: name, dtype, ty, accepted }));
        }
    }
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
    Ok(Operand { path: path.to_path_buf(), codes, lead, tiles })
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
        (Some(_), None) => {
            return Err(Error::Tile(crate::mma::TileError::MissingScales { instr: mma.instr().to_string() }))
        }
        (None, Some(_)) => {
            return Err(Error::Tile(crate::mma::TileError::UnexpectedScales { instr: mma.instr().to_string() }))
        }
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
    let out_dtype = match td {
        ("f16", _) => Dtype::Float16,
        ("f32", _) => Dtype::Float32,
        ("f64", _) => Dtype::Float64,
        _ => Dtype::Int32,
    };
    let width = (out_dtype.bits() / 8) as usize;
    let mut bytes = match Container::of(out) {
        Container::Npy => {
            let mut dims = a.lead.clone().unwrap_or_else(|| vec![a.tiles]);
            dims.extend([m, n]);
            npy_header_shaped(out_dtype, &Shape(dims))
        }
        Container::Raw => Vec::new(),
    };
    bytes.reserve(d.len() * width);
    for w in &d {
        bytes.extend_from_slice(&w.to_le_bytes()[..width]);
    }
    write_atomically(out, &bytes)?;
    Ok(a.tiles)
}
