//! What a sweep compares an instruction with: the exact function correctly rounded, another
//! instruction, or a file of expected results such as a GPU dump.

use std::path::Path;

use super::error::{Error, ReferenceError};
use super::exact::{self, MathFn};
use crate::batch::Word;
use crate::format::Format;
use crate::io::Reader;
use crate::kernels::{self, Kernel};
use crate::ptx::{Instr, Mode, MufuFn, Opcode, Target};
use crate::round::{self, Rounding};

/// A reference for the results of one instruction.
pub struct Reference {
    kind: Kind,
    description: String,
}

enum Kind {
    /// `f` of the (flushed, when `ftz`) inputs, correctly rounded to nearest in the result
    /// format, then flushed (`ftz`) and clamped to [+0, 1] (`sat`) as the instruction does.
    Math { f: MathFn, ftz: bool, sat: bool },
    /// Another instruction on the same operands.
    Instr { instr: Instr, kernel: Option<Kernel> },
    /// Expected results in domain order (not opened when the sweep is only planned).
    Dump { reader: Option<Reader> },
}

impl Reference {
    /// The exact function `instr` computes or approximates, correctly rounded to nearest in its
    /// result format: 1/x, sqrt x, 1/sqrt x, 2^x, log2 x, sin x, cos x, tanh x (MUFU.SIN/COS
    /// take turns: sin 2πx); for add, sub, mul, fma, mad and div (every mode) the same
    /// operation rounded to nearest by ptxfp's IEEE core (verified against rustc_apfloat and
    /// the IBM FPgen vectors).
    pub fn default_for(instr: &Instr) -> Result<Reference, ReferenceError> {
        let ty = instr.ty();
        if ty.lanes() != 1 {
            return Err(ReferenceError::Packed { instr: *instr });
        }
        let mods = instr.modifiers();
        let math = match instr.opcode() {
            Opcode::Rcp => Some((MathFn::Rcp, mods.ftz)),
            Opcode::Sqrt => Some((MathFn::Sqrt, mods.ftz)),
            Opcode::Rsqrt => Some((MathFn::Rsqrt, mods.ftz)),
            Opcode::Ex2 => Some((MathFn::Ex2, mods.ftz)),
            Opcode::Lg2 => Some((MathFn::Lg2, mods.ftz)),
            Opcode::Sin => Some((MathFn::Sin, mods.ftz)),
            Opcode::Cos => Some((MathFn::Cos, mods.ftz)),
            Opcode::Tanh => Some((MathFn::Tanh, mods.ftz)),
            // MUFU flushes subnormal inputs and results (docs/semantics.md §5) except TANH and EX2.F16.
            Opcode::Mufu(MufuFn::Rcp) => Some((MathFn::Rcp, true)),
            Opcode::Mufu(MufuFn::Rsq) => Some((MathFn::Rsqrt, true)),
            Opcode::Mufu(MufuFn::Sqrt) => Some((MathFn::Sqrt, true)),
            Opcode::Mufu(MufuFn::Ex2) => Some((MathFn::Ex2, instr.format() != Format::F16)),
            Opcode::Mufu(MufuFn::Lg2) => Some((MathFn::Lg2, true)),
            Opcode::Mufu(MufuFn::Sin) => Some((MathFn::SinTurns, true)),
            Opcode::Mufu(MufuFn::Cos) => Some((MathFn::CosTurns, true)),
            Opcode::Mufu(MufuFn::Tanh) => Some((MathFn::Tanh, false)),
            _ => None,
        };
        let fmt = instr.format();
        if let Some((f, ftz)) = math {
            if fmt == Format::F64 && !matches!(f, MathFn::Rcp | MathFn::Sqrt | MathFn::Rsqrt) {
                return Err(ReferenceError::NoF64 { formula: f.formula() });
            }
            let mut description = format!("{} correctly rounded to {}", f.formula(), fmt.name());
            if ftz {
                description.push_str(", subnormal inputs and results flushed to zero");
            }
            return Ok(Reference { kind: Kind::Math { f, ftz, sat: mods.sat }, description });
        }
        if matches!(instr.opcode(), Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma | Opcode::Mad | Opcode::Div) {
            let rn = Instr { mode: Mode::Round(Rounding::Rn), ..*instr };
            let description = format!("{rn} (the exact result rounded to nearest)");
            return Ok(Reference {
                kind: Kind::Instr { instr: rn, kernel: kernels::select(&rn, Target::DEFAULT) },
                description,
            });
        }
        Err(ReferenceError::NoDefault { instr: *instr })
    }

    /// Another instruction with the same operand and result types.
    pub fn instr(reference: Instr, instr: &Instr, target: Target) -> Result<Reference, Error> {
        target.check(&reference)?;
        if reference.source_type(0) != instr.source_type(0) || reference.result_bits() != instr.result_bits() {
            return Err(ReferenceError::OtherTypes { reference, instr: *instr }.into());
        }
        let counts = instr.operand_counts();
        if !counts.iter().any(|&n| reference.takes(n)) {
            return Err(ReferenceError::OtherOperandCount { reference, instr: *instr, operands: counts[0] }.into());
        }
        let description = reference.to_string();
        Ok(Reference {
            kind: Kind::Instr { kernel: kernels::select(&reference, target), instr: reference },
            description,
        })
    }

    /// A file of `count` expected results of `instr`, in domain order (raw little-endian words
    /// of the result width, or `.npy`). With `open` false the file is only named.
    pub fn dump(path: &Path, instr: &Instr, count: u64, open: bool) -> Result<Reference, ReferenceError> {
        let description = format!("dump {}", path.display());
        if !open {
            return Ok(Reference { kind: Kind::Dump { reader: None }, description });
        }
        let bits = instr.result_bits();
        let reader = Reader::open(path, bits)?;
        if reader.bits() != bits {
            let held = reader.dtype().map_or(format!("{}-bit words", reader.bits()), |d| format!("{d} data"));
            let legal = crate::io::Dtype::accepted(instr.ty()).iter().map(|d| d.name()).collect();
            return Err(ReferenceError::DumpWidth { path: path.into(), held, instr: *instr, legal });
        }
        if reader.len() != count {
            return Err(ReferenceError::DumpLength { path: path.into(), len: reader.len(), count });
        }
        Ok(Reference { kind: Kind::Dump { reader: Some(reader) }, description })
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    /// What absolute and relative errors are measured against.
    pub fn errors_against(&self) -> String {
        match &self.kind {
            Kind::Math { .. } => "the exact value".into(),
            Kind::Instr { instr, .. } => format!("the value of {instr}'s result"),
            Kind::Dump { .. } => "the value of the dump's result".into(),
        }
    }

    /// Whether results must match bit for bit (dumps and instructions), rather than up to NaN
    /// payloads (mathematical references).
    pub fn bitwise(&self) -> bool {
        !matches!(self.kind, Kind::Math { .. })
    }

    /// Evaluate inputs `start..start + rounded.len()` (their operands in `inputs`): the
    /// reference's result bits into `rounded` and its value (the exact value for a mathematical
    /// reference) into `value`.
    pub(crate) fn eval_block<W: Word>(
        &self,
        target: Target,
        fmt: Format,
        start: u64,
        inputs: &[&[W]],
        rounded: &mut [W],
        value: &mut [f64],
    ) -> Result<(), ReferenceError> {
        match &self.kind {
            Kind::Math { f, ftz, sat } => {
                math_block(*f, fmt, *ftz, inputs[0], rounded, value);
                if *sat {
                    for (r, v) in rounded.iter_mut().zip(value.iter_mut()) {
                        let bits;
                        (bits, *v) = saturate(fmt, r.to_u64(), *v);
                        *r = W::from_u64(bits);
                    }
                }
            }
            Kind::Instr { instr, kernel } => {
                instr.eval_block(target, *kernel, inputs, rounded);
                for (v, r) in value.iter_mut().zip(rounded.iter()) {
                    *v = fmt.to_f64(r.to_u64());
                }
            }
            Kind::Dump { reader } => {
                let reader = reader.as_ref().ok_or(ReferenceError::DumpNotOpened)?;
                reader.read_at(start, rounded)?;
                for (v, r) in value.iter_mut().zip(rounded.iter()) {
                    *v = fmt.to_f64(r.to_u64());
                }
            }
        }
        Ok(())
    }

    /// For a run of consecutive f32 inputs `first..=last` (ascending bit patterns, one block of
    /// a sweep) on which this reference writes one result throughout, with values monotone
    /// along the run: that result. Such runs are those of [`exact::f32_constant_run`]; `.sat`
    /// clamps the result and the values monotonically, so they stay constant and monotone.
    pub(crate) fn f32_constant_run(&self, first: u32, last: u32) -> Option<u32> {
        let Kind::Math { f, ftz, .. } = self.kind else { return None };
        exact::f32_constant_run(f, ftz, first, last).then(|| self.f32_at(first).0)
    }

    /// The result and value of the f32 input `x` of a mathematical reference, as
    /// [`Reference::eval_block`] computes them in any block (each input's value is a function
    /// of that input alone, `exact::f32_block`).
    pub(crate) fn f32_at(&self, x: u32) -> (u32, f64) {
        let (mut rounded, mut value) = ([0u32], [0f64]);
        // Only a dump can fail, and a dump is not a function of the inputs.
        self.eval_block(Target::DEFAULT, Format::F32, 0, &[&[x]], &mut rounded, &mut value)
            .expect("a mathematical reference");
        (rounded[0], value[0])
    }
}

/// `.sat` on the rounded result ([`round::saturate`]) and on the exact value alike.
fn saturate(fmt: Format, bits: u64, value: f64) -> (u64, f64) {
    let clamped = round::saturate(fmt, bits);
    let value = if clamped == bits { value.clamp(0.0, 1.0) } else { fmt.to_f64(clamped) };
    (clamped, value)
}

/// The correctly rounded function on a block of words of `fmt`, subnormal inputs and results
/// flushed to zeros of their sign with `ftz`.
fn math_block<W: Word>(f: MathFn, fmt: Format, ftz: bool, x: &[W], rounded: &mut [W], value: &mut [f64]) {
    match fmt {
        Format::F32 => exact::f32_block(f, ftz, bytemuck::cast_slice(x), value, bytemuck::cast_slice_mut(rounded)),
        Format::F16 | Format::BF16 => {
            exact::half_block(f, fmt, ftz, bytemuck::cast_slice(x), value, bytemuck::cast_slice_mut(rounded))
        }
        Format::F64 => {
            let flush = |b: u64| if ftz { fmt.flush_subnormal(b) } else { b };
            for ((x, r), v) in x.iter().zip(rounded.iter_mut()).zip(value.iter_mut()) {
                let x = f64::from_bits(flush(x.to_u64()));
                // Each is correctly rounded in f64: IEEE division and square root, CORE-MATH rsqrt.
                *v = match f {
                    MathFn::Rcp => 1.0 / x,
                    MathFn::Sqrt => x.sqrt(),
                    MathFn::Rsqrt => core_math::rsqrt(x),
                    _ => unreachable!("no f64 reference for {f:?}"),
                };
                *r = W::from_u64(flush(v.to_bits()));
            }
        }
    }
}
