"""sum/prod/min/max/...(a, axis=0|1|-1) on 2-D arrays and segment_reduce
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
    a3 = cla.to_device(queue, np.zeros((2, 3, 4), np.int32))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        ocr.sum(a3, axis=0)
    a = cla.to_device(queue, np.zeros((4, 6), np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        ocr.sum(a[:, ::2], axis=0)
    with pytest.raises(Exception, match="out of bounds"):
        ocr.sum(a, axis=2)
    f = cla.to_device(queue, np.ones((4, 6), np.float32))
    with pytest.raises(ValueError, match="not along an axis"):
        ocr.sum(f, axis=0, accurate=True)
    with pytest.raises(ValueError, match="unknown operator 'argmax'"):
        ocr.segment_reduce(f.ravel(), np.array([0, 3, 24]), "argmax")


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
