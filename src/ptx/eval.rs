//! Evaluation: an [`Instr`] applied to operand bit patterns, lane by lane for packed types,
//! through the scalar definitions of [`crate::ops`].

use super::instr::{Element, Instr, Mode, Opcode, Type};
use super::lower;
use super::target::{Target, TargetError};
use crate::format::Format;
use crate::mufu;
use crate::ops::minmax::{minmax, Extreme, MinMaxModifiers};
use crate::ops::{add, cvt, cvt_int, cvt_narrow, div, fma, mixed, mul, sign, sqrt, testp};
use crate::round::{relu, saturate, Dir, Rm, Rn, Rounding, Rp, Rz};

/// Why operands could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The number of operands is not one the instruction takes.
    #[error("{instr} takes {} operand(s), got {got}", alternatives(.legal))]
    OperandCount { instr: String, legal: Vec<usize>, got: usize },
    /// An operand has bits set above the width of its type.
    #[error("operand {} of {instr} is {value:#x}, wider than its type .{} ({} bits)", .index + 1, .ty.name(), .ty.bits())]
    OperandTooWide { instr: String, index: usize, value: u64, ty: Type },
    /// An FP6 operand sets the padding bits 7:6 of a byte, which PTX requires to be 0.
    #[error(
        "operand {} of {instr} is {value:#x}, which sets bits 7:6 of an .{} byte; PTX requires them to be 0 (the code is in bits 5:0: {:#x})",
        .index + 1, .ty.name(), .value & .ty.code_bits()
    )]
    OperandPadding { instr: String, index: usize, value: u64, ty: Type },
    /// The target architecture does not have the instruction.
    #[error(transparent)]
    Target(#[from] TargetError),
}

/// Operand counts as a message lists them: "2 or 3".
pub(crate) fn alternatives(counts: &[usize]) -> String {
    counts.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" or ")
}

/// What [`Instr::eval_unchecked`] runs, resolved once when the instruction is built, so that
/// the frequent scalar f32 instructions skip the general dispatch on format, opcode, precision
/// and result modifiers and call their definition directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Route {
    /// The general dispatch: every other instruction.
    General,
    /// `add`, `sub`, `mul`, `fma`/`mad` `.f32` with no result modifier (`.sat`), `.ftz` or not:
    /// one route per operation and rounding direction (spelled or not), so that the call is
    /// one jump to a definition specialised to its direction.
    F32AddRn,
    F32AddRz,
    F32AddRm,
    F32AddRp,
    F32SubRn,
    F32SubRz,
    F32SubRm,
    F32SubRp,
    F32MulRn,
    F32MulRz,
    F32MulRm,
    F32MulRp,
    F32FmaRn,
    F32FmaRz,
    F32FmaRm,
    F32FmaRp,
    /// `rcp`, `rsqrt`, `lg2` and `ex2` `.approx.ftz.f32` and `tanh.approx.f32`: one MUFU
    /// instruction each (EX2 after RRO on the targets that have it), called without the
    /// dispatch on the opcode.
    F32RcpApproxFtz,
    F32RsqrtApproxFtz,
    F32Lg2ApproxFtz,
    F32Ex2ApproxFtz,
    F32TanhApprox,
    /// The other `.approx` and `.full` `.f32` instructions, lowered as ptxas lowers them.
    F32Approx,
    /// The low-precision conversions ([`Instr::is_low_precision`]), which place their elements
    /// themselves ([`cvt_narrow::eval`]).
    LowPrecision,
    /// The mixed-precision arithmetic of §9.7.5 ([`Instr::mixed_source`]): the f32 operation
    /// on operands widened first ([`mixed`]).
    Mixed,
}

impl Route {
    /// The route of a built instruction; the general dispatch takes exactly the same path for
    /// each of the others.
    pub(crate) fn of(i: &Instr) -> Route {
        if i.is_low_precision() {
            return Route::LowPrecision;
        }
        if i.mixed.is_some() {
            return Route::Mixed;
        }
        if i.ty != Type::F32 {
            return Route::General;
        }
        let m = i.mods;
        let plain = !(m.sat || m.relu || m.oob);
        let by_rounding = |[rn, rz, rm, rp]: [Route; 4]| match i.rounding() {
            Rounding::Rn => rn,
            Rounding::Rz => rz,
            Rounding::Rm => rm,
            Rounding::Rp => rp,
        };
        use Route::*;
        match (i.opcode, i.mode) {
            (Opcode::Rcp, Mode::Approx) if m.ftz => F32RcpApproxFtz,
            (Opcode::Rsqrt, Mode::Approx) if m.ftz => F32RsqrtApproxFtz,
            (Opcode::Lg2, Mode::Approx) if m.ftz => F32Lg2ApproxFtz,
            (Opcode::Ex2, Mode::Approx) if m.ftz => F32Ex2ApproxFtz,
            (Opcode::Tanh, Mode::Approx) => F32TanhApprox,
            (_, Mode::Approx | Mode::Full) => F32Approx,
            (Opcode::Add, _) if plain => by_rounding([F32AddRn, F32AddRz, F32AddRm, F32AddRp]),
            (Opcode::Sub, _) if plain => by_rounding([F32SubRn, F32SubRz, F32SubRm, F32SubRp]),
            (Opcode::Mul, _) if plain => by_rounding([F32MulRn, F32MulRz, F32MulRm, F32MulRp]),
            (Opcode::Fma | Opcode::Mad, _) if plain => by_rounding([F32FmaRn, F32FmaRz, F32FmaRm, F32FmaRp]),
            _ => General,
        }
    }
}

// The definitions the f32 routes call, each out of line so that eval_unchecked itself stays a
// dispatch without a stack frame, and with one copy per rounding direction, in which the
// direction is a constant.

#[inline(never)]
fn f32_add<R: Dir>(a: u64, b: u64, ftz: bool) -> u64 {
    add::add(Format::F32, a, b, R::R, ftz)
}

#[inline(never)]
fn f32_sub<R: Dir>(a: u64, b: u64, ftz: bool) -> u64 {
    add::sub(Format::F32, a, b, R::R, ftz)
}

#[inline(never)]
fn f32_mul<R: Dir>(a: u64, b: u64, ftz: bool) -> u64 {
    mul::mul(Format::F32, a, b, R::R, ftz)
}

#[inline(never)]
fn f32_fma<R: Dir>(a: u64, b: u64, c: u64, ftz: bool) -> u64 {
    fma::fma(Format::F32, a, b, c, R::R, ftz)
}

#[inline(never)]
fn f32_approx(op: Opcode, full: bool, ftz: bool, a: u32, b: u32, target: Target) -> u32 {
    lower::f32_approx(op, full, ftz, a, b, target)
}

impl Instr {
    /// Evaluate on operand bit patterns (each in the low bits of a `u64`; packed types as one
    /// word, element 0 in the low half), as the default target (sm_90) computes it. Checks the
    /// operand count and widths, not whether sm_90 has the instruction: see [`Instr::eval_on`].
    #[inline]
    pub fn eval(&self, operands: &[u64]) -> Result<u64, EvalError> {
        self.check_operands(operands)?;
        Ok(self.eval_unchecked(Target::DEFAULT, operands))
    }

    /// Evaluate as `target` computes it: fails if the target lacks the instruction, and uses
    /// the target's lowering of the approximate instructions (docs/semantics.md §1.2).
    #[inline(always)]
    pub fn eval_on(&self, target: Target, operands: &[u64]) -> Result<u64, EvalError> {
        // Everything the checks below establish, in one test that reads only fields of the
        // instruction: the target has it with this many operands (the set for a count it does
        // not take is empty), and no operand is wider than its type.
        if self.targets_with(operands.len()).contains(target) & (self.bits_above_types(operands) == 0) {
            return Ok(self.eval_unchecked(target, operands));
        }
        Err(self.refusal(target, operands))
    }

    /// Why [`Instr::eval_on`] refuses `operands` on `target`: the first failing check of
    /// [`Target::check`], [`Instr::check_operands`] and [`Target::check_operand_count`].
    #[cold]
    #[inline(never)]
    fn refusal(&self, target: Target, operands: &[u64]) -> EvalError {
        let checks = target
            .check(self)
            .map_err(EvalError::Target)
            .and_then(|()| self.check_operands(operands))
            .and_then(|()| target.check_operand_count(self, operands.len()).map_err(EvalError::Target));
        checks.expect_err("eval_on refuses only operands that fail a check")
    }

    /// The operand count and widths. Allocates nothing unless it fails.
    #[inline]
    pub fn check_operands(&self, operands: &[u64]) -> Result<(), EvalError> {
        if (self.bits_above_types(operands) != 0) | !self.takes(operands.len()) {
            return Err(self.operand_error(operands));
        }
        Ok(())
    }

    /// The bits of `operands` that their types do not have: above their widths, or FP6
    /// padding (kept per operand by the instruction, [`Type::code_bits`]).
    #[inline(always)]
    fn bits_above_types(&self, operands: &[u64]) -> u64 {
        let m = &self.above_source;
        match *operands {
            [a] => a & m[0],
            [a, b] => (a & m[0]) | (b & m[1]),
            [a, b, c] => (a & m[0]) | (b & m[1]) | (c & m[2]),
            _ => operands.iter().zip(m).fold(0, |all, (&value, &mask)| all | (value & mask)),
        }
    }

    /// The error of a failed [`Instr::check_operands`]: the count first, then the first operand
    /// too wide for its type.
    #[cold]
    #[inline(never)]
    fn operand_error(&self, operands: &[u64]) -> EvalError {
        if !self.takes(operands.len()) {
            return EvalError::OperandCount {
                instr: self.to_string(),
                legal: self.operand_counts(),
                got: operands.len(),
            };
        }
        for (index, &value) in operands.iter().enumerate() {
            let ty = self.source_type(index);
            if ty.bits() < 64 && value >> ty.bits() != 0 {
                return EvalError::OperandTooWide { instr: self.to_string(), index, value, ty };
            }
            if value & !ty.code_bits() != 0 {
                return EvalError::OperandPadding { instr: self.to_string(), index, value, ty };
            }
        }
        unreachable!("operand_error on operands that pass check_operands")
    }

    /// Evaluate operands already known to be legal in count and width.
    #[inline(always)]
    pub fn eval_unchecked(&self, target: Target, x: &[u64]) -> u64 {
        let ftz = self.mods.ftz;
        match self.route {
            Route::F32AddRn => f32_add::<Rn>(x[0], x[1], ftz),
            Route::F32AddRz => f32_add::<Rz>(x[0], x[1], ftz),
            Route::F32AddRm => f32_add::<Rm>(x[0], x[1], ftz),
            Route::F32AddRp => f32_add::<Rp>(x[0], x[1], ftz),
            Route::F32SubRn => f32_sub::<Rn>(x[0], x[1], ftz),
            Route::F32SubRz => f32_sub::<Rz>(x[0], x[1], ftz),
            Route::F32SubRm => f32_sub::<Rm>(x[0], x[1], ftz),
            Route::F32SubRp => f32_sub::<Rp>(x[0], x[1], ftz),
            Route::F32MulRn => f32_mul::<Rn>(x[0], x[1], ftz),
            Route::F32MulRz => f32_mul::<Rz>(x[0], x[1], ftz),
            Route::F32MulRm => f32_mul::<Rm>(x[0], x[1], ftz),
            Route::F32MulRp => f32_mul::<Rp>(x[0], x[1], ftz),
            Route::F32FmaRn => f32_fma::<Rn>(x[0], x[1], x[2], ftz),
            Route::F32FmaRz => f32_fma::<Rz>(x[0], x[1], x[2], ftz),
            Route::F32FmaRm => f32_fma::<Rm>(x[0], x[1], x[2], ftz),
            Route::F32FmaRp => f32_fma::<Rp>(x[0], x[1], x[2], ftz),
            Route::F32RcpApproxFtz => u64::from(mufu::rcp(x[0] as u32)),
            Route::F32RsqrtApproxFtz => u64::from(mufu::rsq(x[0] as u32)),
            Route::F32Lg2ApproxFtz => u64::from(mufu::lg2(x[0] as u32)),
            Route::F32Ex2ApproxFtz => u64::from(lower::mufu_ex2_of_float(x[0] as u32, target)),
            Route::F32TanhApprox => u64::from(mufu::tanh::tanh(x[0] as u32)),
            Route::F32Approx => {
                let (a, b) = (x[0] as u32, x.get(1).map_or(0, |&b| b as u32));
                f32_approx(self.opcode, self.mode == Mode::Full, ftz, a, b, target) as u64
            }
            Route::LowPrecision => cvt_narrow::eval(&self.conversion(), x),
            Route::Mixed => self.mixed(target, x),
            Route::General if self.ty.lanes() == 1 => self.scalar(target, x),
            Route::General => self.packed(target, x),
        }
    }

    /// A mixed-precision instruction: its `a` (and `b`) widened exactly to f32 by
    /// [`mixed::widen`], then the f32 operation with the same modifiers (§9.7.5).
    #[inline(never)]
    fn mixed(&self, target: Target, x: &[u64]) -> u64 {
        let from = self.mixed.and_then(Type::float).expect("a mixed-precision instruction has a float source");
        let mut wide = [0u64; 3];
        for (k, (w, &v)) in wide.iter_mut().zip(x).enumerate() {
            *w = if self.source_type(k) == self.ty { v } else { mixed::widen(from, v) };
        }
        self.scalar_in(Format::F32, target, &wide[..x.len()])
    }

    /// The f32 instruction a mixed-precision one computes on its widened operands
    /// (`add.rn.sat.f32` for `add.rn.sat.f32.f16`), with the same targets; `self` otherwise.
    pub(crate) fn f32_form(&self) -> Instr {
        if self.mixed.is_none() {
            return *self;
        }
        let i = Instr { mixed: None, ..*self };
        let above_source = std::array::from_fn(|k| !i.source_type(k).code_bits());
        let i = Instr { above_source, ..i };
        Instr { route: Route::of(&i), ..i }
    }

    /// A packed type, element by element (out of line, so that the call of a scalar
    /// instruction does not set up this loop's frame).
    #[inline(never)]
    fn packed(&self, target: Target, x: &[u64]) -> u64 {
        if let Opcode::Cvt { .. } = self.opcode {
            // cvt.{f16x2,bf16x2}.f32 d, a, b: a goes to the upper half [DOC PTX cvt].
            let w = self.fmt.bits();
            return (self.scalar(target, &x[0..1]) << w) | self.scalar(target, &x[1..2]);
        }
        let fmt = self.fmt;
        let w = fmt.bits();
        let mut out = 0;
        for lane in 0..self.ty.lanes() {
            let mut lane_ops = [0u64; 3];
            for (dst, &src) in lane_ops.iter_mut().zip(x) {
                *dst = (src >> (lane * w)) & fmt.mask();
            }
            out |= self.scalar(target, &lane_ops[..x.len()]) << (lane * w);
        }
        out
    }

    /// One element.
    fn scalar(&self, target: Target, x: &[u64]) -> u64 {
        // Each arm sees its format as a constant, so the definitions specialise to it.
        match self.fmt {
            Format::F16 => self.scalar_in(Format::F16, target, x),
            Format::BF16 => self.scalar_in(Format::BF16, target, x),
            Format::F32 => self.scalar_in(Format::F32, target, x),
            Format::F64 => self.scalar_in(Format::F64, target, x),
        }
    }

    #[inline(always)]
    fn scalar_in(&self, fmt: Format, target: Target, x: &[u64]) -> u64 {
        match self.opcode {
            Opcode::Mufu(func) => return lower::mufu_op(func, fmt, self.mods.sat, x[0], target),
            Opcode::Rro(mode) => return lower::rro(mode, x[0] as u32) as u64,
            _ if matches!(self.mode, Mode::Approx | Mode::Full) => return self.approx(fmt, target, x),
            _ => {}
        }
        let rnd = self.rounding();
        let ftz = self.mods.ftz;
        let raw = match self.opcode {
            Opcode::Testp(p) => return testp::testp(fmt, p, x[0]),
            Opcode::Copysign => sign::copysign(fmt, x[0], x[1]),
            Opcode::Add => add::add(fmt, x[0], x[1], rnd, ftz),
            Opcode::Sub => add::sub(fmt, x[0], x[1], rnd, ftz),
            Opcode::Mul => mul::mul(fmt, x[0], x[1], rnd, ftz),
            Opcode::Fma | Opcode::Mad => fma::fma(fmt, x[0], x[1], x[2], rnd, ftz),
            Opcode::Div => div::div(fmt, x[0], x[1], rnd, ftz),
            Opcode::Rcp => div::rcp(fmt, x[0], rnd, ftz),
            Opcode::Sqrt => sqrt::sqrt(fmt, x[0], rnd, ftz),
            Opcode::Abs => sign::abs(fmt, x[0], ftz),
            Opcode::Neg => sign::neg(fmt, x[0], ftz),
            Opcode::Min | Opcode::Max => {
                let which = if self.opcode == Opcode::Min { Extreme::Min } else { Extreme::Max };
                let m = self.mods;
                let mods = MinMaxModifiers { ftz, nan: m.nan, abs: m.abs, xorsign: m.xorsign };
                minmax(fmt, which, x, mods)
            }
            // `fmt` is the float side: the source of a conversion to an integer type, else the
            // destination. `.sat` changes no float → integer result (they are clamped anyway).
            Opcode::Cvt { from } => match (from.element(), self.ty.element()) {
                (_, Element::Int(to)) => return cvt_int::float_to_int(fmt, to, x[0], rnd, ftz),
                (Element::Int(from), Element::Float(_)) => cvt_int::int_to_float(from, fmt, x[0], rnd),
                (Element::Float(_), Element::Float(_)) if matches!(self.mode, Mode::Integral(_)) => {
                    cvt::round_to_integral(fmt, x[0], rnd, ftz)
                }
                (Element::Float(_), Element::Float(_)) if from == self.ty => cvt::same_format(fmt, x[0], ftz),
                (Element::Float(src), Element::Float(_)) => cvt::cvt(src, fmt, x[0], rnd, ftz),
                (Element::Narrow(_), _) | (_, Element::Narrow(_)) => return cvt_narrow::eval(&self.conversion(), x),
            },
            Opcode::Rsqrt
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Lg2
            | Opcode::Ex2
            | Opcode::Tanh
            | Opcode::Mufu(_)
            | Opcode::Rro(_) => unreachable!("{self} is approximate: the catalog spells it with .approx"),
        };
        let m = self.mods;
        if m.oob | m.relu | m.sat {
            self.clamp(fmt, x, raw)
        } else {
            raw
        }
    }

    /// The low-precision conversion this instruction is ([`Instr::is_low_precision`]).
    pub(crate) fn conversion(&self) -> cvt_narrow::Conversion {
        let Opcode::Cvt { from } = self.opcode else { unreachable!("{self} is not a conversion") };
        let round = match self.mode {
            Mode::TiesAway => cvt_narrow::Round::TiesAway,
            Mode::Stochastic => cvt_narrow::Round::Stochastic,
            _ => cvt_narrow::Round::Dir(self.rounding()),
        };
        let m = self.mods;
        cvt_narrow::Conversion { from, to: self.ty, round, relu: m.relu, satfinite: m.satfinite, scaled: m.scaled }
    }

    /// One element of an `.approx` or `.full` instruction, lowered as ptxas lowers it.
    #[inline(always)]
    fn approx(&self, fmt: Format, target: Target, x: &[u64]) -> u64 {
        let ftz = self.mods.ftz;
        match fmt {
            Format::F32 => {
                let (a, b) = (x[0] as u32, x.get(1).map_or(0, |&b| b as u32));
                lower::f32_approx(self.opcode, self.mode == Mode::Full, ftz, a, b, target) as u64
            }
            Format::F64 => lower::f64_approx(self.opcode, ftz, x[0]),
            half => lower::half_approx(self.opcode, half, x[0] as u16) as u64,
        }
    }

    /// The result modifiers, in the order the hardware applies them: `.oob`, then `.relu` or
    /// `.sat`.
    ///
    /// `.oob` forces +0 when a multiplicand (`a` or `b`) is the "OOB NaN" of tensor loads
    /// \[DOC PTX 9.7.4.4\], ±0x7FF7 \[HW, [`crate::nan::OOB_NAN_MAGNITUDE`]\].
    #[cold]
    #[inline(never)]
    fn clamp(&self, fmt: Format, x: &[u64], r: u64) -> u64 {
        let r = if self.mods.oob && x[..2].iter().any(|&v| crate::nan::is_oob_nan(v)) { 0 } else { r };
        let r = if self.mods.relu { relu(fmt, r) } else { r };
        if self.mods.sat {
            saturate(fmt, r)
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::catalog;

    /// `eval_on`'s one-test admission accepts exactly what the three checks accept, and a
    /// refusal is their first error: every spelling on every known target, with zero to four
    /// operands that fit their type or one that does not.
    #[test]
    fn eval_on_admits_exactly_what_the_checks_admit() {
        for e in catalog::entries() {
            let instr = e.instr;
            let fits = instr.source_bits();
            for target in crate::ptx::KNOWN_TARGETS {
                for n in 0..=crate::ptx::MAX_SOURCES + 1 {
                    for wide in [None, Some(n.saturating_sub(1))] {
                        let mut operands = vec![1u64; n];
                        if let (Some(i), true) = (wide, fits < 64 && n > 0) {
                            operands[i] = 1 << fits;
                        }
                        let checks = target
                            .check(&instr)
                            .map_err(EvalError::Target)
                            .and_then(|()| instr.check_operands(&operands))
                            .and_then(|()| target.check_operand_count(&instr, n).map_err(EvalError::Target));
                        let got = instr.eval_on(target, &operands);
                        match checks {
                            Ok(()) => {
                                assert_eq!(got, Ok(instr.eval_unchecked(target, &operands)), "{instr} on {target}")
                            }
                            Err(want) => assert_eq!(got, Err(want), "{instr} on {target} with {operands:x?}"),
                        }
                    }
                }
            }
        }
    }

    /// Every instruction with its own route gives what the general dispatch gives, on every
    /// target that lowers differently, for operands of every class.
    #[test]
    fn routes_agree_with_the_general_dispatch() {
        let mut rng = crate::sweep::domain::Rng::for_case(5, 0);
        let mut next = move || rng.next();
        let specials =
            [0, 0x8000_0000, 1, 0x807F_FFFF, 0x0080_0000, 0x7F7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0001];
        let mut routed = 0;
        for e in catalog::entries() {
            let instr = e.instr;
            // A low-precision conversion's route is its definition, which the general
            // dispatch calls too.
            // A mixed-precision one's is its only definition.
            if matches!(instr.route, Route::General | Route::LowPrecision | Route::Mixed) {
                continue;
            }
            routed += 1;
            for target in [Target::new(50).unwrap(), Target::new(62).unwrap(), Target::DEFAULT] {
                for _ in 0..2000 {
                    let mut x = [0u64; 3];
                    for v in &mut x[..e.sources] {
                        let r = next();
                        *v = match r % 4 {
                            0 => specials[(r >> 8) as usize % specials.len()],
                            1 => r >> 32,
                            _ => ((r >> 32) as u32 & 0x87FF_FFFF | 0x3800_0000) as u64,
                        };
                    }
                    let x = &x[..e.sources];
                    assert_eq!(instr.eval_unchecked(target, x), instr.scalar(target, x), "{instr} {x:#x?} on {target}");
                }
            }
        }
        // add, sub, mul: 5 roundings × .ftz; fma, mad: 4 × .ftz; 19 approximate spellings.
        assert_eq!(routed, 3 * 10 + 2 * 8 + 19);
    }
}
