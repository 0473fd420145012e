//! NVIDIA's host code for the low-precision conversions, built at test time, and the
//! comparisons of ptxfp with it, shared by tests/nvidia_host_code.rs (the default tiers) and
//! tests/nvidia_host_exhaustive.rs (every input, run on request).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use ptxfp::{Instr, Target};

/// The wheels ../shared/LOWPREC.md names in its section 2.1 (cccl has no 13.5 release; its newest
/// 13.3 provides `nv/target`).
pub const WHEELS: [&str; 3] =
    ["nvidia-cuda-runtime==13.5.37", "nvidia-cuda-crt==13.5.37", "nvidia-cuda-cccl==13.3.5.0.6"];

/// Environment variables under which a missing oracle fails instead of being reported.
pub const REQUIRE: [&str; 2] = ["CI", "PTXFP_REQUIRE_DATA"];

pub fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Download, unpack and compile, once per test process (the program is kept between runs).
pub fn build() -> Result<PathBuf, String> {
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
pub fn host_program(test: &str) -> Option<&'static Path> {
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
pub fn spellings(program: &Path) -> Vec<(Instr, usize)> {
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

pub fn is_up(instr: &Instr) -> bool {
    instr.source_type(0).narrow().is_some()
}

/// The operands of input `i`, as host_cvt.cpp defines them.
pub fn operands(instr: &Instr, i: u32) -> Vec<u64> {
    if instr.operand_counts() == [2] {
        vec![u64::from(i), u64::from(i.rotate_left(16))]
    } else {
        vec![u64::from(i)]
    }
}

/// ptxfp's results on `inputs` against the host program's, on the lowest target that has the
/// spelling; the mismatches (at most ten shown) fail the test.
pub fn compare(program: &Path, instr: &Instr, bytes: usize, inputs: &[u32]) -> u64 {
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

/// Inputs `start .. start + count` of `instr` through ptxfp's batch path against the host
/// program's range mode, in blocks: a reader thread takes the host's output as it comes, so
/// that the host program never waits on the pipe, and a block is compared byte for byte,
/// element by element only where it differs.
pub fn compare_range(program: &Path, instr: &Instr, bytes: usize, start: u64, count: u64) -> u64 {
    const BLOCK: u64 = 1 << 22;
    let target: Target = instr.targets().lowest().unwrap();
    let mut child = Command::new(program)
        .args([instr.to_string(), start.to_string(), count.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start host_cvt");
    let mut host_out = child.stdout.take().unwrap();
    let (send, blocks) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
    let reader = std::thread::spawn(move || {
        let mut done = 0;
        while done < count {
            let n = BLOCK.min(count - done);
            let mut block = vec![0u8; n as usize * bytes];
            host_out.read_exact(&mut block).expect("read host_cvt");
            if send.send(block).is_err() {
                return;
            }
            done += n;
        }
    });
    let pair = instr.operand_counts() == [2];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut ours = vec![0u8; BLOCK as usize * bytes];
    let mut bad = 0u64;
    let mut done = 0;
    while done < count {
        let n = BLOCK.min(count - done);
        let first = (start + done) as u32;
        a.clear();
        a.extend((0..n as u32).map(|k| first.wrapping_add(k)));
        b.clear();
        b.extend(a.iter().map(|i| i.rotate_left(16)));
        let sources: Vec<&[u32]> = if pair { vec![&a, &b] } else { vec![&a] };
        let ours = &mut ours[..n as usize * bytes];
        match bytes {
            1 => instr.eval_batch::<u32, u8>(target, &sources, ours).unwrap(),
            2 => instr.eval_batch::<u32, u16>(target, &sources, bytemuck::cast_slice_mut(ours)).unwrap(),
            _ => instr.eval_batch::<u32, u32>(target, &sources, bytemuck::cast_slice_mut(ours)).unwrap(),
        }
        let host = blocks.recv().expect("host_cvt's output");
        if host != *ours {
            for (k, (got, want)) in ours.chunks(bytes).zip(host.chunks(bytes)).enumerate() {
                if got != want {
                    bad += 1;
                    if bad <= 10 {
                        let i = start + done + k as u64;
                        eprintln!(
                            "{instr} input {i:#x}: ptxfp {got:02x?}, NVIDIA host code {want:02x?} (little-endian)"
                        );
                    }
                }
            }
        }
        done += n;
    }
    reader.join().unwrap();
    assert!(child.wait().unwrap().success(), "host_cvt {instr}");
    bad
}
