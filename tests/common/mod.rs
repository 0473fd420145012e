//! Shared pieces of the independent-oracle tests: a deterministic PRNG, an independent
//! description of the four bit layouts, edge-biased operand generators, the `rustc_apfloat`
//! reference operations, and a parallel case runner that reports mismatches in hex.
//!
//! Nothing here calls into ptxfp's arithmetic: the layouts are written out from the IEEE 754
//! and bfloat16 definitions, so a wrong constant in `src/format.rs` cannot hide itself.

#![allow(dead_code)]

#[cfg(not(feature = "internals"))]
compile_error!("these tests reach ptxfp's internals: run them as the README says, with --features ptxfp/internals");

pub mod batch;
pub mod exact_dot;
pub mod mma;

use ptxfp::ops::cvt_int::IntType;
use ptxfp::{Format, Rounding};
use rayon::prelude::*;
use rustc_apfloat::ieee::{BFloat, Double, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status};

/// Where `a` lies against `b`, `Equal` when either is a NaN; without a branch, because the
/// side of a rounded value against the exact one falls either way at random, which a branch
/// mispredicts half the time.
pub fn side(a: f64, b: f64) -> std::cmp::Ordering {
    u8::from(a > b).cmp(&u8::from(a < b))
}

// ---------------------------------------------------------------------------------------------
// References from the host's IEEE arithmetic (round to nearest, the default: the floating-point
// environment is never touched)

/// `x` rounded to an integral value in direction `rnd`: below 2^23 in magnitude, adding and
/// subtracting 2^23 rounds the magnitude to an integer, ties to even (the f32 spacing there is
/// 1), and the neighbour one unit away corrects a directed result; the result has the sign of
/// `x` (IEEE 754: −0.4 gives −0 to nearest, −0.7 gives −0 toward +∞). From 2^23 on, and for
/// infinities and NaNs, `x` is its own result.
#[inline(always)]
pub fn integral_f32(x: f32, rnd: Rounding) -> f32 {
    const TWO_23: f32 = 8_388_608.0;
    let nearest = (x.abs() + TWO_23 - TWO_23).copysign(x);
    let r = match rnd {
        Rounding::Rn => nearest,
        Rounding::Rz if nearest.abs() > x.abs() => nearest - 1f32.copysign(x),
        Rounding::Rm if nearest > x => nearest - 1.0,
        Rounding::Rp if nearest < x => nearest + 1.0,
        _ => nearest,
    };
    // Selected rather than returned early, so that a loop of these has no branches.
    if x.abs() < TWO_23 {
        r.copysign(x)
    } else {
        x
    }
}

/// [`integral_f32`] of the f32 operands `xs` (each flushed first where `ftz`) into `out`: a
/// loop per direction, so that none branches on it.
#[inline(always)]
pub fn integral_f32s(xs: &[u32], rnd: Rounding, ftz: bool, out: &mut Vec<f32>) {
    #[inline(always)]
    fn each(xs: &[u32], ftz: bool, out: &mut Vec<f32>, round: impl Fn(f32) -> f32) {
        fill(
            out,
            xs.len(),
            xs.iter().map(|&a| {
                let x = f32::from_bits(a);
                round(if ftz { flush_f32(x) } else { x })
            }),
        );
    }
    match rnd {
        Rounding::Rn => each(xs, ftz, out, |x| integral_f32(x, Rounding::Rn)),
        Rounding::Rz => each(xs, ftz, out, |x| integral_f32(x, Rounding::Rz)),
        Rounding::Rm => each(xs, ftz, out, |x| integral_f32(x, Rounding::Rm)),
        Rounding::Rp => each(xs, ftz, out, |x| integral_f32(x, Rounding::Rp)),
    }
}

/// `out` set to the `len` items of `items`. A plain loop, inlined with the iterator into the
/// caller: the exhaustive tiers compile their references for the processor's widest level
/// (`SimdLevel::compiled_for`), and `Vec::extend` kept its loop in a separate function compiled
/// for the baseline (two fifths of batch_equivalence_cvt_int's time).
#[inline(always)]
pub fn fill<T: Copy + bytemuck::Zeroable>(out: &mut Vec<T>, len: usize, items: impl Iterator<Item = T>) {
    // Every slot is overwritten: the buffer is only sized, not cleared.
    out.resize(len, T::zeroed());
    let mut written = 0;
    for (slot, item) in out.iter_mut().zip(items) {
        *slot = item;
        written += 1;
    }
    assert_eq!(written, len, "one item per slot");
}

/// `x` with a subnormal flushed to a zero of its sign (`.ftz`).
#[inline(always)]
pub fn flush_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        0f32.copysign(x)
    } else {
        x
    }
}

/// The encoding `n` nearest to an exact value, on whose `side` of it `n` lies (`n` compared
/// with the value), rounded in direction `rnd` instead: `n`, or its neighbour one unit of the
/// encoding toward the exact value (from an infinity the largest finite value, from a zero the
/// smallest subnormal). `sign_bit` is the format's.
#[inline(always)]
pub fn directed(rnd: Rounding, n: u64, side: std::cmp::Ordering, sign_bit: u64) -> u64 {
    use std::cmp::Ordering::{Greater, Less};
    let negative = n & sign_bit != 0;
    let down = side == Greater && (rnd == Rounding::Rm || (rnd == Rounding::Rz && !negative));
    let up = side == Less && (rnd == Rounding::Rp || (rnd == Rounding::Rz && negative));
    // Toward larger values a positive magnitude grows and a negative one shrinks. Without
    // branches: `side` falls either way at random.
    let toward_larger = i64::from(up) - i64::from(down);
    n.wrapping_add_signed(if negative { -toward_larger } else { toward_larger })
}

// ---------------------------------------------------------------------------------------------
// PRNG

/// splitmix64: tiny, deterministic, good enough to drive generators.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    pub fn coin(&mut self) -> bool {
        self.next() >> 63 != 0
    }

    /// `k` random low bits (`k <= 64`).
    pub fn bits(&mut self, k: u32) -> u64 {
        if k == 0 {
            0
        } else {
            self.next() >> (64 - k)
        }
    }
}

/// A seed for chunk `index` of the test called `name` (FNV-1a of the name, mixed).
pub fn seed(name: &str, index: u64) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for byte in name.bytes() {
        h = (h ^ byte as u64).wrapping_mul(0x0000_0100_0000_01B3);
    }
    let mut r = Rng::new(h ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    r.next()
}

// ---------------------------------------------------------------------------------------------
// Bit layouts, written out independently of ptxfp's `Format` methods

/// The anatomy of one format: total width and precision p (implicit bit included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub fmt: Format,
    pub bits: u32,
    pub p: u32,
}

impl Layout {
    pub const fn of(fmt: Format) -> Layout {
        let (bits, p) = match fmt {
            Format::F16 => (16, 11),
            Format::BF16 => (16, 8),
            Format::F32 => (32, 24),
            Format::F64 => (64, 53),
        };
        Layout { fmt, bits, p }
    }

    pub const fn name(self) -> &'static str {
        match self.fmt {
            Format::F16 => "f16",
            Format::BF16 => "bf16",
            Format::F32 => "f32",
            Format::F64 => "f64",
        }
    }

    pub const fn fb(self) -> u32 {
        self.p - 1
    }

    pub const fn bias(self) -> i32 {
        (1 << (self.bits - self.p - 1)) - 1
    }

    /// Exponent of the smallest normal, 2^emin.
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    pub const fn emax(self) -> i32 {
        self.bias()
    }

    pub const fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits)
    }

    pub const fn sign_bit(self) -> u64 {
        1 << (self.bits - 1)
    }

    pub const fn frac_mask(self) -> u64 {
        (1 << self.fb()) - 1
    }

    pub const fn exp_mask(self) -> u64 {
        self.mask() & !self.sign_bit() & !self.frac_mask()
    }

    pub const fn quiet_bit(self) -> u64 {
        1 << (self.fb() - 1)
    }

    pub const fn inf(self) -> u64 {
        self.exp_mask()
    }

    pub const fn max_finite(self) -> u64 {
        self.exp_mask() - 1
    }

    pub const fn min_normal(self) -> u64 {
        1 << self.fb()
    }

    pub const fn one(self) -> u64 {
        (self.bias() as u64) << self.fb()
    }

    pub const fn abs(self, x: u64) -> u64 {
        x & self.mask() & !self.sign_bit()
    }

    pub const fn is_neg(self, x: u64) -> bool {
        x & self.sign_bit() != 0
    }

    pub const fn is_nan(self, x: u64) -> bool {
        self.abs(x) > self.exp_mask()
    }

    pub const fn is_inf(self, x: u64) -> bool {
        self.abs(x) == self.exp_mask()
    }

    pub const fn is_zero(self, x: u64) -> bool {
        self.abs(x) == 0
    }

    pub const fn is_finite_nonzero(self, x: u64) -> bool {
        self.abs(x) != 0 && self.abs(x) < self.exp_mask()
    }

    /// The only NaN f32/f16/bf16 arithmetic may write (docs/semantics.md §4); `None` for f64.
    pub const fn canonical_nan(self) -> Option<u64> {
        match self.fmt {
            Format::F16 | Format::BF16 => Some(0x7FFF),
            Format::F32 => Some(0x7FFF_FFFF),
            Format::F64 => None,
        }
    }

    /// `(neg, sig, exp)` with value `(-1)^neg · sig · 2^exp` for a finite nonzero pattern.
    pub fn decode(self, x: u64) -> Option<(bool, u128, i32)> {
        if !self.is_finite_nonzero(x) {
            return None;
        }
        let biased = ((x & self.exp_mask()) >> self.fb()) as i32;
        let frac = (x & self.frac_mask()) as u128;
        if biased == 0 {
            Some((self.is_neg(x), frac, self.emin() - self.fb() as i32))
        } else {
            let sig = frac | 1u128 << self.fb();
            Some((self.is_neg(x), sig, biased - self.bias() - self.fb() as i32))
        }
    }

    /// Weight of the leading bit of a finite nonzero pattern: the value lies in [2^e, 2^(e+1)).
    pub fn exponent(self, x: u64) -> Option<i32> {
        self.decode(x).map(|(_, sig, exp)| exp + 127 - sig.leading_zeros() as i32)
    }

    /// The pattern of `(-1)^neg · sig · 2^exp` if it is exactly representable (zero included).
    pub fn encode(self, neg: bool, mut sig: u128, mut exp: i32) -> Option<u64> {
        let sign = if neg { self.sign_bit() } else { 0 };
        if sig == 0 {
            return Some(sign);
        }
        let tz = sig.trailing_zeros();
        sig >>= tz;
        exp += tz as i32;
        let n = 128 - sig.leading_zeros();
        if n > self.p {
            return None;
        }
        let top = exp + n as i32 - 1;
        if top > self.emax() {
            return None;
        }
        if top >= self.emin() {
            let biased = (top + self.bias()) as u64;
            let frac = ((sig << (self.p - n)) as u64) & self.frac_mask();
            return Some(sign | biased << self.fb() | frac);
        }
        let quantum = self.emin() - self.fb() as i32;
        if exp < quantum {
            return None;
        }
        Some(sign | (sig << (exp - quantum)) as u64)
    }

    /// A finite value with a random significand and leading-bit weight 2^e: the largest finite
    /// value above the range; below emin the value is put on the subnormal grid (truncated,
    /// and at least the smallest subnormal).
    pub fn at_exp(self, neg: bool, e: i32, rng: &mut Rng) -> u64 {
        let sign = if neg { self.sign_bit() } else { 0 };
        if e > self.emax() {
            return sign | self.max_finite();
        }
        let frac = rng.next() & self.frac_mask();
        if e >= self.emin() {
            return sign | ((e + self.bias()) as u64) << self.fb() | frac;
        }
        let shift = (self.emin() - e) as u32;
        let sig = 1u64 << self.fb() | frac;
        let m = if shift >= 64 { 0 } else { sig >> shift };
        sign | m.max(1)
    }

    /// `x` moved by `k` units in the last place in magnitude, keeping its sign; clamped to
    /// [0, Inf].
    pub fn nudge(self, x: u64, k: i64) -> u64 {
        let mag = (self.abs(x) as i64).saturating_add(k).clamp(0, self.inf() as i64) as u64;
        (x & self.sign_bit()) | mag
    }

    pub fn with_sign(self, x: u64, neg: bool) -> u64 {
        if neg {
            x | self.sign_bit()
        } else {
            x & !self.sign_bit()
        }
    }

    /// Hex digits of a pattern, zero-padded to the format width.
    pub fn hex(self, x: u64) -> String {
        format!("{:#0w$x}", x, w = (self.bits / 4 + 2) as usize)
    }
}

// ---------------------------------------------------------------------------------------------
// Edge-biased generators

/// A NaN: quiet or signalling, either sign, payload random, minimal or full.
pub fn nan(rng: &mut Rng, l: Layout) -> u64 {
    let sign = if rng.coin() { l.sign_bit() } else { 0 };
    let payload_mask = l.quiet_bit() - 1;
    let payload = match rng.below(3) {
        0 => rng.next() & payload_mask,
        1 => 1,
        _ => payload_mask,
    };
    if rng.coin() {
        sign | l.exp_mask() | l.quiet_bit() | payload
    } else {
        // Signalling: quiet bit clear, payload nonzero.
        sign | l.exp_mask() | payload.max(1)
    }
}

/// One edge-biased operand. Categories (percent): uniform bits 14, subnormal 10, near the
/// smallest normal 8, near overflow 8, signed zero 4, ±Inf 4, NaN 6, powers of two 10,
/// values near one 12, short significands 12, structured fractions 12.
pub fn operand(rng: &mut Rng, l: Layout) -> u64 {
    let neg = rng.coin();
    let sign = if neg { l.sign_bit() } else { 0 };
    match rng.below(100) {
        0..=13 => rng.next() & l.mask(),
        14..=23 => {
            let frac = match rng.below(4) {
                0 => rng.range(1, 16) as u64,
                1 => l.frac_mask() - rng.below(16),
                2 => 1 << rng.below(l.fb() as u64),
                _ => (rng.next() & l.frac_mask()).max(1),
            };
            sign | frac
        }
        24..=31 => l.nudge(sign | l.min_normal(), rng.range(-16, 16)),
        32..=39 => sign | (l.max_finite() - rng.below(16)),
        40..=43 => sign,
        44..=47 => sign | l.inf(),
        48..=53 => nan(rng, l),
        54..=63 => {
            // 2^e over the whole range, subnormal powers included, sometimes ±1 ulp.
            let e = rng.range((l.emin() - l.fb() as i32) as i64, l.emax() as i64) as i32;
            let x = l.encode(neg, 1, e).unwrap();
            match rng.below(4) {
                0 => l.nudge(x, 1),
                1 => l.nudge(x, -1),
                _ => x,
            }
        }
        64..=75 => l.at_exp(neg, rng.range(-4, 4) as i32, rng),
        76..=87 => {
            // Few significant bits: 1 to 4 leading fraction bits, sometimes the last bit too.
            let e = random_exp(rng, l);
            let kept = rng.range(0, 4) as u32;
            let mut x = l.at_exp(neg, e, rng);
            if l.exponent(x) == Some(e) && e >= l.emin() {
                x &= !(l.frac_mask() >> kept.min(l.fb()));
                if rng.below(4) == 0 {
                    x |= 1;
                }
            }
            x
        }
        _ => {
            let e = random_exp(rng, l);
            let x = l.at_exp(neg, e, rng) & !l.frac_mask();
            let frac = match rng.below(5) {
                0 => l.frac_mask(),
                1 => 1,
                2 => 0x5555_5555_5555_5555 & l.frac_mask(),
                3 => (rng.next() & l.frac_mask()) | l.frac_mask() >> (l.fb() / 2),
                _ => rng.next() & l.frac_mask() & !(l.frac_mask() >> (l.fb() / 2)),
            };
            if x & l.exp_mask() == 0 {
                // at_exp went subnormal: keep it as it is.
                l.at_exp(neg, e, rng)
            } else {
                x | frac
            }
        }
    }
}

/// A leading-bit exponent over the whole finite range, subnormal exponents included.
pub fn random_exp(rng: &mut Rng, l: Layout) -> i32 {
    rng.range((l.emin() - l.fb() as i32) as i64, l.emax() as i64) as i32
}

/// An operand that is finite and nonzero.
pub fn finite(rng: &mut Rng, l: Layout) -> u64 {
    loop {
        let x = operand(rng, l);
        if l.is_finite_nonzero(x) {
            return x;
        }
    }
}

/// Which binary operation a pair is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Add,
    Sub,
    Mul,
    Div,
}

/// Two operands for `kind`. Mix (percent): independent operands 40, nearby exponents 15,
/// ties / exact results 15, cancellation / results near one 15, results near the edges of
/// the range (overflow, smallest normal, subnormal) 15.
pub fn pair(rng: &mut Rng, l: Layout, kind: Kind) -> (u64, u64) {
    let (a, b) = match rng.below(100) {
        0..=39 => (operand(rng, l), operand(rng, l)),
        40..=54 => {
            let a = finite(rng, l);
            let e = l.exponent(a).unwrap() + rng.range(-(l.p as i64 + 4), l.p as i64 + 4) as i32;
            let b = l.at_exp(rng.coin(), e, rng);
            (a, b)
        }
        55..=69 => match kind {
            Kind::Add | Kind::Sub => add_tie(rng, l),
            Kind::Mul => mul_tie(rng, l),
            Kind::Div => div_exact(rng, l),
        },
        70..=84 => match kind {
            Kind::Add | Kind::Sub => add_cancel(rng, l),
            Kind::Mul => mul_near_one(rng, l),
            Kind::Div => {
                let b = finite(rng, l);
                (l.nudge(b, rng.range(-4, 4)), b)
            }
        },
        _ => range_edges(rng, l, kind),
    };
    if kind == Kind::Sub && !l.is_nan(b) {
        // The add-shaped generators are turned into the same problem for `a − b`.
        (a, b ^ l.sign_bit())
    } else {
        (a, b)
    }
}

/// `a` and `b` whose exact sum is (or is next to) a midpoint of a's grid: b is half an ulp of
/// a, or half an ulp with a few more low bits, or 1.5 / odd multiples of it, either sign.
fn add_tie(rng: &mut Rng, l: Layout) -> (u64, u64) {
    let a = finite(rng, l);
    let (_, sig, exp) = l.decode(a).unwrap();
    // Weight of a's last place: normalise so that the significand has p bits (the grid of a).
    let ulp = exp + (127 - sig.leading_zeros() as i32) - l.fb() as i32;
    let ulp = ulp.max(l.emin() - l.fb() as i32);
    let j = rng.range(1, l.fb() as i64) as u32;
    let (bsig, bexp) = match rng.below(5) {
        0 => (1u128, ulp - 1),
        1 => ((1u128 << j) + 1, ulp - 1 - j as i32),
        2 => ((1u128 << j) - 1, ulp - 1 - j as i32),
        3 => (3, ulp - 1),
        _ => (rng.range(1, 63) as u128 | 1, ulp - 1),
    };
    match l.encode(rng.coin(), bsig, bexp) {
        Some(b) if rng.coin() => (a, b),
        Some(b) => (b, a),
        None => (a, operand(rng, l)),
    }
}

/// `b ≈ −a`: equal magnitude, a few ulps apart, or with the low bits replaced.
fn add_cancel(rng: &mut Rng, l: Layout) -> (u64, u64) {
    let a = finite(rng, l);
    let b = match rng.below(3) {
        0 => l.nudge(a, rng.range(-3, 3)),
        1 => {
            let k = rng.range(1, l.fb() as i64) as u32;
            let low = (1u64 << k) - 1;
            (a & !low) | (rng.next() & low)
        }
        _ => {
            // Neighbouring binade: a − a·(1 − 2^-k) style cancellation.
            let e = l.exponent(a).unwrap() - rng.range(0, 1) as i32;
            l.at_exp(false, e, rng)
        }
    };
    (a, l.with_sign(b, !l.is_neg(a)))
}

/// Products on or near a midpoint: one factor with a short significand (3, 5, 2^j ± 1, …)
/// times a random one, with the exponents placed so the product is mostly normal.
fn mul_tie(rng: &mut Rng, l: Layout) -> (u64, u64) {
    let j = rng.range(1, l.fb() as i64) as u32;
    let short: u128 = match rng.below(5) {
        0 => 3,
        1 => 5 + 2 * rng.below(6) as u128,
        2 => (1 << j) + 1,
        3 => (1 << j) - 1,
        _ => (1 << l.fb()) + 1,
    };
    let ea = rng.range(-8, 8) as i32;
    let bits = 128 - short.leading_zeros() as i32;
    let a = l.encode(rng.coin(), short, ea - bits + 1);
    let eb = (random_exp(rng, l) - ea).clamp(l.emin() - l.fb() as i32, l.emax());
    let mut b = l.at_exp(rng.coin(), eb, rng);
    if short == 3 && rng.coin() {
        b |= 1; // 3 · odd with p + 1 product bits is always a tie
    }
    match a {
        Some(a) if rng.coin() => (a, b),
        Some(a) => (b, a),
        None => (operand(rng, l), b),
    }
}

/// Products close to a power of two: b = RN(1/a) ± a few ulps (or b ≈ a for squares).
fn mul_near_one(rng: &mut Rng, l: Layout) -> (u64, u64) {
    let a = finite(rng, l);
    let r = ap_div(l.fmt, l.one(), a, Rounding::Rn);
    let b = if l.is_finite_nonzero(r) && rng.below(4) != 0 {
        l.nudge(r, rng.range(-3, 3))
    } else {
        l.nudge(a, rng.range(-3, 3))
    };
    let b = l.at_scale(b, rng.range(-3, 3) as i32);
    (a, b)
}

/// Quotients that are exact or nearly so: a = RN(b · q) for a short q (± an ulp), or a small
/// value over a power of two (ties on the subnormal grid).
fn div_exact(rng: &mut Rng, l: Layout) -> (u64, u64) {
    if rng.below(3) == 0 {
        let a = l.nudge(l.min_normal(), rng.range(-(1 << l.fb().min(20)), 4));
        let a = l.with_sign(a, rng.coin());
        let b = l.encode(rng.coin(), 1, rng.range(1, l.p as i64 + 2) as i32).unwrap();
        return (a, b);
    }
    let (q, _) = mul_tie(rng, l);
    let b = finite(rng, l);
    let a = ap_mul(l.fmt, b, q, Rounding::Rn);
    (l.nudge(a, rng.range(-1, 1)), b)
}

/// Operands whose exact result lands near the overflow threshold, the smallest normal, or
/// deep in the subnormal range.
fn range_edges(rng: &mut Rng, l: Layout, kind: Kind) -> (u64, u64) {
    let target = match rng.below(3) {
        0 => l.emax() + rng.range(-1, 1) as i32,
        1 => l.emin() + rng.range(-2, 1) as i32,
        _ => l.emin() - rng.range(1, l.p as i64 + 1) as i32,
    };
    match kind {
        Kind::Add | Kind::Sub => {
            let a = l.at_exp(rng.coin(), target, rng);
            let b = l.at_exp(rng.coin(), target - rng.range(0, 3) as i32, rng);
            (a, b)
        }
        Kind::Mul => {
            let ea = rng.range(
                (target - l.emax()).max(l.emin() - l.fb() as i32) as i64,
                l.emax().min(target - l.emin() + l.fb() as i32) as i64,
            ) as i32;
            let a = l.at_exp(rng.coin(), ea, rng);
            let b = l.at_exp(rng.coin(), target - ea, rng);
            (a, b)
        }
        Kind::Div => {
            let eb = rng.range((l.emin() - l.fb() as i32) as i64, l.emax() as i64) as i32;
            let ea = (target + eb).clamp(l.emin() - l.fb() as i32, l.emax());
            (l.at_exp(rng.coin(), ea, rng), l.at_exp(rng.coin(), eb, rng))
        }
    }
}

impl Layout {
    /// `x` times 2^k when that stays finite and nonzero; `x` unchanged otherwise.
    pub fn at_scale(self, x: u64, k: i32) -> u64 {
        match self.decode(x) {
            Some((neg, sig, exp)) => self.encode(neg, sig, exp + k).unwrap_or(x),
            None => x,
        }
    }
}

/// Three operands for `fma(a, b, c)`. `a · b` comes from the multiplication pairs; c is
/// (percent) an independent operand 30, −RN(a·b) ± a few ulps 20, the addend that puts the
/// exact sum on a midpoint (or next to it, or on a representable value) 20, a random value at
/// an exponent near the product's 15, a signed zero 5, a copy of a or b or a special 10.
pub fn triple(rng: &mut Rng, l: Layout) -> (u64, u64, u64) {
    let (a, b) = pair(rng, l, Kind::Mul);
    let c = match rng.below(100) {
        0..=29 => operand(rng, l),
        30..=49 => {
            let p = ap_mul(l.fmt, a, b, Rounding::Rn);
            if l.is_finite_nonzero(p) {
                l.nudge(p, rng.range(-3, 3)) ^ l.sign_bit()
            } else {
                operand(rng, l)
            }
        }
        50..=69 => fma_tie_addend(rng, l, a, b).unwrap_or_else(|| operand(rng, l)),
        70..=84 => match (l.decode(a), l.decode(b)) {
            (Some((_, sa, ea)), Some((_, sb, eb))) => {
                let top = ea + eb + 127 - (sa * sb).leading_zeros() as i32;
                let d = rng.range(-(2 * l.p as i64 + 3), 2 * l.p as i64 + 3) as i32;
                l.at_exp(rng.coin(), top + d, rng)
            }
            _ => operand(rng, l),
        },
        85..=89 => l.with_sign(0, rng.coin()),
        _ => match rng.below(4) {
            0 => a,
            1 => b,
            2 => l.with_sign(l.inf(), rng.coin()),
            _ => nan(rng, l),
        },
    };
    (a, b, c)
}

/// The addend that makes the exact `a·b + c` a midpoint between two neighbours at precision p
/// (variants: exact result, midpoint ± one unit of the product's last place).
fn fma_tie_addend(rng: &mut Rng, l: Layout, a: u64, b: u64) -> Option<u64> {
    let (na, sa, ea) = l.decode(a)?;
    let (nb, sb, eb) = l.decode(b)?;
    let prod = sa * sb;
    let n = 128 - prod.leading_zeros();
    if n <= l.p {
        return None;
    }
    let k = n - l.p;
    let low = (prod & ((1u128 << k) - 1)) as i128;
    let half = 1i128 << (k - 1);
    let c_int = match rng.below(4) {
        0 | 1 => half - low,
        2 => -low,
        _ => half - low + if rng.coin() { 1 } else { -1 },
    };
    let neg = (na != nb) != (c_int < 0);
    l.encode(neg, c_int.unsigned_abs(), ea + eb)
}

/// A square-root operand: edge-biased operands (40), exact squares of short values ± a few
/// ulps (25), values next to the square of a midpoint (15, the hard cases), subnormals (10),
/// random positive finite values (10).
pub fn sqrt_operand(rng: &mut Rng, l: Layout) -> u64 {
    match rng.below(100) {
        0..=39 => operand(rng, l),
        40..=64 => {
            let half = l.p / 2;
            let r = (1u128 << (half - 1)) | rng.bits(half - 1) as u128;
            let e = rng.range((l.emin() - l.fb() as i32) as i64 / 2, l.emax() as i64 / 2) as i32;
            match l.encode(false, r * r, 2 * (e - half as i32 + 1)) {
                Some(x) if x != 0 => l.nudge(x, rng.range(-2, 2)),
                _ => finite(rng, l) & !l.sign_bit(),
            }
        }
        65..=79 => {
            // m = a midpoint between neighbours at precision p; x ≈ m² (rounded to the format).
            let r = (1u128 << l.fb()) | rng.bits(l.fb()) as u128;
            let m = 2 * r + 1;
            let e = rng.range((l.emin() - l.fb() as i32) as i64 / 2, l.emax() as i64 / 2) as i32;
            let scale = 2 * (e - l.p as i32);
            let sq = Quad::from_u128(m * m).value.scalbn(scale);
            let mut lost = false;
            let x = quad_to(l.fmt, sq, Round::NearestTiesToEven, &mut lost);
            l.nudge(x, rng.range(-2, 2))
        }
        80..=89 => (rng.next() & l.frac_mask()).max(1),
        _ => l.at_exp(false, random_exp(rng, l), rng),
    }
}

/// A reciprocal operand: edge-biased operands (40), powers of two ± a few ulps (20), values
/// whose reciprocal is subnormal or near the smallest normal (20), subnormal values whose
/// reciprocal is near overflow (10), short significands (10).
pub fn rcp_operand(rng: &mut Rng, l: Layout) -> u64 {
    let neg = rng.coin();
    match rng.below(100) {
        0..=39 => operand(rng, l),
        40..=59 => {
            let e = random_exp(rng, l);
            l.nudge(l.encode(neg, 1, e).unwrap(), rng.range(-3, 3))
        }
        // 1/x is subnormal only for x in the top binades (1/x < 2^emin ⇔ x > 2^-emin).
        60..=79 => l.at_exp(neg, rng.range(-l.emin() as i64 - 3, l.emax() as i64) as i32, rng),
        80..=89 => l.at_exp(neg, -l.emax() - rng.range(-2, l.p as i64 + 1) as i32, rng),
        _ => mul_tie(rng, l).0,
    }
}

/// A conversion operand in `from` aimed at the rounding boundaries of `to`: edge-biased
/// operands (40), a value of `to` or the midpoint after it, ± a few ulps of `from` (35),
/// values around the smallest normal, the subnormal range and the overflow threshold of `to`
/// (25).
pub fn cvt_operand(rng: &mut Rng, from: Layout, to: Layout) -> u64 {
    match rng.below(100) {
        0..=39 => operand(rng, from),
        40..=74 => {
            let d = finite(rng, to);
            let (neg, sig, exp) = to.decode(d).unwrap();
            let x = if rng.below(3) != 0 { from.encode(neg, 2 * sig + 1, exp - 1) } else { from.encode(neg, sig, exp) };
            match x {
                Some(x) if x != 0 => from.nudge(x, rng.range(-3, 3)),
                _ => operand(rng, from),
            }
        }
        _ => {
            let e = match rng.below(4) {
                0 => to.emax() + rng.range(-1, 1) as i32,
                1 => to.emin() + rng.range(-2, 1) as i32,
                2 => to.emin() - rng.range(1, to.p as i64 + 2) as i32,
                _ => {
                    // The overflow threshold of `to`: max_finite + half an ulp, ± a few ulps.
                    let t = from.encode(false, (1u128 << (to.p + 1)) - 1, to.emax() - to.p as i32);
                    if let Some(t) = t {
                        return from.with_sign(from.nudge(t, rng.range(-3, 3)), rng.coin());
                    }
                    to.emax()
                }
            };
            from.at_exp(rng.coin(), e.clamp(from.emin() - from.fb() as i32, from.emax() + 1), rng)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The reference: rustc_apfloat (LLVM APFloat), IEEE 754 in every rounding mode

pub fn ap_round(r: Rounding) -> Round {
    match r {
        Rounding::Rn => Round::NearestTiesToEven,
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
    }
}

macro_rules! with_ap {
    ($fmt:expr, $T:ident => $body:expr) => {
        match $fmt {
            Format::F16 => {
                type $T = Half;
                $body
            }
            Format::BF16 => {
                type $T = BFloat;
                $body
            }
            Format::F32 => {
                type $T = Single;
                $body
            }
            Format::F64 => {
                type $T = Double;
                $body
            }
        }
    };
}

pub fn ap_add(fmt: Format, a: u64, b: u64, r: Rounding) -> u64 {
    with_ap!(fmt, T => T::from_bits(a as u128).add_r(T::from_bits(b as u128), ap_round(r)).value.to_bits() as u64)
}

pub fn ap_sub(fmt: Format, a: u64, b: u64, r: Rounding) -> u64 {
    with_ap!(fmt, T => T::from_bits(a as u128).sub_r(T::from_bits(b as u128), ap_round(r)).value.to_bits() as u64)
}

pub fn ap_mul(fmt: Format, a: u64, b: u64, r: Rounding) -> u64 {
    with_ap!(fmt, T => T::from_bits(a as u128).mul_r(T::from_bits(b as u128), ap_round(r)).value.to_bits() as u64)
}

pub fn ap_div(fmt: Format, a: u64, b: u64, r: Rounding) -> u64 {
    with_ap!(fmt, T => T::from_bits(a as u128).div_r(T::from_bits(b as u128), ap_round(r)).value.to_bits() as u64)
}

pub fn ap_fma(fmt: Format, a: u64, b: u64, c: u64, r: Rounding) -> u64 {
    with_ap!(fmt, T => T::from_bits(a as u128)
        .mul_add_r(T::from_bits(b as u128), T::from_bits(c as u128), ap_round(r))
        .value
        .to_bits() as u64)
}

pub fn ap_round_to_integral(fmt: Format, a: u64, r: Rounding) -> u64 {
    with_ap!(fmt, T => T::from_bits(a as u128).round_to_integral(ap_round(r)).value.to_bits() as u64)
}

/// `a` rounded to an integer of `to` in direction `r`, saturated (APFloat's convertToInteger);
/// `None` for NaN, whose result APFloat does not define as NVIDIA does.
pub fn ap_to_int(fmt: Format, a: u64, to: IntType, r: Rounding) -> Option<u64> {
    let bits = to.bits() as usize;
    with_ap!(fmt, T => {
        let x = T::from_bits(a as u128);
        if x.is_nan() {
            return None;
        }
        let v = if to.is_signed() {
            x.to_i128_r(bits, ap_round(r), &mut true).value as u128
        } else {
            x.to_u128_r(bits, ap_round(r), &mut true).value
        };
        Some(v as u64 & to.mask())
    })
}

/// The integer word `a` of `from` rounded to `to` in direction `r`.
pub fn ap_from_int(from: IntType, to: Format, a: u64, r: Rounding) -> u64 {
    let v = from.value(a);
    with_ap!(to, T => T::from_i128_r(v, ap_round(r)).value.to_bits() as u64)
}

/// A pattern of `fmt` widened exactly to binary128.
pub fn to_quad(fmt: Format, x: u64) -> Quad {
    let mut lost = false;
    let q: Quad = with_ap!(fmt, T => T::from_bits(x as u128).convert(&mut lost).value);
    assert!(!lost, "widening to binary128 is exact");
    q
}

/// A binary128 value rounded to `fmt`.
pub fn quad_to(fmt: Format, q: Quad, r: Round, lost: &mut bool) -> u64 {
    with_ap!(fmt, T => { let v: T = q.convert_r(r, lost).value; v.to_bits() as u64 })
}

pub fn ap_cvt(from: Format, to: Format, a: u64, r: Rounding) -> u64 {
    let mut lost = false;
    with_ap!(from, S => with_ap!(to, D => {
        let v: D = S::from_bits(a as u128).convert_r(ap_round(r), &mut lost).value;
        v.to_bits() as u64
    }))
}

/// Exact square in binary128 (exact for every format here: 2·(53 + 2) ≤ 113).
fn quad_square(q: Quad) -> Quad {
    let s = q.mul_r(q, Round::NearestTiesToEven);
    assert!(!s.status.intersects(Status::INEXACT), "binary128 square must be exact");
    s.value
}

/// Whether `r` is the IEEE square root of `x` rounded in direction `rnd` (NaN by class).
///
/// A positive finite x must give a positive finite r bracketed with exact binary128 squares:
/// RZ/RM r² ≤ x < succ(r)²; RP pred(r)² < x ≤ r²; RN lo² < x < hi² with lo, hi the midpoints
/// next to r (a root is never a midpoint: a (p+1)-bit odd significand squared has more than p
/// bits, and roots of these formats are never subnormal). Special cases by IEEE 754 §9.2:
/// ±0 → ±0, +Inf → +Inf, NaN and any negative nonzero value → NaN.
pub fn sqrt_is_correct(l: Layout, x: u64, r: u64, rnd: Rounding) -> bool {
    if l.is_nan(x) || (l.is_neg(x) && !l.is_zero(x)) {
        return l.is_nan(r);
    }
    if l.is_zero(x) || l.is_inf(x) {
        return r == x;
    }
    if !l.is_finite_nonzero(r) || l.is_neg(r) {
        return false;
    }
    let xq = to_quad(l.fmt, x);
    let rq = to_quad(l.fmt, r);
    let succ = r + 1;
    let pred = r - 1;
    // succ(r) is finite (a root is far below the largest finite value); pred(r) may be +0.
    assert!(l.is_finite_nonzero(succ));
    let (sq, pq) = (to_quad(l.fmt, succ), to_quad(l.fmt, pred));
    use std::cmp::Ordering::*;
    let cmp = |a: Quad, b: Quad| a.partial_cmp(&b).unwrap();
    match rnd {
        Rounding::Rz | Rounding::Rm => cmp(quad_square(rq), xq) != Greater && cmp(xq, quad_square(sq)) == Less,
        Rounding::Rp => cmp(quad_square(pq), xq) == Less && cmp(xq, quad_square(rq)) != Greater,
        Rounding::Rn => {
            let mid = |u: Quad, v: Quad| {
                let s = u.add_r(v, Round::NearestTiesToEven);
                assert!(!s.status.intersects(Status::INEXACT));
                s.value.scalbn(-1)
            };
            let (lo, hi) = (mid(pq, rq), mid(rq, sq));
            cmp(quad_square(lo), xq) == Less && cmp(xq, quad_square(hi)) == Less
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Comparison and the parallel runner

/// ptxfp's result against the reference: NaN by class, everything else bit for bit; and any
/// f32/f16/bf16 NaN ptxfp writes must be the canonical one (docs/semantics.md §4).
pub fn agrees(l: Layout, got: u64, want: u64) -> bool {
    if l.is_nan(got) {
        if let Some(c) = l.canonical_nan() {
            if got != c {
                return false;
            }
        }
    }
    if l.is_nan(want) {
        l.is_nan(got)
    } else {
        got == want
    }
}

/// A mismatch report: instruction, operands, ptxfp's result and the reference's, in hex.
pub fn report(instr: &str, l: Layout, operands: &[u64], got: u64, want: u64) -> String {
    let ops: Vec<String> = operands.iter().map(|&x| l.hex(x)).collect();
    format!("{instr} [{}]: ptxfp {} oracle {}", ops.join(", "), l.hex(got), l.hex(want))
}

/// Run `n` cases of the test `name` over both cores (deterministic chunks of 2^14 seeded by
/// name and index). `case` returns a mismatch report or `None`. Prints the count; panics with
/// up to 10 reports if any case failed.
pub fn run<F>(name: &str, n: u64, case: F) -> u64
where
    F: Fn(&mut Rng) -> Option<String> + Sync,
{
    const CHUNK: u64 = 1 << 14;
    let start = std::time::Instant::now();
    let chunks = n.div_ceil(CHUNK);
    let (failed, mut examples) = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut rng = Rng::new(seed(name, c));
            let count = CHUNK.min(n - c * CHUNK);
            let mut failed = 0u64;
            let mut examples = Vec::new();
            for _ in 0..count {
                if let Some(msg) = case(&mut rng) {
                    failed += 1;
                    if examples.len() < 10 {
                        examples.push(msg);
                    }
                }
            }
            (failed, examples)
        })
        .reduce(
            || (0, Vec::new()),
            |(f1, mut e1), (f2, e2)| {
                e1.extend(e2);
                (f1 + f2, e1)
            },
        );
    examples.truncate(10);
    eprintln!("{name}: {n} cases checked, {failed} mismatches, {:.2?}", start.elapsed());
    assert!(failed == 0, "{name}: {failed} of {n} cases disagree with the oracle:\n{}", examples.join("\n"));
    n
}
