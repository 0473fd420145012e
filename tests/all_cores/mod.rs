//! One test at a time on every core.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Held by each test of a binary whose work runs on rayon's pool (every core): while one holds
/// it, the binary's other such tests wait instead of sharing the pool with it. Two of them
/// interleaved on the pool took 12–25 % longer than one after the other (exhaustive_half 174
/// against 154 s, exhaustive_unary_f32 415 against 313 s, two AVX-512 cores; the cause not
/// isolated). A test that fails while holding it releases it: the poisoning is ignored.
pub fn hold() -> MutexGuard<'static, ()> {
    static ALL_CORES: Mutex<()> = Mutex::new(());
    ALL_CORES.lock().unwrap_or_else(PoisonError::into_inner)
}
