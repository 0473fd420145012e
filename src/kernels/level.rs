//! The instruction-set levels the kernels are compiled for, chosen once at run time.
//!
//! Every kernel is generic over an [`Isa`]: its chunk loop is a `#[target_feature]` function
//! of that level, into which the kernel body (written with [`super::simd`]'s lanes and always
//! inlined) is compiled, so one build carries the baseline x86-64, AVX2 and AVX-512 forms and
//! runs the widest the processor has, whatever flags the crate was built with. Branches on
//! the level's constants (`L::AVX512`, `L::FMA`) pick the level's special instructions; they
//! are constant in each copy. Every level gives the same bits (tests/batch_equivalence_*.rs
//! run each one the machine has).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::lanes::groups;
use crate::quote::Quoted;

/// An instruction-set level of the batch kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// x86-64 baseline (SSE2), or the portable code on other architectures.
    Baseline,
    /// x86-64-v3: AVX2, FMA, F16C, BMI1/2, LZCNT.
    Avx2,
    /// x86-64-v4: the v3 set plus AVX-512 F, BW, CD, DQ and VL.
    Avx512,
}

/// The environment variable that forces a level (`baseline`, `avx2` or `avx512`), for tests
/// and comparisons; a level the processor lacks is not taken.
pub const SIMD_LEVEL_VARIABLE: &str = "PTXFP_SIMD";

impl SimdLevel {
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512];

    pub const fn name(self) -> &'static str {
        match self {
            SimdLevel::Baseline => "baseline",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Whether this processor can run the level.
    pub fn is_supported(self) -> bool {
        self <= SimdLevel::detected()
    }

    /// The widest level this processor has (detected once).
    pub fn detected() -> SimdLevel {
        static DETECTED: OnceLock<SimdLevel> = OnceLock::new();
        *DETECTED.get_or_init(detect)
    }

    /// The level batch evaluation uses: the one [`SIMD_LEVEL_VARIABLE`] names when the
    /// processor has it, else [`SimdLevel::detected`] (see [`SimdLevel::from_env`] for the
    /// reason a named level is not taken).
    pub fn active() -> SimdLevel {
        static ACTIVE: OnceLock<SimdLevel> = OnceLock::new();
        *ACTIVE.get_or_init(|| SimdLevel::from_env().ok().flatten().unwrap_or_else(SimdLevel::detected))
    }

    /// The level [`SIMD_LEVEL_VARIABLE`] forces: `None` when it is unset or empty, an error
    /// when it names no level or one this processor lacks.
    pub fn from_env() -> Result<Option<SimdLevel>, SimdLevelError> {
        let Some(value) = std::env::var_os(SIMD_LEVEL_VARIABLE) else {
            return Ok(None);
        };
        let value = value.to_string_lossy();
        if value.is_empty() {
            return Ok(None);
        }
        let level: SimdLevel = value.parse()?;
        if !level.is_supported() {
            return Err(SimdLevelError::Unsupported { level, detected: SimdLevel::detected() });
        }
        Ok(Some(level))
    }
}

impl fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimdLevelError {
    /// The name is not a level.
    Unknown { name: String },
    /// The processor lacks the level.
    Unsupported { level: SimdLevel, detected: SimdLevel },
}

impl fmt::Display for SimdLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimdLevelError::Unknown { name } => {
                let name: String = name.chars().take(40).collect();
                write!(f, "{} is not a SIMD level; the levels are baseline, avx2 and avx512", Quoted(name.as_str()))
            }
            SimdLevelError::Unsupported { level, detected } => {
                write!(f, "this processor cannot run the {level} kernels; its widest level is {detected}")
            }
        }
    }
}

impl std::error::Error for SimdLevelError {}

impl FromStr for SimdLevel {
    type Err = SimdLevelError;

    fn from_str(s: &str) -> Result<SimdLevel, SimdLevelError> {
        SimdLevel::ALL
            .into_iter()
            .find(|level| level.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| SimdLevelError::Unknown { name: s.to_string() })
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> SimdLevel {
    use std::arch::is_x86_feature_detected as has;
    let v3 = has!("avx2") && has!("fma") && has!("f16c") && has!("bmi1") && has!("bmi2") && has!("lzcnt");
    let v4 = has!("avx512f") && has!("avx512bw") && has!("avx512cd") && has!("avx512dq") && has!("avx512vl");
    match (v3, v4) {
        (true, true) => SimdLevel::Avx512,
        (true, false) => SimdLevel::Avx2,
        _ => SimdLevel::Baseline,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> SimdLevel {
    SimdLevel::Baseline
}

/// A level as a type, for the kernels generic over it. Only [`super::select_at`] names the
/// types, and only for a level the processor has: the loops of [`V3`] and [`V4`] execute
/// instructions of their level.
pub(crate) trait Isa: 'static {
    /// The level.
    const LEVEL: SimdLevel;
    /// Whether AVX-512 F/BW/DQ/VL intrinsics may be used.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const AVX512: bool;
    /// Whether fused multiply-add is one instruction (`simd` `mul_add`), and F16C's
    /// conversions and AVX2's 256-bit integer instructions may be used.
    const AVX2: bool;

    /// [`groups`] compiled for the level: a function of the level's target features, into
    /// which the loop is inlined and, from its one call site, `f`.
    fn groups<S: Copy, D: Copy, const N: usize, const K: usize>(
        srcs: [&[S]; K],
        dst: &mut [D],
        f: &impl Fn([[S; N]; K]) -> [D; N],
    );

    /// `f()` compiled for the level: a function of the level's target features, into which
    /// `f` (an `#[inline(always)]` closure) and what it inlines are compiled. The sweep
    /// compiles loops of its own this way, and tests their references
    /// (`SimdLevel::compiled_for`).
    #[cfg_attr(not(any(feature = "sweep", feature = "internals")), allow(dead_code))]
    fn run<R>(f: impl FnOnce() -> R) -> R;
}

/// `f` itself: it lets a closure that a kernel binds with `let` carry `#[inline(always)]`
/// (which an argument may carry and a `let` initialiser may not). A closure LLVM leaves out
/// of line is a function of its own, compiled without the level's target features: it runs
/// as the baseline build compiles it, whatever level called it (the test build left two out
/// of line so, in the integer-to-f32 and the same-format `cvt` kernels).
#[inline(always)]
pub(crate) fn inlined<F>(f: F) -> F {
    f
}

/// The baseline.
pub(crate) struct V1;

impl Isa for V1 {
    const LEVEL: SimdLevel = SimdLevel::Baseline;
    const AVX512: bool = false;
    const AVX2: bool = false;

    #[inline(never)]
    fn groups<S: Copy, D: Copy, const N: usize, const K: usize>(
        srcs: [&[S]; K],
        dst: &mut [D],
        f: &impl Fn([[S; N]; K]) -> [D; N],
    ) {
        groups(srcs, dst, f)
    }

    #[inline(never)]
    fn run<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// `$level` with a loop compiled for `$features`.
macro_rules! level {
    ($level:ident, $name:ident, $doc:literal, avx512: $avx512:expr, $features:literal) => {
        #[doc = $doc]
        #[cfg(target_arch = "x86_64")]
        pub(crate) struct $level;

        #[cfg(target_arch = "x86_64")]
        impl Isa for $level {
            const LEVEL: SimdLevel = SimdLevel::$name;
            const AVX512: bool = $avx512;
            const AVX2: bool = true;

            #[inline(always)]
            fn groups<S: Copy, D: Copy, const N: usize, const K: usize>(
                srcs: [&[S]; K],
                dst: &mut [D],
                f: &impl Fn([[S; N]; K]) -> [D; N],
            ) {
                #[target_feature(enable = $features)]
                #[inline(never)]
                fn compiled<S: Copy, D: Copy, const N: usize, const K: usize>(
                    srcs: [&[S]; K],
                    dst: &mut [D],
                    f: &impl Fn([[S; N]; K]) -> [D; N],
                ) {
                    groups(srcs, dst, f)
                }
                // SAFETY: `select_at` instantiates the level only on processors with these
                // features.
                unsafe { compiled(srcs, dst, f) }
            }

            #[inline(always)]
            fn run<R>(f: impl FnOnce() -> R) -> R {
                #[target_feature(enable = $features)]
                #[inline(never)]
                fn compiled<R>(f: impl FnOnce() -> R) -> R {
                    f()
                }
                // SAFETY: as for `groups`.
                unsafe { compiled(f) }
            }
        }
    };
}

level!(V3, Avx2, "x86-64-v3.", avx512: false, "avx,avx2,fma,f16c,bmi1,bmi2,lzcnt,popcnt");
level!(
    V4,
    Avx512,
    "x86-64-v4.",
    avx512: true,
    "avx,avx2,fma,f16c,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
);

/// `$body` with `$L` the [`Isa`] type of `$level` (a [`SimdLevel`] the processor has), e.g.
/// `at_level!(SimdLevel::active(), L => f::<L>(x))`.
macro_rules! at_level {
    ($level:expr, $L:ident => $body:expr) => {{
        let level: $crate::kernels::SimdLevel = $level;
        debug_assert!(level.is_supported(), "the processor lacks the {level} kernels");
        match level {
            $crate::kernels::SimdLevel::Baseline => {
                type $L = $crate::kernels::level::V1;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            $crate::kernels::SimdLevel::Avx2 => {
                type $L = $crate::kernels::level::V3;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            $crate::kernels::SimdLevel::Avx512 => {
                type $L = $crate::kernels::level::V4;
                $body
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("only the baseline is supported off x86-64"),
        }
    }};
}
pub(crate) use at_level;

impl SimdLevel {
    /// `f()` compiled for this level's target features, as the kernels' loops are: for the
    /// exhaustive tests, whose references (host arithmetic, plain loops) would otherwise run
    /// as the baseline x86-64 build compiles them. `f` should be an `#[inline(always)]`
    /// closure; what it calls is compiled for the level where it is inlined. Panics where the
    /// processor lacks the level. (Internals: not part of the API.)
    #[cfg(feature = "internals")]
    pub fn compiled_for<R>(self, f: impl FnOnce() -> R) -> R {
        assert!(self.is_supported(), "this processor cannot run the {self} level");
        at_level!(self, L => <L as Isa>::run(f))
    }
}
