"""Strided and reversed 1-D views (a[::k], a[::-k], a[s:e:k]) and slice= with
a step, reduced in place by ocr_reducer_reduce_strided: every dtype the
package reduces (bool and complex too), every operator, against NumPy on
data drawn from a seed whose reductions are exact in any order; argmin and
argmax of views with a positive step; and proof that no copy is made (no
buffer of the view's size is allocated, no gather program is built), where
a conversion (dtype= a type the library cannot combine in) still copies."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr

from conftest import has_fp64

FUNCS = {"sum": (ocr.sum, np.add), "prod": (ocr.prod, np.multiply),
         "min": (ocr.min, np.minimum), "max": (ocr.max, np.maximum),
         "bitwise_and": (ocr.bitwise_and, np.bitwise_and),
         "bitwise_or": (ocr.bitwise_or, np.bitwise_or),
         "bitwise_xor": (ocr.bitwise_xor, np.bitwise_xor)}
N = 20011
# 1, 2, 3, 64, 65, 1025 elements and more; forward, reversed, from inside
VIEWS = [slice(None, None, 2), slice(None, None, -1), slice(None, None, 3),
         slice(None, None, -7), slice(5, None, 64), slice(-2, None, -1000), slice(3, 4, 5),
         slice(10, 5, -4), slice(7, 13, 3), slice(1, 193, 3), slice(-1, -196, -3),
         slice(9, 9 + 2 * 1025, 2), slice(4, None, 1000)]


def _data(dtype, name, n, seed):
    """n values whose reduction is exact in any order: integers (wrapping
    alike everywhere; odd ones for products), quarters of small integers
    (floats), +-1 with a few 2s and halves (float products), random floats
    (min, max)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind == "c":
        return (rng.integers(-40, 40, n) / 4 + 1j * (rng.integers(-40, 40, n) / 4)).astype(dt)
    if dt.kind == "f":
        if name == "sum":
            return (rng.integers(-40, 40, n) / 4).astype(dt)
        if name == "prod":
            x = rng.choice([1.0, -1.0], n)
            at = rng.permutation(n)[:8]
            x[at[:4]] *= 2.0
            x[at[4:]] *= 0.5
            return x.astype(dt)
        return rng.standard_normal(n).astype(dt)
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return x | dt.type(1) if name == "prod" else x


def _want(name, x, out):
    """NumPy's reduction of the view x, in the result's dtype where it wraps."""
    ufunc = FUNCS[name][1]
    if name in ("sum", "prod"):
        return ufunc.reduce(x.astype(out), dtype=out)
    return ufunc.reduce(x)


def _dtypes():
    return [np.dtype(t) for t in ocr.dtypes()] + [np.dtype(np.bool_)]


@pytest.mark.parametrize("dtype", _dtypes(), ids=str)
def test_views_vs_numpy(queue, dtype):
    if dtype == np.float64 and not has_fp64(queue):
        pytest.skip("no float64 on this device")
    for name, (ours, _) in FUNCS.items():
        if name.startswith("bitwise") and dtype.kind == "f":
            continue
        x = _data(dtype, name, N, seed=len(name) * 101 + dtype.itemsize)
        a = cla.to_device(queue, x)
        for v in VIEWS:
            got = ours(a[v])
            want = _want(name, x[v], got.dtype)
            assert got.get()[()] == want, (name, v, got.get()[()], want)
            if name in ("sum", "prod") or name.startswith("bitwise"):
                got = ours(a, slice=v)
                assert got.get()[()] == _want(name, x[v], got.dtype), (name, "slice=", v)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.int8, np.float16], ids=str)
def test_long_views(queue, dtype):
    """2^20 + 13 elements, steps 2, 3 and -7, and every offset of the first
    element modulo 4."""
    n = (1 << 20) + 13
    x = _data(dtype, "sum", 7 * n + 4, seed=11)
    if np.dtype(dtype).kind == "f":
        x = np.round(x).astype(dtype)  # integers: exact in float32 at this length
    a = cla.to_device(queue, x)
    for v in (slice(0, 2 * n, 2), slice(3, 3 + 3 * n, 3), slice(7 * n + 1, 1, -7),
              slice(2, None, 7)):
        got = ocr.sum(a[v])
        assert got.get()[()] == _want("sum", x[v], got.dtype), v
        assert ocr.max(a[v]).get()[()] == x[v].max(), v


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_complex_views(queue, dtype):
    """Complex sums of views: their real and their imaginary parts, each a
    strided view of the parts, in place."""
    if dtype == np.complex128 and not has_fp64(queue):
        pytest.skip("no float64 on this device")
    x = _data(dtype, "sum", N, seed=3)
    a = cla.to_device(queue, x)
    for v in VIEWS:
        got = ocr.sum(a[v])
        assert got.dtype == dtype and got.get()[()] == x[v].sum(), v
        assert ocr.sum(a, slice=v).get()[()] == x[v].sum(), v


def test_conversions_still_convert(queue):
    """dtype= a type the library does not combine the data in: each element
    converted (a copy), then reduced, as NumPy and PyOpenCL."""
    x = (np.random.default_rng(5).integers(-1000, 1000, N) / 8).astype(np.float64)
    a = cla.to_device(queue, x)
    for v in (slice(None, None, 3), slice(None, None, -5)):
        got = ocr.sum(a[v], dtype=np.float32)
        assert got.dtype == np.float32 and got.get()[()] == x[v].astype(np.float32).sum()
        assert ocr.sum(a, np.int64, None, v).get()[()] == x[v].astype(np.int64).sum()


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8, np.float16], ids=str)
def test_arg_of_views(queue, name, dtype):
    """argmin/argmax of a view with a positive step: the index in the view,
    the first of ties (small integers: many); a reversed view (through a
    C-order copy: its first tie is the last in memory) as NumPy too."""
    rng = np.random.default_rng(9)
    x = rng.integers(-50, 50, N).astype(dtype) if np.dtype(dtype).kind != "u" \
        else rng.integers(0, 100, N).astype(dtype)
    a = cla.to_device(queue, x)
    f, g = getattr(ocr, name), getattr(np, name)
    for v in (slice(None, None, 2), slice(5, None, 7), slice(3, 20000, 1000), slice(1, 2, 9)):
        assert f(a[v]).get()[()] == g(x[v]), v
    for v in (slice(None, None, -2), slice(9000, 3, -7)):
        assert f(a[v]).get()[()] == g(x[v]), v


class _Counting:
    """A PyOpenCL allocator that records the size of every buffer it makes."""

    def __init__(self, context):
        self.context, self.sizes = context, []

    def __call__(self, size):
        self.sizes.append(size)
        return cl.Buffer(self.context, cl.mem_flags.READ_WRITE, max(size, 1))


def _gathers():
    """The package's gather programs built so far (its copies of views)."""
    return [k for e in list(ocr._cache._cache.values()) for k in list(e.slots)
            if k and k[0] == "gather" and e.slots[k].program is not None]


def test_no_copy_is_made(queue):
    """A view is reduced by the strided call alone: the only buffer allocated
    is the result's (a few bytes, not the view's n elements), no gather
    program is built, and the result's one event is the reduction's. The same
    checks see the copy where a conversion makes one."""
    ocr.clear_cache()
    alloc = _Counting(queue.context)
    x = (np.arange(3 * N) % 97).astype(np.float32)  # sums exact in float32
    a = cla.to_device(queue, x, allocator=alloc)
    b = cla.to_device(queue, x.astype(np.complex64), allocator=alloc)
    alloc.sizes.clear()
    for v in (slice(None, None, 3), slice(None, None, -2), slice(7, None, 1000)):
        for f in (ocr.sum, ocr.max, ocr.min):
            got = f(a[v])
            assert len(got.events) == 1 and got.get()[()] == _want(f.__name__, x[v], got.dtype)
        assert ocr.sum(a, slice=v).get()[()] == x[v].sum()
        assert ocr.sum(b[v]).get()[()] == x[v].sum()
        assert ocr.argmax(a[::abs(v.step)]).get()[()] == np.argmax(x[::abs(v.step)])
    assert alloc.sizes and max(alloc.sizes) <= 16, alloc.sizes
    assert not _gathers()
    got = ocr.sum(a[::3], dtype=np.int32)  # a conversion: the one copy there is
    assert got.get()[()] == x[::3].astype(np.int32).sum(dtype=np.int32)
    assert max(alloc.sizes) >= N * 4 and _gathers()
