"""ptxfp: NVIDIA GPU floating-point instructions evaluated on the CPU, bit for bit.

Every PTX floating-point instruction (ISA 9.7.3 and 9.7.4, every modifier), the SASS MUFU
forms and the conversions between formats, with NVIDIA's NaNs, flush-to-zero rule and
saturation. The same Rust library as the ``ptxfp`` command and the C library, so every
interface returns the same bits.

>>> import numpy as np, ptxfp
>>> ptxfp.eval("add.rz.f32", np.float32(1.0), np.float32(1e-8))
np.float32(1.0)

Operands are NumPy arrays or scalars, broadcast against each other. A float16, float32 or
float64 array is read as values of that format, an ``ml_dtypes.bfloat16`` array as bf16
values, an unsigned integer array of the operand's width as raw bit patterns (for any type;
the packed types ``f16x2``, ``bf16x2`` and ``f32x2`` take only words, element 0 in the low
half), and for the integer sides of ``cvt`` the signed or unsigned integer dtype of the
width. An operand narrower than the others (the f16 or bf16 one of ``fma.rn.f32.f16``, a
scale) takes its own type's dtypes or words of the widest (``Instr.operand_dtypes(k)``).
Python ints and floats are values of the operand's type. Results come back in the
natural dtype: float16/float32/float64 for those formats, bfloat16 when ml_dtypes is
installed, the integer dtype of an integer result, else unsigned words.

Low-precision formats (``cvt``) with ml_dtypes installed. A packed narrow type whose
element format has an ml_dtypes dtype of the same encoding (e4m3 ``float8_e4m3fn``, e5m2
``float8_e5m2``, e2m3 ``float6_e2m3fn``, e3m2 ``float6_e3m2fn``, e2m1 ``float4_e2m1fn``,
ue8m0 ``float8_e8m0fnu``) is taken as an array of that dtype whose last axis holds the word's
2 or 4 elements, element 0 first (the lowest bits of the word, as PTX places them), or as
unsigned words; the last axis is consumed and the rest broadcast with the other operands.
Its results come back in that form, with a trailing axis of ``Instr.result_lanes`` elements
(``out=`` may be that or the words). ue5m3x2 and s2f6x2, which ml_dtypes lacks, stay words
(``uint16``, element 0 in the low byte). A tf32 result (``cvt.rna.tf32.f32``) is a float32:
tf32 is the top 19 bits of an f32 word.

>>> import ml_dtypes
>>> x = np.array([[1.0, 500.0], [-0.3, np.nan]], np.float32)
>>> ptxfp.eval("cvt.rn.satfinite.e4m3x2.f32", x[:, 1], x[:, 0])  # a is element 1
array([[1, 448],
       [-0.3125, nan]], dtype=dtype(float8_e4m3fn))

ml_dtypes' own casts (``x.astype(ml_dtypes.float8_e4m3fn)``, ml_dtypes 0.7) differ from the
instructions only where the formats' rules do; python/tests/test_narrow.py classifies every
differing input (counts: all 2^16 f16 values / 2,097,182 edge-biased f32 values):

======================  ==========================================================  ==============
e4m3 (.rn.satfinite)    beyond 448: ml_dtypes NaN, PTX ±max 0x7E/0xFE               14718 / 977804
                        ±Inf: NaN, PTX ±max                                         2 / 2
                        a negative NaN: ml_dtypes 0xFF, PTX 0x7F                    1023 / 2218
e5m2 (.rn.satfinite)    beyond 57344: ml_dtypes ±Inf, PTX ±max 0x7B/0xFB            256 / 920571
                        ±Inf kept, PTX ±max                                         2 / 2
                        NaN: ml_dtypes 0x7E/0xFE, PTX 0x7F                          2046 / 4469
e2m3, e3m2, e2m1        NaN: ml_dtypes a zero (−0 for +NaN), PTX +max               2046 / 4469
ue8m0 (.rz.satfinite;   negative: ml_dtypes NaN 0xFF, PTX the magnitude's code      31743 / 1046926
.rp likewise)           zero: ml_dtypes NaN, PTX 0x00 (2^−127)                      2 / 308
                        ±Inf, from 1.5·2^127: ml_dtypes NaN, PTX 0xFE               2 / 4789
                        ml_dtypes rounds to nearest (ties up), PTX .rz or .rp       15871 / 514375
up to f16/bf16          the NaN codes (e4m3 2, e5m2 6, ue8m0 1): ml_dtypes a quiet NaN with the
                        code's sign, PTX 0x7FFF
======================  ==========================================================  ==============
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from . import _ptxfp

try:  # bf16 values need ml_dtypes; without it bf16 operands and results are uint16 words.
    import ml_dtypes as _ml_dtypes

    _BFLOAT16: Optional[np.dtype] = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - exercised where ml_dtypes is absent
    _ml_dtypes = None
    _BFLOAT16 = None

__all__ = ["Instr", "eval", "mma", "matmul", "Mma", "ops", "simd_level", "sweep", "merge", "plot", "Report", "DEFAULT_ARCH"]

#: The architecture used when none is given (as on the command line).
DEFAULT_ARCH = "sm_90"

__version__ = _ptxfp.version()

_WORDS = {8: np.dtype(np.uint8), 16: np.dtype("<u2"), 32: np.dtype("<u4"), 64: np.dtype("<u8")}


def _dtype_name(dt: np.dtype) -> str:
    return "bfloat16" if _BFLOAT16 is not None and dt == _BFLOAT16 else dt.name


#: The narrow formats that an ml_dtypes dtype encodes the same way (ue5m3 and s2f6 have none;
#: an older ml_dtypes may lack some, whose types then stay words).
_ML_DTYPES = {
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "e2m3": "float6_e2m3fn",
    "e3m2": "float6_e3m2fn",
    "e2m1": "float4_e2m1fn",
    "ue8m0": "float8_e8m0fnu",
}


class _Lanes:
    """A packed narrow type (``e4m3x2``, ``e2m1x4``, ...) as an array of its ml_dtypes dtype
    whose last axis holds the word's elements, element 0 (the lowest bits) first: one code per
    byte (the FP6 codes in bits 5:0, as both PTX and ml_dtypes store them), e2m1 one per
    nibble of the word and one per byte (its low nibble) in the array."""

    __slots__ = ("ptx", "dtype", "lanes", "nibbles", "word", "mask")

    def __init__(self, ptx: str, dtype: np.dtype, lanes: int) -> None:
        self.ptx, self.dtype, self.lanes = ptx, dtype, lanes
        element = ptx[:-2]
        self.nibbles = element == "e2m1"
        self.word = _WORDS[(4 if self.nibbles else 8) * lanes]
        self.mask = {"e2m1": 0x0F, "e2m3": 0x3F, "e3m2": 0x3F}.get(element, 0xFF)

    @staticmethod
    def of(ptx: str) -> "Optional[_Lanes]":
        if _ml_dtypes is None or len(ptx) < 3 or ptx[-2:] not in ("x2", "x4"):
            return None
        name = _ML_DTYPES.get(ptx[:-2])
        scalar = getattr(_ml_dtypes, name, None) if name else None
        return None if scalar is None else _Lanes(ptx, np.dtype(scalar), int(ptx[-1]))

    def describe(self) -> str:
        return f"{self.dtype.name} with a last axis of {self.lanes} (element 0 first)"

    def to_words(self, array: np.ndarray) -> np.ndarray:
        """An array of shape (..., lanes) as the words of shape (...)."""
        codes = np.ascontiguousarray(array).view(np.uint8)
        if self.mask != 0xFF:
            codes = codes & np.uint8(self.mask)
        if not self.nibbles:
            return np.ascontiguousarray(codes).view(self.word)[..., 0]
        words = codes[..., 0].astype(self.word)
        for k in range(1, self.lanes):
            words |= codes[..., k].astype(self.word) << self.word.type(4 * k)
        return words


_VALUES = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "tf32": np.dtype(np.float32), "f64": np.dtype(np.float64)}
if _BFLOAT16 is not None:
    _VALUES["bf16"] = _BFLOAT16
_SIGNED = {8: np.dtype(np.int8), 16: np.dtype("<i2"), 32: np.dtype("<i4"), 64: np.dtype("<i8")}


class _Operand:
    """What one source operand accepts: ``plain``, the value and word dtypes (the natural one
    first), and ``lanes``, the ml_dtypes form of a packed narrow type; every one becomes words
    of the source width, an operand narrower than it (a scale, an f16 operand of the mixed
    f32 arithmetic) zero-extended."""

    __slots__ = ("ptx", "width", "plain", "lanes", "wide")

    def __init__(self, ptx: str, width: int, wide: np.dtype, shared: tuple) -> None:
        self.ptx, self.width, self.wide = ptx, width, wide
        self.lanes = _Lanes.of(ptx)
        plain = [_VALUES[ptx]] if ptx in _VALUES else []
        if ptx[:1] == "s" and ptx[1:].isdigit():
            plain.append(_SIGNED[width])
        plain.append(_WORDS[width])
        if ptx[:1] == "u" and ptx[1:].isdigit():
            plain.append(_SIGNED[width])
        if width == wide.itemsize * 8:
            plain += [d for d in shared if d not in plain]  # as before: rbits as float32 words
        else:
            plain.append(wide)
        self.plain = tuple(plain)

    @property
    def dtypes(self) -> tuple:
        return self.plain if self.lanes is None else (self.lanes.dtype,) + self.plain

    def widen(self, array: np.ndarray) -> np.ndarray:
        """An array of one of the accepted dtypes as source words (zero-extended)."""
        if array.dtype.itemsize == self.wide.itemsize:
            return array
        return array.view(_WORDS[array.dtype.itemsize * 8]).astype(self.wide)


class Instr:
    """One instruction on one architecture, checked once; ``eval`` applies it to arrays.

    ``Instr("fma.rn.ftz.f32", arch="sm_90")``. A spelling the catalog lacks, an unknown
    architecture or one that lacks the instruction raises ``ValueError`` with the library's
    message (the legal alternatives included). Instances are immutable and may be shared by
    threads.
    """

    __slots__ = ("_native", "_operands", "_result_dtype", "_lanes_out", "_word_in", "_word_out")

    def __init__(self, spelling: str, arch: str = DEFAULT_ARCH) -> None:
        if not isinstance(spelling, str):
            raise TypeError(f"the spelling must be a str, not {type(spelling).__name__}")
        if not isinstance(arch, str):
            raise TypeError(f"arch must be a str such as 'sm_90', not {type(arch).__name__}")
        native = _ptxfp.NativeInstr(spelling, arch)
        self._native = native
        self._word_in = _WORDS[native.source_bits]
        self._word_out = _WORDS[native.result_bits]
        # What `ptxfp run` reads for the operands of the source width (the value dtype of the
        # first operand's format, the words); each operand adds the dtypes of its own type.
        shared = tuple(np.dtype(name) for name in native.source_dtypes)
        self._operands = tuple(
            _Operand(t, width, self._word_in, shared) for t, width in zip(native.source_types, native.source_widths)
        )
        result = np.dtype(native.result_dtype)
        self._lanes_out = _Lanes.of(native.result_type) if native.result_is_value else None
        if self._lanes_out is not None:
            result = self._lanes_out.dtype
        elif native.result_type == "bf16" and native.result_is_value and _BFLOAT16 is not None:
            result = _BFLOAT16
        elif native.result_type == "tf32":
            result = np.dtype(np.float32)  # the top 19 bits of an f32 word: an f32 value
        self._result_dtype = result

    @property
    def spelling(self) -> str:
        """The canonical spelling."""
        return self._native.spelling

    @property
    def arch(self) -> str:
        return self._native.arch

    @property
    def operand_counts(self) -> list:
        """The numbers of operands the instruction takes on this architecture."""
        return self._native.operand_counts

    @property
    def source_type(self) -> str:
        """PTX type of the (first) operand (``f32``, ``bf16x2``, ``s32``, ...)."""
        return self._native.source_type

    @property
    def result_type(self) -> str:
        return self._native.result_type

    @property
    def source_types(self) -> tuple:
        """PTX type of each source operand in order: ``cvt.rs`` ends with its random bits
        (``u32``), a ``.scaled::n2::ue8m0`` form with its scales (``ue8m0x2``),
        ``fma.rn.f32.f16`` takes ``f16``, ``f16``, ``f32``."""
        return tuple(op.ptx for op in self._operands)

    @property
    def source_dtypes(self) -> tuple:
        """The dtypes the first operand's array may have (``operand_dtypes(0)``; every
        operand's where they share a type), the natural one first."""
        return self.operand_dtypes(0)

    def operand_dtypes(self, k: int) -> tuple:
        """The dtypes operand ``k`` (from 0) may have, the natural one first: the values of its
        format (float16, float32, float64, bfloat16; float32 for tf32), for a packed narrow type
        with an ml_dtypes dtype that dtype (``e4m3x2``: ``float8_e4m3fn``, arrays whose last
        axis has ``operand_lanes(k)`` elements), the unsigned word of its type (and for an
        integer type the signed one), and the words of the source width when its type is
        narrower (zero-extended)."""
        return self._operands[k].dtypes

    @property
    def source_lanes(self) -> Optional[int]:
        """``operand_lanes(0)``."""
        return self.operand_lanes(0)

    def operand_lanes(self, k: int) -> Optional[int]:
        """The length of the last axis of operand ``k`` given in the ml_dtypes dtype of its
        packed narrow type (2 or 4: the word's elements, element 0 first), or None where its
        type has no such dtype."""
        lanes = self._operands[k].lanes
        return None if lanes is None else lanes.lanes

    @property
    def result_dtype(self) -> np.dtype:
        """The dtype of the result (the unsigned word dtype is accepted for ``out`` too). A
        packed narrow result with an ml_dtypes dtype has a trailing axis of ``result_lanes``;
        a tf32 result is a float32."""
        return self._result_dtype

    @property
    def result_lanes(self) -> Optional[int]:
        """The length of the trailing axis of a result (the word's 2 or 4 elements, element 0
        first) when it is returned as ml_dtypes values of a packed narrow type, else None: the
        result has the operands' broadcast shape."""
        return None if self._lanes_out is None else self._lanes_out.lanes

    @property
    def evidence(self) -> str:
        """How well the bits are established: ieee-exact, hardware-verified, documented or model."""
        return self._native.evidence

    @property
    def min_sm(self) -> int:
        """The lowest architecture (``sm_XX`` as XX) that has the instruction."""
        return self._native.min_sm

    @property
    def batch_path(self) -> str:
        """``simd`` or ``scalar``: how arrays are evaluated on this processor."""
        return self._native.batch_path

    def __repr__(self) -> str:
        return f"ptxfp.Instr({self.spelling!r}, arch={self.arch!r})"

    def _operand(self, k: int, op: Any) -> np.ndarray:
        """Operand ``k`` as an array of the source words (of any shape)."""
        name = f"operand {k + 1} of {self.spelling}"
        spec = self._operands[k]
        if isinstance(op, (bool, np.bool_)):
            raise TypeError(f"{name} is a bool; it must be a number or an array")
        if isinstance(op, (int, float)):
            return spec.widen(self._python_scalar(spec, name, op))
        array = np.asarray(op)
        if array.dtype.itemsize == 1 and not array.dtype.isnative:
            array = array.view(array.dtype.newbyteorder("="))  # one byte has no byte order
        if array.dtype.byteorder == ">":
            raise TypeError(f"{name} is a big-endian array; convert it with .astype('{array.dtype.newbyteorder('<').str}')")
        lanes = spec.lanes
        if lanes is not None and array.dtype == lanes.dtype:
            if array.ndim == 0 or array.shape[-1] != lanes.lanes:
                raise TypeError(
                    f"{name} is a {lanes.dtype.name} array of shape {array.shape} but {self.spelling} takes "
                    f"{lanes.ptx} operands as {lanes.describe()}, or {lanes.word.name} words"
                )
            return spec.widen(lanes.to_words(array))
        if array.dtype not in spec.plain:
            names = " or ".join(_dtype_name(d) for d in spec.plain)
            if lanes is not None:
                names = f"{lanes.describe()}, or {names}"
            raise TypeError(
                f"{name} is a {_dtype_name(array.dtype)} array but {self.spelling} takes {spec.ptx} "
                f"operands ({spec.width}-bit words; use {names})"
            )
        return spec.widen(array)

    def _python_scalar(self, spec: "_Operand", name: str, op: Union[int, float]) -> np.ndarray:
        """A Python number as a value of the operand's type (a word for the packed types)."""
        natural = spec.plain[0]
        if natural.kind == "f" or natural == _BFLOAT16:
            return np.asarray(op, dtype=natural)
        if spec.ptx == "bf16":
            raise TypeError(f"{name}: bf16 values need ml_dtypes (pip install ml_dtypes); without it pass uint16 bit patterns")
        if isinstance(op, float):
            raise TypeError(f"{name} is a float but {self.spelling} takes {spec.ptx} operands (integers or words)")
        info = np.iinfo(natural)
        if not info.min <= op <= info.max:
            raise ValueError(f"{name} is {op}, outside the range {info.min}..{info.max} of a {spec.ptx} operand")
        return np.asarray(op, dtype=natural)

    def eval(self, *operands: Any, out: Optional[np.ndarray] = None) -> Any:
        """Apply the instruction element-wise to the broadcast operands.

        Returns a new array of ``result_dtype`` (a NumPy scalar when every operand is a
        scalar), or ``out`` filled: an array of the broadcast shape, C-contiguous and writable,
        of ``result_dtype`` or the unsigned word dtype of the result's width.

        Packed narrow types with an ml_dtypes dtype (``e4m3x2`` as ``float8_e4m3fn``, ...; see
        the module's documentation): an operand of that dtype has a last axis of the word's
        elements, element 0 first, which is consumed before broadcasting; the result has a
        trailing axis of ``result_lanes`` elements (``out`` of the broadcast shape plus that
        axis, or the words of the broadcast shape).
        """
        counts = self.operand_counts
        if len(operands) not in counts:
            takes = " or ".join(str(n) for n in counts)
            raise TypeError(f"{self.spelling} takes {takes} operand(s), got {len(operands)}")
        arrays = [self._operand(k, op) for k, op in enumerate(operands)]
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            shapes = ", ".join(str(a.shape) for a in arrays)
            raise ValueError(f"the operands of {self.spelling} have shapes {shapes}, which do not broadcast together") from None
        # One-dimensional views where NumPy can give them (a strided or broadcast operand is read
        # in place, block by block), else copies.
        words = [np.broadcast_to(a, shape).reshape(-1).view(self._word_in) for a in arrays]
        lanes = self._lanes_out
        if out is None:
            result = np.empty(shape if lanes is None else shape + (lanes.lanes,), dtype=self._result_dtype)
        else:
            result = self._check_out(out, shape)
            # An operand that shares memory with `out` is read before anything is written.
            words = [w.copy() if np.may_share_memory(w, result) else w for w in words]
        # The bytes of the words, of a (..., lanes) array of one-byte codes (the same bytes),
        # or of float4_e2m1fn codes, one nibble of the word per byte.
        nibbles = lanes.lanes if lanes is not None and result.dtype == lanes.dtype and lanes.nibbles else 0
        self._native.eval_arrays(words, result.reshape(-1).view(np.uint8), nibbles)
        if out is None and result.ndim == 0:
            return result[()]
        return result

    def eval_bits(self, *words: int) -> int:
        """One evaluation through the instruction's scalar definition, on raw operand words
        (Python ints: bit patterns of the operand type, packed types as one word); returns
        the result word. Slower per element than ``eval``, which runs the SIMD kernels, and
        bit-identical to it."""
        for k, w in enumerate(words):
            if isinstance(w, bool) or not isinstance(w, (int, np.integer)):
                raise TypeError(f"word {k + 1} of {self.spelling} is a {type(w).__name__}; eval_bits takes int bit patterns")
            if w < 0:
                raise ValueError(f"word {k + 1} of {self.spelling} is negative; eval_bits takes bit patterns")
        counts = self.operand_counts
        if len(words) not in counts:
            takes = " or ".join(str(n) for n in counts)
            raise TypeError(f"{self.spelling} takes {takes} operand(s), got {len(words)}")
        return self._native.eval_bits([int(w) for w in words])

    def _check_out(self, out: Any, shape: tuple) -> np.ndarray:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a NumPy array, not {type(out).__name__}")
        lanes = self._lanes_out
        if out.dtype not in (self._result_dtype, self._word_out):
            natural = _dtype_name(self._result_dtype) if lanes is None else lanes.describe()
            raise TypeError(
                f"out is a {_dtype_name(out.dtype)} array but {self.spelling} writes "
                f"{natural} (or {self._word_out.name} words)"
            )
        want = tuple(shape)
        if lanes is not None and out.dtype == lanes.dtype:
            want += (lanes.lanes,)
        if out.shape != want:
            raise ValueError(f"out has shape {out.shape} but the operands broadcast to {tuple(shape)}, so it needs {want}")
        if not out.flags.c_contiguous:
            raise ValueError("out must be C-contiguous")
        if not out.flags.writeable:
            raise ValueError("out is read-only")
        return out

    __call__ = eval


@functools.lru_cache(maxsize=256)
def _instr(spelling: str, arch: str) -> Instr:
    return Instr(spelling, arch)


def eval(spelling: str, *operands: Any, arch: str = DEFAULT_ARCH, out: Optional[np.ndarray] = None) -> Any:
    """``Instr(spelling, arch).eval(*operands, out=out)`` (the instruction is cached)."""
    if not isinstance(spelling, str) or not isinstance(arch, str):
        return Instr(spelling, arch).eval(*operands, out=out)  # raises the TypeError
    return _instr(spelling, arch).eval(*operands, out=out)


#: The ml_dtypes dtypes that hold tensor-core element types, by the PTX type they encode.
_MMA_ML_DTYPES = {
    "bf16": "bfloat16",
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "e3m2": "float6_e3m2fn",
    "e2m3": "float6_e2m3fn",
    "e2m1": "float4_e2m1fn",
    "ue8m0": "float8_e8m0fnu",
}
_MMA_FLOAT = {"f16": np.float16, "f32": np.float32, "tf32": np.float32, "f64": np.float64}
_MMA_SIGNED = {"s8": np.int8, "s4": np.int8, "s32": np.int32}


class Mma:
    """A tensor-core instruction on one target: ``mma.sync``, ``wmma.mma``, ``wgmma.mma_async``
    or ``tcgen05.mma`` (its descriptor's shape and types appended, as ``ptxfp ops`` lists it).

    ``Mma(spelling, arch)(a, b, c=None, scale_a=None, scale_b=None)`` is D = A·B + C for a
    stack of tiles: A of shape (…, m, k), B (…, k, n), C (…, m, n), the scales of a
    block-scaled form (…, m, vec) and (…, vec, n), row-major whatever the layout qualifiers.
    Each operand is its type's codes as the unsigned dtype of the container (uint8 for FP8,
    FP6, FP4, the scales and b1; uint16 for f16 and bf16; uint32 for tf32, f32 and s32), its
    float dtype (float16, float32 for f32 and tf32, float64), its ml_dtypes dtype (bfloat16,
    float8_e4m3fn, float8_e5m2, float6_e3m2fn, float6_e2m3fn, float4_e2m1fn, float8_e8m0fnu),
    or for s8, s4 and s32 signed values. D comes back as float32, float16, float64 or int32.
    """

    def __init__(self, spelling: str, arch: str = DEFAULT_ARCH) -> None:
        self._native = _ptxfp.NativeMma(spelling, arch)

    @property
    def spelling(self) -> str:
        return self._native.spelling

    @property
    def arch(self) -> str:
        return self._native.arch

    @property
    def shape(self) -> tuple:
        """(m, n, k)."""
        return self._native.shape

    @property
    def evidence(self) -> str:
        return self._native.evidence

    def __repr__(self) -> str:
        return f"Mma({self.spelling!r}, {self.arch!r})"

    def _words(self, arr: np.ndarray, name: str, ty: tuple) -> np.ndarray:
        """The codes of ``arr`` (elements of the PTX type ``ty``) as contiguous uint64."""
        ptx, bits = ty
        container = _WORDS[8 if bits <= 8 else 16 if bits <= 16 else 32 if bits <= 32 else 64]
        dt = arr.dtype
        ml = _MMA_ML_DTYPES.get(ptx)
        if dt == container or (ml is not None and dt.name == ml) or (ptx in _MMA_FLOAT and dt == np.dtype(_MMA_FLOAT[ptx])):
            words = arr.view(_WORDS[dt.itemsize * 8]).astype(np.uint64)
        elif ptx in _MMA_SIGNED and dt == np.dtype(_MMA_SIGNED[ptx]):
            lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            bad = (arr < lo) | (arr > hi)
            if bad.any():
                at = np.argwhere(bad)[0]
                raise ValueError(f"{self.spelling}: {name}[{tuple(int(i) for i in at)}] = {arr[tuple(at)]} is outside the {ptx} range {lo}..{hi}")
            words = arr.astype(np.int64).view(np.uint64) & np.uint64((1 << bits) - 1)
        else:
            accepted = [container.name] + ([ml] if ml else []) + ([np.dtype(_MMA_FLOAT[ptx]).name] if ptx in _MMA_FLOAT else []) + ([np.dtype(_MMA_SIGNED[ptx]).name] if ptx in _MMA_SIGNED else [])
            raise TypeError(f"{self.spelling}: {name} is {dt.name} but its elements are {ptx}; use {' or '.join(accepted)}")
        return np.ascontiguousarray(words.reshape(-1))

    def _codes(self, x: Any, name: str, ty: tuple, rows: int, cols: int) -> tuple:
        arr = np.asarray(x)
        if arr.ndim < 2 or arr.shape[-2:] != (rows, cols):
            raise ValueError(f"{self.spelling}: {name} has shape {arr.shape}, it must be (..., {rows}, {cols})")
        return arr.shape[:-2], self._words(arr, name, ty)

    def _matrix(self, x: Any, name: str, ty: tuple, shape: tuple, spelled: str) -> np.ndarray:
        """The codes of a matrix operand of ``matmul``: two-dimensional, of ``shape``."""
        arr = np.asarray(x)
        if arr.shape != shape:
            raise ValueError(f"{self.spelling}: {name} has shape {arr.shape}, it must be {spelled} = {shape}")
        return self._words(arr, name, ty)

    def _d_dtype(self) -> type:
        return {"f32": np.float32, "f16": np.float16, "f64": np.float64}.get(self._native.operand_types[3][0], np.int32)

    def _check_scales(self, scale_a: Any, scale_b: Any) -> Optional[int]:
        """The scale vector of a block-scaled form, once the scales given match the form."""
        vec = self._native.scale_vec
        if (scale_a is None) != (scale_b is None):
            raise ValueError(f"{self.spelling}: give both scale_a and scale_b")
        if vec is not None and scale_a is None:
            raise ValueError(f"{self.spelling} is block-scaled: give scale_a and scale_b")
        if vec is None and scale_a is not None:
            raise ValueError(f"{self.spelling} takes no scales (only the .block_scale forms do)")
        return vec

    def __call__(self, a: Any, b: Any, c: Any = None, scale_a: Any = None, scale_b: Any = None) -> np.ndarray:
        m, n, k = self.shape
        ta, tb, tc, _ = self._native.operand_types
        lead, a = self._codes(a, "A", ta, m, k)
        operands = {"B": self._codes(b, "B", tb, k, n)}
        if c is not None:
            operands["C"] = self._codes(c, "C", tc, m, n)
        vec = self._check_scales(scale_a, scale_b)
        if vec is not None:
            st = self._native.scale_type
            operands["scale_A"] = self._codes(scale_a, "scale_A", st, m, vec)
            operands["scale_B"] = self._codes(scale_b, "scale_B", st, vec, n)
        for name, (shape, _) in operands.items():
            if shape != lead:
                raise ValueError(f"{self.spelling}: {name} stacks {shape} tiles but A stacks {lead}")
        tiles = int(np.prod(lead, dtype=np.int64))
        get = lambda name: operands[name][1] if name in operands else None  # noqa: E731
        d = self._native.tiles(tiles, a, get("B"), get("C"), get("scale_A"), get("scale_B"))
        out = self._d_dtype()
        width = _WORDS[np.dtype(out).itemsize * 8]
        return d.astype(width).view(out).reshape(lead + (m, n))

    def matmul(self, a: Any, b: Any, c: Any = None, *, promote_every: Optional[int] = None, scale_a: Any = None, scale_b: Any = None) -> np.ndarray:
        """D = A·B + C for whole matrices, evaluated as this instruction's tiles with the
        accumulator chained through the k-steps in k order, as a CUTLASS-style main loop runs
        them: A of shape (M, K), B (K, N), C (M, N) in the dtypes ``__call__`` takes (C absent:
        +0), D back as C's type. Any M, N and K: a K that the instruction's k does not divide
        is padded with zeros, as a kernel pads its last k-step. A block-scaled form takes
        scale_a (M, ⌈K/s⌉) and scale_b (⌈K/s⌉, N), s = k/vec the k one scale covers.

        ``promote_every=P`` (a multiple of k; an f32 D) starts the tensor-core accumulator
        from +0 every P k and adds each span into an f32 accumulator with ``add.rn.f32``, as
        DeepGEMM and FlashAttention-3 promote FP8 products every 128 k.

        The forms whose C and D differ (``m8n8k4`` with an f16 C and an f32 D) are refused:
        a product chains D into the next k-step's C. The interpreter is released meanwhile."""
        ta, tb, tc, _ = self._native.operand_types
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.ndim != 2 or b_arr.ndim != 2:
            raise ValueError(f"{self.spelling}: matmul takes two-dimensional A (M, K) and B (K, N), not {a_arr.shape} and {b_arr.shape} (Mma(...)(a, b) takes stacks of tiles)")
        (big_m, big_k), big_n = a_arr.shape, b_arr.shape[1]
        words = {"a": self._words(a_arr, "A", ta), "b": self._matrix(b_arr, "B", tb, (big_k, big_n), "(K, N)")}
        if c is not None:
            words["c"] = self._matrix(c, "C", tc, (big_m, big_n), "(M, N)")
        vec = self._check_scales(scale_a, scale_b)
        if vec is not None:
            cols = -(-big_k // (self.shape[2] // vec))
            st = self._native.scale_type
            words["scale_a"] = self._matrix(scale_a, "scale_A", st, (big_m, cols), "(M, ⌈K/s⌉)")
            words["scale_b"] = self._matrix(scale_b, "scale_B", st, (cols, big_n), "(⌈K/s⌉, N)")
        if promote_every is not None and (isinstance(promote_every, bool) or not isinstance(promote_every, (int, np.integer)) or promote_every <= 0):
            raise ValueError(f"{self.spelling}: promote_every is {promote_every!r}, it must be a positive multiple of k = {self.shape[2]}")
        d = self._native.gemm(big_m, big_n, big_k, promote_every=None if promote_every is None else int(promote_every), **words)
        out = self._d_dtype()
        return d.astype(_WORDS[np.dtype(out).itemsize * 8]).view(out).reshape(big_m, big_n)


def mma(spelling: str, a: Any, b: Any, c: Any = None, *, arch: str = DEFAULT_ARCH, scale_a: Any = None, scale_b: Any = None) -> np.ndarray:
    """``Mma(spelling, arch)(a, b, c, scale_a, scale_b)``: D = A·B + C for a stack of tiles."""
    return Mma(spelling, arch)(a, b, c, scale_a, scale_b)


def matmul(a: Any, b: Any, c: Any = None, *, instr: str, arch: str = DEFAULT_ARCH, promote_every: Optional[int] = None, scale_a: Any = None, scale_b: Any = None) -> np.ndarray:
    """``Mma(instr, arch).matmul(a, b, c, promote_every=..., scale_a=..., scale_b=...)``: a
    whole matrix product with one tensor-core instruction's numerics."""
    return Mma(instr, arch).matmul(a, b, c, promote_every=promote_every, scale_a=scale_a, scale_b=scale_b)


def ops() -> list:
    """The catalog: one record per legal (spelling, operand count) pair, as ``ptxfp ops``
    lists them: spelling, operands, min_sm, evidence, source_type, result_type, lowest_target
    (the lowest architecture that has it, as ``arch`` takes it: ``sm_50``, ``sm_100f``,
    ``sm_100a``) and targets (every one that has it: ``sm_53+``, ``sm_100f,sm_110f,sm_120f``)."""
    keys = ("spelling", "operands", "min_sm", "evidence", "source_type", "result_type", "lowest_target", "targets")
    return [dict(zip(keys, entry)) for entry in _ptxfp.catalog_entries()]


def simd_level() -> str:
    """The SIMD level evaluation uses on this processor: baseline, avx2 or avx512 (the
    ``PTXFP_SIMD`` environment variable forces a lower one)."""
    return _ptxfp.simd_level()


class Report(dict):
    """A sweep report: the fields of ``ptxfp sweep --json`` with NumPy arrays for
    ``ulp_histogram`` (``{"ulp": ..., "count": ...}``), ``binades`` and ``profile`` (one array
    per column). ``json`` holds the report exactly as the library wrote it (what ``merge``
    reads)."""

    def __init__(self, text: str) -> None:
        raw = json.loads(text)
        super().__init__(raw)
        self.json = text
        histogram = sorted((int(k), v) for k, v in raw["ulp_histogram"].items())
        self["ulp_histogram"] = {
            "ulp": np.array([k for k, _ in histogram], dtype=np.int64),
            "count": np.array([v for _, v in histogram], dtype=np.uint64),
        }
        self["binades"] = _columns(raw["binades"])
        self["profile"] = _columns(raw["profile"], floats=("input",))

    def summary(self) -> str:
        """A few lines: instruction, domain, count, worst ulp and relative error, bound verdict."""
        lines = [
            f"{self['instr']} on {self['arch']}: {self['domain']}",
            f"  {self['count']} inputs against {self['reference']}",
            f"  max |ulp| {abs(self['max_ulp'])}, max relative error {self['max_rel_error']:.6g}, "
            f"{self['mismatches']['count']} mismatches",
        ]
        if self.get("bound"):
            verdict = "PASS" if self["bound"]["pass"] else "FAIL"
            lines.append(f"  bound {verdict}: {self['bound']['description']}")
        return "\n".join(lines)


def _columns(records: Sequence[dict], floats: Iterable[str] = ()) -> dict:
    """Records as one array per field (``floats`` fields parsed as floats, "nan" included)."""
    if not records:
        return {}
    columns = {}
    for key in records[0]:
        values = [r[key] for r in records]
        if key in floats:
            columns[key] = np.array([float(v) for v in values], dtype=np.float64)
        elif all(isinstance(v, bool) for v in values):
            columns[key] = np.array(values, dtype=bool)
        elif all(isinstance(v, int) for v in values):
            columns[key] = np.array(values, dtype=np.int64)
        elif all(isinstance(v, (int, float)) for v in values):
            columns[key] = np.array(values, dtype=np.float64)
        else:
            columns[key] = np.array(values, dtype=object)
    return columns


def sweep(
    spelling: str,
    *,
    range: Optional[str] = None,
    binade: Optional[int] = None,
    random: Optional[int] = None,
    seed: int = 1,
    ref: Optional[Union[str, os.PathLike]] = None,
    shard: Optional[str] = None,
    arch: str = DEFAULT_ARCH,
) -> Report:
    """Sweep an instruction against a reference, as ``ptxfp sweep`` does, and return its report.

    ``range`` ("LO..HI" or "LO..=HI"), ``binade`` (an exponent) and ``random`` (a count of
    edge-biased inputs drawn with ``seed``) choose the inputs; ``ref`` is another spelling or
    a file of expected results (the default is the correctly rounded value); ``shard`` is
    "K/N". The sweep runs with the interpreter released; Ctrl-C stops it with
    ``KeyboardInterrupt``.
    """
    for key, value in (("spelling", spelling), ("arch", arch)):
        if not isinstance(value, str):
            raise TypeError(f"{key} must be a str, not {type(value).__name__}")
    if range is not None and not isinstance(range, str):
        raise TypeError(f"range must be a str such as '1.0..2.0', not {type(range).__name__}")
    for key, value in (("binade", binade), ("random", random), ("seed", seed)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise TypeError(f"{key} must be an int, not {type(value).__name__}")
    if random is not None and random < 0:
        raise ValueError(f"random must be a count of inputs (>= 0), not {random}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must lie in 0..2^64, not {seed}")
    spec = {
        "instr": spelling,
        "arch": arch,
        "range": range,
        "binade": None if binade is None else int(binade),
        "random": None if random is None else int(random),
        "seed": int(seed),
        "reference": None if ref is None else os.fspath(ref),
    }
    if shard is not None and not isinstance(shard, str):
        raise TypeError(f"shard must be a str 'K/N', not {type(shard).__name__}")
    return Report(_ptxfp.run_sweep(json.dumps(spec), shard))


def merge(reports: Sequence[Union[Report, str, os.PathLike]]) -> Report:
    """Merge the reports of a sweep's shards (``Report`` objects, JSON texts or paths of
    ``--json`` files) into the report of the whole sweep, as ``ptxfp merge`` does."""
    texts = []
    for k, r in enumerate(reports):
        if isinstance(r, Report):
            texts.append(r.json)
        elif isinstance(r, str) and r.lstrip().startswith("{"):
            texts.append(r)
        elif isinstance(r, (str, os.PathLike)):
            with open(r, encoding="utf-8") as f:
                texts.append(f.read())
        else:
            raise TypeError(f"report {k + 1} is a {type(r).__name__}; pass Reports, JSON texts or paths")
    return Report(_ptxfp.merge_reports(texts))


def plot(report: Report, ax: Any = None, metric: str = "max_ulp") -> Any:
    """Plot a report's profile (``metric`` per bucket of inputs: ``max_ulp``,
    ``max_abs_error`` or ``max_rel_error``) with matplotlib, which must be installed.
    Returns the axes."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("ptxfp.plot needs matplotlib (pip install matplotlib)") from None
    profile = report["profile"]
    if metric not in profile:
        raise ValueError(f"metric must be one of max_ulp, max_abs_error, max_rel_error, not {metric!r}")
    if ax is None:
        _, ax = plt.subplots()
    x, y = profile["input"], profile[metric]
    finite = np.isfinite(x)
    ax.step(x[finite], y[finite], where="post")
    if np.all(x[finite] > 0) and np.ptp(np.log2(x[finite])) > 8:
        ax.set_xscale("log")
    ax.set_xlabel("input")
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(f"{report['instr']} ({report['count']} inputs)")
    return ax
