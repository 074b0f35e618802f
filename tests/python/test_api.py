"""oclreduction.sum / prod / min / max / bitwise_*: NumPy's answers, PyOpenCL's
shape (a 0-d device array with the reduction's event), the events of the input
waited for, and clear refusals."""
import gc

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest
from conftest import DTYPES, OPS, data, has_fp64

import oclreduction

UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
         "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
         "bitwise_xor": np.bitwise_xor}


def numpy_reduce(op, host, acc):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(UFUNC[op].reduce(host.astype(acc), dtype=acc), dtype=acc)


def skip_unless(queue, op, *dts):
    if op.startswith("bitwise") and any(np.dtype(d).kind == "f" for d in dts):
        pytest.skip("bitwise operators need integers")
    if any(np.dtype(d) == np.float64 for d in dts) and not has_fp64(queue):
        pytest.skip("no fp64")


@pytest.mark.parametrize("n", [1, 3, 4103, 100003])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_matches_numpy(queue, op, dtype, n):
    skip_unless(queue, op, dtype)
    host = data(dtype, op.replace("bitwise_", ""), n)
    a = cla.to_device(queue, host)
    got = getattr(oclreduction, op)(a)
    assert isinstance(got, cla.Array) and got.shape == () and got.dtype == np.dtype(dtype)
    assert got.events, "the result carries the reduction's event"
    want = numpy_reduce(op, host, np.dtype(dtype))
    assert got.get().tobytes() == want.tobytes(), (got.get(), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_drop_in_for_pyopencl(queue, dtype):
    """The same value, dtype, shape and kind of object as pyopencl.array's."""
    skip_unless(queue, "sum", dtype)
    host = data(dtype, "sum", 100003)
    a = cla.to_device(queue, host)
    for ours, theirs in ((oclreduction.sum, cla.sum), (oclreduction.min, cla.min),
                         (oclreduction.max, cla.max)):
        x, y = ours(a), theirs(a)
        assert type(x) is type(y) and x.shape == y.shape and x.dtype == y.dtype
        assert x.get().tobytes() == y.get().tobytes()
    x = oclreduction.sum(a).get()[()]  # the documented NumPy scalar
    assert isinstance(x, np.generic) and x == host.sum(dtype=dtype)


def test_int32_widened_to_int64_is_exact(queue):
    a = cla.to_device(queue, np.arange(1000003, dtype=np.int32))
    assert oclreduction.sum(a, dtype=np.int64).get()[()] == 1000003 * 1000002 // 2
    assert oclreduction.sum(a).get() == cla.sum(a).get()  # int32 wraps, as PyOpenCL's
    big = cla.to_device(queue, np.full(4103, 2**31 - 1, dtype=np.int32))
    assert oclreduction.sum(big, dtype=np.int64).get() == 4103 * (2**31 - 1)
    assert oclreduction.sum(big).get() == np.full(4103, 2**31 - 1, np.int32).sum(dtype=np.int32)


WIDEN = [(np.int32, np.int64), (np.int32, np.uint64), (np.int32, np.float64),
         (np.uint32, np.int64), (np.uint32, np.uint64), (np.uint32, np.float64),
         (np.float32, np.float64)]


@pytest.mark.parametrize("dtype,acc", WIDEN)
@pytest.mark.parametrize("op", OPS)
def test_widening_matches_numpy(queue, op, dtype, acc):
    skip_unless(queue, op, dtype, acc)
    host = data(dtype, op.replace("bitwise_", ""), 40011, seed=11)
    a = cla.to_device(queue, host)
    for k in (0, 1, 5, 33):  # slices: offsets inside the buffer, aligned or not
        got = getattr(oclreduction, op)(a[k:], dtype=acc)
        assert got.dtype == np.dtype(acc)
        assert got.get().tobytes() == numpy_reduce(op, host[k:], np.dtype(acc)).tobytes(), k


def test_float32_is_added_in_float64_on_the_device(queue):
    """1 + 2^-20 four thousand times: float32 partial sums round, float64 ones
    do not; so the answer shows the widening happened before the adding."""
    host = np.full(4103, 1 + 2.0**-20, dtype=np.float32)
    a = cla.to_device(queue, host)
    if not has_fp64(queue):
        pytest.skip("no fp64")
    got = oclreduction.sum(a, dtype=np.float64).get()[()]
    assert got == 4103 * (1 + 2.0**-20) == host.astype(np.float64).sum()
    assert oclreduction.sum(a).get()[()] != got


def test_widens_to(queue):
    assert oclreduction.widens_to(np.int32, np.int64)
    assert not oclreduction.widens_to(np.int64, np.int32)


def test_empty(queue):
    for dtype in DTYPES:
        e = cla.empty(queue, 0, dtype)
        assert oclreduction.sum(e).get().tobytes() == np.zeros((), dtype).tobytes()
        assert oclreduction.prod(e).get().tobytes() == np.ones((), dtype).tobytes()
        if dtype == np.float32:
            assert oclreduction.sum(e, dtype=np.float64).get().tobytes() == bytes(8)
        for f in (oclreduction.min, oclreduction.max):
            with pytest.raises(ValueError, match="zero-size"):
                f(e)
        if np.dtype(dtype).kind != "f":
            assert oclreduction.bitwise_and(e).get() == np.bitwise_and.reduce(np.empty(0, dtype))
            assert oclreduction.bitwise_or(e).get() == 0
            assert oclreduction.bitwise_xor(e).get() == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 3, 17, 4103, 100003])
def test_nan_propagates_as_in_numpy(queue, dtype, n):
    if np.dtype(dtype) == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")
    rng = np.random.default_rng(n)
    for where in {0, n // 2, n - 1, int(rng.integers(n))}:
        host = (rng.integers(-1000, 1000, n) / 8).astype(dtype)
        host[where] = np.nan
        a = cla.to_device(queue, host)
        for f in ("min", "max", "sum", "prod"):
            got = getattr(oclreduction, f)(a).get()[()]
            assert np.isnan(got), (f, n, where, got)
            assert np.isnan(numpy_reduce(f, host, np.dtype(dtype)))
        # and without the NaN, the extremes themselves (infinities included)
        host[where] = -np.inf
        a = cla.to_device(queue, host)
        assert oclreduction.min(a).get()[()] == -np.inf
        assert oclreduction.max(a).get()[()] == host.max()


def test_nan_in_a_slice_head_or_after_it(queue):
    host = np.arange(1000, dtype=np.float32)
    for k, where in ((3, 4), (3, 900), (1, 999), (33, 40)):
        h = host.copy()
        h[where] = np.nan
        a = cla.to_device(queue, h)
        assert np.isnan(oclreduction.max(a[k:]).get()), (k, where)
        assert np.isnan(oclreduction.min(a[k:]).get()), (k, where)


def test_out_of_order_queue_fill_then_sum(ooo_queue):
    """a.fill(k) then sum, 20 times: every sum must see its fill (the issue's
    19 of 20 wrong, when a.events were ignored)."""
    n = 1 << 22
    a = cla.empty(ooo_queue, n, np.int32)
    right = 0
    for k in range(1, 21):
        a.fill(k)
        right += int(oclreduction.sum(a, dtype=np.int64).get()[()] == k * n)
    assert right == 20


def test_out_of_order_queue_every_operator(ooo_queue):
    a = cla.empty(ooo_queue, 100003, np.float32)
    for k in range(1, 6):
        a.fill(k)
        assert oclreduction.max(a).get() == k and oclreduction.min(a[7:]).get() == k
        assert oclreduction.sum(a[3:]).get() == k * 100000


def test_wait_for(queue):
    ctx = queue.context
    host = data(np.int32, "sum", 50000)
    a = cla.to_device(queue, host)
    gate = cl.UserEvent(ctx)
    s = oclreduction.sum(a, wait_for=[gate])
    ev = s.events[-1]
    assert ev.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    assert s.get() == host.sum(dtype=np.int32)
    # the reduction's event is the input's too: a later write waits for it
    assert any(e.int_ptr == ev.int_ptr for e in a.events)


def test_other_queue_and_array_without_queue(queue):
    q2 = cl.CommandQueue(queue.context)
    host = data(np.int64, "sum", 4103)
    a = cla.to_device(queue, host)
    got = oclreduction.sum(a, queue=q2)
    assert got.queue is q2 and got.get() == host.sum()
    b = cla.Array(queue.context, (10,), np.int32, data=a.base_data)
    with pytest.raises(ValueError, match="queue"):
        oclreduction.sum(b)


def test_slices_with_offsets(queue):
    host = data(np.int32, "sum", 50000)
    a = cla.to_device(queue, host)
    align = queue.device.mem_base_addr_align // 8 // 4
    for k in (1, 3, align - 1, align, align + 5, 4097):
        for m in (1, 2, 7, 1000, 20000):
            for op in ("sum", "min", "max", "bitwise_xor"):
                got = getattr(oclreduction, op)(a[k:k + m]).get()
                assert got == numpy_reduce(op, host[k:k + m], np.dtype(np.int32)), (op, k, m)


def test_multidimensional_and_strided(queue):
    host = data(np.float32, "sum", 4096).reshape(64, 64)
    a = cla.to_device(queue, host)
    assert oclreduction.sum(a).get() == host.sum()
    assert oclreduction.sum(a.T).get() == host.sum()  # F-contiguous: the same elements
    # A strided 2-D view: through a C-order copy, NumPy's value
    assert oclreduction.sum(a[::2, ::-3]).get() == host[::2, ::-3].sum()


def test_refusals(queue):
    a8 = cla.to_device(queue, np.arange(10, dtype=np.complex64))  # complex: sums only
    with pytest.raises(TypeError, match="complex"):
        oclreduction.prod(a8)
    af = cla.to_device(queue, np.arange(10, dtype=np.float32))
    with pytest.raises(TypeError, match="integers"):
        oclreduction.bitwise_and(af)
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        oclreduction.sum(af.base_data)
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        oclreduction.sum(np.arange(3))
    with pytest.raises(TypeError, match="queue="):  # sum's second argument is dtype
        oclreduction.sum(af, queue)


def test_legacy_reduce(queue):
    a = cla.to_device(queue, np.arange(1000, dtype=np.int32))
    got = oclreduction.reduce(queue, a, "sum")
    assert isinstance(got, np.int32) and got == 499500
    assert oclreduction.reduce(queue, a, "max") == 999
    assert oclreduction.reduce(queue, a, "xor") == np.bitwise_xor.reduce(np.arange(1000))


def test_cache_does_not_keep_a_context_alive():
    """Once the caller's context, queue and arrays are gone, so are the
    cached reducers (which retain the context)."""
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    q = cl.CommandQueue(ctx)
    a = cla.to_device(q, np.arange(100, dtype=np.int32))
    assert oclreduction.sum(a).get() == 4950
    ptr = ctx.int_ptr
    assert ptr in oclreduction._cache._cache
    del a, q, ctx
    gc.collect()
    assert ptr not in oclreduction._cache._cache
