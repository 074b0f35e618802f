"""oclreduction: reductions of PyOpenCL arrays with the oclreduction library.

Drop-in for pyopencl.array.sum / min / max: the same arguments, the same
result (a 0-d pyopencl Array on the device whose .events hold the reduction's
event), computed by the library's reduce7 reducer (ctypes over the shared
library shipped inside this package; the input is read in place, strided
and reversed views too, but for the conversions said below).

    import numpy as np, pyopencl as cl, pyopencl.array as cla, oclreduction
    ctx = cl.create_some_context()
    q = cl.CommandQueue(ctx)
    a = cla.to_device(q, np.arange(1000003, dtype=np.int32))
    s = oclreduction.sum(a, dtype=np.int64)   # 0-d Array, on the device
    s.get()[()]                               # 500002500003, a NumPy scalar

sum(a, dtype=None, queue=None, slice=None, initial=<none>), min(a, queue=None,
initial=<none>) and max take pyopencl.array's arguments in its order (prod and
the bitwise ones sum's; wait_for=, accurate=, axis= and min/max's dtype= are
keywords): `queue` defaults to the array's; the reduction waits for a.events
and wait_for; `dtype` is the type the values are combined in and returned as
(default: a.dtype, as PyOpenCL; bool sums: int64, as NumPy), each element
converted to it as PyOpenCL and NumPy do (widened as the library reads it
where it can, else through a converted copy on the device). value(a, op)
returns the result on the host.
The small dtypes int8, uint8, int16, uint16 and float16 are read as such and
combined in int64, uint64 or float32 (never overflowing below 2^47 elements):
sum and prod return that (NumPy's sum of int8 is int64 too; of float16 NumPy
returns float16, this returns float32), min, max and the bitwise ones a.dtype
(converted on the device after the reduction); argmin and argmax compare the
small values themselves (float16 as NumPy: the first NaN wins, -0.0 == +0.0).
Reducer builds once for a (context, dtype, operator) and reuses; the module
functions keep one per (context, device, dtypes, operator): see docs/python.md.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from . import _declarations as _D
from ._build_info import __version__
from ._native import TYPES as _TYPES, OcrError, Reducer, lib as _lib, widens_to
# Re-exported as the package had them (type_of; the type hints' names).
from ._native import type_of  # noqa: F401
from ._typing import Array, ArgOp, Axis, Events, HostOp, Op, Queue, Scalar  # noqa: F401
# The package's parts (each module imports its siblings, never this one).
from ._cache import clear_cache
from ._reduce import (bitwise_and, bitwise_or, bitwise_xor, max, min, prod, reduce, sum,
                      value)
from ._arg import argmax, argmin
from ._segments import segment_reduce
from ._custom import ReductionKernel
from ._linalg import (all, any, count_nonzero, dot, norm, subset_dot, subset_max, subset_min,
                      vdot)
from ._stats import Stats, mean, stats, std, var
from ._histogram import bincount, histogram

# The library's ocr_status values (not exit codes), from <oclreduction/ocr.h>.
OK: int = _D.OCR_OK
WRONG: int = _D.OCR_WRONG
USAGE: int = _D.OCR_USAGE
RUNTIME: int = _D.OCR_RUNTIME
OPENCL: int = _D.OCR_OPENCL
NO_DEVICE: int = _D.OCR_NO_DEVICE
BUILD: int = _D.OCR_BUILD
NO_MEMORY: int = _D.OCR_NO_MEMORY
TOO_LARGE: int = _D.OCR_TOO_LARGE
IO: int = _D.OCR_IO

__all__ = ["sum", "prod", "min", "max", "argmin", "argmax", "bitwise_and", "bitwise_or",
           "bitwise_xor", "Reducer", "OcrError", "reduce", "value", "segment_reduce", "version",
           "clear_cache", "widens_to", "dtypes", "__version__",
           "ReductionKernel", "dot", "vdot", "subset_dot", "subset_min", "subset_max", "norm",
           "count_nonzero", "any", "all",
           "Stats", "stats", "mean", "var", "std", "histogram", "bincount",
           "OK", "WRONG", "USAGE", "RUNTIME", "OPENCL", "NO_DEVICE", "BUILD", "NO_MEMORY",
           "TOO_LARGE", "IO"]


def version() -> str:
    """The library's version (ocr_version()); the package's is __version__."""
    return _lib.ocr_version().decode()


def dtypes() -> Tuple[np.dtype, ...]:
    """The dtypes the library reduces."""
    return tuple(_TYPES)
