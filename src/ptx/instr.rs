//! The instruction type: an opcode, its modifiers and its operand type, exactly as spelled.
//!
//! An [`Instr`] can only be obtained through validation (parsing a spelling, or
//! [`Instr::from_parts`]), so every value is one of the legal spellings of
//! [`crate::ptx::catalog`].

use std::fmt;

use super::eval::Route;
use crate::format::Format;
use crate::ops::cvt_int::IntType;
use crate::ops::testp::Property;
use crate::round::Rounding;

/// An operand type: a scalar format, a packed pair, or (on one side of a `cvt`) an integer
/// type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F32x2,
    F64,
    /// `.u8` … `.s64`: only as the destination or source of a `cvt`.
    Int(IntType),
}

/// One element of an operand: a floating-point value or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Element {
    Float(Format),
    Int(IntType),
}

impl Type {
    /// The floating-point types.
    pub const FLOATS: [Type; 7] = [Type::F16, Type::F16x2, Type::BF16, Type::BF16x2, Type::F32, Type::F32x2, Type::F64];

    /// What one element is.
    pub const fn element(self) -> Element {
        match self {
            Type::F16 | Type::F16x2 => Element::Float(Format::F16),
            Type::BF16 | Type::BF16x2 => Element::Float(Format::BF16),
            Type::F32 | Type::F32x2 => Element::Float(Format::F32),
            Type::F64 => Element::Float(Format::F64),
            Type::Int(t) => Element::Int(t),
        }
    }

    /// The format of one element, or `None` for an integer type.
    pub const fn float(self) -> Option<Format> {
        match self.element() {
            Element::Float(fmt) => Some(fmt),
            Element::Int(_) => None,
        }
    }

    /// The integer type, or `None` for a floating-point type.
    pub const fn int(self) -> Option<IntType> {
        match self {
            Type::Int(t) => Some(t),
            _ => None,
        }
    }

    /// Elements per operand word: 2 for the packed forms (element 0 in the low half, PTX
    /// semantics `a[0:15]`), else 1.
    pub const fn lanes(self) -> u32 {
        match self {
            Type::F16x2 | Type::BF16x2 | Type::F32x2 => 2,
            _ => 1,
        }
    }

    /// Width of one element in bits.
    pub const fn element_bits(self) -> u32 {
        match self.element() {
            Element::Float(fmt) => fmt.bits(),
            Element::Int(t) => t.bits(),
        }
    }

    /// Width of an operand word in bits: 8, 16, 32 or 64.
    pub const fn bits(self) -> u32 {
        self.element_bits() * self.lanes()
    }

    /// PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::BF16 => "bf16",
            Type::BF16x2 => "bf16x2",
            Type::F32 => "f32",
            Type::F32x2 => "f32x2",
            Type::F64 => "f64",
            Type::Int(t) => t.name(),
        }
    }

    pub fn from_name(s: &str) -> Option<Type> {
        let float = Type::FLOATS.into_iter().find(|t| t.name() == s);
        float.or_else(|| IntType::from_name(s).map(Type::Int))
    }
}

/// Which side of a `cvt` has the integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSide {
    /// Float to integer (`cvt.rzi.s32.f32`).
    Destination,
    /// Integer to float (`cvt.rn.f32.s32`).
    Source,
}

/// The functions of the SASS special-function unit (MUFU), docs/semantics.md §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MufuFn {
    Cos,
    Sin,
    Ex2,
    Lg2,
    Rcp,
    Rsq,
    Sqrt,
    Rcp64h,
    Rsq64h,
    Tanh,
}

impl MufuFn {
    pub const ALL: [MufuFn; 10] = [
        MufuFn::Cos,
        MufuFn::Sin,
        MufuFn::Ex2,
        MufuFn::Lg2,
        MufuFn::Rcp,
        MufuFn::Rsq,
        MufuFn::Sqrt,
        MufuFn::Rcp64h,
        MufuFn::Rsq64h,
        MufuFn::Tanh,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            MufuFn::Cos => "COS",
            MufuFn::Sin => "SIN",
            MufuFn::Ex2 => "EX2",
            MufuFn::Lg2 => "LG2",
            MufuFn::Rcp => "RCP",
            MufuFn::Rsq => "RSQ",
            MufuFn::Sqrt => "SQRT",
            MufuFn::Rcp64h => "RCP64H",
            MufuFn::Rsq64h => "RSQ64H",
            MufuFn::Tanh => "TANH",
        }
    }
}

/// The range-reduction modes of RRO (sm_5x/sm_6x), docs/semantics.md §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RroMode {
    Sincos,
    Ex2,
}

impl RroMode {
    pub const ALL: [RroMode; 2] = [RroMode::Sincos, RroMode::Ex2];

    pub const fn name(self) -> &'static str {
        match self {
            RroMode::Sincos => "SINCOS",
            RroMode::Ex2 => "EX2",
        }
    }
}

/// What an instruction does, before its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    Testp(Property),
    Copysign,
    Add,
    Sub,
    Mul,
    Fma,
    Mad,
    Div,
    Abs,
    Neg,
    Min,
    Max,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    /// Conversion to the instruction's type from `from`.
    Cvt {
        from: Type,
    },
    /// A SASS MUFU operation; the instruction's type is f32 except for the `.F16`/`.BF16`
    /// forms.
    Mufu(MufuFn),
    /// A SASS RRO operation.
    Rro(RroMode),
}

impl Opcode {
    /// The mnemonic as spelled (`add`, `testp`, `MUFU`, ...).
    pub const fn mnemonic(self) -> &'static str {
        match self {
            Opcode::Testp(_) => "testp",
            Opcode::Copysign => "copysign",
            Opcode::Add => "add",
            Opcode::Sub => "sub",
            Opcode::Mul => "mul",
            Opcode::Fma => "fma",
            Opcode::Mad => "mad",
            Opcode::Div => "div",
            Opcode::Abs => "abs",
            Opcode::Neg => "neg",
            Opcode::Min => "min",
            Opcode::Max => "max",
            Opcode::Rcp => "rcp",
            Opcode::Sqrt => "sqrt",
            Opcode::Rsqrt => "rsqrt",
            Opcode::Sin => "sin",
            Opcode::Cos => "cos",
            Opcode::Lg2 => "lg2",
            Opcode::Ex2 => "ex2",
            Opcode::Tanh => "tanh",
            Opcode::Cvt { .. } => "cvt",
            Opcode::Mufu(_) => "MUFU",
            Opcode::Rro(_) => "RRO",
        }
    }
}

/// The precision modifier: the rounding direction of an exact instruction, or one of the
/// approximate forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// No modifier spelled (round to nearest where the instruction rounds).
    Default,
    Round(Rounding),
    /// `.rni`/`.rzi`/`.rmi`/`.rpi`: `cvt` rounds to an integral value in this direction.
    Integral(Rounding),
    /// `.approx`
    Approx,
    /// `.full` (div only)
    Full,
}

/// Its spelling (`.rn`, `.rzi`, `.approx`; nothing for [`Mode::Default`]).
impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mode::Default => Ok(()),
            Mode::Round(r) => write!(f, ".{}", r.name()),
            Mode::Integral(r) => write!(f, ".{}i", r.name()),
            Mode::Approx => f.write_str(".approx"),
            Mode::Full => f.write_str(".full"),
        }
    }
}

/// The flag modifiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    pub ftz: bool,
    pub oob: bool,
    pub relu: bool,
    pub sat: bool,
    pub nan: bool,
    pub xorsign: bool,
    pub abs: bool,
}

impl Modifiers {
    /// The spellings of the flags that are set, in the catalog's order (`.ftz`, `.oob`,
    /// `.relu`, `.sat`, `.NaN`, `.xorsign`, `.abs`).
    pub fn spelled(self) -> impl Iterator<Item = &'static str> {
        [
            (self.ftz, ".ftz"),
            (self.oob, ".oob"),
            (self.relu, ".relu"),
            (self.sat, ".sat"),
            (self.nan, ".NaN"),
            (self.xorsign, ".xorsign"),
            (self.abs, ".abs"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
    }
}

/// How well the bits an instruction returns are established (the evidence tags of docs/semantics.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// Determined by IEEE 754 plus NVIDIA's documented NaN, FTZ and saturation rules.
    IeeeExact,
    /// A model that reproduces published measurements of real GPUs.
    HardwareVerified,
    /// Follows NVIDIA documentation and ptxas output; no hardware measurement checks it.
    Documented,
    /// A plausible hardware-style model with no public evidence for its exact bits.
    Model,
}

impl Evidence {
    pub const fn name(self) -> &'static str {
        match self {
            Evidence::IeeeExact => "ieee-exact",
            Evidence::HardwareVerified => "hardware-verified",
            Evidence::Documented => "documented",
            Evidence::Model => "model",
        }
    }
}

/// A validated floating-point instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    pub(crate) opcode: Opcode,
    pub(crate) mode: Mode,
    pub(crate) mods: Modifiers,
    pub(crate) ty: Type,
    /// The floating-point format of one element on the instruction's floating-point side
    /// ([`Instr::format`]).
    pub(crate) fmt: Format,
    /// Per number n < 4 of source operands: the lowest `sm_XX` (as XX) that has the spelling
    /// with n sources, or 0 when it does not take n (three-input `min`/`max` are sm_100, their
    /// two-input forms older).
    pub(crate) min_sm_by_count: [u8; 4],
    /// The lowest of them, so that the target check needs no catalog lookup.
    pub(crate) min_sm: u8,
    /// The highest `sm_XX` that has the instruction: [`crate::Target::LAST_RRO_SM`] for RRO,
    /// else 255.
    pub(crate) max_sm: u8,
    /// The bits above the width of a source operand word, which every operand must leave
    /// clear (every source has the same type).
    pub(crate) above_source: u64,
    /// What evaluation runs, resolved from the fields above when the instruction is built.
    pub(crate) route: Route,
}

impl Instr {
    /// An instruction not yet checked against the catalog: what the parser builds before it
    /// resolves the spelling.
    pub(crate) const fn candidate(opcode: Opcode, mode: Mode, mods: Modifiers, ty: Type) -> Instr {
        // Every legal spelling has a floating-point side; a candidate with none (an integer type
        // outside cvt, or cvt between integers) is never resolved, and gets f32 here.
        let fmt = match (ty.float(), opcode) {
            (Some(fmt), _) => fmt,
            (None, Opcode::Cvt { from }) => match from.float() {
                Some(fmt) => fmt,
                None => Format::F32,
            },
            (None, _) => Format::F32,
        };
        Instr {
            opcode,
            mode,
            mods,
            ty,
            fmt,
            min_sm_by_count: [0; 4],
            min_sm: 0,
            max_sm: 0,
            above_source: 0,
            route: Route::General,
        }
    }

    /// A legal spelling with its (operand count, lowest architecture) pairs, with everything
    /// its checks and its evaluation need computed once.
    pub(crate) fn resolved(self, counts: impl IntoIterator<Item = (usize, u32)>) -> Instr {
        let mut min_sm_by_count = [0u8; 4];
        for (n, sm) in counts {
            min_sm_by_count[n] = u8::try_from(sm).expect("sm_XX numbers fit in a byte");
        }
        let min_sm = min_sm_by_count.into_iter().filter(|&sm| sm != 0).min().expect("a spelling has an entry");
        let max_sm = if matches!(self.opcode, Opcode::Rro(_)) { super::Target::LAST_RRO_SM as u8 } else { u8::MAX };
        let above_source = u64::MAX.checked_shl(self.source_type(0).bits()).unwrap_or(0);
        let i = Instr { min_sm_by_count, min_sm, max_sm, above_source, ..self };
        Instr { route: Route::of(&i), ..i }
    }

    pub fn opcode(&self) -> Opcode {
        self.opcode
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn modifiers(&self) -> Modifiers {
        self.mods
    }

    /// The destination type (for `cvt`, the type converted to).
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// The type of source operand `i`.
    pub fn source_type(&self, _i: usize) -> Type {
        match self.opcode {
            Opcode::Cvt { from } => from,
            _ => self.ty,
        }
    }

    /// Width of a result word: the destination type's (a `testp` predicate is written as 0 or 1
    /// in a word of the source width).
    pub fn result_bits(&self) -> u32 {
        self.ty.bits()
    }

    /// The rounding direction of an exact instruction (`.rn` when none is spelled).
    pub fn rounding(&self) -> Rounding {
        match self.mode {
            Mode::Round(r) | Mode::Integral(r) => r,
            _ => Rounding::Rn,
        }
    }

    /// The lowest architecture (`sm_XX` as XX) that has the instruction, with any of its
    /// operand counts.
    pub fn min_sm(&self) -> u32 {
        u32::from(self.min_sm)
    }

    /// The lowest architecture that has the instruction with `n` source operands; 0 when it
    /// does not take `n`.
    #[inline]
    pub fn min_sm_with(&self, n: usize) -> u32 {
        self.min_sm_by_count.get(n).map_or(0, |&sm| u32::from(sm))
    }

    /// The legal operand counts, ascending.
    pub fn operand_counts(&self) -> Vec<usize> {
        (0..4).filter(|&n| self.takes(n)).collect()
    }

    /// Whether `n` source operands are legal.
    pub fn takes(&self, n: usize) -> bool {
        n < 4 && self.min_sm_by_count[n] != 0
    }

    /// The floating-point format the instruction works in: the element format of its type, or
    /// for a `cvt` to an integer type, the source's.
    pub fn format(&self) -> Format {
        self.fmt
    }

    /// For a `cvt` between an integer and a floating-point type: the integer type and whether
    /// it is the destination.
    pub fn integer_side(&self) -> Option<(IntType, IntSide)> {
        match (self.opcode, self.ty) {
            (_, Type::Int(t)) => Some((t, IntSide::Destination)),
            (Opcode::Cvt { from: Type::Int(t) }, _) => Some((t, IntSide::Source)),
            _ => None,
        }
    }

    /// How well the returned bits are established (see [`Evidence`]).
    pub fn evidence(&self) -> Evidence {
        match self.opcode {
            Opcode::Div | Opcode::Rcp | Opcode::Sqrt if matches!(self.mode, Mode::Round(_)) => Evidence::IeeeExact,
            // The same-format NaN rules (f32/f64 moves keep a signalling NaN, f16/bf16 make it
            // canonical) are documented nowhere: an H200 showed them (data/hardware/h200-sm90/cvt/).
            Opcode::Cvt { from } if from == self.ty => Evidence::HardwareVerified,
            // Float → integer NaN results and the clamping of out-of-range values are not in
            // PTX either: the H200's results on every operand of the ≤16-bit sources and on
            // samples of the others (data/hardware/h200-sm90/cvt/).
            Opcode::Cvt { .. } if self.integer_side().is_some() => Evidence::HardwareVerified,
            Opcode::Testp(_)
            | Opcode::Copysign
            | Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Fma
            | Opcode::Mad
            | Opcode::Min
            | Opcode::Max
            | Opcode::Cvt { .. } => Evidence::IeeeExact,
            // The NaN rules of abs/neg; every MUFU function and the f32/f16/bf16 approximations
            // on every input (SQRT and TANH through their binades' dumps), RCP64H/RSQ64H, the
            // f64 approximations and div.approx/.full on samples: all reproduced bit for bit on
            // an H200 (data/hardware/h200-sm90/).
            Opcode::Abs | Opcode::Neg | Opcode::Mufu(_) => Evidence::HardwareVerified,
            Opcode::Rcp
            | Opcode::Rsqrt
            | Opcode::Sqrt
            | Opcode::Div
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Lg2
            | Opcode::Ex2
            | Opcode::Tanh => Evidence::HardwareVerified,
            // RRO exists on sm_5x/6x only, which no capture has reached.
            Opcode::Rro(_) => Evidence::Documented,
        }
    }
}

impl fmt::Display for Instr {
    /// The canonical spelling: modifiers in the order PTX writes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.opcode {
            Opcode::Mufu(func) => {
                write!(f, "MUFU.{}", func.name())?;
                match self.ty {
                    Type::F16 => f.write_str(".F16")?,
                    Type::BF16 => f.write_str(".BF16")?,
                    _ => {}
                }
                if self.mods.sat {
                    f.write_str(".SAT")?;
                }
                return Ok(());
            }
            Opcode::Rro(mode) => return write!(f, "RRO.{}", mode.name()),
            Opcode::Testp(p) => write!(f, "testp.{}", p.name())?,
            op => f.write_str(op.mnemonic())?,
        }
        write!(f, "{}", self.mode)?;
        for name in self.mods.spelled() {
            f.write_str(name)?;
        }
        write!(f, ".{}", self.ty.name())?;
        if let Opcode::Cvt { from } = self.opcode {
            write!(f, ".{}", from.name())?;
        }
        Ok(())
    }
}
