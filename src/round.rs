//! Rounding: the one round-and-pack routine every exact operation ends in, and the result
//! clamps (`.sat`, `.relu`) applied after it.
//!
//! Nothing here touches the host floating-point environment: directed rounding is computed on
//! integers.

use std::hint::select_unpredictable;

use crate::format::Format;

/// IEEE rounding direction, spelled as the PTX modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// `.rn`: to nearest, ties to even.
    Rn,
    /// `.rz`: toward zero.
    Rz,
    /// `.rm`: toward −∞.
    Rm,
    /// `.rp`: toward +∞.
    Rp,
}

/// A rounding direction fixed at compile time, so that code generic over it (each kernel
/// loop, each f32 route of the scalar call) is specialised to it.
pub(crate) trait Dir {
    const R: Rounding;
}

macro_rules! dir {
    ($($name:ident),*) => {$(
        pub(crate) struct $name;
        impl Dir for $name {
            const R: Rounding = Rounding::$name;
        }
    )*};
}
dir!(Rn, Rz, Rm, Rp);

impl Rounding {
    pub const ALL: [Rounding; 4] = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];

    pub const fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
        }
    }

    /// Whether a value of sign `neg` lying strictly between two representable neighbours
    /// rounds away from zero. `lsb_odd` is the parity of the truncated candidate; `half`
    /// compares the discarded part with half an ulp.
    /// (The operators do not short-circuit, so that the data-dependent decision compiles to
    /// flag arithmetic rather than to branches the processor would mispredict.)
    #[inline(always)]
    fn rounds_away(self, neg: bool, lsb_odd: bool, half: core::cmp::Ordering) -> bool {
        use core::cmp::Ordering::*;
        match self {
            Rounding::Rn => (half == Greater) | ((half == Equal) & lsb_odd),
            Rounding::Rz => false,
            Rounding::Rm => neg,
            Rounding::Rp => !neg,
        }
    }

    /// The zero an exact cancellation `x + (−x)` produces: −0 under `.rm`, +0 otherwise
    /// (IEEE 754-2019 clause 6.3).
    pub const fn cancellation_zero_is_negative(self) -> bool {
        matches!(self, Rounding::Rm)
    }
}

/// An unsigned integer holding an exact significand: `u64` for the formats of at most 32 bits,
/// whose exact products (at most 2·24 bits) and aligned sums fit in it, `u128` for f64.
///
/// Every function generic over it depends on a significand only through its value (never
/// through the width of the type holding it), so both widths give the same result whenever
/// the value fits in both.
pub(crate) trait Sig:
    Copy
    + Ord
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Shl<u32, Output = Self>
    + core::ops::Shr<u32, Output = Self>
    + core::ops::BitAnd<Output = Self>
    + core::ops::BitOr<Output = Self>
{
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    fn leading_zeros(self) -> u32;
    fn from_u64(v: u64) -> Self;
    fn from_bool(b: bool) -> Self;
    /// The low 64 bits.
    fn low_u64(self) -> u64;
}

macro_rules! sig {
    ($t:ty) => {
        impl Sig for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: $t = 0;
            const ONE: $t = 1;
            #[inline(always)]
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            #[inline(always)]
            fn from_u64(v: u64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn from_bool(b: bool) -> $t {
                b as $t
            }
            #[inline(always)]
            fn low_u64(self) -> u64 {
                self as u64
            }
        }
    };
}
sig!(u64);
sig!(u128);

/// `sig >> shift` (`shift` ≥ 1), rounded in direction `rnd` for a value of sign `neg`. The
/// result may carry into the next power of two.
///
/// The decision is one addition: with `rest` the discarded part (below `unit` = 2^shift) and
/// `half` = unit/2, the value rounds away from zero exactly when `rest + inc ≥ unit`, for
/// `inc = half − 1 + lsb` to nearest (that is `rest > half`, or `rest = half` with the kept
/// part odd), `inc = unit − 1` away from zero (`rest ≠ 0`) and `inc = 0` toward it: the rule
/// of [`Rounding::rounds_away`]. Both `rest` and `inc` are below `unit`, so `rest + inc`
/// neither overflows nor reaches `2·unit`, and `(rest + inc) >> shift` is that decision.
#[inline(always)]
pub(crate) fn shift_right_round<S: Sig>(sig: S, shift: u32, neg: bool, rnd: Rounding) -> S {
    shift_right_by(sig, shift, neg, Rule::Dir(rnd))
}

/// How a conversion rounds: an IEEE direction, ties away from zero, or stochastically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `.rn .rz .rm .rp`.
    Dir(Rounding),
    /// `.rna`: to nearest, ties away from zero (IEEE 754 roundTiesToAway) \[DOC PTX cvt\].
    TiesAway,
    /// `.rs`: the `bits`-bit integer `r` is added to the top `bits` bits of the discarded part
    /// and a carry out of them rounds away from zero, else the value is truncated \[DOC PTX cvt:
    /// "carry out of the integer addition of the supplied random bits (rbits) to the truncated
    /// off (discarded) bits of mantissa"\]. Discarded bits below those `bits` do not count: `r`
    /// is an integer, so `top + r + low/2^k ≥ 2^bits` exactly when `top + r ≥ 2^bits`; the rule
    /// is gfloat's `StochasticFastest` with `srnumbits = bits`.
    Random { bits: u32, r: u32 },
}

impl Rule {
    /// Whether a value beyond the largest finite one goes to infinity (else it stays at the
    /// largest finite value): IEEE 754-2019 clause 7.4 for the directions and ties away; a stochastic
    /// rounding is a rounding away from zero exactly when it carried.
    #[inline(always)]
    const fn overflows_away(self, neg: bool, carried: bool) -> bool {
        match self {
            Rule::Dir(Rounding::Rn) | Rule::TiesAway => true,
            Rule::Dir(Rounding::Rz) => false,
            Rule::Dir(Rounding::Rm) => neg,
            Rule::Dir(Rounding::Rp) => !neg,
            Rule::Random { .. } => carried,
        }
    }
}

/// [`shift_right_round`] under any [`Rule`]: `sig >> shift` (`shift` ≥ 1) rounded, by the same
/// one addition (ties away: `inc = half`, so `rest ≥ half` carries; stochastic: the random
/// integer aligned with the top of the discarded part, the alignment exact in both directions
/// because a carry depends only on the integer parts, [`Rule::Random`]).
#[inline(always)]
pub(crate) fn shift_right_by<S: Sig>(sig: S, shift: u32, neg: bool, rule: Rule) -> S {
    debug_assert!(shift >= 1);
    // The deterministic rules: a direction, or `None` for ties away.
    let dir = match rule {
        Rule::Random { bits, r } => return shift_right_random(sig, shift, bits, r),
        Rule::TiesAway => None,
        Rule::Dir(rnd) => Some(rnd),
    };
    if shift >= S::BITS {
        // Everything is discarded; half an ulp is 2^(shift-1) >= 2^(BITS-1).
        let half = if shift == S::BITS { sig.cmp(&(S::ONE << (S::BITS - 1))) } else { core::cmp::Ordering::Less };
        let away = match dir {
            Some(rnd) => rnd.rounds_away(neg, false, half),
            None => half != core::cmp::Ordering::Less,
        };
        return S::from_bool(sig != S::ZERO && away);
    }
    let away = (S::ONE << shift) - S::ONE;
    let (kept, rest) = (sig >> shift, sig & away);
    let inc = match dir {
        Some(Rounding::Rn) => (away >> 1) + (kept & S::ONE),
        Some(Rounding::Rz) => S::ZERO,
        Some(Rounding::Rm) => select_unpredictable(neg, away, S::ZERO),
        Some(Rounding::Rp) => select_unpredictable(neg, S::ZERO, away),
        None => (away >> 1) + S::ONE,
    };
    kept + ((rest + inc) >> shift)
}

/// `sig >> shift` rounded by [`Rule::Random`]: the top `bits` (≤ 32) bits of the discarded
/// part, as an integer below 2^bits, plus `r`; a carry out of them rounds away from zero.
#[inline(always)]
fn shift_right_random<S: Sig>(sig: S, shift: u32, bits: u32, r: u32) -> S {
    let kept = if shift >= S::BITS { S::ZERO } else { sig >> shift };
    let top = if shift >= bits {
        let down = shift - bits;
        if down >= S::BITS {
            0
        } else {
            (sig >> down).low_u64() & ((1u64 << bits) - 1)
        }
    } else {
        (sig & ((S::ONE << shift) - S::ONE)).low_u64() << (bits - shift)
    };
    kept + S::from_bool((top + u64::from(r)) >> bits != 0)
}

/// The finite values of a binary floating-point encoding, as rounding sees them: the one
/// description the IEEE formats ([`Format::grid`]) and the narrow ones
/// ([`crate::narrow::Narrow::grid`]) give of themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Significand precision p in bits, the leading bit included.
    pub p: u32,
    /// The exponent of the smallest normal binade: its values are `m · 2^(emin − p + 1)` for
    /// `2^(p−1) ≤ m < 2^p`.
    pub emin: i32,
    /// The exponent of the largest finite binade.
    pub emax: i32,
    /// The largest significand `m` of that binade: `2^p − 1` where every code of it is finite,
    /// one less in e4m3, ue4m3 and ue5m3, whose last code is their NaN.
    pub max_top: u64,
    /// Whether values below 2^emin are subnormals on the grid 2^(emin − p + 1) (with a zero);
    /// without them (ue8m0, whose exponent field 0 is 2^emin) the smallest normal is the least
    /// value, which every smaller one gives.
    pub subnormals: bool,
}

/// A magnitude rounded onto a [`Grid`] ([`round_to_grid`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounded {
    /// The magnitude's code: the exponent field (1 for the smallest normal binade where the
    /// grid has subnormals, else 0) above the `p − 1` fraction bits; 0 for a zero.
    Code(u64),
    /// Beyond the largest finite value; `away` when the rule sends it to infinity
    /// (IEEE 754-2019 clause 7.4), else it is the largest finite value.
    Overflow { away: bool },
}

/// Round the exact magnitude `sig · 2^exp` (`sig` nonzero) of a value of sign `neg` onto
/// `grid` by `rule`: the one rounding every result of ptxfp ends in.
///
/// Tininess (docs/semantics.md §5, \[PTXAS\] for RN, \[INF\] for the directed modes): the significand is
/// first rounded to `p` bits as if the exponent were unbounded. If that value is below the
/// smallest normal, the result is tiny: with `ftz` it becomes a zero; without it the *exact*
/// value is rounded once more onto the subnormal grid (the IEEE result, never a double
/// rounding). A rounded value above the grid's largest is an overflow.
#[inline(always)]
pub(crate) fn round_to_grid<S: Sig>(grid: Grid, neg: bool, exp: i32, sig: S, rule: Rule, ftz: bool) -> Rounded {
    debug_assert!(sig != S::ZERO, "round_to_grid needs a nonzero significand");
    let p = grid.p as i32;
    let top = (S::BITS - 1) as i32 - sig.leading_zeros() as i32;
    let mut e = exp + top;
    let excess = top - (p - 1);
    let mut m = if excess > 0 { shift_right_by(sig, excess as u32, neg, rule) } else { sig << (-excess) as u32 };
    // Only a stochastic overflow asks whether the rounding carried.
    let carried = excess > 0 && matches!(rule, Rule::Random { .. }) && m != sig >> excess as u32;
    if m >> p as u32 != S::ZERO {
        m = m >> 1;
        e += 1;
    }
    // (The second test is constant false where every code of the top binade is finite.)
    let full_top = grid.max_top == (1u64 << p) - 1;
    if e > grid.emax || (!full_top && e == grid.emax && m.low_u64() > grid.max_top) {
        return Rounded::Overflow { away: rule.overflows_away(neg, carried) };
    }
    let frac_mask = (1u64 << (p - 1)) - 1;
    let first_field = u64::from(grid.subnormals);
    if e >= grid.emin {
        let field = (e - grid.emin) as u64 + first_field;
        return Rounded::Code((field << (p - 1)) | (m.low_u64() & frac_mask));
    }
    if ftz || !grid.subnormals {
        return Rounded::Code(0);
    }
    // Subnormal: the grid spacing is 2^(emin - (p-1)). A carry into 2^(p-1) encodes the
    // smallest normal, which the plain `m` encoding produces by itself.
    let shift = grid.emin - (p - 1) - exp;
    let m = if shift > 0 { shift_right_by(sig, shift as u32, neg, rule) } else { sig << (-shift) as u32 };
    Rounded::Code(m.low_u64())
}

/// Round the exact value `(-1)^neg · sig · 2^exp` to `fmt` and encode it ([`round_to_grid`] on
/// the format's grid: tininess after rounding, `ftz` giving a zero of the same sign).
///
/// `sig` must be nonzero. An inexact operation passes its result with at least `p + 2`
/// significant bits and ORs a sticky bit into the lowest one, so that the discarded part is
/// never mistaken for an exact half.
#[inline(always)]
pub fn round_pack(fmt: Format, neg: bool, exp: i32, sig: u128, rnd: Rounding, ftz: bool) -> u64 {
    round_pack_sig(fmt, neg, exp, sig, rnd, ftz)
}

/// [`round_pack`] on a significand of either width; the scalar definitions of the formats up to
/// 32 bits pass a `u64`. The result depends on `sig` only through its value. Overflow gives
/// ±Inf or the largest finite value as the direction dictates.
#[inline(always)]
pub(crate) fn round_pack_sig<S: Sig>(fmt: Format, neg: bool, exp: i32, sig: S, rnd: Rounding, ftz: bool) -> u64 {
    let sign = if neg { fmt.sign_bit() } else { 0 };
    match round_to_grid(fmt.grid(), neg, exp, sig, Rule::Dir(rnd), ftz) {
        Rounded::Code(m) => sign | m,
        Rounded::Overflow { away: true } => fmt.inf(neg),
        Rounded::Overflow { away: false } => fmt.max_finite(neg),
    }
}

/// `.sat`: clamp to [+0, 1.0]; NaN → +0 and every negative value, −0 included, → +0
/// (docs/semantics.md §4–§5: \[DOC\] for the clamp and NaN, \[RE Tesla / INF modern\] for −0).
#[inline]
pub const fn saturate(fmt: Format, bits: u64) -> u64 {
    if fmt.is_nan(bits) || fmt.is_neg(bits) {
        0
    } else if bits > fmt.one() {
        fmt.one()
    } else {
        bits
    }
}

/// `.relu` (f16/bf16 fma and cvt): a negative result becomes +0 and a NaN becomes the
/// canonical NaN \[DOC PTX 9.7.4.4\]. −0 also becomes +0: the hardware clamp is taken to be
/// max(x, +0) with −0 < +0 as in FMNMX \[INF\].
#[inline]
pub const fn relu(fmt: Format, bits: u64) -> u64 {
    if fmt.is_nan(bits) {
        fmt.canonical_nan()
    } else if fmt.is_neg(bits) {
        0
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ftz_tininess_is_decided_after_rounding_with_unbounded_exponent() {
        // docs/semantics.md §5: (1−3000·2^-24)·FLT_MIN·(1+1500·2^-23), ptxas constant folding on sm_80.
        let a = Format::F32.unpack(0x3F7F_F448, false);
        let b = Format::F32.unpack(0x0080_05DC, false);
        let (
            crate::format::Unpacked::Finite { exp: ea, sig: sa, .. },
            crate::format::Unpacked::Finite { exp: eb, sig: sb, .. },
        ) = (a, b)
        else {
            unreachable!()
        };
        let sig = sa as u128 * sb as u128;
        assert_eq!(round_pack(Format::F32, false, ea + eb, sig, Rounding::Rn, true), 0);
        assert_eq!(round_pack(Format::F32, false, ea + eb, sig, Rounding::Rn, false), 0x0080_0000);
    }

    #[test]
    fn overflow_follows_direction() {
        let big = 1u128 << 100;
        for (rnd, neg, want) in [
            (Rounding::Rn, false, 0x7F80_0000u64),
            (Rounding::Rz, false, 0x7F7F_FFFF),
            (Rounding::Rm, false, 0x7F7F_FFFF),
            (Rounding::Rp, false, 0x7F80_0000),
            (Rounding::Rm, true, 0xFF80_0000),
            (Rounding::Rp, true, 0xFF7F_FFFF),
        ] {
            assert_eq!(round_pack(Format::F32, neg, 100, big, rnd, false), want);
        }
    }

    #[test]
    fn subnormal_results_round_once() {
        // 1.5 · 2^-149 is a tie between the two smallest subnormals: even wins.
        assert_eq!(round_pack(Format::F32, false, -150, 3, Rounding::Rn, false), 2);
        assert_eq!(round_pack(Format::F32, false, -150, 3, Rounding::Rz, false), 1);
        assert_eq!(round_pack(Format::F32, false, -150, 3, Rounding::Rp, false), 2);
        assert_eq!(round_pack(Format::F32, true, -151, 1, Rounding::Rm, false), 0x8000_0001);
        assert_eq!(round_pack(Format::F32, true, -151, 1, Rounding::Rn, false), 0x8000_0000);
    }

    /// The rounding by one addition decides as the comparison of the discarded part with half
    /// a unit does, for every shift, both widths, every direction and sign, on significands
    /// whose discarded part is zero, a tie, or just beside a tie.
    #[test]
    fn shift_right_round_is_the_comparison_with_half() {
        fn by_comparison<S: Sig>(sig: S, shift: u32, neg: bool, rnd: Rounding) -> S {
            let kept = sig >> shift;
            let rest = sig & ((S::ONE << shift) - S::ONE);
            if rest == S::ZERO {
                return kept;
            }
            let half = rest.cmp(&(S::ONE << (shift - 1)));
            kept + S::from_bool(rnd.rounds_away(neg, kept & S::ONE == S::ONE, half))
        }
        let mut rng = crate::sweep::domain::Rng::for_case(3, 0);
        let mut next = move || rng.next();
        for _ in 0..20_000 {
            let r = next();
            let wide = (u128::from(next()) << 64) | u128::from(r);
            for shift in 1..128u32 {
                for rnd in Rounding::ALL {
                    for neg in [false, true] {
                        // The random value, and the same with its discarded part set to a tie,
                        // a tie minus or plus one, or zero.
                        let low = (1u128 << shift) - 1;
                        let half = 1u128 << (shift - 1);
                        for sig in
                            [wide, wide & !low | half, (wide & !low | half) - 1, wide & !low | half | 1, wide & !low]
                        {
                            let want = by_comparison(sig, shift, neg, rnd);
                            assert_eq!(
                                shift_right_round(sig, shift, neg, rnd),
                                want,
                                "{sig:#x} >> {shift} {rnd:?} {neg}"
                            );
                            if shift < 64 {
                                let narrow = sig as u64;
                                let want = by_comparison(narrow, shift, neg, rnd);
                                assert_eq!(shift_right_round(narrow, shift, neg, rnd), want, "{narrow:#x} >> {shift}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Ties away and the stochastic rule decide as their definitions say: ties away rounds up
    /// exactly when the discarded part is at least half a unit; the stochastic rule exactly
    /// when `rest/2^shift + r/2^bits ≥ 1` (gfloat's `StochasticFastest`, with exact rationals:
    /// `rest·2^bits + r·2^shift ≥ 2^(shift+bits)`), for every shift where the comparison fits
    /// in 128 bits, random widths 8, 13 and 16, and random values at and beside the carry.
    #[test]
    fn ties_away_and_stochastic_rules_follow_their_definitions() {
        let mut rng = crate::sweep::domain::Rng::for_case(4, 0);
        for _ in 0..3000 {
            let wide = (u128::from(rng.next()) << 64) | u128::from(rng.next());
            for shift in 1..100u32 {
                let low = (1u128 << shift) - 1;
                let half = 1u128 << (shift - 1);
                for sig in [wide >> 20, (wide >> 20) & !low | half, ((wide >> 20) & !low | half) - 1] {
                    let (kept, rest) = (sig >> shift, sig & low);
                    let want = kept + u128::from(rest >= half);
                    assert_eq!(shift_right_by(sig, shift, false, Rule::TiesAway), want, "{sig:#x} >> {shift} rna");
                    for bits in [8u32, 13, 16] {
                        // The random integer that just carries, beside it, and a random one.
                        let needed = ((1u128 << (shift + bits)) - (rest << bits)).div_ceil(1u128 << shift);
                        let candidates = [needed, needed.wrapping_sub(1), u128::from(rng.next() as u32)];
                        for r in candidates.into_iter().filter(|&r| r < 1u128 << bits) {
                            let carry = (rest << bits) + (r << shift) >= 1u128 << (shift + bits);
                            let rule = Rule::Random { bits, r: r as u32 };
                            assert_eq!(
                                shift_right_by(sig, shift, true, rule),
                                kept + u128::from(carry),
                                "{sig:#x} >> {shift} rs {bits} {r:#x}"
                            );
                            if shift < 64 {
                                let narrow = sig as u64;
                                let (kept, rest) = (narrow >> shift, (narrow as u128) & low);
                                let carry = (rest << bits) + (r << shift) >= 1u128 << (shift + bits);
                                assert_eq!(shift_right_by(narrow, shift, true, rule), kept + u64::from(carry));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn saturate_clamps_to_unit_interval() {
        let f = Format::F32;
        assert_eq!(saturate(f, 0x7FFF_FFFF), 0);
        assert_eq!(saturate(f, 0x8000_0000), 0);
        assert_eq!(saturate(f, 0xBF80_0000), 0);
        assert_eq!(saturate(f, 0x7F80_0000), 0x3F80_0000);
        assert_eq!(saturate(f, 0x3F80_0001), 0x3F80_0000);
        assert_eq!(saturate(f, 0x3F00_0000), 0x3F00_0000);
        assert_eq!(saturate(f, 1), 1);
    }
}
