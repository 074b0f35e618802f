"""axis= over N-d arrays: which axes, how the library's row and column
reductions cover them (or a copy into that layout first), and argmin/argmax
along an axis (a kernel of this package that reads the strides in place)."""
from __future__ import annotations

import builtins
import operator
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from . import _kernels

# Dimensions the helper kernels decode (a long16 of sizes, one of steps).
MAX_DIMS = 16


def axis_error(axis: int, ndim: int) -> Exception:
    exc = getattr(getattr(np, "exceptions", np), "AxisError", None)
    if exc is not None:
        return exc(axis, ndim)
    return ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")


def normalize_axes(axis: Any, ndim: int) -> Tuple[int, ...]:
    """axis= (an int, a tuple of ints or None) as NumPy reads it: the sorted,
    non-negative axes to reduce (all of them for None)."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for ax in items:
        ax = operator.index(ax)
        if not -ndim <= ax < builtins.max(ndim, 1) or (ndim == 0 and ax not in (0, -1)):
            raise axis_error(ax, ndim)
        out.append(ax % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(out))


def steps_of(a: Any) -> Tuple[int, ...]:
    """a's strides in elements (ValueError if one is not whole)."""
    isz = a.dtype.itemsize
    if a.offset % isz or builtins.any(s % isz for s in a.strides):
        raise ValueError(f"the array's offset or strides {a.strides} are not whole elements")
    return tuple(s // isz for s in a.strides)


class Layout:
    """How the axes of a reduce: `kind` "rows" (each of `count` rows of `length`
    contiguous elements reduced), "columns" (each of `count` columns of a
    `length` x `count` C-order matrix) or "copy" (a copy into rows first);
    `order` "C" or "F", the order of the result's elements over the kept axes."""
    __slots__ = ("kind", "count", "length", "order", "kept")

    def __init__(self, kind: str, count: int, length: int, order: str,
                 kept: Tuple[int, ...]) -> None:
        self.kind, self.count, self.length, self.order, self.kept = kind, count, length, order, kept


def layout(shape: Sequence[int], axes: Tuple[int, ...], c_contig: bool,
           f_contig: bool) -> Layout:
    nd = len(shape)
    kept = tuple(d for d in range(nd) if d not in axes)
    count = int(np.prod([shape[d] for d in kept], dtype=np.int64))
    length = int(np.prod([shape[d] for d in axes], dtype=np.int64))
    k = len(axes)
    if c_contig:
        if axes == tuple(range(nd - k, nd)):
            return Layout("rows", count, length, "C", kept)
        if axes == tuple(range(k)):
            return Layout("columns", count, length, "C", kept)
    if f_contig:  # the C-order array of the reversed shape: its axes reversed
        if axes == tuple(range(k)):
            return Layout("rows", count, length, "F", kept)
        if axes == tuple(range(nd - k, nd)):
            return Layout("columns", count, length, "F", kept)
    return Layout("copy", count, length, "C", kept)


def vectors(dims: Sequence[int], steps: Sequence[int]) -> Tuple[np.ndarray, np.ndarray]:
    """dims and steps as the kernels' long16 arguments (unused lanes: 1, 0)."""
    if len(dims) > MAX_DIMS:
        raise ValueError(f"oclreduction reads at most {MAX_DIMS} dimensions here, not {len(dims)}")
    d = np.ones(MAX_DIMS, np.int64)
    s = np.zeros(MAX_DIMS, np.int64)
    d[:len(dims)] = dims
    s[:len(steps)] = steps
    return d, s


def pow2_floor(x: int) -> int:
    return 1 << (builtins.max(1, x).bit_length() - 1)


def arg_rows(queue: Any, a: Any, op: str, axis: int, waits: List[Any],
             program_slot: Callable[..., Any], cl_names: dict) -> Any:
    """a's argmin or argmax along `axis` as an int64 Array of the other axes'
    shape (C order), its events the kernel's (also added to a's events)."""
    import pyopencl as cl
    import pyopencl.array as cla
    steps = steps_of(a)
    kept = [d for d in range(a.ndim) if d != axis]
    shape = tuple(a.shape[d] for d in kept)
    out = cla.empty(queue, shape, np.int64, allocator=a.allocator)
    if out.size == 0:
        return out
    dims, kst = vectors([a.shape[d] for d in kept], [steps[d] for d in kept])
    dt = a.dtype
    fp64 = dt == np.float64
    # The local arrays are sized at build time: the largest power of two up
    # to 256 the device takes (again smaller if the kernel's limit is lower).
    size = pow2_floor(builtins.min(256, queue.device.max_work_group_size))
    while True:
        slot = program_slot(queue, ("arg_rows", queue.device.int_ptr, dt, op, size),
                            _kernels.source("arg_rows.cl"),
                            _arg_options(cl_names, dt, op, fp64, size), "arg_rows")
        if slot.size >= size:
            break
        size = pow2_floor(slot.size)
    knl = cl.Kernel(slot.program, "arg_rows")
    knl.set_args(a.base_data, np.int64(a.offset // dt.itemsize), np.int32(len(kept)), dims, kst,
                 np.int64(steps[axis]), np.int64(a.shape[axis]), out.base_data,
                 np.uint64(out.offset // 8))
    ev = cl.enqueue_nd_range_kernel(queue, knl, (out.size * size,), (size,),
                                    wait_for=waits or None)
    out.add_event(ev)
    a.add_event(ev)
    return out


def _arg_options(cl_names: dict, dt: np.dtype, op: str, fp64: bool, size: int) -> List[str]:
    return [f"-DIN={cl_names[dt]}", f"-DIN_HALF={int(dt == np.float16)}",
            f"-DIS_FLOAT={int(dt.kind == 'f')}", f"-DOP_MIN={int(op == 'argmin')}",
            f"-DFP64={int(fp64)}", f"-DSIZE={size}"]


def result_array(queue: Any, lay: Layout, shape: Sequence[int], dtype: np.dtype,
                 allocator: Any) -> Any:
    """The result of a reduction along axes: kept axes' shape, in lay.order."""
    import pyopencl.array as cla
    kept_shape = tuple(shape[d] for d in lay.kept)
    return cla.empty(queue, kept_shape, dtype, order=lay.order, allocator=allocator)


def copy_order(a: Any, axes: Tuple[int, ...]) -> Tuple[List[int], List[int]]:
    """dims and steps (elements) of a read in the order kept axes, then the
    reduced ones: the C-order copy whose rows are the values to reduce."""
    steps = steps_of(a)
    kept = [d for d in range(a.ndim) if d not in axes]
    order = kept + list(axes)
    return [a.shape[d] for d in order], [steps[d] for d in order]


def checked_axis(axis: Optional[Any], ndim: int) -> Optional[int]:
    """argmin/argmax's axis (None or one int), normalized."""
    if axis is None:
        return None
    return normalize_axes(operator.index(axis), ndim)[0]
