//! The host's floating-point environment, under which the kernels' float instructions run.
//!
//! The kernels compute with the processor's float instructions, which round, flush subnormals
//! and trap as the calling thread's control register says (x86-64 MXCSR, aarch64 FPCR). They
//! are written for the IEEE default every program starts with: round to nearest, subnormal
//! operands and results kept (no denormals-are-zero, no flush-to-zero), every exception
//! masked. A host may change it: a C or C++ program linked with `-ffast-math` (gcc's startup
//! sets flush-to-zero and denormals-are-zero), a library that calls `fesetround` or
//! `feenableexcept`. ptxfp never writes the environment; it reads it before every block it
//! would hand to a kernel, and where it is not the default the block is evaluated by the scalar
//! definitions, which compute on integers and give the same bits under any environment
//! (`Instr::eval_block`). The sweep's references measure with float arithmetic and refuse to
//! run there ([`FloatEnvironmentError`]).

use std::fmt;

/// The calling thread's floating-point environment is not the IEEE default that ptxfp's float
/// arithmetic needs; `register` is its control register (MXCSR on x86-64, FPCR on aarch64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatEnvironmentError {
    pub register: u64,
}

impl fmt::Display for FloatEnvironmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this thread's floating-point environment is not the IEEE default ({} {:#x}: {}); \
             restore the default ({} {:#x}: round to nearest, no flush-to-zero, every \
             exception masked) before sweeping; a program linked with -ffast-math sets flush-to-zero \
             at startup",
            arch::REGISTER,
            self.register,
            arch::changed_modes(self.register).join(", "),
            arch::REGISTER,
            arch::DEFAULT,
        )
    }
}

impl std::error::Error for FloatEnvironmentError {}

/// Fails unless the calling thread's floating-point environment is the IEEE default.
#[inline]
pub(crate) fn check() -> Result<(), FloatEnvironmentError> {
    let register = arch::control_register();
    if register & arch::MODES == arch::DEFAULT {
        Ok(())
    } else {
        Err(FloatEnvironmentError { register })
    }
}

/// Whether the calling thread's floating-point environment is the IEEE default.
#[inline]
pub(crate) fn is_default() -> bool {
    check().is_ok()
}

/// MXCSR: bits 0–5 are the sticky exception flags, which change no result and are ignored;
/// bit 6 denormals-are-zero, bits 7–12 the exception masks, 13–14 the rounding control, 15
/// flush-to-zero. Their default is 0x1F80 (Intel SDM vol. 1, section 10.2.3, "MXCSR Control
/// and Status Register").
#[cfg(target_arch = "x86_64")]
mod arch {
    pub const MODES: u64 = 0xFFC0;
    pub const DEFAULT: u64 = 0x1F80;
    pub const REGISTER: &str = "MXCSR";

    #[inline]
    pub fn control_register() -> u64 {
        let mut mxcsr = 0u32;
        // SAFETY: STMXCSR writes the register's four bytes to the address given, a local; it
        // changes no register and no flag.
        unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &mut mxcsr, options(nostack, preserves_flags)) };
        u64::from(mxcsr)
    }

    pub fn changed_modes(register: u64) -> Vec<&'static str> {
        let mut modes = Vec::new();
        if register & 1 << 6 != 0 {
            modes.push("denormals-are-zero");
        }
        if register & 1 << 15 != 0 {
            modes.push("flush-to-zero");
        }
        match register >> 13 & 3 {
            1 => modes.push("rounding toward -infinity"),
            2 => modes.push("rounding toward +infinity"),
            3 => modes.push("rounding toward zero"),
            _ => {}
        }
        if register & 0x1F80 != 0x1F80 {
            modes.push("exceptions unmasked (traps)");
        }
        modes
    }
}

/// FPCR: bits 8–12 and 15 enable traps, 19 flushes f16, 22–23 are the rounding mode, 24
/// flushes to zero, 25 makes every NaN the default NaN, 26 selects the alternative half
/// format; all clear by default (Arm ARM, FPCR).
#[cfg(target_arch = "aarch64")]
mod arch {
    pub const MODES: u64 = 0x07C8_9F00;
    pub const DEFAULT: u64 = 0;
    pub const REGISTER: &str = "FPCR";

    #[inline]
    pub fn control_register() -> u64 {
        let fpcr: u64;
        // SAFETY: MRS reads FPCR into a general register; nothing else changes.
        unsafe { core::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags)) };
        fpcr
    }

    pub fn changed_modes(register: u64) -> Vec<&'static str> {
        let mut modes = Vec::new();
        if register & (1 << 24 | 1 << 19) != 0 {
            modes.push("flush-to-zero");
        }
        if register >> 22 & 3 != 0 {
            modes.push("directed rounding");
        }
        if register & 1 << 25 != 0 {
            modes.push("default NaN");
        }
        if register & 1 << 26 != 0 {
            modes.push("alternative half-precision");
        }
        if register & 0x9F00 != 0 {
            modes.push("exceptions trapped");
        }
        modes
    }
}

/// Elsewhere the environment is not read and is taken to be the default.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod arch {
    pub const MODES: u64 = 0;
    pub const DEFAULT: u64 = 0;
    pub const REGISTER: &str = "control register";

    pub fn control_register() -> u64 {
        0
    }

    pub fn changed_modes(_: u64) -> Vec<&'static str> {
        Vec::new()
    }
}
