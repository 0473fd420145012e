//! The integer tensor cores (IMMA, BMMA): `mma.sync` and `wmma.mma` with `.s8`, `.u8`, `.s4`,
//! `.u4` and `.b1` operands and an `.s32` accumulator (docs/tensorcore.md).
//!
//! Integer products and sums are exact, so the only rule to decide is overflow of the `.s32`
//! result: without `.satfinite` it wraps modulo 2^32 \[INF: PTX states no wrap rule; two's
//! complement addition is the reading\]; with `.satfinite` it clamps to the s32 range
//! \[DOC PTX ISA §9.7.14.5.14\]. ptxfp clamps the exact sum `c + Σ a·b` once, at the end
//! \[INF: whether the hardware clamps once or after each partial sum is not public; the two
//! differ only when a partial sum leaves the s32 range and the whole sum comes back, which
//! needs a `c` within 2^13 (s4) or 2^20 (s8, k = 32) of the range's ends\].

/// The type of an integer `A` or `B` element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntMmaType {
    S8,
    U8,
    S4,
    U4,
    /// One bit: `mma.*.popc` combines bits instead of multiplying them.
    B1,
}

impl IntMmaType {
    pub const ALL: [IntMmaType; 5] = [IntMmaType::S8, IntMmaType::U8, IntMmaType::S4, IntMmaType::U4, IntMmaType::B1];

    /// The PTX type suffix.
    pub const fn name(self) -> &'static str {
        match self {
            IntMmaType::S8 => "s8",
            IntMmaType::U8 => "u8",
            IntMmaType::S4 => "s4",
            IntMmaType::U4 => "u4",
            IntMmaType::B1 => "b1",
        }
    }

    /// Width of an element in bits.
    pub const fn bits(self) -> u32 {
        match self {
            IntMmaType::S8 | IntMmaType::U8 => 8,
            IntMmaType::S4 | IntMmaType::U4 => 4,
            IntMmaType::B1 => 1,
        }
    }

    /// The value of an element held in the low [`IntMmaType::bits`] bits of `code` (higher bits
    /// ignored): two's complement for the signed types.
    pub const fn value(self, code: u32) -> i64 {
        let bits = self.bits();
        let field = (code & ((1u32 << bits) - 1)) as i64;
        match self {
            IntMmaType::S8 | IntMmaType::S4 if field >= 1 << (bits - 1) => field - (1 << bits),
            _ => field,
        }
    }
}

impl std::fmt::Display for IntMmaType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How `.b1` elements combine before the population count (`mma.xor.popc`, `mma.and.popc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    Xor,
    And,
}

impl BitOp {
    pub const fn name(self) -> &'static str {
        match self {
            BitOp::Xor => "xor",
            BitOp::And => "and",
        }
    }
}

/// `c + Σ a[k]·b[k]` on s32 bit patterns: wrapped modulo 2^32, or clamped to the s32 range
/// with `satfinite` (module documentation). Allocation-free.
///
/// # Panics
/// If `a` and `b` differ in length, or either type is `.b1` (use [`popc_dot`]).
pub fn int_dot(ta: IntMmaType, a: &[u32], tb: IntMmaType, b: &[u32], c: u32, satfinite: bool) -> u32 {
    assert_eq!(a.len(), b.len(), "A and B rows of one dot product differ in length");
    assert!(ta != IntMmaType::B1 && tb != IntMmaType::B1, "b1 operands combine by popc_dot");
    // |a·b| ≤ 2^16 and k ≤ 2^16 for every shape: the exact sum fits an i64 with room to spare.
    let sum = a.iter().zip(b).fold(c as i32 as i64, |acc, (&x, &y)| acc + ta.value(x) * tb.value(y));
    if satfinite {
        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
    } else {
        sum as u32
    }
}

/// `c + Σ popc(a[k] op b[k])` over single bits (bit 0 of each word), wrapped modulo 2^32
/// \[DOC PTX ISA §9.7.14.5.14: "multiplication is replaced by a sequence of logical
/// operations"; the count is added to `c`\]. Allocation-free.
///
/// # Panics
/// If `a` and `b` differ in length.
pub fn popc_dot(op: BitOp, a: &[u32], b: &[u32], c: u32) -> u32 {
    assert_eq!(a.len(), b.len(), "A and B rows of one dot product differ in length");
    let ones = a
        .iter()
        .zip(b)
        .filter(|&(&x, &y)| {
            let (x, y) = (x & 1, y & 1);
            match op {
                BitOp::Xor => x ^ y == 1,
                BitOp::And => x & y == 1,
            }
        })
        .count() as u32;
    c.wrapping_add(ones)
}
