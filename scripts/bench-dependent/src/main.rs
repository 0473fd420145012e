//! `ptxfp::bench::measure` on one thread for every catalog spelling (on sm_90, or on the
//! lowest target that has it), printed as `spelling<TAB>elements/s<TAB>batch path`.
//! Usage: ptxfp-bench-dependent [elements per buffer, default 2^20] [PATTERN…]: with patterns,
//! only the spellings that contain one of them.

use std::collections::HashSet;

use ptxfp::ptx::catalog;
use ptxfp::Target;

fn main() {
    let len = match std::env::args().nth(1) {
        None => 1 << 20,
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("ptxfp-bench-dependent: '{arg}' is not an element count");
            std::process::exit(2);
        }),
    };
    let patterns: Vec<String> = std::env::args().skip(2).collect();
    let mut seen = HashSet::new();
    for entry in catalog::entries() {
        let spelling = entry.instr.to_string();
        let wanted = patterns.is_empty() || patterns.iter().any(|p| spelling.contains(p.as_str()));
        if !wanted || !seen.insert(spelling.clone()) {
            continue;
        }
        let target = if Target::DEFAULT.check(&entry.instr).is_ok() {
            Target::DEFAULT
        } else {
            Target::new(entry.min_sm).expect("a catalog target")
        };
        match ptxfp::bench::measure(&entry.instr, target, len, 1) {
            Ok(m) => println!("{spelling}\t{}\t{}", m[0].elements_per_second, entry.instr.batch_path(target).name()),
            Err(e) => eprintln!("{spelling}: {e}"),
        }
    }
}
