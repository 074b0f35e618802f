"""Custom reductions: ReductionKernel (PyOpenCL's interface, reduce7's shape;
its kernels are the template cl/custom.cl), and the spec cache of the functions built on it (_linalg: dot, vdot,
subset_dot, norm, count_nonzero; _stats: mean, var, std, stats).

A reduction is two launches: a first pass of a fixed number of work-groups
(the device's compute units x _GROUPS_PER_CU) whose work-items each accumulate
map_expr(i) over a grid-stride loop and then combine in one local-memory
tree per group, writing one partial per group; then one group reduces the
partials. Inputs of at most one group's size take the first pass alone.
"""
from __future__ import annotations

import builtins
import contextlib
import threading
import types
from typing import Any, ContextManager, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import DTypeLike

from . import _kernels, _spectext
from ._arrays import _NannyEvent, _empty_scalar
from ._cache import _built, _cached_object, _program
from ._typing import Array, Context, Events, Queue

__all__ = ["ReductionKernel"]

_WIDE = (np.dtype(np.float64), np.dtype(np.complex128))
# CustomReducer's arguments after the context and device.
_NativeSpec = Tuple[np.dtype, str, str, str, str, List[Tuple[str, np.dtype, bool]], str]


def _ctype(dt: np.dtype) -> str:
    from pyopencl.tools import dtype_to_ctype
    name: str = dtype_to_ctype(dt)
    return name


# First-pass groups per compute unit: 2048 work-items of a GPU's, as the C
# library's custom reducer (var of 2^28 float32 on an H200: 0.40 ms, with 4
# groups 0.51 ms; bench/results/custom/h200-2026-11-27-b/variants.txt).
_GROUPS_PER_CU = 8


def _blocked(device: Any) -> bool:
    """Whether device's work-items walk contiguous chunks (a CPU) rather
    than the GPU's coalesced grid stride. (The tests run both walks on a
    CPU by replacing this.)"""
    import pyopencl as cl
    return bool(device.type & cl.device_type.CPU)


class _Spec:
    """A reduction without its context: the text of its program and how its
    arguments are passed. Hashable through .key (the program cache's).

    A preamble may replace a work-item's walk with its own by defining
    OCR_RK_SEQ and its hooks (cl/custom.cl says how; cl/stats.cl does), for
    a reduction whose running state is cheaper than merging each element's
    mapped value (stats: shifted sums instead of a division per element)."""

    def __init__(self, acc: Any, neutral: str, reduce_expr: str, map_expr: str,
                 arguments: Any, name: str, options: Any, preamble: str,
                 res: Any = None, finish: str = "r") -> None:
        from pyopencl.tools import ScalarArg, VectorArg, parse_arg_list
        self.acc = np.dtype(acc)
        self.res = np.dtype(res) if res is not None else self.acc
        self.args = parse_arg_list(arguments, with_offset=False)
        for arg in self.args:
            if not isinstance(arg, (ScalarArg, VectorArg)):
                raise TypeError(f"argument {arg.name!r}: vectors and scalars only")
        self.vector = [isinstance(arg, VectorArg) for arg in self.args]
        self.name = name
        if options is None:
            options = []
        self.options = [options] if isinstance(options, str) else list(options)
        dts = [self.acc, self.res] + [np.dtype(arg.dtype) for arg in self.args]
        head = []
        if any(dt in _WIDE for dt in dts):
            head += ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
                     "#define PYOPENCL_DEFINE_CDOUBLE"]
        if any(dt.kind == "c" for dt in dts):
            head.append("#include <pyopencl-complex.h>")
        decls, binds = "", ""
        for arg, vec in zip(self.args, self.vector):
            ct = _ctype(arg.dtype)
            if vec:  # the pointer moved to the Array's offset (bytes) once
                # ocr_rk_p_ and ocr_rk_o_ prefixes: no name of the template's
                # (ocr_rk_out, ocr_rk_off, ...) whatever the argument's name.
                decls += f", __global {ct} *ocr_rk_p_{arg.name}, const ulong ocr_rk_o_{arg.name}"
                binds += (f"    __global {ct} *const {arg.name} = (__global {ct} *)((__global "
                          f"char *)ocr_rk_p_{arg.name} + ocr_rk_o_{arg.name});\n")
            else:
                decls += f", const {ct} {arg.name}"
        self.source = _kernels.fill(
            "custom.cl", HEAD="\n".join(head), PREAMBLE=preamble, ACC=_ctype(self.acc),
            RES=_ctype(self.res), REDUCE=reduce_expr, FINISH=finish, NAME=name, DECLS=decls,
            BINDS=binds, NEUTRAL=neutral, MAP=map_expr)
        self.key = ("custom", self.source, tuple(self.options))
        # Per argument, the NumPy type a scalar is converted to (None: a vector).
        self.scalar_types: List[Any] = [None if vec else np.dtype(arg.dtype).type
                             for arg, vec in zip(self.args, self.vector)]
        self.native: Optional[_NativeSpec] = None if finish != "r" else _native_spec(
            self.acc, self.res, neutral, reduce_expr, map_expr, self.args, self.vector,
            preamble, self.options)
        scalars: List[Any] = []
        for arg, vec in zip(self.args, self.vector):
            scalars += [None, np.uint64] if vec else [np.dtype(arg.dtype)]
        self.stage1_types = [None, np.uint64] + scalars + [np.int64, np.int64, np.uint64,
                                                            np.int32]
        self._local = threading.local()

    def group_size(self, device: Any) -> int:
        """The power of two a group has: at most 256 and the device's limit,
        its tree within half the local memory."""
        cap = builtins.min(256, device.max_work_group_size,
                           device.local_mem_size // (2 * self.acc.itemsize))
        return 1 << (builtins.max(cap, 1).bit_length() - 1)

    def kernels(self, where: Any, unit: bool = False) -> Tuple[Any, Any, int]:
        """(stage 1, stage 2, the group size) for where.context and
        where.device: the kernels of this thread (a Kernel's arguments are
        its own state), made once per thread from the program. unit: the
        program for calls whose indices start at 0 with step 1."""
        key = (where.context.int_ptr, where.device.int_ptr, unit)
        mine = getattr(self._local, "kernels", None)
        if mine is None:
            mine = self._local.kernels = {}
        got = mine.get(key)
        if got is None:
            import pyopencl as cl
            program, wg = self.program(where, unit)
            k1, k2 = (cl.Kernel(program, f"{self.name}_{s}") for s in ("stage1", "stage2"))
            k1.set_scalar_arg_dtypes(self.stage1_types)
            got = mine[key] = (k1, k2, wg)
        return got

    def program(self, where: Any, unit: bool = False) -> Tuple[Any, int]:
        """(the program, its group size) for where.context and where.device,
        built once (the package's program cache); a device whose kernels take
        fewer work-items rebuilds with that many. A CPU device walks in
        chunks (OCR_RK_BLOCKED)."""
        import pyopencl as cl
        wg = self.group_size(where.device)
        cpu = int(_blocked(where.device))
        for _ in range(3):
            program = _program(where, self.key + (where.device.int_ptr, wg, cpu, unit),
                               self.source, self.options + [
                                   f"-DOCR_RK_WG={wg}", f"-DOCR_RK_BLOCKED={cpu}",
                                   f"-DOCR_RK_UNIT={int(unit)}"])
            most = builtins.min(
                cl.Kernel(program, f"{self.name}_{s}").get_work_group_info(
                    cl.kernel_work_group_info.WORK_GROUP_SIZE, where.device)
                for s in ("stage1", "stage2"))
            if most >= wg:
                return program, wg
            wg = 1 << (most.bit_length() - 1)
        raise RuntimeError(f"{self.name}: no work-group size the device runs")


def _native_spec(acc: np.dtype, res: np.dtype, neutral: str, reduce_expr: str, map_expr: str,
                 args: Sequence[Any], vector: Sequence[bool], preamble: str,
                 options: Sequence[str]) -> Optional[_NativeSpec]:
    """The spec as the C library's custom reducer takes it (CustomReducer's
    arguments after the device's), or None where it cannot: a type the
    library lacks (complex, struct, bool, float16) or a preamble with
    preprocessor lines. The map goes into a function of the preamble whose
    i is a long, as in PyOpenCL's kernels (the library's is a ulong)."""
    from ._native import TYPES
    dts = [acc] + [np.dtype(a.dtype) for a in args]
    if res != acc or any(dt not in TYPES or dt.kind == "f" and dt.itemsize == 2 for dt in dts):
        return None
    if "#" in preamble or "%:" in preamble or "??" in preamble:
        return None
    params = "".join(f", __global const {_ctype(a.dtype)} *{a.name}" if vec
                     else f", const {_ctype(a.dtype)} {a.name}" for a, vec in zip(args, vector))
    helper = (f"{preamble}\ninline {_ctype(acc)} pyocr_map_(const long i{params}) "
              f"{{ return ({map_expr}); }}\n")
    call = "pyocr_map_((long)i" + "".join(f", {a.name}" for a in args) + ")"
    return (acc, neutral, reduce_expr, call, helper,
            [(a.name, np.dtype(a.dtype), vec) for a, vec in zip(args, vector)],
            " ".join(options))


# The library's work-group size for custom reducers (0: the device's own;
# the tests set 64 to run a GPU's walk on a CPU).
_NATIVE_LOCAL = 0


def _native(spec: _Spec, queue: Any, a: Any = None) -> Any:
    """spec's CustomReducer for the queue's context and device, or False
    where the library does not take it (then the package's own kernels
    run; they raise PyOpenCL's build error for text no compiler takes)."""
    if spec.native is None:
        return False
    native: _NativeSpec = spec.native  # (a closure does not see a narrowed Optional)

    def make(ctx: Any, dev: Any) -> Any:
        from ._native import CustomReducer, OcrError
        try:
            acc, neutral, reduce_expr, map_expr, preamble, args, options = native
            return CustomReducer(ctx, dev, acc, neutral, reduce_expr, map_expr, preamble, args,
                                 options, local_size=_NATIVE_LOCAL)
        except OcrError:
            return False
    return _cached_object(queue, a, ("custom", spec.key, _NATIVE_LOCAL), make)


def _run_native(spec: _Spec, args: Sequence[Any], queue: Any, n: int, waits: List[Any],
                out: Any, allocator: Any) -> Any:
    """The reduction as one call of the library's custom reducer: (result,
    event), or None where it does not apply (no elements, an Array
    argument shorter than n, an offset of part of an element)."""
    import pyopencl as cl
    if n == 0:
        return None
    r = _native(spec, queue, args[0] if spec.vector and spec.vector[0] else None)
    if r is False:
        return None
    values: List[Any] = []
    for a, st, vec in zip(args, spec.scalar_types, spec.vector):
        if vec:
            if a.size < n or not isinstance(a.base_data, cl.MemoryObjectHolder):
                return None
            at = _at(a)
            if at is None:
                return None
            values.append(at)
        else:
            values.append(_scalar_arg(st, a))
    if out is None:
        out = _empty_scalar(queue, spec.res, allocator)
    elif out.offset % spec.res.itemsize or any(
            vec and a.base_data.int_ptr == out.base_data.int_ptr
            for a, vec in zip(args, spec.vector)):
        # out= in memory the reduction reads: the library refuses a result
        # that may overlap its input; the package's kernels write it after
        # every read, as PyOpenCL's do.
        return None
    from ._native import OcrError
    try:
        ev = r.enqueue_custom(queue, n, values, out.base_data.int_ptr,
                              out.offset // spec.res.itemsize, waits)
    except OcrError as e:  # USAGE: a call it refuses (out= in a sub-buffer of an input)
        if e.status_name != "USAGE":
            raise
        return None
    return out, ev


def _at(a: Any) -> Optional[Tuple[int, int]]:
    """An Array argument as the library takes it: (its cl_mem address, its
    first element), or None where its offset is part of an element."""
    isz = a.dtype.itemsize
    return None if a.offset % isz else (a.base_data.int_ptr, a.offset // isz)


def _scalar_arg(st: Any, a: Any) -> Any:
    """A scalar argument's value for the library (a Python int or float) in
    the argument's type st: a NumPy scalar converted as NumPy does; a Python
    number checked as PyOpenCL's conversion does (an integer argument takes
    an integer within its type's range: else TypeError or OverflowError)."""
    if isinstance(a, np.generic) or np.dtype(st).kind == "f":
        return st(a).item()
    if not isinstance(a, int):
        raise TypeError(f"a {np.dtype(st)} argument takes an integer, not {a!r}")
    info = np.iinfo(st)
    if not info.min <= a <= info.max:
        raise OverflowError(f"{a} is out of the range of a {np.dtype(st)} argument")
    return a


def _run_hot(spec: _Spec, args: Sequence[Any], queue: Any, wait_for: Events) -> Any:
    """_run's common call in few steps (range, slice, out and allocator not
    given; every Array argument a contiguous buffer Array of whole elements,
    none shorter than the first; the library takes the spec): the result,
    or None where _run's general way applies (which also raises its
    errors). The same call as _run_native's."""
    if spec.native is None or len(args) != len(spec.args):
        return None
    if not _ARRAY:
        import pyopencl as cl
        import pyopencl.array as cla
        import pyopencl.tools as clt
        _ARRAY[:] = [cla.Array, (cl.Buffer, clt.PooledBuffer)]
    values: List[Any] = []
    waits: List[Any] = list(wait_for) if wait_for else []
    vectors: List[Any] = []
    n = -1
    for a, vec, st in zip(args, spec.vector, spec.scalar_types):
        if not vec:
            values.append(_scalar_arg(st, a))
            continue
        if type(a) is not _ARRAY[0] or type(a.base_data) not in _ARRAY[1]:
            return None
        at = _at(a)
        if at is None or not a.flags.forc:
            return None
        if n < 0:
            n = a.size
        elif a.size < n:
            return None
        values.append(at)
        waits.extend(a.events)
        vectors.append(a)
    if n <= 0:
        return None
    queue = queue if queue is not None else vectors[0].queue
    if queue is None:
        return None
    r = _built.get((queue.context.int_ptr, queue.device.int_ptr, "custom", spec.key,
                    _NATIVE_LOCAL))
    if not r:  # not built yet here (or the library refused): the general way
        return None
    out = _empty_scalar(queue, spec.res, vectors[0].allocator)
    ev = r.enqueue_custom(queue, n, values, out.base_data.int_ptr, 0, waits)
    out.events.append(ev)
    _retire(vectors, ev)
    return out


# (pyopencl.array.Array, the buffer types _run_hot takes), set at the first call.
_ARRAY: List[Any] = []


def _bounds(range_: Any, slice_: Any, first: Any) -> Tuple[int, int, int]:
    """(start, step, count) of the indices i the map runs over: range= in
    absolute indices, slice= relative to the first Array argument (PyOpenCL's
    meaning), else all of its elements."""
    if range_ is not None:
        if slice_ is not None:
            raise TypeError("may not specify both range and slice keyword arguments")
        if range_.stop is None:
            raise TypeError("range= needs a stop")
        start, step = range_.start or 0, range_.step or 1
        return start, step, len(builtins.range(start, range_.stop, step))
    if first is None:
        raise TypeError("must have a vector argument when range is not specified")
    start, stop, step = (slice_ or builtins.slice(None)).indices(first.size)
    return start, step, len(builtins.range(start, stop, step))


def _check_reach(spec: _Spec, args: Sequence[Any], start: int, step: int, n: int,
                 absolute: bool) -> None:
    """Raise ValueError where an index i the map runs over lies outside an
    Array argument the spec indexes with i (spec.sized; default: all of
    them; a ReductionKernel's: those its map reads as name[i]): PyOpenCL
    reads past the buffer there and returns garbage."""
    if n == 0:
        return
    last = start + step * (n - 1)
    lo, hi = builtins.min(start, last), builtins.max(start, last)
    if lo < 0:
        raise ValueError(f"range= starts below index 0 (index {lo})")
    sized = getattr(spec, "sized", spec.vector)
    for k, (a, vec) in enumerate(zip(args, sized)):
        if vec and hi >= a.size:
            what = "range= reaches" if absolute else "the first Array argument's indices reach"
            raise ValueError(f"{what} index {hi}, but Array argument {k + 1} "
                             f"({spec.args[k].name}) has {a.size} elements")


def _retire(vectors: Sequence[Any], ev: Any) -> None:
    """ev, which completes after every event of the vectors' that the
    reduction waited for, replaces those in their .events (as sum does: a
    later writer waits for ev alone; a NannyEvent stays, as it guards a host
    copy)."""
    seen = set()
    for v in vectors:
        if id(v) not in seen:
            seen.add(id(v))
            v.events[:] = [e for e in v.events if isinstance(e, _NannyEvent)] + [ev]


class _Partials:
    """A queue's buffer for the first pass's partials, kept between calls:
    releasing one per call while its kernels were pending blocked the host
    on NVIDIA's OpenCL until they ended (var of 2^28 float32 called back to
    back on an H200: 0.42-0.45 ms a call against 0.25 ms with it kept).
    Taking it adds no wait: on an in-order queue the last call's passes run
    before this call's anyway; on an out-of-order queue it is taken only
    once they have ended (or failed), else the call makes its own, so a call
    blocked on an event, or one that failed, holds up no other. last: the
    last pass enqueued on the buffer (a pending one keeps its queue, so the
    handle is not reused meanwhile)."""
    __slots__ = ("lock", "buf", "last")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buf: Any = None
        self.last: Any = None

    def idle(self) -> bool:
        """Whether no pass enqueued on the buffer is pending; under self.lock."""
        if self.last is not None and self.last.command_execution_status <= 0:
            self.last = None  # complete (0) or failed (< 0)
        return self.last is None

    def take(self, queue: Any, nbytes: int) -> Any:
        """The buffer, at least nbytes (grown when short), or None where a
        pass this call would not follow may still use it; under self.lock."""
        import pyopencl as cl
        if not self.idle() and (
                queue.properties & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE):
            return None
        if self.buf is None or self.buf.size < nbytes:
            self.buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE,
                                 builtins.max(nbytes, 2 * (self.buf.size if self.buf else 0)))
        return self.buf


class _PartialsOfDevice:
    """The _Partials of a (context, device), one per queue handle, at most
    _QUEUES: a new queue past them drops those no pass uses (queues gone,
    most often), or else allocates its partials per call."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.queues: Dict[int, _Partials] = {}

    def get(self, queue: Any) -> Optional[_Partials]:
        got = self.queues.get(queue.int_ptr)
        if got is None:
            with self.lock:
                if len(self.queues) >= _QUEUES:
                    self._sweep()
                if len(self.queues) >= _QUEUES:
                    return None
                got = self.queues.setdefault(queue.int_ptr, _Partials())
        return got

    def _sweep(self) -> None:
        """Drops the idle entries (not one a call holds); under self.lock."""
        for key, p in list(self.queues.items()):
            if p.lock.acquire(blocking=False):
                try:
                    if p.idle():
                        del self.queues[key]
                finally:
                    p.lock.release()


_QUEUES = 16


def _partials(queue: Any, first: Any) -> Optional[_Partials]:
    """queue's kept partials (None: allocate them for this call)."""
    got = _cached_object(queue, first, ("partials",), lambda ctx, dev: _PartialsOfDevice())
    return got.get(queue) if got else None


def _two_passes(spec: _Spec, queue: Any, kernels: Tuple[Any, Any, int], groups: int,
                out: Any, args: List[Any], waits: List[Any], allocator: Any,
                first: Any) -> Any:
    """Enqueues the first pass (groups partials, then args) after waits and
    the second into out; its event. The partials are the queue's kept
    buffer where it is free (allocator None), else made for this call."""
    import pyopencl as cl
    import pyopencl.array as cla
    k1, k2, wg = kernels
    kept = _partials(queue, first) if allocator is None else None
    guard: ContextManager[Any] = contextlib.nullcontext()
    if kept is not None:
        guard = kept.lock
    with guard:
        part = kept.take(queue, groups * spec.acc.itemsize) if kept is not None else None
        if part is None:
            kept = None
            part = cla.empty(queue, (groups,), spec.acc, allocator=allocator).base_data
        ev = k1(queue, (groups * wg,), (wg,), part, np.uint64(0), *args, np.int32(0),
                wait_for=waits or None)
        if kept is not None:  # the first pass counts should the second fail to enqueue
            kept.last = ev
        k2.set_args(out.base_data, np.uint64(out.offset), part, np.uint64(groups))
        ev = cl.enqueue_nd_range_kernel(queue, k2, (wg,), (wg,), wait_for=[ev])
        if kept is not None:
            kept.last = ev
    return ev


def _run(spec: _Spec, args: Sequence[Any], queue: Any = None, wait_for: Events = None,
         return_event: bool = False, range: Any = None, slice: Any = None, out: Any = None,
         allocator: Any = None) -> Any:
    """spec's reduction of args: a 0-d Array of spec.res (out, if given)."""
    if range is None and slice is None and out is None and allocator is None and (
            not return_event):
        got = _run_hot(spec, args, queue, wait_for)
        if got is not None:
            return got
    import pyopencl as cl
    import pyopencl.array as cla
    if len(args) != len(spec.args):
        raise TypeError(f"{spec.name} takes {len(spec.args)} arguments, not {len(args)}")
    vectors = [a for a, vec in zip(args, spec.vector) if vec]
    first = vectors[0] if vectors else None
    queue = queue if queue is not None else getattr(first, "queue", None)
    if queue is None:
        raise TypeError("must specify queue argument when no vector argument present")
    if allocator is None and first is not None:
        allocator = first.allocator
    start, step, n = _bounds(range, slice, first)
    waits = list(wait_for or [])
    call: List[Any] = []
    for a, vec in zip(args, spec.vector):
        if not vec:
            call.append(a)
            continue
        if not isinstance(a, cla.Array) or not (
                a.base_data is None or isinstance(a.base_data, cl.MemoryObjectHolder)):
            raise TypeError(f"{spec.name}: vector arguments are buffer pyopencl Arrays")
        if not a.flags.forc:
            raise RuntimeError(f"{spec.name} cannot deal with non-contiguous arrays "
                               f"(an argument has strides {a.strides} for shape {a.shape}; "
                               "pass a contiguous copy)")
        call += [a.base_data, np.uint64(a.offset)]  # an empty Array's: NULL, never read
        waits.extend(a.events)
    _check_reach(spec, args, start, step, n, range is not None)
    if out is not None and (out.size != 1 or out.dtype != spec.res):
        raise TypeError(f"out= takes one element of {spec.res}")
    done = _run_native(spec, args, queue, n, waits, out, allocator) if (
        start == 0 and step == 1) else None
    if done is not None:
        out, ev = done
        out.add_event(ev)
        _retire(vectors, ev)
        return (out, ev) if return_event else out
    k1, k2, wg = spec.kernels(queue, start == 0 and step == 1)
    if out is None:
        out = cla.empty(queue, (), spec.res, allocator=allocator)
    # Up to 32 elements a work-item, one group and one launch: a second launch
    # and its buffer cost more than the walk (at 2^10 on POCL, 0.7x PyOpenCL).
    groups = 1 if n <= 32 * wg else builtins.min(-(-n // wg),
                                                  _GROUPS_PER_CU * queue.device.max_compute_units)
    tail = [np.int64(start), np.int64(step), np.uint64(n)]
    if groups == 1:
        ev = k1(queue, (wg,), (wg,), out.base_data, np.uint64(out.offset), *call, *tail,
                np.int32(1), wait_for=waits or None)
    else:  # partials, then one group over them
        ev = _two_passes(spec, queue, (k1, k2, wg), groups, out, call + tail, waits,
                         allocator, first)
    out.add_event(ev)
    _retire(vectors, ev)
    return (out, ev) if return_event else out


def _renamed(arguments: Any, texts: List[str]) -> Tuple[Any, List[str]]:
    """Arguments named ocr_rk_* (the template's namespace; PyOpenCL accepts
    them) renamed ocr_rku_*, in the argument list and as words of the
    caller's texts (outside comments and literals the spec has none that
    matter: its checks refuse '#' tricks), so that they build."""
    from pyopencl.tools import parse_arg_list
    import copy
    import re
    args = parse_arg_list(arguments, with_offset=False)
    names = {a.name for a in args}
    moved = {}
    for a in args:
        if a.name.startswith("ocr_rk_"):
            new = "ocr_rku_" + a.name[len("ocr_rk_"):]
            if new in names:
                raise ValueError(f"arguments {a.name} and {new}: rename one (the package "
                                 f"passes {a.name} as {new})")
            moved[a.name] = new
    if not moved:
        return arguments, texts
    word = re.compile(r"\b(" + "|".join(map(re.escape, moved)) + r")\b")
    out = []
    for a in args:
        if a.name in moved:
            a = copy.copy(a)
            a.name = moved[a.name]
        out.append(a)
    return out, [word.sub(lambda m: moved[m.group(1)], t) for t in texts]


class ReductionKernel:
    """A reduction of map_expr over the indices i of its Array arguments,
    combined with reduce_expr (of a and b) from neutral, as PyOpenCL's
    pyopencl.reduction.ReductionKernel (the same arguments and call):

        krnl = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
                               map_expr="x[i]*y[i]",
                               arguments="__global float *x, __global float *y")
        d = krnl(x, y)          # a 0-d Array of dtype_out on the device

    arguments: a C argument list or pyopencl.tools VectorArg/ScalarArg
    objects; map_expr defaults to "in[i]"; neutral, reduce_expr and
    map_expr are OpenCL C text (complex dtypes: pyopencl-complex.h is
    included; double types enable cl_khr_fp64); preamble comes before
    the kernels; options go to Program.build. The program is built when the
    kernel is made (for ctx's first device, others on first use) and kept in
    the package's cache per (context, device, text). reduce_expr must be
    associative and commutative (the order of combination is not the
    elements'). Empty inputs give neutral.

    The call krnl(*args, queue=None, wait_for=None, return_event=False,
    range=None, slice=None, out=None, allocator=None) waits for wait_for
    and every Array argument's .events, and adds its last event to the
    result's and to each Array argument's .events (replacing the ones it
    waited for). range=: a slice of absolute indices; slice=: a slice of
    the first Array argument's indices; out=: a one-element Array of
    dtype_out to write; return_event=True returns (result, event). Array
    arguments must be contiguous buffer Arrays (their offsets are honoured).
    """

    def __init__(self, ctx: Context, dtype_out: DTypeLike, neutral: str, reduce_expr: str,
                 map_expr: Optional[str] = None, arguments: Optional[Union[str, Sequence[Any]]]
                 = None, name: str = "reduce_kernel", options: Any = None,
                 preamble: str = "") -> None:
        if arguments is None:
            raise ValueError("arguments must not be None")
        for what, text in (("preamble", preamble), ("map_expr", map_expr or ""),
                           ("reduce_expr", reduce_expr), ("neutral", neutral)):
            _spectext.check(what, text)
        self.context = ctx
        self.dtype_out = np.dtype(dtype_out)
        map_expr = map_expr if map_expr is not None else "in[i]"
        arguments, texts = _renamed(arguments, [neutral, reduce_expr, map_expr, preamble])
        neutral, reduce_expr, map_expr, preamble = texts
        self._spec = _Spec(self.dtype_out, neutral, reduce_expr, map_expr, arguments, name,
                           options, preamble)
        # The Array arguments the map reads as name[i] must cover the range
        # (else PyOpenCL reads past them); others (a table, y[0]) may be shorter.
        import re
        self._spec.sized = [  # type: ignore[attr-defined]
            vec and re.search(r"\b" + re.escape(a.name) + r"\s*\[\s*i\s*\]", map_expr) is not None
            for a, vec in zip(self._spec.args, self._spec.vector)]
        _spectext.check_options(self._spec.options)
        # Built now, so that a bad expression fails here with the compiler's
        # log: the library's kernel, or where it does not take the spec, the
        # package's own.
        where = types.SimpleNamespace(context=ctx, device=ctx.devices[0])
        if _native(self._spec, where) is False:
            self._spec.program(where)

    def __call__(self, *args: Any, queue: Optional[Queue] = None, wait_for: Events = None,
                 return_event: bool = False, range: Optional[builtins.slice] = None,
                 slice: Optional[builtins.slice] = None, out: Optional[Array] = None,
                 allocator: Any = None) -> Any:
        return _run(self._spec, args, queue, wait_for, return_event, range, slice, out,
                    allocator)


# ---- the specs of the package's own functions --------------------------------

_specs: Dict[tuple, _Spec] = {}  # context-free: the programs are cached per context
_specs_lock = threading.Lock()


def _spec(key: tuple, make: Any) -> _Spec:
    spec = _specs.get(key)
    if spec is None:
        with _specs_lock:
            spec = _specs.setdefault(key, make())
    return spec
