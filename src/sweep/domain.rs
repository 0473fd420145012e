//! The inputs of a sweep: a set of bit patterns per operand, enumerated exhaustively or sampled
//! at random, addressed by an index so that shards, threads and resumed runs see exactly the
//! same inputs in the same places.
//!
//! Exhaustive order: operand 0 varies slowest; within an operand, patterns ascend (so the
//! default f32 domain is input `i` = bit pattern `i`, the layout a GPU dump naturally has).

use super::error::DomainError;
use crate::batch::Word;
use crate::format::Format;
use crate::kernels::level::{at_level, Isa};
use crate::kernels::SimdLevel;
use crate::operand::parse_operand;
use crate::ptx::Type;

/// Domains larger than this are sampled rather than enumerated.
pub const EXHAUSTIVE_LIMIT: u64 = 1 << 32;

/// The random sample drawn when the exhaustive domain is larger than [`EXHAUSTIVE_LIMIT`] and
/// no `--random N` is given.
pub const DEFAULT_RANDOM: u64 = 10_000_000;

/// A set of bit patterns of one format: disjoint inclusive intervals in ascending order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternSet {
    fmt: Format,
    intervals: Vec<(u64, u64)>,
}

/// The ordinal of a bit pattern: monotone in the value, −0 just below +0, NaNs beyond ±Inf.
pub fn ordinal(fmt: Format, bits: u64) -> i64 {
    let magnitude = bits & !fmt.sign_bit();
    if bits & fmt.sign_bit() != 0 {
        -1 - magnitude as i64
    } else {
        magnitude as i64
    }
}

/// The bit pattern of an ordinal (inverse of [`ordinal`]).
pub fn from_ordinal(fmt: Format, key: i64) -> u64 {
    if key < 0 {
        fmt.sign_bit() | (-1 - key) as u64
    } else {
        key as u64
    }
}

/// `out[t] = first + t` (words of `W`), in lanes of the [`SimdLevel::active`] level. (The
/// addition wraps at the word's width, which it never needs to: an overflow check would keep
/// the loop scalar, and 64-bit sums narrowed to 32-bit words would fill half the lanes.)
pub(crate) fn count_up<W: Word>(out: &mut [W], first: u64) {
    let first = W::from_u64(first);
    at_level!(SimdLevel::active(), L => L::run(#[inline(always)] || {
        for (t, slot) in out.iter_mut().enumerate() {
            *slot = first.wrapping_offset(t);
        }
    }))
}

impl PatternSet {
    /// Every bit pattern of the format, NaNs included.
    pub fn all(fmt: Format) -> PatternSet {
        let top = if fmt.bits() == 64 { u64::MAX } else { (1u64 << fmt.bits()) - 1 };
        PatternSet { fmt, intervals: vec![(0, top)] }
    }

    /// The patterns `0..=last` of the format's width: every word of an integer type of
    /// `last`'s width (enumerated, or sampled as `fmt`'s patterns are).
    pub fn first_patterns(fmt: Format, last: u64) -> PatternSet {
        PatternSet { fmt, intervals: vec![(0, last & fmt.mask())] }
    }

    /// The positive values of binade `e`: [2^e, 2^(e+1)), normals only.
    pub fn binade(fmt: Format, e: i32) -> Result<PatternSet, DomainError> {
        let (lo, hi) = (fmt.emin(), fmt.emax());
        if e < lo || e > hi {
            return Err(DomainError::NoSuchBinade { binade: e, fmt, lo, hi });
        }
        let start = ((e + fmt.bias()) as u64) << fmt.frac_bits();
        Ok(PatternSet { fmt, intervals: vec![(start, start + fmt.frac_mask())] })
    }

    /// A range in Rust syntax: `LO..HI` (half-open) or `LO..=HI`, both bounds decimal values
    /// of the format (`1.0..2.0`, `-3.14159274..=3.14159274`, `-inf..=inf`; every value v
    /// with LO ≤ v < HI, so `0.0..` bounds include −0) or both hex bit patterns
    /// (`0x3f800000..0x40000000`: the patterns themselves, NaNs included if in range).
    pub fn range(fmt: Format, text: &str) -> Result<PatternSet, DomainError> {
        let syntax = || DomainError::RangeSyntax { text: text.into() };
        let (lo_text, hi_text, inclusive) = match text.split_once("..=") {
            Some((lo, hi)) => (lo, hi, true),
            None => match text.split_once("..") {
                Some((lo, hi)) => (lo, hi, false),
                None => return Err(syntax()),
            },
        };
        let (lo_text, hi_text) = (lo_text.trim(), hi_text.trim());
        if lo_text.is_empty() || hi_text.is_empty() {
            return Err(syntax());
        }
        let ty = scalar_type(fmt);
        let lo = parse_operand(ty, lo_text).map_err(DomainError::RangeStart)?;
        let hi = parse_operand(ty, hi_text).map_err(DomainError::RangeEnd)?;
        let is_hex = |t: &str| t.starts_with("0x") || t.starts_with("0X");
        let empty = || Err(DomainError::EmptyRange { text: text.into(), fmt });
        match (is_hex(lo_text), is_hex(hi_text)) {
            (true, true) => {
                let hi = if inclusive {
                    hi
                } else if hi == 0 {
                    return empty();
                } else {
                    hi - 1
                };
                if lo > hi {
                    return empty();
                }
                Ok(PatternSet { fmt, intervals: vec![(lo, hi)] })
            }
            (false, false) => {
                if fmt.is_nan(lo) || fmt.is_nan(hi) {
                    return Err(DomainError::NanBound { text: text.into() });
                }
                let is_zero = |b: u64| b & !fmt.sign_bit() == 0;
                // Value semantics: −0 == +0, so a zero bound admits both zeros.
                let klo = if is_zero(lo) { -1 } else { ordinal(fmt, lo) };
                let khi = match (inclusive, is_zero(hi)) {
                    (true, true) => 0,
                    (true, false) => ordinal(fmt, hi),
                    (false, true) => -2,
                    (false, false) => ordinal(fmt, hi) - 1,
                };
                if klo > khi {
                    return empty();
                }
                let mut intervals = Vec::new();
                if klo >= 0 || khi >= 0 {
                    intervals.push((from_ordinal(fmt, klo.max(0)), from_ordinal(fmt, khi)));
                }
                if klo < 0 {
                    // Negative ordinals descend in pattern order.
                    intervals.push((from_ordinal(fmt, khi.min(-1)), from_ordinal(fmt, klo)));
                }
                Ok(PatternSet { fmt, intervals })
            }
            _ => Err(DomainError::MixedBounds { text: text.into() }),
        }
    }

    pub fn format(&self) -> Format {
        self.fmt
    }

    /// The disjoint inclusive intervals of patterns, ascending.
    pub fn intervals(&self) -> &[(u64, u64)] {
        &self.intervals
    }

    /// Number of patterns (up to 2^64 − 1 for all f64 patterns, saturated).
    pub fn len(&self) -> u64 {
        self.intervals.iter().fold(0u64, |n, &(lo, hi)| n.saturating_add(hi - lo).saturating_add(1))
    }

    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    pub fn contains(&self, bits: u64) -> bool {
        self.intervals.iter().any(|&(lo, hi)| (lo..=hi).contains(&bits))
    }

    /// The `i`-th pattern in ascending order (`i < len()`).
    pub fn nth(&self, mut i: u64) -> u64 {
        for &(lo, hi) in &self.intervals {
            let n = hi - lo;
            if i <= n {
                return lo + i;
            }
            i -= n + 1;
        }
        unreachable!("pattern index beyond the set")
    }

    /// The smallest and largest ordinal in the set (for plot axes). An interval of patterns
    /// that crosses the sign bit holds the positive patterns up to the largest (NaN) and the
    /// negative ones from −0, so its ordinals are not those of its ends alone.
    pub fn ordinal_span(&self) -> (i64, i64) {
        let sign = self.fmt.sign_bit();
        let keys = self.intervals.iter().flat_map(|&(lo, hi)| {
            let mut ends = vec![lo, hi];
            if lo < sign && sign <= hi {
                ends.extend([sign - 1, sign]);
            }
            ends.into_iter().map(|b| ordinal(self.fmt, b))
        });
        keys.fold((i64::MAX, i64::MIN), |(a, b), k| (a.min(k), b.max(k)))
    }

    /// An edge-biased draw: an eighth of the draws are special values of the set (zeros,
    /// subnormal and normal limits, ±1, ±max, ±Inf, NaN, the set's own ends), a quarter have
    /// structured significands (single bits, runs of ones) over all exponents, the rest are
    /// uniform over the set's patterns.
    fn draw(&self, rng: &mut Rng) -> u64 {
        let f = self.fmt;
        match rng.next() % 8 {
            0 => {
                let specials = [
                    0,
                    1,
                    f.frac_mask(),
                    f.frac_mask() + 1,
                    f.one(),
                    f.max_finite(false),
                    f.exp_mask(),
                    f.exp_mask() | f.quiet_bit(),
                ];
                let mut candidate = specials[(rng.next() % specials.len() as u64) as usize];
                if rng.next() & 1 == 1 {
                    candidate |= f.sign_bit();
                }
                if rng.next().is_multiple_of(4) {
                    let &(lo, hi) = &self.intervals[(rng.next() % self.intervals.len() as u64) as usize];
                    candidate = if rng.next() & 1 == 1 { lo } else { hi };
                }
                if self.contains(candidate) {
                    return candidate;
                }
            }
            1 | 2 => {
                let frac_bits = f.frac_bits();
                let k = (rng.next() % (frac_bits as u64 + 1)) as u32;
                let ones = if k == 0 { 0 } else { (1u64 << k) - 1 };
                let frac = match rng.next() % 3 {
                    0 => ones,
                    1 => (ones << (frac_bits - k)) & f.frac_mask(),
                    _ => 1u64 << (rng.next() % frac_bits as u64),
                };
                let exp = rng.next() % ((f.exp_mask() >> frac_bits) + 1);
                let sign = if rng.next() & 1 == 1 { f.sign_bit() } else { 0 };
                let candidate = sign | (exp << frac_bits) | frac;
                if self.contains(candidate) {
                    return candidate;
                }
            }
            _ => {}
        }
        self.nth(rng.below(self.len()))
    }
}

fn scalar_type(fmt: Format) -> Type {
    match fmt {
        Format::F16 => Type::F16,
        Format::BF16 => Type::BF16,
        Format::F32 => Type::F32,
        Format::F64 => Type::F64,
    }
}

/// How the domain is covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Every combination of the operand sets.
    Exhaustive,
    /// `n` edge-biased draws; draw `i` depends only on `(seed, i)`.
    Random { n: u64, seed: u64 },
}

/// The inputs of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    /// The set each operand is drawn from.
    pub sets: Vec<PatternSet>,
    pub sampling: Sampling,
    /// What the user asked for, for reports (`all f32 inputs`, `1.0..2.0`, `binade 0`).
    pub what: String,
}

impl Domain {
    /// `sets` enumerated when their product is at most [`EXHAUSTIVE_LIMIT`], otherwise
    /// [`DEFAULT_RANDOM`] draws with seed 1; `random` forces sampling.
    pub fn new(sets: Vec<PatternSet>, what: String, random: Option<(u64, u64)>) -> Result<Domain, DomainError> {
        let size = sets.iter().fold(1u64, |n, s| n.saturating_mul(s.len()));
        let sampling = match random {
            Some((0, _)) => return Err(DomainError::NoCases),
            Some((n, seed)) => Sampling::Random { n, seed },
            None if size <= EXHAUSTIVE_LIMIT => Sampling::Exhaustive,
            None => Sampling::Random { n: DEFAULT_RANDOM, seed: 1 },
        };
        Ok(Domain { sets, sampling, what })
    }

    /// Number of inputs (tuples of operands).
    pub fn count(&self) -> u64 {
        match self.sampling {
            Sampling::Exhaustive => self.sets.iter().map(PatternSet::len).product(),
            Sampling::Random { n, .. } => n,
        }
    }

    pub fn operands(&self) -> usize {
        self.sets.len()
    }

    /// A one-line description for reports.
    pub fn describe(&self) -> String {
        let fmt = self.sets[0].fmt.name();
        let tuple = match self.sets.len() {
            1 => format!("{fmt} inputs"),
            2 => format!("{fmt} operand pairs"),
            n => format!("{fmt} operand {n}-tuples"),
        };
        match self.sampling {
            Sampling::Exhaustive => format!("{}: all {} {tuple}", self.what, self.count()),
            Sampling::Random { n, seed } => format!("{}: {n} edge-biased random {tuple} (seed {seed})", self.what),
        }
    }

    /// `first` where inputs `start..start + len` (`len` ≥ 1) of a one-operand exhaustive domain
    /// are consecutive ascending bit patterns, `first, first + 1, …`, as [`Domain::fill`]
    /// writes them (one interval of the set holds both ends); `None` otherwise.
    pub fn ascending_run(&self, start: u64, len: u64) -> Option<u64> {
        if self.sets.len() != 1 || !matches!(self.sampling, Sampling::Exhaustive) || len == 0 {
            return None;
        }
        let set = &self.sets[0];
        let (first, last) = (set.nth(start), set.nth(start + len - 1));
        let consecutive = last.checked_sub(first) == Some(len - 1);
        (consecutive && set.intervals.iter().any(|&(lo, hi)| lo <= first && last <= hi)).then_some(first)
    }

    /// Write the operands of inputs `start..start + out[0].len()` into `out` (one buffer per
    /// operand, each holding the bit patterns in the low bits of the word).
    pub fn fill<W: Word>(&self, start: u64, out: &mut [&mut [W]]) {
        let len = out[0].len();
        match self.sampling {
            Sampling::Exhaustive => {
                // An odometer over the operand sets: the last operand turns fastest; each
                // wheel holds its pattern and the interval it is in.
                let k = self.sets.len();
                let mut wheel = vec![(0u64, 0usize); k];
                let mut rest = start;
                for j in (0..k).rev() {
                    let set = &self.sets[j];
                    let n = set.len();
                    let bits = set.nth(rest % n);
                    rest /= n;
                    wheel[j] = (bits, set.intervals.iter().position(|&(lo, hi)| (lo..=hi).contains(&bits)).unwrap());
                }
                let mut i = 0;
                while i < len {
                    // A run of the last operand within its current interval.
                    let last = k - 1;
                    let (bits, iv) = wheel[last];
                    let run = ((self.sets[last].intervals[iv].1 - bits) as usize).saturating_add(1).min(len - i);
                    count_up(&mut out[last][i..i + run], bits);
                    for j in 0..last {
                        let w = W::from_u64(wheel[j].0);
                        out[j][i..i + run].fill(w);
                    }
                    i += run;
                    wheel[last].0 = bits + run as u64 - 1;
                    // Advance past the run's last element.
                    for j in (0..k).rev() {
                        let intervals = &self.sets[j].intervals;
                        let (bits, iv) = wheel[j];
                        if bits < intervals[iv].1 {
                            wheel[j].0 = bits + 1;
                            break;
                        }
                        if iv + 1 < intervals.len() {
                            wheel[j] = (intervals[iv + 1].0, iv + 1);
                            break;
                        }
                        wheel[j] = (intervals[0].0, 0);
                    }
                }
            }
            Sampling::Random { seed, .. } => {
                for (i, case) in (start..).take(len).enumerate() {
                    let mut rng = Rng::for_case(seed, case);
                    for (j, set) in self.sets.iter().enumerate() {
                        out[j][i] = W::from_u64(set.draw(&mut rng));
                    }
                }
            }
        }
    }
}

/// splitmix64, keyed by (seed, case index) so every case is reproducible on its own.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn for_case(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        r.next();
        r
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_ranges_follow_rust_semantics() {
        let f = Format::F32;
        let r = PatternSet::range(f, "1.0..2.0").unwrap();
        assert_eq!(r.intervals, vec![(0x3F80_0000, 0x3FFF_FFFF)]);
        let r = PatternSet::range(f, "-1.0..=1.0").unwrap();
        assert_eq!(r.intervals, vec![(0, 0x3F80_0000), (0x8000_0000, 0xBF80_0000)]);
        assert_eq!(r.len(), 2 * 0x3F80_0001);
        // A zero bound admits both zeros; an exclusive zero end excludes both.
        assert_eq!(
            PatternSet::range(f, "0.0..1.0").unwrap().intervals,
            vec![(0, 0x3F7F_FFFF), (0x8000_0000, 0x8000_0000)]
        );
        assert_eq!(PatternSet::range(f, "-1.0..0.0").unwrap().intervals, vec![(0x8000_0001, 0xBF80_0000)]);
        let all = PatternSet::range(f, "-inf..=inf").unwrap();
        assert_eq!(all.len(), (1u64 << 32) - 2 * 0x7F_FFFF);
        assert!(PatternSet::range(f, "2.0..1.0").unwrap_err().to_string().contains("no f32 value"));
        assert!(PatternSet::range(f, "1.0..1.0").is_err());
        assert!(PatternSet::range(f, "1.0").unwrap_err().to_string().contains("LO..HI"));
        assert!(PatternSet::range(f, "0x3f800000..2.0").unwrap_err().to_string().contains("both"));
        assert!(PatternSet::range(f, "nan..1.0").unwrap_err().to_string().contains("NaN"));
    }

    #[test]
    fn hex_ranges_are_patterns() {
        let r = PatternSet::range(Format::F16, "0x7c00..=0x7fff").unwrap();
        assert_eq!(r.intervals, vec![(0x7C00, 0x7FFF)]);
        assert!(PatternSet::range(Format::F16, "0x0..0x10000").unwrap_err().to_string().contains("too wide"));
    }

    /// Sets whose intervals of patterns cross the sign bit span negative and positive
    /// ordinals, NaNs of both signs included.
    #[test]
    fn spans_cover_both_signs() {
        assert_eq!(PatternSet::all(Format::F32).ordinal_span(), (-(1 << 31), (1 << 31) - 1));
        assert_eq!(PatternSet::all(Format::F16).ordinal_span(), (-(1 << 15), (1 << 15) - 1));
        let crossing = PatternSet::range(Format::F16, "0x7000..=0x8010").unwrap();
        assert_eq!(crossing.ordinal_span(), (-0x11, 0x7FFF));
        assert_eq!(PatternSet::range(Format::F16, "-1.0..=2.0").unwrap().ordinal_span(), (-0x3C01, 0x4000));
        assert_eq!(PatternSet::binade(Format::F16, 0).unwrap().ordinal_span(), (0x3C00, 0x3FFF));
    }

    #[test]
    fn binades_are_normal_positive_values() {
        let b = PatternSet::binade(Format::F32, 0).unwrap();
        assert_eq!(b.intervals, vec![(0x3F80_0000, 0x3FFF_FFFF)]);
        assert!(PatternSet::binade(Format::F16, 16).unwrap_err().to_string().contains("-14..=15"));
    }

    #[test]
    fn exhaustive_pairs_enumerate_every_combination_once() {
        let s = PatternSet::range(Format::F16, "0x0..=0x2").unwrap();
        let t = PatternSet { fmt: Format::F16, intervals: vec![(5, 6), (9, 9)] };
        let d = Domain::new(vec![s, t], "test".into(), None).unwrap();
        assert_eq!(d.count(), 9);
        for start in 0..9u64 {
            let (mut a, mut b) = (vec![0u16; (9 - start) as usize], vec![0u16; (9 - start) as usize]);
            d.fill(start, &mut [&mut a[..], &mut b[..]]);
            let all: Vec<(u16, u16)> = [0, 1, 2].iter().flat_map(|&x| [5, 6, 9].map(|y| (x, y))).collect();
            assert_eq!(a.into_iter().zip(b).collect::<Vec<_>>(), all[start as usize..]);
        }
    }

    /// `ascending_run` says true only where what `fill` writes is `first, first + 1, …`, and
    /// wherever it is within one interval (every run when no two intervals are adjacent):
    /// every start and length in sets of adjacent, separate and descending intervals, in the
    /// range across zero; never for two operands or random sampling.
    #[test]
    fn ascending_runs_are_what_fill_writes() {
        let sets = [
            (PatternSet { fmt: Format::F16, intervals: vec![(5, 6), (7, 9), (12, 13), (2, 3)] }, false),
            (PatternSet { fmt: Format::F16, intervals: vec![(5, 9), (12, 13), (2, 3)] }, true),
            (PatternSet::range(Format::F16, "-0.00000012..=0.00000012").unwrap(), true),
        ];
        for (set, separate) in sets {
            let d = Domain::new(vec![set.clone()], "test".into(), None).unwrap();
            let n = d.count();
            let mut recognised = 0;
            for start in 0..n {
                for len in 1..=n - start {
                    let mut x = vec![0u16; len as usize];
                    d.fill(start, &mut [&mut x[..]]);
                    let consecutive = x.iter().zip(0..).all(|(&w, i)| u64::from(w) == u64::from(x[0]) + i);
                    let run = d.ascending_run(start, len);
                    let ascending = run.is_some();
                    assert!(consecutive || !ascending, "{set:?} from {start}, {len}: not consecutive");
                    assert!(run.is_none_or(|first| first == u64::from(x[0])), "{set:?} from {start}, {len}: {run:?}");
                    assert!(ascending || !consecutive || !separate, "{set:?} from {start}, {len}: consecutive");
                    recognised += u32::from(ascending);
                }
            }
            assert!(recognised >= 6, "{set:?}: {recognised} runs");
            let pairs = Domain::new(vec![set.clone(), set.clone()], "pairs".into(), None).unwrap();
            let sampled = Domain::new(vec![set], "sampled".into(), Some((10, 1))).unwrap();
            assert!(pairs.ascending_run(0, 1).is_none() && sampled.ascending_run(0, 1).is_none());
        }
    }

    #[test]
    fn random_cases_depend_only_on_seed_and_index_and_stay_in_the_set() {
        let set = PatternSet::range(Format::F32, "1.0..2.0").unwrap();
        let d = Domain::new(vec![set.clone(), set.clone()], "r".into(), Some((1000, 7))).unwrap();
        let (mut a, mut b) = (vec![0u32; 1000], vec![0u32; 1000]);
        d.fill(0, &mut [&mut a[..], &mut b[..]]);
        let (mut a2, mut b2) = (vec![0u32; 10], vec![0u32; 10]);
        d.fill(500, &mut [&mut a2[..], &mut b2[..]]);
        assert_eq!(a2, a[500..510]);
        assert_eq!(b2, b[500..510]);
        assert!(a.iter().chain(&b).all(|&x| set.contains(x as u64)));
        assert!(a.contains(&0x3F80_0000) && a.contains(&0x3FFF_FFFF), "set ends are drawn");
    }

    #[test]
    fn large_domains_are_sampled() {
        let d = Domain::new(vec![PatternSet::all(Format::F32); 2], "all".into(), None).unwrap();
        assert_eq!(d.sampling, Sampling::Random { n: DEFAULT_RANDOM, seed: 1 });
        let d = Domain::new(vec![PatternSet::all(Format::F32)], "all".into(), None).unwrap();
        assert_eq!((d.sampling, d.count()), (Sampling::Exhaustive, 1 << 32));
    }
}
