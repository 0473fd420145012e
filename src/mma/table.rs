//! The parameters of the tensor cores' dot product per architecture, unit and input kind
//! (docs/tensorcore.md): one row per datapath, each with its source and evidence.
//!
//! Source of every parameter: MMA-Sim 2.1.1 (PyPI `mmasim`, `mmasim/nv_ptx/sim.py`, Xie et al.,
//! arXiv 2511.10909): the block length L is 16 bytes of operands up to sm_89 and 32 bytes from
//! sm_90 (8 bytes on sm_70), in products; F = 23, 24, 24, 24, 25 from Volta to Blackwell, 13 for
//! the FP8 paths of Ada and Hopper `wgmma`. Khattak & Mikaitis (arXiv 2512.07004) give the same
//! values. e_zero, the alignment exponent of a zero term, is MMA-Sim's; for f16 output no public
//! hardware data decides it \[UNK\].

use crate::mma::fdpa::{Fdpa, Rho};
use crate::ptx::Evidence;

/// A generation of tensor cores, from the architecture number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// sm_70, sm_72.
    Volta,
    /// sm_75.
    Turing,
    /// sm_80, sm_86, sm_87, sm_88.
    Ampere,
    /// sm_89.
    Ada,
    /// sm_90.
    Hopper,
    /// sm_100, sm_101, sm_103, sm_107, sm_110.
    Blackwell,
    /// sm_120, sm_121.
    RtxBlackwell,
}

impl Generation {
    /// The generation of an architecture with tensor cores (none before sm_70).
    pub const fn of(sm: u32) -> Option<Generation> {
        Some(match sm {
            70 | 72 => Generation::Volta,
            75 => Generation::Turing,
            80..=88 => Generation::Ampere,
            89 => Generation::Ada,
            90 => Generation::Hopper,
            100..=119 => Generation::Blackwell,
            120..=129 => Generation::RtxBlackwell,
            _ => return None,
        })
    }

    pub const fn name(self) -> &'static str {
        match self {
            Generation::Volta => "Volta",
            Generation::Turing => "Turing",
            Generation::Ampere => "Ampere",
            Generation::Ada => "Ada",
            Generation::Hopper => "Hopper",
            Generation::Blackwell => "Blackwell",
            Generation::RtxBlackwell => "RTX Blackwell",
        }
    }
}

/// The instruction family, where a generation's datapaths differ by it (Hopper `wgmma` against
/// `mma.sync` for FP8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// `mma.sync` and the `wmma.mma` it lowers to.
    Mma,
    /// `wgmma.mma_async` (sm_90a).
    Wgmma,
    /// `tcgen05.mma` (sm_100a on).
    Tcgen05,
}

/// The kind of floating-point inputs, as the datapath sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    Tf32,
    /// f16 or bf16.
    Half,
    /// e4m3, e5m2 and the FP6/FP4 types of `kind::f8f6f4`.
    Fp8,
    /// `kind::mxf8f6f4`, block-scaled by ue8m0 (ST-FDPA).
    Mxf8f6f4,
    /// `kind::mxf4` and `kind::mxf4nvf4` (GST-FDPA).
    Mxf4,
}

/// The output type of a floating-point `mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutType {
    F32,
    F16,
}

/// One parameter row.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub fdpa: Fdpa,
    /// What stands behind the row's bits: hardware-verified where public hardware data
    /// (docs/tensorcore.md) covers it, model where only the published models do, no-model-fits
    /// where public hardware data exists and the row (the nearest published model) misses it.
    pub evidence: Evidence,
    /// The source of the row, and its open question where there is one.
    pub source: &'static str,
}

const fn fdpa(block: u32, frac: u32, rho: Rho, e_zero: i32) -> Fdpa {
    Fdpa { block, frac, rho, e_zero, group: 0 }
}

const MMASIM: &str = "MMA-Sim 2.1.1";
const MMASIM_HW: &str = "MMA-Sim 2.1.1; reproduces the public hardware data (Khattak & Mikaitis)";

/// The row of a dot product: `None` where the generation has no such datapath (FP8 before
/// sm_89, block scaling before sm_100, `wgmma` off Hopper, `tcgen05` off sm_100–sm_110).
pub fn row(generation: Generation, unit: Unit, kind: InputKind, out: OutType) -> Option<Row> {
    use Evidence::{HardwareVerified as Hw, Model, NoModelFits as NoFit};
    use Generation::*;
    use InputKind::*;
    use OutType::F16 as O16;
    use OutType::F32 as O32;
    let unit_ok = match unit {
        Unit::Mma => true,
        Unit::Wgmma => generation == Hopper,
        Unit::Tcgen05 => generation == Blackwell,
    };
    if !unit_ok || (out == O16 && matches!(kind, Tf32 | Mxf8f6f4 | Mxf4)) {
        return None;
    }
    let (rz, rne) = (Rho::RzF32, Rho::RneF16);
    let pick = |f32_row: Fdpa, f16_row: Fdpa| if out == O32 { f32_row } else { f16_row };
    let r = |fdpa, evidence, source| Some(Row { fdpa, evidence, source });
    match (generation, kind) {
        (Volta, Half) => r(pick(fdpa(4, 23, rz, -131), fdpa(4, 23, rne, -19)), Hw, MMASIM_HW),
        (Turing, Half) => r(pick(fdpa(8, 24, rz, -132), fdpa(8, 24, rne, -20)), Model, MMASIM),
        (Ampere | Ada, Tf32) => r(fdpa(4, 24, rz, -132), Hw, MMASIM_HW),
        (Ampere | Ada, Half) => r(pick(fdpa(8, 24, rz, -132), fdpa(8, 24, rne, -20)), Hw, MMASIM_HW),
        (Ada, Fp8) => r(
            pick(fdpa(16, 13, Rho::RzE8m13, -132), fdpa(16, 13, rne, -20)),
            if out == O32 { Hw } else { Model },
            if out == O32 { MMASIM_HW } else { MMASIM },
        ),
        (Hopper | Blackwell | RtxBlackwell, Tf32) => r(fdpa(8, 25, rz, -133), Hw, MMASIM_HW),
        (Hopper | Blackwell | RtxBlackwell, Half) => {
            r(pick(fdpa(16, 25, rz, -133), fdpa(16, 25, rne, -21)), Hw, MMASIM_HW)
        }
        (Hopper, Fp8) if unit == Unit::Wgmma => r(
            pick(fdpa(32, 13, Rho::RzE8m13, -133), fdpa(32, 13, rne, -21)),
            if out == O32 { Hw } else { NoFit },
            if out == O32 {
                "MMA-Sim 2.1.1; reproduces the public H100 FP8 data (taken with C = 0, by the data's authors' account from wgmma)"
            } else {
                "MMA-Sim 2.1.1; the public H100 FP8 -> f16 data fits no known model (docs/tensorcore.md)"
            },
        ),
        (Hopper, Fp8) => r(
            pick(fdpa(32, 25, rz, -133), fdpa(32, 25, rne, -21)),
            Model,
            "MMA-Sim 2.1.1; no hardware data for mma.sync FP8 on sm_90 [UNK]",
        ),
        (Blackwell | RtxBlackwell, Fp8) => r(
            pick(fdpa(32, 25, rz, -133), fdpa(32, 25, rne, -21)),
            if generation == Blackwell && unit == Unit::Mma && out == O32 { NoFit } else { Model },
            if unit == Unit::Mma {
                "MMA-Sim 2.1.1 (its row of tcgen05); the public B200 mma.sync FP8 -> f32 data fits no known model (docs/tensorcore.md)"
            } else {
                MMASIM
            },
        ),
        (Blackwell | RtxBlackwell, Mxf8f6f4) => r(fdpa(32, 25, rz, -133), Model, MMASIM),
        (Blackwell | RtxBlackwell, Mxf4) => {
            r(Fdpa { block: 64, frac: 35, rho: rz, e_zero: -139, group: 16 }, Model, MMASIM)
        }
        _ => None,
    }
}
