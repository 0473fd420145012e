"""tf32 `.rna` and the `.rs` carry rule against gfloat (Graphcore, MIT; pinned in
run_tests.sh), an implementation of rounding to arbitrary float formats that shares nothing with
ptxfp: `cvt.rna{.satfinite}.tf32.f32` against its `RoundMode.TiesToAway`, every `cvt.rs` spelling
against its `RoundMode.StochasticFastest` given, for each element, the random integer ptxfp reads
for it (docs/semantics.md §8.5–§8.6), on 10^7 edge-biased (input, random integer) pairs per
spelling, bit for bit.

Which gfloat mode is the carry rule. PTX: "rounded toward or away from zero based on the carry
out of the integer addition of the supplied random bits to the truncated off bits"; the random
integer r of width n sits at the top of the discarded bits, so an element with discarded part
delta (a fraction of one unit of the destination's grid, subnormal grid included) rounds away
exactly when delta + r·2^−n ≥ 1, the discarded bits below the random ones adding nothing. That
is gfloat's `StochasticFastest` (`delta + srbits * 2.0**-srnumbits >= 1.0`, exact in float64 for
f32 inputs: delta spans at most 24 bits). gfloat's `Stochastic` first rounds delta to n bits
(nearest even) and differs wherever more than n bits are discarded (the 8-bit forms from f32,
f16 subnormals): `test_gfloat_stochastic_rounds_delta_first`.

Where the two differ by rule (each asserted exactly, then left out of the bit comparison):
- `.rs` without `.satfinite` to f16: an input whose truncation already exceeds 65504 (|x| ≥
  2^16) and that does not carry gives ±MAX in ptxfp (a stochastic rounding overflows to infinity
  only when it carried, IEEE 754-2019 clause 7.4 for a rounding toward zero [INF]), ±Inf in
  gfloat (which overflows every stochastic result beyond MAX). bf16 has no such input.
- NaN inputs: gfloat returns a NaN (also for e2m3, e3m2, e2m1, which have none); ptxfp the
  documented codes: f16/bf16 0x7FFF, e4m3/e5m2 0x7F, e2m3/e3m2 0x1F, e2m1 0x7, under `.relu` too.
- tf32 `.rna` on NaN is ptxfp's integer sequence (§8.5): the low 13 bits cleared, so a NaN whose
  payload lies only there gives ±Inf (±MAX under `.satfinite`), and under `.satfinite`
  0x7F802000–0x7F803FFF (either sign) give ±Inf; gfloat gives a NaN for every NaN.
"""

import os
import zlib

import ml_dtypes
import numpy as np
import pytest

import ptxfp

try:
    import gfloat
    from gfloat.formats import (
        format_info_bfloat16,
        format_info_binary16,
        format_info_ocp_e2m1,
        format_info_ocp_e2m3,
        format_info_ocp_e3m2,
        format_info_ocp_e4m3,
        format_info_ocp_e5m2,
    )
except ImportError:  # pragma: no cover - run_tests.sh installs it
    if os.environ.get("CI"):
        raise
    pytest.skip("NOT RUN: gfloat is not installed (python/run_tests.sh installs it)", allow_module_level=True)

from gfloat import Domain, FormatInfo, RoundMode

#: tf32 as gfloat describes a format: 1-8-10, bias 127, IEEE Inf and NaN (docs/semantics.md §8.4).
TF32 = FormatInfo(
    name="tf32", k=19, precision=11, bias=127, is_signed=True, domain=Domain.Extended, has_nz=True,
    num_high_nans=2**10 - 1, has_subnormals=True, is_twos_complement=False,
)

#: Element format: (gfloat format, precision p, smallest normal exponent, largest exponent,
#: largest finite value, ptxfp's NaN code).
FORMATS = {
    "tf32": (TF32, 11, -126, 127, float(np.uint32(0x7F7FE000).view(np.float32)), None),
    "f16": (format_info_binary16, 11, -14, 15, 65504.0, 0x7FFF),
    "bf16": (format_info_bfloat16, 8, -126, 127, float(np.uint16(0x7F7F).view(ml_dtypes.bfloat16)), 0x7FFF),
    "e4m3": (format_info_ocp_e4m3, 4, -6, 8, 448.0, 0x7F),
    "e5m2": (format_info_ocp_e5m2, 3, -14, 15, 57344.0, 0x7F),
    "e2m3": (format_info_ocp_e2m3, 4, 0, 2, 7.5, 0x1F),
    "e3m2": (format_info_ocp_e3m2, 3, -2, 4, 28.0, 0x1F),
    "e2m1": (format_info_ocp_e2m1, 2, 0, 2, 6.0, 0x7),
}
ML = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2,
      "e2m3": ml_dtypes.float6_e2m3fn, "e3m2": ml_dtypes.float6_e3m2fn, "e2m1": ml_dtypes.float4_e2m1fn}

PAIRS = 10_000_000  # (input, random integer) pairs per spelling
CHUNK = 1 << 21  # elements per gfloat call


def catalog(prefix, result_types):
    return [(e["spelling"], e["lowest_target"]) for e in ptxfp.ops()
            if e["spelling"].startswith(prefix) and e["result_type"] in result_types]


TF32_SPELLINGS = catalog("cvt.rna.", {"tf32"})
RS_SPELLINGS = catalog("cvt.rs.", {"f16x2", "bf16x2", "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"})


def test_the_spellings_and_formats_are_found():
    assert {s for s, _ in TF32_SPELLINGS} == {"cvt.rna.tf32.f32", "cvt.rna.satfinite.tf32.f32"}
    assert len(RS_SPELLINGS) == 18  # f16x2, bf16x2 × {, .satfinite, .relu, both}; 5 x4 × {, .relu}
    for name, (fi, p, emin, emax, big, _) in FORMATS.items():
        assert (fi.precision, 1 - fi.bias, fi.emax, fi.max) == (p, emin, emax, big), name


# ---------------------------------------------------------------------------------------------
# Edge-biased inputs.


def edge_f32(rng, n, p, emin, emax):
    """n f32 bit patterns: 88% built near the grid of a format of precision p and exponents
    emin..emax (every exponent from below its subnormals to beyond its largest, f32 subnormals
    where they reach it; the kept bits random, all ones or zero; the discarded bits 0, 1, half
    less one, half, half plus one, all ones or random), 12% any 32 bits (Inf and NaN among them)."""
    lo, hi = max(emin - p - 3, -149), min(emax + 2, 127)
    e = rng.integers(lo, hi + 1, n)
    normal = e >= -126
    width = np.where(normal, 24, e + 150)  # significant bits of the input
    lsb = np.where(normal, e - 23, -149)
    shift = np.clip(np.maximum(e, emin) - (p - 1) - lsb, 0, 40).astype(np.uint64)
    one = np.uint64(1)
    low = (one << shift) - one
    half = np.where(shift > 0, one << (np.maximum(shift, one) - one), 0).astype(np.uint64)
    rand = rng.integers(0, 1 << 40, n, dtype=np.uint64)
    rest = np.choose(rng.integers(0, 7, n), [np.zeros(n, np.uint64), np.ones(n, np.uint64) & low, half - one & low,
                                              half, half + one & low, low, rand & low])
    kept = np.choose(rng.integers(0, 3, n), [rand >> np.uint64(20), ~np.uint64(0), np.zeros(n, np.uint64)])
    mant = ((kept << shift) | rest) & ((one << (width - 1).astype(np.uint64)) - one)
    bits = np.where(normal, ((e + 127).astype(np.uint64) << np.uint64(23)) | mant,
                    (one << (width - 1).astype(np.uint64)) | mant)
    bits |= rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(31)
    wild = rng.random(n) < 0.12
    bits = np.where(wild, rng.integers(0, 1 << 32, n, dtype=np.uint64), bits)
    return bits.astype(np.uint32)


def carry_threshold(bits, p, emin, nbits):
    """The least random integer of nbits that carries out of each f32's discarded bits on the
    grid of (p, emin): 2^n − ⌊rest·2^n / 2^shift⌋ (2^n: none carries)."""
    b = bits.astype(np.uint64)
    ef = (b >> np.uint64(23)) & np.uint64(0xFF)
    sig = (b & np.uint64(0x7FFFFF)) | np.where(ef > 0, np.uint64(1 << 23), np.uint64(0))
    top = np.where(ef > 0, ef.astype(np.int64) - 127,
                   np.floor(np.log2(np.maximum(sig, 1).astype(np.float64))).astype(np.int64) - 149)
    lsb = np.maximum(ef.astype(np.int64), 1) - 150
    shift = np.clip(np.maximum(top, emin) - (p - 1) - lsb, 0, 63).astype(np.uint64)
    rest = sig & ((np.uint64(1) << np.minimum(shift, np.uint64(40))) - np.uint64(1))
    return (1 << nbits) - ((rest << np.uint64(nbits)) >> shift).astype(np.int64)


def edge_random(rng, need, nbits):
    """A random integer per element: beside and at its carry threshold, 0, all ones, or random."""
    n = len(need)
    full = (1 << nbits) - 1
    r = np.choose(rng.integers(0, 6, n), [need - 1, need, need + 1, np.zeros(n, np.int64), np.full(n, full),
                                          rng.integers(0, full + 1, n)])
    return np.clip(r, 0, full)


def is_nan_bits(bits):
    return (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)


def same(got, want):
    """Equal values with equal signs (bit for bit, the results being on the same grid)."""
    return (got == want) & (np.signbit(got) == np.signbit(want))


# ---------------------------------------------------------------------------------------------
# tf32 .rna: gfloat's ties away.


@pytest.mark.parametrize("spelling,arch", TF32_SPELLINGS)
def test_tf32_rna_is_gfloat_ties_to_away(spelling, arch):
    instr = ptxfp.Instr(spelling, arch=arch)
    sat = ".satfinite" in spelling
    fi, p, emin, emax, big, _ = FORMATS["tf32"]
    rng = np.random.default_rng(58)
    compared = 0
    differ = {"nan→inf": 0, "nan→max": 0, "nan→nan": 0}
    for start in range(0, PAIRS, CHUNK):
        n = min(CHUNK, PAIRS - start)
        bits = edge_f32(rng, n, p, emin, emax)
        got = instr.eval(bits.view(np.float32)).view(np.uint32)
        nan = is_nan_bits(bits)
        x = bits[~nan].view(np.float32).astype(np.float64)
        want = gfloat.round_ndarray(fi, x, RoundMode.TiesToAway, sat=sat).astype(np.float32).view(np.uint32)
        bad = np.flatnonzero(got[~nan] != want)
        assert bad.size == 0, (spelling, [f"{b:#010x}: ptxfp {g:#010x}, gfloat {w:#010x}" for b, g, w in
                                          zip(bits[~nan][bad[:5]], got[~nan][bad[:5]], want[bad[:5]])])
        compared += x.size
        # NaN: ptxfp's integer sequence (§8.5); gfloat gives a NaN for each.
        a = bits[nan]
        with np.errstate(invalid="ignore"):  # gfloat casts its NaN significands to integers
            assert np.all(np.isnan(gfloat.round_ndarray(fi, a.view(np.float32).astype(np.float64), RoundMode.TiesToAway, sat=sat)))
        r = a & np.uint32(0xFFFFE000)
        if sat:
            r = np.where((r & np.uint32(0x7FFFFFFF)) >= np.uint32(0x7F800000), r - np.uint32(0x2000), r)
        g = got[nan]
        assert np.array_equal(g, r), spelling
        mag = g & np.uint32(0x7FFFFFFF)
        differ["nan→inf"] += int(np.sum(mag == 0x7F800000))
        differ["nan→max"] += int(np.sum(mag == 0x7F7FE000))
        differ["nan→nan"] += int(np.sum(mag > 0x7F800000))
    assert compared >= 0.9 * PAIRS
    # Both rule differences occur in the sample: NaNs with their payload in bits 12:0 only.
    assert differ["nan→max" if sat else "nan→inf"] > 0 and differ["nan→nan"] > 0, differ
    # Directed: a tie, its neighbours, overflow, a subnormal tie, Inf, NaNs.
    for a, plain, satd in [(0x3F801000, 0x3F802000, 0x3F802000), (0x3F800FFF, 0x3F800000, 0x3F800000),
                           (0xBF801000, 0xBF802000, 0xBF802000), (0x7F7FF000, 0x7F800000, 0x7F7FE000),
                           (0x7F7FEFFF, 0x7F7FE000, 0x7F7FE000), (0x00001000, 0x00002000, 0x00002000),
                           (0xFF800000, 0xFF800000, 0xFF7FE000), (0x7F800001, 0x7F800000, 0x7F7FE000),
                           (0x7F802001, 0x7F802000, 0x7F800000), (0xFFC00000, 0xFFC00000, 0xFFBFE000)]:
        assert instr.eval_bits(a) == (satd if sat else plain), (spelling, hex(a))


# ---------------------------------------------------------------------------------------------
# .rs: gfloat's StochasticFastest with the random integer ptxfp gives each element.


def rs_layout(result_type):
    """(element format, lanes, random-integer width, for each source operand k (a = 0): its
    element index in the result and the (shift, width) of its random field in rbits), §8.6."""
    if result_type == "f16x2":
        return "f16", 2, 13, [(1, 16), (0, 0)]
    if result_type == "bf16x2":
        return "bf16", 2, 16, [(1, 16), (0, 0)]
    if result_type == "e2m1x4":
        return "e2m1", 4, 8, [(3, 24), (2, 8), (1, 16), (0, 0)]
    return result_type[:-2], 4, 16, [(3, 16), (2, 16), (1, 0), (0, 0)]


@pytest.mark.parametrize("spelling,arch", RS_SPELLINGS)
def test_rs_is_gfloat_stochastic_fastest_with_ptxfps_random_integers(spelling, arch):
    instr = ptxfp.Instr(spelling, arch=arch)
    fmt, lanes, nbits, fields = rs_layout(instr.result_type)
    fi, p, emin, emax, big, nan_code = FORMATS[fmt]
    sat, relu = ".satfinite" in spelling, ".relu" in spelling
    rng = np.random.default_rng(zlib.crc32(spelling.encode()))
    rows_total = PAIRS // lanes
    compared = overflow_differences = 0
    for start in range(0, rows_total, CHUNK // lanes):
        rows = min(CHUNK // lanes, rows_total - start)
        xs = [edge_f32(rng, rows, p, emin, emax) for _ in range(lanes)]
        needs = [carry_threshold(x, p, emin, nbits) for x in xs]
        # One random integer per field; a field two elements share is biased to one of them.
        rbits = np.zeros(rows, np.uint64)
        per_field = {}
        for k, (_, shift) in enumerate(fields):
            per_field.setdefault(shift, []).append(k)
        for shift, ks in per_field.items():
            pick = rng.integers(0, len(ks), rows)
            need = np.choose(pick, [needs[k] for k in ks])
            rbits |= edge_random(rng, need, nbits).astype(np.uint64) << np.uint64(shift)
        rbits = rbits.astype(np.uint32)
        word = {16: np.uint16, 32: np.uint32}[instr._native.result_bits]
        got = instr.eval(*[x.view(np.float32) for x in xs], rbits, out=np.empty(rows, word)).astype(np.uint32)
        ebits = instr._native.result_bits // lanes
        for k, (lane, shift) in enumerate(fields):
            code = (got >> np.uint32(ebits * lane)) & np.uint32((1 << ebits) - 1)
            r = ((rbits >> np.uint32(shift)) & np.uint32((1 << nbits) - 1)).astype(np.int64)
            x = xs[k]
            nan = is_nan_bits(x)
            # NaN: the documented code, also under .relu; gfloat: a NaN.
            assert np.all(code[nan] == nan_code), spelling
            v = x[~nan].view(np.float32).astype(np.float64)
            rk = r[~nan]
            want = gfloat.round_ndarray(fi, v, RoundMode.StochasticFastest, sat=sat, srbits=rk, srnumbits=nbits)
            if relu:
                want = np.where(np.signbit(want), 0.0, want)
            if fmt in ("f16", "bf16"):
                c = code[~nan].astype(np.uint16)
                gotv = c.view(np.float16 if fmt == "f16" else ml_dtypes.bfloat16).astype(np.float64)
            else:
                c = code[~nan].astype(np.uint8)
                gotv = c.view(ML[fmt]).astype(np.float64)
            ok = same(gotv, want)
            if not sat:
                # The rule difference: |x| ≥ 2^16 to f16 without a carry, ptxfp ±MAX, gfloat ±Inf.
                beyond = np.isfinite(v) & (np.abs(v) >= 2.0 * 2.0**emax) & (rk < needs[k][~nan])
                if relu:  # −MAX and −Inf both give +0
                    beyond &= v > 0
                assert np.all(~ok == beyond), (spelling, np.flatnonzero(~ok != beyond)[:5])
                if not relu:
                    assert np.all(np.abs(gotv[beyond]) == big) and np.all(np.isinf(want[beyond])), spelling
                overflow_differences += int(beyond.sum())
                ok |= beyond
            bad = np.flatnonzero(~ok)
            assert bad.size == 0, (spelling, k, [f"x {xb:#010x} r {rr:#x}: ptxfp {g!r}, gfloat {w!r}" for xb, rr, g, w in
                                                 zip(x[~nan][bad[:5]], rk[bad[:5]], gotv[bad[:5]], want[bad[:5]])])
            compared += v.size
    assert compared >= 0.9 * PAIRS, compared
    if not sat:
        assert (overflow_differences > 0) == (fmt == "f16"), (spelling, overflow_differences)


def test_gfloat_stochastic_rounds_delta_first():
    # e4m3 from f32 discards 20 bits at 1.0 but reads 16 random ones: x = 1 + 3·2^−20 has
    # delta·2^16 = 1.5; with r = 0xFFFE the carry rule (1 + 0xFFFE < 2^16) keeps 1.0, gfloat's
    # Stochastic (delta rounded to 16 bits first: 2 + 0xFFFE = 2^16) rounds up to 1.125, its
    # StochasticFastest agrees with ptxfp.
    x = np.array([1 + 3 * 2.0**-20])
    r = np.array([0xFFFE])
    fi = format_info_ocp_e4m3
    assert gfloat.round_ndarray(fi, x, RoundMode.Stochastic, sat=True, srbits=r, srnumbits=16)[0] == 1.125
    assert gfloat.round_ndarray(fi, x, RoundMode.StochasticFastest, sat=True, srbits=r, srnumbits=16)[0] == 1.0
    a = int(np.float32(x[0]).view(np.uint32))
    # a, b, e, f = x, 0, 0, 0: a is element 3 and reads rbits[31:16].
    d = ptxfp.Instr("cvt.rs.satfinite.e4m3x4.f32", arch="sm_100a").eval_bits(a, 0, 0, 0, 0xFFFE << 16)
    assert d == 0x38 << 24
    # With 13 bits discarded and 13 read (f16 normal), the two gfloat modes are the same.
    xs = np.array([1 + 2.0**-12 + 2.0**-23])
    for mode in (RoundMode.Stochastic, RoundMode.StochasticFastest):
        assert gfloat.round_ndarray(format_info_binary16, xs, mode, srbits=np.array([0x17FF]), srnumbits=13)[0] == 1 + 2.0**-10
