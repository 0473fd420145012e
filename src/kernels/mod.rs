//! SIMD batch kernels on the array lanes of [`simd`], one file per family, compiled for every
//! SIMD level of [`level`], and the dispatch that picks one for an instruction at the level
//! the processor runs. A kernel evaluates a chunk of buffers and must be bit-identical to the
//! scalar definition of every instruction it accepts at every level
//! (tests/batch_equivalence_*.rs). Instructions without a kernel are evaluated by their scalar
//! definition in parallel.

/// The [`Kernel`] of a width-generic kernel function `f::<L, T, N, …>` for the words of a
/// format: 16-bit elements 32 to a vector, 32-bit words 16, 64-bit words 8 (one 512-bit
/// register's worth each), further const arguments passed through.
macro_rules! by_width {
    ($fmt:expr, $f:ident::<$l:ident $(, $extra:tt)*>) => {
        match $fmt {
            $crate::format::Format::F16 | $crate::format::Format::BF16 => {
                $crate::kernels::Kernel::W16($f::<$l, u16, 32 $(, $extra)*>)
            }
            $crate::format::Format::F32 => $crate::kernels::Kernel::W32($f::<$l, u32, 16 $(, $extra)*>),
            $crate::format::Format::F64 => $crate::kernels::Kernel::W64($f::<$l, u64, 8 $(, $extra)*>),
        }
    };
}

mod arith_f32;
#[cfg(target_arch = "x86_64")]
mod arith_f64;
mod convert;
mod cvt_int;
mod cvt_narrow;
mod div_sqrt;
mod f64_directed;
pub(crate) mod float_env;
mod half;
mod lanes;
pub(crate) mod level;
mod minmax;
mod mixed;
mod mufu_64h;
mod mufu_f32;
mod mufu_half;
mod mufu_lanes;
mod rro;
mod same_format;
mod sign;
pub(crate) mod simd;
mod testp;

pub use float_env::FloatEnvironmentError;
use level::Isa;
pub use level::{SimdLevel, SimdLevelError, SIMD_LEVEL_VARIABLE};

use crate::batch::Word;
use crate::ptx::{Instr, Target};

/// A kernel over one chunk: `dst[i] = instr(srcs[0][i], …)`.
#[derive(Clone, Copy)]
pub(crate) enum Kernel {
    /// 32-bit operand and result words (f32, f16x2, bf16x2), or f32x2 words passed as two
    /// f32 elements each.
    W32(fn(&Instr, &[&[u32]], &mut [u32])),
    /// A one-operand f32 kernel (`block`, as `W32`) with a second form for the sweep's runs of
    /// consecutive inputs, which needs no buffer: `on_run(first, n, c)` says whether every
    /// result of the inputs `first, first + 1, …, first + n − 1` is the word `c`.
    F32Unary {
        block: fn(&Instr, &[&[u32]], &mut [u32]),
        #[cfg(feature = "sweep")]
        on_run: fn(u32, usize, u32) -> bool,
    },
    /// 16-bit elements: f16 and bf16 words, or f16x2 and bf16x2 words passed as two elements
    /// each (element 0, the low half, first).
    W16(fn(&Instr, &[&[u16]], &mut [u16])),
    /// 64-bit operand and result words (f64).
    W64(fn(&Instr, &[&[u64]], &mut [u64])),
    /// Operand and result words of different widths (`cvt`), passed as their bytes, which
    /// the kernel reads back as the words they are.
    Bytes(fn(&Instr, &[&[u8]], &mut [u8])),
    /// As `Bytes`, by a table of the scalar definition over every element the instruction
    /// can see, built once (cvt_narrow.rs's up-conversions).
    Table(fn(&Instr, &[&[u8]], &mut [u8])),
}

impl Kernel {
    /// Run on buffers whose word widths [`Instr::check_batch`] has verified.
    pub(crate) fn run<S: Word, D: Word>(self, instr: &Instr, srcs: &[&[S]], dst: &mut [D]) {
        match self {
            Kernel::W32(f) | Kernel::F32Unary { block: f, .. } => call(f, instr, srcs, dst),
            Kernel::W16(f) => call(f, instr, srcs, dst),
            Kernel::W64(f) => call(f, instr, srcs, dst),
            Kernel::Bytes(f) | Kernel::Table(f) => call(f, instr, srcs, dst),
        }
    }

    /// Whether every result of the `n` consecutive f32 inputs `first, first + 1, …,
    /// first + n − 1` (`n` ≥ 1, no wrap past `u32::MAX`) is the word `c`, evaluated without
    /// buffers; `None` for a kernel without that form ([`Kernel::F32Unary`]) and, as
    /// [`Instr::eval_block`] runs a kernel, under another floating-point environment than the
    /// default.
    #[cfg(feature = "sweep")]
    pub(crate) fn all_equal_on_run(self, first: u32, n: usize, c: u32) -> Option<bool> {
        match self {
            Kernel::F32Unary { on_run, .. } if float_env::is_default() => Some(on_run(first, n, c)),
            _ => None,
        }
    }
}

/// `f` on the buffers reinterpreted as words of type `W` (little-endian, so a packed word's
/// element 0 comes first).
fn call<W: bytemuck::Pod, S: Word, D: Word>(
    f: fn(&Instr, &[&[W]], &mut [W]),
    instr: &Instr,
    srcs: &[&[S]],
    dst: &mut [D],
) {
    let mut words: [&[W]; crate::ptx::MAX_SOURCES] = [&[]; crate::ptx::MAX_SOURCES];
    for (w, s) in words.iter_mut().zip(srcs) {
        *w = bytemuck::cast_slice(s);
    }
    f(instr, &words[..srcs.len()], bytemuck::cast_slice_mut(dst));
}

/// The kernel for `instr` on `target` at the [`SimdLevel::active`] level, if there is one.
pub(crate) fn select(instr: &Instr, target: Target) -> Option<Kernel> {
    select_at(instr, target, SimdLevel::active())
}

/// The kernel for `instr` on `target` at `level`, which the processor must have
/// ([`SimdLevel::is_supported`]).
pub(crate) fn select_at(instr: &Instr, target: Target, level: SimdLevel) -> Option<Kernel> {
    assert!(level.is_supported(), "the processor lacks the {level} kernels");
    level::at_level!(level, L => select_for::<L>(instr, target))
}

/// The kernel compiled for the level `L`.
fn select_for<L: Isa>(instr: &Instr, target: Target) -> Option<Kernel> {
    // The low-precision conversions (cvt_narrow.rs; the forms it lacks run their scalar
    // definition). Their f16/bf16 `.satfinite` forms share the types of the conversions below
    // and must not reach them.
    if instr.is_low_precision() {
        return cvt_narrow::select::<L>(instr);
    }
    // The mixed-precision arithmetic, whose f32 forms come next: widened, then theirs
    // (mixed.rs).
    if instr.mixed_source().is_some() {
        return mixed::select::<L>(instr);
    }
    // --- exact arithmetic: add, sub, mul, fma, mad on f32/f32x2 (arith_f32.rs), on
    // f16/f16x2/bf16/bf16x2 (half.rs) and, with AVX-512, on f64 (arith_f64.rs) ---
    if let Some(kernel) = arith_f32::select::<L>(instr).or_else(|| half::select::<L>(instr)) {
        return Some(kernel);
    }
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        if let Some(kernel) = arith_f64::select::<L>(instr) {
            return Some(kernel);
        }
    }
    // div, rcp and sqrt on f32 and, with AVX-512, on f64 (div_sqrt.rs)
    if let Some(kernel) = div_sqrt::select::<L>(instr) {
        return Some(kernel);
    }
    // f64 arithmetic without AVX-512: directed results from the nearest one (f64_directed.rs)
    if let Some(kernel) = f64_directed::select::<L>(instr) {
        return Some(kernel);
    }
    // cvt from a float format to itself (same_format.rs), between the float formats
    // (convert.rs) and between the integer types and the float formats (cvt_int.rs)
    if let Some(kernel) =
        same_format::select::<L>(instr).or_else(|| convert::select::<L>(instr)).or_else(|| cvt_int::select::<L>(instr))
    {
        return Some(kernel);
    }
    // abs, neg and copysign (sign.rs); testp on f32 and f64 (testp.rs)
    if let Some(kernel) = sign::select::<L>(instr).or_else(|| testp::select::<L>(instr)) {
        return Some(kernel);
    }
    // min and max on every format (minmax.rs)
    if let Some(kernel) = minmax::select::<L>(instr) {
        return Some(kernel);
    }
    // --- end of exact arithmetic ---
    // --- MUFU-backed f32 approximations: rcp, rsqrt, sqrt, lg2, ex2, sin, cos, tanh .approx
    // and the SASS MUFU operations (mufu_f32.rs) ---
    if let Some(kernel) = mufu_f32::select::<L>(instr, target) {
        return Some(kernel);
    }
    // their f16 and bf16 forms: ex2, tanh and MUFU.EX2/TANH .F16/.BF16 (mufu_half.rs)
    if let Some(kernel) = mufu_half::select::<L>(instr) {
        return Some(kernel);
    }
    // the f64 approximations built on MUFU.RCP64H and MUFU.RSQ64H (mufu_64h.rs)
    if let Some(kernel) = mufu_64h::select::<L>(instr) {
        return Some(kernel);
    }
    // RRO.SINCOS and RRO.EX2 (rro.rs)
    rro::select::<L>(instr)
    // --- end of MUFU ---
}
