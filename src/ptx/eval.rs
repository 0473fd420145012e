//! Evaluation: an [`Instr`] applied to operand bit patterns, lane by lane for packed types,
//! through the scalar definitions of [`crate::ops`].

use std::fmt;

use super::instr::{Instr, Mode, Opcode, Type};
use super::lower;
use super::target::Target;
use crate::format::Format;
use crate::ops::minmax::{minmax, Extreme, MinMaxModifiers};
use crate::ops::{add, cvt, div, fma, mul, sign, sqrt, testp};
use crate::round::{relu, saturate};

/// Why operands could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// The number of operands is not one the instruction takes.
    OperandCount { instr: String, legal: Vec<usize>, got: usize },
    /// An operand has bits set above the width of its type.
    OperandTooWide { instr: String, index: usize, value: u64, ty: Type },
    /// The target architecture does not have the instruction.
    Target { message: String },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::OperandCount { instr, legal, got } => {
                let legal: Vec<String> = legal.iter().map(|n| n.to_string()).collect();
                write!(f, "{instr} takes {} operand(s), got {got}", legal.join(" or "))
            }
            EvalError::OperandTooWide { instr, index, value, ty } => write!(
                f,
                "operand {} of {instr} is {value:#x}, wider than its type .{} ({} bits)",
                index + 1,
                ty.name(),
                ty.bits()
            ),
            EvalError::Target { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for EvalError {}

impl Instr {
    /// Evaluate on operand bit patterns (each in the low bits of a `u64`; packed types as one
    /// word, element 0 in the low half), as the default target (sm_90) computes it. Checks the
    /// operand count and widths, not whether sm_90 has the instruction: see [`Instr::eval_on`].
    pub fn eval(&self, operands: &[u64]) -> Result<u64, EvalError> {
        self.check_operands(operands)?;
        Ok(self.eval_unchecked(Target::DEFAULT, operands))
    }

    /// Evaluate as `target` computes it: fails if the target lacks the instruction, and uses
    /// the target's lowering of the approximate instructions (SEMANTICS §1.2).
    pub fn eval_on(&self, target: Target, operands: &[u64]) -> Result<u64, EvalError> {
        target.check(self).map_err(|message| EvalError::Target { message })?;
        self.check_operands(operands)?;
        Ok(self.eval_unchecked(target, operands))
    }

    /// The operand count and widths. Allocates nothing unless it fails.
    #[inline]
    pub fn check_operands(&self, operands: &[u64]) -> Result<(), EvalError> {
        // Every source operand has the same type (only cvt's differs from the destination's).
        let bits = self.source_type(0).bits();
        let too_wide = bits < 64 && operands.iter().any(|&value| value >> bits != 0);
        if too_wide || !self.takes(operands.len()) {
            return Err(self.operand_error(operands));
        }
        Ok(())
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
        }
        unreachable!("operand_error on operands that pass check_operands")
    }

    /// Evaluate operands already known to be legal in count and width.
    pub fn eval_unchecked(&self, target: Target, x: &[u64]) -> u64 {
        if self.ty.lanes() == 1 {
            return self.scalar(target, x);
        }
        self.packed(target, x)
    }

    /// A packed type, element by element (out of line, so that the call of a scalar
    /// instruction does not set up this loop's frame).
    #[inline(never)]
    fn packed(&self, target: Target, x: &[u64]) -> u64 {
        if let Opcode::Cvt { .. } = self.opcode {
            // cvt.{f16x2,bf16x2}.f32 d, a, b: a goes to the upper half [DOC PTX cvt].
            let w = self.ty.scalar().bits();
            return (self.scalar(target, &x[0..1]) << w) | self.scalar(target, &x[1..2]);
        }
        let fmt = self.ty.scalar();
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
        match self.ty.scalar() {
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
            Opcode::Cvt { from } => cvt::cvt(from.scalar(), fmt, x[0], rnd, ftz),
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
    /// `.oob` forces +0 when an operand is the "OOB NaN" of tensor loads \[DOC PTX 9.7.4.4\];
    /// that NaN's bit pattern is not given in the excerpts and is taken to be the canonical
    /// NaN 0x7FFF \[UNK\].
    #[cold]
    #[inline(never)]
    fn clamp(&self, fmt: Format, x: &[u64], r: u64) -> u64 {
        let r = if self.mods.oob && x.iter().any(|&v| v == fmt.canonical_nan()) { 0 } else { r };
        let r = if self.mods.relu { relu(fmt, r) } else { r };
        if self.mods.sat {
            saturate(fmt, r)
        } else {
            r
        }
    }
}
