"""Type stubs of the ptxfp package (see ptxfp/__init__.py for the documentation)."""

import os
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

DEFAULT_ARCH: str
__version__: str

class Instr:
    def __init__(self, spelling: str, arch: str = ...) -> None: ...
    @property
    def spelling(self) -> str: ...
    @property
    def arch(self) -> str: ...
    @property
    def operand_counts(self) -> list[int]: ...
    @property
    def source_type(self) -> str: ...
    @property
    def result_type(self) -> str: ...
    @property
    def source_types(self) -> tuple[str, ...]: ...
    @property
    def source_dtypes(self) -> tuple[np.dtype[Any], ...]: ...
    # The last axis of an operand in the ml_dtypes dtype of a packed narrow type (e4m3x2 as
    # float8_e4m3fn: 2), or None.
    @property
    def source_lanes(self) -> Optional[int]: ...
    def operand_dtypes(self, k: int) -> tuple[np.dtype[Any], ...]: ...
    def operand_lanes(self, k: int) -> Optional[int]: ...
    # float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn or
    # float8_e8m0fnu for those packed narrow results (with a trailing axis of result_lanes),
    # float32 for tf32.
    @property
    def result_dtype(self) -> np.dtype[Any]: ...
    @property
    def result_lanes(self) -> Optional[int]: ...
    @property
    def evidence(self) -> str: ...
    @property
    def min_sm(self) -> int: ...
    @property
    def batch_path(self) -> str: ...
    def eval(self, *operands: npt.ArrayLike, out: Optional[np.ndarray] = ...) -> Any: ...
    def __call__(self, *operands: npt.ArrayLike, out: Optional[np.ndarray] = ...) -> Any: ...
    def eval_bits(self, *words: int) -> int: ...

def eval(spelling: str, *operands: npt.ArrayLike, arch: str = ..., out: Optional[np.ndarray] = ...) -> Any: ...
class Mma:
    def __init__(self, spelling: str, arch: str = ...) -> None: ...
    @property
    def spelling(self) -> str: ...
    @property
    def arch(self) -> str: ...
    @property
    def shape(self) -> tuple[int, int, int]: ...
    @property
    def evidence(self) -> str: ...
    def __call__(
        self,
        a: npt.ArrayLike,
        b: npt.ArrayLike,
        c: Optional[npt.ArrayLike] = ...,
        scale_a: Optional[npt.ArrayLike] = ...,
        scale_b: Optional[npt.ArrayLike] = ...,
    ) -> np.ndarray: ...
    def matmul(
        self,
        a: npt.ArrayLike,
        b: npt.ArrayLike,
        c: Optional[npt.ArrayLike] = ...,
        *,
        promote_every: Optional[int] = ...,
        scale_a: Optional[npt.ArrayLike] = ...,
        scale_b: Optional[npt.ArrayLike] = ...,
    ) -> np.ndarray: ...

def mma(
    spelling: str,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    c: Optional[npt.ArrayLike] = ...,
    *,
    arch: str = ...,
    scale_a: Optional[npt.ArrayLike] = ...,
    scale_b: Optional[npt.ArrayLike] = ...,
) -> np.ndarray: ...
def matmul(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    c: Optional[npt.ArrayLike] = ...,
    *,
    instr: str,
    arch: str = ...,
    promote_every: Optional[int] = ...,
    scale_a: Optional[npt.ArrayLike] = ...,
    scale_b: Optional[npt.ArrayLike] = ...,
) -> np.ndarray: ...
def ops() -> list[dict[str, Any]]: ...
def simd_level() -> str: ...

class Report(dict[str, Any]):
    json: str
    def __init__(self, text: str) -> None: ...
    def summary(self) -> str: ...

def sweep(
    spelling: str,
    *,
    range: Optional[str] = ...,
    binade: Optional[int] = ...,
    random: Optional[int] = ...,
    seed: int = ...,
    ref: Optional[Union[str, os.PathLike[str]]] = ...,
    shard: Optional[str] = ...,
    arch: str = ...,
) -> Report: ...
def merge(reports: Sequence[Union[Report, str, os.PathLike[str]]]) -> Report: ...
def plot(report: Report, ax: Any = ..., metric: str = ...) -> Any: ...
