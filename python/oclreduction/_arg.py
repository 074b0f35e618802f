"""argmin and argmax: the library's pair reduction over a whole array (in
place or through a C-order copy), or along one axis (cl/arg_rows.cl)."""
from __future__ import annotations

from typing import Any, Optional, Sequence, SupportsIndex

import numpy as np

from . import _nd
from ._arrays import _alloc, _check_array, _is_svm, _mem_ptr, _queue_of
from ._cache import _cached, _program_slot
from ._native import type_of
from ._passes import _CL, _gather_nd
from ._typing import Array, Events, Queue

__all__ = ["argmin", "argmax"]


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
