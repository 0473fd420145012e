//! One tile `D = A·B + C` of a tensor-core instruction on a target: the datapath each form
//! takes there, and the evaluation of a tile from row-major arrays of element codes
//! (docs/tensorcore.md).
//!
//! `A` is m×k, `B` k×n, `C` and `D` m×n, all row-major, one code per element in the low bits
//! of a `u64` (an f64's whole word, a b1's bit 0). A block-scaled form takes `scale_A` m×`vec`
//! and `scale_B` `vec`×n, row-major, each scale covering k/`vec` consecutive k.

use crate::format::Format;
use crate::mma::dmma::dmma_dot;
use crate::mma::fdpa::{BlockScales, Fdpa};
use crate::mma::int::{int_dot, popc_dot, BitOp, IntMmaType};
use crate::mma::lanes::Lanes;
use crate::mma::spelling::{MmaInstr, MmaTargetError, Operation, ScaledKind, Shape};
use crate::mma::table::{row, Generation, InputKind, OutType, Row};
use crate::mma::types::MmaType;
use crate::ops::cvt::cvt;
use crate::ptx::{Evidence, Target};
use crate::round::Rounding;

/// The longest k of any form (b1 `m16n8k256`, `wgmma` b1 k = 256).
const MAX_K: usize = 256;

/// How a form computes on its target.
#[derive(Clone, Copy, Debug)]
enum Path {
    /// The fused dot product. `c_f16`: an f16 `C` with an f32 `D` enters as an f16
    /// ([`Fdpa::dot_with_c`]);
    /// `d_narrow`: an f32 `C` with an f16 `D` (`wmma`) accumulates in f32 and `D` is rounded
    /// to f16 to nearest \[UNK\].
    Fdpa {
        fdpa: Fdpa,
        a: MmaType,
        b: MmaType,
        c_f16: bool,
        d_narrow: bool,
        scale: Option<(MmaType, u32)>,
    },
    F64 {
        rnd: Rounding,
    },
    Int {
        a: IntMmaType,
        b: IntMmaType,
        satfinite: bool,
    },
    Bits {
        op: BitOp,
    },
}

/// A tensor-core instruction on one target, ready to evaluate tiles.
#[derive(Clone, Copy, Debug)]
pub struct Mma {
    instr: MmaInstr,
    target: Target,
    path: Path,
    evidence: Evidence,
    source: &'static str,
}

/// The operands of one tile (module documentation for their layout).
#[derive(Clone, Copy, Debug)]
pub struct Tile<'a> {
    pub a: &'a [u64],
    pub b: &'a [u64],
    /// `None`: `C` = +0.
    pub c: Option<&'a [u64]>,
    /// `scale_A` and `scale_B` of a block-scaled form.
    pub scales: Option<(&'a [u64], &'a [u64])>,
}

/// Why a tile cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    #[error("{instr}: {operand} has {got} elements, the instruction's {what} needs {expected}")]
    Len { instr: String, operand: &'static str, what: String, expected: usize, got: usize },
    #[error("{instr}: element {index} of {operand} is {code:#x}, not a {ty} code ({bits} bits)")]
    Code { instr: String, operand: &'static str, index: usize, code: u64, ty: &'static str, bits: u32 },
    #[error("{instr} is block-scaled: give scale_A and scale_B")]
    MissingScales { instr: String },
    #[error("{instr} takes no scales (only the .block_scale forms do)")]
    UnexpectedScales { instr: String },
}

/// The scales of one element of `D`: those of its row of A and its column of B.
struct ScaleRow {
    a: [u32; 4],
    b: [u32; 4],
    vec: usize,
}

impl ScaleRow {
    /// The `vec` scales of a row (`a(s)`) and of a column (`b(s)`).
    fn gather(vec: usize, a: impl Fn(usize) -> u64, b: impl Fn(usize) -> u64) -> ScaleRow {
        let (mut row_a, mut col_b) = ([0u32; 4], [0u32; 4]);
        for s in 0..vec {
            row_a[s] = a(s) as u32;
            col_b[s] = b(s) as u32;
        }
        ScaleRow { a: row_a, b: col_b, vec }
    }
}

/// An element type as the tile sees it: name and width of its codes.
#[derive(Clone, Copy)]
pub(crate) struct Element {
    pub(crate) name: &'static str,
    pub(crate) bits: u32,
}

/// `words` holds `expected` codes of `e` (no bits above its width): the check of every
/// operand of [`Mma::tile`] and of [`crate::mma::Gemm`].
pub(crate) fn check_codes(
    instr: &dyn Fn() -> String,
    operand: &'static str,
    what: String,
    words: &[u64],
    expected: usize,
    e: Element,
) -> Result<(), TileError> {
    if words.len() != expected {
        return Err(TileError::Len { instr: instr(), operand, what, expected, got: words.len() });
    }
    let mask = if e.bits == 64 { u64::MAX } else { (1u64 << e.bits) - 1 };
    match words.iter().position(|&w| w & !mask != 0) {
        Some(index) => {
            Err(TileError::Code { instr: instr(), operand, index, code: words[index], ty: e.name, bits: e.bits })
        }
        None => Ok(()),
    }
}

impl Mma {
    /// The instruction on `target`: refused where the target lacks it.
    pub fn new(instr: MmaInstr, target: Target) -> Result<Mma, MmaTargetError> {
        instr.check_target(target)?;
        let generation = Generation::of(target.sm()).expect("every tensor-core form needs sm_70 or newer");
        let documented = "PTX ISA §9.7.14.5.14: specified exactly";
        let (path, evidence, source) = match instr.op {
            Operation::F64 { rnd } => (Path::F64 { rnd }, Evidence::Documented, documented),
            Operation::Int { a, b, satfinite } => (Path::Int { a, b, satfinite }, Evidence::Documented, documented),
            Operation::Bits { op } => (Path::Bits { op }, Evidence::Documented, documented),
            Operation::Float { d, a, b, c, .. } => {
                let kind = match a {
                    MmaType::Tf32 => InputKind::Tf32,
                    MmaType::F16 | MmaType::Bf16 => InputKind::Half,
                    _ => InputKind::Fp8,
                };
                let (c_f16, d_narrow) =
                    (c == MmaType::F16 && d == MmaType::F32, c == MmaType::F32 && d == MmaType::F16);
                let out = if d == MmaType::F16 && !d_narrow { OutType::F16 } else { OutType::F32 };
                // sm_75 runs m8n8k4 on Volta's datapath [MODEL: MMA-Sim 2.1.1 `nv_ptx/sim.py`,
                // "fallback to Volta settings"].
                let volta_shape = generation == Generation::Turing && instr.shape == Shape { m: 8, n: 8, k: 4 };
                let generation = if volta_shape { Generation::Volta } else { generation };
                let r = row(generation, instr.family.unit(), kind, out).expect("every float form has a datapath row");
                let r = if volta_shape {
                    Row {
                        evidence: Evidence::Model,
                        source: "MMA-Sim 2.1.1: m8n8k4 on sm_75 runs Volta's datapath",
                        ..r
                    }
                } else {
                    r
                };
                let path = Path::Fdpa { fdpa: r.fdpa, a, b, c_f16, d_narrow, scale: None };
                (path, if d_narrow { Evidence::Model } else { r.evidence }, r.source)
            }
            Operation::BlockScaled { kind, a, b, scale, vec } => {
                let kind = if kind == ScaledKind::Mxf8f6f4 { InputKind::Mxf8f6f4 } else { InputKind::Mxf4 };
                let r = row(generation, instr.family.unit(), kind, OutType::F32)
                    .expect("every block-scaled form has a datapath row");
                let path = Path::Fdpa { fdpa: r.fdpa, a, b, c_f16: false, d_narrow: false, scale: Some((scale, vec)) };
                (path, r.evidence, r.source)
            }
        };
        Ok(Mma { instr, target, path, evidence, source })
    }

    pub fn instr(&self) -> &MmaInstr {
        &self.instr
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// What stands behind the bits on this target (docs/tensorcore.md).
    pub fn evidence(&self) -> Evidence {
        self.evidence
    }

    /// The source of the datapath on this target.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// The datapath's parameters, for the floating-point forms.
    pub fn fdpa(&self) -> Option<Fdpa> {
        match self.path {
            Path::Fdpa { fdpa, .. } => Some(fdpa),
            _ => None,
        }
    }

    /// The element types of A, B, C and D and of the scales (`None` where there are none).
    pub(crate) fn elements(&self) -> [Option<Element>; 5] {
        let float = |t: MmaType| Some(Element { name: t.name(), bits: t.bits() });
        let int = |t: IntMmaType| Some(Element { name: t.name(), bits: t.bits() });
        let s32 = Some(Element { name: "s32", bits: 32 });
        let f64 = Some(Element { name: "f64", bits: 64 });
        match self.instr.op {
            Operation::Float { d, a, b, c, .. } => [float(a), float(b), float(c), float(d), None],
            Operation::BlockScaled { a, b, scale, .. } => {
                [float(a), float(b), float(MmaType::F32), float(MmaType::F32), float(scale)]
            }
            Operation::F64 { .. } => [f64, f64, f64, f64, None],
            Operation::Int { a, b, .. } => [int(a), int(b), s32, s32, None],
            Operation::Bits { .. } => [int(IntMmaType::B1), int(IntMmaType::B1), s32, s32, None],
        }
    }

    /// The GEMM's lanes for this form: an unscaled fused dot product whose C and D have the
    /// row's output type ([`crate::mma::lanes`]).
    pub(crate) fn lanes(&self) -> Option<Lanes> {
        match self.path {
            Path::Fdpa { fdpa, a, b, c_f16: false, d_narrow: false, scale: None } => {
                Lanes::new(fdpa, a, b, self.instr.shape.k as usize)
            }
            _ => None,
        }
    }

    /// The NumPy-facing description of each operand: name and code width of A, B, C, D.
    pub fn operand_types(&self) -> [(&'static str, u32); 4] {
        let e = self.elements();
        [0, 1, 2, 3].map(|i| e[i].map_or(("none", 0), |e| (e.name, e.bits)))
    }

    /// The scale type of a block-scaled form, as [`Mma::operand_types`] gives the others.
    pub fn scale_type(&self) -> Option<(&'static str, u32)> {
        self.elements()[4].map(|e| (e.name, e.bits))
    }

    /// The number of scales per row of A (and column of B) of a block-scaled form.
    pub fn scale_vec(&self) -> Option<u32> {
        match self.instr.op {
            Operation::BlockScaled { vec, .. } => Some(vec),
            _ => None,
        }
    }

    /// `D = A·B + C` for one tile, written to `d` (m×n). Checks every length and every code
    /// first; writes nothing on an error. Allocation-free.
    pub fn tile(&self, t: Tile<'_>, d: &mut [u64]) -> Result<(), TileError> {
        let shape = self.instr.shape;
        let (m, n, k) = (shape.m as usize, shape.n as usize, shape.k as usize);
        let name = || self.instr.to_string();
        let [ea, eb, ec, _, es] = self.elements();
        let (ea, eb, ec) = (ea.expect("A"), eb.expect("B"), ec.expect("C"));
        let check = |operand, what: String, words: &[u64], expected: usize, e: Element| {
            check_codes(&name, operand, what, words, expected, e)
        };
        check("A", format!("m×k = {m}×{k}"), t.a, m * k, ea)?;
        check("B", format!("k×n = {k}×{n}"), t.b, k * n, eb)?;
        if let Some(c) = t.c {
            check("C", format!("m×n = {m}×{n}"), c, m * n, ec)?;
        }
        if d.len() != m * n {
            return Err(TileError::Len {
                instr: name(),
                operand: "D",
                what: format!("m×n = {m}×{n}"),
                expected: m * n,
                got: d.len(),
            });
        }
        let vec = self.scale_vec().map(|v| v as usize);
        match (vec, t.scales) {
            (Some(v), Some((sa, sb))) => {
                let es = es.expect("scale type");
                check("scale_A", format!("m×vec = {m}×{v}"), sa, m * v, es)?;
                check("scale_B", format!("vec×n = {v}×{n}"), sb, v * n, es)?;
            }
            (Some(_), None) => return Err(TileError::MissingScales { instr: name() }),
            (None, Some(_)) => return Err(TileError::UnexpectedScales { instr: name() }),
            (None, None) => {}
        }
        let c_of = |i: usize| t.c.map_or(0, |c| c[i]);
        let mut col = [0u64; MAX_K];
        for j in 0..n {
            for (kk, x) in col[..k].iter_mut().enumerate() {
                *x = t.b[kk * n + j];
            }
            for i in 0..m {
                let a_row = &t.a[i * k..(i + 1) * k];
                let scales =
                    vec.zip(t.scales).map(|(v, (sa, sb))| ScaleRow::gather(v, |s| sa[i * v + s], |s| sb[s * n + j]));
                d[i * n + j] = self.dot_codes(a_row, &col[..k], c_of(i * n + j), scales);
            }
        }
        Ok(())
    }

    /// One element of `D` alone: row `a` of A and column `b` of B (k codes each), `c`, and for
    /// a block-scaled form the scales of the row and of the column (`vec` each). The codes are
    /// not checked ([`Mma::tile`] checks them); the error analysis evaluates single elements.
    ///
    /// # Panics
    /// If `a` and `b` are not k long, or a block-scaled form gets no scales.
    pub fn dot(&self, a: &[u64], b: &[u64], c: u64, scales: Option<(&[u64], &[u64])>) -> u64 {
        let k = self.instr.shape.k as usize;
        assert!(a.len() == k && b.len() == k, "a dot product of {} takes k = {k} codes of A and of B", self.instr);
        let scales = self.scale_vec().map(|v| {
            let (sa, sb) = scales.expect("a block-scaled form takes scales");
            ScaleRow::gather(v as usize, |s| sa[s], |s| sb[s])
        });
        self.dot_codes(a, b, c, scales)
    }

    /// One element of `D`: the dot product of a row of A and a column of B with its `c`.
    fn dot_codes(&self, a: &[u64], b: &[u64], c: u64, scales: Option<ScaleRow>) -> u64 {
        let narrow = |words: &[u64], buf: &mut [u32; MAX_K]| {
            for (x, &w) in buf.iter_mut().zip(words) {
                *x = w as u32;
            }
        };
        let (mut ba, mut bb) = ([0u32; MAX_K], [0u32; MAX_K]);
        let k = a.len();
        match self.path {
            Path::F64 { rnd } => dmma_dot(a, b, c, rnd),
            Path::Int { a: ta, b: tb, satfinite } => {
                narrow(a, &mut ba);
                narrow(b, &mut bb);
                u64::from(int_dot(ta, &ba[..k], tb, &bb[..k], c as u32, satfinite))
            }
            Path::Bits { op } => {
                narrow(a, &mut ba);
                narrow(b, &mut bb);
                u64::from(popc_dot(op, &ba[..k], &bb[..k], c as u32))
            }
            Path::Fdpa { fdpa, a: ta, b: tb, c_f16, d_narrow, scale } => {
                narrow(a, &mut ba);
                narrow(b, &mut bb);
                let tc = if c_f16 { MmaType::F16 } else { fdpa.rho.output() };
                let block_scales = match (scale, &scales) {
                    (Some((ty, _)), Some(s)) => {
                        Some(BlockScales { ty, a: &s.a[..s.vec], b: &s.b[..s.vec], block: k / s.vec })
                    }
                    _ => None,
                };
                let d = fdpa.dot_with_c(ta, &ba[..k], tb, &bb[..k], tc, c as u32, block_scales);
                if d_narrow {
                    narrow_to_f16(d)
                } else {
                    u64::from(d)
                }
            }
        }
    }
}

/// An f32 accumulator written as an f16 `D`: to nearest, the tensor cores' f16 NaN for a NaN.
fn narrow_to_f16(d: u32) -> u64 {
    if Format::F32.is_nan(u64::from(d)) {
        0x7FFF
    } else {
        cvt(Format::F32, Format::F16, u64::from(d), Rounding::Rn, false)
    }
}
