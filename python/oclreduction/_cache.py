"""The per-context cache of the package: the library's reducers (Reducer,
CustomReducer) and the package's small helper programs, one per (context,
device, key), built on first use and dropped with the context."""
from __future__ import annotations

import atexit
import builtins
import threading
import weakref
from typing import Any, Dict, Sequence

import numpy as np

from ._native import Reducer

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


def clear_cache() -> None:
    """Drops every cached reducer (each is released once no call uses it)."""
    with _cache_lock:
        _built.clear()
        _cache.clear()


# The cache's reducers are released when the interpreter exits, before the
# OpenCL runtime's own exit handlers and PyOpenCL's objects go (atexit runs
# last registered first), rather than from module teardown in any order.
atexit.register(clear_cache)
