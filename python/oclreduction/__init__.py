"""oclreduction: reductions of PyOpenCL arrays with the oclreduction library.

Drop-in for pyopencl.array.sum / min / max: the same arguments, the same
result (a 0-d pyopencl Array on the device whose .events hold the reduction's
event), computed by the library's reduce7 reducer (ctypes over the shared
library shipped inside this package; nothing is copied).

    import numpy as np, pyopencl as cl, pyopencl.array as cla, oclreduction
    q = cl.CommandQueue(cl.create_some_context())
    a = cla.to_device(q, np.arange(1000003, dtype=np.int32))
    s = oclreduction.sum(a, dtype=np.int64)   # 0-d Array, on the device
    s.get()[()]                               # 500002500003, a NumPy scalar

sum, prod, min, max, bitwise_and, bitwise_or, bitwise_xor take
(a, dtype=None, queue=None, wait_for=None): `queue` defaults to the array's;
the reduction waits for a.events and wait_for; `dtype` is the type the values
are combined in and returned as (default: a.dtype, as PyOpenCL; a wider one,
int32 into int64 or float32 into float64, is read and widened on the device).
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

import threading
import weakref
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import _declarations as _D
from ._build_info import __version__
from ._native import OPS as _OPS, TYPES as _TYPES, OcrError, Reducer, lib as _lib, type_of
from ._native import accumulator as _accumulator, is_small as _is_small, widens_to

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

__all__ = ["sum", "prod", "min", "max", "argmin", "argmax", "bitwise_and", "bitwise_or", "bitwise_xor",
           "Reducer", "OcrError", "reduce", "segment_reduce", "version", "clear_cache", "widens_to",
           "dtypes", "__version__",
           "OK", "WRONG", "USAGE", "RUNTIME", "OPENCL", "NO_DEVICE", "BUILD", "NO_MEMORY",
           "TOO_LARGE", "IO"]

# NumPy's ufunc for each operator: its identity is the value of an empty
# reduction (min and max have none: ValueError, as in NumPy).
_UFUNCS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
           "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def version() -> str:
    """The library's version (ocr_version()); the package's is __version__."""
    return _lib.ocr_version().decode()


def dtypes() -> Tuple[np.dtype, ...]:
    """The dtypes the library reduces."""
    return tuple(_TYPES)


# ---- the reducer cache ------------------------------------------------------
#
# One Reducer per (context, device, dtype, accumulator dtype, operator), built
# on first use under its slot's lock (concurrent first calls wait for one
# build). A context's reducers live while some PyOpenCL Context object that a
# call came with (the queue's, the array's) is alive: each is watched through
# a weak reference, and when the last one is collected the reducers are
# dropped, releasing the context's kernels and scratch buffers (a reducer
# retains its context). The cache itself never keeps a context alive.

class _Slot:
    __slots__ = ("lock", "reducer", "program")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reducer: Optional[Reducer] = None
        self.program: Any = None  # _narrow's conversion kernel, for its slot's key


class _Entry:
    __slots__ = ("slots", "watched")

    def __init__(self) -> None:
        self.slots: Dict[tuple, _Slot] = {}
        self.watched: Dict[int, weakref.ref] = {}  # id(Context object) -> its weak reference


_cache: Dict[int, _Entry] = {}
_cache_lock = threading.RLock()  # re-entrant: a collection inside may run _forget


def _forget(ctx_ptr: int, obj_id: int) -> None:
    with _cache_lock:
        entry = _cache.get(ctx_ptr)
        if entry is not None:
            entry.watched.pop(obj_id, None)
            if not entry.watched:
                del _cache[ctx_ptr]


def _watch(entry: _Entry, ctx_ptr: int, ctx: Any) -> None:
    if id(ctx) not in entry.watched:
        oid = id(ctx)
        entry.watched[oid] = weakref.ref(ctx, lambda _r: _forget(ctx_ptr, oid))


def _cached(queue: Any, a: Any, dtype: np.dtype, acc: np.dtype, op: str,
            accurate: bool = False) -> Reducer:
    import pyopencl as cl
    ctx = queue.context
    key = (queue.device.int_ptr, dtype, acc, op, accurate)
    with _cache_lock:
        entry = _cache.setdefault(ctx.int_ptr, _Entry())
        _watch(entry, ctx.int_ptr, ctx)
        if getattr(a, "context", None) is not None and a.context.int_ptr == ctx.int_ptr:
            _watch(entry, ctx.int_ptr, a.context)
        slot = entry.slots.setdefault(key, _Slot())
    with slot.lock:
        if slot.reducer is None:
            # A Context object of its own: the cache watches the callers'.
            own = cl.Context.from_int_ptr(ctx.int_ptr, retain=True)
            slot.reducer = Reducer(own, dtype, op, device=queue.device, acc_dtype=acc,
                                   accurate=accurate)
        return slot.reducer


# A small type's result (min, max, bitwise, or dtype= a small type) comes
# back from its accumulator: one work-item converts the value on the device
# after the reduction. Integers are written through the unsigned twin (a
# conversion modulo 2^8 or 2^16, well defined: the wrapped sum of NumPy's
# int8 arithmetic), half with vstore_half (core OpenCL: no cl_khr_fp16).
_NARROW = """
__kernel void narrow(__global const ACC *in, const ulong i, __global OUT *out, const ulong o) {
#if HALF
    vstore_half(in[i], o, out);
#else
    out[o] = (OUT)in[i];
#endif
}
"""
_CL_NAMES = {np.dtype(np.int8): "uchar", np.dtype(np.uint8): "uchar", np.dtype(np.int16): "ushort",
             np.dtype(np.uint16): "ushort", np.dtype(np.float16): "half",
             np.dtype(np.int64): "long", np.dtype(np.uint64): "ulong",
             np.dtype(np.float32): "float"}


def _narrow(queue: Any, a: Any, result: Any, back: np.dtype) -> Any:
    """result (a 0-d Array of the accumulator) as a 0-d Array of back, its
    events completing once the value is there."""
    import pyopencl as cl
    import pyopencl.array as cla
    ctx = queue.context
    key = ("narrow", queue.device.int_ptr, result.dtype, back)
    with _cache_lock:
        entry = _cache.setdefault(ctx.int_ptr, _Entry())
        _watch(entry, ctx.int_ptr, ctx)
        slot = entry.slots.setdefault(key, _Slot())
    with slot.lock:
        if slot.program is None:
            own = cl.Context.from_int_ptr(ctx.int_ptr, retain=True)
            opts = [f"-DACC={_CL_NAMES[result.dtype]}", f"-DOUT={_CL_NAMES[back]}",
                    f"-DHALF={int(back.kind == 'f')}"]
            slot.program = cl.Program(own, _NARROW).build(options=opts, devices=[queue.device])
        program = slot.program
    out = cla.empty(queue, (), back, allocator=a.allocator)
    knl = cl.Kernel(program, "narrow")
    knl.set_args(result.base_data, np.uint64(result.offset // result.dtype.itemsize),
                 out.base_data, np.uint64(out.offset // back.itemsize))
    ev = cl.enqueue_nd_range_kernel(queue, knl, (1,), (1,), wait_for=result.events)
    out.add_event(ev)
    return out


def clear_cache() -> None:
    """Drops every cached reducer (each is released once no call uses it)."""
    with _cache_lock:
        _cache.clear()


# ---- the NumPy / PyOpenCL-shaped functions ---------------------------------

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


def _reduce(op: str, a: Any, dtype: Any, queue: Any, wait_for: Optional[Sequence[Any]],
            accurate: bool = False, axis: Optional[int] = None) -> Any:
    import pyopencl.array as cla
    _check_array(op, a)
    if hasattr(dtype, "int_ptr"):  # pyopencl.array.min(a, queue)'s second argument is the queue
        raise TypeError(f"oclreduction.{op}'s second argument is dtype: pass the queue as queue=")
    acc = np.dtype(dtype) if dtype is not None else a.dtype
    tin = type_of(a.dtype)
    if not _lib.ocr_op_valid_for(_OPS[op], type_of(acc)):
        raise TypeError(f"{op} needs integers, not {acc}")
    if accurate and acc.kind != "f":
        raise TypeError(f"accurate=True is for float sums, not {acc}")
    # Small dtypes: sums and products default to the accumulator (as NumPy's
    # int8 sum is int64); min, max and the bitwise ones (or dtype= a small
    # type) are computed there and converted back.
    back = None
    if dtype is None and _is_small(a.dtype) and op in ("sum", "prod"):
        acc = _accumulator(a.dtype)
    elif _is_small(acc):
        back, acc = acc, _accumulator(acc)
    if _is_small(a.dtype) and (accurate or axis is not None and not (a.ndim == 1 and axis in (0, -1))):
        raise TypeError(f"{'accurate=True' if accurate else 'axis='} is not supported for "
                        f"{a.dtype} data (small types: whole arrays, plain sums)")
    tacc = type_of(acc)
    if not _lib.ocr_type_widens_to(tin, tacc):
        raise TypeError(f"{a.dtype} data cannot be combined in {acc}: dtype may be "
                        + ", ".join(str(t) for t in _TYPES if widens_to(a.dtype, t)))
    queue = _queue_of(a, queue)
    if not a.flags.forc:
        raise ValueError(f"oclreduction needs a contiguous array; this one has strides "
                         f"{a.strides} for shape {a.shape}")
    if axis is not None and not (a.ndim == 1 and axis in (0, -1)):
        if accurate:
            raise ValueError("accurate=True sums whole arrays, not along an axis")
        return _reduce_axis(op, a, acc, queue, wait_for, axis)
    if a.size == 0:
        ident = _UFUNCS[op].identity
        if ident is None:
            raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
        return cla.to_device(queue, np.array(ident).astype(back or acc), allocator=a.allocator)
    result = cla.empty(queue, (), acc, allocator=a.allocator)
    _cached(queue, a, a.dtype, acc, op, accurate).reduce_async(queue, a, result,
                                                               wait_for=wait_for)
    return result if back is None else _narrow(queue, a, result, back)


def _axis_of(a: Any, axis: Any) -> Tuple[int, int, int]:
    """(rows, cols, 1 or 0): the array as the C-order matrix the library
    reads, and the axis of that matrix to reduce (an F-order array is the
    C-order transpose, its axes swapped)."""
    import operator
    if a.ndim != 2:
        raise ValueError(f"axis= needs a 1-D or 2-D array, not {a.ndim}-D (shape {a.shape})")
    ax = operator.index(axis)
    if ax not in (-2, -1, 0, 1):
        raise np.exceptions.AxisError(ax, 2) if hasattr(np, "exceptions") else ValueError(
            f"axis {ax} is out of bounds for array of dimension 2")
    ax %= 2
    rows, cols = a.shape
    if not a.flags.c_contiguous:  # F-contiguous (forc checked): the transpose is C-order
        rows, cols, ax = cols, rows, 1 - ax
    return rows, cols, ax


def _reduce_axis(op: str, a: Any, acc: np.dtype, queue: Any,
                 wait_for: Optional[Sequence[Any]], axis: int) -> Any:
    """A 2-D array reduced along one axis: a 1-D Array of acc (NumPy's shape),
    its .events holding the reduction's event."""
    import pyopencl.array as cla
    rows, cols, ax = _axis_of(a, axis)
    count = rows if ax == 1 else cols
    if (cols if ax == 1 else rows) == 0 and count:
        ident = _UFUNCS[op].identity
        if ident is None:
            raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
        return cla.to_device(queue, np.full(count, ident).astype(acc), allocator=a.allocator)
    result = cla.empty(queue, (count,), acc, allocator=a.allocator)
    if count:
        m = a if a.flags.c_contiguous else a.T
        _cached(queue, a, a.dtype, acc, op).reduce_axis_async(queue, m, result, ax,
                                                              wait_for=wait_for)
    return result


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


def segment_reduce(a: Any, offsets: Any, op: str = "sum", dtype: Any = None, queue: Any = None,
                   wait_for: Optional[Sequence[Any]] = None) -> Any:
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
    queue = _queue_of(a, queue)
    host = _checked_offsets(offsets, a.size)
    if not isinstance(offsets, cla.Array) or offsets.dtype not in (np.uint32, np.uint64) \
            or offsets.offset:
        offsets = cla.to_device(queue, host.astype(np.uint64 if int(host[-1]) >> 32 else np.uint32))
    k = offsets.size - 1
    result = cla.empty(queue, (k,), acc, allocator=a.allocator)
    if k == 0:
        return result
    if a.size == 0:  # every segment empty: the identity, as the library writes it
        result.set(np.full(k, _identity(op, acc), dtype=acc))
        return result
    _cached(queue, a, a.dtype, acc, op).reduce_segments_async(queue, a, offsets, result,
                                                              wait_for=wait_for)
    return result


def sum(a: Any, dtype: Any = None, queue: Any = None,
        wait_for: Optional[Sequence[Any]] = None, accurate: bool = False, *,
        axis: Optional[int] = None) -> Any:
    """The sum of a pyopencl Array as a 0-d Array (like pyopencl.array.sum);
    dtype: the type to add in and return (default a.dtype). Integer sums wrap.
    accurate=True (float32/float64 results): a compensated sum within one ulp
    of the correctly rounded exact sum, at nearly the plain speed on a GPU.
    axis=0 or 1 (2-D arrays): a 1-D Array of the rows' or columns' sums."""
    return _reduce("sum", a, dtype, queue, wait_for, accurate, axis)


def prod(a: Any, dtype: Any = None, queue: Any = None,
         wait_for: Optional[Sequence[Any]] = None, *, axis: Optional[int] = None) -> Any:
    """The product, as sum."""
    return _reduce("prod", a, dtype, queue, wait_for, axis=axis)


def min(a: Any, dtype: Any = None, queue: Any = None,
        wait_for: Optional[Sequence[Any]] = None, *, axis: Optional[int] = None) -> Any:
    """The minimum, as sum; NaN if a holds one (as NumPy); ValueError if a is empty."""
    return _reduce("min", a, dtype, queue, wait_for, axis=axis)


def max(a: Any, dtype: Any = None, queue: Any = None,
        wait_for: Optional[Sequence[Any]] = None, *, axis: Optional[int] = None) -> Any:
    """The maximum, as min."""
    return _reduce("max", a, dtype, queue, wait_for, axis=axis)


def bitwise_and(a: Any, dtype: Any = None, queue: Any = None,
                wait_for: Optional[Sequence[Any]] = None, *, axis: Optional[int] = None) -> Any:
    """The bitwise AND of integers, as sum (all ones if a is empty)."""
    return _reduce("and", a, dtype, queue, wait_for, axis=axis)


def bitwise_or(a: Any, dtype: Any = None, queue: Any = None,
               wait_for: Optional[Sequence[Any]] = None, *, axis: Optional[int] = None) -> Any:
    """The bitwise OR of integers, as sum."""
    return _reduce("or", a, dtype, queue, wait_for, axis=axis)


def bitwise_xor(a: Any, dtype: Any = None, queue: Any = None,
                wait_for: Optional[Sequence[Any]] = None, *, axis: Optional[int] = None) -> Any:
    """The bitwise XOR of integers, as sum."""
    return _reduce("xor", a, dtype, queue, wait_for, axis=axis)


def _arg(op: str, a: Any, queue: Any, wait_for: Optional[Sequence[Any]]) -> Any:
    import pyopencl.array as cla
    _check_array(op, a)
    type_of(a.dtype)  # a TypeError for dtypes the library does not reduce
    queue = _queue_of(a, queue)
    if not a.flags.c_contiguous:
        raise ValueError(f"oclreduction.{op} needs a C-contiguous array (NumPy's index counts "
                         f"in C order); this one has strides {a.strides} for shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"attempt to get {op} of an empty sequence")
    # The reducer writes a 16-byte pair (the value's ordering key, the index):
    # the result is a view of the index.
    pair = cla.empty(queue, (2,), np.uint64, allocator=a.allocator)
    ev = _cached(queue, a, a.dtype, a.dtype, op).reduce_async(queue, a, pair.base_data,
                                                               wait_for=wait_for)
    return cla.Array(queue, (), np.int64, data=pair.base_data, offset=pair.offset + 8,
                     events=[ev])


def argmin(a: Any, queue: Any = None, wait_for: Optional[Sequence[Any]] = None) -> Any:
    """The index of the minimum of a (flattened, C order) as a 0-d int64 Array, as
    numpy.argmin: the first index where it occurs; a NaN counts as the minimum
    (its first index wins); ValueError if a is empty."""
    return _arg("argmin", a, queue, wait_for)


def argmax(a: Any, queue: Any = None, wait_for: Optional[Sequence[Any]] = None) -> Any:
    """The index of the maximum, as argmin."""
    return _arg("argmax", a, queue, wait_for)


def reduce(queue: Any, array: Any, op: str = "sum") -> Any:
    """The 0.1 interface: `op` ("sum", "prod", "min", "max", "and", "or",
    "xor") over a whole array, as a NumPy scalar (blocks)."""
    if op not in _OPS:
        raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(_OPS))
    if op in ("argmin", "argmax"):
        return _arg(op, array, queue, None).get()[()]
    return _reduce(op, array, None, queue, None).get()[()]
