//! `min` and `max` (PTX 9.7.3.11–12, 9.7.4.7–8), following the PTX pseudo-code: `.ftz`,
//! `.NaN`, `.abs`, `.xorsign.abs` and the three-input form (docs/semantics.md §4).

use crate::format::Format;
use crate::nan;

/// Which extreme to select.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extreme {
    Min,
    Max,
}

/// The modifiers of a `min`/`max`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMaxModifiers {
    pub ftz: bool,
    /// `.NaN`: any NaN input gives the canonical NaN.
    pub nan: bool,
    /// `.abs`: compare magnitudes.
    pub abs: bool,
    /// `.xorsign` (with `.abs`, two inputs only): the result's sign is the XOR of the input
    /// signs, unless the result is NaN.
    pub xorsign: bool,
}

/// `min`/`max` of two or three operands.
///
/// Without `.NaN` one NaN input yields the other input, two give a NaN; −0 < +0 \[DOC\]. The NaN
/// of two NaN inputs is the canonical NaN for f32/f16/bf16 \[DOC\]; for f64 it is the first
/// input with its quiet bit forced (DSETP + `OR 0x00080000`, \[PTXAS\]; which input \[UNK\]).
pub fn minmax(fmt: Format, which: Extreme, operands: &[u64], m: MinMaxModifiers) -> u64 {
    let prepare = |x: u64| {
        let x = if m.ftz { fmt.flush_subnormal(x) } else { x };
        if m.abs {
            fmt.abs(x)
        } else {
            x & fmt.mask()
        }
    };
    let xorsign = fmt.is_neg(operands[0]) != fmt.is_neg(operands[1]);
    let mut result = prepare(operands[0]);
    for &x in &operands[1..] {
        result = select(fmt, which, result, prepare(x), m.nan);
    }
    if m.xorsign && !fmt.is_nan(result) {
        result = fmt.abs(result) | if xorsign { fmt.sign_bit() } else { 0 };
    }
    result
}

fn select(fmt: Format, which: Extreme, x: u64, y: u64, nan_mode: bool) -> u64 {
    match (fmt.is_nan(x), fmt.is_nan(y)) {
        (true, true) => nan::propagate(fmt, &nan::in_order([x, y], nan::F64_NAN_ORDER)),
        (true, false) | (false, true) if nan_mode => fmt.canonical_nan(),
        (true, false) => y,
        (false, true) => x,
        (false, false) => {
            let x_first = (order_key(fmt, x) < order_key(fmt, y)) == (which == Extreme::Min);
            if x_first {
                x
            } else {
                y
            }
        }
    }
}

/// A key whose unsigned order is the numeric order of non-NaN values, with −0 < +0.
fn order_key(fmt: Format, x: u64) -> u64 {
    if fmt.is_neg(x) {
        !x & fmt.mask()
    } else {
        x | fmt.sign_bit()
    }
}
