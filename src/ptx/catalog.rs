//! Every legal spelling, generated from the rules of PTX ISA 9.7.3/9.7.4, the `cvt`
//! float-to-float forms and the SASS MUFU/RRO pages, with its operand count and the lowest
//! architecture that has it. The tests check this list against the project's copy of
//! `catalog.tsv`, spelling for spelling.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::instr::{Instr, Mode, Modifiers, MufuFn, Opcode, RroMode, Type};
use super::target::{Requirement, Target, Targets};
use crate::ops::cvt_int::IntType;
use crate::ops::testp::Property;
use crate::round::Rounding;

/// One legal spelling with one operand count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogEntry {
    pub instr: Instr,
    pub sources: usize,
    /// Lowest `sm_XX` (as XX) that has the instruction, in some variant ([`CatalogEntry::targets`]).
    pub min_sm: u32,
    /// Every target that has the instruction with this many sources.
    pub targets: Targets,
}

impl CatalogEntry {
    /// The lowest target that has the instruction with this many sources: the plain `sm_XX` of
    /// [`CatalogEntry::min_sm`] where it has it, else its `a` (or `f`) variant.
    pub fn lowest_target(&self) -> Target {
        self.targets.lowest().expect("a catalog entry has a target")
    }
}

/// Every legal (spelling, operand count) pair, in family order.
pub fn entries() -> &'static [CatalogEntry] {
    static ENTRIES: OnceLock<Vec<CatalogEntry>> = OnceLock::new();
    ENTRIES.get_or_init(build)
}

/// The entries of a canonical spelling (several when the operand count varies, as for
/// `min.f32`).
pub fn lookup(spelling: &str) -> Option<&'static [CatalogEntry]> {
    static INDEX: OnceLock<HashMap<String, Vec<CatalogEntry>>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut map: HashMap<String, Vec<CatalogEntry>> = HashMap::new();
        for e in entries() {
            map.entry(e.instr.to_string()).or_default().push(*e);
        }
        map
    });
    index.get(spelling).map(Vec::as_slice)
}

const ROUNDED: [Mode; 4] =
    [Mode::Round(Rounding::Rn), Mode::Round(Rounding::Rz), Mode::Round(Rounding::Rm), Mode::Round(Rounding::Rp)];
const INTEGRAL: [Mode; 4] = [
    Mode::Integral(Rounding::Rn),
    Mode::Integral(Rounding::Rz),
    Mode::Integral(Rounding::Rm),
    Mode::Integral(Rounding::Rp),
];
const OPTIONAL_ROUNDING: [Mode; 5] = [
    Mode::Default,
    Mode::Round(Rounding::Rn),
    Mode::Round(Rounding::Rz),
    Mode::Round(Rounding::Rm),
    Mode::Round(Rounding::Rp),
];
const OPTIONAL_RN: [Mode; 2] = [Mode::Default, Mode::Round(Rounding::Rn)];
const RN: Mode = Mode::Round(Rounding::Rn);
const RZ: Mode = Mode::Round(Rounding::Rz);
const RP: Mode = Mode::Round(Rounding::Rp);
const BOTH: [bool; 2] = [false, true];
const NO: [bool; 1] = [false];

struct Builder(Vec<CatalogEntry>);

impl Builder {
    /// A spelling on `sm_XX` and newer.
    /// `min_sm` is kept as PTX states it (`sm_10` for the oldest forms), below the lowest
    /// known target.
    fn push(&mut self, opcode: Opcode, mode: Mode, mods: Modifiers, ty: Type, sources: usize, min_sm: u32) {
        self.add(opcode, mode, mods, ty, sources, min_sm, Requirement::From(min_sm).targets());
    }

    /// A spelling on the given targets.
    fn push_on(&mut self, opcode: Opcode, mode: Mode, mods: Modifiers, ty: Type, sources: usize, targets: Targets) {
        self.add(opcode, mode, mods, ty, sources, targets.lowest_sm(), targets);
    }

    /// A mixed-precision spelling: `.f32` with operands of type `from` converted first.
    fn push_mixed(
        &mut self,
        opcode: Opcode,
        mode: Mode,
        mods: Modifiers,
        from: Type,
        sources: usize,
        targets: Targets,
    ) {
        let candidate = Instr::candidate(opcode, mode, mods, Type::F32).with_mixed_source(from);
        let instr = candidate.resolved([(sources, targets)]);
        self.0.push(CatalogEntry { instr, sources, min_sm: targets.lowest_sm(), targets });
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        opcode: Opcode,
        mode: Mode,
        mods: Modifiers,
        ty: Type,
        sources: usize,
        min_sm: u32,
        targets: Targets,
    ) {
        let instr = Instr::candidate(opcode, mode, mods, ty).resolved([(sources, targets)]);
        self.0.push(CatalogEntry { instr, sources, min_sm, targets });
    }

    /// `opcode{mode}{.ftz}{.sat}.ty` over the given choices.
    #[allow(clippy::too_many_arguments)]
    fn grid(
        &mut self,
        opcode: Opcode,
        modes: &[Mode],
        ftz: &[bool],
        sat: &[bool],
        types: &[Type],
        sources: usize,
        min_sm: u32,
    ) {
        for &mode in modes {
            for &ftz in ftz {
                for &sat in sat {
                    for &ty in types {
                        let mods = Modifiers { ftz, sat, ..Modifiers::default() };
                        self.push(opcode, mode, mods, ty, sources, min_sm);
                    }
                }
            }
        }
    }
}

fn build() -> Vec<CatalogEntry> {
    use Type::*;
    let mut b = Builder(Vec::new());
    for p in Property::ALL {
        b.grid(Opcode::Testp(p), &[Mode::Default], &NO, &NO, &[F32, F64], 1, 20);
    }
    b.grid(Opcode::Copysign, &[Mode::Default], &NO, &NO, &[F32, F64], 2, 20);

    for op in [Opcode::Add, Opcode::Sub, Opcode::Mul] {
        b.grid(op, &OPTIONAL_ROUNDING, &BOTH, &BOTH, &[F32], 2, 20);
        b.grid(op, &OPTIONAL_ROUNDING, &BOTH, &NO, &[F32x2], 2, 100);
        b.grid(op, &OPTIONAL_ROUNDING, &NO, &NO, &[F64], 2, 13);
        b.grid(op, &OPTIONAL_RN, &BOTH, &BOTH, &[F16, F16x2], 2, 53);
        b.grid(op, &OPTIONAL_RN, &NO, &NO, &[BF16, BF16x2], 2, 90);
    }

    for op in [Opcode::Fma, Opcode::Mad] {
        b.grid(op, &ROUNDED, &BOTH, &BOTH, &[F32], 3, 20);
        b.grid(op, &ROUNDED, &NO, &NO, &[F64], 3, 13);
    }
    b.grid(Opcode::Fma, &ROUNDED, &BOTH, &NO, &[F32x2], 3, 100);
    for ty in [F16, F16x2] {
        for ftz in BOTH {
            for (sat, relu, sm) in [(false, false, 53), (true, false, 53), (false, true, 80)] {
                let mods = Modifiers { ftz, sat, relu, ..Modifiers::default() };
                b.push(Opcode::Fma, RN, mods, ty, 3, sm);
            }
        }
    }
    for ty in [BF16, BF16x2] {
        for relu in BOTH {
            b.push(Opcode::Fma, RN, Modifiers { relu, ..Modifiers::default() }, ty, 3, 80);
        }
    }
    for ty in [F16, F16x2, BF16, BF16x2] {
        for relu in BOTH {
            b.push(Opcode::Fma, RN, Modifiers { oob: true, relu, ..Modifiers::default() }, ty, 3, 90);
        }
    }

    b.grid(Opcode::Div, &[Mode::Approx, Mode::Full], &BOTH, &NO, &[F32], 2, 10);
    b.grid(Opcode::Div, &ROUNDED, &BOTH, &NO, &[F32], 2, 20);
    b.grid(Opcode::Div, &ROUNDED, &NO, &NO, &[F64], 2, 13);

    for op in [Opcode::Abs, Opcode::Neg] {
        b.grid(op, &[Mode::Default], &BOTH, &NO, &[F32], 1, 10);
        b.grid(op, &[Mode::Default], &NO, &NO, &[F64], 1, 13);
        b.grid(op, &[Mode::Default], &BOTH, &NO, &[F16, F16x2], 1, 53);
        b.grid(op, &[Mode::Default], &NO, &NO, &[BF16, BF16x2], 1, 80);
    }

    for op in [Opcode::Min, Opcode::Max] {
        for ftz in BOTH {
            for nan in BOTH {
                for xorsign in BOTH {
                    let mods = Modifiers { ftz, nan, xorsign, abs: xorsign, ..Modifiers::default() };
                    let sm = if xorsign {
                        86
                    } else if nan {
                        80
                    } else {
                        10
                    };
                    b.push(op, Mode::Default, mods, F32, 2, sm);
                    for ty in [F16, F16x2] {
                        b.push(op, Mode::Default, mods, ty, 2, sm.max(80));
                    }
                    if !ftz {
                        for ty in [BF16, BF16x2] {
                            b.push(op, Mode::Default, mods, ty, 2, sm.max(80));
                        }
                    }
                    let three = Modifiers { xorsign: false, ..mods };
                    b.push(op, Mode::Default, three, F32, 3, 100);
                }
            }
        }
        b.push(op, Mode::Default, Modifiers::default(), F64, 2, 13);
    }

    for op in [Opcode::Rcp, Opcode::Sqrt] {
        b.grid(op, &[Mode::Approx], &BOTH, &NO, &[F32], 1, 10);
        b.grid(op, &ROUNDED, &BOTH, &NO, &[F32], 1, 20);
        b.grid(op, &ROUNDED, &NO, &NO, &[F64], 1, 13);
    }
    let ftz_only = Modifiers { ftz: true, ..Modifiers::default() };
    b.push(Opcode::Rcp, Mode::Approx, ftz_only, F64, 1, 20);
    b.grid(Opcode::Rsqrt, &[Mode::Approx], &BOTH, &NO, &[F32], 1, 10);
    b.push(Opcode::Rsqrt, Mode::Approx, Modifiers::default(), F64, 1, 13);
    b.push(Opcode::Rsqrt, Mode::Approx, ftz_only, F64, 1, 20);
    for op in [Opcode::Sin, Opcode::Cos, Opcode::Lg2, Opcode::Ex2] {
        b.grid(op, &[Mode::Approx], &BOTH, &NO, &[F32], 1, 10);
    }
    b.grid(Opcode::Tanh, &[Mode::Approx], &NO, &NO, &[F32, F16, F16x2], 1, 75);
    b.grid(Opcode::Tanh, &[Mode::Approx], &NO, &NO, &[BF16, BF16x2], 1, 90);
    b.grid(Opcode::Ex2, &[Mode::Approx], &NO, &NO, &[F16, F16x2], 1, 75);
    b.grid(Opcode::Ex2, &[Mode::Approx], &[true], &NO, &[BF16, BF16x2], 1, 90);

    for func in MufuFn::ALL {
        if func == MufuFn::Tanh {
            b.push(Opcode::Mufu(func), Mode::Default, Modifiers::default(), F32, 1, 75);
        } else {
            b.grid(Opcode::Mufu(func), &[Mode::Default], &NO, &BOTH, &[F32], 1, 50);
        }
    }
    for func in [MufuFn::Ex2, MufuFn::Tanh] {
        b.push(Opcode::Mufu(func), Mode::Default, Modifiers::default(), F16, 1, 75);
        b.push(Opcode::Mufu(func), Mode::Default, Modifiers::default(), BF16, 1, 90);
    }
    let rro = Requirement::Between(50, 62).targets();
    for mode in RroMode::ALL {
        b.push_on(Opcode::Rro(mode), Mode::Default, Modifiers::default(), F32, 1, rro);
    }

    push_mixed_precision(&mut b);
    push_conversions(&mut b);
    push_integer_conversions(&mut b);
    push_low_precision(&mut b);
    whole_spellings(b.0)
}

/// The mixed-precision arithmetic of PTX ISA §9.7.5 (PTX 8.6, sm_100 and later):
/// `add`/`sub{.rnd}{.sat}.f32.{f16,bf16} d, a, c` and `fma.rnd{.sat}.f32.{f16,bf16} d, a, b, c`,
/// without `.ftz` (data/ptxas/mixed.tsv has what ptxas accepts).
fn push_mixed_precision(b: &mut Builder) {
    let targets = Requirement::From(100).targets();
    for from in [Type::F16, Type::BF16] {
        for sat in BOTH {
            let mods = Modifiers { sat, ..Modifiers::default() };
            for op in [Opcode::Add, Opcode::Sub] {
                for mode in OPTIONAL_ROUNDING {
                    b.push_mixed(op, mode, mods, from, 2, targets);
                }
            }
            for mode in ROUNDED {
                b.push_mixed(Opcode::Fma, mode, mods, from, 3, targets);
            }
        }
    }
}

/// Give every entry's instruction what parsing its spelling gives: every operand count of the
/// spelling with the lowest architecture of each, so that an entry's instruction is the parsed
/// one and passes the same target checks.
fn whole_spellings(mut entries: Vec<CatalogEntry>) -> Vec<CatalogEntry> {
    let key = |i: &Instr| (i.opcode, i.mode, i.mods, i.ty, i.mixed);
    let mut counts: HashMap<_, Vec<(usize, Targets)>> = HashMap::new();
    for e in &entries {
        counts.entry(key(&e.instr)).or_default().push((e.sources, e.targets));
    }
    for e in &mut entries {
        let i = e.instr;
        let candidate = Instr { mixed: i.mixed, ..Instr::candidate(i.opcode, i.mode, i.mods, i.ty) };
        e.instr = candidate.resolved(counts[&key(&i)].iter().copied());
    }
    entries
}

/// `cvt` from a floating-point type to itself: no rounding modifier (a move, with `.ftz` and
/// `.sat` applied) or an integer rounding `.rni .rzi .rmi .rpi` (to an integral value); `.ftz`
/// on f32 only, `.sat` on every type but bf16. Exactly the same-format spellings the H200's
/// JIT (CUDA 13.0) accepted among every combination of rounding, `.ftz` and `.sat`
/// (data/hardware/h200-sm90/cvt/jit.tsv.xz). The lowest architectures are those of the type's
/// arithmetic and of the f16 conversions \[INF: PTX gives none for these forms\].
fn push_same_format(b: &mut Builder, ty: Type) {
    let modes = [&[Mode::Default][..], &INTEGRAL[..]].concat();
    let ftz: &[bool] = if ty == Type::F32 { &BOTH } else { &NO };
    let sat: &[bool] = if ty == Type::BF16 { &NO } else { &BOTH };
    let sm = match ty {
        Type::F32 | Type::F16 => 20,
        Type::F64 => 13,
        _ => 90,
    };
    b.grid(Opcode::Cvt { from: ty }, &modes, ftz, sat, &[ty], 1, sm);
}

/// `cvt` between the floating-point types (PTX `cvt`): a rounding modifier is required when the
/// destination cannot hold every source value and forbidden otherwise; `.ftz` only where one
/// side is f32; `.sat` for f16/f32/f64 destinations from sources other than bf16; `.relu` on the `.rn`/`.rz` f32 → f16/bf16
/// forms, which also come packed (`cvt.rn.f16x2.f32 d, a, b`).
fn push_conversions(b: &mut Builder) {
    use Type::*;
    let widens = |from: Type, to: Type| matches!((from, to), (F16 | BF16, F32 | F64) | (F32, F64));
    for to in [F16, BF16, F32, F64] {
        for from in [F16, BF16, F32, F64] {
            if to == from {
                push_same_format(b, to);
                continue;
            }
            let modes: &[Mode] = if widens(from, to) { &[Mode::Default] } else { &ROUNDED };
            let ftz: &[bool] = if to == F32 || from == F32 { &BOTH } else { &NO };
            // No `.sat` to or from bf16: ptxas (12.9, and the CUDA 13.0 driver's JIT) rejects
            // `cvt.sat.f32.bf16` and the other bf16-source forms ("Illegal modifier '.sat'").
            let sat: &[bool] = if to == BF16 || from == BF16 { &NO } else { &BOTH };
            let bf16 = to == BF16 || from == BF16;
            for &mode in modes {
                for &ftz in ftz {
                    for &sat in sat {
                        let ampere_form = to == BF16
                            && from == F32
                            && matches!(mode, Mode::Round(Rounding::Rn | Rounding::Rz))
                            && !ftz;
                        let sm = match () {
                            _ if ampere_form => 80,
                            _ if bf16 => 90,
                            _ if to == F16 || from == F16 => 20,
                            _ => 13,
                        };
                        let mods = Modifiers { ftz, sat, ..Modifiers::default() };
                        b.push(Opcode::Cvt { from }, mode, mods, to, 1, sm);
                    }
                }
            }
        }
    }
    let relu = Modifiers { relu: true, ..Modifiers::default() };
    for r in [Rounding::Rn, Rounding::Rz] {
        for to in [F16, BF16] {
            b.push(Opcode::Cvt { from: F32 }, Mode::Round(r), relu, to, 1, 80);
        }
        for to in [F16x2, BF16x2] {
            for mods in [Modifiers::default(), relu] {
                b.push(Opcode::Cvt { from: F32 }, Mode::Round(r), mods, to, 2, 80);
            }
        }
    }
}

/// `cvt` between an integer type (`u8` … `s64`) and a floating-point type, both directions: an
/// integer rounding `.rni .rzi .rmi .rpi` is required to an integer, a rounding `.rn .rz .rm
/// .rp` from one; `.ftz` exactly where the float side is f32; `.sat` where it is not bf16. These
/// are exactly the integer spellings the H200's JIT (CUDA 13.0) accepted among every
/// combination of rounding, `.ftz` and `.sat` (data/hardware/h200-sm90/cvt/jit.tsv.xz, and
/// jit_bf16_int8.tsv.xz for bf16 ↔ u8/s8, which take the integer in an 8-bit register). The
/// lowest architectures are those of the float side's other conversions (f32 10, f64 13, f16
/// 20, bf16 90) \[INF: the PTX excerpts here give none for these forms\].
fn push_integer_conversions(b: &mut Builder) {
    use Type::*;
    for int in IntType::ALL.map(Type::Int) {
        for float in [F16, BF16, F32, F64] {
            let ftz: &[bool] = if float == F32 { &BOTH } else { &NO };
            let sat: &[bool] = if float == BF16 { &NO } else { &BOTH };
            let sm = match float {
                F32 => 10,
                F64 => 13,
                F16 => 20,
                _ => 90,
            };
            b.grid(Opcode::Cvt { from: float }, &INTEGRAL, ftz, sat, &[int], 1, sm);
            b.grid(Opcode::Cvt { from: int }, &ROUNDED, ftz, sat, &[float], 1, sm);
        }
    }
}

/// The low-precision conversions (PTX ISA §9.7.9.21; docs/semantics.md §8.4–§8.5):
/// exactly the spellings NVIDIA's ptxas 13.5 accepts on some target, on exactly the targets it
/// accepts them on (data/ptxas/cvt_lowprec.tsv, checked by tests/catalog_lowprec.rs), but for
/// the PTX 9.4 `.pzo` and `.scaled::n1::ue8m0` forms, whose rules no source states (the parser
/// names them and says so).
fn push_low_precision(b: &mut Builder) {
    use Type::*;
    let from = |sm| Requirement::From(sm).targets();
    let family = |list: &[u32]| Requirement::Family(list.to_vec()).targets();
    let arch = |list: &[u32]| Requirement::Arch(list.to_vec()).targets();
    // The family-specific forms of sm_100 (PTX 8.6–9.2), those of PTX 9.4 (sm_107), the
    // stochastic roundings (sm_100a, sm_103a, sm_107a) and the s2f6 forms (`a` targets only).
    let blackwell = family(&[100, 110, 120]);
    let ptx94 = family(&[107]);
    let stochastic = arch(&[100, 103, 107]);
    let s2f6 = arch(&[100, 103, 107, 110, 120, 121]);
    let m = |relu, satfinite, scaled| Modifiers { relu, satfinite, scaled, ..Modifiers::default() };
    // The operands of a destination from f32: two for a pair, one otherwise.
    let from_f32 = |to: Type| if to.lanes() == 2 { 2 } else { 1 };
    let cvt = |from| Opcode::Cvt { from };

    // f16, bf16 and their pairs from f32, `.satfinite` (PTX 8.1), and `.rs` pairs (8.7).
    for to in [F16, BF16, F16x2, BF16x2] {
        for mode in [RN, RZ] {
            for relu in BOTH {
                let sm = if to == F16 && !relu { 70 } else { 80 };
                b.push_on(cvt(F32), mode, m(relu, true, false), to, from_f32(to), from(sm));
            }
        }
    }
    for to in [F16x2, BF16x2] {
        for relu in BOTH {
            for satfinite in BOTH {
                b.push_on(cvt(F32), Mode::Stochastic, m(relu, satfinite, false), to, 3, stochastic);
            }
        }
    }
    // tf32 from f32: `.rna` (sm_80), `.rn`/`.rz` (sm_90, `.satfinite` sm_100).
    for satfinite in BOTH {
        b.push_on(cvt(F32), Mode::TiesAway, m(false, satfinite, false), Tf32, 1, from(80));
        for mode in [RN, RZ] {
            for relu in BOTH {
                let targets = from(if satfinite { 100 } else { 90 });
                b.push_on(cvt(F32), mode, m(relu, satfinite, false), Tf32, 1, targets);
            }
        }
    }
    // FP8, FP6 and FP4 pairs from two f32, from f16x2 and from bf16x2: `.rn.satfinite`, and
    // `.rz.satfinite` from PTX 9.4.
    for to in [E4m3x2, E5m2x2, E2m3x2, E3m2x2, E2m1x2] {
        let fp8 = matches!(to, E4m3x2 | E5m2x2);
        for src in [F32, F16x2, BF16x2] {
            let sources = if src == F32 { 2 } else { 1 };
            let rn = match (fp8, src) {
                (true, F32 | F16x2) => from(89),
                _ => blackwell,
            };
            for relu in BOTH {
                b.push_on(cvt(src), RN, m(relu, true, false), to, sources, rn);
                b.push_on(cvt(src), RZ, m(relu, true, false), to, sources, ptx94);
            }
        }
    }
    // ue8m0 pairs from two f32 and from bf16x2: `.rz`/`.rp`, `.satfinite` optional.
    for src in [F32, BF16x2] {
        for mode in [RZ, RP] {
            for satfinite in BOTH {
                b.push_on(
                    cvt(src),
                    mode,
                    m(false, satfinite, false),
                    Ue8m0x2,
                    if src == F32 { 2 } else { 1 },
                    blackwell,
                );
            }
        }
    }
    // ue5m3 pairs (PTX 9.4): `.rn`/`.rz`/`.rp`, `.satfinite` optional.
    for src in [F32, F16x2, BF16x2] {
        for mode in [RN, RZ, RP] {
            for satfinite in BOTH {
                b.push_on(cvt(src), mode, m(false, satfinite, false), Ue5m3x2, if src == F32 { 2 } else { 1 }, ptx94);
            }
        }
    }
    // s2f6 pairs from two f32 and from bf16x2, optionally scaled (the scales a last operand):
    // `.rn.satfinite`, and `.rz.satfinite` on sm_107a.
    for src in [F32, BF16x2] {
        for relu in BOTH {
            for scaled in BOTH {
                let sources = if src == F32 { 2 } else { 1 } + usize::from(scaled);
                b.push_on(cvt(src), RN, m(relu, true, scaled), S2f6x2, sources, s2f6);
                b.push_on(cvt(src), RZ, m(relu, true, scaled), S2f6x2, sources, arch(&[107]));
            }
        }
    }
    // Four elements from four f32, stochastically rounded: `d, {a, b, e, f}, rbits`.
    for to in [E4m3x4, E5m2x4, E2m3x4, E3m2x4, E2m1x4] {
        for relu in BOTH {
            b.push_on(cvt(F32), Mode::Stochastic, m(relu, true, false), to, 5, stochastic);
        }
    }
    // Up to f16x2: from FP8 (sm_89), FP6 and FP4 (sm_100 family), ue5m3 (PTX 9.4, no `.relu`).
    for src in [E4m3x2, E5m2x2, E2m3x2, E3m2x2, E2m1x2] {
        let targets = if matches!(src, E4m3x2 | E5m2x2) { from(89) } else { blackwell };
        for relu in BOTH {
            b.push_on(cvt(src), RN, m(relu, false, false), F16x2, 1, targets);
        }
    }
    b.push_on(cvt(Ue5m3x2), RN, Modifiers::default(), F16x2, 1, ptx94);
    // Up to bf16x2 (PTX 9.2), `.relu`, `.satfinite` and `.scaled::n2::ue8m0` optional; from
    // ue8m0 plain; from ue5m3 without `.relu`; from s2f6 on the `a` targets.
    for src in [E4m3x2, E5m2x2, E2m3x2, E3m2x2, E2m1x2, S2f6x2, Ue5m3x2] {
        let targets = match src {
            S2f6x2 => s2f6,
            Ue5m3x2 => ptx94,
            _ => blackwell,
        };
        let relus: &[bool] = if src == Ue5m3x2 { &NO } else { &BOTH };
        for &relu in relus {
            for satfinite in BOTH {
                for scaled in BOTH {
                    b.push_on(cvt(src), RN, m(relu, satfinite, scaled), BF16x2, 1 + usize::from(scaled), targets);
                }
            }
        }
    }
    b.push_on(cvt(Ue8m0x2), RN, Modifiers::default(), BF16x2, 1, blackwell);
}
