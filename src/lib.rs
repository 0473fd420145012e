//! ptxfp evaluates NVIDIA GPU floating-point instructions on the CPU and returns exactly the
//! bits the GPU writes.
//!
//! ```
//! let fma: ptxfp::Instr = "fma.rn.ftz.f32".parse().unwrap();
//! let r = fma.eval(&[0x3F80_0000, 0x4000_0000, 0x3F80_0000]).unwrap();
//! assert_eq!(r, 0x4040_0000); // 1·2 + 1 = 3
//! ```
//!
//! Every instruction has one scalar definition (the `ops` modules), written after the rules of
//! docs/semantics.md; values travel as raw bits in the low bits of a `u64`.

/// Declares modules public only with the feature `internals` (the scalar building blocks under
/// the instructions, the sweep's exact references), which this crate's tests reach (the
/// README's test command turns the feature on). Unstable: no promise is made about them.
macro_rules! internal_modules {
    ($($name:ident,)*) => {$(
        #[cfg(feature = "internals")]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        mod $name;
    )*};
}

// The API: the instruction model and its evaluation (re-exported below), files of operands,
// error analysis, GPU capture kits, throughput measurement, operands and user input as text.
pub mod bench;
#[cfg(feature = "sweep")]
pub mod capture;
pub mod io;
pub mod mma;
pub mod operand;
pub mod ptx;
pub mod quote;
#[cfg(feature = "sweep")]
pub mod sweep;

mod batch;
mod format;
mod kernels;
mod narrow;
mod prepared;

internal_modules! {
    mufu,
    nan,
    ops,
    round,
}

pub use batch::{with_words, BatchError, BatchPath, Word, WordsFn};
pub use format::{Format, Unpacked};
pub use kernels::{FloatEnvironmentError, SimdLevel, SimdLevelError, SIMD_LEVEL_VARIABLE};
pub use narrow::{Narrow, Specials};
pub use ops::cvt_int::IntType;
pub use prepared::Prepared;
pub use ptx::{
    Element, EvalError, Evidence, Instr, IntSide, Mode, Modifiers, Opcode, ParseError, ParseErrorKind, Target,
    TargetError, Type,
};
pub use round::Rounding;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
