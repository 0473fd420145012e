//! The tensor cores: `mma.sync`, `wmma.mma`, `wgmma.mma_async` and `tcgen05.mma`
//! (docs/tensorcore.md).
//!
//! PTX leaves their arithmetic unspecified ("the accumulation order, rounding and handling of
//! subnormal inputs are unspecified"); ptxfp evaluates the published hardware-validated model of
//! each generation, computed exactly on integers: [`fdpa`] holds the fused dot product,
//! [`table`] its parameters per architecture with their evidence.

pub mod fdpa;
pub mod table;
pub mod types;

pub use fdpa::{BlockScales, Fdpa, Rho};
pub use table::{Generation, InputKind, OutType, Row, Unit};
pub use types::MmaType;
