"""oclreduction: reduce PyOpenCL arrays and buffers with the oclreduction library.

A thin ctypes layer over liboclreduction.so's reducer (<oclreduction/ocr_reducer.h>):
it works on PyOpenCL's own context, queue and buffers, so nothing is copied.

    import pyopencl as cl, pyopencl.array as cla, numpy as np
    import oclreduction
    ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
    a = cla.to_device(q, np.arange(1000, dtype=np.int32))
    oclreduction.reduce(q, a, "sum")            # 499500, as a NumPy scalar

    r = oclreduction.Reducer(ctx, np.float32, "max")   # build once, reuse
    r.reduce(q, a_float)                        # blocking
    ev = r.reduce_async(q, a_float, out_buf)    # the value stays on the device

Types: int32, uint32, int64, uint64, float32, float64 (if the device has
fp64). Operators: sum, prod, min, max, and, or, xor (the last three for
integers). Errors raise OcrError carrying the library's status (the constants
below, as ocr_status in <oclreduction/ocr.h>), its name and the message; the
library prints nothing.

The library is found through $OCLREDUCTION_LIBRARY (a path to the .so), else
the system's search (ctypes.util.find_library("oclreduction")).
"""

import ctypes
import ctypes.util
import os

import numpy as np

# The library's ocr_status values (<oclreduction/ocr.h>); not exit codes.
OK, WRONG, USAGE, RUNTIME, OPENCL, NO_DEVICE, BUILD, NO_MEMORY, TOO_LARGE, IO = range(10)

__all__ = ["OcrError", "Reducer", "reduce", "version", "OK", "WRONG", "USAGE", "RUNTIME",
           "OPENCL", "NO_DEVICE", "BUILD", "NO_MEMORY", "TOO_LARGE", "IO"]

_TYPES = {
    np.dtype(np.int32): 0,
    np.dtype(np.uint32): 1,
    np.dtype(np.int64): 2,
    np.dtype(np.uint64): 3,
    np.dtype(np.float32): 4,
    np.dtype(np.float64): 5,
}
_OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "and": 4, "or": 5, "xor": 6}


class OcrError(RuntimeError):
    """A failed call: .status is the library's ocr_status (USAGE, BUILD, IO, ...),
    .status_name its name as ocr_status_name() gives it, .message the library's."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = _library().ocr_status_name(status).decode()
        self.message = message
        super().__init__(f"{message} ({self.status_name})")


class _Options(ctypes.Structure):
    _fields_ = [
        ("kernel_dir", ctypes.c_char_p),
        ("local_size", ctypes.c_size_t),
        ("groups", ctypes.c_size_t),
        ("build_options", ctypes.c_char_p),
        ("ignore_tuning", ctypes.c_int),
    ]


def _load():
    path = os.environ.get("OCLREDUCTION_LIBRARY") or ctypes.util.find_library("oclreduction")
    if not path:
        raise OSError("liboclreduction not found: set OCLREDUCTION_LIBRARY to the path of "
                      "liboclreduction.so (built by the project's CMake build)")
    lib = ctypes.CDLL(path)
    vp, st = ctypes.c_void_p, ctypes.c_int
    lib.ocr_version.restype = ctypes.c_char_p
    lib.ocr_version.argtypes = []
    lib.ocr_reducer_create.restype = st
    lib.ocr_reducer_create.argtypes = [vp, vp, ctypes.c_int, ctypes.c_int,
                                       ctypes.POINTER(_Options), ctypes.POINTER(vp)]
    lib.ocr_reducer_reduce.restype = st
    lib.ocr_reducer_reduce.argtypes = [vp, vp, vp, ctypes.c_size_t, ctypes.c_uint64,
                                       ctypes.POINTER(ctypes.c_uint64)]
    lib.ocr_reducer_reduce_async.restype = st
    lib.ocr_reducer_reduce_async.argtypes = [vp, vp, vp, ctypes.c_size_t, ctypes.c_uint64, vp,
                                             ctypes.c_uint, ctypes.POINTER(vp),
                                             ctypes.POINTER(vp)]
    lib.ocr_status_name.restype = ctypes.c_char_p
    lib.ocr_status_name.argtypes = [ctypes.c_int]
    lib.ocr_reducer_last_error.restype = ctypes.c_char_p
    lib.ocr_reducer_last_error.argtypes = [vp]
    lib.ocr_reducer_release.restype = None
    lib.ocr_reducer_release.argtypes = [vp]
    return lib


_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def version():
    """The library's version string."""
    return _library().ocr_version().decode()


def _where(data, n, offset):
    """(buffer handle, offset in elements, n, dtype or None) of an array or a Buffer."""
    # An Array's .data refuses arrays with an offset: base_data is the buffer.
    if hasattr(data, "base_data") and hasattr(data, "dtype"):
        if not data.flags.forc:
            raise ValueError("the array must be contiguous")
        if data.offset % data.dtype.itemsize:
            raise ValueError("the array's offset is not a whole number of elements")
        base = data.offset // data.dtype.itemsize
        size = data.size
        if n is None:
            n = size - offset
        if offset < 0 or n < 0 or offset + n > size:
            raise ValueError(f"elements [{offset}, {offset + n}) lie outside the array of {size}")
        return data.base_data.int_ptr, base + offset, n, data.dtype
    if n is None:
        raise ValueError("n is needed for a Buffer (the number of elements to reduce)")
    return data.int_ptr, offset, n, None


class Reducer:
    """reduce7 built once for (context, device, dtype, op); reused across calls.

    device: a pyopencl.Device of the context (default: its first).
    kernel_dir: read the kernels from this directory instead of the copies
    compiled into the library. local_size, groups, build_options,
    ignore_tuning: as in ocr_reducer_options (0 / None / False: chosen for the
    device, the tune cache's geometry where it has one).
    """

    def __init__(self, context, dtype, op, device=None, kernel_dir=None, local_size=0, groups=0,
                 build_options=None, ignore_tuning=False):
        lib = _library()
        self._lib = lib
        self._r = ctypes.c_void_p()
        self.dtype = np.dtype(dtype)
        if self.dtype not in _TYPES:
            raise TypeError(f"unsupported dtype {self.dtype}: one of "
                            + ", ".join(str(t) for t in _TYPES))
        if op not in _OPS:
            raise ValueError(f"unknown operator {op!r}: one of " + ", ".join(_OPS))
        self.op = op
        self.context = context
        self.device = device if device is not None else context.devices[0]
        opt = _Options(kernel_dir.encode() if kernel_dir else None, local_size, groups,
                       build_options.encode() if build_options else None, int(ignore_tuning))
        st = lib.ocr_reducer_create(context.int_ptr, self.device.int_ptr, _TYPES[self.dtype],
                                    _OPS[op], ctypes.byref(opt), ctypes.byref(self._r))
        if st != 0:
            raise OcrError(st, lib.ocr_reducer_last_error(None).decode(errors="replace"))

    def _fail(self, st):
        msg = self._lib.ocr_reducer_last_error(self._r).decode(errors="replace")
        raise OcrError(st, msg)

    def _check(self, dtype):
        if self._r.value is None:
            raise ValueError("the reducer was released")
        if dtype is not None and dtype != self.dtype:
            raise TypeError(f"the data are {dtype}; the reducer was built for {self.dtype}")

    def reduce(self, queue, data, n=None, offset=0):
        """Reduces a pyopencl.array.Array (all of it, or n elements from offset) or
        n elements of a Buffer; blocks and returns a NumPy scalar."""
        buf, off, n, dtype = _where(data, n, offset)
        self._check(dtype)
        out = ctypes.c_uint64(0)
        st = self._lib.ocr_reducer_reduce(self._r, queue.int_ptr, buf, off, n, ctypes.byref(out))
        if st != 0:
            self._fail(st)
        return np.frombuffer(bytes(out), dtype=self.dtype, count=1)[0]

    def reduce_async(self, queue, data, result, n=None, offset=0, wait_for=None):
        """Enqueues the reduction; the value is written to element 0 of `result`
        (a Buffer or an Array of one element or more) once the events in wait_for
        have completed. Returns a pyopencl.Event."""
        import pyopencl as cl

        buf, off, n, dtype = _where(data, n, offset)
        self._check(dtype)
        res = result.base_data.int_ptr if hasattr(result, "base_data") else result.int_ptr
        if hasattr(result, "offset") and result.offset:
            raise ValueError("the result array must start at its buffer's start")
        waits = list(wait_for or [])
        wl = (ctypes.c_void_p * max(len(waits), 1))(*[e.int_ptr for e in waits])
        done = ctypes.c_void_p()
        st = self._lib.ocr_reducer_reduce_async(self._r, queue.int_ptr, buf, off, n, res,
                                                len(waits), wl if waits else None,
                                                ctypes.byref(done))
        if st != 0:
            self._fail(st)
        return cl.Event.from_int_ptr(done.value, retain=False)

    def release(self):
        if self._r.value is not None:
            self._lib.ocr_reducer_release(self._r)
            self._r = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass


_cache = {}


def reduce(queue, array, op="sum"):
    """Reduces a whole pyopencl.array.Array with `op`; the reducer for its
    (context, device, dtype, op) is built on the first call and kept."""
    key = (queue.context.int_ptr, queue.device.int_ptr, np.dtype(array.dtype), op)
    r = _cache.get(key)
    if r is None:
        r = _cache[key] = Reducer(queue.context, array.dtype, op, device=queue.device)
    return r.reduce(queue, array)
