"""The ml_dtypes forms of the packed narrow types, written for the tests independently of the
package: element k of a word at bits k·b .. k·b+b−1 (b = 8, or 4 for e2m1), one code per byte
of the ml_dtypes array (float4_e2m1fn in the low nibble, the float6 codes in bits 5:0)."""

import ml_dtypes
import numpy as np

#: The element formats an ml_dtypes dtype encodes the same way (ue5m3, s2f6: none).
ML = {
    "e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "e2m3": np.dtype(ml_dtypes.float6_e2m3fn),
    "e3m2": np.dtype(ml_dtypes.float6_e3m2fn),
    "e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
    "ue8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
}
WORDS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def ml_form(ptx):
    """(dtype, lanes, bits per element) of a packed narrow type with an ml_dtypes dtype, or None."""
    if ptx[-2:] in ("x2", "x4") and ptx[:-2] in ML:
        return ML[ptx[:-2]], int(ptx[-1]), 4 if ptx.startswith("e2m1") else 8
    return None


def words_to_ml(words, ptx):
    dtype, lanes, b = ml_form(ptx)
    w = np.asarray(words).astype(np.uint64)
    codes = np.stack([(w >> np.uint64(b * k)) & np.uint64((1 << b) - 1) for k in range(lanes)], axis=-1)
    return codes.astype(np.uint8).view(dtype)


def ml_to_words(array, ptx, width):
    _, lanes, b = ml_form(ptx)
    codes = np.asarray(array).view(np.uint8).astype(np.uint64)
    w = np.zeros(codes.shape[:-1], np.uint64)
    for k in range(lanes):
        w |= codes[..., k] << np.uint64(b * k)
    return w.astype(WORDS[width])
