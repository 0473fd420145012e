//! Evaluation: an [`Instr`] applied to operand bit patterns, lane by lane for packed types,
//! through the scalar definitions of [`crate::ops`].

use std::fmt;

use super::instr::{Instr, Mode, Opcode, Type};
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
    /// The instruction is legal but ptxfp does not evaluate it yet.
    Unsupported { instr: String },
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
            EvalError::Unsupported { instr } => write!(f, "{instr} is not evaluated by this version of ptxfp"),
        }
    }
}

impl std::error::Error for EvalError {}

impl Instr {
    /// Evaluate on operand bit patterns (each in the low bits of a `u64`; packed types as one
    /// word, element 0 in the low half). Checks the operand count and widths.
    pub fn eval(&self, operands: &[u64]) -> Result<u64, EvalError> {
        if !self.takes(operands.len()) {
            return Err(EvalError::OperandCount {
                instr: self.to_string(),
                legal: self.operand_counts(),
                got: operands.len(),
            });
        }
        for (index, &value) in operands.iter().enumerate() {
            let ty = self.source_type(index);
            if ty.bits() < 64 && value >> ty.bits() != 0 {
                return Err(EvalError::OperandTooWide { instr: self.to_string(), index, value, ty });
            }
        }
        if !self.is_evaluated() {
            return Err(EvalError::Unsupported { instr: self.to_string() });
        }
        Ok(self.eval_unchecked(operands))
    }

    /// Whether this version evaluates the instruction.
    pub fn is_evaluated(&self) -> bool {
        match self.opcode {
            Opcode::Div | Opcode::Rcp | Opcode::Sqrt => matches!(self.mode, Mode::Round(_)),
            Opcode::Rsqrt | Opcode::Sin | Opcode::Cos | Opcode::Lg2 | Opcode::Ex2 | Opcode::Tanh => false,
            Opcode::Mufu(_) | Opcode::Rro(_) => false,
            _ => true,
        }
    }

    /// Evaluate operands already known to be legal in count and width.
    pub fn eval_unchecked(&self, x: &[u64]) -> u64 {
        if let (Opcode::Cvt { .. }, 2) = (self.opcode, self.ty.lanes()) {
            // cvt.{f16x2,bf16x2}.f32 d, a, b: a goes to the upper half [DOC PTX cvt].
            let w = self.ty.scalar().bits();
            return (self.scalar(&x[0..1]) << w) | self.scalar(&x[1..2]);
        }
        if self.ty.lanes() == 1 {
            return self.scalar(x);
        }
        let fmt = self.ty.scalar();
        let w = fmt.bits();
        let mut out = 0;
        for lane in 0..self.ty.lanes() {
            let mut lane_ops = [0u64; 3];
            for (dst, &src) in lane_ops.iter_mut().zip(x) {
                *dst = (src >> (lane * w)) & fmt.mask();
            }
            out |= self.scalar(&lane_ops[..x.len()]) << (lane * w);
        }
        out
    }

    /// One element.
    fn scalar(&self, x: &[u64]) -> u64 {
        let fmt = self.ty.scalar();
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
            | Opcode::Rro(_) => unreachable!("{self} is not evaluated (is_evaluated)"),
        };
        self.clamp(fmt, x, raw)
    }

    /// The result modifiers, in the order the hardware applies them: `.oob`, then `.relu` or
    /// `.sat`.
    ///
    /// `.oob` forces +0 when an operand is the "OOB NaN" of tensor loads [DOC PTX 9.7.4.4];
    /// that NaN's bit pattern is not given in the excerpts and is taken to be the canonical
    /// NaN 0x7FFF [UNK].
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
