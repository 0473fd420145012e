//! An exact reference for the tensor cores' dot product on big integers, written from the
//! published description of the datapath (MMA-Sim, Xie et al., arXiv 2511.10909, §4 "fused dot
//! product with truncated alignment", and its group-scaled form; ../shared/TENSORCORE.md, "The
//! datapath"), not from ptxfp's code: its own decoding of every element format from the formats'
//! definitions (IEEE 754 binary16/32, bfloat16, OCP MX v1.0 for FP8/FP6/FP4 and E8M0, NVIDIA's
//! UE4M3), its own rounding and encoding. Every value is a dyadic rational `m · 2^e` held
//! exactly; nothing is rounded before the one rounding that ends a block.
//!
//! It also evaluates datapaths no published model proposes (round-to-nearest of the exact sum,
//! other block lengths), which the hardware tests try against the sets no model fits.

use num_bigint::{BigInt, BigUint, Sign};

/// An element format, by its definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F32,
    /// An f32 register read with its low 13 bits cut.
    Tf32,
    F16,
    Bf16,
    E4m3,
    E5m2,
    E3m2,
    E2m3,
    E2m1,
    Ue8m0,
    /// E4M3 without its sign bit (bit 7 ignored).
    Ue4m3,
}

/// What a code of a format stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Nan,
    Inf(bool),
    /// `(−1)^neg · mag · 2^exp`, with `Exp(x) = max(⌊log2 |x|⌋, emin)`; `mag == 0` for a zero.
    Num {
        neg: bool,
        mag: u64,
        exp: i64,
        align: i64,
    },
}

impl Fmt {
    /// (exponent bits, fraction bits, signed, its specials).
    fn layout(self) -> (u32, u32, bool, Specials) {
        use Specials::*;
        match self {
            Fmt::F32 | Fmt::Tf32 => (8, 23, true, Ieee),
            Fmt::F16 => (5, 10, true, Ieee),
            Fmt::Bf16 => (8, 7, true, Ieee),
            Fmt::E4m3 => (4, 3, true, AllOnesNan),
            Fmt::E5m2 => (5, 2, true, Ieee),
            Fmt::E3m2 => (3, 2, true, Nothing),
            Fmt::E2m3 => (2, 3, true, Nothing),
            Fmt::E2m1 => (2, 1, true, Nothing),
            Fmt::Ue8m0 => (8, 0, false, AllOnesNan),
            Fmt::Ue4m3 => (4, 3, false, AllOnesNan),
        }
    }

    /// (exponent bits, fraction bits, whether a sign bit leads).
    pub fn fields(self) -> (u32, u32, bool) {
        let (e, m, signed, _) = self.layout();
        (e, m, signed)
    }

    /// Whether the format has infinities, and whether it has NaNs.
    pub fn specials(self) -> (bool, bool) {
        match self.layout().3 {
            Specials::Ieee => (true, true),
            Specials::AllOnesNan => (false, true),
            Specials::Nothing => (false, false),
        }
    }

    /// The value of `code` (bits above the format's width ignored).
    pub fn value(self, code: u32) -> Val {
        let (ebits, mbits, signed, specials) = self.layout();
        let code = if self == Fmt::Tf32 { code & !0x1FFF } else { code };
        let width = ebits + mbits + signed as u32;
        let code = if width == 32 { code } else { code & ((1 << width) - 1) };
        let neg = signed && code >> (width - 1) != 0;
        let body = code & ((1 << (ebits + mbits)) - 1);
        let e = body >> mbits;
        let frac = (body & ((1 << mbits) - 1)) as u64;
        let top = (1 << ebits) - 1;
        match specials {
            Specials::Ieee if e == top => return if frac == 0 { Val::Inf(neg) } else { Val::Nan },
            Specials::AllOnesNan if body == (1 << (ebits + mbits)) - 1 => return Val::Nan,
            _ => {}
        }
        let bias = (1i64 << (ebits - 1)) - 1;
        let emin = 1 - bias;
        if mbits == 0 {
            // E8M0: 2^(e − 127), no zero, no subnormals.
            return Val::Num { neg, mag: 1, exp: e as i64 - bias, align: e as i64 - bias };
        }
        if e == 0 {
            let align = emin;
            Val::Num { neg, mag: frac, exp: emin - mbits as i64, align }
        } else {
            let exp = e as i64 - bias;
            Val::Num { neg, mag: frac | 1 << mbits, exp: exp - mbits as i64, align: exp }
        }
    }
}

#[derive(Clone, Copy)]
enum Specials {
    /// All-ones exponent: Inf (zero fraction) or NaN.
    Ieee,
    /// Only the all-ones code (without the sign) is NaN; no Inf.
    AllOnesNan,
    Nothing,
}

/// The rounding that ends a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Toward zero onto f32; a finite overflow gives ±Inf.
    RzF32,
    /// Toward zero onto a 14-bit significand in the f32 range, written as f32.
    RzE8m13,
    /// To nearest even onto f16.
    RneF16,
    /// To nearest even onto f32 (no published model: a candidate for the sets none fits).
    RneF32,
}

impl Round {
    /// The accumulator's format: a chained block's `c` and the result.
    pub fn output(self) -> Fmt {
        match self {
            Round::RneF16 => Fmt::F16,
            _ => Fmt::F32,
        }
    }
}

/// One datapath: L, F (`None`: no truncation, the exact sum), ρ, the zero-term exponent and, for
/// the group-scaled form, the group length (0 otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub block: usize,
    pub frac: Option<i64>,
    pub round: Round,
    pub e_zero: i64,
    pub group: usize,
}

/// Block scales: element k's scale is `a[k / block]` (and `b[k / block]`).
#[derive(Clone, Copy, Debug)]
pub struct Scales<'a> {
    pub fmt: Fmt,
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub block: usize,
}

/// An exact term with its alignment exponent.
struct Term {
    value: BigInt,
    exp: i64,
    align: i64,
}

#[derive(Default)]
struct Seen {
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
}

impl Seen {
    fn inf(&mut self, neg: bool) {
        if neg {
            self.neg_inf = true
        } else {
            self.pos_inf = true
        }
    }
}

fn signed(neg: bool, mag: BigUint) -> BigInt {
    BigInt::from_biguint(if neg { Sign::Minus } else { Sign::Plus }, mag)
}

/// `c + Σ a[k]·b[k]`, in blocks of `p.block` chained in k order.
pub fn dot(p: Params, fa: Fmt, a: &[u32], fb: Fmt, b: &[u32], c: u32, scales: Option<Scales<'_>>) -> u32 {
    assert_eq!(a.len(), b.len());
    let mut acc = c;
    let mut k = 0;
    while k < a.len() {
        let end = (k + p.block).min(a.len());
        acc = block(p, fa, fb, (a, b), k..end, acc, scales);
        k = end;
    }
    acc
}

/// The scale product of element k: (value, alignment), or `None` for a NaN scale.
fn scale_of(s: Option<Scales<'_>>, k: usize) -> Option<(BigInt, i64, i64)> {
    let Some(s) = s else { return Some((BigInt::from(1), 0, 0)) };
    let (Val::Num { mag: ma, exp: ea, align: aa, .. }, Val::Num { mag: mb, exp: eb, align: ab, .. }) =
        (s.fmt.value(s.a[k / s.block]), s.fmt.value(s.b[k / s.block]))
    else {
        return None;
    };
    Some((BigInt::from(ma) * BigInt::from(mb), ea + eb, aa + ab))
}

fn block(
    p: Params,
    fa: Fmt,
    fb: Fmt,
    (a, b): (&[u32], &[u32]),
    ks: std::ops::Range<usize>,
    c: u32,
    scales: Option<Scales<'_>>,
) -> u32 {
    let mut seen = Seen::default();
    let mut terms: Vec<Term> = Vec::new();
    let zero = |p: Params| Term { value: BigInt::from(0), exp: 0, align: p.e_zero };
    // The products, exact, each as (value, exponent, alignment); None for a zero product.
    let product = |k: usize, seen: &mut Seen| -> Option<(BigInt, i64, i64)> {
        match (fa.value(a[k]), fb.value(b[k])) {
            (Val::Nan, _) | (_, Val::Nan) => seen.nan = true,
            (Val::Inf(_), Val::Num { mag: 0, .. }) | (Val::Num { mag: 0, .. }, Val::Inf(_)) => seen.nan = true,
            (Val::Inf(x), Val::Inf(y))
            | (Val::Inf(x), Val::Num { neg: y, .. })
            | (Val::Num { neg: y, .. }, Val::Inf(x)) => seen.inf(x ^ y),
            (Val::Num { neg: na, mag: ma, exp: ea, align: aa }, Val::Num { neg: nb, mag: mb, exp: eb, align: ab }) => {
                if ma != 0 && mb != 0 {
                    return Some((signed(na ^ nb, BigUint::from(ma) * BigUint::from(mb)), ea + eb, aa + ab));
                }
            }
        }
        None
    };
    if p.group == 0 {
        for k in ks {
            let Some((s, se, sa)) = scale_of(scales, k) else {
                seen.nan = true;
                continue;
            };
            terms.push(match product(k, &mut seen) {
                Some((v, e, al)) if s != BigInt::from(0) => Term { value: v * s, exp: e + se, align: al + sa },
                _ => zero(p),
            });
        }
    } else {
        // Group-scaled: each group's products summed exactly, times the group's scales, aligned
        // at the scales' exponents alone; a group with no nonzero product (or a zero scale) is a
        // zero term. A group whose products cancel keeps its scales' alignment [UNK: the
        // description does not say; this is MMA-Sim's reading].
        let mut k = ks.start;
        while k < ks.end {
            let end = (k + p.group).min(ks.end);
            let scale = scale_of(scales, k);
            let products: Vec<_> = (k..end).filter_map(|k| product(k, &mut seen)).collect();
            match scale {
                None => seen.nan = true,
                Some((s, se, sa)) if !products.is_empty() && s != BigInt::from(0) => {
                    let floor = products.iter().map(|t| t.1).min().unwrap();
                    let sum: BigInt = products.iter().map(|(v, e, _)| v.clone() << (e - floor) as usize).sum();
                    terms.push(Term { value: sum * s, exp: floor + se, align: sa });
                }
                Some(_) => terms.push(zero(p)),
            }
            k = end;
        }
    }
    let out = p.round.output();
    match out.value(c) {
        Val::Nan => seen.nan = true,
        Val::Inf(neg) => seen.inf(neg),
        Val::Num { mag: 0, .. } => terms.push(zero(p)),
        Val::Num { neg, mag, exp, align } => terms.push(Term { value: signed(neg, BigUint::from(mag)), exp, align }),
    }
    if seen.nan || (seen.pos_inf && seen.neg_inf) {
        return if out == Fmt::F16 { 0x7FFF } else { 0x7FFF_FFFF };
    }
    if seen.pos_inf || seen.neg_inf {
        return encode_inf(out, seen.neg_inf);
    }
    // Truncate each term toward zero to a multiple of 2^(e_max − F), sum exactly.
    let e_max = terms.iter().map(|t| t.align).max().unwrap();
    let q = match p.frac {
        Some(f) => e_max - f,
        None => terms.iter().filter(|t| t.value != BigInt::from(0)).map(|t| t.exp).min().unwrap_or(0),
    };
    let mut sum = BigInt::from(0);
    for t in &terms {
        let (sign, mag) = (t.value.sign(), t.value.magnitude().clone());
        let mag = if t.exp >= q { mag << (t.exp - q) as usize } else { mag >> (q - t.exp) as usize };
        sum += BigInt::from_biguint(if sign == Sign::Minus { Sign::Minus } else { Sign::Plus }, mag);
    }
    round(p.round, sum, q)
}

fn encode_inf(out: Fmt, neg: bool) -> u32 {
    match out {
        Fmt::F16 => 0x7C00 | (neg as u32) << 15,
        _ => 0x7F80_0000 | (neg as u32) << 31,
    }
}

/// Round `sum · 2^q` once: RZ or RNE onto p significand bits with minimum exponent emin, an
/// overflow past emax to Inf; encoded in f32 or f16. A zero result is +0, a nonzero sum that
/// rounds to zero included.
fn round(r: Round, sum: BigInt, q: i64) -> u32 {
    if sum.sign() == Sign::NoSign {
        return 0;
    }
    let (p, emin, emax, nearest) = match r {
        Round::RzF32 => (24, -126, 127, false),
        Round::RzE8m13 => (14, -126, 127, false),
        Round::RneF16 => (11, -14, 15, true),
        Round::RneF32 => (24, -126, 127, true),
    };
    let neg = sum.sign() == Sign::Minus;
    let mag = sum.magnitude().clone();
    let top = q + mag.bits() as i64 - 1;
    // The exponent of the result's last place.
    let quantum = top.max(emin) - (p - 1);
    let mut m = if quantum <= q {
        mag << (q - quantum) as usize
    } else {
        let shift = (quantum - q) as usize;
        let kept = &mag >> shift;
        let rest = &mag - (&kept << shift);
        let half = BigUint::from(1u32) << (shift - 1);
        if nearest && (rest > half || (rest == half && kept.bit(0))) {
            kept + 1u32
        } else {
            kept
        }
    };
    let mut quantum = quantum;
    if m.bits() as i64 > p {
        m >>= 1;
        quantum += 1;
    }
    let m: u64 = m.try_into().unwrap();
    let out = r.output();
    if m != 0 && quantum + 63 - m.leading_zeros() as i64 > emax {
        return encode_inf(out, neg);
    }
    // Encode m · 2^quantum exactly in the output format.
    let (mbits, bias, width) = if out == Fmt::F16 { (10i64, 15i64, 16) } else { (23, 127, 32) };
    let bits = if m == 0 {
        0
    } else {
        let e = quantum + 63 - m.leading_zeros() as i64;
        if e < 1 - bias {
            let shift = quantum - (1 - bias - mbits);
            assert!(shift >= 0);
            m << shift
        } else {
            let shift = mbits - (e - quantum);
            let sig = if shift >= 0 { m << shift } else { m >> -shift };
            assert_eq!(if shift >= 0 { sig >> shift } else { sig << -shift }, m, "not representable");
            ((e + bias) as u64) << mbits | (sig & ((1 << mbits) - 1))
        }
    };
    // Every zero result is +0: MMA-Sim adds +0.0 to each block's result ("-0.0 to +0.0").
    (bits as u32) | ((neg && bits != 0) as u32) << (width - 1)
}
