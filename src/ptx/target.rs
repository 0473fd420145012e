//! The target architecture (`sm_XX`): which instructions exist and how ptxas lowers the
//! approximate ones (docs/semantics.md §1.2: sm_5x/sm_6x use RRO, sm_70+ do not).

use std::fmt;
use std::str::FromStr;

use super::instr::{Instr, Opcode};
use crate::quote::Quoted;

/// A GPU architecture, `sm_XX` as the number XX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    sm: u32,
}

/// The architectures ptxas 12.9 targets, as docs/semantics.md "Method" lists them.
pub const KNOWN_SM: [u32; 20] = [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121];

impl Target {
    /// sm_90, the default target.
    pub const DEFAULT: Target = Target { sm: 90 };

    /// A known architecture.
    pub fn new(sm: u32) -> Result<Target, TargetError> {
        if KNOWN_SM.contains(&sm) {
            Ok(Target { sm })
        } else {
            Err(TargetError::Unknown { sm })
        }
    }

    pub const fn sm(self) -> u32 {
        self.sm
    }

    /// The last architecture with RRO: sm_5x and sm_6x reduce the arguments of MUFU.SIN/COS/EX2
    /// with it; sm_70 removed it and MUFU takes the float (docs/semantics.md §1.2, §3).
    pub const LAST_RRO_SM: u32 = 69;

    /// Whether the target has RRO ([`Target::LAST_RRO_SM`]).
    pub const fn has_rro(self) -> bool {
        self.sm <= Self::LAST_RRO_SM
    }

    /// MUFU.SQRT exists from sm_52; sm_50 computes `sqrt.approx` as RCP(RSQ(x)) (§1.1).
    pub const fn has_mufu_sqrt(self) -> bool {
        self.sm >= 52
    }

    /// Whether the target has `instr`; the error names the architectures that do. Reads only
    /// what the instruction carries: nothing is looked up, and nothing is allocated unless it
    /// fails.
    #[inline]
    pub fn check(self, instr: &Instr) -> Result<(), TargetError> {
        if self.sm < instr.min_sm() || (matches!(instr.opcode(), Opcode::Rro(_)) && !self.has_rro()) {
            return Err(self.lacks(instr));
        }
        Ok(())
    }

    /// Whether the target has `instr` with `n` source operands, which it takes: three-input
    /// `min`/`max` need a newer target than the two-input forms. [`Target::check`] has passed.
    #[inline]
    pub fn check_operand_count(self, instr: &Instr, n: usize) -> Result<(), TargetError> {
        let lowest_sm = instr.min_sm_with(n);
        if self.sm < lowest_sm {
            return Err(TargetError::TooOldForOperands { instr: *instr, operands: n, lowest_sm, target: self });
        }
        Ok(())
    }

    /// [`Target::check`] and then [`Target::check_operand_count`]: whether the target has
    /// `instr` with `n` source operands.
    pub fn check_with(self, instr: &Instr, n: usize) -> Result<(), TargetError> {
        self.check(instr)?;
        self.check_operand_count(instr, n)
    }

    /// The error of a failed [`Target::check`].
    #[cold]
    #[inline(never)]
    fn lacks(self, instr: &Instr) -> TargetError {
        let lowest_sm = instr.min_sm();
        if self.sm < lowest_sm {
            TargetError::TooOld { instr: *instr, lowest_sm, target: self }
        } else {
            TargetError::RroRemoved { instr: *instr, target: self }
        }
    }
}

/// Why an architecture is not one ptxfp knows, or why a target does not run an instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The text is not an architecture's spelling (`sm_XX`, `sm_XXa`, `compute_XX` or `XX`).
    #[error("{} is not an architecture; write sm_XX, one of {}", Quoted(.text), known_list())]
    Unparsable { text: String },
    /// No architecture of [`KNOWN_SM`] has this number.
    #[error("unknown architecture sm_{sm}; known: {}", known_list())]
    Unknown { sm: u32 },
    /// The instruction exists from `lowest_sm` on.
    #[error("{instr} requires sm_{lowest_sm} or newer; the target is {target}")]
    TooOld { instr: Instr, lowest_sm: u32, target: Target },
    /// The instruction with this many source operands (three-input `min`/`max`) exists from
    /// `lowest_sm` on.
    #[error("{instr} with {operands} operands requires sm_{lowest_sm} or newer; the target is {target}")]
    TooOldForOperands { instr: Instr, operands: usize, lowest_sm: u32, target: Target },
    /// RRO exists only up to [`Target::LAST_RRO_SM`] (docs/semantics.md §1.2).
    #[error("{instr} exists only on sm_50 to sm_62; the target is {target}")]
    RroRemoved { instr: Instr, target: Target },
}

impl TargetError {
    /// Whether a newer architecture has the instruction (the errors a `--arch` can mend).
    pub fn wants_newer_target(&self) -> bool {
        matches!(self, TargetError::TooOld { .. } | TargetError::TooOldForOperands { .. })
    }
}

impl Default for Target {
    fn default() -> Target {
        Target::DEFAULT
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm)
    }
}

impl FromStr for Target {
    type Err = TargetError;

    /// `sm_90`, `sm_90a`, `compute_90` or `90`.
    fn from_str(s: &str) -> Result<Target, TargetError> {
        let digits = s.trim_start_matches("sm_").trim_start_matches("compute_");
        let digits = digits.trim_end_matches(['a', 'f']);
        let sm: u32 = digits.parse().map_err(|_| TargetError::Unparsable { text: s.to_string() })?;
        Target::new(sm)
    }
}

fn known_list() -> String {
    KNOWN_SM.iter().map(|sm| format!("sm_{sm}")).collect::<Vec<_>>().join(" ")
}
