//! The low-precision conversions (PTX ISA 9.1 §9.7.9.21 `cvt`, the 8.1–9.4 additions): to and
//! from tf32, FP8 (e4m3, e5m2), FP6 (e2m3, e3m2), FP4 (e2m1), ue8m0, ue5m3 and s2f6, and the
//! `.satfinite` and `.rs` forms to f16 and bf16. The rules, with their evidence, are
//! docs/semantics.md §8.4–§8.5; each is stated once here.
//!
//! Every element is rounded by [`crate::round::round_to_grid`] onto its destination's grid
//! ([`crate::narrow::Narrow::grid`], [`Format::grid`]) under `.rn`, `.rz`, `.rp`, `.rna` or
//! `.rs` ([`Rule`]); what this file adds is what the grid does not say: which code a NaN, an
//! infinity, an overflow and a zero become, the signs of the unsigned formats, `.relu`, the
//! scale factors, and where each element sits in the operand words.

use crate::format::{Format, Unpacked};
use crate::narrow::{Narrow, Specials};
use crate::ptx::Type;
use crate::round::{round_pack_sig, round_to_grid, Rounded, Rounding, Rule};

/// How a low-precision conversion rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    Dir(Rounding),
    /// `.rna`
    TiesAway,
    /// `.rs`, the random bits in the last operand.
    Stochastic,
}

/// One low-precision conversion, as its spelling gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conversion {
    pub from: Type,
    pub to: Type,
    pub round: Round,
    pub relu: bool,
    pub satfinite: bool,
    /// `.scaled::n2::ue8m0`: the last operand holds one ue8m0 scale per element.
    pub scaled: bool,
}

/// Where a rounded element goes: an IEEE format (f16, bf16) or a narrow one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dest {
    Float(Format),
    Narrow(Narrow),
}

impl Dest {
    pub(crate) fn of(ty: Type) -> Dest {
        match (ty.float(), ty.narrow()) {
            (Some(fmt), _) => Dest::Float(fmt),
            (_, Some(n)) => Dest::Narrow(n),
            _ => unreachable!("a low-precision conversion has a floating-point destination"),
        }
    }

    pub(crate) const fn grid(self) -> crate::round::Grid {
        match self {
            Dest::Float(f) => f.grid(),
            Dest::Narrow(n) => n.grid(),
        }
    }

    /// Whether codes carry a sign (the `ue` formats ignore the input's, docs/semantics.md).
    pub(crate) const fn signed(self) -> bool {
        match self {
            Dest::Float(_) => true,
            Dest::Narrow(n) => n.signed(),
        }
    }

    /// The sign bit of a code (0 for the unsigned formats; s2f6's is handled by its packing).
    pub(crate) const fn sign_bit(self) -> u64 {
        match self {
            Dest::Float(f) => f.sign_bit(),
            Dest::Narrow(Narrow::S2f6) => 0,
            Dest::Narrow(n) => n.sign_bit(),
        }
    }

    /// The largest finite magnitude's code.
    pub(crate) const fn max_finite(self) -> u64 {
        match self {
            Dest::Float(f) => f.max_finite(false),
            Dest::Narrow(n) => n.max_finite(),
        }
    }

    /// The code of an overflow that is not saturated: ±Inf where the format has infinities,
    /// its NaN where it has only a NaN (ue8m0 and ue5m3: 0xFF \[host code: `cuda_fp8.hpp`
    /// `__nv_cvt_float_to_e8m0` / `__nv_cvt_float_to_ue5m3` without `__NV_SATFINITE`\]).
    /// Every form of a format without either requires `.satfinite`.
    pub(crate) fn unsaturated_overflow(self, neg: bool) -> u64 {
        let sign = if neg { self.sign_bit() } else { 0 };
        match self {
            Dest::Float(f) => f.inf(neg),
            Dest::Narrow(n) => match (n.inf(), n.nan()) {
                (Some(inf), _) => sign | inf,
                (None, Some(nan)) => sign | nan,
                (None, None) => unreachable!("{n:?} conversions are all .satfinite"),
            },
        }
    }

    /// What a NaN becomes (also under `.relu`), docs/semantics.md §8.4–§8.5:
    /// - f16, bf16: the canonical 0x7FFF \[DOC: "NaN in the destination format", §4's
    ///   canonical NaN\];
    /// - e4m3 and e5m2: 0x7F, the sign dropped \[host code `__nv_cvt_float2_to_fp8x2`, which
    ///   canonicalises the NaN first; B200 goldens of the TIRx harness, §8.7\];
    /// - e2m3, e3m2, e2m1, s2f6: +MAX_NORM \[DOC: "NaN results are converted to positive
    ///   MAX_NORM"; host code `__nv_cvt_float2_to_fp6x2`/`fp4x2`; also under `.relu`, GB10
    ///   model, §8.7\];
    /// - ue8m0 and ue5m3: 0xFF, with `.satfinite` too \[host code\];
    /// - tf32 from F2FP.TF32 (`.rn`, `.rz`): 0x7FFFE000, the canonical f32 NaN in tf32's 19 bits
    ///   \[UNK: PTX says "NaN", the hardware's payload is not measured\]. `.rna` is ptxas's
    ///   integer sequence ([`tf32_rna`]).
    pub(crate) fn nan(self) -> u64 {
        match self {
            Dest::Float(f) => f.canonical_nan(),
            Dest::Narrow(n) => match n.specials() {
                Specials::None => n.max_finite(),
                _ if n == Narrow::Tf32 => 0x7FFF_FFFF >> 13,
                _ => n.nan().expect("a format with specials has a NaN"),
            },
        }
    }
}

/// One element converted down: `v` (an unpacked f32, f16 or bf16 value, already multiplied by
/// its scale) to `to` by `rule`.
///
/// - An infinity or a value beyond the largest finite one gives ±MAX under `.satfinite`
///   ("sign-preserved MAX_NORM ... a positive MAX_NORM in .ue8m0x2" \[DOC\]); without it an
///   infinity stays one where the format has it and an overflow follows the rule's direction
///   (IEEE 754-2019 clause 7.4: `.rz` keeps the largest finite value; a stochastic rounding overflows to
///   infinity only when it carried \[INF\]).
/// - The unsigned formats convert the magnitude: the input's sign is ignored \[host code: ±1.0
///   both give ue5m3 0x78; ue8m0 rz(−3) = 0x80 on B200, TIRx\].
/// - A zero keeps its sign; ue8m0, which has none, gives 0x00 (2^−127), as does every value
///   below it \[host code, TIRx B200 cases\].
/// - `.relu` sends a negative result, −0 included, to +0 \[DOC; GB10 for −0, §8.7\];
///   a NaN stays [`Dest::nan`].
fn down(v: Unpacked, to: Dest, rule: Rule, satfinite: bool, relu: bool) -> u64 {
    let (neg, code) = match v {
        Unpacked::Nan => return to.nan(),
        Unpacked::Inf { neg } => {
            let neg = neg && to.signed();
            let sign = if neg { to.sign_bit() } else { 0 };
            (neg, if satfinite { sign | to.max_finite() } else { to.unsaturated_overflow(neg) })
        }
        Unpacked::Zero { neg } => {
            let neg = neg && to.signed();
            (neg, if neg { to.sign_bit() } else { 0 })
        }
        Unpacked::Finite { neg, exp, sig } => {
            let neg = neg && to.signed();
            let sign = if neg { to.sign_bit() } else { 0 };
            match round_to_grid(to.grid(), neg, exp, sig, rule, false) {
                Rounded::Code(m) => (neg, sign | m),
                Rounded::Overflow { .. } if satfinite => (neg, sign | to.max_finite()),
                Rounded::Overflow { away: false } => (neg, sign | to.max_finite()),
                Rounded::Overflow { away: true } => (neg, to.unsaturated_overflow(neg)),
            }
        }
    };
    if relu && neg {
        return 0;
    }
    match to {
        // s2f6 is two's complement: the magnitude's negation.
        Dest::Narrow(Narrow::S2f6) if neg => code.wrapping_neg() & 0xFF,
        _ => code,
    }
}

/// One element converted up: the narrow code `code` of `from`, times 2^(scale − 127) under
/// `.scaled::n2::ue8m0`, rounded to nearest onto `to` (f16 or bf16). Exact except where the
/// scale takes it below `to`'s subnormals or above its range, and for ue5m3 to f16 (largest
/// 114688) \[DOC: "value × 2^(s−127)"; ptxas lowers the unscaled bf16x2 forms to the scaled
/// instruction with the scale 0x7F7F, data/ptxas/cvt_lowprec.sass.txt\].
///
/// - Every NaN gives the canonical 0x7FFF, the sign dropped \[host code
///   `__nv_cvt_fp8x2_to_halfraw2`; B200 for e4m3 0x7F/0xFF, TIRx\]; so does the scale 0xFF
///   (ue8m0's NaN) \[INF\].
/// - An infinity (e5m2) stays one; under `.satfinite` it and an overflow give ±MAX \[DOC\].
/// - `.relu`: a negative result, −0 included, gives +0.
fn up(from: Narrow, code: u64, to: Format, scale: Option<u64>, satfinite: bool, relu: bool) -> u64 {
    let shift = match scale {
        Some(0xFF) => return to.canonical_nan(),
        Some(s) => s as i32 - 127,
        None => 0,
    };
    let r = match from.decode(code) {
        Unpacked::Nan => return to.canonical_nan(),
        Unpacked::Inf { neg } => to.inf(neg),
        Unpacked::Zero { neg } => to.zero(neg),
        Unpacked::Finite { neg, exp, sig } => round_pack_sig(to, neg, exp + shift, sig, Rounding::Rn, false),
    };
    let r = if satfinite && r & !to.sign_bit() == to.exp_mask() { r - 1 } else { r };
    if relu && to.is_neg(r) {
        0
    } else {
        r
    }
}

/// The value of an f32, f16 or bf16 element times 2^(127 − scale), the s2f6 down-conversion's
/// division by its scale (`x / 2^(sf−127)`, PTX 9.1 §9.7.9.21 \[DOC, not measured\]);
/// the scale 0xFF gives a NaN \[INF\].
fn unpack_scaled(fmt: Format, a: u64, scale: Option<u64>) -> Unpacked {
    let v = fmt.unpack(a, false);
    match (scale, v) {
        (None, v) => v,
        (Some(0xFF), _) => Unpacked::Nan,
        (Some(s), Unpacked::Finite { neg, exp, sig }) => Unpacked::Finite { neg, exp: exp + 127 - s as i32, sig },
        (Some(_), v) => v,
    }
}

/// `cvt.rna{.satfinite}.tf32.f32` as ptxas lowers it on sm_80 and sm_100a
/// (data/ptxas/cvt_lowprec.sass.txt; every bit of the result follows \[PTXAS\]): a finite `a`
/// gets 0x1000 added to its bits (half a tf32 unit, so the magnitude rounds to nearest with
/// ties away, carrying into the exponent, overflowing to Inf) and the low 13 bits are cleared;
/// an Inf or NaN is only cleared (so a NaN whose payload lies in the low 13 bits becomes an
/// Inf). With `.satfinite`, a result that is then Inf or NaN has 0x2000 subtracted: ±Inf gives
/// ±0x7F7FE000, a NaN another NaN (or Inf, from 0x7F802000).
pub fn tf32_rna(a: u32, satfinite: bool) -> u32 {
    let finite = a & 0x7FFF_FFFF < 0x7F80_0000;
    let r = if finite { a.wrapping_add(0x1000) } else { a } & 0xFFFF_E000;
    if satfinite && r & 0x7FFF_FFFF >= 0x7F80_0000 {
        r.wrapping_sub(0x2000)
    } else {
        r
    }
}

/// The random integer of element `lane` (0 the lowest of the result) of a `.rs` conversion to
/// `to`, and its width: docs/semantics.md §8.6.
///
/// - f16x2: 13 bits, rbits[28:16] for `a` (the upper element) and rbits[12:0] for `b`; the 3
///   bits above each "are 0" \[DOC\] and are ignored here \[UNK: what the hardware does with
///   them\].
/// - bf16x2: 16 bits, rbits[31:16] for `a`, rbits[15:0] for `b` \[DOC\].
/// - The 8-bit x4 forms: rbits[31:16] for `a` and `b`, rbits[15:0] for `e` and `f` \[DOC\],
///   each element of a pair reading the whole 16-bit field at the top of its discarded bits
///   \[INF: TIRx NumSim's model; PTX Fig. 41 not read\]. ptxas emits two F2FP.RS pair
///   conversions, the first given rbits, the second the first's result, whose upper half holds
///   rbits[15:0] (data/ptxas/cvt_lowprec.sass.txt).
/// - e2m1x4: 8 bits each, `a` rbits[31:24], `b` rbits[15:8], `e` rbits[23:16], `f` rbits[7:0]
///   \[DOC: "upper 8-bits from both 16-bits half … for operands a, b"; which of a and b takes
///   which half is INF\].
pub(crate) fn random_bits(to: Type, lane: u32, rbits: u64) -> (u32, u32) {
    let field = |shift: u32, bits: u32| ((rbits >> shift) & ((1 << bits) - 1)) as u32;
    match (to, lane) {
        (Type::F16x2, 1) => (field(16, 13), 13),
        (Type::F16x2, _) => (field(0, 13), 13),
        (Type::BF16x2, 1) => (field(16, 16), 16),
        (Type::BF16x2, _) => (field(0, 16), 16),
        (Type::E2m1x4, 3) => (field(24, 8), 8),
        (Type::E2m1x4, 2) => (field(8, 8), 8),
        (Type::E2m1x4, 1) => (field(16, 8), 8),
        (Type::E2m1x4, _) => (field(0, 8), 8),
        (_, 2 | 3) => (field(16, 16), 16),
        _ => (field(0, 16), 16),
    }
}

/// Evaluate a low-precision conversion on its operands (checked in count and width).
///
/// Packing \[DOC PTX cvt\]: from two f32 `d, a, b`, `a` goes to the upper element; from four,
/// `d, {a, b, e, f}`, `a` to the highest; from a packed f16x2/bf16x2 source and up from a
/// packed narrow source, element i to element i. The scale operand of `.scaled::n2::ue8m0`
/// gives its upper byte to the upper element; `.rs`'s rbits come last.
pub fn eval(c: &Conversion, x: &[u64]) -> u64 {
    let lanes = c.to.lanes();
    let width = c.to.element_bits();
    let scale_of = |lane: u32| c.scaled.then(|| (x[x.len() - 1] >> (8 * lane)) & 0xFF);
    if let Some(from) = c.from.narrow() {
        let to = c.to.float().expect("up-conversions go to f16x2 or bf16x2");
        let in_width = c.from.element_bits();
        let mut out = 0;
        for lane in 0..lanes {
            let code = (x[0] >> (lane * in_width)) & ((1 << in_width) - 1);
            out |= up(from, code, to, scale_of(lane), c.satfinite, c.relu) << (lane * width);
        }
        return out;
    }
    let src = c.from.float().expect("down-conversions come from f32, f16x2 or bf16x2");
    let dest = Dest::of(c.to);
    // Element `lane` of the result from its source element.
    let element = |lane: u32, a: u64| -> u64 {
        if c.to == Type::Tf32 && c.round == Round::TiesAway {
            return u64::from(tf32_rna(a as u32, c.satfinite) >> 13);
        }
        let rule = match c.round {
            Round::Dir(r) => Rule::Dir(r),
            Round::TiesAway => Rule::TiesAway,
            Round::Stochastic => {
                let (r, bits) = random_bits(c.to, lane, x[x.len() - 1]);
                Rule::Random { bits, r }
            }
        };
        down(unpack_scaled(src, a, scale_of(lane)), dest, rule, c.satfinite, c.relu)
    };
    // The source element of result element `lane`.
    let source = |lane: u32| -> u64 {
        if c.from.lanes() == 2 {
            let w = src.bits();
            (x[0] >> (lane * w)) & src.mask()
        } else if lanes == 1 {
            x[0]
        } else {
            // d, a, b (…, e, f): the first operand is the highest element.
            x[(lanes - 1 - lane) as usize]
        }
    };
    if c.to == Type::Tf32 {
        return element(0, x[0]) << 13;
    }
    (0..lanes).fold(0, |out, lane| out | element(lane, source(lane)) << (lane * width))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::Instr;

    fn eval_on(spelling: &str, x: &[u64]) -> u64 {
        let i: Instr = spelling.parse().unwrap_or_else(|e| panic!("{e}"));
        i.eval(x).unwrap_or_else(|e| panic!("{spelling}: {e}"))
    }

    fn f(v: f32) -> u64 {
        u64::from(v.to_bits())
    }

    /// The directed cases of docs/semantics.md §8.7 (NVIDIA's host code, `cuda_fp8.hpp`,
    /// `cuda_fp6.hpp`, `cuda_fp4.hpp` 13.5, and the B200 cases of the TIRx harness, §8.7),
    /// each through the instruction, element `b` (the low one) carrying the case.
    #[test]
    fn the_directed_cases_of_the_host_code() {
        let nan = 0x7FC0_0000u64;
        let neg_nan = 0xFFC0_0000u64;
        let inf = 0x7F80_0000u64;
        let ninf = 0xFF80_0000u64;
        // input, e4m3, e5m2, e2m3, e3m2, e2m1, e8m0 rz sat, rp sat, rp nosat
        let rows: [(u64, [u64; 8]); 9] = [
            (nan, [0x7F, 0x7F, 0x1F, 0x1F, 0x07, 0xFF, 0xFF, 0xFF]),
            (neg_nan, [0x7F, 0x7F, 0x1F, 0x1F, 0x07, 0xFF, 0xFF, 0xFF]),
            (inf, [0x7E, 0x7B, 0x1F, 0x1F, 0x07, 0xFE, 0xFE, 0xFF]),
            (ninf, [0xFE, 0xFB, 0x3F, 0x3F, 0x0F, 0xFE, 0xFE, 0xFF]),
            (f(464.0), [0x7E, 0x5F, 0x1F, 0x1F, 0x07, 0x87, 0x88, 0x88]),
            (f(464.00003), [0x7E, 0x5F, 0x1F, 0x1F, 0x07, 0x87, 0x88, 0x88]),
            (f(2f32.powi(-10)), [0x00, 0x14, 0x00, 0x00, 0x00, 0x75, 0x75, 0x75]),
            (f(-0.0), [0x80, 0x80, 0x20, 0x20, 0x08, 0x00, 0x00, 0x00]),
            (f(61440.0), [0x7E, 0x7B, 0x1F, 0x1F, 0x07, 0x8E, 0x8F, 0x8F]),
        ];
        let spellings = [
            "cvt.rn.satfinite.e4m3x2.f32",
            "cvt.rn.satfinite.e5m2x2.f32",
            "cvt.rn.satfinite.e2m3x2.f32",
            "cvt.rn.satfinite.e3m2x2.f32",
            "cvt.rn.satfinite.e2m1x2.f32",
            "cvt.rz.satfinite.ue8m0x2.f32",
            "cvt.rp.satfinite.ue8m0x2.f32",
            "cvt.rp.ue8m0x2.f32",
        ];
        for (input, want) in rows {
            for (spelling, want) in spellings.iter().zip(want) {
                let got = eval_on(spelling, &[0, input]);
                let mask = if spelling.contains("e2m1") { 0xF } else { 0xFF };
                assert_eq!(got & mask, want, "{spelling}({input:#x})");
            }
        }
        // e8m0 of −3 and of the largest f32 subnormal (TIRx B200 directed cases).
        assert_eq!(eval_on("cvt.rz.satfinite.ue8m0x2.f32", &[0, f(-3.0)]) & 0xFF, 0x80);
        assert_eq!(eval_on("cvt.rp.satfinite.ue8m0x2.f32", &[0, f(-3.0)]) & 0xFF, 0x81);
        assert_eq!(eval_on("cvt.rz.satfinite.ue8m0x2.f32", &[0, 0x007F_FFFF]) & 0xFF, 0x00);
        assert_eq!(eval_on("cvt.rp.satfinite.ue8m0x2.f32", &[0, 0x007F_FFFF]) & 0xFF, 0x01);
        // e4m3 NaN codes decode to the canonical f16 NaN (B200); a → the upper byte.
        assert_eq!(eval_on("cvt.rn.f16x2.e4m3x2", &[0xFF7F]), 0x7FFF_7FFF);
        assert_eq!(eval_on("cvt.rn.satfinite.e4m3x2.f32", &[f(448.0), f(-0.0)]), 0x7E80);
        // ue5m3 (host code): NaN 0xFF, ±Inf 0xFE with satfinite and 0xFF without, sign ignored.
        assert_eq!(eval_on("cvt.rn.satfinite.ue5m3x2.f32", &[nan, ninf]), 0xFFFE);
        assert_eq!(eval_on("cvt.rn.ue5m3x2.f32", &[inf, f(-1.0)]), 0xFF78);
        assert_eq!(eval_on("cvt.rn.ue5m3x2.f32", &[f(2f32.powi(-18)), f(1.0625)]), 0x0078);
        assert_eq!(eval_on("cvt.rp.ue5m3x2.f32", &[f(2f32.powi(-18)), f(1.0625)]), 0x0179);
        // ue8m0 up: 0x00 → 2^−127 (bf16 0x0040), 0xFF → NaN, else b << 7.
        assert_eq!(eval_on("cvt.rn.bf16x2.ue8m0x2", &[0xFF00]), 0x7FFF_0040);
        assert_eq!(eval_on("cvt.rn.bf16x2.ue8m0x2", &[0x807F]), 0x4000_3F80);
    }

    /// tf32 `.rna` through the rounding grid (ties away) equals ptxas's integer sequence on
    /// every finite input it can differ on: every exponent, and fractions at, beside and
    /// between the ties.
    #[test]
    fn tf32_ties_away_is_the_grid_rounding() {
        for exp in 0..255u32 {
            for frac in [0u32, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3000, 0x7F_F000, 0x7F_EFFF, 0x7F_FFFF] {
                for sign in [0, 0x8000_0000] {
                    let a = sign | exp << 23 | frac;
                    let v = Format::F32.unpack(u64::from(a), false);
                    let grid = down(v, Dest::Narrow(Narrow::Tf32), Rule::TiesAway, false, false) << 13;
                    assert_eq!(grid, u64::from(tf32_rna(a, false)), "{a:#x}");
                }
            }
        }
        assert_eq!(tf32_rna(0x7F80_0001, false), 0x7F80_0000);
        assert_eq!(tf32_rna(0xFF80_0000, true), 0xFF7F_E000);
    }

    /// `.rs`: a carry out of the random bits added to the discarded ones rounds away; the
    /// f16 field is 13 bits per element, the bf16 one 16.
    #[test]
    fn stochastic_rounding_carries_out_of_the_random_bits() {
        // 1 + 2^−11 to f16: discarded 0x1000 of 13 bits; random 0x1000 carries, 0xFFF not.
        let x = f(1.0 + 2f32.powi(-11));
        assert_eq!(eval_on("cvt.rs.f16x2.f32", &[x, x, 0x1000_0FFF]), 0x3C01_3C00);
        // bf16: discarded 0x8000 of 16; random 0x8000 carries.
        let y = f(1.0 + 2f32.powi(-8));
        assert_eq!(eval_on("cvt.rs.bf16x2.f32", &[y, y, 0x8000_7FFF]), 0x3F81_3F80);
        // Saturation after the random add: 65519 with a carry would be 65536 → Inf; MAX under satfinite.
        let big = f(65519.0);
        assert_eq!(eval_on("cvt.rs.f16x2.f32", &[big, big, 0x1FFF_0000]), 0x7C00_7BFF);
        assert_eq!(eval_on("cvt.rs.satfinite.f16x2.f32", &[big, big, 0x1FFF_0000]), 0x7BFF_7BFF);
    }
}
