"""sum/prod/min/max/...(a, axis=) on N-d arrays (any axis or tuple of axes),
argmin/argmax(axis=) and segment_reduce
against NumPy. The data are small integers (also as floats), so every order
of operations gives the same value and the comparisons are exact."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest
from conftest import has_fp64

import oclreduction as ocr

SHAPES = [(1, 1), (1, 1001), (1001, 1), (37, 1001), (1001, 37), (2000, 3)]
NP = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max,
      "bitwise_and": np.bitwise_and.reduce, "bitwise_or": np.bitwise_or.reduce,
      "bitwise_xor": np.bitwise_xor.reduce}


def data(shape, dtype, op, seed=1):
    rng = np.random.default_rng(seed)
    if op == "prod":  # +-1: products exact in any order, every sign counts
        return rng.choice([-1, 1], size=shape).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)


def fp64_or_skip(queue, dtype):
    if np.dtype(dtype) == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sum_axis_equals_numpy(queue, dtype, shape, axis):
    fp64_or_skip(queue, dtype)
    x = data(shape, dtype, "sum")
    got = ocr.sum(cla.to_device(queue, x), axis=axis)
    want = np.sum(x, axis=axis, dtype=dtype)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    assert got.events, "the result's events hold the reduction's"


@pytest.mark.parametrize("op", ["prod", "min", "max", "bitwise_xor", "bitwise_and"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
def test_other_operators(queue, op, dtype, axis):
    fp64_or_skip(queue, dtype)
    if op.startswith("bitwise") and np.dtype(dtype).kind == "f":
        pytest.skip("bitwise on floats")
    x = data((129, 67), dtype, op, seed=3)
    got = getattr(ocr, op)(cla.to_device(queue, x), axis=axis).get()
    np.testing.assert_array_equal(got, NP[op](x, axis=axis).astype(dtype))


def test_fortran_order_and_wider_dtype(queue):
    x = np.asfortranarray(data((300, 7), np.int32, "sum"))
    a = cla.to_device(queue, x)
    assert a.flags.f_contiguous and not a.flags.c_contiguous
    for axis in (0, 1):
        got = ocr.sum(a, dtype=np.int64, axis=axis).get()
        np.testing.assert_array_equal(got, np.sum(x, axis=axis, dtype=np.int64))


def test_empty_axes(queue):
    x = np.zeros((0, 5), np.int32)
    a = cla.to_device(queue, x)
    np.testing.assert_array_equal(ocr.sum(a, axis=0).get(), np.zeros(5, np.int32))
    assert ocr.sum(a, axis=1).get().shape == (0,)
    with pytest.raises(ValueError, match="no identity"):
        ocr.max(a, axis=0)


def test_axis_none_and_1d(queue):
    x = data((37, 11), np.int32, "sum")
    a = cla.to_device(queue, x)
    assert ocr.sum(a).get()[()] == x.sum()
    assert ocr.sum(a, axis=None).shape == ()
    v = cla.to_device(queue, x.ravel())
    assert ocr.sum(v, axis=0).get()[()] == x.sum()


def test_refusals(queue):
    a = cla.to_device(queue, np.zeros((4, 6), np.int32))
    with pytest.raises(Exception, match="out of bounds"):
        ocr.sum(a, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        ocr.sum(a, axis=(1, -1))
    with pytest.raises(TypeError):
        ocr.argmax(a, axis=(0, 1))  # NumPy's argmax takes one axis
    with pytest.raises(TypeError, match="slice"):
        ocr.sum(a, axis=0, slice=slice(0, 3))
    f = cla.to_device(queue, np.ones((4, 6), np.float32))
    with pytest.raises(ValueError, match="not along an axis"):
        ocr.sum(f, axis=0, accurate=True)
    with pytest.raises(ValueError, match="unknown operator 'argmax'"):
        ocr.segment_reduce(f.ravel(), np.array([0, 3, 24]), "argmax")
    with pytest.raises(ValueError, match="empty"):
        ocr.argmin(cla.to_device(queue, np.zeros((0, 3), np.float32)), axis=0)


def _all_axes(nd):
    """Every axis= NumPy takes for nd dimensions: None, each int (and -1),
    and every tuple of two or more distinct axes."""
    import itertools
    out = [None, -1] + list(range(nd))
    for k in range(2, nd + 1):
        out += list(itertools.combinations(range(nd), k))
    return out


def _layouts(queue, x):
    """(a pyopencl Array, the NumPy array it holds): x in C and F order, a
    view with a reversed axis and a step, and the transposed view."""
    rev = tuple(reversed(range(x.ndim)))
    sl = tuple(slice(None, None, -1) if i == 0 else slice(None, None, 2) if i == 1 else slice(None)
               for i in range(x.ndim))
    a = cla.to_device(queue, x)
    yield a, x
    yield cla.to_device(queue, np.asfortranarray(x)), x
    yield a[sl], x[sl]
    yield a.transpose(rev), x.transpose(rev)


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 1, 7), (5, 1, 6), (4, 130, 3)])
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "bitwise_xor"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float32, np.float64])
def test_nd_axes_as_numpy(queue, shape, op, dtype):
    """N-d arrays along every axis and tuple of axes, in C and F order and
    as views (a reversed axis, a step, a transpose): NumPy's shape and values
    (small integers: exact in any order)."""
    fp64_or_skip(queue, dtype)
    if op.startswith("bitwise") and np.dtype(dtype).kind == "f":
        pytest.skip("bitwise on floats")
    x = data(shape, dtype, op, seed=sum(shape))
    for a, want_of in _layouts(queue, x):
        for axis in _all_axes(len(shape)):
            got = getattr(ocr, op)(a, axis=axis)
            want = NP[op](want_of, axis=axis).astype(dtype) if not op.startswith("bitwise") \
                else np.bitwise_xor.reduce(want_of, axis=axis)
            assert got.shape == np.shape(want) and got.dtype == np.dtype(dtype), (axis, got.shape)
            np.testing.assert_array_equal(got.get(), want, err_msg=f"axis={axis}")


def test_nd_axes_initial_and_empty(queue):
    x = data((3, 0, 4), np.int32, "sum")
    a = cla.to_device(queue, x)
    for axis in _all_axes(3):
        got = ocr.sum(a, axis=axis, initial=5).get()
        np.testing.assert_array_equal(got, x.sum(axis=axis, initial=5))
    y = data((3, 5, 4), np.int32, "sum", seed=4)
    b = cla.to_device(queue, y)
    for axis in ((0, 2), 1, (1, 2)):
        np.testing.assert_array_equal(ocr.max(b, axis=axis, initial=40).get(),
                                      y.max(axis=axis, initial=40))
    with pytest.raises(ValueError, match="no identity"):
        ocr.min(a, axis=1)


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7, 9), (3, 600, 5), (2, 1, 3000), (1, 4)])
def test_arg_along_axes_as_numpy(queue, name, dtype, shape):
    """argmin/argmax(axis=) against NumPy over few distinct values (many ties:
    the first index must win), with NaNs for floats (the first NaN wins) and
    both zeros, in C and F order and as views."""
    fp64_or_skip(queue, dtype)
    rng = np.random.default_rng(sum(shape) + len(name))
    x = rng.integers(0, 4, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[rng.random(shape) < 0.01] = np.nan
        x[x == 0] = np.where(rng.random(int((x == 0).sum())) < 0.5, 0.0, -0.0)
    for a, want_of in _layouts(queue, x):
        for axis in [None] + list(range(-1, len(shape))):
            got = getattr(ocr, name)(a, axis=axis)
            want = getattr(np, name)(want_of, axis=axis)
            assert got.shape == np.shape(want) and got.dtype == np.int64
            np.testing.assert_array_equal(got.get(), want, err_msg=f"axis={axis}")


def test_nd_copy_waits_on_out_of_order_queue(context, ooo_queue):
    """The copy a middle axis needs waits for the array's write, and a later
    write of the array waits for the copy (its event is in a.events)."""
    x = data((40, 50, 30), np.int32, "sum", seed=11)
    for trial in range(5):
        a = cla.empty(ooo_queue, x.shape, np.int32)
        a.add_event(cl.enqueue_copy(ooo_queue, a.data, x, is_blocking=False))
        r = ocr.sum(a, axis=1, queue=ooo_queue)
        m = ocr.argmax(a, axis=1, queue=ooo_queue)
        a.add_event(cl.enqueue_fill_buffer(ooo_queue, a.data, np.int32(7), 0, x.nbytes,
                                           wait_for=a.events))
        np.testing.assert_array_equal(r.get(), x.sum(axis=1))
        np.testing.assert_array_equal(m.get(), x.argmax(axis=1))


def test_waits_for_pending_writes_on_out_of_order_queue(context, ooo_queue):
    x = data((1001, 37), np.int32, "sum", seed=9)
    a = cla.empty(ooo_queue, x.shape, np.int32)
    ev = cl.enqueue_copy(ooo_queue, a.data, x, is_blocking=False)
    a.add_event(ev)
    r0 = ocr.sum(a, axis=0, queue=ooo_queue)
    r1 = ocr.sum(a, axis=1, queue=ooo_queue)
    np.testing.assert_array_equal(r0.get(), x.sum(axis=0, dtype=np.int32))
    np.testing.assert_array_equal(r1.get(), x.sum(axis=1, dtype=np.int32))
    # wait_for: a write the array does not know about
    y = data((5, 600), np.int32, "sum", seed=10)
    b = cla.empty(ooo_queue, y.shape, np.int32)
    ev2 = cl.enqueue_copy(ooo_queue, b.data, y, is_blocking=False)
    np.testing.assert_array_equal(ocr.sum(b, axis=1, wait_for=[ev2]).get(), y.sum(axis=1))


def segments_want(x, offsets, ufunc, dtype):
    return np.array([ufunc.reduce(x[b:e]) if e > b else ufunc.identity
                     for b, e in zip(offsets[:-1], offsets[1:])], dtype=dtype)


def lengths_pattern(name, rng):
    return {"all empty": np.zeros(50, np.int64),
            "one huge": np.array([1_000_003]),
            "100,000 random": rng.integers(0, 21, size=100_000),
            "0/1/2/odd": np.tile([0, 1, 2, 3, 5, 7, 33, 0, 1], 111),
            "skewed": np.where(rng.random(300) < 0.1, rng.integers(0, 5000, 300),
                               rng.integers(0, 40, 300))}[name]


@pytest.mark.parametrize("pattern", ["all empty", "one huge", "100,000 random", "0/1/2/odd",
                                     "skewed"])
@pytest.mark.parametrize("dtype,op", [(np.int32, "sum"), (np.float32, "sum"),
                                      (np.int64, "xor"), (np.float64, "prod"),
                                      (np.uint32, "or")])
def test_segment_reduce(queue, pattern, dtype, op):
    fp64_or_skip(queue, dtype)
    rng = np.random.default_rng(5)
    lens = lengths_pattern(pattern, rng)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.uint32)
    n = int(offsets[-1])
    x = data((max(n, 1),), dtype, op, seed=6)[:n]
    a = cla.to_device(queue, x) if n else cla.empty(queue, (0,), dtype)
    got = ocr.segment_reduce(a, offsets, op=op)
    uf = {"sum": np.add, "prod": np.multiply, "xor": np.bitwise_xor, "or": np.bitwise_or}[op]
    np.testing.assert_array_equal(got.get(), segments_want(x, offsets, uf, dtype))


def test_segment_min_max_empty_is_the_extreme(queue):
    x = np.array([3, 1, 2], np.int32)
    got = ocr.segment_reduce(cla.to_device(queue, x), np.array([0, 0, 3]), op="min").get()
    assert got.tolist() == [np.iinfo(np.int32).max, 1]


def test_100000_segments_are_one_call(queue, monkeypatch):
    """A segmented sum over 100,000 segments is one library call (and one
    event: one launch) whose values equal NumPy's."""
    rng = np.random.default_rng(11)
    lens = rng.integers(0, 30, size=100_000)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.uint64)
    x = rng.integers(-100, 100, size=int(offsets[-1])).astype(np.int32)
    a = cla.to_device(queue, x)
    d_off = cla.to_device(queue, offsets)
    calls = []
    lib = ocr._native.lib
    real = lib.ocr_reducer_reduce_segments

    def counting(*args):
        calls.append(args)
        return real(*args)
    monkeypatch.setattr(lib, "ocr_reducer_reduce_segments", counting)
    got = ocr.segment_reduce(a, d_off)
    assert len(calls) == 1 and calls[0][7] == 100_000
    assert len(got.events) == 1
    assert got.events[0].command_type == cl.command_type.NDRANGE_KERNEL
    np.testing.assert_array_equal(got.get(), np.add.reduceat(x, offsets[:-1].astype(np.int64))
                                  * (lens > 0))
