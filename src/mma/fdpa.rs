//! The fused dot product of the floating-point tensor cores, computed exactly on integers
//! (docs/tensorcore.md): T-FDPA, the fused dot product with truncated alignment, with its
//! block-scaled form ST-FDPA (`kind::mxf8f6f4`) and the group-scaled GST-FDPA (`kind::mxf4`,
//! `kind::mxf4nvf4`).
//!
//! One block of `L` products and the accumulator `c`:
//! 1. Specials first: a NaN, Inf·0, or +Inf and −Inf together give the output's NaN (f32
//!    0x7FFFFFFF, f16 0x7FFF); otherwise an infinity gives itself.
//! 2. Each term is exact. A product `a·b` aligns at `Exp(a) + Exp(b)` (the scales' exponents
//!    added for ST-FDPA), `c` at `Exp(c)`, a zero term at `e_zero`;
//!    `Exp(x) = max(⌊log2 |x|⌋, emin of x's type)`: products are not renormalised.
//! 3. Every term is truncated toward zero to a multiple of `2^(e_max − F)`, `e_max` the largest
//!    alignment exponent; the truncated terms are summed exactly and rounded once by ρ. A zero
//!    result is +0, also where a nonzero sum rounds to zero (MMA-Sim 2.1.1 adds +0.0 to every
//!    block's result \[MODEL; UNK on hardware for a nonzero sum\]).
//!
//! Blocks chain in k order: each block's result, in the output type, is the next block's `c`.
//! The model and its parameters are MMA-Sim's (arXiv 2511.10909, PyPI `mmasim` 2.1.1
//! `mmasim/arithmetic/fdpa.py`), validated there on hardware; the sets of public hardware data
//! each parameter row reproduces are listed in docs/tensorcore.md.

use crate::format::{Format, Unpacked};
use crate::mma::types::MmaType;
use crate::round::{round_pack, round_to_grid, Grid, Rounded, Rounding, Rule};

/// The one rounding ρ that ends a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rho {
    /// Toward zero onto f32, subnormals kept; a finite sum beyond the largest f32 gives ±Inf
    /// all the same \[MODEL: MMA-Sim "RZ-FP32"\].
    RzF32,
    /// Toward zero onto 13 fraction bits in the f32 range (subnormals on the grid 2^−139),
    /// written as an f32 word: the FP8 accumulator of Ada and Hopper \[MODEL: MMA-Sim "RZ-E8M13";
    /// SageAttention2 §3, "13 fraction bits"\].
    RzE8m13,
    /// To nearest even onto f16, subnormals kept, overflow to ±Inf \[MODEL: MMA-Sim "RNE-FP16"\].
    RneF16,
}

/// The grid of [`Rho::RzE8m13`]: an f32 with a 14-bit significand.
const E8M13: Grid = Grid { p: 14, emin: -126, emax: 127, max_top: (1 << 14) - 1, subnormals: true };

impl Rho {
    /// The type of the accumulator and of the result (and so of a chained `c`).
    pub const fn output(self) -> MmaType {
        match self {
            Rho::RzF32 | Rho::RzE8m13 => MmaType::F32,
            Rho::RneF16 => MmaType::F16,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Rho::RzF32 => "RZ-f32",
            Rho::RzE8m13 => "RZ-e8m13",
            Rho::RneF16 => "RNE-f16",
        }
    }

    /// The NaN a block writes.
    pub const fn nan(self) -> u32 {
        match self.output() {
            MmaType::F16 => 0x7FFF,
            _ => 0x7FFF_FFFF,
        }
    }

    const fn inf(self, neg: bool) -> u32 {
        let (inf, sign) = match self.output() {
            MmaType::F16 => (0x7C00, 0x8000),
            _ => (0x7F80_0000, 0x8000_0000),
        };
        if neg {
            inf | sign
        } else {
            inf
        }
    }

    /// Round the exact `sum · 2^lsb`.
    pub(crate) fn round(self, sum: i128, lsb: i32) -> u32 {
        if sum == 0 {
            return 0;
        }
        let (neg, mag) = (sum < 0, sum.unsigned_abs());
        let (grid, shift, sign) = match self {
            Rho::RneF16 => {
                let d = round_pack(Format::F16, neg, lsb, mag, Rounding::Rn, false) as u32;
                // A sum that rounds to zero is +0 (module documentation, step 3).
                return if d & 0x7FFF == 0 { 0 } else { d };
            }
            Rho::RzF32 => (Format::F32.grid(), 0, 0x8000_0000),
            Rho::RzE8m13 => (E8M13, 10, 0x8000_0000),
        };
        let sign = if neg { sign } else { 0 };
        match round_to_grid(grid, neg, lsb, mag, Rule::Dir(Rounding::Rz), false) {
            // A sum that rounds to zero is +0 (module documentation, step 3).
            Rounded::Code(0) => 0,
            Rounded::Code(m) => sign | (m as u32) << shift,
            Rounded::Overflow { .. } => self.inf(neg),
        }
    }
}

/// The parameters of one fused dot product: a row of the table of [`crate::mma::table`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fdpa {
    /// L: the products of one block (the rest of k chains block by block).
    pub block: u32,
    /// F: the fraction bits kept below the largest alignment exponent.
    pub frac: u32,
    /// ρ: the rounding of the block's sum.
    pub rho: Rho,
    /// The alignment exponent of a zero term (a zero product, or `c` = 0).
    pub e_zero: i32,
    /// For GST-FDPA, the products of a group (summed exactly, aligned at their scales'
    /// exponents); 0 for T-FDPA and ST-FDPA.
    pub group: u32,
}

/// Block scales of `A` and `B` (`kind::mxf8f6f4`, `mxf4`, `mxf4nvf4`): the scale of element k
/// of the dot product is `a[k / block]` (and `b[k / block]`).
#[derive(Clone, Copy, Debug)]
pub struct BlockScales<'a> {
    pub ty: MmaType,
    pub a: &'a [u32],
    pub b: &'a [u32],
    /// The k elements one scale covers (32 for `scale_vec::1X` and `2X`, 16 for `4X`).
    pub block: usize,
}

/// The most terms of one block: 64 products (or groups) and `c`.
const MAX_TERMS: usize = 65;

/// One exact term `(−1)^neg · sig · 2^exp` with its alignment exponent.
#[derive(Clone, Copy, Debug, Default)]
struct Term {
    neg: bool,
    sig: u128,
    exp: i32,
    align: i32,
}

impl Term {
    const fn zero(e_zero: i32) -> Term {
        Term { neg: false, sig: 0, exp: 0, align: e_zero }
    }
}

/// The specials seen in a block (step 1).
#[derive(Clone, Copy, Debug, Default)]
struct Specials {
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
}

impl Specials {
    fn inf(&mut self, neg: bool) {
        if neg {
            self.neg_inf = true;
        } else {
            self.pos_inf = true;
        }
    }

    fn result(self, rho: Rho) -> Option<u32> {
        if self.nan || (self.pos_inf && self.neg_inf) {
            Some(rho.nan())
        } else if self.pos_inf || self.neg_inf {
            Some(rho.inf(self.neg_inf))
        } else {
            None
        }
    }
}

/// A scale factor `sig · 2^exp` with its alignment exponent; NaN as `None`.
#[derive(Clone, Copy, Debug)]
struct Scale {
    sig: u128,
    exp: i32,
    align: i32,
}

const UNIT: Scale = Scale { sig: 1, exp: 0, align: 0 };

impl Scale {
    /// The product of the two scales of one k (ue8m0 has no zero; a ue4m3 zero gives sig 0).
    fn of(ty: MmaType, a: u32, b: u32) -> Option<Scale> {
        let one = |code| match ty.decode(code) {
            Unpacked::Finite { exp, sig, .. } => Some((sig as u128, exp, ty.align_exp(exp, sig))),
            Unpacked::Zero { .. } => Some((0, 0, ty.emin())),
            Unpacked::Nan | Unpacked::Inf { .. } => None,
        };
        let (sa, ea, aa) = one(a)?;
        let (sb, eb, ab) = one(b)?;
        Some(Scale { sig: sa * sb, exp: ea + eb, align: aa + ab })
    }
}

/// The term of `c`, a code of `ty`.
fn c_term(ty: MmaType, c: u32, e_zero: i32, sp: &mut Specials) -> Term {
    match ty.decode(c) {
        Unpacked::Nan => sp.nan = true,
        Unpacked::Inf { neg } => sp.inf(neg),
        Unpacked::Zero { .. } => {}
        Unpacked::Finite { neg, exp, sig } => {
            return Term { neg, sig: sig as u128, exp, align: ty.align_exp(exp, sig) }
        }
    }
    Term::zero(e_zero)
}

/// The product `a·b` times `scale`, as a term (a special is recorded in `sp`).
fn product_term(ta: MmaType, a: u32, tb: MmaType, b: u32, scale: Scale, e_zero: i32, sp: &mut Specials) -> Term {
    use Unpacked::*;
    match (ta.decode(a), tb.decode(b)) {
        (Nan, _) | (_, Nan) | (Inf { .. }, Zero { .. }) | (Zero { .. }, Inf { .. }) => sp.nan = true,
        (Inf { neg: x }, Inf { neg: y })
        | (Inf { neg: x }, Finite { neg: y, .. })
        | (Finite { neg: y, .. }, Inf { neg: x }) => sp.inf(x ^ y),
        (Zero { .. }, _) | (_, Zero { .. }) => {}
        (Finite { neg: na, exp: ea, sig: sa }, Finite { neg: nb, exp: eb, sig: sb }) if scale.sig != 0 => {
            return Term {
                neg: na ^ nb,
                sig: sa as u128 * sb as u128 * scale.sig,
                exp: ea + eb + scale.exp,
                align: ta.align_exp(ea, sa) + tb.align_exp(eb, sb) + scale.align,
            };
        }
        (Finite { .. }, Finite { .. }) => {}
    }
    Term::zero(e_zero)
}

/// One block of a dot product: its products' codes, and the k of its first product.
#[derive(Clone, Copy)]
struct Block<'a> {
    ta: MmaType,
    a: &'a [u32],
    tb: MmaType,
    b: &'a [u32],
    start: usize,
}

/// Steps 3 and 4: truncate every term to a multiple of `2^(e_max − F)`, sum exactly, round.
fn truncated_sum(terms: &[Term], frac: u32, rho: Rho) -> u32 {
    let e_max = terms.iter().map(|t| t.align).max().unwrap_or(i32::MIN);
    let lsb = e_max - frac as i32;
    let mut sum = 0i128;
    for t in terms.iter().filter(|t| t.sig != 0) {
        // A zero term only sets e_max. A term below 2^(align + 12) (a group sum of 16 e2m1 products, the widest) shifts left
        // by less than F + 12 bits: the sum stays far inside an i128.
        let shift = t.exp - lsb;
        let mag = if shift >= 0 {
            t.sig << shift
        } else if shift > -128 {
            t.sig >> -shift
        } else {
            0
        };
        let mag = mag as i128;
        sum += if t.neg { -mag } else { mag };
    }
    rho.round(sum, lsb)
}

impl Fdpa {
    /// `c + Σ a[k]·b[k]` over the whole of `a` and `b` (equal lengths, the instruction's K), in
    /// blocks of [`Fdpa::block`] chained in k order; `c` and the result in [`Rho::output`].
    ///
    /// With `scales`, ST-FDPA (or GST-FDPA where [`Fdpa::group`] is set): each product carries
    /// the scales of its k. Allocation-free.
    ///
    /// # Panics
    /// If `a` and `b` differ in length, a scale is missing for some k, or a group-scaled block
    /// has no scales: the callers check shapes first.
    pub fn dot(&self, ta: MmaType, a: &[u32], tb: MmaType, b: &[u32], c: u32, scales: Option<BlockScales<'_>>) -> u32 {
        self.dot_with_c(ta, a, tb, b, self.rho.output(), c, scales)
    }

    /// [`Fdpa::dot`] with `c` a code of `tc`: an f16 `C` of an f32 `D` (`mma` `m8n8k4`, `wmma`)
    /// enters the first block as an f16, aligned at its own `Exp` (an f16 subnormal at 2^−14)
    /// \[MODEL: MMA-Sim 2.1.1 decodes C in its own type\]; later blocks take the f32 result.
    #[allow(clippy::too_many_arguments)]
    pub fn dot_with_c(
        &self,
        ta: MmaType,
        a: &[u32],
        tb: MmaType,
        b: &[u32],
        tc: MmaType,
        c: u32,
        scales: Option<BlockScales<'_>>,
    ) -> u32 {
        assert_eq!(a.len(), b.len(), "A and B rows of one dot product differ in length");
        let l = (self.block as usize).min(a.len()).max(1);
        let (mut acc, mut tc) = (c, tc);
        for (start, (a, b)) in a.chunks(l).zip(b.chunks(l)).enumerate().map(|(i, ab)| (i * l, ab)) {
            let block = Block { ta, a, tb, b, start };
            acc = if self.group == 0 {
                self.block_sum(block, tc, acc, scales)
            } else {
                self.group_block_sum(block, tc, acc, scales.expect("group-scaled dot product without scales"))
            };
            tc = self.rho.output();
        }
        acc
    }

    /// One T-FDPA or ST-FDPA block whose first product is element `start` of the dot product.
    fn block_sum(
        &self,
        Block { ta, a, tb, b, start }: Block<'_>,
        tc: MmaType,
        c: u32,
        scales: Option<BlockScales<'_>>,
    ) -> u32 {
        let mut sp = Specials::default();
        let mut terms = [Term::default(); MAX_TERMS];
        let n = a.len();
        assert!(n < MAX_TERMS, "a block holds at most 64 products");
        for k in 0..n {
            let scale = match scales {
                None => UNIT,
                Some(s) => match Scale::of(s.ty, s.a[(start + k) / s.block], s.b[(start + k) / s.block]) {
                    Some(scale) => scale,
                    None => {
                        sp.nan = true;
                        UNIT
                    }
                },
            };
            terms[k] = product_term(ta, a[k], tb, b[k], scale, self.e_zero, &mut sp);
        }
        terms[n] = c_term(tc, c, self.e_zero, &mut sp);
        if let Some(special) = sp.result(self.rho) {
            return special;
        }
        truncated_sum(&terms[..=n], self.frac, self.rho)
    }

    /// One GST-FDPA block: groups of [`Fdpa::group`] products summed exactly, each sum times its
    /// scales aligned at the scales' exponents alone (a group whose products are all zero, or
    /// whose scale is zero, at `e_zero`; a group that cancels to zero keeps its scales' exponent).
    fn group_block_sum(
        &self,
        Block { ta, a, tb, b, start }: Block<'_>,
        tc: MmaType,
        c: u32,
        scales: BlockScales<'_>,
    ) -> u32 {
        let mut sp = Specials::default();
        let mut terms = [Term::default(); MAX_TERMS];
        let g = self.group as usize;
        let mut n = 0;
        for (i, (ga, gb)) in a.chunks(g).zip(b.chunks(g)).enumerate() {
            let k = start + i * g;
            let scale = Scale::of(scales.ty, scales.a[k / scales.block], scales.b[k / scales.block]);
            let Some(scale) = scale else {
                sp.nan = true;
                continue;
            };
            // The exact group sum, on the grid of its least product exponent.
            let mut products = [Term::default(); 64];
            for (j, (&x, &y)) in ga.iter().zip(gb).enumerate() {
                products[j] = product_term(ta, x, tb, y, UNIT, 0, &mut sp);
            }
            let products = &products[..ga.len()];
            let floor = products.iter().filter(|t| t.sig != 0).map(|t| t.exp).min();
            terms[n] = match floor {
                Some(floor) if scale.sig != 0 => {
                    let sum: i128 = products
                        .iter()
                        .filter(|t| t.sig != 0)
                        .map(|t| ((t.sig << (t.exp - floor)) as i128) * if t.neg { -1 } else { 1 })
                        .sum();
                    Term {
                        neg: sum < 0,
                        sig: sum.unsigned_abs() * scale.sig,
                        exp: floor + scale.exp,
                        align: scale.align,
                    }
                }
                _ => Term::zero(self.e_zero),
            };
            n += 1;
        }
        terms[n] = c_term(tc, c, self.e_zero, &mut sp);
        if let Some(special) = sp.result(self.rho) {
            return special;
        }
        truncated_sum(&terms[..=n], self.frac, self.rho)
    }
}
