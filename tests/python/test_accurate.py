"""accurate=True: float sums within one ulp of the correctly rounded exact sum.

The exact reference is math.fsum of the values as float64 (correctly rounded
in float64), rounded to float32 for float32 data: float32 values have 24-bit
significands, so for the sizes here their float64 sum rounds once at most
before the rounding to float32 (checked against a two-float64 error below). The plain
mode's error on the same data is measured too: the option must do something."""
import math

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr
from oclreduction import OcrError, Reducer

from conftest import has_fp64
from ieee import ieee_sum


def dataset(kind, dtype, n, seed=27):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.5, 1.0, n) if kind == "normal" else rng.uniform(-1.0, 1.0, n)
    return x.astype(dtype)


def exact(x):
    """The correctly rounded sum in x's type."""
    s = math.fsum(x.astype(np.float64).tolist())
    if x.dtype == np.float64:
        return np.float64(s)
    # float32 data: fsum's float64 result is within half a float64 ulp of the
    # exact sum, far below half a float32 ulp unless the exact sum is a tie.
    return np.float32(s)


def ulps(got, want):
    """|got - want| in ulps of want's type, at want."""
    want = want.dtype.type(want)
    spacing = np.spacing(np.abs(want))
    return float(abs(np.float64(got) - np.float64(want)) / np.float64(spacing))


def needs(queue, dtype):
    if np.dtype(dtype) == np.float64 and not has_fp64(queue):
        pytest.skip("no fp64")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["normal", "uniform"])
@pytest.mark.parametrize("n", [1, 2, 3, 1000003, 1 << 20, 1 << 22])
def test_within_one_ulp(queue, dtype, kind, n):
    needs(queue, dtype)
    x = dataset(kind, dtype, n)
    a = cla.to_device(queue, x)
    want = exact(x)
    got = ocr.sum(a, accurate=True).get()
    assert got.dtype == np.dtype(dtype)
    assert ulps(got, want) <= 1.0, (got, want)
    if n == 1 << 22 and kind == "normal":
        # The option does something: on data whose sum cancels (each h with
        # -h(1 + u 2^-10): the sum is small against sum |x|) the plain sum,
        # at the device's geometry and with one work-item walking it all (one
        # group of one), is off by more than an ulp, where the accurate sum
        # still is not.
        rng = np.random.default_rng(5)
        h = rng.normal(0.0, 1.0, n // 2)
        y = rng.permutation(np.concatenate([h, -h * (1 + rng.random(n // 2) * 2.0 ** -10)]))
        y = y.astype(dtype)
        b, want = cla.to_device(queue, y), exact(y)
        ctx = queue.context
        with Reducer(ctx, dtype, "sum", groups=1, local_size=1, ignore_tuning=True) as rp, \
                Reducer(ctx, dtype, "sum", groups=1, local_size=1, ignore_tuning=True,
                        accurate=True) as ra:
            plain, acc = rp.reduce(queue, b), ra.reduce(queue, b)
        assert ulps(ocr.sum(b, accurate=True).get(), want) <= 1.0
        assert ulps(ocr.sum(b).get(), want) > 1.0
        assert ulps(acc, want) <= 1.0, (acc, want)
        assert ulps(plain, want) > 1.0, (plain, want)


@pytest.mark.parametrize("groups,local_size,n", [
    (0, 0, 5000),          # the device's geometry
    (7, 4, 4103),          # one launch and the last group's finish (where the device has it)
    (300, 1, 40000),       # 300 groups: a second launch over their 600 values
    (1000, 1, 16000),      # 500 groups, then 32, then one
    (1, 1, 4103),          # a single work-item
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reducer_geometries_and_offset(context, queue, dtype, groups, local_size, n):
    needs(queue, dtype)
    x = dataset("uniform", dtype, n + 13, seed=groups + n)
    buf = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    with Reducer(context, dtype, "sum", groups=groups, local_size=local_size,
                 ignore_tuning=True, accurate=True) as r:
        for off, cnt in [(0, n + 13), (13, n), (5, 1), (1, 2)]:
            got = r.reduce(queue, buf, n=cnt, offset=off, dtype=dtype)
            assert ulps(got, exact(x[off:off + cnt])) <= 1.0, (off, cnt, got)


def test_widening_float_into_double(context, queue):
    needs(queue, np.float64)
    x = dataset("normal", np.float32, 1000003)
    a = cla.to_device(queue, x)
    got = ocr.sum(a, dtype=np.float64, accurate=True).get()
    assert ulps(got, np.float64(math.fsum(x.astype(np.float64).tolist()))) <= 1.0


def test_refusals(context, queue):
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError):
        ocr.sum(a, accurate=True)
    with pytest.raises(OcrError) as e:
        Reducer(context, np.float32, "max", accurate=True)
    assert e.value.status == ocr.USAGE
    assert "float or double sum" in e.value.message
    with pytest.raises(OcrError) as e:
        Reducer(context, np.float32, "sum", accurate=True, build_options="-cl-fast-relaxed-math")
    assert "reassociate" in e.value.message


def assert_ieee(got, want):
    got = np.asarray(got)[()]
    if not np.isfinite(want):
        assert (np.isnan(got) and np.isnan(want)) or got == want, (got, want)
    else:
        # one ulp at want (at the type's largest, the spacing below it)
        with np.errstate(over="ignore"):
            sp = np.float64(np.spacing(np.abs(want)))
        if not np.isfinite(sp):
            sp = np.float64(np.abs(want)) - np.float64(np.nextafter(np.abs(want), want.dtype.type(0)))
        assert np.isfinite(got), (got, want)
        assert abs(np.float64(got) - np.float64(want)) <= sp, (got, want)


def specials(dtype):
    big, tiny = np.finfo(dtype).max, np.finfo(dtype).smallest_subnormal
    inf, nan = np.inf, np.nan
    return [[1, inf], [-inf, 1], [inf, -inf], [1, nan, inf], [nan], [-inf, -inf, 2],
            [big, big], [-big, -big], [big, big, -big], [big, -big, tiny],
            [big, big, -big, -big, 3], [big, big, big, -big, -big, -big, -big],
            [big / 2, big / 2, big * 0.75, 1, -big / 2],
            [3e38, 3e38], [1e308, 1e308], [-1e308, -1e308, 1e308]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_specials_and_overflow_follow_ieee(queue, dtype):
    """[1, inf] is inf, [3e38, 3e38] (float32) inf, [FLT_MAX, FLT_MAX, -FLT_MAX]
    FLT_MAX: what IEEE arithmetic on the exact sum gives, not NaN."""
    needs(queue, dtype)
    for case in specials(dtype):
        with np.errstate(over="ignore"):
            x = np.array(case, dtype=np.float64).astype(dtype)
        got = ocr.sum(cla.to_device(queue, x), accurate=True).get()
        assert_ieee(got, ieee_sum(x))


@pytest.mark.parametrize("groups,local_size,n", [
    (0, 0, 100003),        # the device's geometry
    (7, 4, 4103),          # one launch and the last group's finish
    (1000, 1, 16000),      # several launches of accumulators
    (1, 1, 4103),          # a single work-item
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_values_spread_over_groups(context, queue, dtype, groups, local_size, n):
    """Values near the type's largest at random places among ordinary ones:
    partial sums overflow in any order, the exact sum does not (or does, by
    design), and an infinity or a NaN anywhere decides the result."""
    needs(queue, dtype)
    rng = np.random.default_rng(n + groups)
    big = np.finfo(dtype).max
    x = rng.uniform(-1.0, 1.0, n).astype(dtype)
    at = rng.choice(n, 40, replace=False)
    x[at[:20]] = big
    x[at[20:]] = -big
    x[at[0]] = big * np.float64(0.5)  # exact sum: -big / 2 plus the rest
    cases = {"finite": x}
    c = x.copy()
    c[at[0]] = big  # 20 of +big, 20 of -big: they cancel, the small ones are the sum
    cases["cancel"] = c
    y = x.copy()
    y[at[20]] = big  # 21 of +big, 19 of -big: the exact sum overflows
    cases["overflow"] = y
    for name, pos, val in [("inf", n // 3, np.inf), ("-inf", n - 1, -np.inf),
                           ("nan", 5, np.nan)]:
        z = x.copy()
        z[pos] = val
        cases[name] = z
    w = x.copy()
    w[2], w[n - 2] = np.inf, -np.inf
    cases["inf-inf"] = w
    with Reducer(context, dtype, "sum", groups=groups, local_size=local_size,
                 ignore_tuning=True, accurate=True) as r:
        for name, c in cases.items():
            got = r.reduce(queue, cla.to_device(queue, c))
            assert_ieee(got, ieee_sum(c))


@pytest.mark.parametrize("opts", ["-DOCR_IDENTITY=5", "-D LOCAL_SIZE=64", "-U OCR_T",
                                  "-D \"ELEMS_PER_GROUP=2\"", "'-DT=float'"])
def test_reserved_build_options_refused(context, opts):
    """The kernels' own names cannot be redefined: -DOCR_IDENTITY=5 made an
    int sum of 4103 values 4788, without an error."""
    with pytest.raises(OcrError) as e:
        Reducer(context, np.int32, "sum", build_options=opts)
    assert e.value.status == ocr.USAGE
    assert "the kernels are built with that name" in e.value.message
