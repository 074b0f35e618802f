"""oclreduction.sum/min/max as drop-ins for pyopencl.array's: the same
signatures (positional queue, slice=, initial=), dtype= with PyOpenCL's and
NumPy's element-wise conversion, bool and complex sums, strided 1-D views,
empty arrays: each against NumPy on values whose reductions are exact."""
import inspect

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr

from conftest import has_fp64


def test_signatures_are_pyopencls():
    def head(f, k):
        return [(p.name, p.default) for p in list(inspect.signature(f).parameters.values())[:k]]
    nv = np._NoValue
    assert head(ocr.sum, 5) == [("a", inspect.Parameter.empty), ("dtype", None), ("queue", None),
                                ("slice", None), ("initial", nv)]
    for f in (ocr.min, ocr.max):
        assert head(f, 3) == [("a", inspect.Parameter.empty), ("queue", None), ("initial", nv)]


def test_positional_queue_and_initial(queue):
    x = np.arange(-50, 51, dtype=np.int32)
    a = cla.to_device(queue, x)
    assert ocr.min(a, queue).get()[()] == -50 and ocr.max(a, queue).get()[()] == 50
    assert ocr.min(a, queue, -70).get()[()] == -70 and ocr.max(a, queue, 7).get()[()] == 50
    assert ocr.sum(a, None, queue, None, 9).get()[()] == x.sum(initial=9)
    with pytest.raises(ValueError, match="not a scalar"):
        ocr.sum(a, initial=[1])


def _case(queue, x, dtype):
    got = ocr.sum(cla.to_device(queue, x), dtype=dtype)
    with np.errstate(all="ignore"):
        want = np.sum(x, dtype=dtype)
    assert got.dtype == want.dtype, (x.dtype, dtype, got.dtype)
    np.testing.assert_array_equal(got.get(), want)


def test_narrowing_converts_each_element(queue):
    if not has_fp64(queue):
        pytest.skip("no float64 on this device")
    # Summed in float64 then converted these give 0.0 and about 1e-41; NumPy
    # and PyOpenCL convert each element (nan: inf + -inf; 0: underflow).
    _case(queue, np.array([1e300, -1e300] * 50), np.float32)
    _case(queue, np.full(100000, 1e-46), np.float32)
    _case(queue, np.array([2.75, -1.25] * 500), np.float32)


def test_widening_and_integer_conversions(queue):
    _case(queue, np.full(10, 100, np.int8), np.int32)              # int8 sum would wrap
    _case(queue, np.full(3, 2**31 - 1, np.int64), np.int32)        # wraps modulo 2^32
    _case(queue, np.arange(-5000, 5000, dtype=np.int32), np.uint64)
    _case(queue, np.full(1000, 3_000_000_000, np.uint32), np.int32)
    _case(queue, np.full(1000, 2.7, np.float32), np.int64)         # each truncated: 2000
    _case(queue, np.arange(1000, dtype=np.int16), np.float32)
    if has_fp64(queue):
        _case(queue, np.full(3, 2**53 + 1, np.int64), np.float64)  # each rounds to 2^53


def test_bool_as_numpy(queue):
    x = np.random.default_rng(3).random(100003) > 0.3
    a = cla.to_device(queue, x)
    s = ocr.sum(a)
    assert s.dtype == np.sum(x).dtype and s.get()[()] == np.sum(x)
    _case(queue, x, np.int32)
    _case(queue, x, np.float32)
    for f, g in ((ocr.min, np.min), (ocr.max, np.max)):
        for y in (x, np.ones(77, bool), np.zeros(77, bool)):
            got = f(cla.to_device(queue, y))
            assert got.dtype == np.bool_ and got.get()[()] == g(y)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sums(queue, dtype):
    if dtype == np.complex128 and not has_fp64(queue):
        pytest.skip("no float64 on this device")
    rng = np.random.default_rng(4)
    n = 100003
    x = (rng.integers(-400, 400, n) / 4 + 1j * (rng.integers(-400, 400, n) / 4)).astype(dtype)
    a = cla.to_device(queue, x)
    got = ocr.sum(a)
    assert got.dtype == dtype and got.get()[()] == x.sum()
    assert ocr.sum(a, slice=slice(1000, None, 3)).get()[()] == x[1000::3].sum()
    assert ocr.sum(a, initial=2 - 1j).get()[()] == x.sum(initial=2 - 1j)
    r = (rng.integers(-400, 400, n) / 4).astype(np.float32)
    _case(queue, r, dtype)
    with pytest.raises(TypeError):
        ocr.min(a)


@pytest.mark.parametrize("slc", [slice(None), slice(1000, 3000), slice(1000, -3000),
                                 slice(1000, None), slice(1000, None, 3), slice(1000, 1000),
                                 slice(None, None, -1), slice(-5, 10, -7), slice(5, 9000, 1000)])
def test_slice(queue, slc):
    x = np.random.default_rng(5).integers(-2**20, 2**20, 20011).astype(np.int64)
    a = cla.to_device(queue, x)
    assert ocr.sum(a, slice=slc).get()[()] == x[slc].sum()
    assert ocr.sum(a, np.float64, None, slc).get()[()] == x[slc].sum(dtype=np.float64)
    if x[slc].size:
        assert ocr.bitwise_xor(a, slice=slc).get()[()] == np.bitwise_xor.reduce(x[slc])


def test_strided_views(queue):
    x = np.random.default_rng(6).integers(-1000, 1000, 30011).astype(np.int32)
    a = cla.to_device(queue, x)
    for v in (slice(None, None, 2), slice(None, None, -1), slice(7, 20000, 13), slice(-3, 2, -5)):
        assert ocr.sum(a[v]).get()[()] == x[v].sum(dtype=np.int32), v
        assert ocr.min(a[v]).get()[()] == x[v].min() and ocr.max(a[v]).get()[()] == x[v].max()


@pytest.mark.parametrize("initial", [5.0, -5.0])
def test_initial_as_numpy(queue, initial):
    x = np.array([-1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1, 1.25, 1.5], np.float32)
    a = cla.to_device(queue, x)
    for f, g in ((ocr.sum, np.sum), (ocr.min, np.min), (ocr.max, np.max), (ocr.prod, np.prod)):
        got = f(a, initial=initial)
        assert got.dtype == np.float32 and got.get()[()] == g(x, initial=initial), f
    for f in (ocr.min, ocr.max):
        assert np.isnan(f(cla.to_device(queue, np.array([np.nan, 1], np.float32)),
                          initial=initial).get()[()])


def test_empty_as_pyopencl(queue):
    e = cla.empty(queue, 0, np.float32)
    assert ocr.sum(e).get()[()] == 0 and ocr.sum(e, initial=5.0).get()[()] == 5
    assert ocr.sum(e, dtype=np.int32).dtype == np.int32
    for f in (ocr.min, ocr.max):
        with pytest.raises(ValueError, match="zero-size"):
            f(e)
        assert f(e, initial=5.0).get()[()] == 5
    assert ocr.sum(cla.empty(queue, 0, np.bool_)).get()[()] == 0


def test_new_paths_wait_for_events(ooo_queue):
    """A strided view's reduction (in place), a converted one (its copy)
    and the conversion after one wait for the array's events and wait_for,
    out of order too."""
    ctx = ooo_queue.context
    n = 1 << 16
    for call, want in ((lambda a, w: ocr.sum(a, slice=slice(0, None, 2), wait_for=w), n // 2 * 3),
                       (lambda a, w: ocr.sum(a, dtype=np.float32, wait_for=w), n * 3),
                       (lambda a, w: ocr.max(a, initial=1, wait_for=w), 3),
                       (lambda a, w: ocr.sum(a[::-1], wait_for=w), n * 3),
                       (lambda a, w: ocr.sum(a, wait_for=w), n * 3),  # the common call
                       (lambda a, w: ocr.bitwise_or(a[5:], wait_for=w), 3)):
        # empty, not zeros: on an out-of-order queue zeros' fill could land
        # after the copy (Intel's CPU runtime did: a sum of 0)
        a = cla.empty(ooo_queue, n, np.int32)
        gate = cl.UserEvent(ctx)
        a.add_event(cl.enqueue_copy(ooo_queue, a.base_data, np.full(n, 3, np.int32),
                                    wait_for=[gate] + list(a.events), is_blocking=False))
        gate2 = cl.UserEvent(ctx)
        try:
            got = call(a, [gate2])
        finally:  # a refusal must not leave the queue blocked
            gate.set_status(cl.command_execution_status.COMPLETE)
            gate2.set_status(cl.command_execution_status.COMPLETE)
        assert got.get()[()] == want


def test_common_call_allocators_and_queues(queue):
    """The common call (every argument left as it defaults: _reduce_hot) on
    arrays from a memory pool and with an offset, and on another queue
    (queue=), gives the general way's values, and keeps a's and the
    result's events as the general way does."""
    import pyopencl.tools as clt
    rng = np.random.default_rng(31)
    host = rng.integers(-1000, 1000, 70001).astype(np.int64)
    pool = clt.MemoryPool(clt.ImmediateAllocator(queue))
    q2 = cl.CommandQueue(queue.context)
    for a in (cla.to_device(queue, host, allocator=pool), cla.to_device(queue, host)[17:]):
        want = host[-a.size:]
        top = np.iinfo(np.int64).max
        for op, np_op, ident in (("sum", np.sum, 0), ("min", np.min, top),
                                 ("bitwise_xor", np.bitwise_xor.reduce, 0)):
            got = getattr(ocr, op)(a)
            assert got.dtype == a.dtype and got.shape == () and got.events
            assert any(e.int_ptr == got.events[-1].int_ptr for e in a.events)
            kw = {"initial": ident} if op != "bitwise_xor" else {"dtype": np.int64}
            general = getattr(ocr, op)(a, **kw)  # not the common call: the general way
            assert got.get()[()] == np_op(want) == general.get()[()], op
            other = getattr(ocr, op)(a, queue=q2)
            assert other.queue is q2 and other.get()[()] == np_op(want)


def test_value_on_the_host(queue):
    """oclreduction.value gives what the 0-d Array holds, for every path."""
    rng = np.random.default_rng(8)
    x = rng.integers(-100, 100, 10007)
    cases = [(x.astype(np.int32), "sum", {}), (x.astype(np.int8), "sum", {}),
             (x.astype(np.int8), "max", {}), (x.astype(np.int16), "bitwise_xor", {}),
             (x.astype(np.float32) / 4, "min", {"initial": -30.0}),
             (x.astype(np.float32) / 4, "sum", {"slice": slice(3, None, 7), "initial": 2.5}),
             (x > 0, "sum", {}), (x > 0, "max", {}),
             (x.astype(np.int64), "sum", {"dtype": np.int16}),
             (x.astype(np.float32) / 4 + 1j, "sum", {}), (np.zeros(0, np.int32), "sum", {}),
             (np.zeros(0, np.float32), "max", {"initial": 3.0})]
    for host, op, kw in cases:
        a = cla.to_device(queue, host)
        want = getattr(ocr, op)(a, **kw).get()[()]
        got = ocr.value(a, op, **kw)
        assert type(got) is type(want) and got == want, (host.dtype, op, kw, got, want)
    with pytest.raises(ValueError, match="zero-size"):
        ocr.value(cla.empty(queue, 0, np.float32), "min")


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                                   np.float16, np.float32, np.float64, np.bool_])
def test_value_every_dtype_and_operator(queue, dtype):
    """value() (one blocking library call where the data lie as the library
    reads them) equals the device path's 0-d Array and NumPy, type and value,
    for every operator the dtype takes, at an offset, with initial=, and
    for a float min or max that is a zero (the general way's zero)."""
    if dtype == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")
    dt = np.dtype(dtype)
    rng = np.random.default_rng(dt.num)
    x = rng.integers(-3 if dt.kind in "if" else 0, 4, 4103).astype(dt)
    ops = ["sum", "min", "max"] + (["prod"] if dt.kind != "f" or dt.itemsize > 2 else []) + \
        (["bitwise_and", "bitwise_or", "bitwise_xor"] if dt.kind in "iu" else [])
    a = cla.to_device(queue, x)
    for op in ops:
        cases = [(a, {}), (a[5:], {}), (a[1:700], {"slice": slice(3, 90)})]
        if op in ("sum", "prod", "min", "max"):
            cases.append((a, {"initial": 2}))
        for part, kw in cases:
            if "slice" in kw and op in ("min", "max"):  # PyOpenCL's min/max take no slice=
                want = getattr(ocr, op)(part[kw["slice"]]).get()[()]
            else:
                want = getattr(ocr, op)(part, **kw).get()[()]
            got = ocr.value(part, op, **kw)
            assert type(got) is type(want) and got == want, (op, kw, got, want)
    if dt.kind == "f":
        z = cla.to_device(queue, np.array([1.0, 0.0, -0.0, 2.0], dt))
        assert np.signbit(ocr.value(z, "min")) == np.signbit(ocr.min(z).get()[()])


def test_value_waits_for_a_pending_write(ooo_queue):
    """value() on an out-of-order queue waits (on the host) for the write
    that fills the array: never the old contents."""
    n = 1 << 20
    for trial in range(20):
        a = cla.empty(ooo_queue, n, np.int32)
        a.add_event(cl.enqueue_fill_buffer(ooo_queue, a.data, np.int32(trial + 1), 0, 4 * n))
        assert ocr.value(a) == n * (trial + 1)
        ev = cl.enqueue_fill_buffer(ooo_queue, a.data, np.int32(3), 0, 4 * n, wait_for=a.events)
        assert ocr.value(a, wait_for=[ev]) == 3 * n


def _numpy_loop(x, op, initial=None):
    """NumPy's reduction loop, element by element: of two equal values (as
    -0.0 and +0.0) it keeps the later for float32/float64 and the earlier for
    float16 (NumPy's vector path may keep another beyond 8 or 16 elements);
    initial comes first. The 2-element case is NumPy's own answer."""
    u = np.minimum if op == "min" else np.maximum
    last = bool(np.signbit(u.reduce(np.array([0.0, -0.0], x.dtype))))
    vals = ([] if initial is None else [x.dtype.type(initial)]) + list(x)
    acc = vals[0]
    for v in vals[1:]:
        if np.isnan(acc):
            continue
        better = v < acc if op == "min" else v > acc
        if better or np.isnan(v) or (last and v == acc):
            acc = v
    return acc


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_signed_zeros_as_numpy(queue, dtype):
    """min and max of data with both zeros return the zero NumPy's loop
    does (the last, or float16's first), on the device and on the host, with
    and without initial=, for views too: drawn mixes of +-0.0, some with
    +-1.5 or a NaN, at sizes across the work-group and grid boundaries."""
    if dtype == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")
    rng = np.random.default_rng(20261127)
    for n in (1, 2, 3, 8, 9, 17, 255, 256, 257, 1000, 4103, 70001):
        for trial in range(3):
            x = np.where(rng.random(n) < rng.random(), 0.0, -0.0).astype(dtype)
            if trial == 1:
                x[rng.integers(0, n, 3)] = rng.choice([1.5, -1.5])
            if trial == 2 and n > 3:
                x[rng.integers(0, n)] = np.nan
            a = cla.to_device(queue, x)
            for op in ("min", "max"):
                for init in (None, 0.0, -0.0, 2.0, -2.0):
                    kw = {} if init is None else {"initial": init}
                    want = _numpy_loop(x, op, init)
                    if n <= 2:  # NumPy itself agrees (no vector path)
                        ref = getattr(x, op)(**kw)
                        assert np.signbit(ref) == np.signbit(want)
                        assert ref == want or np.isnan(ref)
                    for got in (getattr(ocr, op)(a, **kw).get()[()], ocr.value(a, op, **kw)):
                        assert got.dtype == dtype
                        assert (np.isnan(got) and np.isnan(want)) or \
                            (got == want and np.signbit(got) == np.signbit(want)), \
                            (n, trial, op, init, got, want)
            rev = x[::-1].copy()
            assert np.signbit(ocr.min(a[::-1]).get()[()]) == np.signbit(_numpy_loop(rev, "min"))


def test_svm_arrays(context, queue):
    """Arrays in shared virtual memory (pyopencl.tools.SVMAllocator): every
    function reads them (through a copy into a buffer: the library takes
    cl_mem) and gives NumPy's values; results are buffers."""
    import pyopencl.tools as clt
    dev = queue.device
    if not getattr(dev, "svm_capabilities", 0):
        pytest.skip("the device has no SVM")
    alloc = clt.SVMAllocator(context, alignment=0, queue=queue)
    rng = np.random.default_rng(77)
    x = rng.integers(-9, 9, (61, 70)).astype(np.float32)
    x[x == 0] = -0.0
    a = cla.to_device(queue, x, allocator=alloc)
    assert not isinstance(a.base_data, cl.MemoryObjectHolder)
    flat = x.ravel()
    for op in ("sum", "prod", "min", "max"):
        want = getattr(np, op)(x.astype(np.float64) if op == "prod" else x)
        got = getattr(ocr, op)(a, **({"dtype": np.float64} if op == "prod" else {}))
        assert isinstance(got.base_data, cl.MemoryObjectHolder)
        assert got.get()[()] == want and ocr.value(a, op, **(
            {"dtype": np.float64} if op == "prod" else {})) == want
    assert ocr.argmax(a).get()[()] == x.argmax() and ocr.argmin(a).get()[()] == x.argmin()
    np.testing.assert_array_equal(ocr.sum(a, axis=0).get(), x.sum(axis=0))
    np.testing.assert_array_equal(ocr.max(a, axis=1).get(), x.max(axis=1))
    np.testing.assert_array_equal(ocr.argmin(a, axis=0).get(), x.argmin(axis=0))
    v = a.ravel()
    assert ocr.sum(v, slice=slice(3, 4000, 7)).get()[()] == flat[3:4000:7].sum()
    assert ocr.sum(v[10:][::-3]).get()[()] == flat[10:][::-3].sum()
    got = ocr.segment_reduce(v, np.array([0, 5, 5, 4270]), "max").get()
    np.testing.assert_array_equal(got, [flat[:5].max(), -np.inf, flat[5:].max()])
    z = cla.to_device(queue, np.array([1.0, 0.0, -0.0, 3.0], np.float32), allocator=alloc)
    assert np.signbit(ocr.min(z).get()[()]) == np.signbit(_numpy_loop(z.get(), "min"))
    i = cla.to_device(queue, rng.integers(0, 1 << 30, 5000).astype(np.int32), allocator=alloc)
    assert ocr.sum(i, dtype=np.int64).get()[()] == i.get().sum(dtype=np.int64)


def test_results_are_whole_arrays(queue, monkeypatch):
    """A 0-d result made the fast way (no Array.__init__) is an Array like
    any: its attributes are empty()'s, and it adds, fills, copies and reads
    back; with the prototype refused (another PyOpenCL), empty() is used."""
    x = np.arange(1, 1001, dtype=np.float32)
    a = cla.to_device(queue, x)
    for _ in range(2):  # the first call makes the prototype, the second uses it
        r = ocr.sum(a)
    ref = cla.empty(queue, (), np.float32)
    assert type(r) is cla.Array and set(vars(r)) == set(vars(ref))
    assert all(vars(r)[k] == vars(ref)[k] for k in ("shape", "dtype", "strides", "nbytes",
                                                    "size", "offset"))
    assert r.base_data is not ocr.sum(a).base_data and r.events
    assert r.get()[()] == x.sum() and (r + 1).get()[()] == x.sum() + 1
    c = r.copy()
    r.fill(np.float32(2))
    assert r.get()[()] == 2 and c.get()[()] == x.sum()
    monkeypatch.setattr(ocr._arrays, "_scalar_protos", {np.dtype(np.float32): None})
    s = ocr.sum(a)
    assert s.get()[()] == x.sum() and ocr._arrays._scalar_protos[np.dtype(np.float32)] is None
