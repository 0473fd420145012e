//! The reliability tier: what a user's files look like after a run is killed outright, or
//! while another run shares its paths.
//!
//! The rest of the tier lives beside the commands it exercises: bad input and unusable outputs
//! (`tests/run_cli.rs`, `tests/cli.rs`), Ctrl-C and SIGTERM (`a_signal_stops_a_run_without_leaving_its_output`,
//! `ctrl_c_and_sigterm_leave_a_checkpoint_that_resumes`), closed and full standard outputs
//! (`tests/cli.rs`, `tests/sweep_cli.rs`), edited or damaged checkpoints and shard reports and
//! a huge request under a memory limit (`tests/sweep_cli.rs`); the parsers are fuzzed by the
//! targets of `fuzz/`.
#![cfg(unix)]

use std::fs;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod tempdir;
use tempdir::TempDir;

fn ptxfp(dir: &TempDir, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxfp"));
    cmd.current_dir(&dir.0).args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

fn kill_9(child: &mut Child) {
    // An error means the process has already exited, which the caller's checks allow for.
    let _ = child.kill();
    let _ = child.wait();
}

/// The names in `dir` other than `keep`, after removing the temporary files a killed run may
/// leave (`.NAME.ptxfp-PID-N.tmp`, which the README says are safe to delete).
fn strays(dir: &TempDir, keep: &[&str]) -> Vec<String> {
    let temporary = |n: &str| n.starts_with('.') && n.contains(".ptxfp-") && n.ends_with(".tmp");
    for name in dir.names().into_iter().filter(|n| temporary(n)) {
        fs::remove_file(dir.path(&name)).unwrap();
    }
    dir.names().into_iter().filter(|n| !keep.contains(&n.as_str())).collect()
}

/// `n` raw f32 words of every class (a multiplicative hash of the index), little-endian.
fn words(n: u32) -> Vec<u8> {
    (0..n).flat_map(|i| (i.wrapping_mul(0x9E37_79B9) >> 1).to_le_bytes()).collect()
}

/// Delays spread over `whole` and a little beyond it, the same on every run of the test.
fn moments(whole: Duration, count: u32) -> impl Iterator<Item = Duration> {
    (0..count).map(move |i| whole.mul_f64(f64::from(i) / f64::from(count - 1) * 1.1))
}

/// SIGKILL at moments spread over a `run`: the destination is always either the file that was
/// there before or the complete new output, never a part of it.
#[test]
fn a_killed_run_leaves_the_old_output_or_the_complete_new_one() {
    let dir = TempDir::new("kill-run");
    let input = words(24 << 20);
    fs::write(dir.path("a.bin"), &input).unwrap();
    let args = ["run", "rcp.approx.ftz.f32", "--in", "a.bin", "--out"];
    let started = Instant::now();
    let whole = ptxfp(&dir, &[&args[..], &["new.bin"]].concat()).output().unwrap();
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let took = started.elapsed();
    let new = fs::read(dir.path("new.bin")).unwrap();
    assert_eq!(new.len(), input.len());
    let (mut old_seen, mut new_seen) = (0, 0);
    for delay in moments(took, 8) {
        fs::write(dir.path("d.bin"), "old").unwrap();
        let mut child = ptxfp(&dir, &[&args[..], &["d.bin"]].concat()).spawn().unwrap();
        std::thread::sleep(delay);
        kill_9(&mut child);
        let now = fs::read(dir.path("d.bin")).unwrap();
        if now == b"old" {
            old_seen += 1;
        } else {
            assert!(now == new, "after SIGKILL at {delay:?}: d.bin is {} bytes, neither old nor new", now.len());
            new_seen += 1;
        }
        assert_eq!(strays(&dir, &["a.bin", "d.bin", "new.bin"]), Vec::<String>::new());
    }
    assert_eq!(old_seen + new_seen, 8);
}

/// SIGKILL at moments spread over a sweep with `--json`: the report is the old file or a
/// complete report, and a checkpoint, where one was written, reads back.
#[test]
fn a_killed_sweep_leaves_the_old_report_or_the_complete_new_one() {
    let dir = TempDir::new("kill-sweep");
    let args =
        ["sweep", "-q", "ex2.approx.ftz.f32", "--range", "1e-20..1e20", "--checkpoint", "cp.json", "--json", "r.json"];
    let started = Instant::now();
    let whole = ptxfp(&dir, &args).output().unwrap();
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let took = started.elapsed();
    let new: serde_json::Value = serde_json::from_str(&fs::read_to_string(dir.path("r.json")).unwrap()).unwrap();
    for delay in moments(took, 6) {
        fs::write(dir.path("r.json"), "old").unwrap();
        let mut child = ptxfp(&dir, &args).spawn().unwrap();
        std::thread::sleep(delay);
        kill_9(&mut child);
        let now = fs::read_to_string(dir.path("r.json")).unwrap();
        if now != "old" {
            let report: serde_json::Value = serde_json::from_str(&now).expect("a complete report");
            assert_eq!(report["count"], new["count"]);
            assert_eq!(report["ulp_histogram"], new["ulp_histogram"]);
        }
        if let Ok(text) = fs::read_to_string(dir.path("cp.json")) {
            ptxfp::sweep::checkpoint::Saved::from_text(&text).expect("a complete checkpoint");
            fs::remove_file(dir.path("cp.json")).unwrap();
        }
        assert_eq!(strays(&dir, &["r.json"]), Vec::<String>::new());
    }
}

/// Two runs writing one destination at the same time: it ends as one run's complete output,
/// and neither leaves a temporary file.
#[test]
fn concurrent_runs_on_one_output_leave_one_complete_result() {
    let dir = TempDir::new("concurrent-run");
    fs::write(dir.path("a.bin"), words(8 << 20)).unwrap();
    let results: Vec<Vec<u8>> = ["neg.f32", "abs.f32"]
        .iter()
        .map(|instr| {
            let out = format!("{instr}.bin");
            let o = ptxfp(&dir, &["run", instr, "--in", "a.bin", "--out", &out]).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            fs::read(dir.path(&out)).unwrap()
        })
        .collect();
    for _ in 0..4 {
        let children: Vec<Child> = ["neg.f32", "abs.f32"]
            .iter()
            .map(|instr| ptxfp(&dir, &["run", instr, "--in", "a.bin", "--out", "d.bin"]).spawn().unwrap())
            .collect();
        for child in children {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let now = fs::read(dir.path("d.bin")).unwrap();
        assert!(results.contains(&now), "d.bin ({} bytes) is neither run's output", now.len());
        assert_eq!(dir.names(), ["a.bin", "abs.f32.bin", "d.bin", "neg.f32.bin"]);
    }
}

/// Two identical sweeps interrupted at the same time share their default checkpoint: what is
/// left is one of them, and resuming it gives the uninterrupted sweep's report.
#[test]
fn concurrent_sweeps_sharing_a_checkpoint_leave_one_that_resumes() {
    let dir = TempDir::new("concurrent-sweep");
    let spec = ["lg2.approx.ftz.f32", "--range", "0.25..8.0"];
    let whole = ptxfp(&dir, &[&["sweep", "-q"][..], &spec, &["--json", "whole.json"]].concat()).output().unwrap();
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let children: Vec<Child> = (0..2)
        .map(|_| ptxfp(&dir, &[&["sweep", "-q", "--stop-after-units", "2"][..], &spec].concat()).spawn().unwrap())
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        // Interrupted (130), or refused because the other had already saved its checkpoint.
        assert!(
            o.status.code() == Some(130)
                || (o.status.code() == Some(1) && stderr.contains("a checkpoint of this sweep exists")),
            "{stderr}"
        );
    }
    let checkpoints: Vec<String> = dir.names().into_iter().filter(|n| n.ends_with(".checkpoint.json")).collect();
    assert_eq!(checkpoints.len(), 1, "{checkpoints:?}");
    let o = ptxfp(&dir, &["sweep", "-q", "--resume", &checkpoints[0], "--json", "resumed.json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(dir.path(name)).unwrap()).unwrap()
    };
    let (resumed, whole) = (read("resumed.json"), read("whole.json"));
    for field in ["count", "ulp_histogram", "max_ulp", "worst", "mismatches", "binades", "profile"] {
        assert_eq!(resumed[field], whole[field], "{field}");
    }
    assert_eq!(dir.names(), ["resumed.json", "whole.json"]);
    assert!(!dir.path(&checkpoints[0]).exists());
}
