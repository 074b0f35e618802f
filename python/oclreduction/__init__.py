"""oclreduction: reductions of PyOpenCL arrays with the oclreduction library.

Drop-in for pyopencl.array.sum / min / max: the same arguments, the same
result (a 0-d pyopencl Array on the device whose .events hold the reduction's
event), computed by the library's reduce7 reducer (ctypes over the shared
library shipped inside this package; the input is read in place, strided
and reversed views too, but for the conversions said below).

    import numpy as np, pyopencl as cl, pyopencl.array as cla, oclreduction
    q = cl.CommandQueue(cl.create_some_context())
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

import builtins
import threading
import weakref
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import _declarations as _D
from ._build_info import __version__
from ._native import OPS as _OPS, TYPES as _TYPES, OcrError, Reducer, lib as _lib, type_of
from ._native import is_small as _is_small, widens_to
from ._plan import Plan as _Plan, plan as _plan

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


def _program(queue: Any, key: tuple, source: str, options: Sequence[str]) -> Any:
    """A small helper program of the package, built once per (context, key)."""
    import pyopencl as cl
    ctx = queue.context
    with _cache_lock:
        entry = _cache.setdefault(ctx.int_ptr, _Entry())
        _watch(entry, ctx.int_ptr, ctx)
        slot = entry.slots.setdefault(key, _Slot())
    with slot.lock:
        if slot.program is None:
            own = cl.Context.from_int_ptr(ctx.int_ptr, retain=True)
            slot.program = cl.Program(own, source).build(options=list(options),
                                                         devices=[queue.device])
        return slot.program


# OpenCL C names of the dtypes the helper kernels read and write. A narrowed
# integer is written through its unsigned twin (a conversion modulo 2^k, well
# defined: NumPy's wrapping arithmetic); bool is read as its byte.
_CL = {np.dtype(np.bool_): "uchar", np.dtype(np.int8): "char", np.dtype(np.uint8): "uchar",
       np.dtype(np.int16): "short", np.dtype(np.uint16): "ushort", np.dtype(np.int32): "int",
       np.dtype(np.uint32): "uint", np.dtype(np.int64): "long", np.dtype(np.uint64): "ulong",
       np.dtype(np.float16): "half", np.dtype(np.float32): "float",
       np.dtype(np.float64): "double", np.dtype(np.complex64): "float2",
       np.dtype(np.complex128): "double2"}
_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}

# One value converted on the device after the reduction (min, max, bitwise,
# or dtype= a small or narrower integer type: computed in the accumulator).
# half with vstore_half (core OpenCL: no cl_khr_fp16).
_NARROW = """
__kernel void narrow(__global const ACC *in, const ulong i, __global OUT *out, const ulong o) {
#if HALF
    vstore_half(in[i], o, out);
#else
    out[o] = (OUT)in[i];
#endif
}
"""

# n elements from element `first` of `in`, `step` apart (a contiguous range,
# a strided view or a slice with a step), converted each to OUT (dtype= a type
# the library does not combine the data in: PyOpenCL's and NumPy's
# element-wise conversion). Views without a conversion are read in place.
_GATHER = """
#if FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
__kernel void gather(__global const IN *in, const long first, const long step,
                     __global OUT *out, const ulong o, const ulong n) {
    const ulong i = get_global_id(0);
    if (i >= n)
        return;
#if IN_HALF
    const float v = vload_half(first + (long)i * step, in);
#else
    const IN v = in[first + (long)i * step];
#endif
#if OUT_HALF
    vstore_half(v, o + i, out);
#elif TO_COMPLEX == 1 /* from a real type */
    out[o + i] = (OUT)((PART)v, (PART)0);
#elif TO_COMPLEX == 2 /* from the other complex type */
    out[o + i] = CONVERT(v);
#else
    out[o + i] = (OUT)v;
#endif
}
"""


def _narrow(queue: Any, result: Any, back: np.dtype, allocator: Any) -> Any:
    """result (a 0-d Array of the accumulator) as a 0-d Array of back, its
    events completing once the value is there."""
    import pyopencl as cl
    import pyopencl.array as cla
    out_name = _CL[back]
    opts = [f"-DACC={_CL[result.dtype]}", f"-DOUT={_UNSIGNED.get(out_name, out_name)}",
            f"-DHALF={int(back.kind == 'f')}"]
    program = _program(queue, ("narrow", queue.device.int_ptr, result.dtype, back), _NARROW, opts)
    out = cla.empty(queue, (), back, allocator=allocator)
    knl = cl.Kernel(program, "narrow")
    knl.set_args(result.base_data, np.uint64(result.offset // result.dtype.itemsize),
                 out.base_data, np.uint64(out.offset // back.itemsize))
    ev = cl.enqueue_nd_range_kernel(queue, knl, (1,), None, wait_for=result.events)
    out.add_event(ev)
    return out


def _gather(queue: Any, a: Any, first: int, n: int, step: int, to: np.dtype,
            waits: Sequence[Any]) -> Any:
    """A new contiguous Array of n elements of `to`: a's elements first, first
    + step, ... (counted from its buffer's start) converted; its events hold
    the copy's, which is also added to a's."""
    import pyopencl as cl
    import pyopencl.array as cla
    src, dst = a.dtype, to
    if src.kind == "c" and dst.kind != "c":
        raise TypeError(f"a sum of {src} cannot be returned as {dst} (it would drop the "
                        "imaginary parts)")
    to_complex = 0 if dst.kind != "c" else 2 if src.kind == "c" else 1
    fp64 = np.dtype(np.float64) in (src, dst) or np.dtype(np.complex128) in (src, dst)
    opts = [f"-DIN={_CL[src]}", f"-DOUT={_CL[dst]}", f"-DTO_COMPLEX={to_complex}",
            f"-DPART={_CL[dst][:-1]}", f"-DCONVERT=convert_{_CL[dst]}", f"-DFP64={int(fp64)}",
            f"-DIN_HALF={int(src == np.float16)}", f"-DOUT_HALF={int(dst == np.float16)}"]
    program = _program(queue, ("gather", queue.device.int_ptr, src, dst), _GATHER, opts)
    out = cla.empty(queue, (n,), dst, allocator=a.allocator)
    knl = cl.Kernel(program, "gather")
    knl.set_args(a.base_data, np.int64(first), np.int64(step), out.base_data,
                 np.uint64(out.offset // dst.itemsize), np.uint64(n))
    ev = cl.enqueue_nd_range_kernel(queue, knl, (n,), None, wait_for=list(waits) or None)
    out.add_event(ev)
    a.add_event(ev)
    return out


def clear_cache() -> None:
    """Drops every cached reducer (each is released once no call uses it)."""
    with _cache_lock:
        _cache.clear()


# ---- the NumPy / PyOpenCL-shaped functions ---------------------------------

_NoValue: Any = getattr(np, "_NoValue", None)  # "not given", as PyOpenCL and NumPy spell it
_SCALARS = (int, float, complex, np.generic)


try:
    from pyopencl import NannyEvent as _NannyEvent
except ImportError:  # pragma: no cover - every PyOpenCL that has Array has it
    _NannyEvent = ()


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
    raise ValueError(f"oclreduction needs a contiguous array or a 1-D view; this one has "
                     f"strides {a.strides} for shape {a.shape}")


def _empty_value(op: str, p: _Plan, initial: Any) -> np.ndarray:
    """The reduction of no elements, as NumPy and PyOpenCL give it: the
    identity (combined with initial), or initial itself for min and max."""
    if op in ("min", "max"):
        if initial is _NoValue:
            raise ValueError(f"zero-size array to reduction operation {op} which has no "
                             "identity")
        return np.array(initial).astype(p.out)
    value = np.array(_UFUNCS[op].identity).astype(p.out)
    if initial is not _NoValue:
        value = _UFUNCS[op](value, np.array(initial).astype(p.out)).astype(p.out)
    return value


def _with_initial(op: str, result: Any, initial: Any, queue: Any) -> Any:
    """result combined with initial on the device (PyOpenCL's way: one
    element-wise kernel; min and max propagate NaN as NumPy)."""
    import pyopencl.array as cla
    if initial is _NoValue:
        return result
    value = result.dtype.type(initial)
    if op == "sum":
        return cla.Array.__add__(result, value)
    if op == "prod":
        return cla.Array.__mul__(result, value)
    if op in ("min", "max"):
        return (cla.minimum if op == "min" else cla.maximum)(result, value, queue=queue)
    raise TypeError(f"initial= is for sum, prod, min and max, not {op}")


def _prepare(op: str, a: Any, dtype: Any, queue: Any, initial: Any,
             accurate: bool) -> Tuple[_Plan, Any]:
    _check_array(op, a)
    if hasattr(dtype, "int_ptr"):  # pyopencl.array.sum(a, queue): its second argument is dtype too
        raise TypeError(f"oclreduction.{op}'s second argument is dtype: pass the queue as queue=")
    if initial is not _NoValue and not isinstance(initial, _SCALARS):
        raise ValueError("'initial' is not a scalar")
    return _plan(op, a.dtype, dtype, accurate), _queue_of(a, queue)


def _launch(op: str, a: Any, p: _Plan, queue: Any, wait_for: Optional[Sequence[Any]],
            accurate: bool, slc: Any) -> Any:
    """Enqueues the library's reduction of a (or a[slc]) after a.events and
    wait_for: a 0-d Array of p.acc (of p.out for bits and parts) whose events
    hold the reduction's, or None when there are no elements. A strided or
    reversed view (or a slice with a step) is read in place, from its lowest
    element with a positive stride (ocr_reducer_reduce_strided; a complex
    one as two such calls, its real and its imaginary parts); only a
    conversion (p.conv: a dtype the library cannot combine the data in
    directly) goes through a copy on the device (_gather)."""
    import pyopencl.array as cla
    first, n, step = _region(a, slc)
    if n == 0:
        return None
    own = a.events
    n_own = len(own)
    waits = own + list(wait_for) if wait_for else list(own)
    buf = a.base_data
    if p.conv is not None:  # each element converted: a copy, the only one
        tmp = _gather(queue, a, first, n, step, p.conv, waits)
        buf, first, step = tmp.base_data, tmp.offset // tmp.dtype.itemsize, 1
        waits = list(tmp.events)
    elif step < 0:  # a reversed view: the same elements, from the lowest one
        first, step = first + (n - 1) * step, -step
    result = cla.empty(queue, (), p.out if p.bits or p.parts else p.acc, allocator=a.allocator)
    reducer = _cached(queue, a, p.read, p.acc, op, accurate)
    res, roff = result.base_data.int_ptr, result.offset // p.acc.itemsize
    if p.parts and step == 1:  # complex: the real and imaginary parts as the columns of n rows
        evs = [reducer.enqueue(queue, buf.int_ptr, first * 2, n, res, roff, waits, columns=2)]
    elif p.parts:  # a strided complex view: its real parts, then its imaginary ones
        evs = [reducer.enqueue(queue, buf.int_ptr, first * 2 + k, n, res, roff + k, waits,
                               stride=2 * step) for k in (0, 1)]
    else:  # step > 1: in place (ocr_reducer_reduce_strided)
        evs = [reducer.enqueue(queue, buf.int_ptr, first, n, res, roff, waits, stride=step)]
    result.events.extend(evs)
    # The events complete after every event of a's that they waited for: a
    # later writer of a needs to wait for them alone (a.events stays short,
    # where add_event would block now and then). A NannyEvent stays: dropping
    # it waits for its copy from host memory.
    if n_own:
        own[:n_own] = [e for e in own[:n_own] if isinstance(e, _NannyEvent)]
    own.extend(evs)
    return result


def _reduce(op: str, a: Any, dtype: Any, queue: Any, wait_for: Optional[Sequence[Any]],
            accurate: bool = False, axis: Optional[int] = None, slc: Any = None,
            initial: Any = _NoValue) -> Any:
    import pyopencl.array as cla
    p, queue = _prepare(op, a, dtype, queue, initial, accurate)
    if axis is not None and not (a.ndim == 1 and axis in (0, -1)):
        if accurate:
            raise ValueError("accurate=True sums whole arrays, not along an axis")
        if slc is not None or initial is not _NoValue:
            raise TypeError("axis= does not combine with slice= or initial=")
        if not a.flags.forc:
            raise ValueError(f"axis= needs a contiguous array; this one has strides "
                             f"{a.strides} for shape {a.shape}")
        if p.back or p.conv or p.bits or p.parts or p.read != a.dtype or _is_small(p.read):
            raise TypeError(f"axis= is not supported for {a.dtype} data into {p.out} (along an "
                            "axis: the types the library combines directly)")
        return _reduce_axis(op, a, p.acc, queue, wait_for, axis)
    result = _launch(op, a, p, queue, wait_for, accurate, slc)
    if result is None:
        return cla.to_device(queue, _empty_value(op, p, initial), allocator=a.allocator)
    if p.back is not None:
        result = _narrow(queue, result, p.back, a.allocator)
    if p.out.kind == "b":
        result = _with_initial(op, result, initial, queue)
        return cla.Array(queue, (), p.out, data=result.base_data, offset=result.offset,
                         events=list(result.events))
    return _with_initial(op, result, initial, queue)


_HOST_OPS = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "and": "and", "or": "or",
             "xor": "xor", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}


def value(a: Any, op: str = "sum", dtype: Any = None, queue: Any = None, slice: Any = None,
          initial: Any = _NoValue, *, wait_for: Optional[Sequence[Any]] = None,
          accurate: bool = False) -> Any:
    """The reduction's value on the host, as a NumPy scalar (blocks until it
    is there): the same as getattr(oclreduction, op)(a, ...).get()[()] with
    the same arguments, without the 0-d Array on the way (its conversion to
    a small type, bool and initial= are done on the host, as NumPy does)."""
    import pyopencl as cl
    name = _HOST_OPS.get(op)
    if name is None:
        raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(_HOST_OPS))
    p, queue = _prepare(name, a, dtype, queue, initial, accurate)
    result = _launch(name, a, p, queue, wait_for, accurate, slice)
    if result is None:
        return _empty_value(name, p, initial)[()]
    host = np.empty((), result.dtype)
    cl.enqueue_copy(queue, host, result.base_data, src_offset=result.offset,
                    wait_for=result.events, is_blocking=True)
    got = host.astype(p.out)
    if initial is not _NoValue:
        got = _UFUNCS[name](got, np.array(initial).astype(p.out))
    return got[()]


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


def sum(a: Any, dtype: Any = None, queue: Any = None, slice: Any = None,
        initial: Any = _NoValue, *, wait_for: Optional[Sequence[Any]] = None,
        accurate: bool = False, axis: Optional[int] = None) -> Any:
    """The sum of a pyopencl Array as a 0-d Array on the device, as
    pyopencl.array.sum (the same arguments, in the same order).

    dtype: the type the elements are added in and the result's (default
    a.dtype; bool: int64 and the small integer types int64 or uint64, as
    NumPy). Where the library adds a.dtype in dtype directly (int32 into int64,
    float32 into float64, ...) it widens as it reads. Any other dtype converts
    each element on the device first (a copy), as PyOpenCL and NumPy do, and
    adds in dtype: float64 data with dtype=float32 adds float32 values;
    int64 with float64 adds doubles; into a narrower integer type the sum
    wraps as NumPy's does. Complex data or a complex dtype: a complex sum.
    slice: reduce a[slice] (in place, with a step or reversed too; through a
    copy only where dtype converts). initial: added to the sum (converted to dtype), as NumPy.
    Integer sums wrap. The reduction waits for a.events and wait_for; its
    event is in the result's and a's events.
    accurate=True (float32/float64 results): a compensated sum within one ulp
    of the correctly rounded exact sum, at nearly the plain speed on a GPU.
    axis=0 or 1 (2-D arrays): a 1-D Array of the rows' or columns' sums."""
    return _reduce("sum", a, dtype, queue, wait_for, accurate, axis, slice, initial)


def prod(a: Any, dtype: Any = None, queue: Any = None, slice: Any = None,
         initial: Any = _NoValue, *, wait_for: Optional[Sequence[Any]] = None,
         axis: Optional[int] = None) -> Any:
    """The product, as sum (initial multiplies)."""
    return _reduce("prod", a, dtype, queue, wait_for, axis=axis, slc=slice, initial=initial)


def min(a: Any, queue: Any = None, initial: Any = _NoValue, *, dtype: Any = None,
        wait_for: Optional[Sequence[Any]] = None, axis: Optional[int] = None) -> Any:
    """The minimum as a 0-d Array, as pyopencl.array.min(a, queue, initial):
    NaN if a holds one (as NumPy); initial takes part as one more element;
    an empty a gives initial or, without it, ValueError. dtype= (a keyword):
    a type a.dtype widens into, as in sum."""
    return _reduce("min", a, dtype, queue, wait_for, axis=axis, initial=initial)


def max(a: Any, queue: Any = None, initial: Any = _NoValue, *, dtype: Any = None,
        wait_for: Optional[Sequence[Any]] = None, axis: Optional[int] = None) -> Any:
    """The maximum, as min."""
    return _reduce("max", a, dtype, queue, wait_for, axis=axis, initial=initial)


def bitwise_and(a: Any, dtype: Any = None, queue: Any = None, slice: Any = None, *,
                wait_for: Optional[Sequence[Any]] = None, axis: Optional[int] = None) -> Any:
    """The bitwise AND of integers, as sum (all ones if a is empty)."""
    return _reduce("and", a, dtype, queue, wait_for, axis=axis, slc=slice)


def bitwise_or(a: Any, dtype: Any = None, queue: Any = None, slice: Any = None, *,
               wait_for: Optional[Sequence[Any]] = None, axis: Optional[int] = None) -> Any:
    """The bitwise OR of integers, as sum."""
    return _reduce("or", a, dtype, queue, wait_for, axis=axis, slc=slice)


def bitwise_xor(a: Any, dtype: Any = None, queue: Any = None, slice: Any = None, *,
                wait_for: Optional[Sequence[Any]] = None, axis: Optional[int] = None) -> Any:
    """The bitwise XOR of integers, as sum."""
    return _reduce("xor", a, dtype, queue, wait_for, axis=axis, slc=slice)


def _arg(op: str, a: Any, queue: Any, wait_for: Optional[Sequence[Any]]) -> Any:
    import pyopencl.array as cla
    _check_array(op, a)
    type_of(a.dtype)  # a TypeError for dtypes the library does not reduce
    queue = _queue_of(a, queue)
    isz = a.dtype.itemsize
    step = 1
    if not a.flags.c_contiguous:
        # A 1-D view with a positive step: the index is the view's (i of the
        # elements first + i * step). A reversed one is refused: its ties go
        # to the first index in NumPy's order, the last in memory.
        if a.ndim == 1 and a.strides[0] > 0 and a.strides[0] % isz == 0 and a.offset % isz == 0:
            step = a.strides[0] // isz
        else:
            raise ValueError(f"oclreduction.{op} needs a C-contiguous array (NumPy's index "
                             "counts in C order) or a 1-D view with a positive step; this one "
                             f"has strides {a.strides} for shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"attempt to get {op} of an empty sequence")
    # The reducer writes a 16-byte pair (the value's ordering key, the index):
    # the result is a view of the index.
    pair = cla.empty(queue, (2,), np.uint64, allocator=a.allocator)
    reducer = _cached(queue, a, a.dtype, a.dtype, op)
    if step == 1:
        ev = reducer.reduce_async(queue, a, pair.base_data, wait_for=wait_for)
    else:  # in place (ocr_reducer_reduce_strided)
        ev = reducer.enqueue(queue, a.base_data.int_ptr, a.offset // isz, a.size,
                             pair.base_data.int_ptr, 0, list(a.events) + list(wait_for or []),
                             stride=step)
        a.add_event(ev)
    return cla.Array(queue, (), np.int64, data=pair.base_data, offset=pair.offset + 8,
                     events=[ev])


def argmin(a: Any, queue: Any = None, wait_for: Optional[Sequence[Any]] = None) -> Any:
    """The index of the minimum of a (flattened, C order) as a 0-d int64 Array, as
    numpy.argmin: the first index where it occurs; a NaN counts as the minimum
    (its first index wins); ValueError if a is empty. A 1-D view with a
    positive step (a[::3]) is read in place, its index counted in the view."""
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
    return value(array, op, queue=queue)
