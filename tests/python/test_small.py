"""The small dtypes (int8, uint8, int16, uint16, float16; the library's char
.. half) against NumPy: read as such, combined in int64, uint64 or float32.
Sums of 2^24 int8 values of 127 are exact (2130706432); sums and products
return the accumulator (NumPy's own int8 sum is int64), min, max and the
bitwise reductions a.dtype; odd sizes, odd offsets (slices), events, and what
is refused."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr

from conftest import has_fp64

INTS = [np.int8, np.uint8, np.int16, np.uint16]
SIZES = [1, 2, 3, 5, 17, 4103, 65537, 1000003]
FUNCS = {"sum": (ocr.sum, np.sum), "prod": (ocr.prod, np.prod), "min": (ocr.min, np.min),
         "max": (ocr.max, np.max),
         "bitwise_and": (ocr.bitwise_and, np.bitwise_and.reduce),
         "bitwise_or": (ocr.bitwise_or, np.bitwise_or.reduce),
         "bitwise_xor": (ocr.bitwise_xor, np.bitwise_xor.reduce)}


def _ints(dtype, n, rng):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)


@pytest.mark.parametrize("dtype,value,want", [(np.int8, 127, 2130706432),
                                              (np.uint8, 255, 4278190080),
                                              (np.int8, -128, -2147483648)])
def test_constant_2_24(queue, dtype, value, want):
    a = cla.to_device(queue, np.full(1 << 24, value, dtype))
    s = ocr.sum(a)
    assert s.dtype == (np.int64 if dtype == np.int8 else np.uint64)
    assert s.get()[()] == want


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", SIZES)
def test_ints_vs_numpy(queue, name, dtype, n):
    rng = np.random.default_rng(n * 7 + len(name))
    x = _ints(dtype, n + 7, rng)
    ours, theirs = FUNCS[name]
    a = cla.to_device(queue, x)
    for off in (0, 1, 3):  # slices: offsets of 1 and 3 elements into the buffer
        m = min(n, x.size - off)
        got = ours(a[off:off + m])
        want = theirs(x[off:off + m])
        assert got.dtype == want.dtype, (name, dtype, got.dtype, want.dtype)
        assert got.get()[()] == want, (name, dtype, n, off)


@pytest.mark.parametrize("dtype", INTS)
def test_wrapping_dtype(queue, dtype):
    """dtype= the small type itself: the sum wraps as NumPy's does."""
    x = _ints(dtype, 100003, np.random.default_rng(5))
    a = cla.to_device(queue, x)
    got = ocr.sum(a, dtype=dtype)
    assert got.dtype == np.dtype(dtype)
    assert got.get()[()] == np.sum(x, dtype=dtype)
    assert ocr.prod(a, dtype=dtype).get()[()] == np.prod(x, dtype=dtype)


def test_wider_dtype(queue):
    x = _ints(np.int16, 4103, np.random.default_rng(6))
    a = cla.to_device(queue, x)
    got = ocr.max(a, dtype=np.int64)
    assert got.dtype == np.int64 and got.get()[()] == x.max()
    with pytest.raises(TypeError, match="cannot be combined in int32"):
        ocr.max(a, dtype=np.int32)  # sum converts (test_dropin); min and max only widen


def _exact_halves(n, rng):
    """k / 256, |k| < 2048: exact in float16, and every float32 partial sum of
    up to 4103 of them is exact, so the sum compares bit for bit."""
    return (rng.integers(-2047, 2048, n) / 256).astype(np.float16)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 17, 1000, 4103])
def test_half_exact(queue, n):
    x = _exact_halves(n + 5, np.random.default_rng(n))
    a = cla.to_device(queue, x)
    for off in (0, 1, 5):
        m = min(n, x.size - off)
        s = ocr.sum(a[off:off + m])
        assert s.dtype == np.float32
        assert s.get()[()] == np.sum(x[off:off + m].astype(np.float64))
        for name in ("min", "max"):
            got = FUNCS[name][0](a[off:off + m])
            assert got.dtype == np.float16
            assert got.get()[()] == FUNCS[name][1](x[off:off + m])


def test_half_uniform(queue):
    x = np.random.default_rng(9).uniform(-1000, 1000, 1000003).astype(np.float16)
    want = np.sum(x.astype(np.float64))
    got = ocr.sum(cla.to_device(queue, x)).get()[()]
    # float32 sums of 10^6 values: well within 1e-4 of sum |x|
    assert abs(got - want) <= 1e-4 * np.sum(np.abs(x.astype(np.float64)))
    assert ocr.max(cla.to_device(queue, x)).get()[()] == x.max()


def test_half_nan_and_dtype(queue):
    x = _exact_halves(4103, np.random.default_rng(3))
    x[1234] = np.nan
    assert np.isnan(ocr.min(cla.to_device(queue, x)).get()[()])
    if has_fp64(queue):
        y = _exact_halves(4103, np.random.default_rng(4))
        got = ocr.sum(cla.to_device(queue, y), dtype=np.float64)
        assert got.dtype == np.float64 and got.get()[()] == np.sum(y.astype(np.float64))


def _read_after_events(queue, r, dtype):
    """r's value, copied by a command that waits on r.events only (the
    result must carry events, and they must cover the value)."""
    assert r.events
    out = np.empty((), dtype)
    cl.enqueue_copy(queue, out, r.base_data, src_offset=r.offset, wait_for=r.events,
                    is_blocking=True)
    return out


def test_events(ooo_queue):
    """The converted result's events complete only once its value is there:
    on an out-of-order queue, a copy waiting on them reads the value."""
    x = _ints(np.int8, 1000003, np.random.default_rng(8))
    a = cla.to_device(ooo_queue, x)
    assert _read_after_events(ooo_queue, ocr.min(a), np.int8) == x.min()


def test_reducer_class(context, queue):
    x = _ints(np.uint16, 4103, np.random.default_rng(2))
    buf = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    with ocr.Reducer(context, np.uint16, "sum") as r:
        assert r.acc_dtype == np.uint64
        assert r.reduce(queue, buf, n=4100, offset=3, dtype=np.uint16) == np.sum(x[3:4103])


def test_refusals(queue):
    a = cla.to_device(queue, np.arange(64, dtype=np.int8))
    h = cla.to_device(queue, np.arange(64, dtype=np.float16))
    with pytest.raises(TypeError, match="does not take int8"):
        ocr.segment_reduce(a, np.array([0, 10, 64]))
    with pytest.raises(TypeError, match="axis="):
        ocr.sum(a.reshape(8, 8), axis=0)
    with pytest.raises(TypeError, match="accurate"):
        ocr.sum(h, accurate=True)
    with pytest.raises(TypeError, match="needs integers"):
        ocr.bitwise_xor(h)


# argmin/argmax compare the small values themselves, as NumPy: the first index
# of the extreme; float16's first NaN wins, -0.0 == +0.0.
ARGS = {"argmin": (ocr.argmin, np.argmin), "argmax": (ocr.argmax, np.argmax)}


def _arg_data(dtype, n, rng, kind):
    if np.dtype(dtype).kind in "iu":
        x = _ints(dtype, n, rng)
        if kind == "narrow":  # few values: ties everywhere
            x = (x % 5).astype(dtype)
        info = np.iinfo(dtype)
        if kind == "extremes" and n > 4:  # the type's extremes at the head and the tail
            x[[1, n - 2]] = info.max
            x[[2, n - 1]] = info.min
        return x
    x = rng.integers(-30, 31, n).astype(np.float16)
    x[rng.random(n) < 0.05] = np.float16(-0.0)
    if kind == "extremes" and n > 4:
        x[[1, n - 2]] = np.float16(np.inf)
        x[[2, n - 1]] = np.float16(-np.inf)
        x[3] = np.float16(65504)
    if kind == "nan" and n > 4:
        x[[n - 3, n - 1]] = np.float16(np.nan)
    if kind == "nan_head" and n > 2:
        x[[1, 2]] = np.float16(np.nan)
    return x


@pytest.mark.parametrize("name", ARGS)
@pytest.mark.parametrize("dtype", INTS + [np.float16])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 17, 4103, 65537, 1000003])
@pytest.mark.parametrize("kind", ["random", "narrow", "extremes", "nan", "nan_head"])
def test_arg_vs_numpy(queue, name, dtype, n, kind):
    if kind.startswith("nan") and dtype != np.float16:
        pytest.skip("NaN: float16 only")
    x = _arg_data(dtype, n, np.random.default_rng(n * 7 + len(kind)), kind)
    ours, theirs = ARGS[name]
    r = ours(cla.to_device(queue, x))
    assert r.events and r.dtype == np.int64
    i = r.get()[()]
    want = theirs(x)
    assert i == want, (i, want)
    # the value there is numpy's extreme (NaN compared as NaN)
    got, ref = x[i], x[want]
    assert got == ref or (np.isnan(got) and np.isnan(ref))


def test_arg_float16_zeros_and_nan(queue):
    x = np.array([0.0, -0.0, 1.0, -0.0, 0.0], np.float16)
    assert ocr.argmin(cla.to_device(queue, x)).get()[()] == np.argmin(x) == 0
    y = np.array([-0.0, 0.0, -1.0, 0.0], np.float16)
    assert ocr.argmax(cla.to_device(queue, y)).get()[()] == np.argmax(y) == 0
    z = np.array([1, np.nan, np.inf, np.nan, -np.inf], np.float16)
    assert ocr.argmin(cla.to_device(queue, z)).get()[()] == np.argmin(z) == 1
    assert ocr.argmax(cla.to_device(queue, z)).get()[()] == np.argmax(z) == 1


@pytest.mark.parametrize("dtype", INTS + [np.float16])
def test_arg_slice_and_events(queue, ooo_queue, dtype):
    x = _arg_data(dtype, 4103, np.random.default_rng(11), "narrow" if dtype != np.float16
                  else "random")
    a = cla.to_device(queue, x)[3:4100]  # an odd offset
    assert ocr.argmax(a).get()[()] == np.argmax(x[3:4100])
    assert ocr.argmin(a).get()[()] == np.argmin(x[3:4100])
    b = cla.to_device(ooo_queue, x)
    assert _read_after_events(ooo_queue, ocr.argmax(b), np.int64) == np.argmax(x)


@pytest.mark.parametrize("dtype", INTS + [np.float16])
def test_arg_reducer_class(context, queue, dtype):
    x = _arg_data(dtype, 4103, np.random.default_rng(5), "extremes")
    buf = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    with ocr.Reducer(context, dtype, "argmin") as r:
        assert r.acc_dtype == dtype
        assert r.reduce(queue, buf, n=4100, offset=3, dtype=dtype) == np.argmin(x[3:4103])
