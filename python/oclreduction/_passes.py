"""The small device passes around the library's reductions, each a kernel of
cl/: narrow (one value converted after the reduction), gather (a view or a
conversion copied into a contiguous array) and last_zero (the zero a float
min or max returns, and initial= combined as NumPy's loop)."""
from __future__ import annotations

from typing import Any, Dict, Sequence

import numpy as np

from . import _kernels, _nd
from ._arrays import _NoValue, _alloc, _empty_scalar
from ._cache import _program, _program_slot

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

def _narrow(queue: Any, result: Any, back: np.dtype, allocator: Any) -> Any:
    """result (a 0-d Array of the accumulator) as a 0-d Array of back, its
    events completing once the value is there."""
    import pyopencl as cl
    out_name = _CL[back]
    opts = [f"-DACC={_CL[result.dtype]}", f"-DOUT={_UNSIGNED.get(out_name, out_name)}",
            f"-DHALF={int(back.kind == 'f')}"]
    program = _program(queue, ("narrow", queue.device.int_ptr, result.dtype, back),
                       _kernels.source("narrow.cl"), opts)
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
    program = _program(queue, ("gather", queue.device.int_ptr, src, dst),
                       _kernels.source("gather.cl"), opts)
    dv, sv = _nd.vectors(dims, steps)
    out = cla.empty(queue, (n,), dst, allocator=_alloc(a))
    knl = cl.Kernel(program, "gather")
    knl.set_args(a.base_data, np.int64(first), np.int32(len(dims)), dv, sv, out.base_data,
                 np.uint64(out.offset // dst.itemsize), np.uint64(n))
    ev = cl.enqueue_nd_range_kernel(queue, knl, (n,), None, wait_for=list(waits) or None)
    out.add_event(ev)
    a.add_event(ev)
    return out


# (dtype, "min" or "max") -> whether NumPy's reduction keeps the last of
# equal values (else the first), asked of NumPy itself.
_MIN_MAX: Dict[str, np.ufunc] = {"min": np.minimum, "max": np.maximum}
_ZERO_KEEPS_LAST = {
    (np.dtype(t), op): bool(np.signbit(_MIN_MAX[op].reduce(np.array([0.0, -0.0], t))))
    for t in (np.float16, np.float32, np.float64) for op in ("min", "max")}


def _last_zero(queue: Any, op: str, buf: Any, read: np.dtype, first: int, n: int, step: int,
               result: Any, initial: Any) -> Any:
    """Enqueues cl/last_zero.cl's pass of min or max over n elements of `read`
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
                         _kernels.source("last_zero.cl"), opts, "last_zero")
    knl = cl.Kernel(slot.program, "last_zero")
    init = acc.type(0 if initial is _NoValue else initial)
    knl.set_args(buf, np.int64(first), np.int64(step), np.uint64(n), result.base_data,
                 np.uint64(result.offset // acc.itemsize), np.int32(initial is not _NoValue),
                 init)
    ev = cl.enqueue_nd_range_kernel(queue, knl, (slot.size,), (slot.size,),
                                    wait_for=result.events)
    result.events[:] = [ev]
    return ev
