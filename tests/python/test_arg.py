"""argmin / argmax against NumPy: the first index of the extreme, NaN as NumPy
(the first NaN wins), -0.0 equal to +0.0, ties, extremes of every type, sizes
around the kernel's vectors and groups, slices, events."""
import os
import shutil

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr

from conftest import DTYPES, SOURCE, has_fp64

SIZES = [1, 2, 3, 5, 17, 1000, 4103, 65537, 1000003]
FUNCS = {"argmin": (ocr.argmin, np.argmin), "argmax": (ocr.argmax, np.argmax)}


def _skip_fp64(queue, dtype):
    if np.dtype(dtype) == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")


def _check(queue, name, x):
    ours, theirs = FUNCS[name]
    got = ours(cla.to_device(queue, x)).get()[()]
    assert got == theirs(x), (name, x.dtype, x.size)
    return got


def _ties(dtype, n, rng):
    """Values from a small range: the extreme occurs many times."""
    v = rng.integers(-5, 6, n) if np.dtype(dtype).kind in "if" else rng.integers(0, 11, n)
    return v.astype(dtype)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_ties_pick_the_first_index(queue, name, dtype, n):
    _skip_fp64(queue, dtype)
    rng = np.random.default_rng(n * 7 + DTYPES.index(dtype))
    _check(queue, name, _ties(dtype, n, rng))


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_extreme_at_every_end(queue, name, dtype):
    """The extreme alone at the first, the last, and an interior element (a
    kernel that loses a head, a tail or a group's last element fails)."""
    _skip_fp64(queue, dtype)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else np.finfo(dtype)
    for n in (7, 4103, 65537):
        for at in (0, n - 1, n // 2, 1023 % n):
            x = np.full(n, 3, dtype)
            x[at] = info.min if name == "argmin" else info.max
            assert _check(queue, name, x) == at


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_worst_value_everywhere(queue, name, dtype):
    """The first pass's lanes start from the type's worst value (-inf or the
    minimum for argmax, +inf or the maximum for argmin) at their first
    element: data made of it, alone or with one better element, and NaN
    first or last among them."""
    _skip_fp64(queue, dtype)
    floating = np.dtype(dtype).kind == "f"
    info = np.finfo(dtype) if floating else np.iinfo(dtype)
    if name == "argmax":
        worst = -np.inf if floating else info.min
    else:
        worst = np.inf if floating else info.max
    x = np.full(1, worst, dtype)
    # the next better value: a lane starting from a wrong "worst" misses it
    if floating:
        better = np.nextafter(x, np.zeros_like(x))[0]
    else:
        better = x[0] + dtype(1) if name == "argmax" else x[0] - dtype(1)
    for n in (1, 5, 4103, 65537):
        x = np.full(n, worst, dtype)
        assert _check(queue, name, x) == 0
        for at in (n - 1, n // 2, 1 % n):
            y = x.copy()
            y[at] = better
            assert _check(queue, name, y) == at
            if floating:
                y[n - 1] = np.nan
                assert _check(queue, name, y) == n - 1
                y[0] = np.nan
                assert _check(queue, name, y) == 0


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_inf_and_signed_zero(queue, name, dtype):
    _skip_fp64(queue, dtype)
    n = 10001
    x = np.linspace(-1, 1, n).astype(dtype)
    x[[3, 9000]] = np.nan          # NumPy: the first NaN, for argmin and argmax
    _check(queue, name, x)
    y = np.zeros(n, dtype)
    y[::2] = -0.0                  # equal values: index 0 either way
    assert _check(queue, name, y) == 0
    y[0] = 0.0
    y[1] = -0.0
    assert _check(queue, name, y) == 0
    z = np.ones(n, dtype)
    z[[5, 77]] = np.inf
    z[[6, 78]] = -np.inf
    _check(queue, name, z)
    w = np.full(n, np.nan, dtype)
    assert _check(queue, name, w) == 0


@pytest.mark.parametrize("name", FUNCS)
def test_slices_count_from_the_slice(queue, name):
    x = np.arange(100003, dtype=np.float32) % 997
    a = cla.to_device(queue, x)
    for lo, hi in ((1, 100003), (3, 5000), (4097, 4100), (99999, 100003)):
        got = FUNCS[name][0](a[lo:hi]).get()[()]
        assert got == FUNCS[name][1](x[lo:hi]), (lo, hi)


@pytest.mark.parametrize("name", FUNCS)
def test_two_d_arrays_flatten_in_c_order(queue, name):
    x = np.random.default_rng(3).integers(-9, 9, (37, 101)).astype(np.int32)
    assert FUNCS[name][0](cla.to_device(queue, x)).get()[()] == FUNCS[name][1](x)
    f = cla.to_device(queue, np.asfortranarray(x))  # NumPy's index still counts in C order
    assert FUNCS[name][0](f).get()[()] == FUNCS[name][1](x)


def test_empty_and_refusals(queue):
    with pytest.raises(ValueError, match="empty"):
        ocr.argmax(cla.empty(queue, 0, np.float32))
    with pytest.raises(TypeError):
        ocr.argmin(np.arange(3))
    with pytest.raises(ocr.OcrError):
        ocr.Reducer(queue.context, np.int32, "argmax", acc_dtype=np.int64)


def test_out_of_order_queue_waits_for_the_fill(ooo_queue):
    for i in range(10):
        x = np.zeros(200003, np.int32)
        x[1000 * i + 7] = 5
        a = cla.empty(ooo_queue, x.size, np.int32)
        a.set(x, async_=True)  # events recorded on a; the argmax must wait for them
        assert ocr.argmax(a).get()[()] == 1000 * i + 7


def test_reducer_blocking_call_returns_the_index(queue):
    x = np.array([4, 9, 1, 9, -3], np.int64)
    with ocr.Reducer(queue.context, np.int64, "argmax") as r:
        assert r.reduce(queue, cla.to_device(queue, x)) == 1
    with ocr.Reducer(queue.context, np.int64, "argmin") as r:
        assert r.reduce(queue, cla.to_device(queue, x), offset=1, n=3) == 1
    assert ocr.reduce(queue, cla.to_device(queue, x), "argmax") == 1


def test_signed_zero_data_catch_a_kernel_that_tells_zeros_apart(queue, tmp_path):
    """The signed-zero case has teeth: a copy of the kernels whose keys keep
    -0.0 below +0.0 answers n - 1 where NumPy (and the library) answer 0.
    The zeros lie far apart: within one lane the first pass compares values
    (-0.0 == +0.0), only keys from different lanes tell them apart."""
    cl_dir = os.path.join(SOURCE, "cl")
    if not os.path.isdir(cl_dir):
        pytest.skip("no source tree")
    mutant = tmp_path / "cl"
    shutil.copytree(cl_dir, mutant)
    common = mutant / "reduce_common.h"
    text = common.read_text()
    assert "v == (V)0 ? (V)0 : v" in text
    common.write_text(text.replace("v == (V)0 ? (V)0 : v", "v"))
    x = np.full(100003, -1.0, np.float32)
    x[0], x[-1] = -0.0, 0.0
    a = cla.to_device(queue, x)
    assert ocr.argmax(a).get()[()] == np.argmax(x) == 0
    with ocr.Reducer(queue.context, np.float32, "argmax", kernel_dir=str(mutant)) as r:
        assert r.reduce(queue, a) == x.size - 1
