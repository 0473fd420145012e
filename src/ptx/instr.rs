//! The instruction type: an opcode, its modifiers and its operand type, exactly as spelled.
//!
//! An [`Instr`] can only be obtained through validation (parsing a spelling, or
//! [`Instr::from_parts`]), so every value is one of the legal spellings of
//! [`crate::ptx::catalog`].

use std::fmt;

use super::eval::Route;
use super::target::Targets;
use crate::format::Format;
use crate::narrow::Narrow;
use crate::ops::cvt_int::IntType;
use crate::ops::testp::Property;
use crate::round::Rounding;

/// An operand type: a scalar format, a packed pair, a narrow format packed two or four to a
/// word (only on one side of a `cvt`), or (on one side of a `cvt`, and for the random bits of
/// `cvt.rs`) an integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F32x2,
    F64,
    /// `.tf32`: a 32-bit word holding a tf32 value in its top 19 bits.
    Tf32,
    /// Two e4m3, e5m2, e2m3, e3m2, ue8m0, ue5m3 or s2f6 codes, one per byte (the FP6 codes in
    /// the low 6 bits of theirs), element 0 in the low byte.
    E4m3x2,
    E5m2x2,
    E2m3x2,
    E3m2x2,
    Ue8m0x2,
    Ue5m3x2,
    S2f6x2,
    /// Two e2m1 codes in a byte, element 0 in the low nibble.
    E2m1x2,
    /// Four codes to a word, one per byte (per nibble for e2m1x4), element 0 lowest.
    E4m3x4,
    E5m2x4,
    E2m3x4,
    E3m2x4,
    E2m1x4,
    /// `.u8` … `.s64`: only as the destination or source of a `cvt`, and as `cvt.rs`'s
    /// random bits (`.u32`).
    Int(IntType),
}

/// One element of an operand: a floating-point value, a narrow-format code or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Element {
    Float(Format),
    Narrow(Narrow),
    Int(IntType),
}

impl Type {
    /// The floating-point types of the arithmetic.
    pub const FLOATS: [Type; 7] = [Type::F16, Type::F16x2, Type::BF16, Type::BF16x2, Type::F32, Type::F32x2, Type::F64];

    /// The narrow-format types of the conversions.
    pub const NARROW: [Type; 14] = [
        Type::Tf32,
        Type::E4m3x2,
        Type::E5m2x2,
        Type::E2m3x2,
        Type::E3m2x2,
        Type::Ue8m0x2,
        Type::Ue5m3x2,
        Type::S2f6x2,
        Type::E2m1x2,
        Type::E4m3x4,
        Type::E5m2x4,
        Type::E2m3x4,
        Type::E3m2x4,
        Type::E2m1x4,
    ];

    /// What one element is.
    pub const fn element(self) -> Element {
        match self {
            Type::F16 | Type::F16x2 => Element::Float(Format::F16),
            Type::BF16 | Type::BF16x2 => Element::Float(Format::BF16),
            Type::F32 | Type::F32x2 => Element::Float(Format::F32),
            Type::F64 => Element::Float(Format::F64),
            Type::Tf32 => Element::Narrow(Narrow::Tf32),
            Type::E4m3x2 | Type::E4m3x4 => Element::Narrow(Narrow::E4m3),
            Type::E5m2x2 | Type::E5m2x4 => Element::Narrow(Narrow::E5m2),
            Type::E2m3x2 | Type::E2m3x4 => Element::Narrow(Narrow::E2m3),
            Type::E3m2x2 | Type::E3m2x4 => Element::Narrow(Narrow::E3m2),
            Type::E2m1x2 | Type::E2m1x4 => Element::Narrow(Narrow::E2m1),
            Type::Ue8m0x2 => Element::Narrow(Narrow::Ue8m0),
            Type::Ue5m3x2 => Element::Narrow(Narrow::Ue5m3),
            Type::S2f6x2 => Element::Narrow(Narrow::S2f6),
            Type::Int(t) => Element::Int(t),
        }
    }

    /// The format of one element, or `None` for an integer or narrow type.
    pub const fn float(self) -> Option<Format> {
        match self.element() {
            Element::Float(fmt) => Some(fmt),
            Element::Narrow(_) | Element::Int(_) => None,
        }
    }

    /// The narrow format of one element, or `None`.
    pub const fn narrow(self) -> Option<Narrow> {
        match self.element() {
            Element::Narrow(n) => Some(n),
            _ => None,
        }
    }

    /// The integer type, or `None` for a floating-point type.
    pub const fn int(self) -> Option<IntType> {
        match self {
            Type::Int(t) => Some(t),
            _ => None,
        }
    }

    /// Elements per operand word: 2 for the packed pairs, 4 for the x4 types (element 0 in the
    /// low bits, PTX semantics `a[0:15]`), else 1.
    pub const fn lanes(self) -> u32 {
        match self {
            Type::F16x2
            | Type::BF16x2
            | Type::F32x2
            | Type::E4m3x2
            | Type::E5m2x2
            | Type::E2m3x2
            | Type::E3m2x2
            | Type::Ue8m0x2
            | Type::Ue5m3x2
            | Type::S2f6x2
            | Type::E2m1x2 => 2,
            Type::E4m3x4 | Type::E5m2x4 | Type::E2m3x4 | Type::E3m2x4 | Type::E2m1x4 => 4,
            _ => 1,
        }
    }

    /// Width of one element's place in the word in bits: a narrow code takes a byte (its 6 or
    /// 8 bits), e2m1 a nibble, tf32 the whole word.
    pub const fn element_bits(self) -> u32 {
        match self.element() {
            Element::Float(fmt) => fmt.bits(),
            Element::Int(t) => t.bits(),
            Element::Narrow(Narrow::Tf32) => 32,
            Element::Narrow(Narrow::E2m1) => 4,
            Element::Narrow(_) => 8,
        }
    }

    /// Width of an operand word in bits: 8, 16, 32 or 64.
    pub const fn bits(self) -> u32 {
        self.element_bits() * self.lanes()
    }

    /// The bits an operand word of the type may set: all of its width but the padding of the
    /// FP6 formats, whose bytes hold the code in bits 5:0 with bits 7:6 "must be 0"
    /// (PTX ISA section 5.2.4, docs/semantics.md §8.4; a set padding bit makes the result undefined, so ptxfp refuses it).
    pub const fn code_bits(self) -> u64 {
        let width = if self.bits() == 64 { u64::MAX } else { (1 << self.bits()) - 1 };
        match self.narrow() {
            Some(Narrow::E2m3 | Narrow::E3m2) => width & 0x3F3F_3F3F,
            _ => width,
        }
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
            Type::Tf32 => "tf32",
            Type::E4m3x2 => "e4m3x2",
            Type::E5m2x2 => "e5m2x2",
            Type::E2m3x2 => "e2m3x2",
            Type::E3m2x2 => "e3m2x2",
            Type::Ue8m0x2 => "ue8m0x2",
            Type::Ue5m3x2 => "ue5m3x2",
            Type::S2f6x2 => "s2f6x2",
            Type::E2m1x2 => "e2m1x2",
            Type::E4m3x4 => "e4m3x4",
            Type::E5m2x4 => "e5m2x4",
            Type::E2m3x4 => "e2m3x4",
            Type::E3m2x4 => "e3m2x4",
            Type::E2m1x4 => "e2m1x4",
            Type::Int(t) => t.name(),
        }
    }

    pub fn from_name(s: &str) -> Option<Type> {
        let float = Type::FLOATS.into_iter().chain(Type::NARROW).find(|t| t.name() == s);
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
    /// `.rna`: to nearest, ties away from zero (`cvt` to tf32).
    TiesAway,
    /// `.rs`: stochastic rounding with random bits from the last operand (`cvt`, sm_100a).
    Stochastic,
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
            Mode::TiesAway => f.write_str(".rna"),
            Mode::Stochastic => f.write_str(".rs"),
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
    /// `.satfinite`: finite results only (`cvt`): ±Inf and values beyond the largest finite one
    /// give it.
    pub satfinite: bool,
    pub sat: bool,
    pub nan: bool,
    pub xorsign: bool,
    pub abs: bool,
    /// `.scaled::n2::ue8m0`: a second operand holds a ue8m0 scale per element (`cvt`).
    pub scaled: bool,
}

/// The spelling of [`Modifiers::scaled`].
pub const SCALED: &str = ".scaled::n2::ue8m0";

impl Modifiers {
    /// The spellings of the flags that are set, in the order PTX writes them on an instruction
    /// of destination type `ty`: `.ftz`, `.oob`, `.relu` and `.satfinite` (`.satfinite` first
    /// where the destination is neither f16 nor bf16: `cvt.rn.satfinite.relu.e4m3x2.f32`,
    /// `cvt.rn.relu.satfinite.f16.f32`), `.sat`, `.NaN`, `.xorsign`, `.abs`,
    /// `.scaled::n2::ue8m0`.
    pub fn spelled(self, ty: Type) -> impl Iterator<Item = &'static str> {
        let relu_first = matches!(ty, Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2);
        let (first, second) = if relu_first {
            ((self.relu, ".relu"), (self.satfinite, ".satfinite"))
        } else {
            ((self.satfinite, ".satfinite"), (self.relu, ".relu"))
        };
        [
            (self.ftz, ".ftz"),
            (self.oob, ".oob"),
            first,
            second,
            (self.sat, ".sat"),
            (self.nan, ".NaN"),
            (self.xorsign, ".xorsign"),
            (self.abs, ".abs"),
            (self.scaled, SCALED),
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
    /// Public hardware data exists and no known model reproduces it: the bits are the nearest
    /// published model's, and known to differ from the hardware's on some inputs (tensor-core
    /// forms: docs/tensorcore.md).
    NoModelFits,
}

impl Evidence {
    pub const fn name(self) -> &'static str {
        match self {
            Evidence::IeeeExact => "ieee-exact",
            Evidence::HardwareVerified => "hardware-verified",
            Evidence::Documented => "documented",
            Evidence::Model => "model",
            Evidence::NoModelFits => "no-model-fits",
        }
    }
}

/// The most source operands an instruction takes: `cvt.rs.satfinite.e4m3x4.f32 d, {a, b, e, f},
/// rbits`.
pub const MAX_SOURCES: usize = 5;

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
    /// Per number n ≤ [`MAX_SOURCES`] of source operands: the targets that have the spelling
    /// with n sources, none when it does not take n (three-input `min`/`max` are sm_100, their
    /// two-input forms older).
    pub(crate) targets_by_count: [Targets; MAX_SOURCES + 1],
    /// Their union, so that the target check needs no catalog lookup.
    pub(crate) targets: Targets,
    /// §9.7.5 mixed precision (`add.rn.f32.f16`, `fma.rn.f32.bf16`): the type of the
    /// operands the instruction first converts to its own type (`a`, and `b` of `fma`); `None`
    /// for every other instruction.
    pub(crate) mixed: Option<Type>,
    /// Per source operand: the bits above the width of its type, which it must leave clear.
    pub(crate) above_source: [u64; MAX_SOURCES],
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
            targets_by_count: [Targets::NONE; MAX_SOURCES + 1],
            targets: Targets::NONE,
            mixed: None,
            above_source: [0; MAX_SOURCES],
            route: Route::General,
        }
    }

    /// The mixed-precision candidate of `opcode`: `.ty` with its converted operands of type
    /// `from` (§9.7.5, [`Instr::mixed_source`]).
    pub(crate) const fn with_mixed_source(self, from: Type) -> Instr {
        Instr { mixed: Some(from), ..self }
    }

    /// A legal spelling with its (operand count, targets) pairs, with everything its checks and
    /// its evaluation need computed once.
    pub(crate) fn resolved(self, counts: impl IntoIterator<Item = (usize, Targets)>) -> Instr {
        let mut targets_by_count = [Targets::NONE; MAX_SOURCES + 1];
        for (n, targets) in counts {
            targets_by_count[n] = targets_by_count[n].union(targets);
        }
        let targets = targets_by_count.iter().fold(Targets::NONE, |all, &t| all.union(t));
        assert!(!targets.is_empty(), "a spelling has an entry");
        let i = Instr { targets_by_count, targets, ..self };
        let above_source = std::array::from_fn(|k| !i.source_type(k).code_bits());
        let i = Instr { above_source, ..i };
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

    /// For the mixed-precision instructions of §9.7.5 (`add`/`sub{.rnd}{.sat}.f32.{f16,bf16}`
    /// and `fma.rnd{.sat}.f32.{f16,bf16}`): the type of `a` (and of `b` for `fma`), which the
    /// instruction converts exactly to `.f32` before it computes ([`Instr::source_type`]).
    pub fn mixed_source(&self) -> Option<Type> {
        self.mixed
    }

    /// The type of source operand `i`: the source type of a `cvt` (the instruction's type
    /// otherwise), except for the last operand of `cvt.rs` (its random bits, `.u32`) and of a
    /// `.scaled::n2::ue8m0` form (the scales, `.ue8m0x2`); for a mixed-precision instruction,
    /// [`Instr::mixed_source`] for `a` (and `b` of `fma`), the instruction's type for `c`.
    pub fn source_type(&self, i: usize) -> Type {
        if let Some(from) = self.mixed {
            let converted = if self.opcode == Opcode::Fma { 2 } else { 1 };
            return if i < converted { from } else { self.ty };
        }
        let Opcode::Cvt { from } = self.opcode else { return self.ty };
        let last = self.max_sources().saturating_sub(1);
        match self.mode {
            Mode::Stochastic if i == last => Type::Int(IntType::U32),
            _ if self.mods.scaled && i == last => Type::Ue8m0x2,
            _ => from,
        }
    }

    /// Width of the words a buffer of source operands holds: the widest source type's. Every
    /// source of a batch comes in words of this width; a narrower source (the scales of the
    /// scaled s2f6 forms from f32 and bf16x2) is zero-extended, its bits above its own width
    /// ignored.
    pub fn source_bits(&self) -> u32 {
        (0..MAX_SOURCES).filter(|&i| i < self.max_sources()).map(|i| self.source_type(i).bits()).max().unwrap_or(0)
    }

    /// The largest operand count the instruction takes.
    fn max_sources(&self) -> usize {
        self.targets_by_count.iter().rposition(|t| !t.is_empty()).unwrap_or(0)
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

    /// The targets that have the instruction, with any of its operand counts.
    #[inline(always)]
    pub fn targets(&self) -> Targets {
        self.targets
    }

    /// The targets that have the instruction with `n` source operands; none when it does not
    /// take `n`.
    #[inline(always)]
    pub fn targets_with(&self, n: usize) -> Targets {
        self.targets_by_count.get(n).copied().unwrap_or(Targets::NONE)
    }

    /// The lowest architecture (`sm_XX` as XX) that has the instruction, with any of its
    /// operand counts (in some variant: `cvt.rn.satfinite.e2m1x2.f32` is sm_100's family form,
    /// [`Instr::targets`]).
    pub fn min_sm(&self) -> u32 {
        self.targets.lowest_sm()
    }

    /// The lowest architecture that has the instruction with `n` source operands; 0 when it
    /// does not take `n`.
    #[inline]
    pub fn min_sm_with(&self, n: usize) -> u32 {
        self.targets_with(n).lowest_sm()
    }

    /// The legal operand counts, ascending.
    pub fn operand_counts(&self) -> Vec<usize> {
        (0..=MAX_SOURCES).filter(|&n| self.takes(n)).collect()
    }

    /// Whether `n` source operands are legal.
    pub fn takes(&self, n: usize) -> bool {
        !self.targets_with(n).is_empty()
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

    /// Whether the instruction is one of the low-precision conversions
    /// (src/ops/cvt_narrow.rs): a narrow type on either side, or `.satfinite`, `.rna`,
    /// `.rs` or `.scaled::n2::ue8m0`.
    pub fn is_low_precision(&self) -> bool {
        let Opcode::Cvt { from } = self.opcode else { return false };
        from.narrow().is_some()
            || self.ty.narrow().is_some()
            || self.mods.satfinite
            || self.mods.scaled
            || matches!(self.mode, Mode::TiesAway | Mode::Stochastic)
    }

    /// How well the returned bits are established (see [`Evidence`]).
    pub fn evidence(&self) -> Evidence {
        // The mixed-precision forms (§9.7.5): PTX defines them as the exact conversion of `a`
        // (and `b`) followed by the f32 operation, whose bits ptxfp has; no GPU of ptxfp's data
        // has them (sm_100), so their NaN results are the f32 rule's by inference.
        if self.mixed.is_some() {
            return Evidence::Documented;
        }
        match self.opcode {
            // The low-precision conversions: the rules PTX, NVIDIA's host code and ptxas's
            // lowering state (docs/semantics.md §8.4–§8.5), except where a rule is a
            // reading of what they leave open: tf32's low 13 bits from F2FP.TF32, the split of
            // the x4 forms' random bits, the scaled forms' scale and s2f6's saturation.
            Opcode::Cvt { from } if self.is_low_precision() => {
                let x4 = self.ty.lanes() == 4;
                let tf32_f2fp = self.ty == Type::Tf32 && matches!(self.mode, Mode::Round(_));
                let s2f6 = self.ty == Type::S2f6x2 || from == Type::S2f6x2;
                if x4 || tf32_f2fp || s2f6 || self.mods.scaled {
                    Evidence::Model
                } else {
                    Evidence::Documented
                }
            }
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
        for name in self.mods.spelled(self.ty) {
            f.write_str(name)?;
        }
        write!(f, ".{}", self.ty.name())?;
        if let Opcode::Cvt { from } = self.opcode {
            write!(f, ".{}", from.name())?;
        }
        if let Some(from) = self.mixed {
            write!(f, ".{}", from.name())?;
        }
        Ok(())
    }
}
