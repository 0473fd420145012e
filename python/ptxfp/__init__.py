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
width. Python ints and floats are values of the operand's type. Results come back in the
natural dtype: float16/float32/float64 for those formats, bfloat16 when ml_dtypes is
installed, the integer dtype of an integer result, else unsigned words.
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
    _BFLOAT16 = None

__all__ = ["Instr", "eval", "ops", "simd_level", "sweep", "merge", "plot", "Report", "DEFAULT_ARCH"]

#: The architecture used when none is given (as on the command line).
DEFAULT_ARCH = "sm_90"

__version__ = _ptxfp.version()

_WORDS = {8: np.dtype(np.uint8), 16: np.dtype("<u2"), 32: np.dtype("<u4"), 64: np.dtype("<u8")}


def _dtype_name(dt: np.dtype) -> str:
    return "bfloat16" if _BFLOAT16 is not None and dt == _BFLOAT16 else dt.name


class Instr:
    """One instruction on one architecture, checked once; ``eval`` applies it to arrays.

    ``Instr("fma.rn.ftz.f32", arch="sm_90")``. A spelling the catalog lacks, an unknown
    architecture or one that lacks the instruction raises ``ValueError`` with the library's
    message (the legal alternatives included). Instances are immutable and may be shared by
    threads.
    """

    __slots__ = ("_native", "_source_dtypes", "_result_dtype", "_word_in", "_word_out")

    def __init__(self, spelling: str, arch: str = DEFAULT_ARCH) -> None:
        if not isinstance(spelling, str):
            raise TypeError(f"the spelling must be a str, not {type(spelling).__name__}")
        if not isinstance(arch, str):
            raise TypeError(f"arch must be a str such as 'sm_90', not {type(arch).__name__}")
        native = _ptxfp.NativeInstr(spelling, arch)
        self._native = native
        accepted = [np.dtype(name) for name in native.source_dtypes]
        if native.source_type == "bf16" and _BFLOAT16 is not None:
            accepted.insert(0, _BFLOAT16)
        self._source_dtypes = tuple(accepted)
        result = np.dtype(native.result_dtype)
        if native.result_type == "bf16" and native.result_is_value and _BFLOAT16 is not None:
            result = _BFLOAT16
        self._result_dtype = result
        self._word_in = _WORDS[native.source_bits]
        self._word_out = _WORDS[native.result_bits]

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
        """PTX type of the operands (``f32``, ``bf16x2``, ``s32``, ...)."""
        return self._native.source_type

    @property
    def result_type(self) -> str:
        return self._native.result_type

    @property
    def source_dtypes(self) -> tuple:
        """The dtypes an operand array may have, the natural one first."""
        return self._source_dtypes

    @property
    def result_dtype(self) -> np.dtype:
        """The dtype of the result (the unsigned word dtype is accepted for ``out`` too)."""
        return self._result_dtype

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
        """Operand ``k`` as an array of one of the accepted dtypes."""
        name = f"operand {k + 1} of {self.spelling}"
        if isinstance(op, (bool, np.bool_)):
            raise TypeError(f"{name} is a bool; it must be a number or an array")
        if isinstance(op, (int, float)):
            return self._python_scalar(name, op)
        array = np.asarray(op)
        if array.dtype.byteorder == ">":
            raise TypeError(f"{name} is a big-endian array; convert it with .astype('{array.dtype.newbyteorder('<').str}')")
        if array.dtype not in self._source_dtypes:
            names = " or ".join(_dtype_name(d) for d in self._source_dtypes)
            raise TypeError(
                f"{name} is a {_dtype_name(array.dtype)} array but {self.spelling} takes {self.source_type} "
                f"operands ({self._word_in.itemsize * 8}-bit words; use {names})"
            )
        return array

    def _python_scalar(self, name: str, op: Union[int, float]) -> np.ndarray:
        """A Python number as a value of the operand's type (a word for the packed types)."""
        natural = self._source_dtypes[0]
        if natural.kind == "f" or natural == _BFLOAT16:
            return np.asarray(op, dtype=natural)
        if self.source_type == "bf16":
            raise TypeError(f"{name}: bf16 values need ml_dtypes (pip install ml_dtypes); without it pass uint16 bit patterns")
        if isinstance(op, float):
            raise TypeError(f"{name} is a float but {self.spelling} takes {self.source_type} operands (integers or words)")
        info = np.iinfo(natural)
        if not info.min <= op <= info.max:
            raise ValueError(f"{name} is {op}, outside the range {info.min}..{info.max} of a {self.source_type} operand")
        return np.asarray(op, dtype=natural)

    def eval(self, *operands: Any, out: Optional[np.ndarray] = None) -> Any:
        """Apply the instruction element-wise to the broadcast operands.

        Returns a new array of ``result_dtype`` (a NumPy scalar when every operand is a
        scalar), or ``out`` filled: an array of the broadcast shape, C-contiguous and writable,
        of ``result_dtype`` or the unsigned word dtype of the result's width.
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
        words = [np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1).view(self._word_in) for a in arrays]
        if out is None:
            result = np.empty(shape, dtype=self._result_dtype)
        else:
            result = self._check_out(out, shape)
            # An operand that shares memory with `out` is read before anything is written.
            words = [w.copy() if np.may_share_memory(w, result) else w for w in words]
        flat = result.reshape(-1).view(self._word_out)
        self._native.eval_words([w.view(np.uint8) for w in words], flat.view(np.uint8))
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
        if out.dtype not in (self._result_dtype, self._word_out):
            raise TypeError(
                f"out is a {_dtype_name(out.dtype)} array but {self.spelling} writes "
                f"{_dtype_name(self._result_dtype)} (or {self._word_out.name} words)"
            )
        if out.shape != tuple(shape):
            raise ValueError(f"out has shape {out.shape} but the operands broadcast to {tuple(shape)}")
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
