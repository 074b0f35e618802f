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

import atexit
import builtins
import threading
import weakref
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _declarations as _D
from . import _nd
from ._build_info import __version__
from ._native import OPS as _OPS, TYPES as _TYPES, OcrError, Reducer, lib as _lib, type_of
from ._native import is_small as _is_small, widens_to
from ._plan import Plan as _Plan, plan as _plan
from ._typing import Array, ArgOp, Axis, Events, HostOp, Op, Queue, Scalar

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
           "ReductionKernel", "dot", "vdot", "subset_dot", "norm", "count_nonzero",
           "Stats", "stats", "mean", "var", "std",
           "OK", "WRONG", "USAGE", "RUNTIME", "OPENCL", "NO_DEVICE", "BUILD", "NO_MEMORY",
           "TOO_LARGE", "IO"]

# NumPy's ufunc for each operator: its identity is the value of an empty
# reduction (min and max have none: ValueError, as in NumPy).
_UFUNCS: Dict[str, np.ufunc] = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
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
    __slots__ = ("lock", "reducer", "program", "size")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reducer: Any = None  # a Reducer, a CustomReducer or False (_cached_object)
        self.program: Any = None  # a helper kernel's program (_narrow, _gather, _last_zero)
        self.size = 0  # its kernel's work-group size, where one is fixed


class _Entry:
    __slots__ = ("slots", "watched")

    def __init__(self) -> None:
        self.slots: Dict[tuple, _Slot] = {}
        self.watched: Dict[int, weakref.ref] = {}  # id(Context object) -> its weak reference


_cache: Dict[int, _Entry] = {}
_cache_lock = threading.RLock()  # re-entrant: a collection inside may run _forget
# The reducers already built, by (context, device, dtype, acc, op, accurate):
# read without the lock (a dict lookup is atomic), filled and emptied under
# it. An entry goes with its context's (_forget, clear_cache); a call that
# misses takes the locked way, which also watches the caller's Context.
_built: Dict[tuple, Any] = {}  # Reducers, CustomReducers, False: _cached_object


def _forget(ctx_ptr: int, obj_id: int) -> None:
    with _cache_lock:
        entry = _cache.get(ctx_ptr)
        if entry is not None:
            entry.watched.pop(obj_id, None)
            if not entry.watched:
                del _cache[ctx_ptr]
                for key in [k for k in _built if k[0] == ctx_ptr]:
                    del _built[key]


def _watch(entry: _Entry, ctx_ptr: int, ctx: Any) -> None:
    if id(ctx) not in entry.watched:
        oid = id(ctx)
        entry.watched[oid] = weakref.ref(ctx, lambda _r: _forget(ctx_ptr, oid))


def _cached(queue: Any, a: Any, dtype: np.dtype, acc: np.dtype, op: str,
            accurate: bool = False) -> Reducer:
    hit = _built.get((queue.context.int_ptr, queue.device.int_ptr, dtype, acc, op, accurate))
    if hit is not None:
        return hit
    return _cached_object(queue, a, (dtype, acc, op, accurate),
                          lambda ctx, dev: Reducer(ctx, dtype, op, device=dev, acc_dtype=acc,
                                                   accurate=accurate))


def _cached_object(queue: Any, a: Any, key: tuple, make: Any) -> Any:
    """The context's object for (queue's device,) + key: make(context, device)
    the first time (on a Context object of the cache's own), kept with the
    context's reducers (what make returns, False included, is kept)."""
    ctx = queue.context
    dev = queue.device.int_ptr
    key = (dev,) + key
    hit = _built.get((ctx.int_ptr,) + key)
    if hit is not None:
        return hit
    import pyopencl as cl
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
            slot.reducer = make(own, queue.device)
            with _cache_lock:
                if _cache.get(ctx.int_ptr) is entry:  # not forgotten meanwhile
                    _built[(ctx.int_ptr,) + key] = slot.reducer
        return slot.reducer


def _program_slot(queue: Any, key: tuple, source: str, options: Sequence[str],
                  kernel: str = "") -> _Slot:
    """The slot of a small helper program of the package, built once per
    (context, key); with `kernel`, slot.size is the work-group size (at most
    256) that kernel runs with on the queue's device."""
    import pyopencl as cl
    ctx = queue.context
    with _cache_lock:
        entry = _cache.setdefault(ctx.int_ptr, _Entry())
        _watch(entry, ctx.int_ptr, ctx)
        slot = entry.slots.setdefault(key, _Slot())
    with slot.lock:
        if slot.program is None:
            own = cl.Context.from_int_ptr(ctx.int_ptr, retain=True)
            program = cl.Program(own, source).build(options=list(options),
                                                    devices=[queue.device])
            if kernel:
                slot.size = builtins.min(256, cl.Kernel(program, kernel).get_work_group_info(
                    cl.kernel_work_group_info.WORK_GROUP_SIZE, queue.device))
            slot.program = program
        return slot


def _program(queue: Any, key: tuple, source: str, options: Sequence[str]) -> Any:
    """A small helper program of the package, built once per (context, key)."""
    return _program_slot(queue, key, source, options).program


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

# n elements of `in` from element `first`, at the places of an N-d array of
# `dims` whose axes are `steps` elements apart (an N-d view, an array read in
# another axis order, or a 1-D view or slice whose elements are converted),
# converted each to OUT (dtype= a type the library does not combine the data
# in: PyOpenCL's and NumPy's element-wise conversion), into a contiguous
# C-order copy. 1-D views without a conversion are read in place.
_GATHER = """
#if FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
__kernel void gather(__global const IN *in, const long first, const int nd, const long16 dims,
                     const long16 steps, __global OUT *out, const ulong o, const ulong n) {
    const ulong i = get_global_id(0);
    if (i >= n)
        return;
    long d[16], s[16], r = (long)i, at = first; /* i's place: its index over dims, C order */
    vstore16(dims, 0, d);
    vstore16(steps, 0, s);
    for (int k = nd - 1; k >= 0; --k) {
        at += (r % d[k]) * s[k];
        r /= d[k];
    }
#if IN_HALF
    const float v = vload_half(at, in);
#else
    const IN v = in[at];
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
    out = _empty_scalar(queue, back, allocator)
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
    return _gather_nd(queue, a, first, [n], [step], to, waits)


def _gather_nd(queue: Any, a: Any, first: int, dims: Sequence[int], steps: Sequence[int],
               to: np.dtype, waits: Sequence[Any]) -> Any:
    """_gather over an N-d layout: the elements of a (from `first`, counted from
    its buffer's start) at the places of an array of `dims` with `steps`, as a
    C-order 1-D Array of `to`."""
    import pyopencl as cl
    import pyopencl.array as cla
    n = int(np.prod(dims, dtype=np.int64))
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
    dv, sv = _nd.vectors(dims, steps)
    out = cla.empty(queue, (n,), dst, allocator=_alloc(a))
    knl = cl.Kernel(program, "gather")
    knl.set_args(a.base_data, np.int64(first), np.int32(len(dims)), dv, sv, out.base_data,
                 np.uint64(out.offset // dst.itemsize), np.uint64(n))
    ev = cl.enqueue_nd_range_kernel(queue, knl, (n,), None, wait_for=list(waits) or None)
    out.add_event(ev)
    a.add_event(ev)
    return out


# The zero a float min or max returns. -0.0 == +0.0, so which of them a
# reduction gives depends on its order: NumPy's loop keeps the later of two
# equal float32/float64 values (its vector path may differ beyond 8 or 16
# elements) and the earlier float16 one. A tree cannot say which zero came
# last; this one work-group pass after the reduction finds it, scanning the
# data only when the result is a zero (else one small launch). It then
# combines initial= as NumPy's loop does (initial comes first; NaN from either
# side). _ZERO_KEEPS_LAST asks the NumPy in use which zero it keeps.
_LAST_ZERO = """
#if FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if IN_HALF
#define LOAD(j) vload_half((j), in)
#else
#define LOAD(j) in[(j)]
#endif
#if OP_MIN
#define BEFORE(x, y) ((x) < (y))
#else
#define BEFORE(x, y) ((x) > (y))
#endif
#if LAST /* the i-th element looked at: from the end, or from the start */
#define AT(i) (first + (long)(n - 1 - (i)) * step)
#define INIT_WINS(x, y) BEFORE(x, y)
#else /* and whether initial, the first value, wins a tie */
#define AT(i) (first + (long)(i) * step)
#define INIT_WINS(x, y) (BEFORE(x, y) || (x) == (y))
#endif
__kernel void last_zero(__global const IN *in, const long first, const long step,
                        const ulong n, __global ACC *res, const ulong ro,
                        const int has_init, const ACC init) {
    __local int hit; /* the lowest local id that saw a zero: the one looked at first */
    const int lid = (int)get_local_id(0), size = (int)get_local_size(0);
    ACC v = res[ro];
    barrier(CLK_GLOBAL_MEM_FENCE); /* all have read it before work-item 0 writes */
    if (v == (ACC)0) { /* the same for every work-item: the loop's barriers are uniform */
        for (ulong i0 = 0; i0 < n; i0 += (ulong)size) {
            if (lid == 0)
                hit = size;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (i0 + (ulong)lid < n && LOAD(AT(i0 + lid)) == 0)
                atomic_min(&hit, lid);
            barrier(CLK_LOCAL_MEM_FENCE);
            const int h = hit;
            if (h < size) {
                v = (ACC)LOAD(AT(i0 + h));
                break;
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read hit before it is reset */
        }
    }
    if (lid == 0)
        res[ro] = has_init && (INIT_WINS(init, v) || isnan(init)) ? init : v;
}
"""

# (dtype, "min" or "max") -> whether NumPy's reduction keeps the last of
# equal values (else the first), asked of NumPy itself.
_ZERO_KEEPS_LAST = {
    (np.dtype(t), op): bool(np.signbit(_UFUNCS[op].reduce(np.array([0.0, -0.0], t))))
    for t in (np.float16, np.float32, np.float64) for op in ("min", "max")}


def _last_zero(queue: Any, op: str, buf: Any, read: np.dtype, first: int, n: int, step: int,
               result: Any, initial: Any) -> Any:
    """Enqueues the _LAST_ZERO pass of min or max over n elements of `read`
    from buf[first], step apart, fixing result (a 0-d Array) after its
    events and combining initial (unless _NoValue); the pass's event
    replaces result's and is returned."""
    import pyopencl as cl
    acc = result.dtype
    fp64 = np.dtype(np.float64) in (read, acc)
    last = _ZERO_KEEPS_LAST[(read, op)]
    opts = [f"-DIN={_CL[read]}", f"-DACC={_CL[acc]}", f"-DFP64={int(fp64)}",
            f"-DIN_HALF={int(read == np.float16)}", f"-DOP_MIN={int(op == 'min')}",
            f"-DLAST={int(last)}"]
    slot = _program_slot(queue, ("last_zero", queue.device.int_ptr, read, acc, op, last),
                         _LAST_ZERO, opts, "last_zero")
    knl = cl.Kernel(slot.program, "last_zero")
    init = acc.type(0 if initial is _NoValue else initial)
    knl.set_args(buf, np.int64(first), np.int64(step), np.uint64(n), result.base_data,
                 np.uint64(result.offset // acc.itemsize), np.int32(initial is not _NoValue),
                 init)
    ev = cl.enqueue_nd_range_kernel(queue, knl, (slot.size,), (slot.size,),
                                    wait_for=result.events)
    result.events[:] = [ev]
    return ev


def clear_cache() -> None:
    """Drops every cached reducer (each is released once no call uses it)."""
    with _cache_lock:
        _built.clear()
        _cache.clear()


# The cache's reducers are released when the interpreter exits, before the
# OpenCL runtime's own exit handlers and PyOpenCL's objects go (atexit runs
# last registered first), rather than from module teardown in any order.
atexit.register(clear_cache)


# ---- the NumPy / PyOpenCL-shaped functions ---------------------------------

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
            accurate: bool, slc: Any, initial: Any = _NoValue) -> Tuple[Any, bool]:
    """Enqueues the library's reduction of a (or a[slc]) after a.events and
    wait_for: (a 0-d Array of p.acc (of p.out for bits and parts) whose events
    hold the reduction's, or None when there are no elements; whether initial
    is in it). A strided or reversed 1-D view (or a slice with a step) is
    read in place, from its lowest element with a positive stride
    (ocr_reducer_reduce_strided; a complex one as two such calls, its real
    and its imaginary parts); a conversion (p.conv), an N-d view or SVM data
    go through a copy on the device (_gather). Float min and max then give
    the zero NumPy's loop gives, and take initial in (_last_zero); the
    caller combines it otherwise."""
    # An N-d view that is not contiguous (a[::2, ::2]) is read through a copy.
    strided_nd = slc is None and a.ndim > 1 and a.size > 1 and not a.flags.forc
    svm = _is_svm(a)
    first, n, step = (0, a.size, 0) if strided_nd else _region(a, slc)
    if n == 0:
        return None, False
    own = a.events
    n_own = len(own)
    waits = own + list(wait_for) if wait_for else list(own)
    buf, read = a.base_data, a.dtype
    if strided_nd or p.conv is not None or svm:
        if strided_nd:
            tmp = _gather_nd(queue, a, a.offset // a.dtype.itemsize, a.shape, _nd.steps_of(a),
                             p.conv or a.dtype, waits)
        else:
            tmp = _gather(queue, a, first, n, step, p.conv or a.dtype, waits)
        buf, first, waits = tmp.base_data, tmp.offset // tmp.dtype.itemsize, list(tmp.events)
        read, step = tmp.dtype, 1
    view_first, view_step = first, step  # in the view's order, for _last_zero
    if step < 0:  # a reversed view: the same elements, from the lowest one
        first, step = first + (n - 1) * step, -step
    result = _empty_scalar(queue, p.out if p.bits or p.parts else p.acc, _alloc(a))
    reducer = _cached(queue, a, p.read, p.acc, op, accurate)
    res, roff = _mem_ptr(result), result.offset // p.acc.itemsize
    if p.parts and step == 1:  # complex: the real and imaginary parts as the columns of n rows
        evs = [reducer.enqueue(queue, buf.int_ptr, first * 2, n, res, roff, waits, columns=2)]
    elif p.parts:  # a strided complex view: its real parts, then its imaginary ones
        evs = [reducer.enqueue(queue, buf.int_ptr, first * 2 + k, n, res, roff + k, waits,
                               stride=2 * step) for k in (0, 1)]
    else:  # step > 1: in place (ocr_reducer_reduce_strided)
        evs = [reducer.enqueue(queue, buf.int_ptr, first, n, res, roff, waits, stride=step)]
    result.events.extend(evs)
    fixed = op in ("min", "max") and read.kind == "f"
    if fixed:
        evs = [_last_zero(queue, op, buf, read, view_first, n, view_step, result, initial)]
    # The events complete after every event of a's that they waited for: a
    # later writer of a needs to wait for them alone (a.events stays short,
    # where add_event would block now and then). A NannyEvent stays: dropping
    # it waits for its copy from host memory.
    if n_own:
        own[:n_own] = [e for e in own[:n_own] if isinstance(e, _NannyEvent)]
    own.extend(evs)
    return result, fixed


def _reduce(op: str, a: Any, dtype: Any, queue: Any, wait_for: Optional[Sequence[Any]],
            accurate: bool = False, axis: Axis = None, slc: Any = None,
            initial: Any = _NoValue) -> Any:
    if dtype is None and axis is None and slc is None and initial is _NoValue and not accurate:
        hot = _reduce_hot(op, a, queue, wait_for)
        if hot is not None:
            return hot
    import pyopencl.array as cla
    p, queue = _prepare(op, a, dtype, queue, initial, accurate)
    axes = _nd.normalize_axes(axis, a.ndim)
    if len(axes) < a.ndim:  # some axes are kept: one value for each of their places
        if accurate:
            raise ValueError("accurate=True sums whole arrays, not along an axis")
        if slc is not None:
            raise TypeError("axis= does not combine with slice=")
        if p.back or p.conv or p.bits or p.parts or p.read != a.dtype or _is_small(p.read):
            raise TypeError(f"axis= is not supported for {a.dtype} data into {p.out} (along an "
                            "axis: the types the library combines directly)")
        return _with_initial(op, _reduce_axes(op, a, p.acc, queue, wait_for, axes), initial,
                             queue)
    result, fixed = _launch(op, a, p, queue, wait_for, accurate, slc, initial)
    if result is None:
        return cla.to_device(queue, _empty_value(op, p, initial), allocator=_alloc(a))
    if fixed:
        initial = _NoValue
    if p.back is not None:
        result = _narrow(queue, result, p.back, _alloc(a))
    if p.out.kind == "b":
        result = _with_initial(op, result, initial, queue)
        return cla.Array(queue, (), p.out, data=result.base_data, offset=result.offset,
                         events=list(result.events))
    return _with_initial(op, result, initial, queue)


# (op, dtype) -> the plan where the library reduces the data as they lie into
# a result of their own dtype (no conversion before or after; not a float
# min or max, whose zero needs _last_zero), else False.
_hot_plans: Dict[Tuple[str, np.dtype], Any] = {}


def _hot_plan(op: str, dt: np.dtype) -> Any:
    p = _hot_plans.get((op, dt))
    if p is None:
        try:
            q = _plan(op, dt, None, False)
            p = q if (q.conv is None and q.back is None and not q.bits and not q.parts
                      and q.read == dt and q.acc == dt and q.out == dt
                      and not (op in ("min", "max") and dt.kind == "f")) else False
        except TypeError:
            p = False  # the general way raises the error
        _hot_plans[(op, dt)] = p
    return p


def _reduce_hot(op: str, a: Any, queue: Any, wait_for: Optional[Sequence[Any]]) -> Any:
    """_reduce's common call in few steps (every argument but wait_for left
    as it defaults; a contiguous non-empty buffer Array of a dtype the library
    combines as it is): what _launch does for it, or None where the general
    way applies."""
    if _cla is None or not isinstance(a, _cla.Array):
        return None
    queue = queue if queue is not None else a.queue
    if queue is None:
        return None
    p = _hot_plan(op, a.dtype)
    isz = a.dtype.itemsize
    if (not p or a.size == 0 or a.offset % isz or not a.flags.forc
            or not isinstance(a.base_data, _pyopencl.MemoryObjectHolder)):
        return None
    own = a.events
    n_own = len(own)
    waits = own + list(wait_for) if wait_for else own
    result = _empty_scalar(queue, p.acc, a.allocator)
    ev = _cached(queue, a, p.read, p.acc, op).enqueue(
        queue, a.base_data.int_ptr, a.offset // isz, a.size, result.base_data.int_ptr, 0, waits)
    result.events.append(ev)
    if n_own:  # as _launch: a later writer of a waits for ev alone
        own[:n_own] = [e for e in own[:n_own] if isinstance(e, _NannyEvent)]
    own.append(ev)
    return result


_HOST_OPS = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "and": "and", "or": "or",
             "xor": "xor", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}


def value(a: Array, op: HostOp = "sum", dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
          slice: Optional[builtins.slice] = None, initial: Scalar = _NoValue, *,
          wait_for: Events = None, accurate: bool = False) -> Any:
    """The reduction's value on the host, as a NumPy scalar (blocks until it
    is there): the same as getattr(oclreduction, op)(a, ...).get()[()] with
    the same arguments, without the 0-d Array on the way (its conversion to
    a small type, bool and initial= are done on the host, as NumPy does)."""
    import pyopencl as cl
    name = _HOST_OPS.get(op)
    if name is None:
        raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(_HOST_OPS))
    p, q = _prepare(name, a, dtype, queue, initial, accurate)
    now = _value_now(name, a, p, q, wait_for, accurate, slice)
    if now is not None:
        if initial is not _NoValue:  # initial first, as NumPy's loop
            now = _UFUNCS[name](np.array(initial).astype(p.out), now)
        return _scalar(np.asarray(now))
    result, fixed = _launch(name, a, p, q, wait_for, accurate, slice, initial)
    if result is None:
        return _scalar(_empty_value(name, p, initial))
    host = np.empty((), result.dtype)
    cl.enqueue_copy(q, host, result.base_data, src_offset=result.offset,
                    wait_for=result.events, is_blocking=True)
    got = host.astype(p.out)
    if initial is not _NoValue and not fixed:  # initial first, as NumPy's loop
        got = _UFUNCS[name](np.array(initial).astype(p.out), got)
    return _scalar(got)


def _value_now(op: str, a: Any, p: _Plan, queue: Any, wait_for: Optional[Sequence[Any]],
               accurate: bool, slc: Any) -> Optional[np.ndarray]:
    """value()'s short way, where the library reads the elements as they lie:
    one blocking library call (no result Array, no event objects), after a
    wait on the host for the events of a and wait_for still running. A 0-d
    array of p.out, or None where the general way is needed (a copy or
    conversion first, complex parts, no elements, or a float min or max
    that is a zero: which zero is the _LAST_ZERO pass's question)."""
    import pyopencl as cl
    if p.conv is not None or p.parts or (a.ndim > 1 and not a.flags.forc) or _is_svm(a):
        return None
    first, n, step = _region(a, slc)
    if n == 0 or step != 1:
        return None
    waits = list(a.events) + list(wait_for or [])
    running = [e for e in waits
               if e.command_execution_status != cl.command_execution_status.COMPLETE]
    if running:
        cl.wait_for_events(running)
    got = _cached(queue, a, p.read, p.acc, op, accurate).value_now(queue, a.base_data.int_ptr,
                                                                  first, n)
    if op in ("min", "max") and p.read.kind == "f" and got == 0:
        return None
    return np.asarray(got).astype(p.out)


def _scalar(x: np.ndarray) -> Any:
    """A 0-d array's element as a NumPy scalar (Any, as NumPy's own
    reductions are typed: float(), int() and .item() all apply)."""
    return x[()]


def _reduce_axes(op: str, a: Any, acc: np.dtype, queue: Any,
                 wait_for: Optional[Sequence[Any]], axes: Tuple[int, ...]) -> Any:
    """a reduced along `axes` (some, not all): an Array of acc over the other
    axes (NumPy's shape), its .events (and a's) holding the reduction's. The
    library's row or column reduction reads a in place where the axes are
    its leading or trailing ones in memory; else a copy in (kept axes,
    reduced axes) order comes first."""
    import pyopencl.array as cla
    svm = _is_svm(a)  # read through the copy
    lay = _nd.layout(a.shape, axes, a.flags.c_contiguous and not svm,
                     a.flags.f_contiguous and not svm)
    if lay.count and not lay.length:  # nothing along the axes: the identity
        ident = _UFUNCS[op].identity
        if ident is None:
            raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
        shape = tuple(a.shape[d] for d in lay.kept)
        return cla.to_device(queue, np.full(shape, ident).astype(acc), allocator=_alloc(a))
    result = _nd.result_array(queue, lay, a.shape, acc, _alloc(a))
    if not lay.count:
        return result
    isz = a.dtype.itemsize
    waits = list(a.events) + list(wait_for or [])
    src, kind = a, lay.kind
    if kind == "copy":
        dims, steps = _nd.copy_order(a, axes)
        src = _gather_nd(queue, a, a.offset // isz, dims, steps, a.dtype, waits)
        kind, waits = "rows", list(src.events)
    shape = (lay.count, lay.length) if kind == "rows" else (lay.length, lay.count)
    m = cla.Array(queue, shape, a.dtype, data=src.base_data, offset=src.offset)
    flat = cla.Array(queue, (lay.count,), acc, data=result.base_data, offset=result.offset)
    ev = _cached(queue, a, a.dtype, acc, op).reduce_axis_async(
        queue, m, flat, 1 if kind == "rows" else 0, wait_for=waits)
    result.add_event(ev)
    a.add_event(ev)
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


def sum(a: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
        slice: Optional[builtins.slice] = None, initial: Scalar = _NoValue, *,
        wait_for: Events = None, accurate: bool = False, axis: Axis = None) -> Array:
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


def prod(a: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
         slice: Optional[builtins.slice] = None, initial: Scalar = _NoValue, *,
         wait_for: Events = None, axis: Axis = None) -> Array:
    """The product, as sum (initial multiplies)."""
    return _reduce("prod", a, dtype, queue, wait_for, axis=axis, slc=slice, initial=initial)


def min(a: Array, queue: Optional[Queue] = None, initial: Scalar = _NoValue, *,
        dtype: Optional[DTypeLike] = None, wait_for: Events = None, axis: Axis = None) -> Array:
    """The minimum as a 0-d Array, as pyopencl.array.min(a, queue, initial):
    NaN if a holds one (as NumPy); initial takes part as one more element;
    an empty a gives initial or, without it, ValueError. dtype= (a keyword):
    a type a.dtype widens into, as in sum."""
    return _reduce("min", a, dtype, queue, wait_for, axis=axis, initial=initial)


def max(a: Array, queue: Optional[Queue] = None, initial: Scalar = _NoValue, *,
        dtype: Optional[DTypeLike] = None, wait_for: Events = None, axis: Axis = None) -> Array:
    """The maximum, as min."""
    return _reduce("max", a, dtype, queue, wait_for, axis=axis, initial=initial)


def bitwise_and(a: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
                slice: Optional[builtins.slice] = None, *, wait_for: Events = None,
                axis: Axis = None) -> Array:
    """The bitwise AND of integers, as sum (all ones if a is empty)."""
    return _reduce("and", a, dtype, queue, wait_for, axis=axis, slc=slice)


def bitwise_or(a: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
               slice: Optional[builtins.slice] = None, *, wait_for: Events = None,
               axis: Axis = None) -> Array:
    """The bitwise OR of integers, as sum."""
    return _reduce("or", a, dtype, queue, wait_for, axis=axis, slc=slice)


def bitwise_xor(a: Array, dtype: Optional[DTypeLike] = None, queue: Optional[Queue] = None,
                slice: Optional[builtins.slice] = None, *, wait_for: Events = None,
                axis: Axis = None) -> Array:
    """The bitwise XOR of integers, as sum."""
    return _reduce("xor", a, dtype, queue, wait_for, axis=axis, slc=slice)


def _arg(op: str, a: Any, queue: Any, wait_for: Optional[Sequence[Any]],
         axis: Any = None) -> Any:
    import pyopencl.array as cla
    _check_array(op, a)
    type_of(a.dtype)  # a TypeError for dtypes the library does not reduce
    queue = _queue_of(a, queue)
    ax = _nd.checked_axis(axis, a.ndim)
    if ax is not None and a.ndim > 1:
        if a.shape[ax] == 0:
            raise ValueError(f"attempt to get {op} of an empty sequence")
        return _nd.arg_rows(queue, a, op, ax, list(a.events) + list(wait_for or []),
                            _program_slot, _CL)
    isz = a.dtype.itemsize
    step = 1
    # A 1-D view with a positive step is read in place: the index is the
    # view's (i of the elements first + i * step). Other layouts (reversed:
    # a tie's first index in NumPy's order is the last in memory; N-d views;
    # F order; SVM) are read through a C-order copy.
    if a.ndim == 1 and not a.flags.c_contiguous and a.strides[0] > 0 and \
            a.strides[0] % isz == 0 and a.offset % isz == 0 and not _is_svm(a):
        step = a.strides[0] // isz
    if a.size == 0:
        raise ValueError(f"attempt to get {op} of an empty sequence")
    if step == 1 and (not a.flags.c_contiguous or _is_svm(a)):  # a C-order copy (see above)
        steps = _nd.steps_of(a)
        a = _gather_nd(queue, a, a.offset // a.dtype.itemsize, a.shape, steps, a.dtype,
                       list(a.events) + list(wait_for or []))
        wait_for = None
    # The reducer writes a 16-byte pair (the value's ordering key, the index):
    # the result is a view of the index.
    pair = cla.empty(queue, (2,), np.uint64, allocator=_alloc(a))
    reducer = _cached(queue, a, a.dtype, a.dtype, op)
    if step == 1:
        ev = reducer.reduce_async(queue, a, pair.base_data, wait_for=wait_for)
    else:  # in place (ocr_reducer_reduce_strided)
        ev = reducer.enqueue(queue, a.base_data.int_ptr, a.offset // isz, a.size,
                             _mem_ptr(pair), pair.offset // 16,
                             list(a.events) + list(wait_for or []), stride=step)
        a.add_event(ev)
    return cla.Array(queue, (), np.int64, data=pair.base_data, offset=pair.offset + 8,
                     events=[ev])


def argmin(a: Array, queue: Optional[Queue] = None, wait_for: Events = None, *,
           axis: Optional[SupportsIndex] = None) -> Array:
    """The index of the minimum as an int64 Array, as numpy.argmin: the first
    index where it occurs; a NaN counts as the minimum (its first index
    wins); -0.0 == +0.0. axis=None: the index in a flattened in C order (a
    0-d Array; a 1-D view with a positive step read in place, its index
    counted in the view; other layouts through a C-order copy); axis=k: the
    indices along axis k (an Array of the other axes' shape, read in place).
    ValueError if there is nothing to look at."""
    return _arg("argmin", a, queue, wait_for, axis)


def argmax(a: Array, queue: Optional[Queue] = None, wait_for: Events = None, *,
           axis: Optional[SupportsIndex] = None) -> Array:
    """The index of the maximum, as argmin."""
    return _arg("argmax", a, queue, wait_for, axis)


def reduce(queue: Optional[Queue], array: Array,
           op: Union[Op, ArgOp] = "sum") -> Any:
    """The 0.1 interface: `op` ("sum", "prod", "min", "max", "and", "or",
    "xor") over a whole array, as a NumPy scalar (blocks)."""
    if op not in _OPS:
        raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(_OPS))
    if op == "argmin" or op == "argmax":
        return _scalar(_arg(op, array, queue, None).get())
    return value(array, op, queue=queue)


# The custom reductions need the helpers above (their module imports them).
from ._custom import ReductionKernel  # noqa: E402
from ._linalg import count_nonzero, dot, norm, subset_dot, vdot  # noqa: E402
from ._stats import Stats, mean, stats, std, var  # noqa: E402
