"""The package's API: values against oracles it does not share (NumPy's float16 arithmetic,
ml_dtypes' bfloat16 conversion, IEEE f32 arithmetic), dtypes, broadcasting, `out=`, errors,
sweeps, merges, interruption and concurrent use."""

import _thread
import threading
import time

import ml_dtypes
import numpy as np
import pytest

import ptxfp

BF16 = np.dtype(ml_dtypes.bfloat16)


def random_words(n, bits, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << bits, n, dtype=np.uint64).astype({16: np.uint16, 32: np.uint32}[bits])


def test_add_rn_f16_is_numpys_float16_addition_where_nvidia_agrees():
    # NumPy rounds float16 sums to nearest even (IEEE 754): NVIDIA's add.rn.f16 writes the same
    # bits except for NaN results (NVIDIA's canonical NaN 0x7FFF) [docs/semantics.md §4].
    a = random_words(1 << 20, 16, 1).view(np.float16)
    b = random_words(1 << 20, 16, 2).view(np.float16)
    with np.errstate(all="ignore"):
        want = a + b
    got = ptxfp.eval("add.rn.f16", a, b)
    assert got.dtype == np.float16
    nan = np.isnan(want)
    assert np.array_equal(got[~nan].view(np.uint16), want[~nan].view(np.uint16))
    assert np.all(got[nan].view(np.uint16) == 0x7FFF)


def test_cvt_rn_bf16_f32_is_ml_dtypes_rounding_where_nvidia_agrees():
    # ml_dtypes rounds f32 to bfloat16 to nearest even, as cvt.rn.bf16.f32 does for finite
    # normal results; NaN results are NVIDIA's canonical 0x7FFF.
    x = random_words(1 << 20, 32, 3).view(np.float32)
    with np.errstate(invalid="ignore"):
        want = x.astype(BF16)
    got = ptxfp.eval("cvt.rn.bf16.f32", x)
    assert got.dtype == BF16
    w = want.view(np.uint16)
    normal = (w & 0x7F80 != 0) & (w & 0x7F80 != 0x7F80)
    assert np.array_equal(got.view(np.uint16)[normal], w[normal])
    assert np.all(got.view(np.uint16)[np.isnan(x)] == 0x7FFF)


def test_f32_arithmetic_is_ieee_where_nvidia_agrees():
    a = random_words(1 << 18, 32, 4).view(np.float32)
    b = random_words(1 << 18, 32, 5).view(np.float32)
    with np.errstate(all="ignore"):
        want = a * b
    got = ptxfp.eval("mul.rn.f32", a, b)
    ok = ~np.isnan(want)
    assert np.array_equal(got[ok].view(np.uint32), want[ok].view(np.uint32))
    assert np.all(got[~ok].view(np.uint32) == 0x7FFFFFFF)


def test_documented_values():
    # add.rz.f32: 1 + 1e-8 truncates to 1.
    assert ptxfp.eval("add.rz.f32", 1.0, 1e-8) == np.float32(1.0)
    # ftz: a subnormal operand is read as zero, so its sum with zero is +0.
    assert ptxfp.eval("add.rn.ftz.f32", np.uint32(1), 0.0).view(np.uint32) == 0
    assert ptxfp.eval("add.rn.f32", np.uint32(1), 0.0).view(np.uint32) == 1
    # cvt.rzi.s32.f32 truncates and saturates; NaN becomes 0 [docs/semantics.md §8.3].
    got = ptxfp.eval("cvt.rzi.s32.f32", np.array([2.9, -2.9, 3e9, -3e9, np.nan], dtype=np.float32))
    assert got.dtype == np.int32
    assert got.tolist() == [2, -2, 2**31 - 1, -(2**31), 0]
    # Integer operands as Python ints.
    assert ptxfp.eval("cvt.rn.f32.s32", -7) == np.float32(-7.0)
    assert ptxfp.eval("cvt.rn.f16.u8", 255) == np.float16(255.0)
    # Packed words: element 0 in the low half.
    one, two = 0x3C00, 0x4000
    assert ptxfp.eval("add.rn.f16x2", np.uint32(one | two << 16), np.uint32(one | one << 16)) == np.uint32(0x4000 | 0x4200 << 16)


def test_results_keep_their_words_for_non_values():
    assert ptxfp.Instr("testp.finite.f32").result_dtype == np.uint32
    assert ptxfp.Instr("MUFU.RCP64H").result_dtype == np.uint32
    assert ptxfp.Instr("RRO.EX2", arch="sm_52").result_dtype == np.uint32
    assert ptxfp.Instr("add.rn.bf16x2").result_dtype == np.uint32
    assert ptxfp.Instr("add.rn.bf16").result_dtype == BF16
    assert ptxfp.Instr("cvt.rni.u8.f32").result_dtype == np.uint8


def test_broadcasting_and_shapes():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([10, 20, 30], dtype=np.float32)
    got = ptxfp.eval("add.rn.f32", a, b)
    assert got.shape == (2, 3)
    assert np.array_equal(got, a + b)
    assert ptxfp.eval("add.rn.f32", np.float32(1), np.float32(2)) == np.float32(3)
    assert ptxfp.eval("add.rn.f32", np.zeros((0, 4), np.float32), 1.0).shape == (0, 4)
    # Strided and Fortran-ordered operands.
    c = np.asfortranarray(a)
    assert np.array_equal(ptxfp.eval("add.rn.f32", c, 1.0), a + 1)
    assert np.array_equal(ptxfp.eval("add.rn.f32", a[:, ::2], 1.0), a[:, ::2] + 1)


def test_out_is_filled_and_may_alias_an_operand():
    a = np.arange(8, dtype=np.float32)
    out = np.empty(8, dtype=np.float32)
    assert ptxfp.eval("mul.rn.f32", a, 2.0, out=out) is out
    assert np.array_equal(out, a * 2)
    ptxfp.eval("add.rn.f32", a, a, out=a)
    assert np.array_equal(a, np.arange(8, dtype=np.float32) * 2)
    words = np.empty(8, dtype=np.uint32)
    ptxfp.eval("mul.rn.f32", a, 1.0, out=words)
    assert np.array_equal(words.view(np.float32), a)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: ptxfp.Instr("add.rn.f33"), ValueError, "f33"),
        (lambda: ptxfp.Instr("add.rn.rz.f32"), ValueError, "add.rn.rz.f32"),
        (lambda: ptxfp.Instr("add.rn.f32", arch="sm_999"), ValueError, "sm_999"),
        (lambda: ptxfp.Instr("add.rn.f32x2", arch="sm_90"), ValueError, "sm_100"),
        (lambda: ptxfp.Instr(3), TypeError, "str"),
        (lambda: ptxfp.eval("add.rn.f32", 1.0), TypeError, "takes 2"),
        (lambda: ptxfp.eval("add.rn.f32", np.zeros(3, np.int64), 1.0), TypeError, "float32 or uint32"),
        (lambda: ptxfp.eval("add.rn.f32", np.zeros(3, np.float64), 1.0), TypeError, "float64"),
        (lambda: ptxfp.eval("add.rn.f32", np.zeros(3, ">f4"), 1.0), TypeError, "big-endian"),
        (lambda: ptxfp.eval("add.rn.f32", np.zeros(3, np.float32), np.zeros(4, np.float32)), ValueError, "broadcast"),
        (lambda: ptxfp.eval("add.rn.f32", True, 1.0), TypeError, "bool"),
        (lambda: ptxfp.eval("add.rn.f16x2", 1.5, 1), TypeError, "float"),
        (lambda: ptxfp.eval("cvt.rn.f32.s8", 200), ValueError, "-128..127"),
        (lambda: ptxfp.eval("cvt.rn.f32.s8", 2.5), TypeError, "float"),
        (lambda: ptxfp.eval("add.rn.f32", 1.0, 2.0, out=np.empty(1, np.float64)), TypeError, "float64"),
        (lambda: ptxfp.eval("add.rn.f32", 1.0, 2.0, out=[0.0]), TypeError, "NumPy array"),
        (lambda: ptxfp.eval("add.rn.f32", np.zeros(3, np.float32), 2.0, out=np.empty(4, np.float32)), ValueError, "shape"),
        (lambda: ptxfp.eval("add.rn.f32", np.zeros(4, np.float32), 2.0, out=np.empty(8, np.float32)[::2]), ValueError, "contiguous"),
        (lambda: ptxfp.sweep("add.rn.f32", range=3), TypeError, "range"),
        (lambda: ptxfp.sweep("ex2.approx.f32", range="2..1"), ValueError, "2..1"),
        (lambda: ptxfp.sweep("ex2.approx.f32", shard="3/2"), ValueError, "shard"),
        (lambda: ptxfp.sweep("ex2.approx.f32", random=-1), ValueError, "random"),
        (lambda: ptxfp.merge([3]), TypeError, "report 1"),
        (lambda: ptxfp.merge(['{"not": "a report"}']), ValueError, "report 1"),
    ],
)
def test_bad_input_is_a_clear_error(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert words in str(e.value)


def test_read_only_out_is_refused_and_nothing_is_written():
    out = np.zeros(4, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ptxfp.eval("add.rn.f32", np.ones(4, np.float32), 1.0, out=out)
    assert np.all(out == 0)


def test_ops_and_simd_level():
    records = ptxfp.ops()
    spellings = {r["spelling"] for r in records}
    assert {"fma.rn.ftz.f32", "cvt.rzi.s32.f32", "MUFU.EX2", "tanh.approx.bf16x2"} <= spellings
    fma = next(r for r in records if r["spelling"] == "fma.rn.f32")
    assert fma["operands"] == 3 and fma["evidence"] == "ieee-exact" and fma["source_type"] == "f32"
    assert ptxfp.simd_level() in ("baseline", "avx2", "avx512")


def test_sweep_merge_and_plot():
    whole = ptxfp.sweep("ex2.approx.ftz.f32", range="1.0..1.0078125")
    assert whole["count"] == 1 << 16
    assert whole["bound"]["pass"]
    hist = whole["ulp_histogram"]
    assert hist["count"].sum() == whole["count"]
    assert abs(hist["ulp"]).max() == abs(whole["max_ulp"])
    assert isinstance(whole["profile"]["max_ulp"], np.ndarray)
    assert whole["binades"]["count"].sum() == whole["count"]
    shards = [ptxfp.sweep("ex2.approx.ftz.f32", range="1.0..1.0078125", shard=f"{k}/3") for k in (1, 2, 3)]
    merged = ptxfp.merge(shards)
    for key in ("count", "max_ulp", "max_abs_error", "max_rel_error"):
        assert merged[key] == whole[key]
    assert np.array_equal(merged["ulp_histogram"]["count"], hist["count"])
    half = ptxfp.sweep("tanh.approx.bf16")
    assert half["count"] == 1 << 16 and not half["bound"]["pass"]  # the documented deviation
    import matplotlib

    matplotlib.use("Agg")
    ax = ptxfp.plot(whole)
    assert ax.get_title().startswith("ex2.approx.ftz.f32")


def test_a_sweep_stops_on_ctrl_c():
    # A whole-f32 sweep takes seconds; a SIGINT delivered to the main thread stops it.
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        ptxfp.sweep("sin.approx.f32")
    timer.join()
    assert time.monotonic() - start < 10


def test_threads_share_instructions_and_get_the_same_bits():
    instr = ptxfp.Instr("fma.rn.f32")
    a, b, c = (random_words(1 << 18, 32, s).view(np.float32) for s in (6, 7, 8))
    want = instr.eval(a, b, c)
    results = [None] * 8
    errors = []

    def work(k):
        try:
            for _ in range(5):
                got = instr.eval(a, b, c) if k % 2 else ptxfp.eval("fma.rn.f32", a, b, c)
                assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
            results[k] = True
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(results)


def test_bf16_values_and_words_agree():
    x = np.array([1.0, -2.5, 3.0e38, np.inf], dtype=np.float32)
    b = ptxfp.eval("cvt.rn.bf16.f32", x)
    words = ptxfp.eval("cvt.rn.bf16.f32", x.view(np.uint32), out=np.empty(4, np.uint16))
    assert np.array_equal(b.view(np.uint16), words)
    # bf16 operands as bfloat16 values or as uint16 words.
    s = ptxfp.eval("add.rn.bf16", b, b)
    assert np.array_equal(s.view(np.uint16), ptxfp.eval("add.rn.bf16", words, words).view(np.uint16))


def test_mixed_precision_operands_take_their_own_dtypes():
    # fma.rn.f32.f16: a and b are f16, c and d f32; each operand takes its own type's dtypes
    # (or words of the widest, zero-extended).
    instr = ptxfp.Instr("fma.rn.f32.f16", arch="sm_100a")
    assert instr.source_types == ("f16", "f16", "f32")
    assert instr.operand_dtypes(0) == (np.dtype(np.float16), np.dtype(np.uint16), np.dtype(np.uint32))
    a = random_words(1 << 12, 16, 9).view(np.float16)
    b = random_words(1 << 12, 16, 10).view(np.float16)
    c = random_words(1 << 12, 32, 11).view(np.float32)
    got = instr.eval(a, b, c)
    assert got.dtype == np.float32
    wide = [a.view(np.uint16).astype(np.uint32), b.view(np.uint16).astype(np.uint32)]
    assert np.array_equal(instr.eval(*wide, c).view(np.uint32), got.view(np.uint32))
    # The f32 instruction on the exactly widened operands (PTX ISA §9.7.5).
    want = ptxfp.eval("fma.rn.f32", a.astype(np.float32), b.astype(np.float32), c)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    with pytest.raises(TypeError, match="float16 or uint16 or uint32"):
        instr.eval(c, b, c)
