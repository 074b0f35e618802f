"""stats, mean, var and std against NumPy: every dtype they take, sizes 0 to
over 2^21 (not multiples of a group; many first-pass groups), ddof, dtype=,
empty inputs, NaN and inf, offsets and strided views, events on an
out-of-order queue, the accuracy on data whose mean is large against their
spread (against the naive sum-of-squares formula), and a wrong merge that
the tests must catch."""
import types
import warnings

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr
from oclreduction import _custom
from conftest import patch_kernel

INTS = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
        np.uint64]
FLOATS = [np.float16, np.float32, np.float64, np.complex64, np.complex128]
SIZES = [1, 2, 255, 257, 4099, 1000003]


def values(dtype, n, seed=1, loc=0.0):
    """Random values of dtype (integers over a small range; complex with both
    parts random)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -50, 50, n).astype(dt)
    x = loc + rng.standard_normal(n) * 3
    if dt.kind == "c":
        x = x + 1j * (rng.standard_normal(n) * 2 - 1)
    return x.astype(dt)


def skip_fp64(queue, *dts):
    if queue.device.double_fp_config == 0 and any(
            np.dtype(d) in (np.float64, np.complex128) for d in dts):
        pytest.skip("no fp64 on this device")


def real_eps(dtype):
    """eps of the type the statistics are computed in (float16: float32)."""
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        return np.finfo(np.float64).eps
    return np.finfo(np.float32 if dt in (np.float16, np.complex64) else dt).eps


def refs(x, ddof):
    """NumPy's mean and var of x, computed in float64 / complex128 (exact
    enough to judge a float32 answer)."""
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.mean(wide), np.var(wide, ddof=ddof)


def check(got_mean, got_var, x, ddof, eps):
    """Within c * eps * log2(n) of the reference, scaled by the data (the
    spread for the mean, the variance for var; the float16 result's own
    rounding where it is float16)."""
    m, v = refs(x, ddof)
    n = max(x.size, 2)
    if np.dtype(np.asarray(got_var).dtype) == np.float16:
        eps = np.finfo(np.float16).eps
    tol = 4 * eps * np.log2(n)
    assert abs(got_mean - m) <= tol * (abs(m) + np.sqrt(abs(v)) + 1e-30), (got_mean, m)
    assert abs(got_var - v) <= tol * abs(v) + 1e-30, (got_var, v)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("n", [1, 257, 4099])
def test_every_dtype(queue, dtype, n):
    skip_fp64(queue, dtype, np.float64 if np.dtype(dtype).kind in "biu" else dtype)
    x = values(dtype, n, seed=n)
    a = cla.to_device(queue, x)
    want_mean, want_var = np.mean(x).dtype, np.var(x).dtype
    for ddof in (0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # n=1, ddof=1
            s = ocr.stats(a, ddof=ddof, minmax=np.dtype(dtype).kind != "c")
            m, v, sd = ocr.mean(a), ocr.var(a, ddof), ocr.std(a, ddof)
        assert s.count == n
        assert m.shape == v.shape == sd.shape == ()
        assert (m.dtype, v.dtype, sd.dtype) == (want_mean, want_var, want_var)
        assert (s.mean.dtype, s.var.dtype, s.std.dtype) == (want_mean, want_var, want_var)
        if n == 1 and ddof == 1:
            assert np.isnan(s.var) and np.isnan(v.get()[()]) and np.isnan(sd.get()[()])
            continue
        eps = real_eps(dtype)
        check(s.mean, s.var, x, ddof, eps)
        check(m.get()[()], v.get()[()], x, ddof, eps)
        sd_eps = np.finfo(want_var).eps  # sqrt rounded, squared: a few of the result's ulps
        assert abs(sd.get()[()] ** 2 - v.get()[()]) <= 4 * sd_eps * abs(v.get()[()]) + 1e-30
        if np.dtype(dtype).kind != "c":
            assert (s.min, s.max) == (x.min(), x.max())
            assert s.min.dtype == s.max.dtype == x.dtype
            assert (s.argmin, s.argmax) == (np.argmin(x), np.argmax(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES + [2 ** 21 + 17])
def test_random_sizes_and_seeds(queue, dtype, n):
    skip_fp64(queue, dtype)
    for seed in (3, 4, 5):
        x = values(dtype, n, seed, loc=seed)
        a = cla.to_device(queue, x)
        check(ocr.mean(a).get()[()], ocr.var(a).get()[()], x, 0, real_eps(dtype))
        if n > 1:
            s = ocr.stats(a, ddof=1, minmax=True)
            check(s.mean, s.var, x, 1, real_eps(dtype))
            assert (s.argmin, s.argmax) == (np.argmin(x), np.argmax(x))


@pytest.mark.parametrize("dtype,loc,n", [(np.float64, 1e8, 1000003), (np.float32, 1e4, 1000003),
                                         (np.float32, 1e4, 2 ** 21 + 17)])
def test_cancelling_data(queue, dtype, loc, n):
    """loc + N(0, 1): the condition number k = sqrt(1 + mean^2 / var) is loc.
    Chan's merge keeps var within eps * k * log2(n) (relative; measured
    some 100x inside it on POCL); the naive E[x^2] - E[x]^2 in the same
    type loses every digit."""
    skip_fp64(queue, dtype)
    for seed in (1, 2):
        x = (loc + np.random.default_rng(seed).standard_normal(n)).astype(dtype)
        exact = np.var(x.astype(np.longdouble))
        kappa = np.sqrt(1 + float(np.mean(x.astype(np.float64))) ** 2 / float(exact))
        bound = np.finfo(dtype).eps * kappa * np.log2(n)
        got = ocr.var(cla.to_device(queue, x)).get()[()]
        naive = np.mean(x * x, dtype=dtype) - np.mean(x, dtype=dtype) ** 2
        assert abs(got - exact) / exact <= bound, (got, exact, bound)
        assert abs(naive - exact) / exact > 100 * abs(got - exact) / exact
        assert abs(naive - exact) / exact > 0.1


def test_empty_and_ddof(queue):
    e = cla.empty(queue, (0,), np.float32)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(ocr.mean(e).get()[()])
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(ocr.var(e).get()[()])
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        s = ocr.stats(e, minmax=True)
    assert s.count == 0 and np.isnan(s.mean) and np.isnan(s.var) and s.min is None
    one = cla.to_device(queue, np.array([5.0], np.float32))
    assert ocr.var(one).get()[()] == 0
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(ocr.std(one, ddof=1).get()[()])
    two = cla.to_device(queue, np.array([1.0, 3.0], np.float32))
    with pytest.warns(RuntimeWarning):  # NumPy: M2 / max(n - ddof, 0) = 2 / 0
        assert ocr.var(two, ddof=2).get()[()] == np.inf
    assert ocr.var(two, ddof=0.5).get()[()] == np.float32(np.var([1.0, 3.0], ddof=0.5))
    with pytest.raises(ValueError):  # it is written into the kernel's text
        ocr.std(two, ddof=np.inf)
    c = cla.empty(queue, (0,), np.complex64)
    with pytest.warns(RuntimeWarning):
        got = ocr.mean(c).get()[()]
    assert got.dtype == np.complex64 and np.isnan(got.real) and np.isnan(got.imag)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_and_inf(queue, dtype):
    skip_fp64(queue, dtype)
    x = values(dtype, 100003, 6)
    for at in (0, 77777, 100002):
        y = x.copy()
        y[at] = y[at + 1 if at < 100002 else 0] = np.nan
        s = ocr.stats(cla.to_device(queue, y), minmax=True)
        assert np.isnan(s.mean) and np.isnan(s.var) and np.isnan(s.min) and np.isnan(s.max)
        assert s.argmin == s.argmax == np.argmin(y) == min(at, at + 1 if at < 100002 else 0)
    y = x.copy()
    y[500] = np.inf
    a = cla.to_device(queue, y)
    with np.errstate(invalid="ignore"):
        assert ocr.mean(a).get()[()] == np.mean(y) == np.inf
        assert np.isnan(ocr.var(a).get()[()]) and np.isnan(np.var(y))
    y[600] = -np.inf
    assert np.isnan(ocr.mean(cla.to_device(queue, y)).get()[()])
    with np.errstate(invalid="ignore"):
        assert np.isnan(ocr.var(cla.to_device(queue, np.array([np.inf], dtype))).get()[()])


def test_offsets_and_views(queue):
    x = values(np.float64, 10007, 7, loc=2.0)
    a = cla.to_device(queue, x)
    for view, ref in ((a[3:], x[3:]), (a[::2], x[::2]), (a[5::7], x[5::7]),
                      (a[::-3], x[::-3]), (a[:-4:-1], x[:-4:-1])):
        s = ocr.stats(view, ddof=1, minmax=True)
        check(s.mean, s.var, ref, 1, real_eps(np.float64))
        assert (s.count, s.argmin, s.argmax) == (ref.size, np.argmin(ref), np.argmax(ref))
        check(ocr.mean(view).get()[()], ocr.var(view, 1).get()[()], ref, 1, real_eps(np.float64))
    m = x[:10000].reshape(100, 100)
    for arr in (m, np.asfortranarray(m)):
        d = cla.to_device(queue, arr)
        check(ocr.mean(d).get()[()], ocr.var(d).get()[()], arr, 0, real_eps(np.float64))
    s = ocr.stats(cla.to_device(queue, m), minmax=True)  # C order's flat indices
    assert (s.argmin, s.argmax) == (np.argmin(m), np.argmax(m))
    with pytest.raises(ValueError):
        ocr.stats(cla.to_device(queue, np.asfortranarray(m)), minmax=True)
    with pytest.raises(ValueError):
        ocr.mean(cla.to_device(queue, m)[:, ::2])
    with pytest.raises(NotImplementedError):
        ocr.var(cla.to_device(queue, m), axis=0)
    assert ocr.mean(a, axis=0).get()[()] == ocr.mean(a).get()[()]  # the only axis


def test_dtype_argument(queue):
    x = values(np.int32, 5001, 8)
    a = cla.to_device(queue, x)
    for dt in (np.float32, np.float16, np.complex64):
        with np.errstate(over="ignore"):  # NumPy's float16 sum of squares
            assert ocr.mean(a, dtype=dt).dtype == np.mean(x, dtype=dt).dtype
            assert ocr.var(a, dtype=dt).dtype == np.var(x, dtype=dt).dtype
        s = ocr.stats(a, dtype=dt)
        assert (s.mean.dtype, s.var.dtype) == (np.dtype(dt), np.dtype(dt))
        check(s.mean, s.var, x, 0, real_eps(dt))
    c = values(np.complex64, 3001, 9)
    for dt in (None, np.complex128):  # var's type: real, or complex where dtype= says so
        with np.errstate(over="ignore"):
            assert ocr.var(cla.to_device(queue, c), dtype=dt).dtype == np.var(c, dtype=dt).dtype
        check(ocr.mean(a, dtype=dt).get()[()], ocr.var(a, dtype=dt).get()[()], x, 0,
              real_eps(dt))
    with pytest.raises(TypeError):
        ocr.mean(a, dtype=np.int64)
    c = cla.to_device(queue, values(np.complex64, 10, 9))
    with pytest.raises(TypeError):
        ocr.var(c, dtype=np.float32)
    with pytest.raises(ValueError):
        ocr.stats(c, minmax=True)
    with pytest.raises(TypeError):
        ocr.mean(x)


def test_no_fp64_is_a_clear_error(queue):
    """A device without fp64 (faked: the check reads device.double_fp_config)."""
    dev = types.SimpleNamespace(double_fp_config=0, name="no-fp64")
    fake = types.SimpleNamespace(device=dev, context=queue.context)
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="float64"):
        ocr.mean(a, queue=fake)
    with pytest.raises(TypeError, match="float64"):
        ocr.stats(a, queue=fake)


def test_out_of_order_queue_waits(ooo_queue):
    """A pending UserEvent on the input (a copy behind it): mean, var and
    stats wait for it; the input's events then name the last run's alone."""
    ctx = ooo_queue.context
    n = 100003
    a = cla.zeros(ooo_queue, n, np.float32)
    a.finish()
    gate = cl.UserEvent(ctx)
    a.add_event(cl.enqueue_copy(ooo_queue, a.base_data, np.arange(n, dtype=np.float32),
                                wait_for=[gate], is_blocking=False))
    try:
        m = ocr.mean(a)
        v = ocr.var(a[::2])
        last = v.events[-1]
        assert m.events[-1].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    ref = np.arange(n, dtype=np.float64)
    assert abs(m.get()[()] - ref.mean()) <= 1e-5 * ref.mean()
    assert abs(v.get()[()] - ref[::2].var()) <= 1e-5 * ref[::2].var()
    mine = [e for e in a.events if not isinstance(e, cl.NannyEvent)]
    assert [e.int_ptr for e in mine] == [last.int_ptr]
    b = cla.zeros(ooo_queue, n, np.float32)
    b.finish()
    gate = cl.UserEvent(ctx)
    ev = cl.enqueue_copy(ooo_queue, b.base_data, np.ones(n, np.float32), wait_for=[gate],
                         is_blocking=False)
    gate.set_status(cl.command_execution_status.COMPLETE)
    assert ocr.stats(b, wait_for=[ev]).mean == 1  # wait_for= alone


def test_a_wrong_merge_is_caught(queue, monkeypatch):
    """Mutants of the merge (the cross term's weight, the mean's update)
    built afresh (an empty spec cache) must fail the reference check."""
    x = values(np.float32, 100003, 10, loc=3.0)
    a = cla.to_device(queue, x)
    for wrong in (("(na * wb)", "wb"), ("r.m = a.m + d * wb", "r.m = a.m + d * 0.5f")):
        monkeypatch.setattr(_custom, "_specs", {})
        patch_kernel(monkeypatch, "stats.cl", *wrong)
        with pytest.raises(AssertionError):
            check(ocr.mean(a).get()[()], ocr.var(a).get()[()], x, 0, real_eps(np.float32))
    monkeypatch.undo()
    check(ocr.mean(a).get()[()], ocr.var(a).get()[()], x, 0, real_eps(np.float32))


def walk_n(queue, per_item=8, least=100003):
    """Elements enough that every work-item of a first pass walks per_item
    of them on this device (groups of 256 at most, the package's groups per
    compute unit), n % 4 == 3: fewer, and a walk's mutant can hide (an
    H200's 270,336 work-items took one of 100,003 elements each, whose
    shifted square is 0 however it is summed)."""
    g = 256 * _custom._GROUPS_PER_CU * queue.device.max_compute_units
    return max(least, per_item * g) | 3


@pytest.mark.parametrize("wrong", [
    ("ocr_st_d * ocr_st_d", "ocr_st_d"),           # s2 of d, not d^2
    ("ocr_st_x - ocr_st_k", "ocr_st_x - ocr_st_s1"),  # a moving shift
    ("ocr_st_c = ocr_rk_count", "ocr_st_c = ocr_rk_count + 1"),  # one too many
    ("ocr_st_k + ocr_st_s1 / c", "ocr_st_s1 / c"),   # the shift left out
    ("ocr_st_s1 * (ocr_st_s1 / c)", "ocr_st_s1"),    # M2's correction
    ("ocr_rk_v.n = ocr_st_c", "ocr_rk_v.n = 1"),     # the work-item's count
])
def test_a_wrong_walk_is_caught(queue, monkeypatch, wrong):
    """Mutants of a work-item's own walk (shifted sums, then one triple)
    built afresh must fail the reference check; mean, var and stats() all
    take that walk for real data without min/max. The view starts one
    element off 16 bytes: on the GPU walk, the scalar one, not the 16-byte
    loads (test_gpu_walk's own mutants)."""
    x = values(np.float32, walk_n(queue) + 1, 11, loc=3.0)
    a = cla.to_device(queue, x)[1:]
    x = x[1:]
    monkeypatch.setattr(_custom, "_specs", {})
    patch_kernel(monkeypatch, "stats.cl", *wrong)  # the mutant changes the text
    with pytest.raises(AssertionError):
        got = ocr.stats(a)
        check(got.mean, got.var, x, 0, real_eps(np.float32))
    with pytest.raises(AssertionError):
        check(ocr.mean(a).get()[()], ocr.var(a).get()[()], x, 0, real_eps(np.float32))


@pytest.mark.parametrize("size", [100003, 7])
def test_a_wrong_count_is_caught(queue, monkeypatch, size):
    """The template's count of a work-item's elements (the seq walk's c: the
    stats take it rather than counting) off by one for the walk this device
    takes (the GPU walk: the work-items whose last stride falls short) must
    fail the reference check. The view starts one element off 16 bytes: the
    GPU walk's 16-byte loads (which count for themselves) are not taken."""
    wrong = (("ocr_rk_end - ocr_rk_lo;", "ocr_rk_end - ocr_rk_lo - (ocr_rk_end > ocr_rk_lo);")
             if _custom._blocked(queue.device)
             else ("/ ocr_rk_g + 1 : 0", "/ ocr_rk_g : 0"))
    x = values(np.float32, size + 1, 12, loc=3.0)
    a = cla.to_device(queue, x)[1:]
    monkeypatch.setattr(_custom, "_specs", {})
    patch_kernel(monkeypatch, "custom.cl", *wrong)
    with pytest.raises(AssertionError):
        check(ocr.mean(a).get()[()], ocr.var(a).get()[()], x[1:], 0, real_eps(np.float32))
