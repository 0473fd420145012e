//! MUFU, the SASS special-function unit, modelled on the Tesla (G80/GT200) SFU.
//!
//! The model is the public bit-exact reconstruction of the Tesla SFU (envytools `nvhw/sfu.c`,
//! tables `nvhw/sfu_tab.c`, both checked against Tesla hardware by `hwtest/g80_sfu.cc`)
//! \[RE, docs/semantics.md §2.2\]: a 64- or 128-entry table of quadratic coefficients `c0, c1, c2`
//! indexed by the top bits of the significand, evaluated as `c0 + c1·xl + c2·sq(xl)` on the low
//! bits `xl` by a truncating fixed-point datapath, then packed into an f32.
//!
//! Evidence, per function:
//! - `rcp`, `rsq`: hardware-verified on modern GPUs. The model reproduces, count for count, the
//!   published exhaustive hardware histograms of MUFU.RCP over [1,2) and MUFU.RSQ over [1,2)
//!   and [2,4) on sm_80/sm_89/sm_90 \[RE+measured, docs/semantics.md §2.3a\].
//! - `ex2`, `lg2`, `sin`, `cos`: the Tesla datapath, with the sm_70+ conversions of the float
//!   operand to the fixed-point words of EX2 and SIN/COS (docs/semantics.md §2.3, §3).
//!   Hardware-verified on sm_90: an H200 and an H100 returned the model's bits on all 2^32
//!   inputs of `ex2`, `lg2`, `sin` and `cos` `.approx{.ftz}.f32` \[HW, docs/semantics.md §2.3\];
//!   EX2 also reproduces a V100's exhaustive `exp2f` counts (§2.3a). Other generations \[INF\].
//! - `sqrt`, `tanh` and the 16-bit and 64H forms: docs/semantics.md §2.3b \[HW on sm_90\].
//!
//! Every function flushes subnormal inputs and outputs to a zero of the same sign ("Denorm
//! input/output is flushed", opMUFU \[DOC\], docs/semantics.md §5), and every NaN result is the canonical
//! NaN 0x7FFFFFFF \[DOC opMUFU, docs/semantics.md §4\]. `.SAT` is applied by the caller
//! ([`crate::round::saturate`]).
//!
//! The tables are the project's copy of the envytools LUTs, `data/tesla_sfu_tables.csv` (MIT
//! notice included), compiled into the crate and parsed when it is compiled.
//!
//! The f32 functions are `#[inline(always)]` and their helpers `#[inline]`: a caller's loop
//! (the scalar call's dispatch, the exhaustive tests' readings) compiles the datapath in
//! instead of calling it per word, which made the readings of tests/exhaustive_unary_f32.rs
//! 15–45 % faster (`#[inline]` alone left them calls).

pub mod ex2;
pub mod ex2_half;
pub mod lg2;
pub mod rcp;
pub mod rcp64h;
pub mod rro;
pub mod rsq;
pub mod rsq64h;
pub mod sincos;
pub mod sqrt;
pub mod tanh;

pub use lg2::lg2;
pub use rcp::rcp;
pub use rsq::rsq;
// The other functions by their SASS names, for tests/ (feature `internals`).
#[cfg(feature = "internals")]
pub use ex2::{ex2, ex2_fixed};
#[cfg(feature = "internals")]
pub use rro::{rro_ex2, rro_sincos};
#[cfg(feature = "internals")]
pub use sincos::{cos, cos_fixed, sin, sin_fixed};

use crate::format::Format;

const F32: Format = Format::F32;

/// The NaN every MUFU function writes, whatever the input NaN \[DOC opMUFU, docs/semantics.md §4\].
pub(crate) const NAN: u32 = F32.canonical_nan() as u32;

/// One table row: the coefficients `[c0, c1, c2]` exactly as the LUT holds them (two's
/// complement). c0 ≈ f(x_i) (26 bits), c1 ≈ f'(x_i) (16 bits, 15 for sin), c2 ≈ f''(x_i)
/// (10 bits, 11 for sin) \[RE, docs/semantics.md §2.2\].
pub type Row = [i32; 3];

/// The SFU lookup tables: the five of the Tesla SFU (23,296 bits in all) \[RE, docs/semantics.md §2.2\]
/// and the two that sm_52+ (SQRT) and sm_75+ (TANH) added, recovered from an H200
/// ([`sqrt`], [`tanh`]).
#[derive(Debug)]
pub struct Tables {
    /// Reciprocal on [1,2), indexed by the top 7 fraction bits.
    pub rcp: [Row; 128],
    /// Reciprocal square root on [1,4), indexed by the exponent parity and the top 6 fraction
    /// bits.
    pub rsqrt: [Row; 128],
    /// sin(π/2·f) over one quadrant, indexed by the top 6 bits of the quadrant fraction f.
    pub sin: [Row; 64],
    /// 2^f on [0,1), indexed by the top 6 fraction bits.
    pub ex2: [Row; 64],
    /// log2 on [1,2), indexed by the top 6 fraction bits.
    pub lg2: [Row; 64],
    /// Square root on [0.5, 2), indexed by the exponent parity and the top 6 fraction bits
    /// ([`sqrt::sqrt`]).
    pub sqrt: [Row; 128],
    /// tanh on [2^-8, 8) in 51 segments of unequal width ([`tanh::tanh`]).
    pub tanh: [Row; tanh::ROWS],
}

/// The Tesla tables' CSV (compiled in; no file is read at run time).
const TABLES_CSV: &str = include_str!("../../data/tesla_sfu_tables.csv");
/// The SQRT and TANH tables' CSV, written by `scripts/recover_sfu_tables.py` from the H200's
/// results (compiled in).
const SM90_CSV: &str = include_str!("../../data/sm90_sfu_tables.csv");

/// The tables, parsed from the CSVs when the crate is compiled: a malformed file fails the
/// build, and a lookup is one load from a constant array.
static TABLES: Tables = Tables {
    rcp: rows(TABLES_CSV, "rcp"),
    rsqrt: rows(TABLES_CSV, "rsqrt"),
    sin: rows(TABLES_CSV, "sin"),
    ex2: rows(TABLES_CSV, "ex2"),
    lg2: rows(TABLES_CSV, "lg2"),
    sqrt: rows(SM90_CSV, "sqrt"),
    tanh: rows(SM90_CSV, "tanh"),
};

/// The SFU tables.
#[inline]
pub fn tables() -> &'static Tables {
    &TABLES
}

/// The `N` rows of `func` in a CSV of `func,idx,c0,c1,c2` lines (coefficients in 0x-hex, as
/// 32-bit two's complement), which must list them in index order; other lines (blank, `#`
/// comments, the `func,` header, other functions) are skipped. A `const fn`, so that a
/// malformed file is a compile error.
const fn rows<const N: usize>(csv: &str, func: &str) -> [Row; N] {
    let (csv, func) = (csv.as_bytes(), func.as_bytes());
    let mut rows = [[0; 3]; N];
    let mut count = 0;
    let mut at = 0;
    while at < csv.len() {
        let mut end = at;
        while end < csv.len() && csv[end] != b'\n' {
            end += 1;
        }
        if starts_with_field(csv, at, end, func) {
            let (index, mut next) = field(csv, at + func.len() + 1, end, 10);
            assert!(index as usize == count, "SFU tables: rows must be listed in index order");
            assert!(count < N, "SFU tables: more rows than the table has");
            let mut c = 0;
            while c < 3 {
                let hex = next + 2 <= end && csv[next] == b'0' && csv[next + 1] == b'x';
                assert!(hex, "SFU tables: a coefficient is not 0x-hex");
                let (word, after) = field(csv, next + 2, end, 16);
                rows[count][c] = word as i32;
                next = after;
                c += 1;
            }
            assert!(next > end, "SFU tables: a row has more than 5 fields");
            count += 1;
        }
        at = end + 1;
    }
    assert!(count == N, "SFU tables: fewer rows than the table has");
    rows
}

/// Whether the line `csv[at..end]` begins with the field `name` and a comma.
const fn starts_with_field(csv: &[u8], at: usize, end: usize, name: &[u8]) -> bool {
    if end - at <= name.len() || csv[at + name.len()] != b',' {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        if csv[at + i] != name[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The unsigned 32-bit number in base `radix` (10 or 16) from `csv[at]` to the next comma or
/// `end`, and the position after that comma (or after `end`).
const fn field(csv: &[u8], at: usize, end: usize, radix: u32) -> (u32, usize) {
    let mut value: u64 = 0;
    let mut i = at;
    while i < end && csv[i] != b',' {
        let digit = match csv[i] {
            b'0'..=b'9' => csv[i] - b'0',
            b'a'..=b'f' if radix == 16 => csv[i] - b'a' + 10,
            b'A'..=b'F' if radix == 16 => csv[i] - b'A' + 10,
            _ => panic!("SFU tables: a field is not a number"),
        };
        value = value * radix as u64 + digit as u64;
        assert!(value <= u32::MAX as u64, "SFU tables: a field is wider than 32 bits");
        i += 1;
    }
    assert!(i > at, "SFU tables: an empty field");
    (value as u32, i + 1)
}

/// The SFU's truncated squarer: `(Σ_{i<17, bit i of v set} v >> (18 − i)) >> 1`, which
/// approximates v²/2^19 for a 17-bit `v` by summing truncated partial products
/// \[RE, docs/semantics.md §2.2\].
///
/// Computed with 7 partial products instead of 17: `sq(v) = (a² >> 1) + Σ_{j=2..8} v_j·(a >> (9 − j))`
/// with `a = v >> 9`. `2·sq(v) + v_0` is Σ v_i·v_j·2^(i+j−18) over the bit pairs with
/// i + j ≥ 18 (partial product i is `v >> (18 − i)`), a symmetric sum: the pairs of two bits of
/// `a` (bits 9..16) all qualify and give a²; pairs of two bits of v[8:0] never do; the mixed
/// pairs come twice and give the sum. `tests::squarer_is_the_sum_of_partial_products` checks
/// all 2^17 inputs against the 17-product definition.
#[inline]
pub(crate) fn sq(v: u32) -> u32 {
    let a = v >> 9;
    // An exclusive range: `2..=8` kept the loop rolled (RangeInclusive's exhaustion flag).
    // Seven terms below 2^8 cannot overflow; a wrapping sum spares the test profile's
    // overflow checks.
    let mixed = (2..9).map(|j| (v >> j & 1) * (a >> (9 - j))).fold(0, u32::wrapping_add);
    ((a * a) >> 1) + mixed
}

/// The quadratic interpolation `(c0 << s0) + c1·x + ((c2·x2) << s2)` of one table row, with
/// `x2` the truncated square of (a shift of) `x`. Exact in i64 \[RE, docs/semantics.md §2.2\].
#[inline]
pub(crate) fn interpolate(row: Row, s0: u32, x: u32, x2: u32, s2: u32) -> i64 {
    let [c0, c1, c2] = row.map(i64::from);
    (c0 << s0) + c1 * i64::from(x) + ((c2 * i64::from(x2)) << s2)
}

/// Pack an SFU result (`fp32_mkfin` with FTZ in envytools): `f` is the significand with its
/// implicit bit (2^23 ≤ f ≤ 2^24; 2^24 renormalises to exponent e + 1) or 0 for a zero, `e`
/// the biased exponent. A biased exponent ≤ 0 gives a zero of the same sign (output FTZ,
/// docs/semantics.md §5), ≥ 255 gives ±Inf \[RE, docs/semantics.md §2.2\]. `f` is already rounded or truncated
/// by the datapath, so nothing is rounded here. (The truncating SIN/COS and LG2 paths cannot
/// overflow, so the direction that envytools passes for them does not matter.)
#[inline]
pub(crate) fn pack(neg: bool, e: i32, f: u32) -> u32 {
    let sign = if neg { F32.sign_bit() as u32 } else { 0 };
    if f == 0 {
        return sign;
    }
    debug_assert!((1 << 23..=1 << 24).contains(&f), "SFU significand {f:#x} not normalised");
    let (e, f) = if f == 1 << 24 { (e + 1, f >> 1) } else { (e, f) };
    if e <= 0 {
        sign
    } else if e >= F32.exp_mask() as i32 >> F32.frac_bits() {
        F32.inf(neg) as u32
    } else {
        sign | (e as u32) << F32.frac_bits() | (f & F32.frac_mask() as u32)
    }
}

/// The output of the `.F16` and `.BF16` MUFU forms (EX2, TANH): the f32 datapath's result `r`
/// with its significand truncated into `fmt`, a finite result beyond `fmt`'s largest binade
/// ±Inf, a NaN `fmt`'s canonical NaN. \[Measured on sm_90: an H200's `ex2.approx.f16`,
/// `ex2.approx.ftz.bf16`, `tanh.approx.f16` and `tanh.approx.bf16` on all 2^16 inputs; for
/// example `ex2.approx.f16(16)` is +Inf where truncation alone would give 65504.\]
pub(crate) fn narrow_truncated(fmt: Format, r: u32) -> u16 {
    if F32.is_nan(r.into()) {
        return fmt.canonical_nan() as u16;
    }
    let beyond = (r & 0x7FFF_FFFF) >> 23 > (F32.bias() + fmt.emax()) as u32;
    let narrow = if beyond {
        fmt.inf(r >> 31 != 0)
    } else {
        crate::ops::cvt::cvt(F32, fmt, r.into(), crate::round::Rounding::Rz, false)
    };
    narrow as u16
}

/// Normalise the fixed-point value `r` (top bit at most `top`) so that its leading one sits
/// at bit `top`, lowering the biased exponent `e` (the exponent of bit `top`) by each shift,
/// then **truncate** to a 24-bit significand and pack. The SIN/COS and LG2 datapaths end this
/// way (envytools `norm64` + `>>`) \[RE, docs/semantics.md §2.2\].
#[inline]
pub(crate) fn pack_truncated(neg: bool, e: i32, r: u64, top: u32) -> u32 {
    debug_assert!(r >> top <= 1, "SFU accumulator {r:#x} wider than bit {top}");
    if r == 0 {
        return pack(neg, e, 0);
    }
    // The leading one sits at bit 63 − lz ≤ top, so the shift is lz + top − 63 ≥ 0 (saturated
    // rather than checked: where overflow checks are on, a caller's loop has no panic path).
    let shift = (r.leading_zeros() + top).saturating_sub(63);
    pack(neg, e - shift as i32, ((r << shift) >> (top - 23)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The special values of the SASS MUFU page (opMUFU) as it lists them, one row per f32
    /// function: the result for −denorm, −0, +0, +denorm, −Inf, +Inf and NaN [DOC].
    #[test]
    fn special_values_of_the_mufu_page() {
        const NEG_INF: u32 = 0xFF80_0000;
        const INF: u32 = 0x7F80_0000;
        const NEG_ZERO: u32 = 0x8000_0000;
        const ONE: u32 = 0x3F80_0000;
        type PageRow = (&'static str, fn(u32) -> u32, [u32; 7]);
        #[rustfmt::skip]
        let page: [PageRow; 7] = [
            //        -denorm   -0        +0       +denorm  -Inf      +Inf  NaN
            ("RCP",  rcp::rcp,    [NEG_INF,  NEG_INF,  INF,     INF,     NEG_ZERO, 0,    NAN]),
            ("RSQ",  rsq::rsq,    [NEG_INF,  NEG_INF,  INF,     INF,     NAN,      0,    NAN]),
            ("LG2",  lg2::lg2,    [NEG_INF,  NEG_INF,  NEG_INF, NEG_INF, NAN,      INF,  NAN]),
            ("EX2",  ex2::ex2,    [ONE,      ONE,      ONE,     ONE,     0,        INF,  NAN]),
            ("SIN",  sincos::sin, [NEG_ZERO, NEG_ZERO, 0,       0,       NAN,      NAN,  NAN]),
            ("COS",  sincos::cos, [ONE,      ONE,      ONE,     ONE,     NAN,      NAN,  NAN]),
            ("SQRT", sqrt::sqrt,  [NEG_ZERO, NEG_ZERO, 0,       0,       NAN,      INF,  NAN]),
        ];
        let denorms = [0x0000_0001, 0x0040_0000, 0x007F_FFFF];
        let nans = [0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0x7FFF_FFFF];
        let classes: [&[u32]; 7] =
            [&denorms.map(|d| d | NEG_ZERO), &[NEG_ZERO], &[0], &denorms, &[NEG_INF], &[INF], &nans];
        for (name, function, results) in page {
            for (inputs, want) in classes.iter().zip(results) {
                for &x in *inputs {
                    assert_eq!(function(x), want, "{name}({x:#010x})");
                }
            }
        }
    }

    #[test]
    fn tables_have_the_documented_geometry() {
        let t = tables();
        assert_eq!((t.rcp.len(), t.rsqrt.len()), (128, 128));
        assert_eq!((t.sin.len(), t.ex2.len(), t.lg2.len()), (64, 64, 64));
        // Rows as written in envytools nvhw/sfu_tab.c (and in the shared CSV).
        assert_eq!(t.rcp[0], [0x3fffffe, 0xffff0002u32 as i32, 0x3f5]);
        assert_eq!(t.rcp[3], [0x3e88cb3, -0x10000 + 0x0b99, 0x3b1]);
        assert_eq!(t.sin[0], [0, 0x6489, -14]);
        assert_eq!(t.sin[1], [0x019214e, 0x6482, 0xffffffd0u32 as i32]);
        assert_eq!(t.ex2[0], [0x2000000, 0x58b9, 0x1ee]);
        assert_eq!(t.ex2[2], [0x20b361b, 0x5aaa, 0x1fa]);
        assert_eq!(t.lg2[0], [4, 0xb8a8, 0xfffffd29u32 as i32]);
        assert_eq!(t.lg2[63], [0x3f469c1, 0x5d0f, 0xffffff46u32 as i32]);
        // c0 is a 26-bit magnitude in every table.
        for row in t.rcp.iter().chain(&t.rsqrt).chain(&t.sin).chain(&t.ex2).chain(&t.lg2) {
            assert!((0..1 << 26).contains(&row[0]), "{row:x?}");
        }
    }

    #[test]
    fn csv_keeps_its_licence_notice() {
        assert!(TABLES_CSV.contains("Permission is hereby granted, free of charge"));
        assert!(TABLES_CSV.contains("envytools"));
    }

    /// The squarer as the SFU's datapath defines it: the 17 truncated partial products.
    fn sq_by_partial_products(v: u32) -> u32 {
        let sum: u32 = (0..17).filter(|i| v >> i & 1 != 0).map(|i| v >> (18 - i)).sum();
        sum >> 1
    }

    #[test]
    fn squarer_is_the_sum_of_partial_products() {
        for v in 0..1u32 << 17 {
            assert_eq!(sq(v), sq_by_partial_products(v), "sq({v:#x})");
        }
    }

    #[test]
    fn squarer_truncates_partial_products() {
        assert_eq!(sq(0), 0);
        assert_eq!(sq(1 << 16), 1 << 13); // one partial product, exact: 2^32 / 2^19
                                          // v = 3: partial products 3 >> 18 and 3 >> 17 are both 0.
        assert_eq!(sq(3), 0);
        // v = 0x1FFFF: Σ_{i<17} 0x1FFFF >> (18 − i) = Σ_{k=2..18} ⌊(2^17 − 1) / 2^k⌋.
        let all_ones: u32 = (2..=18).map(|k| 0x1FFFF >> k).sum();
        assert_eq!(sq(0x1FFFF), all_ones >> 1);
        // Truncation only ever loses: sq(v) ≤ v²/2^19, by less than 9 units (17 products of
        // < 1 each, then halved).
        for v in (0..1u32 << 17).step_by(7) {
            let exact = u64::from(v) * u64::from(v);
            let got = u64::from(sq(v)) << 19;
            assert!(got <= exact && exact - got < 9 << 19, "sq({v:#x})");
        }
    }

    #[test]
    fn pack_renormalises_and_flushes() {
        assert_eq!(pack(false, 127, 1 << 23), 0x3F80_0000);
        assert_eq!(pack(false, 127, 1 << 24), 0x4000_0000);
        assert_eq!(pack(true, 127, (1 << 24) - 1), 0xBFFF_FFFF);
        assert_eq!(pack(true, 0, 1 << 23), 0x8000_0000);
        assert_eq!(pack(false, 0, 1 << 24), 0x0080_0000);
        assert_eq!(pack(false, 254, 1 << 24), 0x7F80_0000);
        assert_eq!(pack(true, 5, 0), 0x8000_0000);
        assert_eq!(pack_truncated(false, 127, 1 << 37, 37), 0x3F80_0000);
        assert_eq!(pack_truncated(false, 127, (1 << 38) - 1, 37), 0x3FFF_FFFF);
        // 0x3FFF = 1.1111111111111b · 2^13: 24 shifts up, exponent 127 − 24.
        assert_eq!(pack_truncated(false, 127, 0x3FFF, 37), (103 << 23) | 0x7F_FC00);
    }
}
