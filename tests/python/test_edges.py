"""Every Python reduction checks what it reads (issue 51): lengths NumPy
requires equal, ReductionKernel arguments at least as long as the range,
range= inside the arrays, subset indices inside the array (IndexError, as
NumPy; PyOpenCL reads outside the buffer), views refused in the caller's
terms; subset_min/subset_max/any/all against NumPy on drawn data; argument
names in the template's namespace; mean/var of values whose sum overflows."""
import numpy as np
import pyopencl.array as cla
import pytest

import oclreduction as ocr

RNG = np.random.default_rng(51)


def _drawn(n, dtype=np.float64):
    return RNG.integers(-8, 9, n).astype(dtype)


def _kernel(queue, n_args=2):
    names = ["x", "y", "z"][:n_args]
    return ocr.ReductionKernel(queue.context, np.float64, "0", "a+b",
                               "*".join(f"{v}[i]" for v in names),
                               ", ".join(f"__global double *{v}" for v in names))


@pytest.mark.parametrize("fn", ["dot", "vdot"])
def test_dot_lengths(queue, fn):
    n = int(RNG.integers(500, 2000))
    x, y = _drawn(n), _drawn(n)
    f = getattr(ocr, fn)
    assert f(cla.to_device(queue, x), cla.to_device(queue, y)).get()[()] == np.dot(x, y)
    short = cla.to_device(queue, y[:n // 7])
    with pytest.raises(ValueError, match="not aligned"):
        f(cla.to_device(queue, x), short)
    with pytest.raises(ValueError, match="not aligned"):
        f(short, cla.to_device(queue, x))


def test_kernel_argument_shorter_than_range(queue):
    n = int(RNG.integers(500, 2000))
    x, y = _drawn(n), _drawn(n)
    k = _kernel(queue)
    assert k(cla.to_device(queue, x), cla.to_device(queue, y)).get()[()] == np.dot(x, y)
    with pytest.raises(ValueError, match=r"argument 2 \(y\) has 10 elements"):
        k(cla.to_device(queue, x), cla.to_device(queue, y[:10]))
    # an argument the map does not read as name[i] (a table) may be shorter
    t = _drawn(4)
    k4 = ocr.ReductionKernel(queue.context, np.float64, "0", "a+b", "x[i] * t[i % 4] + t[0]",
                             "__global double *x, __global double *t")
    want = (x * np.resize(t, n)).sum() + n * t[0]
    assert k4(cla.to_device(queue, x), cla.to_device(queue, t)).get()[()] == want
    # a longer second argument is fine: the first's indices are read
    long_y = np.concatenate([y, _drawn(33)])
    assert k(cla.to_device(queue, x), cla.to_device(queue, long_y)).get()[()] == np.dot(x, y)


def test_range_inside_the_arrays(queue):
    n = int(RNG.integers(500, 2000))
    x, y = _drawn(n), _drawn(n)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    k = _kernel(queue)
    lo, hi = sorted(RNG.integers(0, n, 2))
    assert k(a, b, range=slice(int(lo), int(hi) + 1)).get()[()] == np.dot(x[lo:hi + 1],
                                                                          y[lo:hi + 1])
    assert k(a, b, range=slice(n - 1, 0, -3)).get()[()] == np.dot(x[n - 1:0:-3], y[n - 1:0:-3])
    for bad in (slice(0, n + 1), slice(0, 5 * n), slice(-1, 10), slice(n, 0, -1)):
        with pytest.raises(ValueError, match="range="):
            k(a, b, range=bad)
    # slice= is NumPy slicing of the first argument (clamped), so never outside
    s = slice(int(lo), 5 * n)
    assert k(a, b, slice=s).get()[()] == np.dot(x[s], y[s])
    assert ocr.dot(a, b, slice=s).get()[()] == np.dot(x[s], y[s])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
def test_subset_dot_indices(queue, dtype):
    # float results: a bad index is a NaN, checked on the host; others: a flag
    n = int(RNG.integers(500, 2000))
    x, y = _drawn(n, dtype), _drawn(n, dtype)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    for st in (np.int32, np.int64, np.uint32):
        idx = RNG.integers(0, n, 300).astype(st)
        got = ocr.subset_dot(cla.to_device(queue, idx), a, b).get()[()]
        assert got == np.dot(x[idx], y[idx])
    for bad in ([0, 5, 100000], [0, -1], [n], [3, n - 1, -n]):
        with pytest.raises(IndexError, match="out of bounds"):
            ocr.subset_dot(cla.to_device(queue, np.array(bad, np.int32)), a, b)
    # against the shorter of the two arrays
    with pytest.raises(IndexError):
        ocr.subset_dot(cla.to_device(queue, np.array([n // 2], np.int32)), a,
                       cla.to_device(queue, y[:n // 2]))
    # slice= selects from the subset: a bad index outside it is not read
    # NaN data at good indices are NaN, not an IndexError
    if np.dtype(dtype).kind == "f":
        xn = x.copy()
        xn[7] = np.nan
        got = ocr.subset_dot(cla.to_device(queue, np.array([7, 8], np.int32)),
                             cla.to_device(queue, xn), b).get()[()]
        assert np.isnan(got)
    idx = np.array([1, 2, 3, 10 * n], np.int32)
    assert ocr.subset_dot(cla.to_device(queue, idx), a, b, slice=slice(0, 3)).get()[()] == \
        np.dot(x[1:4], y[1:4])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8])
def test_subset_min_max(queue, dtype):
    n = int(RNG.integers(300, 3000))
    x = RNG.integers(0 if dtype == np.uint8 else -100, 100, n).astype(dtype)
    a = cla.to_device(queue, x)
    idx = RNG.integers(0, n, int(RNG.integers(1, 400))).astype(np.int32)
    s = cla.to_device(queue, idx)
    assert ocr.subset_min(s, a).get()[()] == x[idx].min()
    assert ocr.subset_max(s, a).get()[()] == x[idx].max()
    assert ocr.subset_min(s, a).dtype == np.dtype(dtype)
    with pytest.raises(IndexError):
        ocr.subset_max(cla.to_device(queue, np.array([0, n], np.int32)), a)
    with pytest.raises(ValueError, match="zero-size"):
        ocr.subset_min(cla.to_device(queue, np.zeros(0, np.int32)), a)


def test_subset_min_nan(queue):
    x = RNG.random(1000)
    x[17] = np.nan
    a = cla.to_device(queue, x)
    with_nan = cla.to_device(queue, np.array([3, 17, 40], np.int32))
    without = cla.to_device(queue, np.array([3, 40], np.int32))
    assert np.isnan(ocr.subset_min(with_nan, a).get()[()])
    assert np.isnan(ocr.subset_max(with_nan, a).get()[()])
    assert ocr.subset_min(without, a).get()[()] == min(x[3], x[40])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.complex128])
def test_any_all(queue, dtype):
    for zeros in (0, 1, 50, 1000):
        x = (RNG.integers(1, 5, 1000) * (1 + 1j if dtype == np.complex128 else 1)).astype(dtype)
        x[RNG.permutation(1000)[:zeros]] = 0
        a = cla.to_device(queue, x)
        assert ocr.any(a).get()[()] == np.any(x) and ocr.all(a).get()[()] == np.all(x)
        assert ocr.any(a).dtype == np.int8
    e = cla.to_device(queue, np.zeros(0, np.float32))
    assert ocr.any(e).get()[()] == 0 and ocr.all(e).get()[()] == 1


@pytest.mark.parametrize("call", [
    lambda v: ocr.dot(v, v), lambda v: ocr.vdot(v, v), lambda v: ocr.norm(v),
    lambda v: ocr.count_nonzero(v), lambda v: ocr.any(v), lambda v: ocr.all(v)])
@pytest.mark.parametrize("view", [np.s_[::-1], np.s_[::3], np.s_[-2::-2]])
def test_views_refused_in_the_callers_terms(queue, call, view):
    x = _drawn(999)
    a = cla.to_device(queue, x)
    assert ocr.sum(a[view]).get()[()] == x[view].sum()  # sum reads them
    with pytest.raises(ValueError, match="contiguous") as e:
        call(a[view])
    assert "ocr_" not in str(e.value)


def test_kernel_arguments_named_like_the_template(queue):
    n = int(RNG.integers(100, 5000))
    x, y = _drawn(n), _drawn(n)
    for a, b in (("ocr_rk_out", "ocr_rk_x"), ("ocr_rk_p_x", "ocr_rk_o_x"), ("ocr_rk_n", "x")):
        k = ocr.ReductionKernel(queue.context, np.float64, "0", "a+b", f"{a}[i]*{b}[i]",
                                f"__global double *{a}, __global double *{b}")
        assert k(cla.to_device(queue, x), cla.to_device(queue, y)).get()[()] == np.dot(x, y)
    with pytest.raises(ValueError, match="rename one"):
        ocr.ReductionKernel(queue.context, np.float64, "0", "a+b", "ocr_rk_x[i]",
                            "__global double *ocr_rk_x, __global double *ocr_rku_x")


def test_mean_var_do_not_overflow(queue):
    # Intended (docs/python.md): mean and var are computed from shifted sums,
    # so values whose plain sum overflows give the exact answer where NumPy's
    # sum overflows to inf.
    v = float(RNG.choice([1e308, 1.5e308, -1.7e308]))
    a = cla.to_device(queue, np.full(int(RNG.integers(2, 64)), v))
    assert ocr.mean(a).get()[()] == v
    assert ocr.var(a).get()[()] == 0.0
    with np.errstate(over="ignore"):
        assert np.isinf(np.mean(a.get()))
