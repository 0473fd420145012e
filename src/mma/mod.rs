//! The tensor cores: `mma.sync`, `wmma.mma`, `wgmma.mma_async` and `tcgen05.mma`
//! (docs/tensorcore.md).
//!
//! PTX leaves their arithmetic unspecified ("the accumulation order, rounding and handling of
//! subnormal inputs are unspecified"); ptxfp evaluates the published hardware-validated model of
//! each generation, computed exactly on integers: [`fdpa`] holds the fused dot product,
//! [`table`] its parameters per architecture with their evidence; [`dmma`] the f64 tensor core
//! (a chain of `fma.f64`, as PTX specifies it) and [`int`] the integer ones; [`spelling`] parses and
//! checks the instructions' spellings, [`tile`] evaluates one tile of an instruction on a target,
//! [`gemm`] a whole matrix product as a kernel's main loop chains the tiles (`lanes`: its SIMD
//! evaluation of the fused dot product).

pub mod dmma;
pub mod fdpa;
pub mod gemm;
pub mod int;
mod lanes;
pub mod spelling;
pub mod table;
pub mod tile;
pub mod types;

pub use dmma::dmma_dot;
pub use fdpa::{BlockScales, Fdpa, Rho};
pub use gemm::{Dims, Gemm, GemmError, Matrices};
pub use int::{int_dot, popc_dot, BitOp, IntMmaType};
pub use spelling::{forms, Family, Form, MmaInstr, MmaParseError, MmaTargetError, Operation, Shape};
pub use table::{Generation, InputKind, OutType, Row, Unit};
pub use tile::{Mma, Tile, TileError};
pub use types::MmaType;
