"""histogram and bincount: NumPy's np.histogram and np.bincount on pyopencl
Arrays, counted on the device by the library's histogram call
(ocr_reducer_histogram: cl/histogram.cl of the C library, no kernel of the
package's own).

What is NumPy's and what is the device's. The edges are computed on the host
exactly as NumPy computes them (np.linspace over NumPy's range in NumPy's
bin type; range=None takes the data's min and max from two device
reductions), and the device counts against those edges (the library's
OCR_HIST_EDGES kind: a binary search per sample, edge[i] <= x < edge[i + 1],
the last bin closed, in double): so the counts are NumPy's to the bit, also
for a sample one ulp from an edge, where an even-bin formula (x - lo) *
bins / (hi - lo) can land in the neighbouring bin.
"""
from __future__ import annotations

import builtins
import operator
import warnings
from typing import Any, Dict, List, Optional, Sequence, SupportsIndex, Tuple

import numpy as np

from . import _nd
from ._arrays import _alloc, _check_array, _is_svm, _queue_of, _region
from ._cache import _cached
from ._native import accumulator, type_of
from ._passes import _gather, _gather_nd
from ._reduce import value
from ._typing import Array, Bins, Events, Queue

__all__ = ["histogram", "bincount"]

_F64: np.dtype = np.dtype(np.float64)
_I64: np.dtype = np.dtype(np.int64)


def _has_fp64(queue: Any) -> bool:
    return bool(queue.device.double_fp_config)


def _bin_edges(a: Any, bins: Any, range: Any, minmax: Any) -> Tuple[np.ndarray, bool]:
    """NumPy's edges for histogram(a, bins, range) (numpy.lib.histograms'
    _get_bin_edges and _get_outer_edges, line by line, with the same errors)
    and whether they were computed from a count of bins. minmax() gives the
    data's (min, max) as NumPy scalars of a.dtype (read from the device only
    where range is None)."""
    if isinstance(bins, str):
        raise TypeError(f"bins={bins!r}: oclreduction.histogram takes a number of bins or "
                        "the edges (NumPy's estimators need the data on the host)")
    if np.ndim(bins) == 1:
        edges = np.asarray(bins)
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        return edges, False
    if np.ndim(bins) != 0:
        raise ValueError("`bins` must be 1d, when an array")
    try:
        n_bins = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if n_bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = minmax()
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:  # NumPy widens an empty range by 0.5 each side
        first = first - 0.5
        last = last + 0.5
    # NumPy's bin type: of the range and the data (a 1-D array of a.dtype
    # stands for the data: NumPy's result_type depends on the shapes).
    bin_type = np.result_type(first, last, np.empty(0, a.dtype))
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    return np.linspace(first, last, n_bins + 1, endpoint=True, dtype=bin_type), True


def _sample_dtype(a: Any, what: str) -> np.dtype:
    if a.dtype == np.bool_:
        return np.dtype(np.uint8)  # the same bytes: read as uint8, as NumPy converts
    try:
        type_of(a.dtype)
    except TypeError:
        raise TypeError(f"oclreduction.{what} cannot count {a.dtype} data: the types are "
                        "bool, int8 .. uint64, float16, float32, float64") from None
    return np.dtype(a.dtype)


def _contiguous(queue: Any, x: Any, dtype: np.dtype, to: np.dtype, c_order: bool,
                waits: List[Any]) -> Tuple[Any, int, List[Any]]:
    """(buffer, first element, events to wait for) of x's elements as
    contiguous `to` values: x's own buffer where x is contiguous (in C order
    where c_order), of `dtype` already and in an OpenCL buffer; else a copy
    on the device (_passes' gather, which also converts)."""
    isz = x.dtype.itemsize
    contiguous = x.flags.c_contiguous if c_order else x.flags.forc
    if contiguous and dtype == to and not _is_svm(x) and x.offset % isz == 0:
        return x.base_data, x.offset // isz, waits
    if x.ndim == 1:
        first, n, step = _region(x, None)
        tmp = _gather(queue, x, first, n, step, to, waits)
    else:
        tmp = _gather_nd(queue, x, x.offset // isz, x.shape, _nd.steps_of(x), to, waits)
    return tmp.base_data, tmp.offset // to.itemsize, list(tmp.events)


def _weights_of(a: Any, weights: Any) -> Optional[Any]:
    import pyopencl.array as cla
    if weights is None:
        return None
    if not isinstance(weights, cla.Array):
        raise TypeError(f"weights must be a pyopencl.array.Array, not {type(weights).__name__}")
    if weights.dtype.kind not in "iuf":
        raise TypeError(f"weights of {weights.dtype}: oclreduction sums integer or float "
                        "weights")
    return weights


def _count(queue: Any, a: Any, dtype: np.dtype, bins: int, spec: Dict[str, Any], weights: Any,
           wait_for: Optional[Sequence[Any]], out_dtype: np.dtype) -> Any:
    """The library's histogram of a (read as `dtype`) into a new Array of
    `bins` elements of out_dtype (int64 counts; a weights dtype: the sums of
    weights, added in double where the device has it and converted after).
    The call waits for a's, the weights' and wait_for's events; its event is
    in the result's events and in a's and the weights'."""
    import pyopencl.array as cla
    waits = list(a.events) + list(wait_for or [])
    # With weights, a and weights are read in the same (C) order.
    buf, first, waits = _contiguous(queue, a, dtype, dtype, weights is not None, waits)
    wspec = None
    sum_type = _I64
    if weights is not None:
        sum_type = _F64 if _has_fp64(queue) else np.dtype(np.float32)
        wbuf, woff, waits = _contiguous(queue, weights, weights.dtype, sum_type, True,
                                        waits + list(weights.events))
        wspec = (wbuf, woff, sum_type)
    out = cla.empty(queue, (bins,), sum_type, allocator=_alloc(a))
    # Any reducer of the sample type counts (the operator is not used): the
    # one range=None's min (bincount's max) already built, not one more build.
    reducer = _cached(queue, a, dtype, accumulator(dtype),
                      "max" if spec["kind"] == "bincount" else "min")
    ev = reducer.histogram(queue, buf, first, a.size, bins, out.base_data,
                           out.offset // out.dtype.itemsize, waits,
                           weights=wspec,
                           **spec)
    out.add_event(ev)
    for x in (a, weights):
        if x is not None:
            x.add_event(ev)
    if out.dtype != out_dtype:  # summed in double: the weights' dtype, as NumPy
        out = _gather(queue, out, out.offset // out.dtype.itemsize, bins, 1, out_dtype,
                      list(out.events))
    return out


def histogram(a: Array, bins: Bins = 10, range: Optional[Tuple[float, float]] = None,
              weights: Optional[Array] = None, density: bool = False, *,
              queue: Optional[Queue] = None, wait_for: Events = None) -> Tuple[Array, Array]:
    """np.histogram(a, bins, range, weights, density) of a pyopencl Array,
    counted on the device: (hist, bin_edges), both pyopencl Arrays on the
    queue (as sum returns an Array: .get() gives NumPy's two arrays).

    bins: a number of equal bins over range (default: the data's min and max,
    two device reductions that block until they are read; an empty array
    takes [0, 1]; a single value v [v - 0.5, v + 0.5]), or the ascending edges
    (a sequence or NumPy array; range is then unused). The edges are NumPy's
    own (np.linspace in NumPy's bin type: float32 for float32 data, float64
    for integers) and the bins are NumPy's: edges[i] <= x < edges[i + 1], the
    last bin also x == edges[-1]; samples outside the edges and NaN are not
    counted (an explicit range); range=None with a NaN or an infinity raises
    ValueError, as NumPy. The comparisons are made in double: given integer
    edges beyond 2**53 may differ from NumPy's integer comparisons.

    hist: int64 counts; with weights (an Array of a's shape, integer or
    float), the sums of the weights in each bin, of the weights' dtype (added
    in double on the device, then converted; float sums are added in a
    run-dependent order, so they may differ from NumPy's by rounding);
    density=True: float64, hist / bin width / hist.sum() (computed on the
    host from the counts read back: this blocks).

    a: any shape and layout (counted flat, as NumPy); bool is counted as
    uint8, with NumPy's RuntimeWarning. A contiguous a is read in place; a
    strided view, SVM or (with weights) a layout other than the weights' is
    first copied on the device. The count waits for a.events, the weights'
    and wait_for; its event is in hist's events (and a's)."""
    import pyopencl.array as cla
    _check_array("histogram", a)
    q: Any = _queue_of(a, queue)
    w = _weights_of(a, weights)
    if w is not None and w.shape != a.shape:
        raise ValueError("weights should have the same shape as a.")
    dtype = _sample_dtype(a, "histogram")
    if a.dtype == np.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=2)
    data = a if a.dtype == dtype else a.view(dtype)

    def minmax() -> Tuple[Any, Any]:
        return (value(data, "min", wait_for=wait_for), value(data, "max", wait_for=wait_for))
    edges, _ = _bin_edges(data, bins, range, minmax)
    alloc = _alloc(a)
    edges_dev = cla.to_device(q, edges, allocator=alloc)
    nbins = builtins.max(len(edges) - 1, 0)
    out_dtype = _I64 if w is None else w.dtype
    if nbins == 0:  # no bins (edges of fewer than two elements)
        hist = cla.zeros(q, (0,), out_dtype, allocator=alloc)
    elif a.size == 0:
        hist = cla.zeros(q, (nbins,), out_dtype, allocator=alloc)
    else:
        hist = _count(q, data, dtype, nbins, _edges_spec(q, edges), w,
                      wait_for, out_dtype)
        if data is not a:  # a bool array's uint8 view: a later writer of a waits too
            for e in hist.events:
                a.add_event(e)
    if density:
        n = hist.get()
        db = np.array(np.diff(edges), float)
        hist = cla.to_device(q, n / db / n.sum(), allocator=alloc)
    return hist, edges_dev


def _edges_spec(queue: Any, edges: np.ndarray) -> Dict[str, Any]:
    """The library's edges kind over NumPy's edges, in double where the
    device has it, else in float where each edge is a float (float16 and
    float32 data's)."""
    import pyopencl.array as cla
    as_type: np.dtype = _F64
    if not _has_fp64(queue):
        if not np.array_equal(edges.astype(np.float32).astype(edges.dtype), edges):
            raise TypeError(f"{edges.dtype} edges are compared in double, which this device "
                            "has not (cl_khr_fp64)")
        as_type = np.dtype(np.float32)
    dev = cla.to_device(queue, np.ascontiguousarray(edges, dtype=as_type))
    return {"kind": "edges", "edges": (dev.base_data, dev.offset // as_type.itemsize, as_type)}


def bincount(x: Array, weights: Optional[Array] = None, minlength: SupportsIndex = 0, *,
             queue: Optional[Queue] = None, wait_for: Events = None) -> Array:
    """np.bincount(x, weights, minlength) of a 1-D pyopencl Array of
    non-negative integers (bool, int8 .. int64, uint8 .. uint32: the types
    NumPy casts safely to int64; uint64 and floats raise TypeError, a
    negative value ValueError, as NumPy), counted on the device: an Array of
    max(x.max() + 1, minlength) int64 counts, or with weights (an Array of
    x's length, integer or float) the float64 sums of the weights of each
    value (added on the device in a run-dependent order). The min and max
    are read first (two device reductions that block); the count waits for
    x.events, the weights' and wait_for, and its event is in the result's."""
    import pyopencl.array as cla
    _check_array("bincount", x)
    q: Any = _queue_of(x, queue)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.dtype != np.bool_ and not np.can_cast(x.dtype, np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to "
                        f"{np.dtype(np.intp)!r} according to the rule 'safe'")
    dtype = _sample_dtype(x, "bincount")
    data = x if x.dtype == dtype else x.view(dtype)
    alloc = _alloc(x)
    if x.size == 0:  # NumPy: int64 zeros, weights or not
        return cla.zeros(q, (minlength,), _I64, allocator=alloc)
    w = _weights_of(x, weights)
    if w is not None and (w.ndim != 1 or w.size != x.size):
        raise ValueError("The weights and list don't have the same length." if w.ndim == 1
                         else "object too deep for desired array")
    if dtype.kind == "i" and value(data, "min", wait_for=wait_for) < 0:
        raise ValueError("'list' argument must have no negative elements")
    top = int(value(data, "max", wait_for=wait_for))
    nbins = builtins.max(top + 1, minlength)
    return _count(q, data, dtype, nbins, {"kind": "bincount"}, w, wait_for,
                  _I64 if w is None else _F64)
