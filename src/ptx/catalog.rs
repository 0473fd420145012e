//! Every legal spelling, generated from the rules of PTX ISA 9.7.3/9.7.4, the `cvt`
//! float-to-float forms and the SASS MUFU/RRO pages, with its operand count and the lowest
//! architecture that has it. The tests check this list against the project's copy of
//! `catalog.tsv`, spelling for spelling.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::instr::{Instr, Mode, Modifiers, MufuFn, Opcode, RroMode, Type};
use crate::ops::cvt_int::IntType;
use crate::ops::testp::Property;
use crate::round::Rounding;

/// One legal spelling with one operand count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogEntry {
    pub instr: Instr,
    pub sources: usize,
    /// Lowest `sm_XX` (as XX) that has the instruction.
    pub min_sm: u32,
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
const BOTH: [bool; 2] = [false, true];
const NO: [bool; 1] = [false];

struct Builder(Vec<CatalogEntry>);

impl Builder {
    fn push(&mut self, opcode: Opcode, mode: Mode, mods: Modifiers, ty: Type, sources: usize, min_sm: u32) {
        let instr = Instr::candidate(opcode, mode, mods, ty).resolved([(sources, min_sm)]);
        self.0.push(CatalogEntry { instr, sources, min_sm });
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
    for mode in RroMode::ALL {
        b.push(Opcode::Rro(mode), Mode::Default, Modifiers::default(), F32, 1, 50);
    }

    push_conversions(&mut b);
    push_integer_conversions(&mut b);
    whole_spellings(b.0)
}

/// Give every entry's instruction what parsing its spelling gives: every operand count of the
/// spelling with the lowest architecture of each, so that an entry's instruction is the parsed
/// one and passes the same target checks.
fn whole_spellings(mut entries: Vec<CatalogEntry>) -> Vec<CatalogEntry> {
    let key = |i: &Instr| (i.opcode, i.mode, i.mods, i.ty);
    let mut counts: HashMap<_, Vec<(usize, u32)>> = HashMap::new();
    for e in &entries {
        counts.entry(key(&e.instr)).or_default().push((e.sources, e.min_sm));
    }
    for e in &mut entries {
        let i = e.instr;
        e.instr = Instr::candidate(i.opcode, i.mode, i.mods, i.ty).resolved(counts[&key(&i)].iter().copied());
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
