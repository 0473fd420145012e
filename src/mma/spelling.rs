//! The spellings of the tensor-core instructions: `mma.sync.aligned`, `wmma.mma.sync.aligned`,
//! `wgmma.mma_async.sync.aligned` and `tcgen05.mma`, parsed and checked against the legal forms
//! of PTX ISA 9.0 (§9.7.14.5.14 `mma`, §9.7.14.4.5 `wmma.mma`, §9.7.15.5.2 `wgmma.mma_async`,
//! §9.7.16.10.9 `tcgen05.mma`), each with the targets PTX states for it (docs/tensorcore.md).
//!
//! `tcgen05.mma` keeps its shape and types in the instruction descriptor, a register; ptxfp's
//! spelling appends them as qualifiers, `.mMnNkK.dtype.atype.btype` (and the scale type of a
//! block-scaled kind), as `wgmma` writes them.
//!
//! Where the PTX text is ambiguous, ptxfp takes the stricter reading and says so at the form
//! ([`Form::note`]). The order of the qualifiers is not checked: the PTX text's own syntax
//! lines and examples order them differently (`wmma`'s shape and layouts, `wgmma`'s
//! `.satfinite`).

use std::fmt;
use std::sync::OnceLock;

use crate::mma::int::{BitOp, IntMmaType};
use crate::mma::table::Unit;
use crate::mma::types::MmaType;
use crate::ptx::{Requirement, Target, Targets};
use crate::quote::Quoted;
use crate::round::Rounding;

/// The instruction family, by its mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Mma,
    Wmma,
    Wgmma,
    Tcgen05,
}

impl Family {
    pub const ALL: [Family; 4] = [Family::Mma, Family::Wmma, Family::Wgmma, Family::Tcgen05];

    /// The mnemonic with the qualifiers every form of the family carries.
    pub const fn prefix(self) -> &'static str {
        match self {
            Family::Mma => "mma.sync.aligned",
            Family::Wmma => "wmma.mma.sync.aligned",
            Family::Wgmma => "wgmma.mma_async.sync.aligned",
            Family::Tcgen05 => "tcgen05.mma",
        }
    }

    /// The datapath family of the parameter table: `wmma` lowers to `mma` (docs/tensorcore.md).
    pub const fn unit(self) -> Unit {
        match self {
            Family::Mma | Family::Wmma => Unit::Mma,
            Family::Wgmma => Unit::Wgmma,
            Family::Tcgen05 => Unit::Tcgen05,
        }
    }

    /// The qualifiers a spelling of the family may carry after its prefix.
    const fn qualifiers(self) -> &'static str {
        match self {
            Family::Mma => {
                ".mMnNkK, .row/.col, .kind::f8f6f4/mxf8f6f4/mxf4/mxf4nvf4, .block_scale, .scale_vec::1X/2X/4X, \
                 .satfinite, .rn/.rz/.rm/.rp (f64), .xor/.and .popc (b1) and the types"
            }
            Family::Wmma => {
                ".xor/.and .popc (b1, before .sync), .row/.col, .mMnNkK, .rn/.rz/.rm/.rp (f64), the types, \
                 .satfinite"
            }
            Family::Wgmma => ".m64nNkK, .satfinite, the types .dtype.atype.btype, .and.popc (b1)",
            Family::Tcgen05 => {
                ".cta_group::1/2, .kind::f16/tf32/f8f6f4/i8/mxf8f6f4/mxf4/mxf4nvf4, .block_scale, \
                 .scale_vec::1X/2X/4X (or .block16/.block32), .mMnNkK, .satfinite (i8), the types \
                 .dtype.atype.btype{.stype}"
            }
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix())
    }
}

/// The layout of `A` or `B` in `mma.sync` and `wmma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    Row,
    Col,
}

impl Layout {
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Row => "row",
            Layout::Col => "col",
        }
    }
}

/// The block-scaled kinds (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaledKind {
    Mxf8f6f4,
    Mxf4,
    Mxf4nvf4,
}

impl ScaledKind {
    pub const fn name(self) -> &'static str {
        match self {
            ScaledKind::Mxf8f6f4 => "mxf8f6f4",
            ScaledKind::Mxf4 => "mxf4",
            ScaledKind::Mxf4nvf4 => "mxf4nvf4",
        }
    }

    /// The `.scale_vec` of a spelling that leaves it out; `mxf4nvf4` must spell it.
    const fn default_vec(self) -> Option<u32> {
        match self {
            ScaledKind::Mxf8f6f4 => Some(1),
            ScaledKind::Mxf4 => Some(2),
            ScaledKind::Mxf4nvf4 => None,
        }
    }
}

/// What an instruction computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `D = A·B + C` on floating-point types through the fused dot product
    /// ([`crate::mma::Fdpa`]). `kind_f8f6f4` records `mma`'s `.kind::f8f6f4`.
    Float { d: MmaType, a: MmaType, b: MmaType, c: MmaType, kind_f8f6f4: bool },
    /// `D = (A·scale_A)·(B·scale_B) + C` with `vec` scales per row of `A` (and column of `B`)
    /// of the instruction's K.
    BlockScaled { kind: ScaledKind, a: MmaType, b: MmaType, scale: MmaType, vec: u32 },
    /// f64: a chain of `fma.rnd.f64` ([`crate::mma::dmma_dot`]).
    F64 { rnd: Rounding },
    /// s8/u8/s4/u4 with an s32 accumulator ([`crate::mma::int_dot`]).
    Int { a: IntMmaType, b: IntMmaType, satfinite: bool },
    /// b1 with `.xor.popc` or `.and.popc` ([`crate::mma::popc_dot`]).
    Bits { op: BitOp },
}

/// The m×n×k of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m{}n{}k{}", self.m, self.n, self.k)
    }
}

/// One tensor-core instruction as spelled: parse it with [`MmaInstr::parse`], print its
/// canonical spelling with `Display`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaInstr {
    pub family: Family,
    pub shape: Shape,
    pub op: Operation,
    /// The layouts of `A` and `B` (`mma.sync`, `wmma`); `wgmma` and `tcgen05` take transposes
    /// from operands and descriptors, which move data only.
    pub layout: Option<(Layout, Layout)>,
    /// `tcgen05`'s `.cta_group::1` or `::2` (0 for the other families). Two CTAs share one
    /// instruction; each element is computed as with one.
    pub cta_group: u8,
}

impl MmaInstr {
    /// The element types of `A` and `B` and of `C` and `D`, by name (`s32` for the integer
    /// forms, `f64` for DMMA).
    pub fn type_names(&self) -> [&'static str; 4] {
        match self.op {
            Operation::Float { d, a, b, c, .. } => [d.name(), a.name(), b.name(), c.name()],
            Operation::BlockScaled { a, b, .. } => ["f32", a.name(), b.name(), "f32"],
            Operation::F64 { .. } => ["f64"; 4],
            Operation::Int { a, b, .. } => ["s32", a.name(), b.name(), "s32"],
            Operation::Bits { .. } => ["s32", "b1", "b1", "s32"],
        }
    }

    /// The types as the family writes them: `.dtype.atype.btype.ctype` (`mma`, `wmma`; the
    /// f16 `wmma` form writes `.dtype.ctype`), `.dtype.atype.btype` (`wgmma`, `tcgen05`), with
    /// the scale type last for a block-scaled form.
    fn type_suffix(&self) -> String {
        let [d, a, b, c] = self.type_names();
        let mut s = match self.family {
            Family::Wmma if a == "f16" => format!(".{d}.{c}"),
            Family::Mma | Family::Wmma => format!(".{d}.{a}.{b}.{c}"),
            Family::Wgmma | Family::Tcgen05 => format!(".{d}.{a}.{b}"),
        };
        if let Operation::BlockScaled { scale, .. } = self.op {
            s += ".";
            s += scale.name();
        }
        s
    }

    /// The tcgen05 `.kind::…` of the operation.
    fn tcgen05_kind(&self) -> &'static str {
        match self.op {
            Operation::Float { a: MmaType::Tf32, .. } => "tf32",
            Operation::Float { a: MmaType::F16 | MmaType::Bf16, .. } => "f16",
            Operation::Float { .. } => "f8f6f4",
            Operation::BlockScaled { kind, .. } => kind.name(),
            Operation::Int { .. } => "i8",
            Operation::F64 { .. } | Operation::Bits { .. } => "none",
        }
    }
}

impl fmt::Display for MmaInstr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.shape;
        let layouts = match self.layout {
            Some((a, b)) => format!(".{}.{}", a.name(), b.name()),
            None => String::new(),
        };
        let types = self.type_suffix();
        let rnd = match self.op {
            Operation::F64 { rnd } if rnd != Rounding::Rn => format!(".{}", rnd.name()),
            _ => String::new(),
        };
        let sat = if matches!(self.op, Operation::Int { satfinite: true, .. }) { ".satfinite" } else { "" };
        let popc = match self.op {
            Operation::Bits { op } => format!(".{}.popc", op.name()),
            _ => String::new(),
        };
        let scaled = match self.op {
            Operation::BlockScaled { kind, vec, .. } if self.family == Family::Mma => {
                format!(".kind::{}.block_scale.scale_vec::{vec}X", kind.name())
            }
            Operation::BlockScaled { vec, .. } => format!(".block_scale.scale_vec::{vec}X"),
            Operation::Float { kind_f8f6f4: true, .. } => ".kind::f8f6f4".to_string(),
            _ => String::new(),
        };
        match self.family {
            Family::Mma => write!(f, "mma.sync.aligned.{shape}{layouts}{scaled}{sat}{types}{popc}{rnd}"),
            Family::Wmma => write!(f, "wmma.mma{popc}.sync.aligned{layouts}.{shape}{rnd}{types}{sat}"),
            Family::Wgmma => write!(f, "wgmma.mma_async.sync.aligned.{shape}{sat}{types}{popc}"),
            Family::Tcgen05 => write!(
                f,
                "tcgen05.mma.cta_group::{}.kind::{}{scaled}.{shape}{sat}{types}",
                self.cta_group,
                self.tcgen05_kind()
            ),
        }
    }
}

/// A set of `M` or `N` values, written `8..256/8` (from 8 to 256 in steps of 8) or `64,128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dims {
    /// `lo, lo + step, …, hi`.
    Step {
        lo: u32,
        hi: u32,
        step: u32,
    },
    List(&'static [u32]),
}

impl Dims {
    const fn one(v: u32) -> Dims {
        Dims::Step { lo: v, hi: v, step: 1 }
    }

    pub fn contains(self, v: u32) -> bool {
        match self {
            Dims::Step { lo, hi, step } => (lo..=hi).contains(&v) && (v - lo).is_multiple_of(step),
            Dims::List(l) => l.contains(&v),
        }
    }

    /// The single value, if the set has one.
    fn single(self) -> Option<u32> {
        match self {
            Dims::Step { lo, hi, .. } if lo == hi => Some(lo),
            Dims::List([v]) => Some(*v),
            _ => None,
        }
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Dims::Step { lo, hi, .. } if lo == hi => write!(f, "{lo}"),
            Dims::Step { lo, hi, step } => write!(f, "{lo}..{hi}/{step}"),
            Dims::List(l) => {
                let l: Vec<String> = l.iter().map(u32::to_string).collect();
                f.write_str(&l.join(","))
            }
        }
    }
}

/// One legal form: an instruction whose `M` and `N` range over sets, with the targets that
/// have it and a note where the PTX text leaves something open.
#[derive(Clone, Debug)]
pub struct Form {
    /// The instruction, with `shape.m` and `shape.n` the least of [`Form::ms`] and [`Form::ns`].
    pub instr: MmaInstr,
    pub ms: Dims,
    pub ns: Dims,
    pub targets: Targets,
    /// The PTX reading behind the form where its text is ambiguous.
    pub note: Option<&'static str>,
}

impl Form {
    fn admits(&self, i: &MmaInstr) -> bool {
        let shape_free = |x: &MmaInstr| MmaInstr { shape: Shape { m: 0, n: 0, ..x.shape }, ..*x };
        self.ms.contains(i.shape.m) && self.ns.contains(i.shape.n) && shape_free(&self.instr) == shape_free(i)
    }

    fn fits_shape(&self, family: Family, s: Shape) -> bool {
        self.instr.family == family && self.ms.contains(s.m) && self.ns.contains(s.n) && self.instr.shape.k == s.k
    }

    /// The spelling with `M` and `N` written as `M` and `N` where they range over a set
    /// (`wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16`).
    pub fn pattern(&self) -> String {
        let s = self.instr.to_string();
        let shape = self.instr.shape.to_string();
        let m = self.ms.single().map_or("M".to_string(), |m| m.to_string());
        let n = self.ns.single().map_or("N".to_string(), |n| n.to_string());
        s.replacen(&shape, &format!("m{m}n{n}k{}", self.instr.shape.k), 1)
    }

    /// The sets of M and N where they are sets, without spaces: `N=8..256/8` (every eighth
    /// from 8 to 256), `M=64,128;N=16..256/16`; empty for one shape.
    pub fn sets(&self) -> String {
        let mut sets = Vec::new();
        if self.ms.single().is_none() {
            sets.push(format!("M={}", self.ms));
        }
        if self.ns.single().is_none() {
            sets.push(format!("N={}", self.ns));
        }
        sets.join(";")
    }

    /// The shape pattern with its sets: `m64nNk16 (N=8..256/8)`.
    fn shape_pattern(&self) -> String {
        let m = self.ms.single().map_or("M".to_string(), |m| m.to_string());
        let n = self.ns.single().map_or("N".to_string(), |n| n.to_string());
        let s = format!("m{m}n{n}k{}", self.instr.shape.k);
        match self.sets() {
            sets if sets.is_empty() => s,
            sets => format!("{s} ({sets})"),
        }
    }
}

/// Why a spelling is not a tensor-core instruction ptxfp evaluates.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MmaParseError {
    #[error(
        "{} is not a tensor-core instruction; they begin mma.sync.aligned, wmma.mma.sync.aligned, \
         wgmma.mma_async.sync.aligned or tcgen05.mma",
        Quoted(.spelling)
    )]
    NotTensorCore { spelling: String },
    #[error("{}: {what} is not evaluated (ptxfp evaluates the dense forms)", Quoted(.spelling))]
    Unsupported { spelling: String, what: &'static str },
    #[error("{}: {family} forms begin with {family}", Quoted(.spelling))]
    Prefix { spelling: String, family: Family },
    #[error("{}: unknown qualifier .{qualifier}; {family} takes {}", Quoted(.spelling), .family.qualifiers())]
    UnknownQualifier { spelling: String, qualifier: String, family: Family },
    #[error("{}: .{qualifier} {why}", Quoted(.spelling))]
    Misplaced { spelling: String, qualifier: String, why: &'static str },
    #[error("{}: no shape; {family} shapes: {legal}", Quoted(.spelling))]
    NoShape { spelling: String, family: Family, legal: String },
    #[error("{}: {family} has no shape {shape}; legal: {legal}", Quoted(.spelling))]
    Shape { spelling: String, family: Family, shape: Shape, legal: String },
    #[error("{}: {family} writes its types as {expected}", Quoted(.spelling))]
    TypeCount { spelling: String, family: Family, expected: &'static str },
    #[error("{}: {family}.{shape} does not take the types {types}; it takes {legal}", Quoted(.spelling))]
    Types { spelling: String, family: Family, shape: Shape, types: String, legal: String },
    #[error("{}: not a legal form; with these types and shape the legal spellings are {legal}", Quoted(.spelling))]
    Qualifiers { spelling: String, legal: String },
}

/// Why a target does not have a tensor-core instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{instr} requires {required}; the target is {target}")]
pub struct MmaTargetError {
    pub instr: MmaInstr,
    pub required: Requirement,
    pub target: Target,
}

/// A spelled block-scale vector size.
#[derive(Clone, Copy)]
enum VecSpec {
    /// `.scale_vec::NX` (tcgen05's `.block16` is 4X).
    X(u32),
    /// tcgen05's `.block32`: 1X for mxf8f6f4, 2X for the FP4 kinds (PTX ISA §9.7.16.10.9).
    Block32,
}

/// The loose reading of a spelling, before it is checked against the forms.
#[derive(Default)]
struct Loose<'s> {
    shape: Option<Shape>,
    layouts: Vec<Layout>,
    types: Vec<&'s str>,
    satfinite: bool,
    rnd: Option<Rounding>,
    bit_op: Option<BitOp>,
    popc: bool,
    kind: Option<&'s str>,
    block_scale: bool,
    /// `.scale_vec::NX` as N, or tcgen05's `.block32`, whose N depends on the kind.
    vec: Option<VecSpec>,
    cta_group: Option<u8>,
}

const TYPE_NAMES: [&str; 18] = [
    "f16", "bf16", "tf32", "f32", "f64", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3", "s8", "u8", "s4",
    "u4", "b1", "s32",
];

fn parse_shape(q: &str) -> Option<Shape> {
    let rest = q.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    let num = |s: &str| (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten();
    Some(Shape { m: num(m)?, n: num(n)?, k: num(k)? })
}

fn mma_type(name: &str) -> Option<MmaType> {
    MmaType::ALL.into_iter().find(|t| t.name() == name)
}

fn int_type(name: &str) -> Option<IntMmaType> {
    IntMmaType::ALL.into_iter().find(|t| t.name() == name)
}

impl MmaInstr {
    /// Parse and check a spelling: the error names what is wrong and the legal alternatives.
    pub fn parse(spelling: &str) -> Result<MmaInstr, MmaParseError> {
        let s = spelling.trim();
        let err_s = || s.to_string();
        let tokens: Vec<&str> = s.split('.').collect();
        let (family, rest) = split_prefix(s, &tokens)?;
        let mut loose = Loose::default();
        for &q in rest {
            let unknown = || MmaParseError::UnknownQualifier { spelling: err_s(), qualifier: q.to_string(), family };
            if let Some(shape) = parse_shape(q) {
                if loose.shape.replace(shape).is_some() {
                    return Err(MmaParseError::Misplaced {
                        spelling: err_s(),
                        qualifier: q.into(),
                        why: "repeats the shape",
                    });
                }
                continue;
            }
            match q {
                "row" => loose.layouts.push(Layout::Row),
                "col" => loose.layouts.push(Layout::Col),
                "satfinite" => loose.satfinite = true,
                "rn" | "rz" | "rm" | "rp" => {
                    loose.rnd = Rounding::ALL.into_iter().find(|r| r.name() == q);
                }
                "xor" if family != Family::Wmma => loose.bit_op = Some(BitOp::Xor),
                "and" if family != Family::Wmma => loose.bit_op = Some(BitOp::And),
                "popc" if family != Family::Wmma => loose.popc = true,
                "block_scale" => loose.block_scale = true,
                "block16" if family == Family::Tcgen05 => loose.vec = Some(VecSpec::X(4)),
                "block32" if family == Family::Tcgen05 => loose.vec = Some(VecSpec::Block32),
                "sp" | "sp::ordered_metadata" | "ws" => {
                    let what = if q == "ws" { "tcgen05.mma.ws" } else { "sparse mma (.sp)" };
                    return Err(MmaParseError::Unsupported { spelling: err_s(), what });
                }
                _ if TYPE_NAMES.contains(&q) => loose.types.push(q),
                _ => {
                    if let Some(kind) = q.strip_prefix("kind::") {
                        loose.kind = Some(kind);
                    } else if let Some(v) = q.strip_prefix("scale_vec::") {
                        loose.vec = Some(VecSpec::X(match v {
                            "1X" => 1,
                            "2X" => 2,
                            "4X" => 4,
                            _ => return Err(unknown()),
                        }));
                    } else if let Some(g) = q.strip_prefix("cta_group::").filter(|_| family == Family::Tcgen05) {
                        loose.cta_group = Some(match g {
                            "1" => 1,
                            "2" => 2,
                            _ => return Err(unknown()),
                        });
                    } else {
                        return Err(unknown());
                    }
                }
            }
        }
        if family == Family::Wmma {
            // wmma writes `.op.popc` before `.sync`: split_prefix has read it.
            loose.bit_op = wmma_bit_op(&tokens);
            loose.popc = loose.bit_op.is_some();
        }
        let instr = loose.build(s, family)?;
        lookup(s, &instr)?;
        Ok(instr)
    }

    /// The legal form of this instruction.
    pub fn form(&self) -> &'static Form {
        forms().iter().find(|f| f.admits(self)).expect("a parsed MmaInstr is one of the forms")
    }

    /// Whether `target` has the instruction.
    pub fn check_target(&self, target: Target) -> Result<(), MmaTargetError> {
        let targets = self.form().targets;
        if targets.contains(target) {
            Ok(())
        } else {
            Err(MmaTargetError { instr: *self, required: targets.requirement(), target })
        }
    }
}

/// The family of a spelling and the qualifiers after its fixed prefix.
fn split_prefix<'t, 's>(s: &str, tokens: &'t [&'s str]) -> Result<(Family, &'t [&'s str]), MmaParseError> {
    let family = match tokens.first().copied() {
        Some("mma") => Family::Mma,
        Some("wmma") => Family::Wmma,
        Some("wgmma") => Family::Wgmma,
        Some("tcgen05") => Family::Tcgen05,
        _ => return Err(MmaParseError::NotTensorCore { spelling: s.to_string() }),
    };
    let fixed: &[&str] = match family {
        Family::Mma => &["mma", "sync", "aligned"],
        Family::Wmma => &["wmma", "mma"],
        Family::Wgmma => &["wgmma", "mma_async", "sync", "aligned"],
        Family::Tcgen05 => &["tcgen05", "mma"],
    };
    if tokens.get(1).is_some_and(|t| t.starts_with("sp")) && family == Family::Mma {
        return Err(MmaParseError::Unsupported { spelling: s.to_string(), what: "sparse mma (.sp)" });
    }
    if tokens.len() < fixed.len() || tokens[..fixed.len()] != *fixed {
        return Err(MmaParseError::Prefix { spelling: s.to_string(), family });
    }
    let mut rest = &tokens[fixed.len()..];
    if family == Family::Wmma {
        // `wmma.mma{.op.popc}.sync.aligned`.
        if matches!(rest.first(), Some(&"xor" | &"and")) {
            if rest.get(1) != Some(&"popc") {
                return Err(MmaParseError::Prefix { spelling: s.to_string(), family });
            }
            rest = &rest[2..];
        }
        if rest.len() < 2 || rest[..2] != ["sync", "aligned"] {
            return Err(MmaParseError::Prefix { spelling: s.to_string(), family });
        }
        rest = &rest[2..];
    }
    Ok((family, rest))
}

fn wmma_bit_op(tokens: &[&str]) -> Option<BitOp> {
    match tokens.get(2).copied() {
        Some("xor") => Some(BitOp::Xor),
        Some("and") => Some(BitOp::And),
        _ => None,
    }
}

impl Loose<'_> {
    /// The instruction the qualifiers describe, before the check against the forms.
    fn build(&self, s: &str, family: Family) -> Result<MmaInstr, MmaParseError> {
        let err_s = || s.to_string();
        let misplaced = |q: &str, why| MmaParseError::Misplaced { spelling: err_s(), qualifier: q.to_string(), why };
        let Some(shape) = self.shape else {
            let legal = shapes_of(family, |_| true);
            return Err(MmaParseError::NoShape { spelling: err_s(), family, legal });
        };
        if !forms().iter().any(|f| f.fits_shape(family, shape)) {
            return Err(MmaParseError::Shape { spelling: err_s(), family, shape, legal: shapes_of(family, |_| true) });
        }
        let layout = match self.layouts[..] {
            [] => None,
            [a, b] if matches!(family, Family::Mma | Family::Wmma) => Some((a, b)),
            _ => return Err(misplaced("row/.col", "takes one layout for A and one for B (mma.sync and wmma only)")),
        };
        let cta_group = match (family, self.cta_group) {
            (Family::Tcgen05, Some(g)) => g,
            (Family::Tcgen05, None) => return Err(misplaced("cta_group::1/2", "is required by tcgen05.mma")),
            _ => 0,
        };
        let expected = match family {
            Family::Mma => ".dtype.atype.btype.ctype (block-scaled: and .stype)",
            Family::Wmma => ".dtype.atype.btype.ctype (f16: .dtype.ctype)",
            Family::Wgmma => ".dtype.atype.btype",
            Family::Tcgen05 => ".dtype.atype.btype (block-scaled: and .stype)",
        };
        let count_err = || MmaParseError::TypeCount { spelling: err_s(), family, expected };
        let types = &self.types;
        let (d, a, b, c, stype) = match (family, &types[..]) {
            (Family::Wmma, &[d, c]) => (d, "f16", "f16", c, None),
            (Family::Mma | Family::Wmma, &[d, a, b, c]) => (d, a, b, c, None),
            (Family::Mma, &[d, a, b, c, st]) => (d, a, b, c, Some(st)),
            (Family::Wgmma | Family::Tcgen05, &[d, a, b]) => (d, a, b, d, None),
            (Family::Tcgen05, &[d, a, b, st]) => (d, a, b, d, Some(st)),
            _ => return Err(count_err()),
        };
        let types_err = || {
            let sig = format!(".{}", types.join("."));
            let legal = type_sigs(family, shape);
            MmaParseError::Types { spelling: err_s(), family, shape, types: sig, legal }
        };
        let tc_kind = match (family, self.kind) {
            (Family::Tcgen05, Some(k)) => Some(k),
            (Family::Tcgen05, None) => return Err(misplaced("kind::…", "is required by tcgen05.mma")),
            (Family::Mma, k) => k,
            (_, Some(k)) => return Err(misplaced(&format!("kind::{k}"), "exists on mma.sync and tcgen05.mma only")),
            (_, None) => None,
        };
        if self.rnd.is_some() && a != "f64" {
            return Err(misplaced(self.rnd.map_or("", Rounding::name), "applies to the f64 forms only"));
        }
        if self.satfinite && int_type(a).is_none_or(|t| t == IntMmaType::B1) {
            return Err(misplaced("satfinite", "applies to the s8/u8/s4/u4 forms only"));
        }
        if (self.bit_op.is_some() || self.popc) && a != "b1" {
            return Err(misplaced("popc", "applies to the b1 forms only"));
        }
        if (self.block_scale || self.vec.is_some()) && stype.is_none() {
            return Err(misplaced("block_scale", "needs the scale type after the types (.ue8m0 or .ue4m3)"));
        }
        let op = if a == "f64" || b == "f64" {
            if [d, a, b, c] != ["f64"; 4] {
                return Err(types_err());
            }
            Operation::F64 { rnd: self.rnd.unwrap_or(Rounding::Rn) }
        } else if a == "b1" || b == "b1" {
            let Some(op) = self.bit_op.filter(|_| self.popc) else {
                return Err(misplaced("b1", "forms need .xor.popc or .and.popc"));
            };
            if [d, a, b, c] != ["s32", "b1", "b1", "s32"] {
                return Err(types_err());
            }
            Operation::Bits { op }
        } else if let (Some(ta), Some(tb)) = (int_type(a), int_type(b)) {
            if d != "s32" || c != "s32" {
                return Err(types_err());
            }
            if family == Family::Tcgen05 && tc_kind != Some("i8") {
                return Err(misplaced(
                    &format!("kind::{}", tc_kind.unwrap_or("")),
                    "does not take integer types; kind::i8 does",
                ));
            }
            Operation::Int { a: ta, b: tb, satfinite: self.satfinite }
        } else {
            let (Some(td), Some(ta), Some(tb), Some(tc)) = (mma_type(d), mma_type(a), mma_type(b), mma_type(c)) else {
                return Err(types_err());
            };
            let scaled = match tc_kind {
                Some("mxf8f6f4") => Some(ScaledKind::Mxf8f6f4),
                Some("mxf4") => Some(ScaledKind::Mxf4),
                Some("mxf4nvf4") => Some(ScaledKind::Mxf4nvf4),
                Some("f8f6f4" | "f16" | "tf32" | "i8") | None => None,
                Some(k) => {
                    return Err(MmaParseError::UnknownQualifier {
                        spelling: err_s(),
                        qualifier: format!("kind::{k}"),
                        family,
                    })
                }
            };
            match (scaled, stype) {
                (Some(kind), Some(st)) => {
                    if !self.block_scale {
                        return Err(misplaced(&format!("kind::{}", kind.name()), "needs .block_scale"));
                    }
                    let scale = mma_type(st).filter(|t| matches!(t, MmaType::Ue8m0 | MmaType::Ue4m3));
                    let Some(scale) = scale else { return Err(types_err()) };
                    let vec = match self.vec {
                        Some(VecSpec::Block32) => kind.default_vec().unwrap_or(2),
                        Some(VecSpec::X(v)) => v,
                        None => match kind.default_vec() {
                            Some(v) => v,
                            None => return Err(misplaced("kind::mxf4nvf4", "must spell its .scale_vec::2X or ::4X")),
                        },
                    };
                    if td != MmaType::F32 || tc != MmaType::F32 {
                        return Err(types_err());
                    }
                    Operation::BlockScaled { kind, a: ta, b: tb, scale, vec }
                }
                (None, None) => {
                    if self.block_scale {
                        return Err(misplaced("block_scale", "needs .kind::mxf8f6f4, ::mxf4 or ::mxf4nvf4"));
                    }
                    let expected_kind = match ta {
                        MmaType::Tf32 => "tf32",
                        MmaType::F16 | MmaType::Bf16 => "f16",
                        _ => "f8f6f4",
                    };
                    if family == Family::Tcgen05 && tc_kind != Some(expected_kind) {
                        return Err(misplaced(
                            &format!("kind::{}", tc_kind.unwrap_or("")),
                            "does not match the types (kind::f16 takes f16/bf16, kind::tf32 tf32, kind::f8f6f4 the FP8/FP6/FP4 types, kind::i8 s8/u8)",
                        ));
                    }
                    if family == Family::Mma && tc_kind.is_some_and(|k| k != "f8f6f4") {
                        return Err(misplaced(
                            &format!("kind::{}", tc_kind.unwrap_or("")),
                            "is not a kind of mma.sync without block scaling; kind::f8f6f4 is",
                        ));
                    }
                    let kind_f8f6f4 = family == Family::Mma && tc_kind == Some("f8f6f4");
                    Operation::Float { d: td, a: ta, b: tb, c: tc, kind_f8f6f4 }
                }
                (None, Some(_)) => return Err(misplaced("kind", "a scale type needs a block-scaled kind")),
                (Some(kind), None) => {
                    return Err(misplaced(
                        &format!("kind::{}", kind.name()),
                        "needs .block_scale and the scale type (.ue8m0 or .ue4m3)",
                    ))
                }
            }
        };
        let instr = MmaInstr { family, shape, op, layout, cta_group };
        if !forms().iter().any(|f| f.fits_shape(family, shape) && f.instr.type_suffix() == instr.type_suffix()) {
            return Err(types_err());
        }
        Ok(instr)
    }
}

/// The check against the forms, after [`Loose::build`] has matched shape and types.
fn lookup(s: &str, instr: &MmaInstr) -> Result<(), MmaParseError> {
    if forms().iter().any(|f| f.admits(instr)) {
        return Ok(());
    }
    let same: Vec<String> = forms()
        .iter()
        .filter(|f| f.fits_shape(instr.family, instr.shape) && f.instr.type_suffix() == instr.type_suffix())
        .map(|f| MmaInstr { shape: instr.shape, ..f.instr }.to_string())
        .collect();
    Err(MmaParseError::Qualifiers { spelling: s.to_string(), legal: same.join(", ") })
}

/// The shapes of a family's forms, as patterns with their sets, each once.
fn shapes_of(family: Family, keep: impl Fn(&Form) -> bool) -> String {
    let mut out: Vec<String> = Vec::new();
    for f in forms().iter().filter(|f| f.instr.family == family && keep(f)) {
        let p = f.shape_pattern();
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out.join(", ")
}

/// The type suffixes a family takes with a shape, each once.
fn type_sigs(family: Family, shape: Shape) -> String {
    let mut out: Vec<String> = Vec::new();
    for f in forms().iter().filter(|f| f.fits_shape(family, shape)) {
        let t = f.instr.type_suffix();
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out.join(", ")
}

/// Every legal form, in the order of the PTX ISA's syntax blocks.
pub fn forms() -> &'static [Form] {
    static FORMS: OnceLock<Vec<Form>> = OnceLock::new();
    FORMS.get_or_init(build_forms)
}

const FP8: [MmaType; 2] = [MmaType::E4m3, MmaType::E5m2];
const F8F6F4: [MmaType; 5] = [MmaType::E4m3, MmaType::E5m2, MmaType::E3m2, MmaType::E2m3, MmaType::E2m1];
const I8: [IntMmaType; 2] = [IntMmaType::S8, IntMmaType::U8];
const I4: [IntMmaType; 2] = [IntMmaType::S4, IntMmaType::U4];
const LAYOUTS: [(Layout, Layout); 4] =
    [(Layout::Row, Layout::Row), (Layout::Row, Layout::Col), (Layout::Col, Layout::Row), (Layout::Col, Layout::Col)];
const ROW_COL: (Layout, Layout) = (Layout::Row, Layout::Col);
/// wgmma's N for the integer and b1 types (the integer list of PTX 9.0 stops at 224; its b1
/// list, its sparse integer list and the MLIR NVVM table go on to 240 and 256: taken as a slip
/// of the text).
const WGMMA_INT_N: [u32; 18] = [8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256];
/// tcgen05 `kind::i8` N with `cta_group::1`.
const TC_I8_N: [u32; 18] = [8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256];

fn float(d: MmaType, a: MmaType, b: MmaType, c: MmaType) -> Operation {
    Operation::Float { d, a, b, c, kind_f8f6f4: false }
}

fn build_forms() -> Vec<Form> {
    use MmaType::{Bf16, E2m1, Tf32, Ue4m3, Ue8m0, F16, F32};
    let from = |sm| Requirement::From(sm).targets();
    let mut out = Vec::new();
    let mut push = |family, (m, n, k): (Dims, Dims, u32), op, layout, cta_group, targets, note| {
        let shape = Shape { m: dims_least(m), n: dims_least(n), k };
        out.push(Form { instr: MmaInstr { family, shape, op, layout, cta_group }, ms: m, ns: n, targets, note });
    };
    let fixed = |m, n, k| (Dims::one(m), Dims::one(n), k);
    use Family::{Mma, Tcgen05, Wgmma, Wmma};
    // mma.sync: f16 (§9.7.14.5.14; m8n8k4: "when .ctype is .f32, .dtype must also be .f32").
    for layout in LAYOUTS {
        for (d, c) in [(F16, F16), (F32, F16), (F32, F32)] {
            push(Mma, fixed(8, 8, 4), float(d, F16, F16, c), Some(layout), 0, from(70), None);
        }
    }
    for ((m, n, k), sm) in [((16, 8, 8), 75), ((16, 8, 16), 80)] {
        for t in [F16, F32] {
            push(Mma, fixed(m, n, k), float(t, F16, F16, t), Some(ROW_COL), 0, from(sm), None);
        }
    }
    for k in [4, 8] {
        push(Mma, fixed(16, 8, k), float(F32, Tf32, Tf32, F32), Some(ROW_COL), 0, from(80), None);
    }
    for k in [8, 16] {
        push(Mma, fixed(16, 8, k), float(F32, Bf16, Bf16, F32), Some(ROW_COL), 0, from(80), None);
    }
    const FP8_NOTE: &str = "PTX 8.7 added m16n8k16 and the f16 accumulator for e4m3/e5m2 without naming a target; ptxfp takes sm_89, the target of the FP8 mma";
    for k in [16, 32] {
        for a in FP8 {
            for b in FP8 {
                for t in [F32, F16] {
                    let note = (k == 16 || t == F16).then_some(FP8_NOTE);
                    push(Mma, fixed(16, 8, k), float(t, a, b, t), Some(ROW_COL), 0, from(89), note);
                }
            }
        }
    }
    let sm120f = Requirement::Family(vec![120]).targets();
    for a in F8F6F4 {
        for b in F8F6F4 {
            for t in [F32, F16] {
                let op = Operation::Float { d: t, a, b, c: t, kind_f8f6f4: true };
                push(Mma, fixed(16, 8, 32), op, Some(ROW_COL), 0, sm120f, None);
            }
        }
    }
    for a in F8F6F4 {
        for b in F8F6F4 {
            let op = Operation::BlockScaled { kind: ScaledKind::Mxf8f6f4, a, b, scale: Ue8m0, vec: 1 };
            push(Mma, fixed(16, 8, 32), op, Some(ROW_COL), 0, sm120f, None);
        }
    }
    const MXF4_NOTE: &str = "the sparse mma page restricts kind::mxf4 and kind::mxf4nvf4 to sm_120a and sm_121a; ptxfp takes that stricter reading for the dense forms";
    let sm120a = Requirement::Arch(vec![120, 121]).targets();
    for (kind, scale, vec) in
        [(ScaledKind::Mxf4, Ue8m0, 2), (ScaledKind::Mxf4nvf4, Ue8m0, 2), (ScaledKind::Mxf4nvf4, Ue4m3, 4)]
    {
        let op = Operation::BlockScaled { kind, a: E2m1, b: E2m1, scale, vec };
        push(Mma, fixed(16, 8, 64), op, Some(ROW_COL), 0, sm120a, Some(MXF4_NOTE));
    }
    for ((m, n, k), sm) in [((8, 8, 4), 80), ((16, 8, 4), 90), ((16, 8, 8), 90), ((16, 8, 16), 90)] {
        for rnd in Rounding::ALL {
            push(Mma, fixed(m, n, k), Operation::F64 { rnd }, Some(ROW_COL), 0, from(sm), None);
        }
    }
    for (types, shapes) in [
        (I8, [((8, 8, 16), 75), ((16, 8, 16), 80), ((16, 8, 32), 80)]),
        (I4, [((8, 8, 32), 75), ((16, 8, 32), 80), ((16, 8, 64), 80)]),
    ] {
        for ((m, n, k), sm) in shapes {
            for a in types {
                for b in types {
                    for satfinite in [false, true] {
                        let op = Operation::Int { a, b, satfinite };
                        push(Mma, fixed(m, n, k), op, Some(ROW_COL), 0, from(sm), None);
                    }
                }
            }
        }
    }
    for (m, n, k) in [(8, 8, 128), (16, 8, 128), (16, 8, 256)] {
        for op in [BitOp::Xor, BitOp::And] {
            let sm = if op == BitOp::Xor && m == 8 { 75 } else { 80 };
            push(Mma, fixed(m, n, k), Operation::Bits { op }, Some(ROW_COL), 0, from(sm), None);
        }
    }
    // wmma.mma (§9.7.14.4.5): layouts free except for the sub-byte and b1 forms.
    for (m, n) in [(16, 16), (8, 32), (32, 8)] {
        for layout in LAYOUTS {
            for d in [F16, F32] {
                for c in [F16, F32] {
                    let note = (d == F16 && c == F32).then_some(
                        "f32 C with f16 D: ptxfp accumulates in f32 and rounds D to f16 to nearest [UNK: no public data]",
                    );
                    push(Wmma, fixed(m, n, 16), float(d, F16, F16, c), Some(layout), 0, from(70), note);
                }
            }
            for t in I8 {
                for satfinite in [false, true] {
                    let op = Operation::Int { a: t, b: t, satfinite };
                    push(Wmma, fixed(m, n, 16), op, Some(layout), 0, from(72), None);
                }
            }
            push(Wmma, fixed(m, n, 16), float(F32, Bf16, Bf16, F32), Some(layout), 0, from(80), None);
        }
    }
    for layout in LAYOUTS {
        push(Wmma, fixed(16, 16, 8), float(F32, Tf32, Tf32, F32), Some(layout), 0, from(80), None);
        for rnd in Rounding::ALL {
            push(Wmma, fixed(8, 8, 4), Operation::F64 { rnd }, Some(layout), 0, from(80), None);
        }
    }
    for t in I4 {
        for satfinite in [false, true] {
            push(Wmma, fixed(8, 8, 32), Operation::Int { a: t, b: t, satfinite }, Some(ROW_COL), 0, from(75), None);
        }
    }
    for (op, sm) in [(BitOp::Xor, 75), (BitOp::And, 80)] {
        push(Wmma, fixed(8, 8, 128), Operation::Bits { op }, Some(ROW_COL), 0, from(sm), None);
    }
    // wgmma.mma_async (§9.7.15.5.2): sm_90a only, M = 64.
    let sm90a = Requirement::Arch(vec![90]).targets();
    let n8 = Dims::Step { lo: 8, hi: 256, step: 8 };
    let wg = |k| (Dims::one(64), n8, k);
    for d in [F16, F32] {
        push(Wgmma, wg(16), float(d, F16, F16, d), None, 0, sm90a, None);
    }
    push(Wgmma, wg(16), float(F32, Bf16, Bf16, F32), None, 0, sm90a, None);
    push(Wgmma, wg(8), float(F32, Tf32, Tf32, F32), None, 0, sm90a, None);
    for a in FP8 {
        for b in FP8 {
            for d in [F16, F32] {
                push(Wgmma, wg(32), float(d, a, b, d), None, 0, sm90a, None);
            }
        }
    }
    const WGMMA_N_NOTE: &str =
        "N = 240 and 256: the integer N list of PTX 9.0 stops at 224, its b1 and sparse lists do not";
    for a in I8 {
        for b in I8 {
            for satfinite in [false, true] {
                let shape = (Dims::one(64), Dims::List(&WGMMA_INT_N), 32);
                push(Wgmma, shape, Operation::Int { a, b, satfinite }, None, 0, sm90a, Some(WGMMA_N_NOTE));
            }
        }
    }
    let shape = (Dims::one(64), Dims::List(&WGMMA_INT_N), 256);
    push(Wgmma, shape, Operation::Bits { op: BitOp::And }, None, 0, sm90a, None);
    // tcgen05.mma (§9.7.16.10.9, shapes of its table "Various combinations of .kind and shapes").
    let tc_fp = Requirement::Family(vec![100, 110]).targets();
    let tc_i8 = Requirement::Arch(vec![100, 101, 110]).targets();
    let tc_fp4 = Requirement::Arch(vec![100, 101, 103, 110]).targets();
    const TC_FP4_NOTE: &str = "the tcgen05.mma.sp page limits kind::mxf4 and kind::mxf4nvf4 to sm_100a, sm_101a, sm_103a and sm_110a; ptxfp takes that stricter reading for the dense forms";
    let n16 = Dims::Step { lo: 16, hi: 256, step: 16 };
    let groups = |m1: Dims| [(1u8, m1, n8), (2u8, Dims::List(&[128, 256]), n16)];
    for (g, ms, ns) in groups(Dims::List(&[64, 128])) {
        for d in [F16, F32] {
            push(Tcgen05, (ms, ns, 16), float(d, F16, F16, d), None, g, tc_fp, None);
        }
        push(Tcgen05, (ms, ns, 16), float(F32, Bf16, Bf16, F32), None, g, tc_fp, None);
        push(Tcgen05, (ms, ns, 8), float(F32, Tf32, Tf32, F32), None, g, tc_fp, None);
        for a in F8F6F4 {
            for b in F8F6F4 {
                for d in [F16, F32] {
                    push(Tcgen05, (ms, ns, 32), float(d, a, b, d), None, g, tc_fp, None);
                }
            }
        }
        let i8_ns = if g == 1 { Dims::List(&TC_I8_N) } else { Dims::Step { lo: 32, hi: 256, step: 32 } };
        for a in I8 {
            for b in I8 {
                for satfinite in [false, true] {
                    push(Tcgen05, (ms, i8_ns, 32), Operation::Int { a, b, satfinite }, None, g, tc_i8, None);
                }
            }
        }
    }
    for (g, ms, ns) in groups(Dims::one(128)) {
        for a in F8F6F4 {
            for b in F8F6F4 {
                let op = Operation::BlockScaled { kind: ScaledKind::Mxf8f6f4, a, b, scale: Ue8m0, vec: 1 };
                push(Tcgen05, (ms, ns, 32), op, None, g, tc_fp, None);
            }
        }
        for (kind, scale, vec) in
            [(ScaledKind::Mxf4, Ue8m0, 2), (ScaledKind::Mxf4nvf4, Ue8m0, 2), (ScaledKind::Mxf4nvf4, Ue4m3, 4)]
        {
            let op = Operation::BlockScaled { kind, a: E2m1, b: E2m1, scale, vec };
            push(Tcgen05, (ms, ns, 64), op, None, g, tc_fp4, Some(TC_FP4_NOTE));
        }
    }
    out
}

const fn dims_least(d: Dims) -> u32 {
    match d {
        Dims::Step { lo, .. } => lo,
        Dims::List(l) => l[0],
    }
}
