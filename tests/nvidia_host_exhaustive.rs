//! Every input of the low-precision down-conversions against NVIDIA's host code
//! (tests/nvidia_host_code.rs has the rest and says what the host code is): each of the 2^32
//! inputs of every down-conversion from two f32 that PTX 9.1 has (FP8, FP6 and FP4 to
//! nearest, ue8m0 toward zero and up; input i puts i in lane a and i rotated by 16 bits in
//! lane b, so that each lane sees every f32 value), through ptxfp's batch path. With
//! `PTXFP_HOST_EXHAUSTIVE=all`, also the PTX 9.4 forms from f32 (ue5m3, FP6/FP4 `.rz`) and every
//! 2^32 word of the forms from f16x2 and bf16x2.
//!
//! The host code takes about 50 s of one core per spelling: 5.8 minutes for the nine on two AMD
//! EPYC cores (2026-12-02), 28 minutes for all 50 (2026-12-03), so this tier is not
//! part of `cargo test` or `.ci/run` (the Cargo.toml target has `test = false`): run it by name,
//! `cargo test --features internals --test nvidia_host_exhaustive`. The result of its last
//! run is in docs/semantics.md §8.7.

mod all_cores;
mod nvidia_host;

use nvidia_host::{compare_range, host_program, is_up, spellings};
use ptxfp::{Instr, Type};

/// Whether a spelling is one of PTX 9.4's (sm_107 only).
fn is_ptx_9_4(instr: &Instr) -> bool {
    instr.min_sm() >= 107 || instr.ty() == Type::Ue5m3x2
}

#[test]
fn down_conversions_on_every_input() {
    let Some(program) = host_program("down-conversions, every input") else { return };
    let _all_cores = all_cores::hold();
    let everything = std::env::var("PTXFP_HOST_EXHAUSTIVE").is_ok_and(|v| v == "all");
    let list: Vec<(Instr, usize)> = spellings(program)
        .into_iter()
        .filter(|(i, _)| !is_up(i) && (everything || (i.operand_counts() == [2] && !is_ptx_9_4(i))))
        .collect();
    assert_eq!(list.len(), if everything { 50 } else { 9 });
    let mut bad = 0;
    for (instr, bytes) in &list {
        let start = std::time::Instant::now();
        // Two host processes, one per half of the range (one per core).
        let half = 1u64 << 31;
        bad += std::thread::scope(|s| {
            let parts = [0, half].map(|first| s.spawn(move || compare_range(program, instr, *bytes, first, half)));
            parts.into_iter().map(|h| h.join().unwrap()).sum::<u64>()
        });
        eprintln!("{instr}: all 2^32 inputs, {:.1?}", start.elapsed());
    }
    assert_eq!(bad, 0, "mismatches against NVIDIA's host code (listed above)");
}
