//! The C library from C and C++: tests/c/api_test.c, compiled as C99 (`-Wall -Wextra -Werror
//! -pedantic`), as C++17, against the static library, and once with AddressSanitizer and
//! UndefinedBehaviorSanitizer, and once with `-ffast-math` under a changed floating-point
//! environment, checks every catalog spelling on edge operands against the results this file
//! computes with the Rust library, and every error path. The C++ warp
//! executor example runs too, and the shared library exports nothing but `ptxfp_*`.
//!
//! The compilers are `cc` and `c++` (override with CC / CXX); .ci/run installs them from Debian
//! where the machine lacks them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use ptxfp_core::ptx::catalog;
use ptxfp_core::{Instr, Target};

/// The directory cargo built libptxfp.so and libptxfp.a into for this test run.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory");
    let profile_dir = deps.parent().expect("profile directory");
    // `cargo test` leaves them in deps/; an older `cargo build` may have left others above.
    for dir in [deps, profile_dir] {
        if dir.join("libptxfp.so").exists() && dir.join("libptxfp.a").exists() {
            return dir.to_path_buf();
        }
    }
    panic!("libptxfp.so and libptxfp.a not found beside {}", exe.display());
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

fn compiler(variable: &str, default: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| default.to_string())
}

/// Compile `sources` with `compiler` and `flags` into `exe`, linked against the library.
fn build(compiler: &str, flags: &[&str], sources: &[PathBuf], exe: &Path, link: &[String]) {
    let include = crate_dir().join("include");
    let status = Command::new(compiler)
        .args(flags)
        .arg("-I")
        .arg(&include)
        .args(sources)
        // The libraries after the sources are not C++ whatever `-x` said before.
        .args(["-x", "none"])
        .arg("-o")
        .arg(exe)
        .args(link)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the compiler '{compiler}': {e}"));
    assert!(status.success(), "{compiler} {flags:?} {sources:?} failed");
}

fn shared_link() -> Vec<String> {
    let dir = library_dir();
    // DT_RPATH, which LD_LIBRARY_PATH (set by cargo, and possibly naming a directory with an
    // older build) does not override.
    let rpath = format!("-Wl,--disable-new-dtags,-rpath,{}", dir.display());
    // libm: the test program sets its floating-point environment (fenv.h).
    vec![format!("-L{}", dir.display()), rpath, "-lptxfp".into(), "-lm".into()]
}

fn static_link() -> Vec<String> {
    let lib = library_dir().join("libptxfp.a");
    vec![lib.display().to_string(), "-lpthread".into(), "-ldl".into(), "-lm".into()]
}

fn run(exe: &Path, args: &[&Path], env: &[(&str, &str)]) -> String {
    let out = Command::new(exe)
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .envs(env.iter().copied())
        .output()
        .expect("run the test program");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{} failed ({}):\n{stdout}\n{stderr}", exe.display(), out.status);
    stdout
}

/// Edge words of a width: the specials, extremes and a few ordinary values of every format of
/// that width, and for 32 and 64 bits also packed pairs of the half-width edges.
fn edges(bits: u32) -> Vec<u64> {
    let e16: Vec<u64> = vec![
        0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3E00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7D01,
        0xFFFF, 0x0080, 0x3F80, 0xBFC0, 0x7F7F, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x3555,
    ];
    let e32: Vec<u64> = vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x3FC0_0000,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFFF_FFFF,
        0x4049_0FDB,
        0x3380_0000,
        0x4B80_0000,
        0xC2FC_0000,
        0x3F7F_FFFF,
        0x7FF7_0000,
        0x3EAA_AAAB,
    ];
    let e64: Vec<u64> = vec![
        0,
        0x8000_0000_0000_0000,
        1,
        0x000F_FFFF_FFFF_FFFF,
        0x0010_0000_0000_0000,
        0x3FF0_0000_0000_0000,
        0xBFF0_0000_0000_0000,
        0x3FF8_0000_0000_0000,
        0x7FEF_FFFF_FFFF_FFFF,
        0xFFEF_FFFF_FFFF_FFFF,
        0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        0x7FF8_0000_0000_0000,
        0x7FF0_0000_0000_0001,
        0xFFFF_FFFF_FFFF_FFFF,
        0x4009_21FB_5444_2D18,
        0x3CA0_0000_0000_0000,
        0x3FEF_FFFF_FFFF_FFFF,
        0x47EF_FFFF_E000_0000,
        0x3810_0000_0000_0000,
    ];
    let pairs = |half: &[u64], w: u32| -> Vec<u64> {
        (0..half.len()).map(|k| half[k] | half[(k * 7 + 3) % half.len()] << w).collect()
    };
    match bits {
        // The 8-bit integers: zero, ±1, the bounds of u8 and s8 and their neighbours.
        8 => vec![0, 1, 2, 0x40, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF],
        16 => e16,
        32 => [e32, pairs(&e16, 16)].concat(),
        64 => [e64, pairs(&e32_low(), 32)].concat(),
        other => unreachable!("{other}-bit words"),
    }
}

fn e32_low() -> Vec<u64> {
    vec![
        0,
        0x8000_0000,
        1,
        0x0080_0000,
        0x3F80_0000,
        0xBFC0_0000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0x4049_0FDB,
    ]
}

/// The operand tuples of an entry: every edge, every pair of edges, or 600 triples drawn from
/// the edges.
fn tuples(bits: u32, n: usize) -> Vec<Vec<u64>> {
    let e = edges(bits);
    match n {
        0 => vec![vec![]],
        1 => e.iter().map(|&a| vec![a]).collect(),
        2 => e.iter().flat_map(|&a| e.iter().map(move |&b| vec![a, b])).collect(),
        _ => {
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            (0..600)
                .map(|_| {
                    (0..n)
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            e[(x % e.len() as u64) as usize]
                        })
                        .collect()
                })
                .collect()
        }
    }
}

/// The cases file: for every catalog entry, on the lowest target that has it and on sm_90,
/// its tuples and the Rust library's results.
fn write_cases() -> PathBuf {
    let mut text = String::new();
    for e in catalog::entries() {
        let instr: Instr = e.instr;
        let mut targets = vec![e.lowest_target()];
        if targets[0] != Target::DEFAULT && e.targets.contains(Target::DEFAULT) {
            targets.push(Target::DEFAULT);
        }
        let cases = tuples(instr.source_bits(), e.sources);
        for target in targets {
            writeln!(text, "{instr} {target} {} {}", e.sources, cases.len()).unwrap();
            for t in &cases {
                // Each operand cut to the bits of its type (a scale may be narrower than the
                // widest source; FP6 bytes have no bits 7:6).
                let ops: Vec<u64> = (0..t.len()).map(|k| t[k] & instr.source_type(k).code_bits()).collect();
                let ops = &ops[..];
                let r = instr.eval_on(target, ops).unwrap_or_else(|err| panic!("{instr} {ops:x?}: {err}"));
                for op in ops {
                    write!(text, "{op:x} ").unwrap();
                }
                writeln!(text, "{r:x}").unwrap();
            }
        }
    }
    let path = scratch().join("capi-cases.txt");
    std::fs::write(&path, text).expect("write the cases file");
    path
}

const C_FLAGS: &[&str] = &["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic"];
const CXX_FLAGS: &[&str] = &["-x", "c++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"];

fn api_test() -> PathBuf {
    crate_dir().join("tests/c/api_test.c")
}

fn assert_all_compared(out: &str) {
    assert!(out.contains(", 0 failures"), "{out}");
}

#[test]
fn c_program_against_the_shared_library() {
    let cases = write_cases_once();
    let exe = scratch().join("api_test_c");
    build(&compiler("CC", "cc"), C_FLAGS, &[api_test()], &exe, &shared_link());
    assert_all_compared(&run(&exe, &[&cases], &[]));
    // Every SIMD level the processor has gives the same results through the C API.
    for level in ["baseline", "avx2"] {
        assert_all_compared(&run(&exe, &[&cases], &[("PTXFP_SIMD", level)]));
    }
}

/// A host that changes the floating-point environment: built with `-ffast-math` (gcc's
/// startup sets flush-to-zero and denormals-are-zero), rounding upward and trapping invalid,
/// divide-by-zero and overflow; the library gives the same bits (src/kernels/float_env.rs).
#[test]
fn c_program_built_with_fast_math_under_directed_rounding_and_traps() {
    let cases = write_cases_once();
    let exe = scratch().join("api_test_fast_math");
    build(&compiler("CC", "cc"), &[C_FLAGS, &["-ffast-math"]].concat(), &[api_test()], &exe, &shared_link());
    let out = run(&exe, &[&cases, Path::new("changed-environment")], &[]);
    assert!(out.contains("environment: flush-to-zero on, rounding upward, traps on"), "{out}");
    assert_all_compared(&out);
}

#[test]
fn cxx_program_against_the_static_library() {
    let cases = write_cases_once();
    let exe = scratch().join("api_test_cxx");
    build(&compiler("CXX", "c++"), CXX_FLAGS, &[api_test()], &exe, &static_link());
    assert_all_compared(&run(&exe, &[&cases], &[]));
}

#[test]
fn c_program_under_address_and_undefined_behaviour_sanitizers() {
    let cases = write_cases_once();
    let exe = scratch().join("api_test_asan");
    let flags = [C_FLAGS, &["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]].concat();
    build(&compiler("CC", "cc"), &flags, &[api_test()], &exe, &shared_link());
    assert_all_compared(&run(&exe, &[&cases], &[("ASAN_OPTIONS", "detect_leaks=1")]));
}

#[test]
fn cxx_warp_executor_example() {
    let exe = scratch().join("warp_executor");
    let example = crate_dir().join("examples/warp_executor.cpp");
    build(
        &compiler("CXX", "c++"),
        &["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"],
        &[example],
        &exe,
        &shared_link(),
    );
    let out = run(&exe, &[], &[]);
    assert!(out.contains("per-lane and per-warp results agree"), "{out}");
}

#[test]
fn shared_library_exports_only_the_c_api() {
    let lib = library_dir().join("libptxfp.so");
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&lib).output().expect("run nm");
    assert!(out.status.success());
    let symbols: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let foreign: Vec<&String> = symbols.iter().filter(|s| !s.starts_with("ptxfp_")).collect();
    assert!(foreign.is_empty(), "libptxfp.so exports {foreign:?}");
    for f in ["ptxfp_instr_new", "ptxfp_eval", "ptxfp_eval_warp", "ptxfp_eval_buffers", "ptxfp_catalog_get"] {
        assert!(symbols.iter().any(|s| s == f), "{f} not exported");
    }
}

/// The cases file, written by whichever test needs it first.
fn write_cases_once() -> PathBuf {
    static CASES: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CASES.get_or_init(write_cases).clone()
}
