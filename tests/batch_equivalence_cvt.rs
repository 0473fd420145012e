//! The `cvt` kernels (src/kernels/convert.rs) against the scalar definition
//! (`ptxfp::ops::cvt` through `eval_unchecked`), bit for bit.
//!
//! Default tier, at every SIMD level the processor has: every float-to-float `cvt` spelling
//! of the catalog must be vectorized; every spelling from f16 and bf16 gets all 2^16 operands;
//! the spellings from f32 and from f64 get at least 10^7 operand words per (source,
//! destination) pair, shared among its spellings: edge-biased operands aimed at the
//! destination's rounding boundaries (tests/common `cvt_operand`: values and midpoints of the
//! destination ± a few units, its smallest normal, subnormal range and overflow threshold,
//! NaNs with payloads), mixed with runs of uniform bits and of moderate exponents. A packed
//! `.f16x2.f32`/`.bf16x2.f32` word draws its two operands independently.
//!
//! Exhaustive tier (`--ignored`): all 2^32 operands of every one of the 52 spellings from one
//! f32 (to f16, bf16, f64 and f32 itself), at the level the processor runs, against
//! references built from the `half` crate's conversions and the host's own IEEE arithmetic,
//! which share no code with ptxfp (`all_operands`); about 2.9 minutes on two AVX-512 cores. The
//! packed `.f16x2.f32`/`.bf16x2.f32` forms are their scalar forms twice, compared in the
//! default tier.

mod all_cores;
mod common;

use common::batch::{assert_vectorized_at_every_level, compare, levels, spellings_on_their_targets, Tally};
use common::{cvt_operand, operand, seed, Layout, Rng};
use ptxfp::{Format, Instr, Opcode, Target};
use rayon::prelude::*;

/// Operand words per (source, destination) pair from f32 and f64.
const CASES: u64 = 10_000_000;

/// Words per batch: not a multiple of any SIMD width, so the kernels' padded tail runs too.
const BLOCK: usize = (1 << 14) + 13;

/// Every float-to-float `cvt` of the catalog with a target that has it.
fn spellings() -> Vec<(Instr, Target)> {
    spellings_on_their_targets(|i| {
        matches!(i.opcode(), Opcode::Cvt { .. }) && i.integer_side().is_none() && !i.is_low_precision()
    })
}

fn source(instr: &Instr) -> Format {
    instr.source_type(0).float().expect("a float-to-float cvt")
}

#[test]
fn every_cvt_spelling_is_vectorized() {
    let all = spellings();
    assert_eq!(all.len(), 85 + 45, "the float-to-float cvt spellings of the catalog: between formats and same-format");
    assert_vectorized_at_every_level(&all);
}

#[test]
fn from_f16_and_bf16_every_operand() {
    let _all_cores = all_cores::hold();
    let tally = Tally::default();
    let levels = levels();
    let every: Vec<u64> = (0..1 << 16).collect();
    spellings().par_iter().filter(|(i, _)| source(i).bits() == 16).for_each(|(instr, target)| {
        tally.add(compare(instr, *target, &levels, std::slice::from_ref(&every)));
    });
    tally.check("cvt from f16 and bf16");
}

/// One operand of `from` for a conversion to `to`, in a run of `kind`.
fn element(kind: u64, from: Layout, to: Layout, rng: &mut Rng) -> u64 {
    match kind {
        0..=4 => cvt_operand(rng, from, to),
        5 => operand(rng, from),
        6 => from.at_exp(rng.coin(), rng.range(-20, 20) as i32, rng),
        _ => rng.next() & from.mask(),
    }
}

/// ≥ 10^7 words per (source, destination) pair from `from`, shared among its spellings.
fn random_tier(from: Format) {
    let _all_cores = all_cores::hold();
    let all: Vec<(Instr, Target)> = spellings().into_iter().filter(|(i, _)| source(i) == from).collect();
    let levels = levels();
    let tally = Tally::default();
    let mut pairs: Vec<Format> = all.iter().map(|(i, _)| i.format()).collect();
    pairs.dedup();
    for to in pairs {
        let of_pair: Vec<&(Instr, Target)> = all.iter().filter(|(i, _)| i.format() == to).collect();
        let words = CASES.div_ceil(of_pair.len() as u64);
        let blocks = words.div_ceil(BLOCK as u64);
        let (lf, lt) = (Layout::of(from), Layout::of(to));
        of_pair.par_iter().for_each(|&&(instr, target)| {
            (0..blocks).into_par_iter().for_each(|block| {
                let mut rng = Rng::new(seed(&instr.to_string(), block));
                let len = BLOCK.min((words - block * BLOCK as u64) as usize);
                let n = if instr.ty().lanes() == 2 { 2 } else { 1 };
                let mut srcs = vec![vec![0u64; len]; n];
                let (mut kind, mut left) = (0, 0);
                for i in 0..len {
                    if left == 0 {
                        (kind, left) = (rng.below(8), 32 + rng.below(64));
                    }
                    left -= 1;
                    for src in srcs.iter_mut() {
                        src[i] = element(kind, lf, lt, &mut rng);
                    }
                }
                tally.add(compare(&instr, target, &levels, &srcs));
            });
        });
    }
    tally.check(&format!("cvt from {}", from.name()));
}

#[test]
fn from_f32_edge_biased() {
    random_tier(Format::F32);
}

#[test]
fn from_f64_edge_biased() {
    random_tier(Format::F64);
}

/// The exhaustive tier. Each block of 2^14 operands is converted once per destination (to f16
/// unflushed, to bf16 and f64 with and without `.ftz`) and rounded to integral values once per
/// direction and `.ftz`; every spelling's expected words are read from those, but those of a
/// spelling with `.sat`, which are the words of the same spelling without it (checked just
/// before against these references) saturated. The rules
/// (docs/semantics.md §8.1, §8.2, §4):
/// - to f16 and bf16: `half`'s `from_f32` (to nearest, ties to even, onto the subnormal grid
///   and to ±Inf), moved one unit toward the operand where a directed rounding asks
///   (`common::directed`; both exact in f64); a NaN gives 0x7FFF. `.ftz` flushes a subnormal
///   operand to bf16 but not to f16 (the erratum the H200 showed). `.relu` gives +0 for a
///   negative result and 0x7FFF for a NaN; `.sat` clamps to [+0, 1], a NaN to +0;
/// - to f64: the exact value; a NaN keeps its sign and payload and is quieted, or with `.ftz`
///   becomes the f32 canonical NaN widened (0x7FFFFFFFE0000000);
/// - to f32: unchanged, or with `.ftz` a subnormal flushed and a NaN canonical; `.rni .rzi .rmi
///   .rpi` round to an integral value (`common::integral_f32`), a NaN canonical.
mod all_operands {
    use std::cmp::Ordering;

    use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
    use ptxfp::{Format, Instr, Mode, Rounding, SimdLevel, Type, Word};
    use rayon::prelude::*;

    use super::common::batch::{Tally, Words};
    use super::common::{directed, fill, flush_f32, integral_f32s, side, Layout};
    use super::{all_cores, source, spellings};

    const BLOCK: usize = 1 << 14;

    /// The 16-bit encodings nearest to a block's operands (the conversion to nearest, ties to
    /// even), and on which side of its operand each lies.
    #[derive(Default)]
    struct Nearest {
        bits: Vec<u16>,
        side: Vec<Ordering>,
    }

    impl Nearest {
        /// The f16 encodings nearest to `xs` (f16 values are exact in f32), from `half`'s slice
        /// conversion (the F16C instructions where the processor has them; the same bits as its
        /// `f16::from_f32`).
        #[inline(always)]
        fn f16(&mut self, xs: &[u32]) {
            let xs: &[f32] = bytemuck::cast_slice(xs);
            self.bits.resize(xs.len(), 0);
            self.bits.reinterpret_cast_mut::<half::f16>().convert_from_f32_slice(xs);
            self.side.resize(xs.len(), Ordering::Equal);
            for ((s, &n), &x) in self.side.iter_mut().zip(&self.bits).zip(xs) {
                *s = side(f64::from(half::f16::from_bits(n).to_f32()), f64::from(x));
            }
        }

        /// The bf16 encodings nearest to `xs`, each operand flushed first where `ftz` (and the
        /// side taken against the flushed operand).
        #[inline(always)]
        fn bf16(&mut self, xs: &[u32], ftz: bool) {
            self.bits.resize(xs.len(), 0);
            self.side.resize(xs.len(), Ordering::Equal);
            for ((n, s), &a) in self.bits.iter_mut().zip(self.side.iter_mut()).zip(xs) {
                let x = f32::from_bits(a);
                let x = if ftz { flush_f32(x) } else { x };
                let near = half::bf16::from_f32(x);
                (*n, *s) = (near.to_bits(), side(near.to_f64(), f64::from(x)));
            }
        }
    }

    /// `.sat` in place: a NaN, −0 and every negative value give +0, every value above 1 gives 1.
    fn saturate<D: Word>(fmt: Format, words: &mut [D]) {
        // The positive encodings are ordered as their values.
        let l = Layout::of(fmt);
        let (sign_bit, inf, one) = (l.sign_bit(), l.inf(), l.one());
        for w in words {
            let x = w.to_u64();
            *w = D::from_u64(if (x & sign_bit != 0) | (x > inf) { 0 } else { x.min(one) });
        }
    }

    /// `.relu` in place: +0 for a negative result (−0 included), 0x7FFF for a NaN (f16, bf16).
    fn relu(fmt: Format, words: &mut [u64]) {
        let l = Layout::of(fmt);
        let (sign_bit, inf) = (l.sign_bit(), l.inf());
        for w in words {
            *w = match *w {
                x if x & !sign_bit > inf => 0x7FFF,
                x if x & sign_bit != 0 => 0,
                x => x,
            };
        }
    }

    /// An f32 NaN widened to f64: sign and payload kept, quieted.
    fn widened_nan(x: u32) -> u64 {
        let sign = u64::from(x >> 31) << 63;
        sign | 0x7FF8_0000_0000_0000 | u64::from(x & 0x7F_FFFF) << 29
    }

    /// What one block shares among the spellings: its operands, their nearest f16 and bf16
    /// (without and with `.ftz`), and their integral values in the direction (and `.ftz`) of
    /// `rounded_for`.
    #[derive(Default)]
    struct Block {
        xs: Vec<u32>,
        f16: Nearest,
        bf16: [Nearest; 2],
        rounded: Vec<f32>,
        rounded_for: Option<(Rounding, bool)>,
    }

    /// A worker's buffers of the kernel's and the expected words.
    #[derive(Default)]
    struct Buffers {
        want: Vec<u64>,
        w16: Words<u16>,
        w32: Words<u32>,
        w64: Words<u64>,
    }

    /// Whether the f32 word `a` is a NaN.
    #[inline(always)]
    fn nan(a: u32) -> bool {
        a & 0x7FFF_FFFF > 0x7F80_0000
    }

    /// The expected words of `instr` on the block's operands, before `.sat` and `.relu`, into
    /// `want` (one loop per kind of spelling and direction, inlined into the block's check,
    /// which is compiled for the processor's widest level).
    #[inline(always)]
    fn expected(instr: &Instr, b: &Block, want: &mut Vec<u64>) {
        let (to, ftz, rnd) = (instr.format(), instr.modifiers().ftz, instr.rounding());
        let xs = b.xs.iter().copied();
        match (to, instr.mode()) {
            (Format::F16 | Format::BF16, _) => {
                let near = if to == Format::F16 { &b.f16 } else { &b.bf16[usize::from(ftz)] };
                #[inline(always)]
                fn each(xs: &[u32], near: &Nearest, rnd: Rounding, want: &mut Vec<u64>) {
                    let word =
                        |((&a, &n), &side)| if nan(a) { 0x7FFF } else { directed(rnd, u64::from(n), side, 0x8000) };
                    fill(want, xs.len(), xs.iter().zip(&near.bits).zip(&near.side).map(word));
                }
                match rnd {
                    Rounding::Rn => each(&b.xs, near, Rounding::Rn, want),
                    Rounding::Rz => each(&b.xs, near, Rounding::Rz, want),
                    Rounding::Rm => each(&b.xs, near, Rounding::Rm, want),
                    Rounding::Rp => each(&b.xs, near, Rounding::Rp, want),
                }
            }
            (Format::F64, _) => fill(
                want,
                b.xs.len(),
                xs.map(|a| match f32::from_bits(a) {
                    _ if nan(a) && ftz => widened_nan(0x7FFF_FFFF),
                    _ if nan(a) => widened_nan(a),
                    x => f64::from(if ftz { flush_f32(x) } else { x }).to_bits(),
                }),
            ),
            (_, Mode::Default) if ftz => fill(
                want,
                b.xs.len(),
                xs.map(|a| match f32::from_bits(a) {
                    _ if nan(a) => 0x7FFF_FFFF,
                    x => u64::from(flush_f32(x).to_bits()),
                }),
            ),
            (_, Mode::Default) => fill(want, b.xs.len(), xs.map(u64::from)),
            _ => fill(
                want,
                b.xs.len(),
                xs.zip(&b.rounded).map(|(a, r)| if nan(a) { 0x7FFF_FFFF } else { u64::from(r.to_bits()) }),
            ),
        }
    }

    /// Every spelling of `from_f32` (in the order of `every_spelling_from_f32`, `after_twin`
    /// marking those checked against the spelling before them) on block `block` of the f32
    /// operands, at `level`.
    #[inline(always)]
    fn check_block(
        from_f32: &[Instr],
        after_twin: &[bool],
        level: SimdLevel,
        block: u64,
        b: &mut Block,
        w: &mut Buffers,
        tally: &Tally,
    ) {
        b.xs.clear();
        b.xs.extend((0..BLOCK as u32).map(|i| (block as u32) * BLOCK as u32 + i));
        b.f16.f16(&b.xs);
        for ftz in [false, true] {
            b.bf16[usize::from(ftz)].bf16(&b.xs, ftz);
        }
        b.rounded_for = None;
        for (instr, &after_twin) in from_f32.iter().zip(after_twin) {
            let (to, mods) = (instr.format(), instr.modifiers());
            if after_twin {
                let xs = &b.xs;
                tally.add(match instr.ty() {
                    Type::F16 | Type::BF16 => w.w16.check_like_previous(instr, level, xs, |words| saturate(to, words)),
                    Type::F32 => w.w32.check_like_previous(instr, level, xs, |words| saturate(to, words)),
                    _ => w.w64.check_like_previous(instr, level, xs, |words| saturate(to, words)),
                });
                continue;
            }
            let key = (instr.rounding(), mods.ftz);
            if to == Format::F32 && instr.mode() != Mode::Default && b.rounded_for != Some(key) {
                integral_f32s(&b.xs, key.0, key.1, &mut b.rounded);
                b.rounded_for = Some(key);
            }
            expected(instr, b, &mut w.want);
            if mods.relu {
                relu(to, &mut w.want);
            }
            if mods.sat {
                saturate(to, &mut w.want);
            }
            let (xs, want) = (&b.xs, w.want.iter().copied());
            tally.add(match instr.ty() {
                Type::F16 | Type::BF16 => w.w16.check(instr, level, xs, want.map(|w| w as u16)),
                Type::F32 => w.w32.check(instr, level, xs, want.map(|w| w as u32)),
                _ => w.w64.check(instr, level, xs, want),
            });
        }
    }

    #[test]
    #[ignore = "exhaustive: all 2^32 operands of cvt spellings from one f32"]
    fn every_spelling_from_f32() {
        let _all_cores = all_cores::hold();
        let level = SimdLevel::active();
        let mut from_f32: Vec<Instr> = spellings()
            .into_iter()
            .map(|(i, _)| i)
            .filter(|i| source(i) == Format::F32 && i.ty().lanes() == 1)
            .collect();
        assert_eq!(from_f32.len(), 52, "to f16 (20), bf16 (8), f64 (4) and f32 (20)");
        // The roundings to an integral value of one direction and `.ftz` next to each other,
        // so that each block computes their values once.
        // A spelling with `.sat` right after the same spelling without it, whose kernel words
        // it is then checked against, saturated: `.sat` is a function of the result (and a NaN
        // operand gives a NaN result, which it makes +0).
        let key = |i: &Instr| {
            let m = i.modifiers();
            format!("{} {:?} {} {} {:?} {}", i.format().bits(), i.mode(), m.ftz, m.relu, i.rounding(), m.sat)
        };
        from_f32.sort_by_key(key);
        let unsaturated = |i: &Instr| i.to_string().replace(".sat", "").parse::<Instr>().ok();
        let after_twin: Vec<bool> = (0..from_f32.len())
            .map(|k| k > 0 && from_f32[k].modifiers().sat && unsaturated(&from_f32[k]) == Some(from_f32[k - 1]))
            .collect();
        let start = std::time::Instant::now();
        let tally = Tally::default();
        (0..(1u64 << 32) / BLOCK as u64).into_par_iter().for_each_init(
            || (Block::default(), Buffers::default()),
            |(b, w), block| {
                // The references compiled for the widest level the processor has (the host's
                // arithmetic gives the same bits at every level).
                SimdLevel::detected().compiled_for(
                    #[inline(always)]
                    || check_block(&from_f32, &after_twin, level, block, b, w, &tally),
                );
            },
        );
        eprintln!("{} spellings on all 2^32 operands at {level} in {:.1?}", from_f32.len(), start.elapsed());
        tally.check("cvt from f32 against the references");
    }
}
