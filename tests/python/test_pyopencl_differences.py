"""docs/python.md's "Switching from PyOpenCL": its snippet runs, and each row
of its table of differences holds, run side by side through pyopencl.array
and oclreduction on drawn data. PyOpenCL's side is checked on the version
the table describes (2022.3); on another only the package's side is. Where
PyOpenCL reads past an argument, the argument is a view of a larger array,
so its kernel reads the larger array's own elements (a defined, wrong
value), never memory outside a buffer."""
import os
import re

import numpy as np
import pyopencl
import pyopencl.array as cla
import pyopencl.reduction
import pytest

import oclreduction as ocr

RNG = np.random.default_rng(2022)
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python.md")
THEIRS = tuple(pyopencl.VERSION[:2]) == (2022, 3)  # the version the table describes


def _section():
    text = open(DOC, encoding="utf-8").read()
    start = text.index("## Switching from PyOpenCL")
    return text[start:text.index("\n## ", start + 3)]


def _raises(f, kind=Exception):
    try:
        f()
    except kind as e:
        return e
    return None


def test_snippet_runs(monkeypatch):
    code = re.search(r"```python\n(.*?)```", _section(), re.S).group(1)
    for name in ("sum", "min", "max", "dot", "vdot", "subset_dot", "subset_min", "subset_max",
                 "any", "all"):
        monkeypatch.setattr(cla, name, getattr(cla, name))  # restored after the test
    monkeypatch.setattr(pyopencl.reduction, "ReductionKernel", pyopencl.reduction.ReductionKernel)
    exec(compile(code, "docs/python.md", "exec"), {})
    assert cla.sum is ocr.sum and pyopencl.reduction.ReductionKernel is ocr.ReductionKernel


def test_table_names_every_function_without_counterpart():
    row = [ln for ln in _section().splitlines() if ln.startswith("| no counterpart")][0]
    named = set(re.findall(r"`([a-z_]+)(?:/[a-z/]+)?`", row))
    named |= {"bitwise_or", "bitwise_xor"}  # bitwise_and/or/xor
    public = {n for n in ocr.__all__ if n[0].islower() and n not in ("version", "dtypes",
                                                                     "clear_cache", "widens_to")}
    theirs = {n for n in dir(cla) if not n.startswith("_")}
    assert public - theirs - {"ReductionKernel"} <= named | {"Stats"}
    # every one named lacks a counterpart (sum, min, max: named for their keywords)
    assert not (named & theirs) - {"sum", "min", "max"}


def test_small_integer_sums(queue):
    n = int(RNG.integers(130, 400))
    a = cla.to_device(queue, np.ones(n, np.int8))
    assert ocr.sum(a).get()[()] == n and ocr.sum(a).dtype == np.int64
    if THEIRS:
        got = cla.sum(a).get()[()]
        assert got.dtype == np.int8 and got == np.int8(n - 256)


@pytest.mark.parametrize("dtype", [np.float16, np.bool_])
def test_float16_and_bool_sums(queue, dtype):
    x = RNG.integers(0, 2, 1000).astype(dtype)
    a = cla.to_device(queue, x)
    got = ocr.sum(a).get()[()]
    assert got == x.astype(np.float64).sum()
    assert ocr.sum(a).dtype == (np.float32 if dtype == np.float16 else np.int64)
    if THEIRS:
        assert "unable to map dtype" in str(_raises(lambda: cla.sum(a), ValueError))


@pytest.mark.parametrize("view", [np.s_[::-1], np.s_[::3]])
def test_views(queue, view):
    x = RNG.integers(-50, 50, 997).astype(np.float64)
    a = cla.to_device(queue, x)
    assert ocr.sum(a[view]).get()[()] == x[view].sum()
    assert ocr.min(a[view]).get()[()] == x[view].min()
    e = _raises(lambda: ocr.dot(a[view], a[view]), ValueError)
    assert isinstance(e, RuntimeError) and "strides" in str(e) and "dot" in str(e)
    if THEIRS:
        assert isinstance(_raises(lambda: cla.sum(a[view])), RuntimeError)
        assert isinstance(_raises(lambda: cla.dot(a[view], a[view])), RuntimeError)


def test_lengths_checked_where_pyopencl_reads_past(queue):
    n = int(RNG.integers(200, 1000))
    big = RNG.integers(-9, 10, 4 * n).astype(np.float64)
    x = RNG.integers(-9, 10, n).astype(np.float64)
    b, a = cla.to_device(queue, big), cla.to_device(queue, x)
    short = b[:n // 3]
    assert "not aligned" in str(_raises(lambda: ocr.dot(a, short), ValueError))
    k = ocr.ReductionKernel(queue.context, np.float64, "0", "a+b", "x[i]*y[i]",
                            "__global double *x, __global double *y")
    assert _raises(lambda: k(a, short), ValueError)
    assert _raises(lambda: k(b[:n], b[:n], range=slice(0, 2 * n)), ValueError)
    if THEIRS:  # the view's neighbours read: a wrong value, no error
        assert cla.dot(a, short).get()[()] == np.dot(x, big[:n])
        pk = pyopencl.reduction.ReductionKernel(queue.context, np.float64, "0", "a+b",
                                                "x[i]*y[i]",
                                                "__global double *x, __global double *y")
        assert pk(a, short).get()[()] == np.dot(x, big[:n])
        assert pk(b[:n], b[:n], range=slice(0, 2 * n)).get()[()] == np.dot(big[:2 * n],
                                                                           big[:2 * n])


def test_subset_indices(queue):
    n = int(RNG.integers(200, 1000))
    big = RNG.random(4 * n)
    b = cla.to_device(queue, big)
    view = b[n:2 * n]  # PyOpenCL reads big[n + j] for any j
    j = int(RNG.integers(n, 2 * n))
    s = cla.to_device(queue, np.array([0, j, -1], np.int32))
    for f in (lambda: ocr.subset_dot(s, view, view), lambda: ocr.subset_min(s, view),
              lambda: ocr.subset_max(s, view)):
        assert _raises(f, IndexError)
    if THEIRS:
        picked = big[[n, n + j, n - 1]]
        assert cla.subset_dot(s, view, view).get()[()] == pytest.approx(np.dot(picked, picked))
        assert cla.subset_max(s, view).get()[()] == picked.max()


def test_subset_min_max_nan_and_empty(queue):
    x = RNG.random(100)
    x[int(RNG.integers(0, 100))] = np.nan
    k = int(np.flatnonzero(np.isnan(x))[0])
    a = cla.to_device(queue, x)
    s = cla.to_device(queue, np.array([k, (k + 1) % 100], np.int32))
    assert np.isnan(ocr.subset_min(s, a).get()[()]) and np.isnan(ocr.subset_max(s, a).get()[()])
    empty = cla.to_device(queue, np.zeros(0, np.int32))
    assert "zero-size" in str(_raises(lambda: ocr.subset_min(empty, a), ValueError))
    if THEIRS:
        assert cla.subset_min(s, a).get()[()] == x[(k + 1) % 100]
        assert cla.subset_min(empty, a).get()[()] == np.inf


def test_any_all_complex_and_empty_min(queue):
    x = np.zeros(50, np.complex128)
    x[int(RNG.integers(0, 50))] = 1j
    a = cla.to_device(queue, x)
    assert ocr.any(a).get()[()] == 1 and ocr.all(a).get()[()] == 0
    e = cla.to_device(queue, np.zeros(0, np.float32))
    assert "reduction operation min" in str(_raises(lambda: ocr.min(e), ValueError))
    if THEIRS:
        assert _raises(lambda: cla.any(a)) is not None
        assert "reduction 'min'" in str(_raises(lambda: cla.min(e), ValueError))


def test_the_same_in_both(queue):
    x = RNG.integers(2**28, 2**30, 64).astype(np.int32)
    a = cla.to_device(queue, x)
    want = x.sum(dtype=np.int32)
    assert ocr.sum(a).get()[()] == want and ocr.sum(a).dtype == np.int32
    y = RNG.integers(-3, 4, 100).astype(np.float32)
    f = cla.to_device(queue, y)
    assert ocr.any(f).dtype == np.int8 and ocr.any(f).get()[()] == int(np.any(y))
    i8 = RNG.integers(-100, 100, 300).astype(np.int8)
    d = cla.to_device(queue, i8)
    with np.errstate(over="ignore"):
        assert ocr.dot(d, d).get()[()] == np.dot(i8, i8)
    if THEIRS:
        assert cla.sum(a).get()[()] == want and cla.sum(a).dtype == np.int32
        assert cla.any(f).dtype == np.int8
        assert cla.dot(d, d).get()[()] == np.dot(i8, i8)
