"""Custom reductions: ReductionKernel (PyOpenCL's interface, reduce7's shape),
and the spec cache of the functions built on it (_linalg: dot, vdot,
subset_dot, norm, count_nonzero; _stats: mean, var, std, stats).

A spec runs as the C library's custom reducer where the library takes it
(_native_spec), else as the package's build of the same kernel file, the
library's cl/custom.cl, after a prelude made here (_prelude: the contract
at the top of custom.cl). Its first pass runs a fixed number of work-groups
(the device's compute units x _GROUPS_PER_CU) whose work-items each
accumulate map_expr(i) and then combine in one local-memory tree per group;
the last group to finish combines the groups' values in the same launch
where the library's rule allows it (_finish_rule: ocr_reducer_custom_finish),
else one group does in a second launch. Inputs of at most 32 elements a
work-item take one group and one launch.
"""
from __future__ import annotations

import builtins
import contextlib
import threading
import types
from typing import (Any, ContextManager, Dict, List, NamedTuple, Optional, Sequence,
                    Tuple, Union)

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
        self.source = _prelude(head, preamble, self.acc, self.res, neutral, reduce_expr,
                               map_expr, finish, self.args, self.vector) + _kernels.source(
                                   "custom.cl")
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
        # the caller's parameters (OCR_RK_PARAMS): theirs, then start and step
        self.params_types = scalars + [np.int64, np.int64]
        self._local = threading.local()

    def group_size(self, device: Any) -> int:
        """The power of two a group has: at most 256 and the device's limit,
        its tree within half the local memory."""
        cap = builtins.min(256, device.max_work_group_size,
                           device.local_mem_size // (2 * self.acc.itemsize))
        return 1 << (builtins.max(cap, 1).bit_length() - 1)

    def kernels(self, where: Any, unit: bool = False) -> "_Kernels":
        """cl/custom.cl's kernels for where.context and where.device: those
        of this thread (a Kernel's arguments are its own state), made once
        per thread from the program. unit: the program for calls whose
        indices start at 0 with step 1."""
        key = (where.context.int_ptr, where.device.int_ptr, unit)
        mine = getattr(self._local, "kernels", None)
        if mine is None:
            mine = self._local.kernels = {}
        got = mine.get(key)
        if got is None:
            import pyopencl as cl
            program, wg, finish = self.program(where, unit)
            first, final = cl.Kernel(program, "ocr_rk_first"), cl.Kernel(program, "ocr_rk_final")
            first.set_scalar_arg_dtypes([np.uint64, None, np.uint64] + self.params_types)
            final.set_scalar_arg_dtypes([None, np.uint64, None, np.uint64])
            last = None
            if finish[0]:
                last = cl.Kernel(program, "ocr_rk_first_finish")
                last.set_scalar_arg_dtypes([np.uint64, None, np.uint64, None, None]
                                           + self.params_types)
            got = mine[key] = _Kernels(first, final, last, wg, finish[1] if last else 0)
        return got

    def program(self, where: Any, unit: bool = False) -> Tuple[Any, int, Tuple[int, int]]:
        """(the program, its group size, (its finish mode, the most groups it
        finishes in one launch)) for where.context and where.device, built
        once (the package's program cache); a device whose kernels take fewer
        work-items rebuilds with that many. A CPU device walks in chunks
        (OCR_RK_BLOCKED). The one-launch finish where the C library's rule
        allows it (_finish_rule), else (or where the spec's text does not
        build with it) two launches, as the library's reducer decides."""
        import pyopencl as cl
        wg = self.group_size(where.device)
        cpu = int(_blocked(where.device))
        mode, most_groups, std = _finish_rule(where, self.options)
        for _ in range(4):
            finish = [f"-DOCR_RK_FINISH={mode}"] + ([std] if std else []) if mode else []
            try:
                program = _program(where, self.key + (where.device.int_ptr, wg, cpu, unit, mode),
                                   self.source, self.options + [
                                       f"-DOCR_RK_LOCAL_SIZE={wg}", f"-DOCR_RK_BLOCKED={cpu}",
                                       f"-DOCR_RK_UNIT={int(unit)}"] + finish)
            except cl.RuntimeError:
                if not mode:
                    raise
                mode = 0  # the spec's text under the finish's -cl-std: as it is
                continue
            names = ["ocr_rk_first", "ocr_rk_final"] + (["ocr_rk_first_finish"] if mode else [])
            most = builtins.min(cl.Kernel(program, k).get_work_group_info(
                cl.kernel_work_group_info.WORK_GROUP_SIZE, where.device) for k in names)
            if most >= wg:
                return program, wg, (mode, most_groups)
            wg = 1 << (most.bit_length() - 1)
        raise RuntimeError(f"{self.name}: no work-group size the device runs")


class _Kernels(NamedTuple):
    """A _Spec's kernels on one device, for one thread."""
    first: Any  # ocr_rk_first: one partial per group (one group: the result)
    final: Any  # ocr_rk_final: the partials into the result
    finish: Any  # ocr_rk_first_finish (one launch), or None
    wg: int  # the group size
    most_groups: int  # the most groups finish takes (0: none)


def _prelude(head: Sequence[str], preamble: str, acc: np.dtype, res: np.dtype, neutral: str,
             reduce_expr: str, map_expr: str, finish: str, args: Sequence[Any],
             vector: Sequence[bool]) -> str:
    """The prelude cl/custom.cl is built after (the contract at its top, as
    the C library's ocr_custom_prelude makes it), for a spec the library
    does not take: the caller's text in the bodies of inline functions, the
    optional hooks for a result type of its own (OCR_RK_RESULT), start and
    step of the indices (OCR_RK_I) and the names of the arguments in a
    walk of the preamble's own (OCR_RK_BIND)."""
    params, map_params, map_args, forward, bind = [], [], [], [], []
    for k, (arg, vec) in enumerate(zip(args, vector)):
        ct = _ctype(arg.dtype)
        if vec:  # a buffer and its offset in bytes
            at = f"(__global {ct} *)((__global char *)ocr_rk_p{k} + ocr_rk_o{k})"
            params.append(f"__global {ct} *ocr_rk_p{k}, const ulong ocr_rk_o{k}")
            map_params.append(f"__global {ct} *{arg.name}")
            forward.append(f"ocr_rk_p{k}, ocr_rk_o{k}")
            bind.append(f"__global {ct} *const {arg.name} = {at};")
        else:
            at = f"ocr_rk_p{k}"
            params.append(f"const {ct} ocr_rk_p{k}")
            map_params.append(f"const {ct} {arg.name}")
            forward.append(at)
            bind.append(f"const {ct} {arg.name} = {at};")
        map_args.append(at)
    params.append("const long ocr_rk_start, const long ocr_rk_step")
    map_params.append("const long ocr_rk_start, const long ocr_rk_step")
    map_args.append("ocr_rk_start, ocr_rk_step")
    forward.append("ocr_rk_start, ocr_rk_step")
    lines = ["/* the prelude of a ReductionKernel (oclreduction/_custom.py) */", *head,
             preamble, f"typedef {_ctype(acc)} ocr_rk_acc;"]
    if res != acc or finish != "r":
        lines += ["#define OCR_RK_RESULT 1", f"typedef {_ctype(res)} ocr_rk_res;",
                  f"static ocr_rk_res ocr_rk_finish(ocr_rk_acc r) {{ return ({finish}); }}"]
    lines += [
        f"static ocr_rk_acc ocr_rk_neutral(void) {{ ocr_rk_acc ocr_rk_v = {neutral}; "
        f"return ocr_rk_v; }}",
        f"static ocr_rk_acc ocr_rk_reduce(ocr_rk_acc a, ocr_rk_acc b) {{ return ({reduce_expr}); }}",
        "#if OCR_RK_UNIT", "#define OCR_RK_I(k) ((long)(k))", "#else",
        "#define OCR_RK_I(k) (ocr_rk_start + (long)(k) * ocr_rk_step)", "#endif",
        f"static ocr_rk_acc ocr_rk_map(const ulong ocr_rk_k, {', '.join(map_params)}) {{",
        f"    const long i = OCR_RK_I(ocr_rk_k); return ({map_expr}); }}",
        f"#define OCR_RK_PARAMS {', '.join(params)}",
        f"#define OCR_RK_ARGS {', '.join(map_args)}",
        f"#define OCR_RK_FORWARD {', '.join(forward)}",
        f"#define OCR_RK_BIND {' '.join(bind)}", ""]
    return "\n".join(lines)


# (context, device, options) -> the C library's finish rule (_finish_rule).
_rules: Dict[tuple, Tuple[int, int, str]] = {}


def _finish_rule(where: Any, options: Sequence[str]) -> Tuple[int, int, str]:
    """(mode, the most groups, the -cl-std option) of the one-launch finish
    on where.device with options: the C library's rule
    (ocr_reducer_custom_finish), never a copy of it; (0, 0, "") where the
    library is missing or the query fails (two launches)."""
    key = (where.context.int_ptr, where.device.int_ptr, tuple(options))
    got = _rules.get(key)
    if got is None:
        got = (0, 0, "")
        try:
            from ._native import custom_finish
            got = custom_finish(where.context, where.device, " ".join(options))
        except (ImportError, RuntimeError):
            pass
        _rules[key] = got
    return got


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
    __slots__ = ("lock", "buf", "last", "_ticket")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buf: Any = None
        self.last: Any = None
        self._ticket: Any = None

    def ticket(self, queue: Any) -> Any:
        """The one-launch finish's ticket, zeroed once (each finish leaves it
        zero; the calls that take it follow one another, as the partials');
        under self.lock."""
        if self._ticket is None:
            self._ticket = _zeroed_ticket(queue)
        return self._ticket

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


def _launch(queue: Any, kernel: Any, groups: int, wg: int, args: Sequence[Any],
            waits: Optional[List[Any]]) -> Any:
    """Enqueues kernel with args over groups groups of wg work-items: every
    launch of the template goes through here (the tests count them)."""
    return kernel(queue, (groups * wg,), (wg,), *args, wait_for=waits or None)


def _zeroed_ticket(queue: Any) -> Any:
    """A one-launch finish's ticket: a zeroed uint (each finish leaves it zero)."""
    import pyopencl as cl
    return cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                     hostbuf=np.zeros(1, np.uint32))


def _groups_pass(spec: _Spec, queue: Any, ks: "_Kernels", groups: int, out: Any, off: int,
                 params: List[Any], waits: List[Any], allocator: Any, first: Any) -> Any:
    """Enqueues the reduction over groups > 1 groups after waits into element
    off of out: one launch where the finish takes that many groups (the C
    library's rule), else the first pass into partials and the second; its
    event. The partials (and the finish's ticket) are the queue's kept ones
    where they are free (allocator None), else made for this call."""
    import pyopencl.array as cla
    n = params[-1]
    kept = _partials(queue, first) if allocator is None else None
    guard: ContextManager[Any] = contextlib.nullcontext()
    if kept is not None:
        guard = kept.lock
    with guard:
        part = kept.take(queue, groups * spec.acc.itemsize) if kept is not None else None
        if part is None:
            kept = None
            part = cla.empty(queue, (groups,), spec.acc, allocator=allocator).base_data
        if ks.finish is not None and groups <= ks.most_groups:
            ticket = kept.ticket(queue) if kept is not None else _zeroed_ticket(queue)
            ev = _launch(queue, ks.finish, groups, ks.wg,
                         [n, out.base_data, np.uint64(off), ticket, part, *params[:-1]], waits)
        else:
            ev = _launch(queue, ks.first, groups, ks.wg, [n, part, np.uint64(0), *params[:-1]],
                         waits)
            if kept is not None:  # the first pass counts should the second fail to enqueue
                kept.last = ev
            ev = _launch(queue, ks.final, 1, ks.wg,
                         [part, np.uint64(groups), out.base_data, np.uint64(off)], [ev])
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
    ks = spec.kernels(queue, start == 0 and step == 1)
    if out is None:
        out = cla.empty(queue, (), spec.res, allocator=allocator)
    # Up to 32 elements a work-item, one group and one launch: more groups
    # and their partials cost more than the walk (at 2^10 on POCL, 0.7x PyOpenCL).
    groups = 1 if n <= 32 * ks.wg else builtins.min(
        -(-n // ks.wg), _GROUPS_PER_CU * queue.device.max_compute_units)
    # the kernels write element off of a result of spec.res: out itself where
    # its offset is whole elements, else a scalar copied into it
    off, part_of = divmod(out.offset, spec.res.itemsize)
    into = out if not part_of else _empty_scalar(queue, spec.res, allocator)
    off = off if not part_of else 0
    params = call + [np.int64(start), np.int64(step), np.uint64(n)]
    if groups == 1:  # the one group writes the finished result
        ev = _launch(queue, ks.first, 1, ks.wg,
                     [np.uint64(n), into.base_data, np.uint64(off), *params[:-1]], waits)
    else:
        ev = _groups_pass(spec, queue, ks, groups, into, off, params, waits, allocator, first)
    if part_of:
        import pyopencl as cl
        ev = cl.enqueue_copy(queue, out.base_data, into.base_data, byte_count=spec.res.itemsize,
                             dst_offset=out.offset, wait_for=[ev])
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
            # a plain attribute at run time; PyPI's typed PyOpenCL declares
            # it a read-only property
            setattr(a, "name", moved[a.name])
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
