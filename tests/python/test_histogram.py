"""oclreduction.histogram and bincount against NumPy's np.histogram and
np.bincount on the same data: every dtype the library counts, drawn data of
several seeds, values on the edges, NaN and infinities, one-bin data, empty
input, weights, density, edges given, strided views, events, and NumPy's
errors for wrong arguments."""
import warnings

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest
from conftest import has_fp64

import oclreduction
from oclreduction import _histogram

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
ALL = INTS + FLOATS
SEEDS = [1, 2, 3]


def drawn(dtype, n, seed):
    """n values of dtype: integers over the type's range (or a part of it),
    floats spread over a few orders of magnitude with repeats and negatives."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (info.min, info.max) if seed % 2 else (max(info.min, -50), min(info.max, 200))
        return rng.integers(lo, hi, n, dtype=dt, endpoint=True)
    x = rng.normal(0, 10 ** rng.integers(0, 3), n)
    x[rng.random(n) < 0.1] = 1.5  # a repeated value
    return x.astype(dt)


def skip_no_fp64(queue, dtype=None):
    if not has_fp64(queue):
        pytest.skip("the device has no fp64")


def same(got, want):
    """got (a pyopencl Array) holds NumPy's array, value by value (NaN where
    NumPy has NaN), with its dtype and shape."""
    assert isinstance(got, cla.Array)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, g.shape, want.dtype,
                                                             want.shape)
    np.testing.assert_array_equal(g, want)


def check_hist(queue, host, **kw):
    a = cla.to_device(queue, host)
    counts, edges = oclreduction.histogram(a, **kw)
    want_counts, want_edges = np.histogram(host, **kw)
    same(edges, want_edges)
    same(counts, want_counts)
    return counts.get()


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("seed", SEEDS)
def test_drawn_data_like_numpy(queue, dtype, seed):
    skip_no_fp64(queue)
    rng = np.random.default_rng(seed + 100)
    host = drawn(dtype, int(rng.integers(1, 20000)), seed)
    bins = int(rng.choice([1, 7, 64, 256]))
    check_hist(queue, host, bins=bins)  # range from the device's min and max
    lo, hi = np.sort(rng.choice(host, 2)).astype(np.float64)
    if lo == hi:
        hi = lo + 1
    got = check_hist(queue, host, bins=bins, range=(lo, hi))
    assert got.sum() <= host.size


@pytest.mark.parametrize("dtype", ALL)
def test_values_on_the_edges(queue, dtype):
    """Every edge itself as a sample, a few times, and a value one step under
    each edge: edges[i] <= x < edges[i + 1], the last edge in the last bin."""
    skip_no_fp64(queue)
    dt = np.dtype(dtype)
    edges = np.histogram_bin_edges(np.array([0, 100], dt), bins=10)
    on = np.repeat(edges, 3).astype(dt)
    host = on
    if dt.kind == "f":
        below = np.nextafter(edges.astype(dt), dt.type(-np.inf)).astype(dt)
        host = np.concatenate([on, below])
    else:
        host = np.concatenate([on, on - (on > 0)]).astype(dt)
    got = check_hist(queue, host, bins=10, range=(0, 100))
    assert got[-1] >= 3  # the last edge, three times, is counted


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_and_infinities(queue, dtype):
    skip_no_fp64(queue)
    host = drawn(dtype, 5000, 4)
    host[::7] = np.nan
    host[1::11] = np.inf
    host[2::13] = -np.inf
    got = check_hist(queue, host, bins=20, range=(-5, 5))  # neither NaN nor inf counted
    assert got.sum() < np.isfinite(host).sum()
    a = cla.to_device(queue, host)
    for bad in (host, np.where(np.isnan(host), 0, host).astype(dtype)):  # NaN; inf
        with pytest.raises(ValueError, match="autodetected range of .* is not finite"):
            oclreduction.histogram(cla.to_device(queue, bad))
        with pytest.raises(ValueError):
            np.histogram(bad)
    with pytest.raises(ValueError, match="supplied range of .* is not finite"):
        oclreduction.histogram(a, range=(0, np.inf))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float16, np.float32, np.float64])
def test_one_bin_data_and_a_single_value(queue, dtype):
    """Every sample the same value: the range widens by 0.5 each way (NumPy),
    all samples in the middle bin; one bin; one sample."""
    skip_no_fp64(queue)
    host = np.full(4099, 7, dtype)
    got = check_hist(queue, host)
    assert got[5] == 4099 and got.sum() == 4099
    check_hist(queue, host, bins=1)
    check_hist(queue, host[:1], bins=3)
    check_hist(queue, host, bins=4, range=(7, 7))


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float32])
def test_empty_input(queue, dtype):
    skip_no_fp64(queue)
    host = np.empty(0, dtype)
    check_hist(queue, host)
    check_hist(queue, host, bins=5, range=(-1, 1))
    check_hist(queue, host, bins=[0, 1, 5])
    got = oclreduction.bincount(cla.to_device(queue, np.empty(0, np.int32)), minlength=4)
    same(got, np.bincount(np.empty(0, np.int32), minlength=4))


@pytest.mark.parametrize("seed", SEEDS)
def test_bins_as_edges(queue, seed):
    skip_no_fp64(queue)
    rng = np.random.default_rng(seed)
    host = drawn(np.float32, 10000, seed)
    edges = np.unique(rng.choice(host, 30).astype(np.float64))
    check_hist(queue, host, bins=edges)
    check_hist(queue, host, bins=list(edges[:3]))
    ints = drawn(np.int16, 10000, 2)
    check_hist(queue, ints, bins=[-40, -3, 0, 1, 2, 50, 199])  # integer edges, returned so
    check_hist(queue, ints, bins=[-np.inf, 0, np.inf])
    check_hist(queue, ints, bins=[5, 5, 9])  # an empty bin between equal edges
    check_hist(queue, ints, bins=[3])  # no bins
    check_hist(queue, host, bins=edges, range=(0, 1))  # range unused with edges


@pytest.mark.parametrize("wdtype", [np.float64, np.float32, np.int32, np.float16])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_weights(queue, wdtype, seed):
    """Sums of weights per bin of the weights' dtype; weights that are
    multiples of 1/4 with small sums, exact in any order of addition."""
    skip_no_fp64(queue)
    rng = np.random.default_rng(seed)
    host = drawn(np.float32, 9000, seed)
    w = (rng.integers(-8, 9, host.size) / 4).astype(wdtype) if np.dtype(wdtype).kind == "f" \
        else rng.integers(-1000, 1000, host.size).astype(wdtype)
    a, wd = cla.to_device(queue, host), cla.to_device(queue, w)
    for kw in ({"bins": 13}, {"bins": 5, "range": (-3.0, 4.0)},
               {"bins": np.array([-10.0, 0.0, 0.5, 30.0])}):
        got, edges = oclreduction.histogram(a, weights=wd, **kw)
        want, want_edges = np.histogram(host, weights=w, **kw)
        same(edges, want_edges)
        same(got, want)


def test_float32_weights_are_added_in_double(queue):
    """1e8 and a thousand ones in one bin: NumPy's float32 result is the
    double sum rounded once (1e8 + 1000); float32 additions lose the ones."""
    skip_no_fp64(queue)
    host = np.zeros(1001, np.float32)
    w = np.ones(1001, np.float32)
    w[500] = 1e8
    got, _ = oclreduction.histogram(cla.to_device(queue, host), bins=3, range=(-1, 1),
                                    weights=cla.to_device(queue, w))
    want, _ = np.histogram(host, bins=3, range=(-1, 1), weights=w)
    assert want[1] == np.float32(1e8 + 1000)
    same(got, want)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_density(queue, seed):
    skip_no_fp64(queue)
    host = drawn(np.int32, 7000, seed)
    a = cla.to_device(queue, host)
    for kw in ({"bins": 9}, {"bins": [-60.0, -1.0, 0.0, 100.0, 150.0]}):
        got, edges = oclreduction.histogram(a, density=True, **kw)
        want, _ = np.histogram(host, density=True, **kw)
        same(got, want)  # the same float64 divisions as NumPy's
    w = np.random.default_rng(seed).integers(0, 5, host.size).astype(np.float64)
    got, _ = oclreduction.histogram(a, bins=6, weights=cla.to_device(queue, w), density=True)
    same(got, np.histogram(host, bins=6, weights=w, density=True)[0])


def test_strided_and_reversed_views(queue):
    skip_no_fp64(queue)
    host = drawn(np.float64, 30001, 5)
    a = cla.to_device(queue, host)
    for view, ref in ((a[::3], host[::3]), (a[::-2], host[::-2]), (a[5:20001:7], host[5:20001:7])):
        got, edges = oclreduction.histogram(view, bins=17)
        want, want_edges = np.histogram(ref, bins=17)
        same(edges, want_edges)
        same(got, want)
    m = host[:30000].reshape(100, 300)
    d = cla.to_device(queue, m)
    for view, ref in ((d.T, m.T), (d[::2, 1::3], m[::2, 1::3])):
        same(oclreduction.histogram(view, bins=9)[0], np.histogram(ref, bins=9)[0])
    # with weights, a view pairs with its weights element by element
    w = np.arange(m.size, dtype=np.float64).reshape(m.shape) % 5
    wd = cla.to_device(queue, w)
    got, _ = oclreduction.histogram(d.T, bins=9, weights=cla.to_device(queue, w.T.copy()))
    same(got, np.histogram(m.T, bins=9, weights=w.T)[0])
    got, _ = oclreduction.histogram(d[::2], bins=9, weights=wd[::2])
    same(got, np.histogram(m[::2], bins=9, weights=w[::2])[0])
    x = drawn(np.int32, 9999, 1) % 40
    xd = cla.to_device(queue, np.abs(x))
    same(oclreduction.bincount(xd[::-3]), np.bincount(np.abs(x)[::-3]))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.bool_])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_bincount_like_numpy(queue, dtype, seed):
    rng = np.random.default_rng(seed)
    top = 2 if dtype is np.bool_ else int(rng.choice([1, 50, 127]))
    host = rng.integers(0, top, int(rng.integers(1, 30000))).astype(dtype)
    x = cla.to_device(queue, host)
    same(oclreduction.bincount(x), np.bincount(host))
    same(oclreduction.bincount(x, minlength=300), np.bincount(host, minlength=300))
    same(oclreduction.bincount(x, minlength=1), np.bincount(host, minlength=1))


@pytest.mark.parametrize("wdtype", [np.float64, np.float32, np.int64])
def test_bincount_weights(queue, wdtype):
    skip_no_fp64(queue)
    rng = np.random.default_rng(11)
    host = rng.integers(0, 70, 20000).astype(np.int32)
    w = (rng.integers(-20, 21, host.size) / 4).astype(wdtype)
    got = oclreduction.bincount(cla.to_device(queue, host), cla.to_device(queue, w),
                                minlength=100)
    same(got, np.bincount(host, w, minlength=100))


def test_bincount_refuses_like_numpy(queue):
    neg = np.array([3, 0, -1, 5], np.int16)
    with pytest.raises(ValueError, match="no negative elements"):
        oclreduction.bincount(cla.to_device(queue, neg))
    with pytest.raises(ValueError):
        np.bincount(neg)
    ok = cla.to_device(queue, np.array([1, 2, 3], np.int32))
    for bad, err in ((np.array([1, 2], np.uint64), TypeError),
                     (np.array([1.0, 2.0], np.float32), TypeError),
                     (np.array([[1, 2]], np.int32), ValueError)):
        with pytest.raises(err):
            np.bincount(bad)
        with pytest.raises(err):
            oclreduction.bincount(cla.to_device(queue, bad))
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        oclreduction.bincount(ok, minlength=-1)
    with pytest.raises(TypeError):
        oclreduction.bincount(ok, minlength=2.0)
    with pytest.raises(ValueError, match="same length"):
        oclreduction.bincount(ok, weights=cla.to_device(queue, np.ones(2)))
    with pytest.raises(TypeError):
        oclreduction.bincount(np.array([1, 2]))


def test_histogram_refuses_like_numpy(queue):
    host = np.array([1.0, 2.0, 3.0])
    a = cla.to_device(queue, host)
    cases = [({"bins": 0}, ValueError), ({"bins": -3}, ValueError), ({"bins": 2.5}, TypeError),
             ({"bins": [[1, 2], [3, 4]]}, ValueError), ({"bins": [3, 2, 4]}, ValueError),
             ({"range": (3, 2)}, ValueError), ({"range": (3,)}, ValueError),
             ({"range": (0, np.nan)}, ValueError)]
    for kw, err in cases:
        with pytest.raises(err):
            np.histogram(host, **kw)
        with pytest.raises(err):
            oclreduction.histogram(a, **kw)
    with pytest.raises(ValueError, match="same shape"):
        oclreduction.histogram(a, weights=cla.to_device(queue, np.ones(2)))
    with pytest.raises(TypeError):
        oclreduction.histogram(host)  # a NumPy array, not a device one
    with pytest.raises(TypeError):
        oclreduction.histogram(a, bins="auto")
    with pytest.raises(TypeError):
        oclreduction.histogram(cla.to_device(queue, host.astype(np.complex64)))
    with pytest.raises(TypeError):
        oclreduction.histogram(a, weights=host)


def test_bool_input_is_counted_as_uint8(queue):
    host = np.random.default_rng(3).random(999) < 0.3
    a = cla.to_device(queue, host)
    with pytest.warns(RuntimeWarning, match="Converting input from bool"):
        got, edges = oclreduction.histogram(a, bins=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, want_edges = np.histogram(host, bins=4)
    same(got, want)
    same(edges, want_edges)


def test_wait_for_and_events(queue):
    host = drawn(np.int32, 50000, 3)
    a = cla.to_device(queue, host)
    gate = cl.UserEvent(queue.context)
    counts, _ = oclreduction.histogram(a, bins=8, range=(-50, 200), wait_for=[gate])
    ev = counts.events[-1]
    assert ev.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    same(counts, np.histogram(host, bins=8, range=(-50, 200))[0])
    # the count's event is the input's too: a later write waits for it
    assert any(e.int_ptr == ev.int_ptr for e in a.events)


def test_out_of_order_queue_fill_then_count(ooo_queue):
    """a.fill(k) then histogram and bincount, on an out-of-order queue:
    each count must see its fill (a.events honoured)."""
    a = cla.empty(ooo_queue, 1 << 18, np.int32)
    for k in range(1, 6):
        a.fill(k)
        counts, _ = oclreduction.histogram(a, bins=5, range=(1, 6))
        assert list(counts.get()) == [a.size if j == k - 1 else 0 for j in range(5)]
        a.fill(k + 1)
        got = oclreduction.bincount(a).get()
        assert got.shape == (k + 2,) and got[k + 1] == a.size


def test_edges_are_numpys_without_a_device():
    """_bin_edges (host only) gives np.histogram_bin_edges' array, dtype
    included, for each dtype, bin count and range form."""
    for dtype in ALL + [np.uint8]:
        for seed in SEEDS:
            host = drawn(dtype, 100, seed)
            for bins in (1, 3, 10, 255):
                for rng in (None, (0, 1), (-2.5, 2.5), (3, 3), (np.float32(0.1), 0.9)):
                    got, even = _histogram._bin_edges(host, bins, rng,
                                                      lambda: (host.min(), host.max()))
                    want = np.histogram_bin_edges(host, bins, rng)
                    assert even and got.dtype == want.dtype
                    np.testing.assert_array_equal(got, want)
