//! Mismatch counting for the exhaustive tests, shared by the workers of a parallel loop: every
//! mismatch is counted and the first ten are kept as examples.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub struct Failures {
    count: AtomicU64,
    examples: Mutex<Vec<String>>,
}

impl Failures {
    pub fn new() -> Failures {
        Failures { count: AtomicU64::new(0), examples: Mutex::new(Vec::new()) }
    }

    /// Count one mismatch; `what` describes it and is called only for the first ten.
    pub fn record(&self, what: impl FnOnce() -> String) {
        if self.count.fetch_add(1, Ordering::Relaxed) < 10 {
            self.examples.lock().unwrap().push(what());
        }
    }

    /// The number of mismatches and the examples, one per line.
    pub fn into_report(self) -> (u64, String) {
        (self.count.into_inner(), self.examples.into_inner().unwrap().join("\n"))
    }
}
