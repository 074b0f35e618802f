"""Helpers on pyopencl Arrays: the 0-d result made fast, the checks of an
argument, the region a reduction reads, SVM and buffers."""
from __future__ import annotations

import builtins
from typing import Any, Dict, Optional, Tuple

import numpy as np

_NoValue: Any = getattr(np, "_NoValue", None)  # "not given", as PyOpenCL and NumPy spell it
_SCALARS = (int, float, complex, np.generic)


_cla: Any = None  # pyopencl.array, where it imports
try:
    import pyopencl as _pyopencl
    import pyopencl.array
    _cla = pyopencl.array
    _NannyEvent: Any = _pyopencl.NannyEvent
except (ImportError, AttributeError):  # pragma: no cover - every PyOpenCL with Array has it
    _NannyEvent = ()


def _is_svm(a: Any) -> bool:
    """Whether a lives in shared virtual memory (pyopencl's SVMAllocator): the
    library reads cl_mem buffers, so its elements are copied into one first
    (the copy kernel takes the SVM pointer as its argument)."""
    return not isinstance(a.base_data, _pyopencl.MemoryObjectHolder)


# A 0-d result Array made without pyopencl.array.Array.__init__, whose NumPy
# calls (shape checks, strides, size) cost 10-20 us of a reduction's 100 on
# POCL: a real empty() of the dtype is made once, and where its attributes
# are exactly the ones listed here (as in PyOpenCL 2022.3 and 2026.1), later
# results copy its per-dtype ones and get their own queue, context,
# allocator, buffer and events (and share its flags, which get() reads). Any
# other attribute set: empty() each time.
_ARRAY_ATTRS = frozenset(("shape", "dtype", "strides", "events", "nbytes", "size", "offset",
                          "_flags", "queue", "context", "base_data", "allocator"))
_PER_DTYPE = ("shape", "dtype", "strides", "nbytes", "size", "offset", "_flags")
_scalar_protos: Dict[np.dtype, Optional[dict]] = {}


def _empty_scalar(queue: Any, dtype: np.dtype, allocator: Any) -> Any:
    """cla.empty(queue, (), dtype, allocator=allocator), made faster."""
    proto = _scalar_protos.get(dtype, {})
    if not proto:
        real = _cla.empty(queue, (), dtype, allocator=allocator)
        if proto is not None:  # not yet known to be unusable
            d = vars(real)
            ok = type(real) is _cla.Array and set(d) == _ARRAY_ATTRS and d["_flags"] is None
            if ok:  # its flags (booleans only, never changed) shared: get() reads them
                real.flags
            _scalar_protos[dtype] = {k: d[k] for k in _PER_DTYPE} if ok else None
        return real
    out = _cla.Array.__new__(_cla.Array)
    out.__dict__.update(proto)
    ctx: Any = queue.context
    out.queue, out.context, out.allocator, out.events = queue, ctx, allocator, []
    out.base_data = allocator(dtype.itemsize) if allocator is not None else \
        _pyopencl.Buffer(ctx, _pyopencl.mem_flags.READ_WRITE, dtype.itemsize)
    return out


def _mem_ptr(x: Any) -> int:
    """The cl_mem address of an Array the package made (a buffer)."""
    ptr: int = x.base_data.int_ptr
    return ptr


def _alloc(a: Any) -> Any:
    """The allocator of the package's arrays made for a: a's own, but OpenCL
    buffers (the default) where a's are SVM: the library reads and writes
    cl_mem buffers."""
    return None if _is_svm(a) else a.allocator


def _check_array(op: str, a: Any) -> None:
    import pyopencl.array as cla
    if not isinstance(a, cla.Array):
        raise TypeError(f"oclreduction.{op} takes a pyopencl.array.Array, not "
                        f"{type(a).__name__} (a Buffer: Reducer(...).reduce(queue, buf, n, "
                        "dtype=...))")


def _queue_of(a: Any, queue: Any) -> Any:
    queue = queue if queue is not None else a.queue
    if queue is None:
        raise ValueError("the array has no queue: pass queue=")
    return queue


def _region(a: Any, slc: Any) -> Tuple[int, int, int]:
    """(first element counted from the buffer's start, count, step) of the
    elements to reduce: all of a contiguous array (in memory order) or of a
    strided 1-D view, or a[slc] of a contiguous one (PyOpenCL's slice=, over
    the flat buffer)."""
    isz = a.dtype.itemsize
    if a.offset % isz:
        raise ValueError("the array's offset is not a whole number of elements")
    base = a.offset // isz
    if slc is not None:
        if not isinstance(slc, builtins.slice):
            raise TypeError(f"slice= takes a slice, not {type(slc).__name__}")
        if not a.flags.forc:
            raise ValueError("slice= needs a contiguous array")
        start, stop, step = slc.indices(a.size)
        return base + start, len(range(start, stop, step)), step
    if a.flags.forc or a.size <= 1:
        return base, a.size, 1
    if a.ndim == 1 and a.strides[0] % isz == 0:
        return base, a.size, a.strides[0] // isz
    raise ValueError(f"a region of a contiguous array or a 1-D view; this one has "
                     f"strides {a.strides} for shape {a.shape}")
