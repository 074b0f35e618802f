"""The NumPy / PyOpenCL-shaped reductions of a whole array or along axes:
sum, prod, min, max, the bitwise ones, value and reduce, each one call of
the library's reducer (with the passes of _passes around it where NumPy's
answer needs them)."""
from __future__ import annotations

import builtins
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import DTypeLike

from . import _nd
from ._arg import _arg
from ._arrays import (_SCALARS, _NannyEvent, _NoValue, _alloc, _check_array, _cla,
                      _empty_scalar, _is_svm, _mem_ptr, _pyopencl, _queue_of, _region)
from ._cache import _cached
from ._native import OPS as _OPS, is_small as _is_small
from ._passes import _gather, _gather_nd, _last_zero, _narrow
from ._plan import Plan as _Plan, plan as _plan
from ._typing import ArgOp, Axis, Array, Events, HostOp, Op, Queue, Scalar

__all__ = ["sum", "prod", "min", "max", "bitwise_and", "bitwise_or", "bitwise_xor", "value",
           "reduce"]

# NumPy's ufunc for each operator: its identity is the value of an empty
# reduction (min and max have none: ValueError, as in NumPy).
_UFUNCS: Dict[str, np.ufunc] = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
           "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


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
    that is a zero: which zero is cl/last_zero.cl's question)."""
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


def reduce(queue: Optional[Queue], array: Array,
           op: Union[Op, ArgOp] = "sum") -> Any:
    """The 0.1 interface: `op` ("sum", "prod", "min", "max", "and", "or",
    "xor") over a whole array, as a NumPy scalar (blocks)."""
    if op not in _OPS:
        raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(_OPS))
    if op == "argmin" or op == "argmax":
        return _scalar(_arg(op, array, queue, None).get())
    return value(array, op, queue=queue)
