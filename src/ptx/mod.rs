//! PTX and SASS instructions: the [`Instr`] type, its parser and catalog, and evaluation.

pub mod catalog;
mod eval;
mod instr;
mod lower;
mod parse;
mod target;

pub(crate) use eval::alternatives;
pub use eval::EvalError;
pub use instr::{
    Element, Evidence, Instr, IntSide, Mode, Modifiers, MufuFn, Opcode, RroMode, Type, MAX_SOURCES, SCALED,
};
pub use parse::{ParseError, ParseErrorKind};
pub use target::{Requirement, Target, TargetError, Targets, Variant, KNOWN_SM, KNOWN_TARGETS};
