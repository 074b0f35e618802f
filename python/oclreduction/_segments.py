"""segment_reduce: many reductions of one array's segments in one call."""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _nd
from ._arrays import _alloc, _is_svm, _queue_of
from ._cache import _cached
from ._native import OPS as _OPS, is_small as _is_small, lib as _lib, type_of
from ._passes import _gather
from ._typing import Array, Events, Op, Queue

__all__ = ["segment_reduce"]


def _identity(op: str, dt: np.dtype) -> Any:
    """The library's identity of op in dt (min and max: the type's extremes)."""
    if op in ("min", "max"):
        if dt.kind == "f":
            return np.inf if op == "min" else -np.inf
        return np.iinfo(dt).max if op == "min" else np.iinfo(dt).min
    return {"sum": 0, "prod": 1, "and": np.iinfo(dt).max if dt.kind == "u" else -1,
            "or": 0, "xor": 0}[op]


def _checked_offsets(offsets: Any, n: int) -> Any:
    """offsets (a pyopencl Array, read back, or anything np.asarray takes) as a
    NumPy array of segment offsets into n elements: 1-D, at least one, of an
    integer dtype, the first >= 0, none below the one before, the last <= n;
    else ValueError (TypeError for a non-integer dtype)."""
    host = offsets.get() if hasattr(offsets, "get") and hasattr(offsets, "queue") \
        else np.asarray(offsets)
    if host.ndim != 1 or host.size < 1:
        raise ValueError("offsets must be a 1-D array of at least one integer")
    if host.dtype.kind not in "iu":
        raise TypeError(f"offsets must be integers, not {host.dtype}")
    if host[0] < 0:
        raise ValueError(f"offsets[0] = {host[0]} is negative")
    down = np.flatnonzero(host[1:] < host[:-1])
    if down.size:
        j = int(down[0]) + 1
        raise ValueError(f"offsets must not decrease: offsets[{j}] = {host[j]} < "
                         f"offsets[{j - 1}] = {host[j - 1]}")
    if host[-1] > n:
        raise ValueError(f"offsets[{host.size - 1}] = {host[-1]} is past the {n} elements")
    return host


def segment_reduce(a: Array, offsets: Union[Array, ArrayLike], op: Op = "sum",
                   dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
                   wait_for: Events = None) -> Array:
    """Many reductions in one call: segment j = a[offsets[j]:offsets[j+1]] of
    a contiguous 1-D pyopencl Array, reduced with `op` ("sum", "prod", "min",
    "max", "and", "or", "xor") into element j of the returned 1-D Array of
    len(offsets) - 1 values (of dtype, default a.dtype); an empty segment gives
    the identity (also for min and max: the type's extreme). offsets: a
    pyopencl Array or a NumPy array of non-decreasing integers of any integer
    dtype, the first >= 0, the last at most a.size (uint32 or uint64 on the
    device; others are converted), checked on the host (a device array is
    read back for it): ValueError otherwise."""
    import pyopencl.array as cla
    if op not in _OPS or op.startswith("arg"):
        raise ValueError(f"unknown operator {op!r}: one of "
                         + ", ".join(o for o in _OPS if not o.startswith("arg")))
    if not isinstance(a, cla.Array) or a.ndim != 1:
        raise TypeError("segment_reduce takes a 1-D pyopencl.array.Array")
    acc = np.dtype(dtype) if dtype is not None else a.dtype
    if not _lib.ocr_op_valid_for(_OPS[op], type_of(acc)):
        raise TypeError(f"{op} needs integers, not {acc}")
    if _is_small(a.dtype):
        raise TypeError(f"segment_reduce does not take {a.dtype} data yet (small types: whole "
                        "arrays)")
    q = _queue_of(a, queue)
    host = _checked_offsets(offsets, a.size)
    if a.size and (_is_svm(a) or not a.flags.c_contiguous):  # a contiguous buffer copy
        a = _gather(q, a, a.offset // a.dtype.itemsize, a.size, _nd.steps_of(a)[0],
                    a.dtype, list(a.events) + list(wait_for or []))
        wait_for = None
    if not isinstance(offsets, cla.Array) or offsets.dtype not in (np.uint32, np.uint64) \
            or offsets.offset:
        offsets = cla.to_device(q, host.astype(np.uint64 if int(host[-1]) >> 32 else np.uint32))
    k = offsets.size - 1
    result = cla.empty(q, (k,), acc, allocator=_alloc(a))
    if k == 0:
        return result
    if a.size == 0:  # every segment empty: the identity, as the library writes it
        result.set(np.full(k, _identity(op, acc), dtype=acc))
        return result
    _cached(q, a, a.dtype, acc, op).reduce_segments_async(q, a, offsets, result,
                                                          wait_for=wait_for)
    return result
