//! The low-precision conversions against NVIDIA's own host code: the `__host__` paths of
//! `cuda_fp8.hpp`, `cuda_fp6.hpp` and `cuda_fp4.hpp` (PyPI wheel `nvidia-cuda-runtime` 13.5.37,
//! with `nvidia-cuda-crt` and `nvidia-cuda-cccl` for their includes), which emulate the PTX
//! instructions bit for bit. Their licence forbids redistribution, so the wheels are
//! downloaded at test time into Cargo's scratch directory and compiled there with `c++`
//! against tests/nvidia_host/host_cvt.cpp; nothing of them is committed. Where the download or
//! the compiler is missing every test here writes `NOT RUN` with the reason, and fails under
//! `CI` or `PTXFP_REQUIRE_DATA`.
//!
//! Every spelling the host code has (`host_cvt --list`: FP8, FP6, FP4, ue8m0 and ue5m3, both
//! ways, without `.relu`, which the host code lacks) is compared:
//! - every source of the up-conversions (2^16 words, 2^8 for e2m1x2);
//! - 2^20 edge-biased inputs of each down-conversion;
//! - from f16x2 and bf16x2: every 16-bit value in each element, the other element
//!   edge-biased (both implementations convert the two elements independently, so this is
//!   every input of each element).
//!
//! Every one of the 2^32 inputs of the down-conversions is tests/nvidia_host_exhaustive.rs's,
//! which `cargo test` runs only when asked for by name (about six minutes on two cores).

mod all_cores;
mod common;
mod nvidia_host;

use common::Rng;
use nvidia_host::{compare, host_program, is_up, spellings};
use ptxfp::Instr;

/// Edge-biased inputs of a down-conversion: values near the destination's rounding
/// boundaries in the upper lane (tests/common `cvt_operand`, whose values lie in f32), mixed
/// with uniform words; an f16x2/bf16x2 word draws both halves from edges.
fn edge_inputs(instr: &Instr, n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    let packed = instr.operand_counts() == [1];
    let edges: [u32; 12] = [0, 0x8000, 1, 0x8001, 0x3C00, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7F80, 0xFF80, 0x7FC1];
    (0..n)
        .map(|k| {
            let r = rng.next();
            match (packed, k % 4) {
                (_, 0) => r as u32,
                (true, 1) => edges[(r % 12) as usize] << 16 | edges[(r >> 8) as usize % 12],
                (true, _) => (r as u32 & 0x87FF_87FF) | 0x3000_3000,
                (false, 1) => {
                    [0u32, 0x8000_0000, 1, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0001, 0x7F7F_FFFF][(r % 7) as usize]
                }
                // Moderate exponents, where every narrow format's range lies (2^-24 .. 2^+24).
                (false, _) => (r as u32 & 0x81FF_FFFF) | ((0x67 + (r >> 40) as u32 % 49) << 23),
            }
        })
        .collect()
}

#[test]
fn every_source_of_the_up_conversions() {
    let Some(program) = host_program("up-conversions") else { return };
    let mut bad = 0;
    let mut checked = 0;
    for (instr, bytes) in spellings(program).into_iter().filter(|(i, _)| is_up(i)) {
        let bits = instr.source_bits();
        // FP6 bytes with bits 7:6 set are refused (their result is undefined).
        let all: Vec<u32> =
            (0..1u32 << bits).filter(|&w| u64::from(w) & !instr.source_type(0).code_bits() == 0).collect();
        bad += compare(program, &instr, bytes, &all);
        checked += 1;
    }
    assert_eq!(checked, 13);
    assert_eq!(bad, 0, "mismatches against NVIDIA's host code (listed above)");
}

#[test]
fn down_conversions_on_edge_biased_inputs() {
    let Some(program) = host_program("down-conversions, edge-biased") else { return };
    let _all_cores = all_cores::hold();
    let list: Vec<(Instr, usize)> = spellings(program).into_iter().filter(|(i, _)| !is_up(i)).collect();
    assert_eq!(list.len(), 50);
    let bad: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = list
            .chunks(list.len().div_ceil(2))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(k, (instr, bytes))| {
                            compare(program, instr, *bytes, &edge_inputs(instr, 1 << 20, k as u64))
                        })
                        .sum::<u64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(bad, 0, "mismatches against NVIDIA's host code (listed above)");
}

/// Every f16/bf16 value in each element of the down-conversions from f16x2 and bf16x2, the
/// other element edge-biased.
#[test]
fn down_conversions_from_f16x2_and_bf16x2_every_element_value() {
    let Some(program) = host_program("down-conversions from f16x2/bf16x2, every element value") else { return };
    let list: Vec<(Instr, usize)> =
        spellings(program).into_iter().filter(|(i, _)| !is_up(i) && i.operand_counts() == [1]).collect();
    assert_eq!(list.len(), 32);
    let mut rng = Rng::new(7);
    let edges = edge_inputs(&list[0].0, 1 << 16, 3);
    let inputs: Vec<u32> = (0..1u32 << 16)
        .flat_map(|v| {
            let other = edges[rng.below(1 << 16) as usize] & 0xFFFF;
            [v | other << 16, other | v << 16]
        })
        .collect();
    let bad: u64 = list.iter().map(|(instr, bytes)| compare(program, instr, *bytes, &inputs)).sum();
    assert_eq!(bad, 0, "mismatches against NVIDIA's host code (listed above)");
}
