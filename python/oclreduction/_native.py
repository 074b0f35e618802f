"""The library beside this file, its declarations (generated from the headers
at build time), and Reducer: one built reducer, locked, on PyOpenCL objects."""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import _declarations as D
from ._build_info import LIBRARY

LIBRARY_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY)
try:
    lib = D.bind(ctypes.CDLL(LIBRARY_PATH))
except OSError as e:  # the package was not built, or the OpenCL loader is missing
    raise ImportError(f"oclreduction cannot load {LIBRARY_PATH}: {e}") from e

# OpenCL C type names (ocr_type_name) and the NumPy dtypes they hold.
_CL_TO_NUMPY = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
                "half": np.float16, "int": np.int32, "uint": np.uint32, "long": np.int64,
                "ulong": np.uint64, "float": np.float32, "double": np.float64}
# Every type the library has, by dtype: ocr_type values.
TYPES: Dict[np.dtype, int] = {
    np.dtype(_CL_TO_NUMPY[lib.ocr_type_name(t).decode()]): t for t in range(D.OCR_NTYPES)}
# Operators by name ("sum", "prod", "min", "max", "and", "or", "xor"): ocr_op values.
OPS: Dict[str, int] = {lib.ocr_op_name(o).decode(): o for o in range(D.OCR_NOPS)}


# ocr_histogram_kind by name (Reducer.histogram's kind=).
_HIST_KINDS = {"even": D.OCR_HIST_EVEN, "edges": D.OCR_HIST_EDGES,
               "bincount": D.OCR_HIST_BINCOUNT}


class OcrError(RuntimeError):
    """A failed library call: .status is the library's ocr_status (USAGE,
    BUILD, IO, ...), .status_name its name (ocr_status_name), .message the
    library's message."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.status_name = lib.ocr_status_name(status).decode()
        self.message = message
        super().__init__(f"{message} ({self.status_name})")


# The member of ocr_value that holds a value of each combined dtype.
_VALUE_FIELD = {np.dtype(np.int32): "i", np.dtype(np.uint32): "u", np.dtype(np.int64): "l",
                np.dtype(np.uint64): "ul", np.dtype(np.float32): "f", np.dtype(np.float64): "d"}


def type_of(dtype: Any) -> int:
    """The ocr_type of a dtype, or TypeError."""
    dt = np.dtype(dtype)
    if dt not in TYPES:
        raise TypeError(f"oclreduction cannot reduce {dt} data: the types are "
                        + ", ".join(str(t) for t in TYPES))
    return TYPES[dt]


def accumulator(dtype: Any) -> np.dtype:
    """The dtype a reduction of dtype data is combined in by default
    (ocr_type_accumulator): dtype itself, or for the small types int8 and
    int16 int64, uint8 and uint16 uint64, float16 float32."""
    return np.dtype(_CL_TO_NUMPY[lib.ocr_type_name(lib.ocr_type_accumulator(type_of(dtype))).decode()])


def is_small(dtype: Any) -> bool:
    """Whether dtype is a storage type of the library (int8 .. float16):
    read as such, never combined in."""
    return bool(lib.ocr_type_is_storage(type_of(dtype)))


def widens_to(data: Any, acc: Any) -> bool:
    """Whether data of one dtype can be combined in another (ocr_type_widens_to)."""
    return bool(lib.ocr_type_widens_to(type_of(data), type_of(acc)))


def _where(data: Any, n: Optional[int], offset: int,
           dtype: Any) -> Tuple[int, int, int, np.dtype]:
    """(buffer address, first element, element count, element dtype) of a
    pyopencl Array or a Buffer (whose element type is `dtype`: required)."""
    import pyopencl as cl
    if hasattr(data, "base_data") and hasattr(data, "dtype"):  # an Array
        if not data.flags.forc:
            raise ValueError(f"oclreduction needs a contiguous array; this one has strides "
                             f"{data.strides} for shape {data.shape}")
        if dtype is not None and np.dtype(dtype) != data.dtype:
            raise TypeError(f"dtype={np.dtype(dtype)} given for an array of {data.dtype}")
        if data.offset % data.dtype.itemsize:
            raise ValueError("the array's offset is not a whole number of elements")
        size = data.size
        n = size - offset if n is None else n
        if offset < 0 or n < 0 or offset + n > size:
            raise ValueError(f"elements [{offset}, {offset + n}) lie outside the array of {size}")
        if size == 0 or data.base_data is None:
            return 0, 0, n, data.dtype
        if not isinstance(data.base_data, cl.MemoryObjectHolder):
            raise TypeError("oclreduction reduces arrays in OpenCL buffers (not SVM)")
        return data.base_data.int_ptr, data.offset // data.dtype.itemsize + offset, n, data.dtype
    if not isinstance(data, cl.MemoryObjectHolder):
        raise TypeError(f"expected a pyopencl.array.Array or a pyopencl.Buffer, not "
                        f"{type(data).__name__}")
    if dtype is None:
        raise TypeError("a Buffer has no element type: pass dtype= (the type of its elements)")
    if n is None:
        raise ValueError("n is needed for a Buffer (the number of elements to reduce)")
    return data.int_ptr, offset, n, np.dtype(dtype)


def _event(done: Any) -> Any:
    """The pyopencl Event of a cl_event the library returned (owning it)."""
    if not done.value:
        raise RuntimeError("the library returned OCR_OK without an event")
    global _Event
    if _Event is None:
        from pyopencl import Event as _Event
    return _Event.from_int_ptr(done.value, retain=False)


_Event: Any = None  # pyopencl.Event, imported at the first event


def _events(events: Sequence[Any]) -> Tuple[Any, int]:
    """A ctypes array of the events' addresses (or None) and its length."""
    ptrs = [e.int_ptr for e in events if e is not None]
    if not ptrs:
        return None, 0
    return (ctypes.c_void_p * len(ptrs))(*ptrs), len(ptrs)


class Reducer:
    """reduce7 built once for (context, device, dtype, op), reused across calls,
    from any thread (each call takes the reducer's lock while it enqueues).

    dtype: the elements' type; acc_dtype: the type they are combined in and
    the result's (default dtype, or for the small types int8, uint8, int16,
    uint16 and float16 their accumulator int64, uint64 or float32, but dtype
    itself for argmin and argmax; a wider one
    where ocr_type_widens_to allows: int32 into int64, float32 into float64,
    ...). device: a Device of the
    context (default: its first). kernel_dir: read the kernels from there
    instead of the copies compiled into the library. local_size, groups,
    build_options, ignore_tuning: as in ocr_reducer_options (0 / None / False:
    chosen for the device, the tune cache's geometry where it has one).
    accurate: a compensated float or double sum (op "sum" only), within one
    ulp of the correctly rounded exact sum (ocr_reducer_options.accurate).
    """

    def __init__(self, context: Any, dtype: Any, op: str, device: Any = None,
                 kernel_dir: Optional[str] = None, local_size: int = 0, groups: int = 0,
                 build_options: Optional[str] = None, acc_dtype: Any = None,
                 ignore_tuning: bool = False, accurate: bool = False) -> None:
        self._r = ctypes.c_void_p()
        self._lock = threading.Lock()
        self.dtype = np.dtype(dtype)
        if op not in OPS:
            raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(OPS))
        # argmin and argmax compare the elements themselves, small types too
        self.acc_dtype = (np.dtype(acc_dtype) if acc_dtype is not None
                          else self.dtype if op in ("argmin", "argmax")
                          else accumulator(self.dtype))
        tin, tacc = type_of(self.dtype), type_of(self.acc_dtype)
        self.op = op
        self.accurate = bool(accurate)
        self.context = context
        self.device = device if device is not None else context.devices[0]
        opt = D.ocr_reducer_options(kernel_dir=kernel_dir.encode() if kernel_dir else None,
                                    local_size=local_size, groups=groups,
                                    build_options=build_options.encode() if build_options else None,
                                    ignore_tuning=int(bool(ignore_tuning)),
                                    accurate=int(bool(accurate)))
        opt.size = ctypes.sizeof(opt)  # the size rule of ocr_reducer.h
        st = lib.ocr_reducer_create_widening(context.int_ptr, self.device.int_ptr, tin, tacc,
                                             OPS[op], ctypes.byref(opt), ctypes.byref(self._r))
        if st != D.OCR_OK:
            raise OcrError(st, lib.ocr_reducer_last_error(None).decode(errors="replace"))

    def _fail(self, st: int) -> None:
        raise OcrError(st, lib.ocr_reducer_last_error(self._r).decode(errors="replace"))

    def _check(self, dtype: np.dtype) -> None:
        if self._r.value is None:
            raise ValueError("the reducer was released")
        if dtype != self.dtype:
            raise TypeError(f"the data are {dtype}; the reducer was built for {self.dtype}")

    def _result(self, result: Any, result_offset: int) -> Tuple[int, int]:
        """(buffer address, element) where the value of acc_dtype goes."""
        if result_offset < 0:
            raise ValueError(f"result_offset {result_offset} is negative")
        if not hasattr(result, "base_data"):  # a Buffer: the library checks its size
            return result.int_ptr, result_offset
        if result.dtype != self.acc_dtype or result.base_data is None:
            raise TypeError(f"the result array must hold {self.acc_dtype} (it holds "
                            f"{result.dtype})")
        if result.offset % result.dtype.itemsize or result_offset >= result.size:
            raise ValueError(f"element {result_offset} of the result array (offset "
                             f"{result.offset} bytes, {result.size} elements) is not one of its "
                             f"own")
        return result.base_data.int_ptr, result.offset // result.dtype.itemsize + result_offset

    def reduce_async(self, queue: Any, data: Any, result: Any, n: Optional[int] = None,
                     offset: int = 0, wait_for: Optional[Sequence[Any]] = None,
                     dtype: Any = None, result_offset: int = 0) -> Any:
        """Enqueues the reduction of `data` (an Array, all of it or n elements
        from offset, or n elements of a Buffer of dtype) after the events in
        wait_for and the array's own; the value (of acc_dtype) goes to element
        result_offset of `result` (an Array, from its own first element, or a
        Buffer) and nothing else of it is written. Returns the pyopencl.Event,
        also added to the arrays' events."""
        import pyopencl as cl
        buf, off, n, dt = _where(data, n, offset, dtype)
        self._check(dt)
        res, roff = self._result(result, result_offset)
        waits = list(getattr(data, "events", [])) + list(wait_for or [])
        wl, nw = _events(waits)
        done = ctypes.c_void_p()
        with self._lock:
            st = lib.ocr_reducer_reduce_into(self._r, queue.int_ptr, buf, off, n, res, roff, nw,
                                             wl, ctypes.byref(done))
            if st != D.OCR_OK:
                self._fail(st)
        ev = _event(done)
        for a in (result, data):  # a later write to either waits for the reduction
            if hasattr(a, "add_event"):
                a.add_event(ev)
        return ev

    def enqueue(self, queue: Any, buf: int, off: int, n: int, res: int, roff: int,
                waits: Sequence[Any], columns: int = 0, stride: int = 1) -> Any:
        """The raw call under reduce_async: n elements of dtype from element off
        of the cl_mem `buf` (an address) into element roff of `res`, after the
        pyopencl Events in waits; the event. columns > 0: n rows of that many
        columns, each column reduced into res[roff + j]
        (ocr_reducer_reduce_columns). stride > 1: the n elements off + i *
        stride, read in place (ocr_reducer_reduce_strided). The caller checked
        the sizes."""
        wl, nw = _events(waits)
        done = ctypes.c_void_p()
        with self._lock:
            if self._r.value is None:
                raise ValueError("the reducer was released")
            if columns:
                st = lib.ocr_reducer_reduce_columns(self._r, queue.int_ptr, buf, off, n, columns,
                                                    res, roff, nw, wl, ctypes.byref(done))
            elif stride != 1:
                st = lib.ocr_reducer_reduce_strided(self._r, queue.int_ptr, buf, off, n, stride,
                                                    res, roff, nw, wl, ctypes.byref(done))
            else:
                st = lib.ocr_reducer_reduce_into(self._r, queue.int_ptr, buf, off, n, res, roff,
                                                 nw, wl, ctypes.byref(done))
            if st != D.OCR_OK:
                self._fail(st)
        return _event(done)

    def _many(self, call: Any, queue: Any, data: Any, result: Any, count: int,
              wait_for: Optional[Sequence[Any]], extra: Sequence[Any] = ()) -> Any:
        """One of the library's many-values calls: `count` values of acc_dtype
        into result (an Array of at least count) after data's events and
        wait_for; the event, also added to the arrays'."""
        import pyopencl as cl
        buf, off, _n, dt = _where(data, None, 0, None)
        self._check(dt)
        if result.dtype != self.acc_dtype or result.size < count:
            raise TypeError(f"the result array must hold {count} values of {self.acc_dtype}")
        res, roff = self._result(result, 0)
        waits = [e for x in (data, *extra) for e in getattr(x, "events", [])]
        wl, nw = _events(waits + list(wait_for or []))
        done = ctypes.c_void_p()
        with self._lock:
            st = call(self._r, queue.int_ptr, buf, off, res, roff, nw, wl, ctypes.byref(done))
            if st != D.OCR_OK:
                self._fail(st)
        ev = _event(done)
        for a in (result, data, *extra):
            if hasattr(a, "add_event"):
                a.add_event(ev)
        return ev

    def reduce_axis_async(self, queue: Any, data: Any, result: Any, axis: int,
                          wait_for: Optional[Sequence[Any]] = None) -> Any:
        """A C-contiguous 2-D Array reduced along axis 1 (each row: rows values,
        ocr_reducer_reduce_rows) or axis 0 (each column, ocr_reducer_reduce_columns)
        into the Array result; returns the event."""
        rows, cols = data.shape
        fn = lib.ocr_reducer_reduce_rows if axis == 1 else lib.ocr_reducer_reduce_columns

        def call(r: Any, q: int, buf: int, off: int, res: int, roff: int, nw: int, wl: Any,
                 done: Any) -> int:
            return fn(r, q, buf, off, rows, cols, res, roff, nw, wl, done)
        return self._many(call, queue, data, result, rows if axis == 1 else cols, wait_for)

    def reduce_segments_async(self, queue: Any, data: Any, offsets: Any, result: Any,
                              wait_for: Optional[Sequence[Any]] = None) -> Any:
        """Segment j = data[offsets[j]:offsets[j+1]] (offsets: an Array of uint32
        or uint64, len(offsets) - 1 segments) reduced into result[j], in one
        call (ocr_reducer_reduce_segments); returns the event. Like the C call
        it does not read the offsets back to check their values (decreasing
        ones or ones past len(data) give wrong values, never a read outside
        data); oclreduction.segment_reduce checks them (ValueError). Offsets
        and result in the same memory: OcrError (USAGE)."""
        k = offsets.size - 1
        ot = {np.dtype(np.uint32): D.OCR_UINT, np.dtype(np.uint64): D.OCR_ULONG}.get(
            offsets.dtype)
        if ot is None or not offsets.flags.c_contiguous or offsets.ndim != 1 or k < 0:
            raise TypeError("offsets must be a contiguous 1-D Array of uint32 or uint64")
        if offsets.offset:
            raise ValueError("offsets must start at its buffer's first element")
        n = data.size

        def call(r: Any, q: int, buf: int, off: int, res: int, roff: int, nw: int, wl: Any,
                 done: Any) -> int:
            return lib.ocr_reducer_reduce_segments(r, q, buf, off, n, offsets.base_data.int_ptr,
                                                   ot, k, res, roff, nw, wl, done)
        return self._many(call, queue, data, result, k, wait_for, extra=(offsets,))

    def reduce(self, queue: Any, data: Any, n: Optional[int] = None, offset: int = 0,
               wait_for: Optional[Sequence[Any]] = None, dtype: Any = None) -> Any:
        """reduce_async, then the value as a NumPy scalar of acc_dtype (blocks);
        argmin and argmax: the index, an int64 (counted from offset)."""
        import pyopencl as cl
        arg = self.op in ("argmin", "argmax")
        # A buffer per call: two threads' values cannot meet in it. argmin and
        # argmax write a pair: the value's ordering key and the index.
        out = np.empty(2, np.uint64) if arg else np.empty(1, self.acc_dtype)
        host = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, out.nbytes)
        ev = self.reduce_async(queue, data, host, n, offset, wait_for, dtype)
        cl.enqueue_copy(queue, out, host, wait_for=[ev], is_blocking=True)
        return np.int64(out[1]) if arg else out[0]

    def value_now(self, queue: Any, buf: int, off: int, n: int) -> Any:
        """The raw blocking call (ocr_reducer_reduce): n elements of dtype from
        element off of the cl_mem `buf` (an address), as a NumPy scalar of
        acc_dtype, on the host when it returns. Nothing is waited for first:
        the caller has waited for the buffer's writers. Not for argmin/argmax."""
        v = D.ocr_value()
        with self._lock:
            if self._r.value is None:
                raise ValueError("the reducer was released")
            st = lib.ocr_reducer_reduce(self._r, queue.int_ptr, buf, off, n, ctypes.byref(v))
            if st != D.OCR_OK:
                self._fail(st)
        return self.acc_dtype.type(getattr(v, _VALUE_FIELD[self.acc_dtype]))

    def histogram(self, queue: Any, buf: Any, off: int, n: int, bins: int, counts: Any,
                  counts_off: int, waits: Sequence[Any], kind: str = "even",
                  lower: float = 0.0, upper: float = 1.0,
                  edges: Optional[Tuple[Any, int, Any]] = None,
                  weights: Optional[Tuple[Any, int, Any]] = None, count_bits: int = 0,
                  accumulate: bool = False, method: int = 0) -> Any:
        """The raw histogram call (ocr_reducer_histogram): n samples of dtype
        from element off of the Buffer buf into `bins` elements of the Buffer
        counts from counts_off, after the pyopencl Events in waits; the
        event. kind "even" (bins over [lower, upper]), "edges" (edges: a
        (Buffer, first element, float32 or float64) of bins + 1 ascending
        edges) or "bincount". weights: (Buffer, first element, float32 or
        float64) of n weights, summed per bin in that type (else counts of
        count_bits, 0 or 64: uint64, 32: uint32). The library checks the
        sizes, the overlaps and the context (OcrError, USAGE)."""
        s = D.ocr_histogram_spec(size=ctypes.sizeof(D.ocr_histogram_spec),
                                 kind=_HIST_KINDS[kind], bins=bins, lower=lower, upper=upper,
                                 count_bits=count_bits, accumulate=int(bool(accumulate)),
                                 method=method)
        if edges is not None:
            s.edges, s.edges_offset, s.edges_type = edges[0].int_ptr, edges[1], type_of(edges[2])
        if weights is not None:
            s.weights, s.weights_offset = weights[0].int_ptr, weights[1]
            s.weights_type = type_of(weights[2])
        wl, nw = _events(waits)
        done = ctypes.c_void_p()
        with self._lock:
            if self._r.value is None:
                raise ValueError("the reducer was released")
            st = lib.ocr_reducer_histogram(self._r, queue.int_ptr, buf.int_ptr, off, n,
                                           ctypes.byref(s), counts.int_ptr, counts_off, nw, wl,
                                           ctypes.byref(done))
            if st != D.OCR_OK:
                self._fail(st)
        return _event(done)

    def release(self) -> None:
        """Releases the kernels and scratch buffers now (else when collected)."""
        with self._lock:
            if self._r.value is not None:
                lib.ocr_reducer_release(self._r)
                self._r = ctypes.c_void_p()

    def __enter__(self) -> "Reducer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:
            pass


class CustomReducer(Reducer):
    """The library's custom reducer (ocr_reducer_create_custom) for
    (context, device): map over i < n of the arguments, combined by reduce
    from neutral, in acc_dtype. args: (name, dtype, is_buffer) in the
    kernel's order, each dtype one the library has (not float16). Raises
    OcrError where the library refuses the spec (USAGE) or the compiler its
    text (BUILD). local_size, groups, kernel_dir: as ocr_reducer_options'
    (0, None: the device's, the kernels compiled into the library)."""

    def __init__(self, context: Any, device: Any, acc_dtype: Any, neutral: str, reduce: str,
                 map: str, preamble: str, args: Sequence[Tuple[str, Any, bool]],
                 build_options: str = "", local_size: int = 0, groups: int = 0,
                 kernel_dir: Optional[str] = None) -> None:
        self._r = ctypes.c_void_p()
        self._lock = threading.Lock()
        self.context, self.device = context, device
        self.acc_dtype = self.dtype = np.dtype(acc_dtype)
        self.op = "custom"
        keep = [s.encode() for s in (neutral, reduce, map, preamble, build_options)]
        cargs = (D.ocr_custom_arg * max(len(args), 1))()
        for k, (name, dt, buf) in enumerate(args):
            keep.append(name.encode())
            cargs[k].name, cargs[k].type, cargs[k].is_buffer = keep[-1], type_of(dt), int(buf)
        spec = D.ocr_custom_spec(size=ctypes.sizeof(D.ocr_custom_spec),
                                 type=type_of(self.acc_dtype), neutral=keep[0],
                                 reduce=keep[1], map=keep[2], preamble=keep[3] or None,
                                 args=cargs, num_args=len(args))
        opt = D.ocr_reducer_options(size=ctypes.sizeof(D.ocr_reducer_options),
                                    local_size=local_size, groups=groups,
                                    build_options=keep[4] or None,
                                    kernel_dir=kernel_dir.encode() if kernel_dir else None)
        st = lib.ocr_reducer_create_custom(context.int_ptr, device.int_ptr, ctypes.byref(spec),
                                           ctypes.byref(opt), ctypes.byref(self._r))
        if st != D.OCR_OK:
            raise OcrError(st, lib.ocr_reducer_last_error(None).decode(errors="replace"))
        # Per argument: the ocr_value member a scalar goes in (None: a buffer).
        self._fields = [None if buf else _SCALAR_FIELD[(np.dtype(dt).kind,
                                                        np.dtype(dt).itemsize)]
                        for _name, dt, buf in args]
        self._values = (D.ocr_custom_value * max(len(args), 1))()

    def enqueue_custom(self, queue: Any, n: int, values: Sequence[Any], res: int, roff: int,
                       waits: Sequence[Any]) -> Any:
        """map(i), i < n, combined into element roff of the cl_mem `res` (an
        address), after the pyopencl Events in waits; the event. values, in
        the arguments' order: a buffer's (cl_mem address, first element), a
        scalar's value (of its dtype). The caller checked the sizes."""
        wl, nw = _events(waits)
        done = ctypes.c_void_p()
        with self._lock:
            if self._r.value is None:
                raise ValueError("the reducer was released")
            cv = self._values
            for k, (field, v) in enumerate(zip(self._fields, values)):
                if field is None:
                    cv[k].buf, cv[k].offset = v
                else:
                    setattr(cv[k].scalar, field, v)
            st = lib.ocr_reducer_reduce_custom_into(self._r, queue.int_ptr, n, cv, res, roff,
                                                    nw, wl, ctypes.byref(done))
            if st != D.OCR_OK:
                self._fail(st)
        return _event(done)


# The ocr_value member a scalar argument of (kind, size) is passed in.
_SCALAR_FIELD = {("i", 1): "i", ("i", 2): "i", ("i", 4): "i", ("i", 8): "l", ("u", 1): "u",
                 ("u", 2): "u", ("u", 4): "u", ("u", 8): "ul", ("f", 4): "f", ("f", 8): "d"}


def custom_finish(context: Any, device: Any, options: str) -> Tuple[int, int, str]:
    """The library's rule for a custom reduction finishing in one launch on
    (context, device) built with options (ocr_reducer_custom_finish): (mode
    for -DOCR_RK_FINISH, 0: two launches; the most groups it finishes; the
    -cl-std option it needs, or ""). OcrError where the query fails."""
    mode, most = ctypes.c_int(), ctypes.c_uint64()
    std = ctypes.create_string_buffer(32)
    st = lib.ocr_reducer_custom_finish(context.int_ptr, device.int_ptr,
                                       options.encode() or None, ctypes.byref(mode),
                                       ctypes.byref(most), std, len(std))
    if st != D.OCR_OK:
        raise OcrError(st, lib.ocr_reducer_last_error(None).decode(errors="replace"))
    return mode.value, most.value, std.value.decode()
