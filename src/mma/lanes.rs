//! The unscaled fused dot product (T-FDPA, [`crate::mma::fdpa`]) of one row of A against
//! [`LANES`] columns of B at once: the GEMM's evaluation of the `f16`, `bf16`, `tf32` and FP8
//! forms (docs/tensorcore.md, "GEMM").
//!
//! Every element of A and B is decoded once, by the definition's own decoding
//! ([`MmaType::decode`], `align_exp`). Then per block of L products and per lane:
//! 1. `e_max`, the largest alignment exponent of the lane's products and its `c` (a zero term
//!    at `e_zero`);
//! 2. each product truncated toward zero to a multiple of `2^(e_max − F)` and summed with `c`'s
//!    in an i64: a term is below `2^(F+1)` (F ≤ 25 on these rows) and a block holds at most 32
//!    products and `c`, so the sum is below `2^32`;
//! 3. the sum rounded by the row's [`Rho`], whose result is the next block's `c`: for RZ-f32 and
//!    RZ-e8m13 in the lanes where the result is +0 or normal, by [`Rho::round`] otherwise.
//!
//! A lane that meets a NaN or an infinity (in its row of A, its column of B, C, or an
//! accumulator that overflowed) is left to the scalar definition ([`Gemm::element`]), as is every
//! form without this path (block scales, f64, the integers, an f16 C with an f32 D). The loops
//! are compiled for the processor's SIMD level; the bits are the same at every level
//! (`tests/tensorcore_gemm.rs` holds them to the chained tiles).
//!
//! [`Gemm::element`]: crate::mma::Gemm::element

use crate::format::Unpacked;
use crate::kernels::level::{at_level, inlined, Isa};
use crate::kernels::SimdLevel;
use crate::mma::fdpa::{Fdpa, Rho};
use crate::mma::types::MmaType;

/// The columns of D evaluated together.
pub(crate) const LANES: usize = 16;

/// The sign of a decoded element, in `sig`.
const SIGN: u32 = 1 << 31;

/// One element decoded: magnitude of the significand (with the sign in bit 31), the exponent
/// of its last bit, and its alignment exponent `Exp`. A zero is [`ZERO`]; a NaN or an infinity
/// is zero here and flagged by [`decode`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decoded {
    sig: u32,
    exp: i32,
    align: i32,
}

/// The alignment exponent of a zero element: so far below every real one (−300 at the least
/// for a product) that a product with a zero factor never sets a block's `e_max`.
const ZERO_ALIGN: i32 = -(1 << 20);
const ZERO: Decoded = Decoded { sig: 0, exp: 0, align: ZERO_ALIGN };

/// `code` of `ty` decoded, and whether it is a NaN or an infinity.
fn decode(ty: MmaType, code: u32) -> (Decoded, bool) {
    match ty.decode(code) {
        Unpacked::Finite { neg, exp, sig } => {
            let align = ty.align_exp(exp, sig);
            // Without its trailing zeros (a tf32's 13 cut bits): at most 11 bits for A and B,
            // so that a product fits a u32, and 24 for an f32 `c`.
            let zeros = sig.trailing_zeros();
            let sig = (sig >> zeros) as u32 | if neg { SIGN } else { 0 };
            (Decoded { sig, exp: exp + zeros as i32, align }, false)
        }
        Unpacked::Zero { .. } => (ZERO, false),
        Unpacked::Nan | Unpacked::Inf { .. } => (ZERO, true),
    }
}

/// The elements of B for the lanes: for each group of [`LANES`] columns, for each k (K padded
/// to whole k-steps with zeros), the group's elements side by side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group {
    sig: [u32; LANES],
    exp: [i32; LANES],
    align: [i32; LANES],
}

/// A group of zeros: the padding of K and of the last group's columns.
const ZEROS: Group = Group { sig: [0; LANES], exp: [0; LANES], align: [ZERO_ALIGN; LANES] };

/// A product's datapath, where it takes the lanes: the row's parameters and the input types.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes {
    pub(crate) fdpa: Fdpa,
    pub(crate) a: MmaType,
    pub(crate) b: MmaType,
    /// The instruction's k.
    pub(crate) step: usize,
}

/// B decoded for the lanes, with the columns that hold a NaN or an infinity.
pub(crate) struct LaneB {
    groups: Vec<Group>,
    padded_k: usize,
    pub(crate) special: Vec<bool>,
}

impl LaneB {
    /// The k-ordered elements of the `index`-th group of [`LANES`] columns.
    pub(crate) fn group(&self, index: usize) -> &[Group] {
        &self.groups[index * self.padded_k..(index + 1) * self.padded_k]
    }
}

/// A row of A decoded for the lanes, K padded as [`LaneB`]'s; `None` where it holds a NaN or an
/// infinity.
pub(crate) fn decode_row(ty: MmaType, row: &[u64], padded_k: usize) -> Option<Vec<Decoded>> {
    let mut out = vec![ZERO; padded_k];
    for (d, &code) in out.iter_mut().zip(row) {
        let (x, special) = decode(ty, code as u32);
        if special {
            return None;
        }
        *d = x;
    }
    Some(out)
}

impl Lanes {
    /// The lanes' path of an unscaled T-FDPA with C and D of the row's output type, where its
    /// blocks divide the instruction's k.
    pub(crate) fn new(fdpa: Fdpa, a: MmaType, b: MmaType, step: usize) -> Option<Lanes> {
        let l = fdpa.block as usize;
        // A zero term aligns at e_zero, and C's type has emin ≥ e_zero on every row: a nonzero c
        // aligns at Exp(c) ≥ emin ≥ e_zero, a zero c at e_zero, so a zero product never
        // changes e_max and the lanes leave it out.
        let zero_terms_dominated = fdpa.e_zero <= fdpa.rho.output().emin();
        let fits = fdpa.group == 0
            && fdpa.frac <= 25
            && step.is_multiple_of(l.min(step))
            && l.min(step) <= 32
            && zero_terms_dominated;
        fits.then_some(Lanes { fdpa, a, b, step })
    }

    /// K padded to whole k-steps.
    pub(crate) fn padded_k(&self, k: usize) -> usize {
        k.div_ceil(self.step) * self.step
    }

    /// B (K×N, row-major codes) decoded for the lanes.
    pub(crate) fn decode_b(&self, b: &[u64], k: usize, n: usize) -> LaneB {
        let padded_k = self.padded_k(k);
        let groups_n = n.div_ceil(LANES);
        let mut groups = vec![ZEROS; groups_n * padded_k];
        let mut special = vec![false; n];
        for (kk, row) in b.chunks(n.max(1)).enumerate().take(k) {
            for (j, &code) in row.iter().enumerate() {
                let (x, bad) = decode(self.b, code as u32);
                special[j] |= bad;
                let g = &mut groups[(j / LANES) * padded_k + kk];
                let lane = j % LANES;
                (g.sig[lane], g.exp[lane], g.align[lane]) = (x.sig, x.exp, x.align);
            }
        }
        LaneB { groups, padded_k, special }
    }

    /// The accumulators of [`LANES`] elements of D after the whole of K: `a` a decoded row of A,
    /// `b` the columns' group ([`LaneB::group`]), `c` their C codes. Promotion every
    /// `promote_every` k as [`crate::mma::Gemm`] does it, through `promote` (`add.rn.f32`). The
    /// second array flags the lanes whose accumulator became a NaN or an infinity: their
    /// results are not the definition's.
    pub(crate) fn run(
        &self,
        level: SimdLevel,
        a: &[Decoded],
        b: &[Group],
        c: [u32; LANES],
        promote_every: Option<usize>,
        promote: &dyn Fn(u32, u32) -> u32,
    ) -> ([u32; LANES], [bool; LANES]) {
        at_level!(level, L => <L as Isa>::run(inlined(|| self.chain(a, b, c, promote_every, promote))))
    }

    #[inline(always)]
    fn chain(
        &self,
        a: &[Decoded],
        groups: &[Group],
        c: [u32; LANES],
        promote_every: Option<usize>,
        promote: &dyn Fn(u32, u32) -> u32,
    ) -> ([u32; LANES], [bool; LANES]) {
        let l = (self.fdpa.block as usize).min(self.step);
        let out = self.fdpa.rho.output();
        let (mut acc, mut promoted, mut bad) = (c, c, [false; LANES]);
        for start in (0..a.len()).step_by(l) {
            if promote_every.is_some_and(|p| start.is_multiple_of(p)) {
                acc = [0; LANES];
            }
            let end = start + l;
            acc = self.block(&a[start..end], &groups[start..end], out, acc, &mut bad);
            if promote_every.is_some_and(|p| end.is_multiple_of(p) || end == a.len()) {
                for (p, &x) in promoted.iter_mut().zip(&acc) {
                    *p = promote(*p, x);
                }
            }
        }
        (if promote_every.is_some() { promoted } else { acc }, bad)
    }

    /// One block for every lane (module documentation, steps 1–3). The loops index their
    /// arrays by lane: the form LLVM turns into the level's vector instructions.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn block(
        &self,
        a: &[Decoded],
        b: &[Group],
        out: MmaType,
        c: [u32; LANES],
        bad: &mut [bool; LANES],
    ) -> [u32; LANES] {
        let Fdpa { frac, rho, e_zero, .. } = self.fdpa;
        let f32_out = out == MmaType::F32;
        let mut cd = [ZERO; LANES];
        for lane in 0..LANES {
            let (x, special) = if f32_out { decode_f32(c[lane]) } else { decode(out, c[lane]) };
            bad[lane] |= special;
            cd[lane] = x;
        }
        // A zero product's term (at e_zero) cannot raise e_max (Lanes::new): its ZERO_ALIGN
        // leaves it out.
        let mut e_max = [0i32; LANES];
        for lane in 0..LANES {
            e_max[lane] = if cd[lane].sig == 0 { e_zero } else { cd[lane].align };
        }
        for (x, g) in a.iter().zip(b) {
            for lane in 0..LANES {
                e_max[lane] = e_max[lane].max(x.align + g.align[lane]);
            }
        }
        let mut lsb = [0i32; LANES];
        let mut sum = [0i64; LANES];
        for lane in 0..LANES {
            lsb[lane] = e_max[lane] - frac as i32;
            sum[lane] = term(cd[lane].sig & !SIGN, cd[lane].sig & SIGN, cd[lane].exp - lsb[lane]);
        }
        for (x, g) in a.iter().zip(b) {
            let sa = x.sig & !SIGN;
            for lane in 0..LANES {
                let sig = sa * (g.sig[lane] & !SIGN);
                sum[lane] += term(sig, (x.sig ^ g.sig[lane]) & SIGN, x.exp + g.exp[lane] - lsb[lane]);
            }
        }
        let mut d = [0u32; LANES];
        let mut slow = [true; LANES];
        if let Some(p) = normal_grid(rho) {
            for lane in 0..LANES {
                (d[lane], slow[lane]) = round_normal(p, sum[lane], lsb[lane]);
            }
        }
        for lane in 0..LANES {
            if slow[lane] {
                d[lane] = rho.round(i128::from(sum[lane]), lsb[lane]);
                bad[lane] |= decode(out, d[lane]).1;
            }
        }
        d
    }
}

/// An f32 accumulator decoded as [`decode`] does it, without branches: sign, significand and
/// exponent fields of IEEE binary32 (a subnormal at `Exp` = −126), and whether it is a NaN or
/// an infinity.
#[inline(always)]
fn decode_f32(c: u32) -> (Decoded, bool) {
    let field = (c >> 23 & 0xFF) as i32;
    let frac = c & 0x7F_FFFF;
    let special = field == 0xFF;
    let sig = if special { 0 } else { frac | u32::from(field != 0) << 23 };
    let biased = field.max(1);
    (Decoded { sig: sig | (c & SIGN), exp: biased - 150, align: biased - 127 }, special)
}

/// The significand width of ρ's grid where its normal results have the f32 layout (RZ-f32 and
/// RZ-e8m13), for [`round_normal`].
const fn normal_grid(rho: Rho) -> Option<u32> {
    match rho {
        Rho::RzF32 => Some(24),
        Rho::RzE8m13 => Some(14),
        Rho::RneF16 => None,
    }
}

/// [`Rho::round`] of `sum · 2^lsb` toward zero onto a `p`-bit significand in the f32 layout,
/// where the result is +0 or normal; `true` where it is neither (a subnormal or an overflow:
/// [`Rho::round`] decides) and the code is not the result.
#[inline(always)]
fn round_normal(p: u32, sum: i64, lsb: i32) -> (u32, bool) {
    let mag = sum.unsigned_abs();
    let top = 63 - mag.leading_zeros() as i32;
    let exp = lsb + top;
    let keep = p as i32 - 1;
    // |sum| < 2^33 (module documentation): both shifts are below 64.
    let sig = if top >= keep { mag >> (top - keep) } else { mag << (keep - top) } as u32;
    let frac = (sig & ((1 << keep) - 1)) << (24 - p);
    let sign = if sum < 0 { SIGN } else { 0 };
    let code = sign | ((exp + 127) as u32) << 23 | frac;
    if mag == 0 {
        (0, false)
    } else {
        (code, !(-126..=127).contains(&exp))
    }
}

/// `±sig · 2^shift` truncated toward zero to an integer (`neg` the sign bit).
#[inline(always)]
fn term(sig: u32, neg: u32, shift: i32) -> i64 {
    let sig = u64::from(sig);
    let mag = if shift >= 0 { sig << shift.min(63) } else { sig >> (-shift).min(63) } as i64;
    if neg != 0 {
        -mag
    } else {
        mag
    }
}
