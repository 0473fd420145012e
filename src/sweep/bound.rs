//! The documented accuracy of each approximate instruction (docs/semantics.md §6, PTX ISA
//! §9.7.3.8–22 and §9.7.4.9–10), as clauses a sweep checks on every input it covers.

use std::f64::consts::PI;

use super::domain::{from_ordinal, ordinal};
use super::plot::Metric;
use crate::format::Format;
use crate::ptx::{Instr, Mode, Opcode, Type};
use crate::round::Rounding;

/// Which inputs a clause speaks about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// Every input whose exact result is not NaN.
    All,
    /// |x| ≤ limit.
    AbsAtMost(f64),
    /// lo < x < hi.
    Open(f64, f64),
    /// x > 0, finite.
    Positive,
    /// x > 0, finite, and not in (lo, hi).
    PositiveOutside(f64, f64),
    /// The exact result is a finite normal number of the result format.
    NormalResult,
    /// The divisor (operand 1) has magnitude in [lo, hi] and the exact quotient is normal.
    DivisorIn(f64, f64),
}

impl Region {
    /// Whether the input `x` (operand values) with exact result `exact` in format `fmt` lies in
    /// the region.
    pub fn contains(self, fmt: Format, x: &[f64], exact: f64) -> bool {
        if exact.is_nan() {
            return false;
        }
        let normal = || {
            let m = exact.abs();
            m >= fmt.to_f64(1 << fmt.frac_bits()) && m <= fmt.to_f64(fmt.max_finite(false))
        };
        match self {
            Region::All => true,
            Region::AbsAtMost(limit) => x[0].abs() <= limit,
            Region::Open(lo, hi) => lo < x[0] && x[0] < hi,
            Region::Positive => x[0] > 0.0 && x[0].is_finite(),
            Region::PositiveOutside(lo, hi) => x[0] > 0.0 && x[0].is_finite() && !(lo < x[0] && x[0] < hi),
            Region::NormalResult => normal(),
            Region::DivisorIn(lo, hi) => (lo..=hi).contains(&x[1].abs()) && x[0].is_finite() && normal(),
        }
    }

    /// The region as inclusive intervals of operand 0's ordinal (see
    /// [`super::domain::ordinal`]), when membership depends on operand 0 alone.
    pub fn ordinal_intervals(self, fmt: Format) -> Option<Vec<(i64, i64)>> {
        // The first ordinal whose value is ≥ v (or > v): ordinals are monotone in the value
        // between −Inf and +Inf.
        let (lo_key, hi_key) = (ordinal(fmt, fmt.inf(true)), ordinal(fmt, fmt.inf(false)));
        let first = |v: f64, strict: bool| {
            let (mut a, mut b) = (lo_key, hi_key + 1);
            while a < b {
                // In i128: f64 ordinals span more than i64 can subtract.
                let m = a + ((i128::from(b) - i128::from(a)) / 2) as i64;
                let x = fmt.to_f64(from_ordinal(fmt, m));
                if (strict && x > v) || (!strict && x >= v) {
                    b = m;
                } else {
                    a = m + 1;
                }
            }
            a
        };
        let positive = (first(0.0, true), first(f64::INFINITY, false) - 1);
        let intervals = match self {
            Region::All => vec![(i64::MIN, i64::MAX)],
            Region::AbsAtMost(limit) => vec![(first(-limit, false), first(limit, true) - 1)],
            Region::Open(lo, hi) => vec![(first(lo, true), first(hi, false) - 1)],
            Region::Positive => vec![positive],
            Region::PositiveOutside(lo, hi) => vec![(positive.0, first(lo, true) - 1), (first(hi, false), positive.1)],
            Region::NormalResult | Region::DivisorIn(..) => return None,
        };
        Some(intervals.into_iter().filter(|(a, b)| a <= b).collect())
    }

    pub fn describe(self) -> String {
        match self {
            Region::All => "all inputs".into(),
            Region::AbsAtMost(limit) if limit == 2.0 * PI => "|x| <= 2pi".into(),
            Region::AbsAtMost(limit) if limit == 100.0 * PI => "|x| <= 100pi".into(),
            Region::AbsAtMost(limit) => format!("|x| <= {limit}"),
            Region::Open(lo, hi) => format!("x in ({lo}, {hi})"),
            Region::Positive => "x > 0, finite".into(),
            Region::PositiveOutside(lo, hi) => format!("x > 0, finite, outside ({lo}, {hi})"),
            Region::NormalResult => "normal results".into(),
            Region::DivisorIn(lo, hi) => format!("|b| in [{lo:e}, {hi:e}], normal quotients"),
        }
    }
}

/// One documented statement: on `region`, the error in `metric` is at most `limit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clause {
    pub region: Region,
    pub metric: Metric,
    pub limit: f64,
}

impl Clause {
    pub fn describe(&self) -> String {
        let limit = match self.metric {
            Metric::Ulp => format!("{} ulp", self.limit),
            _ => format!("2^{:.3}", self.limit.log2()).replace(".000", ""),
        };
        let metric = match self.metric {
            Metric::Ulp => "",
            Metric::Absolute => "absolute ",
            Metric::Relative => "relative ",
        };
        format!("{metric}error <= {limit} on {}", self.region.describe())
    }
}

/// The documented accuracy of an instruction and where it is documented.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub source: &'static str,
    pub clauses: Vec<Clause>,
}

impl Bound {
    pub fn describe(&self) -> String {
        let clauses: Vec<String> = self.clauses.iter().map(Clause::describe).collect();
        format!("{} ({})", clauses.join("; "), self.source)
    }
}

fn clause(region: Region, metric: Metric, log2_limit: f64) -> Clause {
    let limit = if metric == Metric::Ulp { log2_limit } else { 2f64.powf(log2_limit) };
    Clause { region, metric, limit }
}

/// The documented bound of `instr`, if the documentation gives one: the accuracy figures of
/// docs/semantics.md §6 for the approximate instructions, correct rounding for the IEEE ones (0 ulp
/// from the round-to-nearest reference for `.rn`, under 1 ulp for the directed modes).
pub fn documented(instr: &Instr) -> Option<Bound> {
    use Metric::{Absolute as Abs, Relative as Rel, Ulp};
    use Region::*;
    let f32_approx = instr.ty() == Type::F32 && instr.mode() == Mode::Approx;
    let b = |source, clauses| Some(Bound { source, clauses });
    match instr.opcode() {
        Opcode::Rcp if f32_approx => b("PTX 9.7.3.13", vec![clause(All, Ulp, 1.0)]),
        Opcode::Sqrt if f32_approx => b("PTX 9.7.3.15", vec![clause(Positive, Rel, -23.0)]),
        Opcode::Rsqrt if f32_approx => b("PTX 9.7.3.16", vec![clause(Positive, Rel, -22.9)]),
        Opcode::Sin | Opcode::Cos if f32_approx => b(
            "PTX 9.7.3.18/19",
            vec![clause(AbsAtMost(2.0 * PI), Abs, -20.5), clause(AbsAtMost(100.0 * PI), Abs, -14.7)],
        ),
        Opcode::Lg2 if f32_approx => {
            b("PTX 9.7.3.20", vec![clause(Open(0.5, 2.0), Abs, -22.0), clause(PositiveOutside(0.5, 2.0), Rel, -22.0)])
        }
        Opcode::Ex2 if f32_approx => b("PTX 9.7.3.21", vec![clause(All, Ulp, 2.0)]),
        Opcode::Tanh if f32_approx => b("PTX 9.7.3.22", vec![clause(All, Rel, -11.0)]),
        Opcode::Div if instr.ty() == Type::F32 && instr.mode() == Mode::Approx => {
            b("PTX 9.7.3.8", vec![clause(DivisorIn(2f64.powi(-126), 2f64.powi(126)), Ulp, 2.0)])
        }
        Opcode::Div if instr.ty() == Type::F32 && instr.mode() == Mode::Full => {
            b("PTX 9.7.3.8", vec![clause(DivisorIn(0.0, f64::INFINITY), Ulp, 2.0)])
        }
        Opcode::Tanh if instr.ty() == Type::F16 => b("PTX 9.7.4.9", vec![clause(All, Abs, -10.987)]),
        Opcode::Tanh if instr.ty() == Type::BF16 => b("PTX 9.7.4.9", vec![clause(All, Abs, -8.0)]),
        Opcode::Ex2 if instr.ty() == Type::F16 => b("PTX 9.7.4.10", vec![clause(NormalResult, Rel, -9.9)]),
        Opcode::Ex2 if instr.ty() == Type::BF16 => b("PTX 9.7.4.10", vec![clause(NormalResult, Rel, -7.0)]),
        _ if is_ieee(instr) => {
            // Round to nearest is the reference itself; a directed mode is at most one unit
            // away from it.
            let limit = if instr.rounding() == Rounding::Rn { 0.0 } else { 1.0 };
            b("IEEE 754 correct rounding", vec![clause(All, Ulp, limit)])
        }
        _ => None,
    }
}

/// The correctly rounded instructions whose sweep reference is round-to-nearest.
pub fn is_ieee(instr: &Instr) -> bool {
    match instr.opcode() {
        Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma | Opcode::Mad => true,
        Opcode::Div | Opcode::Rcp | Opcode::Sqrt => matches!(instr.mode(), Mode::Round(_)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ordinal intervals of a region in every format, f64 included, whose ordinals span
    /// more than an i64 difference holds: the positive finite values run from the smallest
    /// subnormal to the largest finite value; |x| ≤ 2 and (1, 4) end at their bounds.
    #[test]
    fn ordinal_intervals_in_every_format() {
        for fmt in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            let key = |v: f64| (0..=fmt.inf(false)).find(|&b| fmt.to_f64(b) >= v).map(|b| ordinal(fmt, b));
            let key_of = |bits: u64| ordinal(fmt, bits);
            assert_eq!(Region::Positive.ordinal_intervals(fmt), Some(vec![(1, key_of(fmt.max_finite(false)))]));
            let two = key_of(fmt.one() + (1 << fmt.frac_bits()));
            assert_eq!(Region::AbsAtMost(2.0).ordinal_intervals(fmt), Some(vec![(-1 - two, two)]), "{fmt:?}");
            let four = key_of(fmt.one() + (2 << fmt.frac_bits()));
            assert_eq!(Region::Open(1.0, 4.0).ordinal_intervals(fmt), Some(vec![(key_of(fmt.one()) + 1, four - 1)]));
            if fmt.bits() <= 16 {
                assert_eq!(key(2.0), Some(two), "{fmt:?}");
            }
        }
    }
}
