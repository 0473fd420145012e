//! Sweep reports, as `ptxfp merge` reads them: any text is a report or refused; a report
//! writes itself back to the same text, and merging it checks it against its sweep without a
//! panic and in bounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxfp::sweep::report::Report;

fuzz_target!(|text: &str| {
    let Ok(report) = Report::from_json(text) else { return };
    let json = report.to_json();
    let again = Report::from_json(&json).unwrap_or_else(|e| panic!("a written report does not read back: {e}"));
    assert_eq!(again.to_json(), json);
    let _ = ptxfp::sweep::merge(&[report]);
});
