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
