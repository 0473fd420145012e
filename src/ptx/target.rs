//! The target architecture (`sm_XX`, `sm_XXa`, `sm_XXf`): which instructions exist and how ptxas
//! lowers the approximate ones (docs/semantics.md §1.2: sm_5x/sm_6x use RRO, sm_70+ do not).
//!
//! PTX has three kinds of target (ptxas 13.5 `--help`): code for `sm_XY` runs on every `sm_MN`
//! with MN ≥ XY, in any variant; code for the family-specific `sm_XYf` runs on `sm_XZf` and
//! `sm_XZa` with Z ≥ Y in the same family (the same X: sm_100, sm_103 and sm_107 form family
//! 10); code for the architecture-specific `sm_XYa` runs on `sm_XYa` only. An instruction
//! exists on a set of targets ([`Targets`]), which PTX states as one of these three forms
//! ([`Requirement`]).

use std::fmt;
use std::str::FromStr;

use super::instr::Instr;
use crate::quote::Quoted;

/// The variant of a target: plain, architecture-specific (`a`) or family-specific (`f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// `sm_90`: features every later architecture has.
    Base,
    /// `sm_100a`: also the features of this architecture alone.
    Arch,
    /// `sm_100f`: also the features of this architecture's family.
    Family,
}

impl Variant {
    pub const fn suffix(self) -> &'static str {
        match self {
            Variant::Base => "",
            Variant::Arch => "a",
            Variant::Family => "f",
        }
    }
}

/// A GPU architecture: `sm_XX` as the number XX, with its variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    sm: u32,
    variant: Variant,
    /// The position in [`KNOWN_TARGETS`], the bit of a [`Targets`] set.
    index: u8,
}

/// The architectures ptxas 12.9 and 13.5 target (12.9 the ones up to sm_72 that 13.5 dropped,
/// and sm_101, which CUDA 13 renamed sm_110).
pub const KNOWN_SM: [u32; 22] =
    [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121];

/// The architectures with an `a` variant (sm_90a on).
const ARCH_SM: [u32; 8] = [90, 100, 101, 103, 107, 110, 120, 121];
/// The architectures with an `f` variant (sm_100f on).
const FAMILY_SM: [u32; 7] = [100, 101, 103, 107, 110, 120, 121];

/// Every known target: the plain ones of [`KNOWN_SM`], then the `a` and the `f` variants.
pub const KNOWN_TARGETS: [Target; 37] = known_targets();

const fn known_targets() -> [Target; 37] {
    let mut out = [Target { sm: 0, variant: Variant::Base, index: 0 }; 37];
    let mut i = 0;
    while i < KNOWN_SM.len() {
        out[i] = Target { sm: KNOWN_SM[i], variant: Variant::Base, index: i as u8 };
        i += 1;
    }
    let mut j = 0;
    while j < ARCH_SM.len() {
        out[i] = Target { sm: ARCH_SM[j], variant: Variant::Arch, index: i as u8 };
        i += 1;
        j += 1;
    }
    j = 0;
    while j < FAMILY_SM.len() {
        out[i] = Target { sm: FAMILY_SM[j], variant: Variant::Family, index: i as u8 };
        i += 1;
        j += 1;
    }
    out
}

/// A set of known targets, one bit per entry of [`KNOWN_TARGETS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Targets(pub(crate) u64);

impl Targets {
    pub const NONE: Targets = Targets(0);

    /// Whether the set holds `target`.
    #[inline(always)]
    pub const fn contains(self, target: Target) -> bool {
        self.0 >> target.index & 1 != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn union(self, other: Targets) -> Targets {
        Targets(self.0 | other.0)
    }

    /// The targets of the set, in the order of [`KNOWN_TARGETS`].
    pub fn iter(self) -> impl Iterator<Item = Target> {
        KNOWN_TARGETS.into_iter().filter(move |&t| self.contains(t))
    }

    /// The lowest architecture number in the set (0 for an empty set).
    pub fn lowest_sm(self) -> u32 {
        self.iter().map(|t| t.sm).min().unwrap_or(0)
    }

    /// The lowest target of the set: the plain one of the lowest number where there is one,
    /// else its `a` variant.
    pub fn lowest(self) -> Option<Target> {
        self.iter().min_by_key(|t| (t.sm, t.variant == Variant::Family))
    }

    /// The PTX statement of the set ([`Requirement::of`]).
    pub fn requirement(self) -> Requirement {
        Requirement::of(self)
    }
}

/// Which targets have an instruction, as PTX states it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Requirement {
    /// `sm_XX` or newer, in every variant.
    From(u32),
    /// `sm_LO` to `sm_HI` (RRO: sm_50 to sm_62).
    Between(u32, u32),
    /// The family-specific feature of these architectures: `sm_XYf` stands for `sm_XZf` and
    /// `sm_XZa` with Z ≥ Y.
    Family(Vec<u32>),
    /// Exactly these architecture-specific targets (`sm_XXa`).
    Arch(Vec<u32>),
    /// Any other set: listed.
    Listed(Vec<Target>),
}

impl Requirement {
    /// The targets it admits.
    pub fn targets(&self) -> Targets {
        let admits = |t: &Target| match self {
            Requirement::From(sm) => t.sm >= *sm,
            Requirement::Between(lo, hi) => (*lo..=*hi).contains(&t.sm),
            Requirement::Family(list) => {
                t.variant != Variant::Base && list.iter().any(|&f| t.family() == Some(f / 10) && t.sm >= f)
            }
            Requirement::Arch(list) => t.variant == Variant::Arch && list.contains(&t.sm),
            Requirement::Listed(list) => list.contains(t),
        };
        Targets(KNOWN_TARGETS.iter().filter(|t| admits(t)).fold(0, |m, t| m | 1 << t.index))
    }

    /// The PTX statement of a set of targets: the first of the forms that gives exactly the
    /// set, else the list.
    pub fn of(set: Targets) -> Requirement {
        let lowest = set.lowest_sm();
        let highest = set.iter().map(|t| t.sm).max().unwrap_or(0);
        let families: Vec<u32> = set
            .iter()
            .filter(|t| t.variant == Variant::Family)
            .filter(|t| !set.iter().any(|u| u.variant == Variant::Family && u.family() == t.family() && u.sm < t.sm))
            .map(|t| t.sm)
            .collect();
        let arch: Vec<u32> = set.iter().filter(|t| t.variant == Variant::Arch).map(|t| t.sm).collect();
        let candidates = [
            Requirement::From(lowest),
            Requirement::Between(lowest, highest),
            Requirement::Family(families),
            Requirement::Arch(arch),
        ];
        candidates.into_iter().find(|r| r.targets() == set).unwrap_or_else(|| Requirement::Listed(set.iter().collect()))
    }
}

/// In words ("sm_100f, sm_110f or sm_120f (or a later …)"), or with `{:#}` in the short form
/// of `ptxfp ops`' targets column: `sm_53+`, `sm_50-sm_62`, `sm_100f,sm_110f,sm_120f`,
/// `sm_100a,sm_103a`.
impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            let list = |names: Vec<String>| names.join(",");
            return match self {
                Requirement::From(sm) => write!(f, "sm_{sm}+"),
                Requirement::Between(lo, hi) => write!(f, "sm_{lo}-sm_{hi}"),
                Requirement::Family(l) => f.write_str(&list(l.iter().map(|sm| format!("sm_{sm}f")).collect())),
                Requirement::Arch(l) => f.write_str(&list(l.iter().map(|sm| format!("sm_{sm}a")).collect())),
                Requirement::Listed(l) => f.write_str(&list(l.iter().map(Target::to_string).collect())),
            };
        }
        let or_list = |f: &mut fmt::Formatter<'_>, names: Vec<String>| {
            let n = names.len();
            for (i, name) in names.iter().enumerate() {
                let sep = match (i, n - i) {
                    (0, _) => "",
                    (_, 1) => " or ",
                    _ => ", ",
                };
                write!(f, "{sep}{name}")?;
            }
            Ok(())
        };
        match self {
            Requirement::From(sm) => write!(f, "sm_{sm} or newer"),
            Requirement::Between(lo, hi) => write!(f, "sm_{lo} to sm_{hi}"),
            Requirement::Family(list) => {
                or_list(f, list.iter().map(|sm| format!("sm_{sm}f")).collect())?;
                f.write_str(" (or a later sm_XXf or sm_XXa of the same family)")
            }
            Requirement::Arch(list) => or_list(f, list.iter().map(|sm| format!("sm_{sm}a")).collect()),
            Requirement::Listed(list) => or_list(f, list.iter().map(Target::to_string).collect()),
        }
    }
}

impl Target {
    /// sm_90, the default target.
    pub const DEFAULT: Target = KNOWN_TARGETS[14];

    /// A known plain architecture (`sm_XX`).
    pub fn new(sm: u32) -> Result<Target, TargetError> {
        Target::with_variant(sm, Variant::Base)
    }

    /// A known architecture in a variant (`sm_100a` is `with_variant(100, Variant::Arch)`).
    pub fn with_variant(sm: u32, variant: Variant) -> Result<Target, TargetError> {
        match KNOWN_TARGETS.iter().find(|t| t.sm == sm && t.variant == variant) {
            Some(&t) => Ok(t),
            None if KNOWN_SM.contains(&sm) => Err(TargetError::NoVariant { sm, variant }),
            None => Err(TargetError::Unknown { sm }),
        }
    }

    pub const fn sm(self) -> u32 {
        self.sm
    }

    pub const fn variant(self) -> Variant {
        self.variant
    }

    /// The family of an architecture of sm_100 on (10 for sm_100, sm_101, sm_103, sm_107; 11,
    /// 12): the architectures a family-specific target's code runs on.
    pub const fn family(self) -> Option<u32> {
        if self.sm >= 100 {
            Some(self.sm / 10)
        } else {
            None
        }
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

    /// Whether the target has `instr` (with any of its operand counts); the error names the
    /// targets that do. Reads only what the instruction carries: nothing is looked up, and
    /// nothing is allocated unless it fails.
    #[inline]
    pub fn check(self, instr: &Instr) -> Result<(), TargetError> {
        if !instr.targets().contains(self) {
            return Err(self.lacks(instr));
        }
        Ok(())
    }

    /// Whether the target has `instr` with `n` source operands, which it takes: three-input
    /// `min`/`max` need a newer target than the two-input forms. [`Target::check`] has passed.
    #[inline]
    pub fn check_operand_count(self, instr: &Instr, n: usize) -> Result<(), TargetError> {
        let with_n = instr.targets_with(n);
        if !with_n.contains(self) {
            return Err(match with_n.requirement() {
                Requirement::From(lowest_sm) => {
                    TargetError::TooOldForOperands { instr: *instr, operands: n, lowest_sm, target: self }
                }
                required => TargetError::NotOnTarget { instr: *instr, required, target: self },
            });
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
        match instr.targets().requirement() {
            Requirement::From(lowest_sm) => TargetError::TooOld { instr: *instr, lowest_sm, target: self },
            Requirement::Between(_, hi) if hi <= Target::LAST_RRO_SM && self.sm > hi => {
                TargetError::RroRemoved { instr: *instr, target: self }
            }
            required => TargetError::NotOnTarget { instr: *instr, required, target: self },
        }
    }
}

/// Why an architecture is not one ptxfp knows, or why a target does not run an instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The text is not an architecture's spelling (`sm_XX`, `sm_XXa`, `sm_XXf`, `compute_XX`
    /// or `XX`).
    #[error("{} is not an architecture; write sm_XX, sm_XXa or sm_XXf, one of {}", Quoted(.text), known_list())]
    Unparsable { text: String },
    /// No architecture of [`KNOWN_SM`] has this number.
    #[error("unknown architecture sm_{sm}; known: {}", known_list())]
    Unknown { sm: u32 },
    /// The architecture has no such variant (`sm_80a`: the `a` variants start at sm_90, the
    /// `f` ones at sm_100).
    #[error("sm_{sm} has no '{}' variant; known: {}", .variant.suffix(), known_list())]
    NoVariant { sm: u32, variant: Variant },
    /// The instruction exists from `lowest_sm` on.
    #[error("{instr} requires sm_{lowest_sm} or newer; the target is {target}")]
    TooOld { instr: Instr, lowest_sm: u32, target: Target },
    /// The instruction with this many source operands (three-input `min`/`max`) exists from
    /// `lowest_sm` on.
    #[error("{instr} with {operands} operands requires sm_{lowest_sm} or newer; the target is {target}")]
    TooOldForOperands { instr: Instr, operands: usize, lowest_sm: u32, target: Target },
    /// The instruction exists only on family- or architecture-specific targets (`sm_100f`,
    /// `sm_100a`) that do not include this one.
    #[error("{instr} requires {required}; the target is {target}")]
    NotOnTarget { instr: Instr, required: Requirement, target: Target },
    /// RRO exists only up to [`Target::LAST_RRO_SM`] (docs/semantics.md §1.2).
    #[error("{instr} exists only on sm_50 to sm_62; the target is {target}")]
    RroRemoved { instr: Instr, target: Target },
}

impl TargetError {
    /// Whether another target has the instruction (the errors a `--arch` can mend).
    pub fn wants_newer_target(&self) -> bool {
        matches!(
            self,
            TargetError::TooOld { .. } | TargetError::TooOldForOperands { .. } | TargetError::NotOnTarget { .. }
        )
    }
}

impl Default for Target {
    fn default() -> Target {
        Target::DEFAULT
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.sm, self.variant.suffix())
    }
}

impl FromStr for Target {
    type Err = TargetError;

    /// `sm_90`, `sm_90a`, `sm_100f`, `compute_90` or `90`.
    fn from_str(s: &str) -> Result<Target, TargetError> {
        let digits = s.strip_prefix("sm_").or_else(|| s.strip_prefix("compute_")).unwrap_or(s);
        let (digits, variant) = match digits.as_bytes().last() {
            Some(b'a') => (&digits[..digits.len() - 1], Variant::Arch),
            Some(b'f') => (&digits[..digits.len() - 1], Variant::Family),
            _ => (digits, Variant::Base),
        };
        let unparsable = || TargetError::Unparsable { text: s.to_string() };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unparsable());
        }
        let sm: u32 = digits.parse().map_err(|_| unparsable())?;
        Target::with_variant(sm, variant)
    }
}

fn known_list() -> String {
    KNOWN_TARGETS.iter().map(Target::to_string).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three kinds of target admit what ptxas 13.5's `--help` says they do, and every set
    /// is stated back as the form that made it.
    #[test]
    fn requirements_follow_the_ptxas_rules() {
        let t = |s: &str| s.parse::<Target>().unwrap();
        let family = Requirement::Family(vec![100, 110, 120]).targets();
        for yes in ["sm_100a", "sm_100f", "sm_103f", "sm_107a", "sm_110f", "sm_121a"] {
            assert!(family.contains(t(yes)), "{yes}");
        }
        for no in ["sm_100", "sm_90a", "sm_120", "sm_103"] {
            assert!(!family.contains(t(no)), "{no}");
        }
        let arch = Requirement::Arch(vec![100, 103]).targets();
        assert!(arch.contains(t("sm_103a")) && !arch.contains(t("sm_103f")) && !arch.contains(t("sm_107a")));
        let from = Requirement::From(89).targets();
        assert!(from.contains(t("sm_89")) && from.contains(t("sm_100f")) && !from.contains(t("sm_88")));
        for r in [
            Requirement::From(89),
            Requirement::Family(vec![100, 110, 120]),
            Requirement::Family(vec![107]),
            Requirement::Arch(vec![100, 103, 107]),
            Requirement::Between(50, 62),
        ] {
            assert_eq!(Requirement::of(r.targets()), r);
        }
        assert_eq!(
            Requirement::Family(vec![100, 110, 120]).to_string(),
            "sm_100f, sm_110f or sm_120f (or a later sm_XXf or sm_XXa of the same family)"
        );
        assert_eq!(Requirement::Arch(vec![100, 103]).to_string(), "sm_100a or sm_103a");
        assert_eq!(t("sm_100f").to_string(), "sm_100f");
        assert_eq!("sm_80a".parse::<Target>(), Err(TargetError::NoVariant { sm: 80, variant: Variant::Arch }));
        assert!("sm_1x0".parse::<Target>().is_err() && "sm_a".parse::<Target>().is_err());
        assert_eq!(Target::DEFAULT.to_string(), "sm_90");
    }
}
