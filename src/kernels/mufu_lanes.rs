//! The lane arithmetic the MUFU kernels share: the SFU tables re-laid for lane-parallel
//! lookup, the truncated squarer, the quadratic interpolation and the conversions of its
//! fixed-point result to an f32 (docs/semantics.md §2.2).
//!
//! Every datapath value is an integer, so nothing is approximated: the interpolation
//! `(c0 << s0) + c1·xl + (c2·sq << s2) + k` is split into two i32 parts `p·2^9 + y` whose
//! products are exact 16×16-bit multiply-adds (`pmaddwd`).
//!
//! Some steps have an AVX-512 or AVX2 form beside the portable one, chosen by the level `L`
//! ([`super::level`]); all are exact, so the bits never depend on the level (the equivalence
//! tests run every level the machine has):
//! - table lookups: AVX-512 permutes, else per-lane indexing (one 64-bit load per lane
//!   holding both words of its row);
//! - the truncated squarer: shifts by constants on sixteen 16-bit lanes with AVX2 and
//!   AVX-512, the scalar squarer per lane at the baseline;
//! - the float-to-fixed conversion of SIN/COS and the final normalise-and-truncate of SIN/COS
//!   and LG2: AVX-512 conversions with embedded round-toward-zero, `vreduceps` and
//!   `vscalefps`, else integer shifts and exact f64 arithmetic;
//! - moving between 32- and 64-bit lanes ([`narrow`], [`widen`]): in-lane shuffles with AVX2.
//!
//! No host floating-point operation ever sees a subnormal operand or result
//! (the AVX-512 forms zero such lanes first where they cannot matter), so flush-to-zero
//! settings cannot change a result and no lane takes a microcode assist.
//!
//! SAFETY (every intrinsic below): a function's AVX-512 or AVX2 branch runs only when its
//! level has that instruction set (`L::AVX512`, `L::AVX2`), and the kernel loop it is inlined
//! into is compiled with it ([`super::level::Isa::groups`]); the intrinsics only compute.

use std::sync::LazyLock;

use bytemuck::cast;

use super::lanes::{build, each, join};
use super::level::{inlined, Isa};
use super::simd::{f64x8, i32x16, i32x8, u32x16, u64x8};
use crate::mufu::{tables, tanh, Row};

pub(super) type U = u32x16;
pub(super) type I = i32x16;

/// Reinterpret unsigned lanes as signed.
#[inline(always)]
pub(super) fn s(v: U) -> I {
    v.cast_signed()
}

/// Reinterpret signed lanes as unsigned.
#[inline(always)]
pub(super) fn u(v: I) -> U {
    v.cast_unsigned()
}

#[inline(always)]
pub(super) fn splat(v: u32) -> U {
    U::splat(v)
}

/// The lanes of `a` equal to `b`.
#[inline(always)]
pub(super) fn eq(a: U, b: u32) -> U {
    a.simd_eq(splat(b))
}

/// `a.lo·b.lo + a.hi·b.hi` per 32-bit lane, the 16-bit halves taken as signed (`pmaddwd`,
/// one instruction per register at every x86-64 level).
#[inline(always)]
pub(super) fn madd<L: Isa>(a: U, b: U) -> I {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        if L::AVX512 {
            return unsafe { _mm512_madd_epi16(a.into(), b.into()) }.into();
        }
        if L::AVX2 {
            let (a, b): ([__m256i; 2], [__m256i; 2]) = (cast(a), cast(b));
            return cast(unsafe { [_mm256_madd_epi16(a[0], b[0]), _mm256_madd_epi16(a[1], b[1])] });
        }
        let (a, b): ([__m128i; 4], [__m128i; 4]) = (cast(a), cast(b));
        // SAFETY: SSE2 is part of every x86-64 target.
        cast(unsafe {
            [
                _mm_madd_epi16(a[0], b[0]),
                _mm_madd_epi16(a[1], b[1]),
                _mm_madd_epi16(a[2], b[2]),
                _mm_madd_epi16(a[3], b[3]),
            ]
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    cast::<U, super::simd::i16x32>(a).dot(cast(b))
}
/// One SFU table (docs/semantics.md §2.2) as two words per row:
/// `w0 = c0 << (s0 − 9)` and `w1 = (c1 >> 4) << 16 | (c2 & 0xFFF) << 4 | (c1 & 15)`.
/// The low and high halves of `w1 & 0xFFFF_000F` are the two pieces of c1 that one `pmaddwd`
/// with `[x, 16x]` recombines into c1·x; bits 4..15 hold c2. The ranges this relies on
/// (c0 << s0 < 2^41, −2^15 ≤ c1 >> 4 < 2^15, −2^11 ≤ c2 < 2^11) are checked when the layout is built.
/// Both layouts are kept: vectors of 16 rows for the AVX-512 permutes, and row i as
/// `w0 | w1 << 32` for per-lane loads (the 64-row tables use the first half).
pub(super) struct Coeffs<const V: usize> {
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    w0: [U; V],
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    w1: [U; V],
    rows: [u64; 128],
}

impl<const V: usize> Coeffs<V> {
    fn new(rows: &[Row], s0: u32) -> Coeffs<V> {
        assert_eq!(rows.len(), 16 * V);
        let mut w0 = vec![];
        let mut w1 = vec![];
        for &[c0, c1, c2] in rows {
            assert!((0..1 << (41 - s0)).contains(&c0), "c0 {c0:#x} << {s0} is wider than 41 bits");
            assert!((-1 << 19..1 << 19).contains(&c1), "c1 {c1:#x} is wider than 20 bits");
            assert!((-1 << 11..1 << 11).contains(&c2), "c2 {c2:#x} is wider than 12 bits");
            w0.push((c0 as u32) << (s0 - 9));
            w1.push(((c1 >> 4) as u32) << 16 | ((c2 as u32) & 0xFFF) << 4 | (c1 as u32) & 15);
        }
        let vectors = inlined(
            #[inline(always)]
            |words: &[u32]| std::array::from_fn(|i| U::new(words[16 * i..][..16].try_into().unwrap())),
        );
        let mut table = [0; 128];
        for (t, (&w0, &w1)) in table.iter_mut().zip(w0.iter().zip(&w1)) {
            *t = u64::from(w1) << 32 | u64::from(w0);
        }
        Coeffs { w0: vectors(&w0), w1: vectors(&w1), rows: table }
    }

    /// `(w0, w1)` of row `idx` per lane (`idx < 16·V`).
    #[inline(always)]
    fn words<L: Isa>(&self, idx: U) -> (U, U) {
        #[cfg(target_arch = "x86_64")]
        {
            if L::AVX512 {
                return (permute(&self.w0, idx), permute(&self.w1, idx));
            }
            if L::AVX2 {
                return self.words_avx2(idx);
            }
        }
        let (mut w0, mut w1) = ([0; 16], [0; 16]);
        for ((w0, w1), i) in w0.iter_mut().zip(&mut w1).zip(idx.to_array()) {
            let row = self.rows[i as usize];
            (*w0, *w1) = (row as u32, (row >> 32) as u32);
        }
        (U::new(w0), U::new(w1))
    }

    /// [`Coeffs::words`] with AVX2: each row's two words by one scalar 64-bit load, then
    /// split. AVX2 gathers cost more here than the scalar loads, whose index arithmetic runs on
    /// the integer units the vector code leaves idle.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn words_avx2(&self, idx: U) -> (U, U) {
        use std::arch::x86_64::*;
        /// The rows of eight lanes' indices.
        #[inline(always)]
        fn half(rows: &[u64; 128], idx: __m256i) -> (__m256i, __m256i) {
            let row = inlined(
                #[inline(always)]
                |pair: i64, high: bool| rows[(if high { pair >> 32 } else { pair } & 0x7F) as usize] as i64,
            );
            unsafe {
                let (lo, hi) = (_mm256_castsi256_si128(idx), _mm256_extracti128_si256::<1>(idx));
                let pairs = [
                    _mm_cvtsi128_si64(lo),
                    _mm_extract_epi64::<1>(lo),
                    _mm_cvtsi128_si64(hi),
                    _mm_extract_epi64::<1>(hi),
                ];
                let r: [i64; 8] = build(|k| row(pairs[k / 2], k % 2 == 1));
                // Rows 0, 1, 4, 5 and 2, 3, 6, 7: the in-lane shuffles below then give lane order.
                let a = _mm256_castsi256_ps(_mm256_set_epi64x(r[5], r[4], r[1], r[0]));
                let b = _mm256_castsi256_ps(_mm256_set_epi64x(r[7], r[6], r[3], r[2]));
                let w0 = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b));
                let w1 = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a, b));
                (w0, w1)
            }
        }
        let [lo, hi]: [__m256i; 2] = cast(idx);
        let ((w0_lo, w1_lo), (w0_hi, w1_hi)) = (half(&self.rows, lo), half(&self.rows, hi));
        (cast([w0_lo, w0_hi]), cast([w1_lo, w1_hi]))
    }

    /// The interpolation of docs/semantics.md §2.2, `(c0 << s0) + c1·xl + ((c2·x2) << s2) + k`, for
    /// the row `idx` of each lane, as `(p, y)` with value `p·2^9 + y`; `xl` has at most 17
    /// bits, `x2 = sq(…)` at most 15. `y` is exact (|y| < 2^29). `p` is exact modulo 2^32, and
    /// exact for the SIN and LG2 tables (0 ≤ p < 2^30), whose callers read it; the others read
    /// only `p + (y >> 9)`, the value divided by 2^9, which lies in [0, 2^32) (TANH also the
    /// remainder `y & 511`).
    #[inline(always)]
    pub(super) fn interpolate<L: Isa>(&self, idx: U, xl: U, x2: U, s2: u32, k: i32) -> (I, I) {
        let (w0, w1) = self.words::<L>(idx);
        let c1 = w1 & splat(0xFFFF_000F);
        let c2 = u(s(w1 << 16) >> 20);
        // xl = xh·2^9 + xlo; [x, 16x] as 16-bit halves is x | x << 20.
        let (xh, xlo) = (xl >> 9, xl & splat(0x1FF));
        let p = s(w0) + madd::<L>(c1, xh | xh << 20);
        let y = madd::<L>(c1, xlo | xlo << 20) + (madd::<L>(c2, x2) << s2) + I::splat(k);
        (p, y)
    }
}

/// The word of row `idx` per lane from `V` vectors of 16 rows (`idx < 16·V`, V = 4 or 8), by
/// AVX-512 two-table permutes of 32 rows each and blends on the index bits 5 and 6.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn permute<const V: usize>(rows: &[U; V], idx: U) -> U {
    use std::arch::x86_64::*;
    let t = inlined(
        #[inline(always)]
        |i: usize| __m512i::from(rows[i]),
    );
    let i = __m512i::from(idx);
    unsafe {
        let k32 = _mm512_test_epi32_mask(i, _mm512_set1_epi32(32));
        let lo = _mm512_mask_blend_epi32(
            k32,
            _mm512_permutex2var_epi32(t(0), i, t(1)),
            _mm512_permutex2var_epi32(t(2), i, t(3)),
        );
        if V == 4 {
            return lo.into();
        }
        let hi = _mm512_mask_blend_epi32(
            k32,
            _mm512_permutex2var_epi32(t(4), i, t(5)),
            _mm512_permutex2var_epi32(t(6), i, t(7)),
        );
        let k64 = _mm512_test_epi32_mask(i, _mm512_set1_epi32(64));
        _mm512_mask_blend_epi32(k64, lo, hi).into()
    }
}
/// The SFU tables in lookup layout, each with the shift s0 of its `c0` (docs/semantics.md §2.2), built
/// once from [`crate::mufu::tables`]; TANH's, whose coefficients are wider, in its own layout
/// ([`TanhTable`]).
pub(super) struct Luts {
    pub rcp: Coeffs<8>,
    pub rsq: Coeffs<8>,
    pub ex2: Coeffs<4>,
    pub lg2: Coeffs<4>,
    pub sin: Coeffs<4>,
    pub sqrt: Coeffs<8>,
    pub tanh: TanhTable,
}

static LUTS: LazyLock<Luts> = LazyLock::new(|| {
    let t = tables();
    Luts {
        rcp: Coeffs::new(&t.rcp, 13),
        rsq: Coeffs::new(&t.rsqrt, 14),
        ex2: Coeffs::new(&t.ex2, 13),
        lg2: Coeffs::new(&t.lg2, 12),
        sin: Coeffs::new(&t.sin, 11),
        sqrt: Coeffs::new(&t.sqrt, 14),
        tanh: TanhTable::new(),
    }
});

/// The TANH table ([`crate::mufu::tanh`]) in lookup layout: its 51 rows padded to 64, `c0`,
/// `c1` and `c2` as i32 words (vectors of 16 rows for the AVX-512 permutes, and rows for
/// per-lane loads), and per binade k = biased exponent − 119 (0..=10) the word
/// `first row | shift << 8`, where `xl = frac >> shift` and the row is
/// `first + (frac >> (shift + 17))` ([`tanh::segment`]).
pub(super) struct TanhTable {
    binades: U,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    words: [[U; 4]; 3],
    rows: [Row; 64],
}

impl TanhTable {
    fn new() -> TanhTable {
        let mut rows = [[0; 3]; 64];
        rows[..tanh::ROWS].copy_from_slice(&tables().tanh);
        let binades = U::new(build(|k| {
            let (first, shift) = if k <= 10 { tanh::segment((119 + k as u32) << 23) } else { (0, 0) };
            first as u32 | shift << 8
        }));
        let words = std::array::from_fn(|c| std::array::from_fn(|v| U::new(build(|i| rows[16 * v + i][c] as u32))));
        TanhTable { binades, words, rows }
    }

    /// The row and interpolation operand of each lane of |x| (biased exponent 119..=129).
    #[inline(always)]
    pub(super) fn segment<L: Isa>(&self, a: U) -> (U, U) {
        let k = (a >> 23) - 119u32;
        let word = lookup16::<L>(self.binades, k);
        let (shift, frac) = (word >> 8, a & 0x7F_FFFFu32);
        let row = (word & 0xFFu32) + (frac >> (shift + 17u32));
        (row, frac >> shift & 0x1_FFFFu32)
    }

    /// `[c0, c1, c2]` of row `row` per lane (`row < 64`).
    #[inline(always)]
    pub(super) fn coefficients<L: Isa>(&self, row: U) -> [I; 3] {
        #[cfg(target_arch = "x86_64")]
        if L::AVX512 {
            let w = &self.words;
            return [s(permute(&w[0], row)), s(permute(&w[1], row)), s(permute(&w[2], row))];
        }
        let r = row.to_array();
        let word = inlined(
            #[inline(always)]
            |c: usize| I::new(build(|i| self.rows[r[i] as usize & 63][c])),
        );
        [word(0), word(1), word(2)]
    }
}

/// `table[idx]` per lane (`idx < 16`): a permute with AVX-512, else per-lane indexing.
#[inline(always)]
fn lookup16<L: Isa>(table: U, idx: U) -> U {
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        use std::arch::x86_64::*;
        return unsafe { _mm512_permutexvar_epi32(__m512i::from(idx), __m512i::from(table)) }.into();
    }
    let t = table.to_array();
    U::new(each(idx.to_array(), |i| t[i as usize & 15]))
}

pub(super) fn luts() -> &'static Luts {
    &LUTS
}

/// The SFU's truncated squarer `sq(v)` of a 17-bit `v` (docs/semantics.md §2.2), per lane, by the
/// split into 7 partial products that [`crate::mufu::sq`] explains. With AVX2 and AVX-512 the
/// sixteen lanes' `w = v >> 1` (< 2^16) go into the 16-bit lanes of one 256-bit vector
/// ([`sq_words`]); at the baseline, the scalar squarer of each lane.
#[inline(always)]
pub(super) fn sq<L: Isa>(v: U) -> U {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        if L::AVX512 {
            // vpmovdw and vpmovzxwd keep the lane order.
            let w = unsafe { _mm512_cvtepi32_epi16(__m512i::from(v >> 1)) };
            return unsafe { _mm512_cvtepu16_epi32(sq_words(w)) }.into();
        }
        if L::AVX2 {
            let [lo, hi]: [__m256i; 2] = cast(v >> 1);
            unsafe {
                // w < 2^16: the signed-to-unsigned saturating pack is exact. The pack
                // interleaves the two vectors' 128-bit halves, which the unpacks undo.
                let sum = sq_words(_mm256_packus_epi32(lo, hi));
                let zero = _mm256_setzero_si256();
                return cast([_mm256_unpacklo_epi16(sum, zero), _mm256_unpackhi_epi16(sum, zero)]);
            }
        }
    }
    U::new(each(v.to_array(), crate::mufu::sq))
}

/// [`sq`] on sixteen 16-bit lanes of `w = v >> 1`: every product `v_j·(a >> (9 − j))` takes
/// shifts by constants (`a >> s` is `w >> (8 + s)`, and `v_j` is bit j − 1 of w), the sum
/// starting at a² >> 1 (a² < 2^16 is exact in `vpmullw`); no partial sum exceeds 2^15 − 1.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sq_words(w: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    unsafe {
        let a = _mm256_srli_epi16::<8>(w);
        let mut sum = _mm256_srli_epi16::<1>(_mm256_mullo_epi16(a, a));
        macro_rules! product {
            ($j:literal) => {
                // Bit j − 1 of w spread over its lane, and a >> (9 − j) = w >> (17 − j).
                let bit = _mm256_srai_epi16::<15>(_mm256_slli_epi16::<{ 16 - $j }>(w));
                sum = _mm256_add_epi16(sum, _mm256_and_si256(bit, _mm256_srli_epi16::<{ 17 - $j }>(w)));
            };
        }
        product!(2);
        product!(3);
        product!(4);
        product!(5);
        product!(6);
        product!(7);
        product!(8);
        sum
    }
}

/// Lanes of `x` with a magnitude below 2^-27 replaced by a signed zero. Host floating-point
/// arithmetic on subnormals is slow (microcode assists) and depends on the flush-to-zero
/// settings, so every lane that host arithmetic sees is first made normal, zero, infinite or
/// NaN this way, where such tiny values cannot change the result.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn zero_tiny(x: U) -> U {
    (x & 0x7F80_0000u32).simd_lt(splat(100 << 23)).select(x & 0x8000_0000u32, x)
}

/// The sm_70+ quadrant word of an angle in turns (docs/semantics.md §2.3 \[INF\],
/// `turns_to_quadrant_word` in [`crate::mufu::sincos`]): the sign of the angle at bit 31 and
/// its magnitude times 4, truncated to 23 fraction bits, mod 4; 0 for a zero or subnormal
/// angle; unspecified for NaN and ±Inf. The angle is `x` itself, or with `FMUL` the
/// `FMUL.RZ(x, 0x3E22F983)` (not FTZ) that ptxas puts before MUFU.SIN/COS (docs/semantics.md §1.1).
///
/// AVX-512: the FMUL is the host multiply with embedded round-toward-zero (the IEEE product
/// rounded toward zero, whatever the host's rounding mode), and the word is
/// `⌊frac(|t|)·2^25⌋` with `frac` the exact `vreduceps` (truncating, no fraction bits kept).
/// Angles below 2^-27, whose word is 0, are zeroed first (see [`zero_tiny`]); the product of
/// a larger x is normal.
///
/// Elsewhere, in integers: the FMUL as the significand product `m·0xA2F983` (48 bits)
/// truncated to 24 bits from three 12×12-bit products, then the significand shifted by
/// e + 2, truncating on either side, masked to 25 bits.
#[inline(always)]
pub(super) fn quadrant_word<L: Isa, const FMUL: bool>(x: U) -> U {
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        use std::arch::x86_64::*;
        const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        const FRAC: i32 = 0x08 | 0x03;
        let t: __m512 = cast::<U, super::simd::f32x16>(zero_tiny(x)).into();
        let w: U = unsafe {
            let t = if FMUL { _mm512_mul_round_ps::<RZ>(t, _mm512_set1_ps(f32::from_bits(0x3E22_F983))) } else { t };
            let frac = _mm512_reduce_ps::<FRAC>(_mm512_abs_ps(t));
            _mm512_cvttps_epi32(_mm512_mul_ps(frac, _mm512_set1_ps(33_554_432.0)))
        }
        .into();
        return (x & 0x8000_0000u32) | w;
    }
    let expo = x >> 23 & 0xFFu32;
    let m = (x & 0x7F_FFFFu32) | 0x80_0000u32;
    let (m, biased) = if FMUL {
        const C_HI: u32 = 0xA2F;
        const C_LO: u32 = 0x983;
        let (mh, ml) = (m >> 12, m & 0xFFFu32);
        let hh = madd::<L>(mh, splat(C_HI));
        let mid = madd::<L>(ml | mh << 16, splat(C_LO << 16 | C_HI));
        let ll = madd::<L>(ml, splat(C_LO));
        // ⌊m·C / 2^23⌋ = 2·hh + ⌊(mid + ⌊ll / 2^12⌋) / 2^11⌋, in [2^23, 2^25); the exponent
        // of t is e_x + (124 − 127), plus the carry. A subnormal t is flushed.
        let p = u(hh << 1) + (u(mid + (ll >> 12)) >> 11);
        let carry = p >> 24;
        (p >> carry, s(expo) - 3 + s(carry))
    } else {
        (m, s(expo))
    };
    let m = u(biased.simd_gt(I::ZERO)).select(m, U::ZERO);
    let shift = biased - 125;
    (x & 0x8000_0000u32) | ((m.unbounded_shl(u(shift)) | m.unbounded_shr(u(-shift))) & 0x1FF_FFFFu32)
}

/// The SIN/COS result `RZ24(acc·2^-37)` of the interpolation `acc = p·2^9 + y`,
/// 0 ≤ acc < 2^38: normalised and truncated to 24 bits (docs/semantics.md §2.2), as f32 bits.
///
/// AVX-512: `acc` or, when it needs more than 32 bits, `⌊acc / 2^9⌋` (whose truncation then
/// drops only bits the result drops too), converted with embedded round-toward-zero and
/// scaled back exactly by `vscalefps`. Elsewhere `acc·2^-37` exact in f64, truncated.
#[inline(always)]
pub(super) fn sin_rz<L: Isa>(p: I, y: I) -> U {
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        use std::arch::x86_64::*;
        const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        let hi: I = p + (y >> 9);
        let wide = u(hi.simd_ge(I::splat(1 << 23)));
        let n = wide.select(u(hi), u((p << 9) + y));
        let scale = wide.select(splat((-28.0f32).to_bits()), splat((-37.0f32).to_bits()));
        let r =
            unsafe { _mm512_scalef_ps(_mm512_cvt_roundepu32_ps::<RZ>(n.into()), _mm512_castsi512_ps(scale.into())) };
        return register_bits(r);
    }
    f32_rz(f64_sum(p, 9 - 37, y, -37))
}

/// The bits of f32 lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn register_bits(r: std::arch::x86_64::__m512) -> U {
    super::simd::f32x16::from(r).to_bits()
}

/// The LG2 result (docs/semantics.md §2.2): with `r = (p·2^9 + y) >> 2`, log2 of the significand in
/// units of 2^-36 (`y` includes the rounding constant), and `e` the unbiased exponent, the sum
/// `R = e·2^36 + r`; a negative R becomes its ones' complement and the sign; then
/// `RZ24(|R|·2^-36)` as f32 bits.
///
/// AVX-512: `|R|`, or `|R| >> 4` or `|R| >> 12` when it needs more than 32 bits (the dropped
/// bits lie below the 24 the result keeps), converted with embedded round-toward-zero and
/// scaled back exactly by `vscalefps`. Elsewhere `R·2^-36` exact in f64 (|R| < 2^43),
/// complemented and truncated there; R is negative exactly when e is.
#[inline(always)]
pub(super) fn lg2_rz<L: Isa>(p: I, y: I, e: I) -> U {
    #[cfg(target_arch = "x86_64")]
    if L::AVX512 {
        use std::arch::x86_64::*;
        const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        // r = hi·2^7 + lo with hi < 2^29.
        let hi = u(p + (y >> 9));
        let lo = u(y >> 2) & 127u32;
        // R < 0 exactly when e < 0; then !R = (−e − 1)·2^36 + (2^36 − 1 − r).
        let neg = u(e >> 31);
        let (e, hi, lo) = (u(e) ^ neg, hi ^ (neg & 0x1FFF_FFFFu32), lo ^ (neg & 127u32));
        let big = u(s(e).simd_gt(I::ZERO));
        let mid = hi.simd_ge(splat(1 << 25));
        let n = big.select((e << 24) + (hi >> 5), mid.select(hi << 3 | lo >> 4, hi << 7 | lo));
        let scale = big
            .select(splat((-24.0f32).to_bits()), mid.select(splat((-32.0f32).to_bits()), splat((-36.0f32).to_bits())));
        let r =
            unsafe { _mm512_scalef_ps(_mm512_cvt_roundepu32_ps::<RZ>(n.into()), _mm512_castsi512_ps(scale.into())) };
        return register_bits(r) | (neg & 0x8000_0000u32);
    }
    let v = f64_sum(p, -29, y >> 2, -36);
    let e64 = f64_halves(e);
    let magnitude = inlined(
        #[inline(always)]
        |h: usize| {
            let v = v[h] + e64[h];
            v.simd_lt(f64x8::ZERO).select(-v - f64x8::splat(pow2(-36)), v)
        },
    );
    f32_rz([magnitude(0), magnitude(1)]) | (u(e) & 0x8000_0000u32)
}

/// Exact `hi·2^a + lo·2^b` of i32 lanes, as two halves of f64 lanes (the sum must fit 53
/// bits).
#[inline(always)]
pub(super) fn f64_sum(hi: I, a: i32, lo: I, b: i32) -> [f64x8; 2] {
    let [h0, h1]: [i32x8; 2] = cast(hi);
    let [l0, l1]: [i32x8; 2] = cast(lo);
    let (sa, sb) = (f64x8::splat(pow2(a)), f64x8::splat(pow2(b)));
    [f64x8::from_i32(h0) * sa + f64x8::from_i32(l0) * sb, f64x8::from_i32(h1) * sa + f64x8::from_i32(l1) * sb]
}

/// 2^e as an f64 (normal range).
pub(super) fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// The f32 bits of sixteen f64 lanes truncated toward zero to 24 bits; the lanes must be +0
/// or positive with a normal f32 result. Truncating the f64 fraction to its top 23 bits is the
/// `>> 14`/`>> 19` truncation of the SIN/COS and LG2 datapaths (docs/semantics.md §2.2); the truncated
/// value converts to f32 exactly (`vcvtpd2ps` where the level has AVX).
#[inline(always)]
pub(super) fn f32_rz(v: [f64x8; 2]) -> U {
    let keep = u64x8::splat(!((1 << 29) - 1));
    let half = inlined(
        #[inline(always)]
        |v: f64x8| each(f64x8::from_bits(v.to_bits() & keep).to_array(), |x| (x as f32).to_bits()),
    );
    U::new(join(half(v[0]), half(v[1])))
}

/// The f32 bits of `k·2^-149` rounded to nearest, ties to even, for f64 lanes `0 ≤ k < 2^23`
/// (a value below FLT_MIN in units of the subnormal spacing): the subnormal f32, or FLT_MIN
/// when k rounds up to 2^23. One f64 addition of 1.5·2^52 does the rounding; every operand is
/// a normal f64, so the host's flush-to-zero settings cannot interfere.
#[inline(always)]
pub(super) fn f32_subnormal_rn(k: f64x8) -> u64x8 {
    let magic = f64x8::splat(1.5 * pow2(52));
    (k + magic).to_bits() - magic.to_bits()
}

/// The low 32 bits of sixteen u64 lanes, in order: with AVX2 (and not AVX-512), per four
/// 64-bit lane pairs the even words of two vectors (in-lane shuffle), then the 64-bit quarters
/// put in order.
#[inline(always)]
pub(super) fn narrow<L: Isa>(v: [u64x8; 2]) -> U {
    #[cfg(target_arch = "x86_64")]
    if L::AVX2 && !L::AVX512 {
        use std::arch::x86_64::*;
        let quarters: [__m256i; 4] = cast(v);
        /// The low words of two vectors of four u64 lanes, in order.
        #[inline(always)]
        fn even(a: __m256i, b: __m256i) -> __m256i {
            unsafe {
                let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
                let words = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a, b));
                _mm256_permute4x64_epi64::<0b11_01_10_00>(words)
            }
        }
        return cast([even(quarters[0], quarters[1]), even(quarters[2], quarters[3])]);
    }
    U::new(build(|i| v[i / 8].to_array()[i % 8] as u32))
}

/// Sixteen u32 lanes zero-extended to u64 lanes, in order (`vpmovzxdq` per quarter with AVX2).
#[inline(always)]
pub(super) fn widen<L: Isa>(v: U) -> [u64x8; 2] {
    #[cfg(target_arch = "x86_64")]
    if L::AVX2 && !L::AVX512 {
        use std::arch::x86_64::*;
        let [lo, hi]: [__m256i; 2] = cast(v);
        return unsafe {
            cast([
                _mm256_cvtepu32_epi64(_mm256_castsi256_si128(lo)),
                _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(lo)),
                _mm256_cvtepu32_epi64(_mm256_castsi256_si128(hi)),
                _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(hi)),
            ])
        };
    }
    let v = v.to_array();
    [u64x8::new(build(|i| v[i].into())), u64x8::new(build(|i| v[8 + i].into()))]
}

/// The i32 lanes as two halves of f64 lanes.
#[inline(always)]
pub(super) fn f64_halves(v: I) -> [f64x8; 2] {
    let [a, b]: [i32x8; 2] = cast(v);
    [f64x8::from_i32(a), f64x8::from_i32(b)]
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::kernels::level::V1;
    #[cfg(target_arch = "x86_64")]
    use crate::kernels::level::{V3, V4};
    use crate::kernels::SimdLevel;

    /// `check::<L>()` for every level this processor has (its intrinsics may run here).
    macro_rules! every_level {
        ($check:ident) => {
            $check::<V1>();
            #[cfg(target_arch = "x86_64")]
            {
                if SimdLevel::Avx2.is_supported() {
                    $check::<V3>();
                }
                if SimdLevel::Avx512.is_supported() {
                    $check::<V4>();
                }
            }
        };
    }

    /// The squarer's split forms against [`crate::mufu::sq`] on all 2^17 inputs.
    #[test]
    fn squarer_split_is_exact() {
        fn check<L: Isa>() {
            for base in (0..1u32 << 17).step_by(16) {
                let v = U::new(std::array::from_fn(|i| base + i as u32));
                let got = super::sq::<L>(v).to_array();
                for (i, g) in got.into_iter().enumerate() {
                    assert_eq!(g, crate::mufu::sq(base + i as u32), "sq({:#x})", base + i as u32);
                }
            }
        }
        every_level!(check);
    }

    #[test]
    fn lookups_read_every_row() {
        every_level!(lookups_at);
    }

    fn lookups_at<L: Isa>() {
        let l = luts();
        let t = tables();
        fn check<L: Isa, const V: usize>(coeffs: &Coeffs<V>, rows: &[Row], s0: u32) {
            for base in (0..16 * V).step_by(16) {
                // Rows in reverse order within each vector, so that no lane reads its own row.
                let idx = U::new(std::array::from_fn(|i| (base + 15 - i) as u32));
                let (w0, w1) = coeffs.words::<L>(idx);
                let (w0, w1) = (w0.to_array(), w1.to_array());
                for i in 0..16 {
                    let [c0, c1, c2] = rows[base + 15 - i];
                    assert_eq!(w0[i], (c0 as u32) << (s0 - 9));
                    assert_eq!((w1[i] as i32) >> 16, c1 >> 4);
                    assert_eq!(((w1[i] << 16) as i32) >> 20, c2);
                    assert_eq!(w1[i] & 15, c1 as u32 & 15);
                }
            }
        }
        check::<L, 8>(&l.rcp, &t.rcp, 13);
        check::<L, 8>(&l.rsq, &t.rsqrt, 14);
        check::<L, 4>(&l.ex2, &t.ex2, 13);
        check::<L, 4>(&l.lg2, &t.lg2, 12);
        check::<L, 4>(&l.sin, &t.sin, 11);
        check::<L, 8>(&l.sqrt, &t.sqrt, 14);
        // TANH: every segment's first and last input, and inputs in between.
        let inputs: Vec<u32> =
            (119u32 << 23..130 << 23).step_by(1 << 15).flat_map(|a| [a, a + (1 << 15) - 1, a + 0x5A5]).collect();
        for chunk in inputs.chunks_exact(16) {
            let a = U::new(chunk.try_into().unwrap());
            let (row, xl) = l.tanh.segment::<L>(a);
            let coefficients = l.tanh.coefficients::<L>(row).map(|c| c.to_array());
            for (i, &a) in chunk.iter().enumerate() {
                let (want_row, shift) = tanh::segment(a);
                assert_eq!(row.to_array()[i] as usize, want_row, "row of {a:#x}");
                assert_eq!(xl.to_array()[i], (a & 0x7F_FFFF) >> shift & 0x1_FFFF, "xl of {a:#x}");
                for (c, words) in coefficients.iter().enumerate() {
                    assert_eq!(words[i], t.tanh[want_row][c], "c{c} of {a:#x}");
                }
            }
        }
    }
}
