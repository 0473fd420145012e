//! A lookup table for the one-operand instructions on 16-bit elements that have no arithmetic
//! kernel: `tanh.approx` and `ex2.approx` on f16 and bf16 (scalar and packed) and their SASS
//! forms `MUFU.TANH.F16/.BF16` and `MUFU.EX2.F16/.BF16`. The table holds the scalar
//! definition's result for each of the 2^16 operands, evaluated once per instruction and
//! target when its kernel is first selected (a few milliseconds), so batch evaluation reads the
//! scalar definition back, a packed word element by element (each element of a packed word is
//! the scalar definition of its own operand element).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::Kernel;
use crate::format::Format;
use crate::ptx::{Instr, Target};

/// The results of one instruction on every 16-bit operand.
pub(crate) type Table = [u16; 1 << 16];

/// The table kernel of `instr` on `target`, if it is a one-operand instruction from 16-bit
/// elements to 16-bit elements.
pub(super) fn select(instr: &Instr, target: Target) -> Option<Kernel> {
    let half = |f: Format| matches!(f, Format::F16 | Format::BF16);
    let unary = instr.takes(1) && !instr.takes(2);
    if !(unary && half(instr.ty().scalar()) && half(instr.source_type(0).scalar())) {
        return None;
    }
    static TABLES: OnceLock<Mutex<HashMap<(Instr, Target), &'static Table>>> = OnceLock::new();
    let mut tables = TABLES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let table = *tables.entry((*instr, target)).or_insert_with(|| {
        let mut table = Box::new([0u16; 1 << 16]);
        for (x, r) in table.iter_mut().enumerate() {
            // A packed word's low element holds x; its result is the low element's.
            *r = instr.eval_unchecked(target, &[x as u64]) as u16;
        }
        // At most one table per catalog spelling and target, kept for the process.
        Box::leak(table)
    });
    Some(Kernel::Table(table))
}

/// `table` applied to each 16-bit element.
pub(super) fn run(table: &Table, src: &[u16], dst: &mut [u16]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = table[usize::from(s)];
    }
}
