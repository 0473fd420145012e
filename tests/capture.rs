//! The capture kit without a GPU: the kernels `ptxfp capture` writes, the runner's host side
//! (scripts/capture_run.py with its stand-in device, which evaluates through `ptxfp run`), and
//! `ptxfp compare`, including a result corrupted on purpose.

use std::fs;
use std::process::{Command, Output};

use ptxfp::capture::{self, Inputs, Manifest, Request};
use ptxfp::sweep::domain::{Domain, PatternSet};
use ptxfp::{Format, Instr, Target};

mod tempdir;
use tempdir::TempDir;

fn ptxfp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxfp")).args(args).output().expect("run ptxfp")
}

fn runner(args: &[&str]) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/capture_run.py");
    Command::new("python3").arg(script).args(args).output().expect("python3 runs the capture runner")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn request(instrs: &[&str], random: Option<u64>) -> Request {
    Request {
        target: Target::DEFAULT,
        instrs: instrs.iter().map(|s| s.parse().unwrap()).collect(),
        all: false,
        range: None,
        random,
        seed: 1,
    }
}

#[test]
fn kernels_load_operands_and_never_use_immediates() {
    let dir = TempDir::new("kernels");
    let kit = capture::write_kit(&request(&["fma.rn.f32", "testp.normal.f64", "cvt.rn.f16x2.f32"], Some(100)), &dir.0)
        .unwrap();
    for entry in &kit.entries {
        let ptx = fs::read_to_string(dir.path(&entry.ptx)).unwrap();
        assert!(ptx.contains(".target sm_90"), "{ptx}");
        assert!(ptx.contains(&format!(".visible .entry {}(", capture::ptx::KERNEL)));
        let line = ptx.lines().find(|l| l.trim_start().starts_with(&entry.instr)).expect("the instruction");
        let operands: Vec<&str> = line.split_whitespace().skip(1).map(|s| s.trim_end_matches([',', ';'])).collect();
        assert!(operands.iter().all(|o| o.starts_with('%')), "only registers: {line}");
        assert_eq!(operands.len(), entry.sources + 1, "{line}");
        for j in 0..entry.sources {
            assert!(ptx.contains(&format!("[in{j}]")), "operand {j} is loaded: {ptx}");
        }
    }
    let testp = fs::read_to_string(dir.path("testp.normal.f64.ptx")).unwrap();
    assert!(testp.contains("selp.b64 %d, 1, 0, %p1;"), "{testp}");
}

#[test]
fn counted_domains_follow_the_sweep_domain_order() {
    let dir = TempDir::new("counted");
    let kit = capture::write_kit(&request(&["ex2.approx.f16", "add.rn.bf16"], None), &dir.0).unwrap();
    let Inputs::Counted { counters } = &kit.entries[0].inputs else { panic!("f16 unary is counted") };
    assert_eq!(kit.entries[0].count, 1 << 16);
    assert!((0..1u64 << 16).step_by(997).all(|i| counters[0].at(i) == i));
    // Binary bf16: all 2^32 operand pairs, operand 0 slowest, as `ptxfp sweep` enumerates.
    let Inputs::Counted { counters } = &kit.entries[1].inputs else { panic!("bf16 pairs are counted") };
    let domain = Domain::new(vec![PatternSet::all(Format::BF16); 2], String::new(), None).unwrap();
    for start in [0u64, 65_535, 1 << 20, (1 << 32) - 8] {
        let (mut a, mut b) = (vec![0u16; 8], vec![0u16; 8]);
        domain.fill(start, &mut [&mut a[..], &mut b[..]]);
        for i in 0..8 {
            assert_eq!(counters[0].at(start + i), u64::from(a[i as usize]));
            assert_eq!(counters[1].at(start + i), u64::from(b[i as usize]));
        }
    }
    let ptx = fs::read_to_string(dir.path(&kit.entries[1].ptx)).unwrap();
    assert!(ptx.contains("[lo1]") && !ptx.contains("[in0]"), "{ptx}");
}

/// `Counter::fill`, which `ptxfp compare` generates counted operands with, gives what
/// `Counter::at` defines, across runs and wraps, for the counters of a kit and small ones.
#[test]
fn counter_fill_is_counter_at_for_every_start_and_length() {
    let dir = TempDir::new("fill");
    let kit = capture::write_kit(&request(&["add.rn.bf16"], None), &dir.0).unwrap();
    let Inputs::Counted { counters } = &kit.entries[0].inputs else { panic!("bf16 pairs are counted") };
    let mut all = counters.clone();
    for (lo, len, stride) in [(5, 7, 3), (10, 4, 1), (0, 1, 1), (3, 1, 5), (0, 65_536, 1)] {
        all.push(capture::Counter { lo, len, stride });
    }
    for counter in &all {
        let starts = [0u64, 1, 2, 6, 20, 65_535, 65_536, 1 << 20, (1 << 32) - 40];
        for start in starts {
            for n in [0usize, 1, 2, 3, 13, 40] {
                let mut words = vec![0xAAAAu16; n];
                counter.fill(start, &mut words);
                let want: Vec<u16> = (0..n as u64).map(|i| counter.at(start + i) as u16).collect();
                assert_eq!(words, want, "{counter:?} from {start}");
            }
        }
    }
}

/// A manifest whose counter cannot count operands (stride or length 0, past the word) is
/// refused with a message, not a division by zero.
#[test]
fn compare_refuses_a_counter_that_cannot_count() {
    let dir = TempDir::new("counter");
    let kit = dir.0.to_str().unwrap();
    let o = ptxfp(&["capture", "min.f16", "--range", "1.0..1.01", "--out", kit]);
    assert!(o.status.success(), "{}", text(&o));
    let o = runner(&[kit, "--fake", env!("CARGO_BIN_EXE_ptxfp")]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest = fs::read_to_string(dir.path("manifest.json")).unwrap();
    for (field, value, shown) in [("stride", 0, "stride 0"), ("len", 0, "len 0"), ("len", 70_000, "len 70000")] {
        let mut edited: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        edited["entries"][0]["inputs"]["counters"][1][field] = value.into();
        fs::write(dir.path("manifest.json"), edited.to_string()).unwrap();
        let o = ptxfp(&["compare", kit]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains("operand 1's counter (lo 15360, "), "{}", text(&o));
        assert!(text(&o).contains(shown), "{}", text(&o));
        assert!(text(&o).contains("does not count 16-bit operands"), "{}", text(&o));
    }
    fs::write(dir.path("manifest.json"), manifest).unwrap();
    let o = ptxfp(&["compare", kit]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn all_covers_the_ptx_spellings_of_the_target() {
    let dir = TempDir::new("all");
    let req = Request { all: true, instrs: Vec::new(), random: Some(2), ..request(&[], None) };
    let kit = capture::write_kit(&req, &dir.0).unwrap();
    let spellings: Vec<&str> = kit.entries.iter().map(|e| e.instr.as_str()).collect();
    assert!(!spellings.iter().any(|s| s.starts_with("MUFU") || s.starts_with("RRO")));
    assert!(!spellings.contains(&"add.rn.f32x2"), "sm_100 spellings are not in an sm_90 kit");
    // Approximate scalar spellings and the low-precision conversions from one FP8 pair over
    // every input; the rest sampled.
    for e in &kit.entries {
        let instr: Instr = e.instr.parse().unwrap();
        let counted = matches!(e.inputs, Inputs::Counted { .. });
        let approximate =
            e.instr.contains(".approx") && instr.ty().lanes() == 1 && e.sources == 1 && e.source_bits <= 32;
        let pair = instr.is_low_precision() && e.sources == 1 && e.source_bits == 16;
        assert_eq!(counted, approximate || pair, "{}", e.instr);
        if pair {
            assert_eq!(e.count, 65536, "{}", e.instr);
        }
    }
    assert!(spellings.contains(&"cvt.rn.f16x2.e4m3x2") && spellings.contains(&"cvt.rn.satfinite.e5m2x2.f32"));
    assert!(spellings.contains(&"tanh.approx.f32") && spellings.contains(&"ex2.approx.ftz.bf16"));
    let tininess: Vec<_> = kit.entries.iter().filter(|e| e.output.contains("tininess")).collect();
    assert_eq!(tininess.len(), 8, "mul and fma .ftz.f32 in four rounding modes");
    assert_eq!(Manifest::load(&dir.0).unwrap(), kit);
}

#[test]
fn a_fake_device_run_compares_identical_and_a_flipped_bit_is_found() {
    let dir = TempDir::new("fake");
    let kit = dir.0.to_str().unwrap();
    let o = ptxfp(&["capture", "add.rn.f32", "cvt.rn.f16x2.f32", "fma.rn.bf16x2", "--random", "3000", "--out", kit]);
    assert!(o.status.success(), "{}", text(&o));
    let o = ptxfp(&["capture", "tanh.approx.f16", "--out", &format!("{kit}/half")]);
    assert!(o.status.success(), "{}", text(&o));
    let bin = env!("CARGO_BIN_EXE_ptxfp");
    let o = runner(&[kit, "--fake", bin, "--fake-flip", "fma.rn.bf16x2:1234"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = runner(&[&format!("{kit}/half"), "--fake", bin]);
    assert!(o.status.success(), "{}", text(&o));
    let o = ptxfp(&["compare", &format!("{kit}/half")]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("identical on 65536 inputs"), "{}", text(&o));
    let o = ptxfp(&["compare", kit, "--mismatches"]);
    assert_eq!(o.status.code(), Some(3), "a differing spelling fails: {}", text(&o));
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path("summary.json")).unwrap()).unwrap();
    let rows = report.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for row in rows {
        let c = &row["compared"];
        if row["instr"] == "fma.rn.bf16x2" {
            assert_eq!(c["mismatches"], 1);
            assert_eq!(c["first"][0]["index"], 1234);
            // The lowest result bit was flipped: GPU and ptxfp differ there alone.
            let gpu = u64::from_str_radix(c["first"][0]["gpu"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
            let own =
                u64::from_str_radix(c["first"][0]["ptxfp"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
            assert_eq!(gpu ^ own, 1);
            // The listed operands are the input file's.
            let a = fs::read(dir.path("fma.rn.bf16x2.in0.npy")).unwrap();
            let word = u32::from_le_bytes(a[a.len() - 3000 * 4 + 1234 * 4..][..4].try_into().unwrap());
            assert_eq!(c["first"][0]["operands"][0], format!("0x{word:08x}"));
        } else {
            assert_eq!(c["mismatches"], 0, "{row}");
        }
    }
    let kept = fs::read(dir.path("fma.rn.bf16x2.mismatches.npy")).unwrap();
    let words: Vec<u64> =
        kept[kept.len() - 24..].chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(words[0], 1234);
    assert_eq!(words[1] ^ words[2], 1);
}

#[test]
fn compare_rejects_a_truncated_results_file_and_a_missing_kit() {
    let dir = TempDir::new("truncated");
    let kit = capture::write_kit(&request(&["add.rn.f32"], Some(64)), &dir.0).unwrap();
    let out = dir.path(&kit.entries[0].output);
    let mut npy = ptxfp::io::npy_header(ptxfp::io::Dtype::Float32, 63);
    npy.extend_from_slice(&[0u8; 63 * 4]);
    fs::write(&out, npy).unwrap();
    let o = ptxfp(&["compare", dir.0.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("holds 63 words, 64 expected"), "{}", text(&o));
    assert!(!dir.path("summary.json").exists(), "no report from a failed comparison");
    let o = ptxfp(&["compare", dir.path("nothing").to_str().unwrap()]);
    assert!(text(&o).contains("manifest.json: cannot read it"), "{}", text(&o));
    // The runner refuses a directory that is not a kit, and a kit without a GPU or --fake
    // fails with a message rather than a traceback.
    let o = runner(&[dir.path("nothing").to_str().unwrap(), "--fake", env!("CARGO_BIN_EXE_ptxfp")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("is not a capture kit"), "{}", text(&o));
}

#[test]
fn capture_refuses_what_cannot_run_on_the_target() {
    let dir = TempDir::new("refuse");
    let kit = dir.0.to_str().unwrap();
    let o = ptxfp(&["capture", "MUFU.RCP", "--out", kit]);
    assert!(text(&o).contains("SASS operation"), "{}", text(&o));
    let o = ptxfp(&["capture", "add.rn.f32x2", "--out", kit]);
    assert!(!o.status.success());
    assert!(text(&o).contains("sm_100"), "{}", text(&o));
    let o = ptxfp(&["capture", "--out", kit]);
    assert!(text(&o).contains("--all"), "{}", text(&o));
    let o = ptxfp(&["capture", "add.rn.f16x2", "--range", "0x3c00..0x3c04", "--out", kit]);
    assert!(text(&o).contains("a --range of a packed type needs --random"), "{}", text(&o));
}

/// Integer operands: an 8-bit word is loaded and stored as a byte through a 16-bit register,
/// and between bf16 and u8/s8 the instruction takes an 8-bit register, which is what the
/// H200's JIT requires (data/hardware/h200-sm90/cvt/README.md, where such kits ran on the GPU
/// with no mismatch); a fake-device run of these kernels compares identical.
#[test]
fn integer_conversions_use_byte_words_and_byte_registers() {
    let dir = TempDir::new("integers");
    let kit = dir.0.to_str().unwrap();
    let spellings = ["cvt.rzi.s8.bf16", "cvt.rn.bf16.u8", "cvt.rn.f32.s8", "cvt.rmi.u8.f64", "cvt.rp.f16.s64"];
    let o = ptxfp(&[&["capture"][..], &spellings, &["--random", "2000", "--out", kit]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let ptx = |name: &str| fs::read_to_string(dir.path(&format!("{name}.ptx"))).unwrap();
    let to_s8 = ptx("cvt.rzi.s8.bf16");
    assert!(to_s8.contains("cvt.rzi.s8.bf16 %byte, %a0;\n    cvt.s16.s8 %d, %byte;"), "{to_s8}");
    assert!(to_s8.contains(".reg .b8 %byte;") && to_s8.contains("st.global.u8 [%rd2], %d;"), "{to_s8}");
    let from_u8 = ptx("cvt.rn.bf16.u8");
    assert!(from_u8.contains("cvt.u8.u16 %byte, %a0;\n    cvt.rn.bf16.u8 %d, %byte;"), "{from_u8}");
    let from_s8 = ptx("cvt.rn.f32.s8");
    assert!(from_s8.contains("cvt.rn.f32.s8 %d, %a0;") && !from_s8.contains("%byte"), "{from_s8}");
    assert!(ptx("cvt.rmi.u8.f64").contains("st.global.u8 [%rd2], %d;"));
    let o = runner(&[kit, "--fake", env!("CARGO_BIN_EXE_ptxfp")]);
    assert!(o.status.success(), "{}", text(&o));
    let o = ptxfp(&["compare", kit]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("5 of 5 spellings compared, 0 differ"), "{}", text(&o));
}

/// The operands of a kernel's instruction line as data/ptxas/*.tsv writes them, a register's
/// name by its type (`f` .f32, `h` .b16, `r` .b32, `q` .b8): `h, {f, f, f, f}, r`.
fn register_letters(ptx: &str, instr: &str) -> String {
    let line = ptx.lines().map(str::trim).find(|l| l.starts_with(&format!("{instr} "))).expect("the instruction");
    let letter = |name: &str| {
        let decl = ptx.lines().find(|l| l.trim().starts_with(".reg") && l.trim().ends_with(&format!(" {name};")));
        match decl.map(|d| d.split_whitespace().nth(1).unwrap()) {
            Some(".f32") => "f",
            Some(".b16") => "h",
            Some(".b32") => "r",
            Some(".b8") => "q",
            other => panic!("{name}: {other:?} in {ptx}"),
        }
    };
    let operands = line[instr.len()..].trim().trim_end_matches(';');
    let mut out = String::new();
    let mut name = String::new();
    for c in operands.chars().chain(std::iter::once(' ')) {
        if c == '%' || (!name.is_empty() && c.is_ascii_alphanumeric()) {
            name.push(c);
            continue;
        }
        if !name.is_empty() {
            out.push_str(letter(&name));
            name.clear();
        }
        if c != ' ' || out.ends_with(',') {
            out.push(c);
        }
    }
    out.trim().to_string()
}

/// Every low-precision conversion and mixed-precision spelling of the catalog, in a kit for its
/// lowest target: its instruction line takes operands in the registers ptxas accepted it with
/// (data/ptxas/cvt_lowprec.tsv and mixed.tsv, scripts/ptxas_cvt_catalog.py), and the kernel
/// declares at least the PTX ISA version ptxas first accepted the spelling at. (The optional
/// tier scripts/ptxas_check.sh assembles them with ptxas itself.)
#[test]
fn low_precision_and_mixed_kernels_take_the_registers_ptxas_accepts() {
    let mut accepted: std::collections::HashMap<String, (String, String)> = Default::default();
    let tables = [include_str!("../data/ptxas/cvt_lowprec.tsv"), include_str!("../data/ptxas/mixed.tsv")];
    for line in tables.iter().flat_map(|t| t.lines()).filter(|l| !l.starts_with('#') && !l.starts_with("spelling")) {
        let cols: Vec<&str> = line.split('\t').collect();
        if let Ok(instr) = cols[0].parse::<Instr>() {
            let letters: String = cols[1].chars().filter(|c| !c.is_ascii_digit()).collect();
            accepted.insert(instr.to_string(), (letters, cols[3].to_string()));
        }
    }
    let mut by_target: std::collections::BTreeMap<Target, Vec<Instr>> = Default::default();
    for e in ptxfp::ptx::catalog::entries() {
        if e.instr.is_low_precision() || e.instr.mixed_source().is_some() {
            by_target.entry(e.targets.lowest().unwrap()).or_default().push(e.instr);
        }
    }
    let mut checked = 0;
    for (target, instrs) in by_target {
        let dir = TempDir::new("lowprec-registers");
        let req = Request { target, instrs, random: Some(4), ..request(&[], None) };
        let kit = capture::write_kit(&req, &dir.0).unwrap_or_else(|e| panic!("{target}: {e}"));
        for entry in &kit.entries {
            let ptx = fs::read_to_string(dir.path(&entry.ptx)).unwrap();
            let (letters, version) =
                accepted.get(&entry.instr).unwrap_or_else(|| panic!("{} not in the tables", entry.instr));
            // The destination first, then the sources.
            assert_eq!(&register_letters(&ptx, &entry.instr), letters, "{} on {target}: {ptx}", entry.instr);
            let declared = ptx.lines().find_map(|l| l.strip_prefix(".version ")).unwrap();
            let number =
                |v: &str| v.split_once('.').map(|(a, b)| (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap()));
            assert!(number(declared) >= number(version), "{}: .version {declared}, ptxas needs {version}", entry.instr);
            assert!(ptx.contains(&format!(".target {target}")));
            checked += 1;
        }
    }
    assert_eq!(checked, 210 + 56, "every low-precision and mixed-precision spelling");
}

/// The new forms through the runner's stand-in device and `ptxfp compare`: a pair from two f32
/// with an 8-bit result, FP6 pairs (only codes with their padding clear), the five-operand x4
/// `.rs` form, a scaled up-conversion with its 16-bit scale operand and a mixed-precision
/// `fma` with f32 `c` beside bf16 `a` and `b` — every result identical.
#[test]
fn low_precision_kits_run_and_compare_identical() {
    let dir = TempDir::new("lowprec-fake");
    let kit = dir.0.to_str().unwrap();
    let spellings = [
        "cvt.rn.satfinite.e2m1x2.f32",
        "cvt.rs.satfinite.e4m3x4.f32",
        "fma.rn.sat.f32.bf16",
        "cvt.rn.satfinite.e3m2x2.f16x2",
    ];
    let o = ptxfp(&[&["capture", "--arch", "sm_100a"][..], &spellings, &["--random", "3000", "--out", kit]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let up = format!("{kit}/up");
    let o = ptxfp(&["capture", "--arch", "sm_100a", "cvt.rn.f16x2.e2m3x2", "cvt.rn.bf16x2.ue8m0x2", "--out", &up]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest = Manifest::load(std::path::Path::new(&up)).unwrap();
    // Every FP6 pair with its padding clear (64 × 64 codes, from files), every ue8m0 pair (counted).
    let fp6 = &manifest.entries[0];
    assert_eq!((fp6.count, matches!(fp6.inputs, Inputs::Files { .. })), (4096, true), "{fp6:?}");
    assert!(matches!(manifest.entries[1].inputs, Inputs::Counted { .. }) && manifest.entries[1].count == 65536);
    let bin = env!("CARGO_BIN_EXE_ptxfp");
    for k in [kit, up.as_str()] {
        let o = runner(&[k, "--fake", bin]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let o = ptxfp(&["compare", kit]);
    assert!(o.status.success() && text(&o).contains("4 of 4 spellings compared, 0 differ"), "{}", text(&o));
    let o = ptxfp(&["compare", &up]);
    assert!(o.status.success() && text(&o).contains("2 of 2 spellings compared, 0 differ"), "{}", text(&o));
    let e2m1 = fs::read_to_string(dir.path("cvt.rn.satfinite.e2m1x2.f32.ptx")).unwrap();
    assert!(e2m1.contains(".reg .b8 %d;") && e2m1.contains("st.global.b8 [%rd2], %d;"), "{e2m1}");
    let x4 = fs::read_to_string(dir.path("cvt.rs.satfinite.e4m3x4.f32.ptx")).unwrap();
    assert!(x4.contains("cvt.rs.satfinite.e4m3x4.f32 %d, {%a0, %a1, %a2, %a3}, %a4;"), "{x4}");
    // The pair from two f32 without --random: every f32 value through both lanes.
    let both = format!("{kit}/both");
    let o = ptxfp(&["capture", "cvt.rn.satfinite.e4m3x2.f32", "--out", &both]);
    assert!(o.status.success(), "{}", text(&o));
    let entry = &Manifest::load(std::path::Path::new(&both)).unwrap().entries[0];
    assert_eq!(entry.count, 1 << 32);
    let Inputs::Counted { counters } = &entry.inputs else { panic!("{entry:?}") };
    assert!(counters.iter().all(|c| (c.lo, c.len, c.stride) == (0, 1 << 32, 1)), "{counters:?}");
    // A range is for sources of one float format.
    let o = ptxfp(&["capture", "--arch", "sm_100a", "add.rn.f32.f16", "--range", "1.0..2.0", "--out", &both]);
    assert!(text(&o).contains("--range is for sources of one floating-point format"), "{}", text(&o));
}

/// scripts/capture_pipeline.sh with the stand-in device: one kit per plan line, each compared
/// and deleted; a flipped result reported with its index and words, a line that `ptxfp capture`
/// refuses reported while the lines after it still run.
#[test]
fn the_pipeline_runs_each_plan_line_and_reports_every_spelling() {
    let dir = TempDir::new("pipeline");
    let plan = "min.NaN.xorsign.abs.f16 --range 1.0..1.01\n\
                # a comment\n\
                abs.bf16 cvt.f32.f16 --range 1.0..1.1   # two spellings in one kit\n\
                --random 500 --seed 2 div.full.f32\n\
                nonsense.f32\n\
                max.bf16 --range -1.0..-0.99\n";
    fs::write(dir.path("plan.txt"), plan).unwrap();
    fs::create_dir(dir.path("work")).unwrap();
    let bin = env!("CARGO_BIN_EXE_ptxfp");
    let o = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/capture_pipeline.sh"))
        .args([bin, dir.path("plan.txt").to_str().unwrap(), dir.path("out").to_str().unwrap(), "600"])
        .args(["--", "--fake", bin, "--fake-flip", "div.full.f32:7"])
        .env("PTXFP_CAPTURE_WORK", dir.path("work"))
        .output()
        .expect("bash runs the pipeline");
    assert_eq!(o.status.code(), Some(1), "the refused line makes the run fail: {}", text(&o));
    let log = fs::read_to_string(dir.path("out/log.txt")).unwrap();
    assert!(log.contains("capture failed: nonsense.f32"), "{log}");
    assert!(log.contains("unknown mnemonic 'nonsense'"), "ptxfp's message is in the log: {log}");
    let rows: Vec<serde_json::Value> = fs::read_to_string(dir.path("out/summary.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r["instr"].as_str().unwrap()).collect();
    assert_eq!(names, ["min.NaN.xorsign.abs.f16", "abs.bf16", "cvt.f32.f16", "div.full.f32", "max.bf16"]);
    for row in &rows {
        let expected = if row["instr"] == "div.full.f32" { 1 } else { 0 };
        assert_eq!(row["compared"]["mismatches"], expected, "{row}");
    }
    assert_eq!(rows[0]["count"], 100, "all pairs of the range's ten values");
    assert_eq!(rows[3]["compared"]["first"][0]["index"], 7);
    assert!(dir.path("out/device.json").exists());
    assert_eq!(fs::read_dir(dir.path("work")).unwrap().count(), 0, "every kit deleted");
    // The mismatches travel as xz-compressed .npy files in one tar: the flipped input alone.
    let read = "import lzma, sys, tarfile\n\
                t = tarfile.open(sys.argv[1])\n\
                for m in t.getmembers():\n\
                \x20   data = lzma.decompress(t.extractfile(m).read())\n\
                \x20   start = 10 + int.from_bytes(data[8:10], 'little')\n\
                \x20   words = [int.from_bytes(data[i:i + 8], 'little') for i in range(start, len(data), 8)]\n\
                \x20   print(m.name, *words)\n";
    let o =
        Command::new("python3").args(["-c", read, dir.path("out/mismatches.tar").to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let listing = String::from_utf8(o.stdout).unwrap();
    let fields: Vec<&str> = listing.split_whitespace().collect();
    assert_eq!(fields.len(), 4, "one mismatching spelling, one triple: {listing}");
    assert_eq!(fields[..2], ["div.full.f32.mismatches.npy.xz", "7"]);
    let (gpu, own): (u64, u64) = (fields[2].parse().unwrap(), fields[3].parse().unwrap());
    assert_eq!(gpu ^ own, 1, "the lowest bit flipped: {listing}");
    // A plan that does not exist: a message and exit 2, before any output is made.
    let o = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/capture_pipeline.sh"))
        .args([bin, dir.path("no-plan.txt").to_str().unwrap(), dir.path("out2").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("a plan file (got "), "{}", text(&o));
    assert!(!dir.path("out2").exists());
}
