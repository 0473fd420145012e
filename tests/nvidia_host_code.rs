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
//! - default tier: every source of the up-conversions (2^16 words, 2^8 for e2m1x2), and 2^20
//!   edge-biased inputs of each down-conversion;
//!
//! host_cvt.cpp also enumerates every input of a down-conversion (2^32; from two f32, input i
//! puts i in lane a and i rotated by 16 bits in lane b, so that each lane sees every f32
//! value), for an exhaustive tier that needs the low-precision SIMD kernels to fit in CI's
//! time: through the scalar definition of a test build one spelling takes more than five
//! minutes.

mod all_cores;
mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use common::Rng;
use ptxfp::{Instr, Target};

/// The wheels, as ../shared/LOWPREC.md §2.1 names them (cccl has no 13.5 release; its newest
/// 13.3 provides `nv/target`).
const WHEELS: [&str; 3] = ["nvidia-cuda-runtime==13.5.37", "nvidia-cuda-crt==13.5.37", "nvidia-cuda-cccl==13.3.5.0.6"];

/// Environment variables under which a missing oracle fails instead of being reported.
const REQUIRE: [&str; 2] = ["CI", "PTXFP_REQUIRE_DATA"];

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Download, unpack and compile, once per test process (the program is kept between runs).
fn build() -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvidia-host");
    let program = dir.join("host_cvt");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvidia_host/host_cvt.cpp");
    let fresh = |p: &Path| {
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        matches!((modified(p), modified(&source)), (Some(a), Some(b)) if a >= b)
    };
    if fresh(&program) {
        return Ok(program);
    }
    let include = dir.join("unpacked/nvidia/cu13/include");
    if !include.join("cuda_fp8.hpp").is_file() || !include.join("cccl/nv/target").is_file() {
        let wheels = dir.join("wheels");
        std::fs::create_dir_all(&wheels).map_err(|e| format!("{}: {e}", wheels.display()))?;
        run(Command::new("python3")
            .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d"])
            .arg(&wheels)
            .args(WHEELS))?;
        for wheel in std::fs::read_dir(&wheels).map_err(|e| e.to_string())? {
            let wheel = wheel.map_err(|e| e.to_string())?.path();
            run(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(&wheel).arg(dir.join("unpacked")))?;
        }
    }
    // Built under a temporary name and renamed: a half-written program is never used.
    let partial = dir.join("host_cvt.partial");
    run(Command::new("c++")
        .args(["-std=c++17", "-O2", "-o"])
        .arg(&partial)
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(include.join("cccl"))
        .arg(&source))?;
    std::fs::rename(&partial, &program).map_err(|e| e.to_string())?;
    Ok(program)
}

/// The compiled host program, or `None` (reported) where it cannot be made.
fn host_program(test: &str) -> Option<&'static Path> {
    static PROGRAM: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match PROGRAM.get_or_init(build) {
        Ok(p) => Some(p),
        Err(why) => {
            let message = format!("nvidia host code, {test}: NOT RUN: {why}");
            if let Some(var) = REQUIRE.iter().find(|v| std::env::var_os(v).is_some()) {
                panic!("{message} (required because {var} is set)");
            }
            let _ = writeln!(std::io::stderr(), "{message} (set PTXFP_REQUIRE_DATA=1 to fail instead)");
            None
        }
    }
}

/// Every spelling of the host program, parsed, with its destination's width in bytes.
fn spellings(program: &Path) -> Vec<(Instr, usize)> {
    let out = Command::new(program).arg("--list").output().expect("run host_cvt --list");
    assert!(out.status.success());
    let list: Vec<(Instr, usize)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (spelling, bytes) = l.split_once(' ').unwrap();
            let instr: Instr = spelling.parse().unwrap_or_else(|e| panic!("{spelling}: {e}"));
            assert_eq!(instr.to_string(), spelling, "host_cvt names canonical spellings");
            assert_eq!(instr.result_bits() as usize, 8 * bytes.parse::<usize>().unwrap(), "{spelling}");
            (instr, bytes.parse().unwrap())
        })
        .collect();
    assert_eq!(list.len(), 63, "the spellings of host_cvt.cpp");
    list
}

fn is_up(instr: &Instr) -> bool {
    instr.source_type(0).narrow().is_some()
}

/// The operands of input `i`, as host_cvt.cpp defines them.
fn operands(instr: &Instr, i: u32) -> Vec<u64> {
    if instr.operand_counts() == [2] {
        vec![u64::from(i), u64::from(i.rotate_left(16))]
    } else {
        vec![u64::from(i)]
    }
}

/// ptxfp's results on `inputs` against the host program's, on the lowest target that has the
/// spelling; the mismatches (at most ten shown) fail the test.
fn compare(program: &Path, instr: &Instr, bytes: usize, inputs: &[u32]) -> u64 {
    let target: Target = instr.targets().lowest().unwrap();
    let mut child = Command::new(program)
        .args([instr.to_string().as_str(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start host_cvt");
    let mut stdin = child.stdin.take().unwrap();
    let words: Vec<u8> = inputs.iter().flat_map(|i| i.to_le_bytes()).collect();
    let writer = std::thread::spawn(move || stdin.write_all(&words).expect("feed host_cvt"));
    let mut host = Vec::with_capacity(inputs.len() * bytes);
    child.stdout.take().unwrap().read_to_end(&mut host).expect("read host_cvt");
    writer.join().unwrap();
    assert!(child.wait().unwrap().success(), "host_cvt {instr}");
    assert_eq!(host.len(), inputs.len() * bytes, "{instr}: host_cvt's output");
    let mut bad = 0u64;
    for (k, &i) in inputs.iter().enumerate() {
        let mut w = [0u8; 4];
        w[..bytes].copy_from_slice(&host[k * bytes..(k + 1) * bytes]);
        let want = u64::from(u32::from_le_bytes(w));
        let ops = operands(instr, i);
        let got = instr.eval_on(target, &ops).unwrap_or_else(|e| panic!("{instr} {ops:x?}: {e}"));
        if got != want {
            bad += 1;
            if bad <= 10 {
                eprintln!("{instr} on {target} {ops:#x?}: ptxfp {got:#x}, NVIDIA host code {want:#x}");
            }
        }
    }
    bad
}

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
