//! Exhaustive tier: every one of the 2^32 operand pairs of `add` and `mul` in f16 and in bf16.
//!
//! 1. The scalar definitions of `add.rn` and `mul.rn` against an exact reference built from
//!    the host's IEEE binary32 arithmetic and `half`'s round-to-nearest-even narrowing.
//! 2. Every SIMD kernel of the family (each catalog spelling of `add`/`sub` resp. `mul` on the
//!    format and its packed `x2` type: `.sat`, `.ftz`, with and without `.rn`) against the
//!    scalar definition, on every pair (in a packed word, the pairs with a sign-clear first
//!    operand in element 0 and the others in element 1).
//!
//! Both parts run in the exhaustive tier, `cargo test --features internals --test exhaustive_half -- --include-ignored`
//! (about two minutes of work per family on two cores, parallelised over the first operand),
//! and share one evaluation of the scalar definitions per pair.
//!
//! ## The kernel comparison
//!
//! Evaluating each spelling's scalar definition on 2^32 pairs would cost about 50 ns a pair,
//! over an hour for the 60 spellings. The scalar results are instead computed once per pair
//! (`add` or `mul` rounded to nearest, with and without `.ftz`) and each spelling's definition
//! is read from them exactly as the code composes it:
//! - `sub(a, b)` is `add(a, −b)` with the sign of a non-NaN `b` flipped (`ops::add::sub`);
//! - `.sat` clamps the result with `round::saturate` (`Instr::clamp`; `.oob` and `.relu` do
//!   not occur in these families);
//! - a spelling without `.rn` rounds to nearest like the one with it (`Instr::rounding`);
//! - a packed word applies the scalar definition to each element (`Instr::eval_unchecked`).
//!
//! The `.ftz` results of f16 (bf16 has no `.ftz`) are evaluated only where an operand is
//! subnormal or the result r without `.ftz` is ±2^-14; elsewhere they follow from r. There
//! both operands are unchanged by the input flush, so both definitions round the same exact
//! value x (or give the same NaN, infinity or exact zero), and they differ only if x is tiny,
//! i.e. below 2^-14 in magnitude after rounding to 11 bits with unbounded exponent
//! (docs/semantics.md §5):
//! - |r| > 2^-14: r is at least 2^-14 + 2^-24, and |x| ≥ |r| − 2^-25 > 2^-14, so x is not tiny
//!   and the `.ftz` result is r;
//! - |r| < 2^-14 (r zero or subnormal): |x| lies below the midpoint 2^-14 − 2^-25 between the
//!   largest subnormal and 2^-14 (the midpoint itself rounds to the even 2^-14), and
//!   2^-14 − 2^-25 is an 11-bit number, so x rounds with unbounded exponent to at most it: x
//!   is tiny (or an exact zero) and the `.ftz` result is the zero of r's sign (a nonzero x
//!   keeps its sign when it rounds to a zero).
//!
//! Each step of this derivation is checked against `eval_unchecked` itself, for every
//! spelling, on the pairs with `(a ^ b) & 0xFFF == 0` (2^20 pairs; most are pairs where the
//! `.ftz` result is taken from the result without it).
//!
//! ## The scalar reference
//!
//! Let p be the narrow precision (11 for f16, 8 for bf16). Both
//! operands widen to f32 exactly.
//!
//! - Products: an f16 or bf16 product has at most 2p ≤ 22 significant bits, so it is exact in
//!   f32 whenever it lies in f32's normal range, which holds for every f16 product
//!   (2^-48 ≤ |a·b| < 2^32). For bf16, whose exponent range is f32's, the product can leave
//!   that range: above it f32 gives ±Inf, which is also the bf16 result since f32's overflow
//!   threshold exceeds bf16's; below 2^-126 f32 rounds once onto its subnormal grid (2^-149),
//!   and that rounding cannot move a product across a bf16 rounding boundary: the boundaries
//!   there are multiples of 2^-134 (and exact products lying on one are exact in f32), and a
//!   product P = k·2^e with k < 2^16 that f32 must round has e ≤ -150, so P < 2^-134 and
//!   |P − 2^-134| ≥ 2^-150·(2^16 − 255²) > 2^-150, so f32 rounding cannot reach the first
//!   boundary 2^-134 from below (nor cross zero). The one narrowing rounding is then
//!   `from_f32`.
//! - Sums and differences: the exact result is rounded once to f32 (p' = 24) and then once to
//!   the narrow format. Double rounding to nearest is innocuous when p' ≥ 2p + 2 (Figueroa,
//!   "When is double rounding innocuous?", 1995, for +, −, ×, ÷, √ of p-bit operands):
//!   24 ≥ 24 for f16 and 24 ≥ 18 for bf16. The theorem is about precision with an unbounded
//!   exponent; the range ends do not break it here: when f32 has to round at all, the exact
//!   sum needs more than 24 bits, so (both operands being multiples of the narrow format's
//!   smallest subnormal 2^-24 resp. 2^-133, and lying below 2^16 resp. 2^128) its magnitude is
//!   at least 1 for f16 resp. 2^-109 for bf16, i.e. in the narrow normal range, where the f32
//!   result is normal too; and overflow is decided on the unbounded-exponent rounding, which
//!   both roundings respect (f32 itself never overflows for f16; for bf16 an f32 overflow means
//!   |sum| ≥ f32's threshold > bf16's).
//!
//! NaN: whenever the reference is NaN, ptxfp must write exactly the canonical 0x7FFF
//! (docs/semantics.md §4); signed zeros and everything else are compared bit for bit.

#[cfg(not(feature = "internals"))]
compile_error!("these tests reach ptxfp's internals: run them as the README says, with --features ptxfp/internals");

use std::time::Instant;

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use ptxfp::ops::{add, mul};
use ptxfp::ptx::catalog;
use ptxfp::round::saturate;
use ptxfp::{Format, Instr, Opcode, Rounding, SimdLevel, Target};
use rayon::prelude::*;

mod all_cores;
mod failures;
use failures::Failures;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Mul,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Mul => "mul",
        }
    }

    /// The opcodes whose scalar definitions read this operation's results.
    fn covers(self, opcode: Opcode) -> bool {
        match self {
            Op::Add => matches!(opcode, Opcode::Add | Opcode::Sub),
            Op::Mul => opcode == Opcode::Mul,
        }
    }

    /// The scalar definition of `op.rn` on `fmt`, with or without `.ftz` (inlined, so that
    /// each call site specialises it to its constant format, operation and `ftz`).
    #[inline(always)]
    fn scalar(self, fmt: Format, a: u16, b: u16, ftz: bool) -> u16 {
        let (a, b) = (u64::from(a), u64::from(b));
        (match self {
            Op::Add => add::add(fmt, a, b, Rounding::Rn, ftz),
            Op::Mul => mul::mul(fmt, a, b, Rounding::Rn, ftz),
        }) as u16
    }
}

/// Every catalog spelling of `op` on `fmt` and its packed type: two sources, vectorized.
fn spellings(fmt: Format, op: Op) -> Vec<Instr> {
    let spellings: Vec<Instr> = catalog::entries()
        .iter()
        .filter(|e| e.sources == 2 && e.instr.format() == fmt && op.covers(e.instr.opcode()))
        .map(|e| e.instr)
        .collect();
    for instr in &spellings {
        assert!(instr.is_vectorized(Target::DEFAULT), "{instr} has no SIMD kernel");
        let m = instr.modifiers();
        assert!(!m.oob && !m.relu, "{instr}: the derivation knows only .sat and .ftz");
    }
    spellings
}

/// The scalar results of `op` for one first operand `a` and every second operand `b`:
/// `rn[b]` without `.ftz` and, where the format has it, `ftz[b]` with it (taken from `rn`
/// where the two cannot differ, see the module documentation).
struct Row {
    a: u16,
    rn: Vec<u16>,
    ftz: Vec<u16>,
}

impl Row {
    fn new() -> Row {
        Row { a: 0, rn: vec![0; 1 << 16], ftz: vec![0; 1 << 16] }
    }

    /// The results for first operand `a` (buffers are reused: a large allocation per row
    /// costs more than the row). Each arm sees a constant format and operation, so the scalar
    /// definition specialises to them, as in `Instr::eval_unchecked`: a row costs a quarter
    /// (`add`) to a half (`mul`) less than with both known only at run time.
    #[inline(always)]
    fn fill(&mut self, fmt: Format, op: Op, a: u16, with_ftz: bool) {
        match (fmt, op) {
            (Format::F16, Op::Add) => self.fill_in(Format::F16, Op::Add, a, with_ftz),
            (Format::F16, Op::Mul) => self.fill_in(Format::F16, Op::Mul, a, with_ftz),
            (Format::BF16, Op::Add) => self.fill_in(Format::BF16, Op::Add, a, with_ftz),
            (Format::BF16, Op::Mul) => self.fill_in(Format::BF16, Op::Mul, a, with_ftz),
            _ => unreachable!("{} is not a 16-bit format", fmt.name()),
        }
    }

    #[inline(always)]
    fn fill_in(&mut self, fmt: Format, op: Op, a: u16, with_ftz: bool) {
        self.a = a;
        for (b, r) in self.rn.iter_mut().enumerate() {
            *r = op.scalar(fmt, a, b as u16, false);
        }
        if with_ftz {
            assert_eq!(fmt, Format::F16, "the shortcut below is proved for f16");
            let subnormal = |x: u16| x & 0x7C00 == 0 && x & 0x03FF != 0;
            for (b, (f, &r)) in self.ftz.iter_mut().zip(&self.rn).enumerate() {
                let b = b as u16;
                let magnitude = r & 0x7FFF;
                *f = if subnormal(a) || subnormal(b) || magnitude == 0x0400 {
                    op.scalar(fmt, a, b, true)
                } else if magnitude < 0x0400 {
                    r & 0x8000
                } else {
                    r
                };
            }
        }
    }

    /// The scalar definition of the element type of `instr` on the pairs (`self.a`, `b`), for
    /// every `b`, into `out`.
    #[inline(always)]
    fn expected(&self, instr: &Instr, out: &mut [u16]) {
        let m = instr.modifiers();
        let table = if m.ftz { &self.ftz } else { &self.rn };
        if instr.opcode() == Opcode::Sub {
            // `sub` reads the result for −b (the other half of the row) unless b is NaN.
            let (positive, negative) = table.split_at(0x8000);
            let (lo, hi) = out.split_at_mut(0x8000);
            lo.copy_from_slice(negative);
            hi.copy_from_slice(positive);
            let nan = instr.format().inf(false) as usize + 1..0x8000;
            for b in nan.clone().chain(nan.start | 0x8000..nan.end | 0x8000) {
                out[b] = table[b];
            }
        } else {
            out.copy_from_slice(table);
        }
        if m.sat {
            // A loop per format, each with the format's constants.
            #[inline(always)]
            fn saturate_all(fmt: Format, out: &mut [u16]) {
                for r in out {
                    *r = saturate(fmt, u64::from(*r)) as u16;
                }
            }
            match instr.format() {
                Format::F16 => saturate_all(Format::F16, out),
                Format::BF16 => saturate_all(Format::BF16, out),
                other => unreachable!("{} is not a 16-bit format", other.name()),
            }
        }
    }
}

/// The expected results of the spellings with one combination of `.ftz`, `.sat` and `sub`
/// (they depend on nothing else, so aliases and the scalar and packed forms share them).
struct Derived {
    /// Per row, indexed by `b`.
    rows: [Vec<u16>; 2],
    /// Per packed second operand of [`Operands::packed`].
    packed: Vec<u32>,
    /// The first operand of `rows[0]` they were made for.
    made_for: Option<u16>,
}

/// The buffers of one worker, reused from one first operand to the next.
struct Scratch {
    rows: [Row; 2],
    /// Indexed by `.ftz << 2 | .sat << 1 | sub`.
    derived: [Derived; 8],
    /// The first operand of each row, repeated.
    a16: [Vec<u16>; 2],
    /// Both first operands packed (row 0's in element 0, row 1's in element 1), repeated.
    a32: Vec<u32>,
    out16: Vec<u16>,
    out32: Vec<u32>,
}

impl Scratch {
    fn new() -> Scratch {
        let v16 = || vec![0u16; 1 << 16];
        let v32 = || vec![0u32; 1 << 16];
        Scratch {
            rows: [Row::new(), Row::new()],
            derived: std::array::from_fn(|_| Derived { rows: [v16(), v16()], packed: v32(), made_for: None }),
            a16: [v16(), v16()],
            a32: v32(),
            out16: v16(),
            out32: v32(),
        }
    }
}

/// The second operands: every `b`, and the packed words whose element 0 holds `k` and element
/// 1 `k ^ 0x8000`, so that element 0 pairs (rows[0].a, k) and element 1 (rows[1].a,
/// k ^ 0x8000): every pair of both rows once, each element seeing every second operand.
struct Operands {
    bs: Vec<u16>,
    packed: Vec<u32>,
}

/// Every kernel of `spellings` on every pair whose first operand is `rows[0].a` or
/// `rows[1].a` (two rows, so that the elements of a packed word hold different operands); and
/// the derivation of [`Row::expected`] against the scalar definitions themselves, on the pairs
/// with `(a ^ b) & 0xFFF == 0`.
#[inline(always)]
fn check(spellings: &[Instr], s: &mut Scratch, ops: &Operands, failures: &Failures) {
    let target = Target::DEFAULT;
    for (a16, row) in s.a16.iter_mut().zip(&s.rows) {
        a16.fill(row.a);
    }
    s.a32.fill(u32::from(s.rows[0].a) | u32::from(s.rows[1].a) << 16);
    for instr in spellings {
        let m = instr.modifiers();
        let key = usize::from(m.ftz) << 2 | usize::from(m.sat) << 1 | usize::from(instr.opcode() == Opcode::Sub);
        let derived = &mut s.derived[key];
        if derived.made_for != Some(s.rows[0].a) {
            for (row, out) in s.rows.iter().zip(derived.rows.iter_mut()) {
                row.expected(instr, out);
            }
            // Word k pairs element 0 of row 0 with b = k and element 1 of row 1 with k ^ 0x8000.
            let [lo, hi] = &derived.rows;
            let (hi_first, hi_second) = hi.split_at(0x8000);
            let (packed_first, packed_second) = derived.packed.split_at_mut(0x8000);
            let halves = [(packed_first, &lo[..0x8000], hi_second), (packed_second, &lo[0x8000..], hi_first)];
            for (packed, lo, hi) in halves {
                for ((w, &l), &h) in packed.iter_mut().zip(lo).zip(hi) {
                    *w = u32::from(l) | u32::from(h) << 16;
                }
            }
            derived.made_for = Some(s.rows[0].a);
        }
        let want = &derived.rows;
        if instr.ty().lanes() == 1 {
            for ((row, want), a16) in s.rows.iter().zip(want.iter()).zip(&s.a16) {
                instr.eval_batch(target, &[a16, &ops.bs], &mut s.out16).unwrap();
                if s.out16 != *want {
                    for (b, (&got, &want)) in s.out16.iter().zip(want).enumerate().filter(|(_, (g, w))| g != w) {
                        failures.record(|| {
                            format!("{instr} [{:#06x}, {b:#06x}]: kernel {got:#06x}, scalar {want:#06x}", row.a)
                        });
                    }
                }
            }
        } else {
            instr.eval_batch(target, &[&s.a32, &ops.packed], &mut s.out32).unwrap();
            if s.out32 != derived.packed {
                for (k, (&got, &want)) in s.out32.iter().zip(&derived.packed).enumerate().filter(|(_, (g, w))| g != w) {
                    failures.record(|| {
                        format!(
                            "{instr} [{:#010x}, {:#010x}]: kernel {got:#010x}, scalar {want:#010x}",
                            s.a32[0], ops.packed[k]
                        )
                    });
                }
            }
        }
        for (row, want) in s.rows.iter().zip(want.iter()) {
            for b in (0..16u16).map(|top| top << 12 | row.a & 0xFFF) {
                let want = want[usize::from(b)];
                let (a, b) = (u64::from(row.a), u64::from(b));
                let got = if instr.ty().lanes() == 1 {
                    instr.eval_unchecked(target, &[a, b]) as u16
                } else {
                    // Both elements carry the pair.
                    let w = instr.eval_unchecked(target, &[a | a << 16, b | b << 16]);
                    assert_eq!(w >> 16, w & 0xFFFF, "{instr}: the elements of one pair differ");
                    w as u16
                };
                if got != want {
                    failures.record(|| format!("{instr} [{a:#06x}, {b:#06x}]: scalar {got:#06x}, derived {want:#06x}"));
                }
            }
        }
    }
}

/// The reference results of row `a` for every second operand: `wide` holds every encoding
/// widened to f32, `exact` receives the f32 results (exact or once-rounded, see the module
/// documentation) and `want` their narrowing by `half` (to nearest even), a NaN as 0x7FFF.
/// The f32 arithmetic is a plain loop compiled for the widest level the processor has (the
/// host's IEEE arithmetic gives the same bits at every level); f16's narrowing is `half`'s
/// slice conversion (F16C where the processor has it).
fn reference_row(fmt: Format, op: Op, a: u16, wide: &[f32], exact: &mut [f32], want: &mut [u16]) {
    let fa = wide[usize::from(a)];
    SimdLevel::detected().compiled_for(
        #[inline(always)]
        || match op {
            Op::Add => exact.iter_mut().zip(wide).for_each(|(e, &fb)| *e = fa + fb),
            Op::Mul => exact.iter_mut().zip(wide).for_each(|(e, &fb)| *e = fa * fb),
        },
    );
    match fmt {
        Format::F16 => want.reinterpret_cast_mut::<half::f16>().convert_from_f32_slice(exact),
        _ => want.iter_mut().zip(exact.iter()).for_each(|(w, &e)| *w = half::bf16::from_f32(e).to_bits()),
    }
    for (w, e) in want.iter_mut().zip(exact.iter()) {
        if e.is_nan() {
            *w = 0x7FFF;
        }
    }
}

fn exhaustive(fmt: Format, op: Op) {
    let _all_cores = all_cores::hold();
    let wide: Vec<f32> = (0..=0xFFFF)
        .map(|x| match fmt {
            Format::F16 => half::f16::from_bits(x).to_f32(),
            _ => half::bf16::from_bits(x).to_f32(),
        })
        .collect();
    let spellings = spellings(fmt, op);
    let with_ftz = spellings.iter().any(|i| i.modifiers().ftz);
    let label = format!("{}.{}", op.name(), fmt.name());
    let start = Instant::now();
    let reference = Failures::new();
    let kernels = Failures::new();
    let bs: Vec<u16> = (0..=0xFFFF).collect();
    let packed = bs.iter().map(|&k| u32::from(k) | u32::from(k ^ 0x8000) << 16).collect();
    let ops = Operands { bs, packed };
    let scratch = || (Scratch::new(), vec![0f32; 1 << 16], vec![0u16; 1 << 16]);
    // The scalar definitions, the references and the derivations compiled for the widest level
    // the processor has (integer operations and the host's IEEE arithmetic give the same bits
    // at every level; the kernels under test run at the active level whatever the caller).
    let level = SimdLevel::detected();
    (0u16..0x8000).into_par_iter().for_each_init(scratch, |(s, exact, want), a| {
        level.compiled_for(
            #[inline(always)]
            || {
                for (row, a) in s.rows.iter_mut().zip([a, a | 0x8000]) {
                    row.fill(fmt, op, a, with_ftz);
                }
                for row in &s.rows {
                    reference_row(fmt, op, row.a, &wide, exact, want);
                    if row.rn != *want {
                        let wrong = row.rn.iter().zip(want.iter()).enumerate().filter(|(_, (g, w))| g != w);
                        for (b, (&got, &want)) in wrong {
                            reference.record(|| {
                                format!("{label}.rn [{:#06x}, {b:#06x}]: ptxfp {got:#06x} reference {want:#06x}", row.a)
                            });
                        }
                    }
                }
                check(&spellings, s, &ops, &kernels);
            },
        )
    });
    let ((wrong, wrong_examples), (differ, differ_examples)) = (reference.into_report(), kernels.into_report());
    let kernel_count = spellings.len();
    eprintln!(
        "{label}: 4294967296 operand pairs, {wrong} scalar results wrong, {kernel_count} kernels with {differ} mismatches, {:.1?}",
        start.elapsed()
    );
    assert!(wrong == 0, "{label}.rn: {wrong} mismatches:\n{wrong_examples}");
    assert!(differ == 0, "{label}: {differ} kernel mismatches:\n{differ_examples}");
}

/// The families below cover every vectorized f16/bf16 instruction with at most two operands.
#[test]
fn every_two_operand_half_kernel_is_in_a_family() {
    for e in catalog::entries() {
        let half = matches!(e.instr.format(), Format::F16 | Format::BF16);
        // One-operand kernels are compared on every operand in their own tests (abs and neg
        // in batch_equivalence_arith.rs, cvt in batch_equivalence_cvt.rs, the table kernels in
        // batch.rs), the packed cvt from two f32 operands in batch_equivalence_cvt.rs; min and
        // max on f16/bf16 have batch_equivalence_arith.rs's 10^7-word tier only.
        let elsewhere = matches!(e.instr.opcode(), Opcode::Min | Opcode::Max | Opcode::Cvt { .. });
        if half && e.sources == 2 && !elsewhere && e.instr.is_vectorized(Target::DEFAULT) {
            assert!(
                Op::Add.covers(e.instr.opcode()) || Op::Mul.covers(e.instr.opcode()),
                "{} has a kernel but no exhaustive family here",
                e.instr
            );
        }
    }
    for fmt in [Format::F16, Format::BF16] {
        for op in [Op::Add, Op::Mul] {
            assert!(spellings(fmt, op).len() >= 4, "{} {}", op.name(), fmt.name());
        }
    }
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_add_sub_f16() {
    exhaustive(Format::F16, Op::Add);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_mul_f16() {
    exhaustive(Format::F16, Op::Mul);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_add_sub_bf16() {
    exhaustive(Format::BF16, Op::Add);
}

#[test]
#[ignore = "exhaustive tier: run with --include-ignored"]
fn exhaustive_mul_bf16() {
    exhaustive(Format::BF16, Op::Mul);
}
