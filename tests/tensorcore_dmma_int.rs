//! The f64 and integer tensor cores (src/mma/dmma.rs, src/mma/int.rs) against references that
//! share nothing with them: rustc_apfloat's fused multiply-add chained over k for DMMA, and
//! wrapping or 128-bit integer arithmetic for IMMA and BMMA, with hand-worked cases.

mod common;

use common::*;
use ptxfp::mma::{dmma_dot, int_dot, popc_dot, BitOp, IntMmaType};
use ptxfp::{Format, Rounding};

/// Edge-biased dot products per rounding mode (`run` panics with examples on any mismatch): operands from the shared edge-biased generator
/// (subnormals, ±0, ±Inf, NaNs, near-overflow, short significands), with products planted to
/// cancel the accumulator.
const DMMA_CASES: u64 = 250_000;

fn dmma_case(rng: &mut Rng, rnd: Rounding) -> Option<String> {
    let l = Layout::of(Format::F64);
    let k = [4, 8, 16][rng.below(3) as usize];
    let mut a = [0u64; 16];
    let mut b = [0u64; 16];
    for i in 0..k {
        a[i] = operand(rng, l);
        b[i] = operand(rng, l);
    }
    let mut c = operand(rng, l);
    if rng.below(4) == 0 {
        // Cancellation: c = −a0·b0 rounded, so the first fma leaves only the product's tail.
        let p = ap_fma(Format::F64, a[0], b[0], 0, Rounding::Rn);
        c = p ^ l.sign_bit();
    }
    let (a, b) = (&a[..k], &b[..k]);
    let got = dmma_dot(a, b, c, rnd);
    let want = a.iter().zip(b).fold(c, |acc, (&x, &y)| ap_fma(Format::F64, x, y, acc, rnd));
    (!agrees(l, got, want)).then(|| {
        format!("dmma.{} a {a:016x?} b {b:016x?} c {c:016x}: ptxfp {got:016x}, apfloat {want:016x}", rnd.name())
    })
}

#[test]
fn dmma_is_the_chain_of_fma_f64_in_k_order_against_rustc_apfloat() {
    for rnd in Rounding::ALL {
        let name = format!("dmma.{}", rnd.name());
        run(&name, DMMA_CASES, |rng| dmma_case(rng, rnd));
    }
}

#[test]
fn dmma_rounds_after_every_product() {
    // 1 + 2^-53 + 2^-53: each fma.rn rounds the tie back to 1; one fused sum would give
    // 1 + 2^-52.
    let one = 1f64.to_bits();
    let tiny = 2f64.powi(-53).to_bits();
    assert_eq!(dmma_dot(&[tiny, tiny], &[one, one], one, Rounding::Rn), one);
    // Toward +Inf the same chain moves up twice.
    assert_eq!(dmma_dot(&[tiny, tiny], &[one, one], one, Rounding::Rp), (1.0 + 2f64.powi(-51)).to_bits());
    // The exact zero of x·y − x·y from +0 is +0 under .rn and −0 under .rm.
    let x = 3f64.to_bits();
    let neg_x = (-3f64).to_bits();
    assert_eq!(dmma_dot(&[x, x], &[x, neg_x], 0, Rounding::Rn), 0);
    assert_eq!(dmma_dot(&[x, x], &[x, neg_x], 0, Rounding::Rm), 1 << 63);
}

/// A random code of `ty` in the low bits, with garbage above them half the time (it must be
/// ignored).
fn int_code(rng: &mut Rng, ty: IntMmaType) -> u32 {
    let field = match rng.below(4) {
        0 => 0,
        1 => (1u64 << ty.bits()) - 1,
        2 => 1 << (ty.bits() - 1),
        _ => rng.bits(ty.bits()),
    } as u32;
    if rng.coin() {
        field | (rng.next() as u32) << ty.bits().min(31)
    } else {
        field
    }
}

/// The element's value, decoded here by sign extension through a shift pair.
fn int_value(ty: IntMmaType, code: u32) -> i32 {
    let bits = ty.bits();
    let field = code << (32 - bits);
    match ty {
        IntMmaType::S8 | IntMmaType::S4 => (field as i32) >> (32 - bits),
        _ => (field >> (32 - bits)) as i32,
    }
}

#[test]
fn imma_wraps_or_saturates_the_exact_sum_against_wide_integer_arithmetic() {
    let types = [IntMmaType::S8, IntMmaType::U8, IntMmaType::S4, IntMmaType::U4];
    for ta in types {
        for tb in types {
            let name = format!("imma.{ta}.{tb}");
            run(&name, 200_000, |rng| {
                let k = [16, 32, 64][rng.below(3) as usize];
                let a: Vec<u32> = (0..k).map(|_| int_code(rng, ta)).collect();
                let b: Vec<u32> = (0..k).map(|_| int_code(rng, tb)).collect();
                let c = match rng.below(4) {
                    0 => i32::MAX as u32 - rng.below(1 << 20) as u32,
                    1 => i32::MIN as u32 + rng.below(1 << 20) as u32,
                    _ => rng.next() as u32,
                };
                let products = a.iter().zip(&b).map(|(&x, &y)| int_value(ta, x).wrapping_mul(int_value(tb, y)));
                let wrapped = products.clone().fold(c as i32, i32::wrapping_add) as u32;
                let exact = products.map(i128::from).sum::<i128>() + i128::from(c as i32);
                let saturated = exact.clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32;
                let got = (int_dot(ta, &a, tb, &b, c, false), int_dot(ta, &a, tb, &b, c, true));
                (got != (wrapped, saturated))
                    .then(|| format!("{name} a {a:x?} b {b:x?} c {c:#x}: {got:x?}, want {wrapped:#x}, {saturated:#x}"))
            });
        }
    }
}

#[test]
fn imma_hand_worked_cases() {
    use IntMmaType::*;
    // 32 products of −128·−128 = 2^14 each: 2^19, far inside s32.
    assert_eq!(int_dot(S8, &[0x80; 32], S8, &[0x80; 32], 0, false), 1 << 19);
    // The same bytes as u8 are 128 each; s8·u8 is −2^14 each.
    assert_eq!(int_dot(U8, &[0x80; 32], U8, &[0x80; 32], 0, false), 1 << 19);
    assert_eq!(int_dot(S8, &[0x80; 32], U8, &[0x80; 32], 0, false), (-(1i32 << 19)) as u32);
    // s4: 0xF is −1, u4: 15.
    assert_eq!(int_dot(S4, &[0xF; 8], U4, &[0xF; 8], 0, false), (-120i32) as u32);
    // Overflow past MAX_INT: wraps to MIN_INT + 2^19 − 1, or clamps.
    let c = i32::MAX as u32;
    assert_eq!(int_dot(S8, &[0x80; 32], S8, &[0x80; 32], c, false), (i32::MIN + (1 << 19) - 1) as u32);
    assert_eq!(int_dot(S8, &[0x80; 32], S8, &[0x80; 32], c, true), i32::MAX as u32);
    assert_eq!(int_dot(S8, &[0x80; 32], U8, &[0x80; 32], i32::MIN as u32, true), i32::MIN as u32);
    // Bits above the element are ignored.
    assert_eq!(int_dot(S4, &[0xFFF1], S4, &[0x12], 0, false), 2);
}

#[test]
fn bmma_counts_the_bits_of_xor_and_and_against_u128_popcount() {
    run("bmma", 200_000, |rng| {
        let k = [128, 256][rng.below(2) as usize];
        let words: Vec<u128> = (0..4).map(|_| (rng.next() as u128) << 64 | rng.next() as u128).collect();
        let bit = |w: &[u128], i: usize| (w[i / 128] >> (i % 128)) as u32 & 1 | (rng_garbage(i) << 1);
        let a: Vec<u32> = (0..k).map(|i| bit(&words[..2], i)).collect();
        let b: Vec<u32> = (0..k).map(|i| bit(&words[2..], i)).collect();
        let c = rng.next() as u32;
        let count =
            |f: fn(u128, u128) -> u128| -> u32 { (0..k / 128).map(|w| f(words[w], words[2 + w]).count_ones()).sum() };
        let want = (c.wrapping_add(count(|x, y| x ^ y)), c.wrapping_add(count(|x, y| x & y)));
        let got = (popc_dot(BitOp::Xor, &a, &b, c), popc_dot(BitOp::And, &a, &b, c));
        (got != want).then(|| format!("bmma k {k} c {c:#x}: {got:x?}, want {want:x?}"))
    });
}

/// Bits above bit 0 of a b1 element, which must be ignored.
fn rng_garbage(i: usize) -> u32 {
    (i as u32).wrapping_mul(0x9E37_79B9) >> 1
}
