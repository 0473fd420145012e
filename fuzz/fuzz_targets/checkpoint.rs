//! Sweep checkpoints: any text is a checkpoint or refused; a checkpoint that passes its
//! checksum is checked against the sweep it names before anything resumes it, without a
//! panic. The first byte chooses whether the rest is a whole file, or a body that the target
//! seals with the right checksum, so that the fuzzer reaches what follows the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxfp::sweep::checkpoint::{Saved, FORMAT, VERSION};
use ptxfp::sweep::{Shard, Sweep};

fuzz_target!(|input: (bool, &str)| {
    let (seal, text) = input;
    let file = if seal {
        if serde_json::from_str::<&serde_json::value::RawValue>(text).is_err() {
            return;
        }
        let crc32 = crc32fast::hash(text.as_bytes());
        format!(r#"{{"format":"{FORMAT}","version":{VERSION},"crc32":{crc32},"body":{text}}}"#)
    } else {
        text.to_string()
    };
    let Ok(saved) = Saved::from_text(&file) else { return };
    // Written back, it reads as the same checkpoint (compared as text: a NaN in the report is
    // not equal to itself).
    let written = saved.to_text();
    let again = Saved::from_text(&written).unwrap_or_else(|e| panic!("a written checkpoint does not read back: {e}"));
    assert_eq!(again.to_text(), written);
    let report = &saved.checkpoint.report;
    let shard = match &report.shard {
        Some(label) => match Shard::parse(label) {
            Ok(shard) => shard,
            Err(_) => return,
        },
        None => Shard::WHOLE,
    };
    if let Ok(sweep) = Sweep::new(&report.spec, shard, false) {
        let _ = sweep.check_resume(&saved.checkpoint);
    }
});
