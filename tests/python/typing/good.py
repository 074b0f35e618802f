"""A consumer the type checker must accept: every public call as docs/python.md
shows it, with the types it returns used as such."""
from typing import List

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction as ocr


def use(q: cl.CommandQueue, a: cla.Array, events: List[cl.Event]) -> float:
    s: cla.Array = ocr.sum(a, np.float64, q, slice(0, 10, 2), 0.0, wait_for=events, accurate=True)
    m = ocr.min(a, q, 1.5, dtype=np.float32, axis=(0, 1))
    ocr.max(a, None, axis=None)
    ocr.prod(a, "float64", axis=-1)
    ocr.bitwise_xor(a, np.uint32, axis=0)
    i = ocr.argmin(a, q, events, axis=1)
    v = ocr.value(a, "bitwise_or", dtype=np.int64, initial=3)
    w = ocr.reduce(q, a, "argmax")
    seg = ocr.segment_reduce(a, np.array([0, 4, 9]), "max", dtype=np.float32)
    kinds = ocr.dtypes()
    return float(s.get()) + float(m.get()) + float(i.get()) + float(v) + float(w) + \
        float(seg.size) + len(kinds) + len(ocr.version())


def use_custom(ctx: cl.Context, q: cl.CommandQueue, a: cla.Array, b: cla.Array) -> float:
    k = ocr.ReductionKernel(ctx, np.float32, "0", "a+b", "x[i]*y[i]",
                            "__global float *x, __global float *y", preamble="")
    r: cla.Array = k(a, b, queue=q, wait_for=None, range=slice(0, 5))
    d = ocr.dot(a, b, np.float64, q, slice(1, None))
    v = ocr.vdot(a, b)
    s = ocr.subset_dot(a, a, b)
    n = ocr.norm(a, 1)
    c = ocr.count_nonzero(a, q)
    return float(r.get()) + float(d.get()) + float(v.get()) + float(s.get()) + \
        float(n.get()) + float(c.get())


def use_stats(q: cl.CommandQueue, a: cla.Array, events: List[cl.Event]) -> float:
    st: ocr.Stats = ocr.stats(a, 1, np.float64, q, events, minmax=True)
    m: cla.Array = ocr.mean(a, np.float32, q, wait_for=events)
    v = ocr.var(a, ddof=1, axis=None)
    s = ocr.std(a, 0.5, "float64")
    lo = st.argmin if st.argmin is not None else -1
    return float(st.mean) + st.count + lo + float(m.get()) + float(v.get()) + float(s.get())


def use_histogram(q: cl.CommandQueue, a: cla.Array, w: cla.Array,
                  events: List[cl.Event]) -> float:
    h, e = ocr.histogram(a, 16, (0.0, 1.5), w, False, queue=q, wait_for=events)
    d: cla.Array = ocr.histogram(a, [0, 0.5, 2], density=True)[0]
    n = ocr.histogram(a, np.linspace(0, 1, 5), range=None)[0]
    c: cla.Array = ocr.bincount(a, w, minlength=np.int64(3), queue=q, wait_for=None)
    return float(h.get().sum()) + e.size + d.size + n.size + c.size
