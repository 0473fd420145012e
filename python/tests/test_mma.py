"""ptxfp.mma: stacks of tensor-core tiles from NumPy, checked against exact products where
every sum is exact, against MMA-Sim's table 8 across generations, and bad input refused."""

import ml_dtypes
import numpy as np
import pytest

import ptxfp


def test_exact_sums_equal_the_float64_product():
    # Small integers in e4m3 (exact) with sums far below 2^24: every datapath is exact here.
    rng = np.random.default_rng(5)
    a = rng.integers(-8, 9, size=(3, 16, 32)).astype(np.float32)
    b = rng.integers(-8, 9, size=(3, 32, 8)).astype(np.float32)
    c = rng.integers(-100, 101, size=(3, 16, 8)).astype(np.float32)
    s = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"
    d = ptxfp.mma(s, a.astype(ml_dtypes.float8_e4m3fn), b.astype(ml_dtypes.float8_e4m3fn), c, arch="sm_89")
    assert d.dtype == np.float32 and d.shape == (3, 16, 8)
    np.testing.assert_array_equal(d, (a.astype(np.float64) @ b + c).astype(np.float32))
    # The same codes as uint8 give the same bits.
    codes = lambda x: x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)  # noqa: E731
    np.testing.assert_array_equal(ptxfp.mma(s, codes(a), codes(b), c, arch="sm_89"), d)


def test_table_8_across_generations():
    # 2^23 − 2^23 − 0.5 − 0.25 − 0.125 (exact −0.875) in row 0 of A, column 0 of B, C[0, 0].
    a = np.zeros((8, 4), np.float16)
    b = np.zeros((4, 8), np.float16)
    a[0] = [4096, -4096, -0.5, -0.25]
    b[:, 0] = [2048, 2048, 1, 1]
    c = np.zeros((8, 8), np.float32)
    c[0, 0] = -0.125
    s = "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"
    got = {arch: float(ptxfp.mma(s, a, b, c, arch=arch)[0, 0]) for arch in ("sm_70", "sm_80", "sm_90")}
    assert got == {"sm_70": 0.0, "sm_80": -0.5, "sm_90": -0.75}
    m = ptxfp.Mma(s, "sm_70")
    assert m.shape == (8, 8, 4) and m.evidence == "hardware-verified"


def test_signed_integers_and_block_scales():
    s = "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.u4.s32"
    a = np.full((8, 32), -8, np.int8)
    b = np.full((32, 8), 15, np.uint8)
    c = np.full((8, 8), np.iinfo(np.int32).min + 100, np.int32)
    d = ptxfp.mma(s, a, b, c, arch="sm_75")
    assert d.dtype == np.int32 and (d == np.iinfo(np.int32).min).all()  # clamped
    with pytest.raises(ValueError, match=r"A\[\(0, 3\)\] = 8 is outside the s4 range -8..7"):
        a2 = a.copy()
        a2[0, 3] = 8
        ptxfp.mma(s, a2, b, arch="sm_75")
    # NVFP4: ones under ue4m3 scales 2 and 0.5, k = 64: D = 64.
    s = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
    ones = lambda *shape: np.ones(shape, ml_dtypes.float4_e2m1fn)  # noqa: E731
    sa = np.full((16, 4), 2.0, np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    sb = np.full((4, 8), 0.5, np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    d = ptxfp.mma(s, ones(16, 64), ones(64, 8), arch="sm_120a", scale_a=sa, scale_b=sb)
    assert (d == 64).all()
    with pytest.raises(ValueError, match="block-scaled: give scale_a and scale_b"):
        ptxfp.mma(s, ones(16, 64), ones(64, 8), arch="sm_120a")


def test_bad_input_is_refused_with_the_alternatives():
    with pytest.raises(ValueError, match=r"does not take the types .f32.e4m3.e4m3.f16; it takes"):
        ptxfp.Mma("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f16", "sm_89")
    with pytest.raises(ValueError, match="requires sm_90a; the target is sm_90"):
        ptxfp.Mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "sm_90")
    s = "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"
    a, b = np.zeros((2, 16, 8), np.float16), np.zeros((2, 8, 8), np.float16)
    with pytest.raises(ValueError, match=r"B has shape \(2, 8, 9\), it must be \(..., 8, 8\)"):
        ptxfp.mma(s, a, np.zeros((2, 8, 9), np.float16), arch="sm_80")
    with pytest.raises(TypeError, match="B is float32 but its elements are f16; use uint16 or float16"):
        ptxfp.mma(s, a, b.astype(np.float32), arch="sm_80")
    with pytest.raises(ValueError, match=r"B stacks \(3,\) tiles but A stacks \(2,\)"):
        ptxfp.mma(s, a, np.zeros((3, 8, 8), np.float16), arch="sm_80")
    # A code wider than its type (an e2m1 code is 4 bits) is refused by the native check.
    s = "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32"
    a = np.zeros((16, 32), np.uint8)
    a[0, 5] = 0x1F
    with pytest.raises(ValueError, match=r"element 5 of A is 0x1f, not a e2m1 code \(4 bits\)"):
        ptxfp.mma(s, a, np.zeros((32, 8), np.uint8), arch="sm_120a")


def _chained_tiles(s, arch, a, b, c):
    """D = A·B + C through whole tiles of ptxfp.mma, chained by hand in k order (A, B zero
    padded to whole tiles)."""
    m, n, k = ptxfp.Mma(s, arch).shape
    big_m, big_k = a.shape
    big_n = b.shape[1]
    pad = lambda x, r, q: np.pad(x, ((0, -x.shape[0] % r), (0, -x.shape[1] % q)))  # noqa: E731
    a, b, c = pad(a, m, k), pad(b, k, n), pad(c, m, n)
    d = np.empty_like(c)
    for i in range(0, a.shape[0], m):
        for j in range(0, b.shape[1], n):
            acc = c[i : i + m, j : j + n]
            for p in range(0, a.shape[1], k):
                acc = ptxfp.mma(s, a[i : i + m, p : p + k], b[p : p + k, j : j + n], acc, arch=arch)
            d[i : i + m, j : j + n] = acc
    return d[:big_m, :big_n]


def test_matmul_is_its_tiles_chained_through_k():
    rng = np.random.default_rng(11)
    s = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    a = rng.standard_normal((37, 70)).astype(ml_dtypes.bfloat16)
    b = (rng.standard_normal((70, 19)) * 2.0 ** rng.integers(-20, 20, (70, 19))).astype(ml_dtypes.bfloat16)
    c = rng.standard_normal((37, 19)).astype(np.float32)
    d = ptxfp.matmul(a, b, c, instr=s, arch="sm_80")
    assert d.dtype == np.float32 and d.shape == (37, 19)
    np.testing.assert_array_equal(d.view(np.uint32), _chained_tiles(s, "sm_80", a, b, c).view(np.uint32))
    # f16 C and D: the result is float16.
    s = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
    a16, b16 = a.astype(np.float16), b.astype(np.float32).clip(-1e4, 1e4).astype(np.float16)
    d16 = ptxfp.Mma(s, "sm_90").matmul(a16, b16, c.astype(np.float16))
    assert d16.dtype == np.float16
    np.testing.assert_array_equal(d16.view(np.uint16), _chained_tiles(s, "sm_90", a16, b16, c.astype(np.float16)).view(np.uint16))


def test_matmul_exact_sums_with_padding():
    # Small integers in e4m3 with |sums| < 2^13: exact on Hopper's 13-fraction-bit
    # accumulator; K = 100 is not a multiple of k = 32, so the last k-step is padded.
    rng = np.random.default_rng(3)
    a = rng.integers(-8, 9, size=(70, 100)).astype(np.float32)
    b = rng.integers(-8, 9, size=(100, 9)).astype(np.float32)
    s = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"
    d = ptxfp.matmul(a.astype(ml_dtypes.float8_e4m3fn), b.astype(ml_dtypes.float8_e4m3fn), instr=s, arch="sm_90a")
    np.testing.assert_array_equal(d, (a.astype(np.float64) @ b).astype(np.float32))


def test_matmul_promotion_keeps_what_the_accumulator_drops():
    # Row 0: 1·1 in the first 32 k, then 2^-9·2^-9 = 2^-18 (e4m3's least subnormal squared).
    # Hopper's FP8 accumulator keeps 13 fraction bits, truncated: 1 + 2^-18 is 1. Promoted
    # every 32 k, the second span is 2^-18 on its own, added to 1 in f32: 1 + 2^-18.
    s = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"
    a = np.zeros((64, 64), np.uint8)
    b = np.zeros((64, 8), np.uint8)
    a[0, 0], b[0, 0] = 0x38, 0x38  # 1.0
    a[0, 40], b[40, 0] = 0x01, 0x01  # 2^-9
    plain = ptxfp.matmul(a, b, instr=s, arch="sm_90a")
    promoted = ptxfp.matmul(a, b, instr=s, arch="sm_90a", promote_every=32)
    assert plain[0, 0] == 1.0 and promoted[0, 0] == np.float32(1 + 2.0**-18)
    assert (plain[1:] == 0).all() and (promoted[1:] == 0).all()


def test_matmul_block_scales():
    # NVFP4 ones, K = 80: five blocks of 16 (the last half padded), each scaled by 2·0.5 except
    # block 4 (k 64..79, of which 16 are real), scaled by 4·1: 64 + 16·4 = 128.
    s = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
    ones = lambda *shape: np.ones(shape, ml_dtypes.float4_e2m1fn)  # noqa: E731
    e4m3 = lambda x: np.asarray(x, np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)  # noqa: E731
    sa = e4m3(np.tile([2.0, 2.0, 2.0, 2.0, 4.0], (20, 1)))
    sb = e4m3(np.tile([[0.5], [0.5], [0.5], [0.5], [1.0]], (1, 8)))
    d = ptxfp.matmul(ones(20, 80), ones(80, 8), instr=s, arch="sm_120a", scale_a=sa, scale_b=sb)
    assert d.shape == (20, 8) and (d == 128).all()
    with pytest.raises(ValueError, match=r"scale_A has shape \(20, 4\), it must be \(M, ⌈K/s⌉\) = \(20, 5\)"):
        ptxfp.matmul(ones(20, 80), ones(80, 8), instr=s, arch="sm_120a", scale_a=sa[:, :4], scale_b=sb)


def test_matmul_refuses_bad_input():
    s = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    a, b = np.zeros((20, 30), ml_dtypes.bfloat16), np.zeros((30, 5), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match=r"B has shape \(29, 5\), it must be \(K, N\) = \(30, 5\)"):
        ptxfp.matmul(a, b[:29], instr=s, arch="sm_80")
    with pytest.raises(ValueError, match=r"C has shape \(20, 6\), it must be \(M, N\) = \(20, 5\)"):
        ptxfp.matmul(a, b, np.zeros((20, 6), np.float32), instr=s, arch="sm_80")
    with pytest.raises(ValueError, match="matmul takes two-dimensional A"):
        ptxfp.matmul(a[None], b, instr=s, arch="sm_80")
    with pytest.raises(TypeError, match="A is float16 but its elements are bf16; use uint16 or bfloat16"):
        ptxfp.matmul(a.astype(np.float16), b, instr=s, arch="sm_80")
    with pytest.raises(ValueError, match="not a positive multiple of"):
        ptxfp.matmul(a, b, instr=s, arch="sm_80", promote_every=24)
    with pytest.raises(ValueError, match="promote_every is 0"):
        ptxfp.matmul(a, b, instr=s, arch="sm_80", promote_every=0)
    with pytest.raises(ValueError, match="C and D need one type"):
        f16 = np.zeros((8, 4), np.float16)
        ptxfp.matmul(f16, f16.T, instr="mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16", arch="sm_70")
    with pytest.raises(ValueError, match="takes no scales"):
        ptxfp.matmul(a, b, instr=s, arch="sm_80", scale_a=a, scale_b=b)
