"""ReductionKernel through the C library's custom reducer (one native call)
and through the package's own kernels where the library does not take the
spec or the call: each way is checked against NumPy, and that the way
expected ran (a test that cannot tell them apart could pass with either
broken)."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr
from oclreduction import _custom

# Scalar argument types the library passes in ocr_value (every one but half).
SCALARS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
           np.float32, np.float64]


@pytest.fixture
def ways(monkeypatch):
    """Which way each call went: 'native' or 'package'."""
    seen = []
    real_kernels = _custom._Spec.kernels

    def spy(real):
        def native(*a, **kw):
            got = real(*a, **kw)
            if got is not None:
                seen.append("native")
            return got
        return native

    def kernels(self, where, *rest):
        seen.append("package")
        return real_kernels(self, where, *rest)
    for name in ("_run_native", "_run_hot"):  # the general call's and the common one's
        monkeypatch.setattr(_custom, name, spy(getattr(_custom, name)))
    monkeypatch.setattr(_custom._Spec, "kernels", kernels)
    return seen


def fp64(queue):
    return queue.device.double_fp_config != 0


@pytest.mark.parametrize("st", SCALARS)
def test_scalar_of_every_type(queue, ways, st):
    """A scalar of each type reaches the kernel as its value (a wrong
    ocr_value member gives another): sum(x[i] * s) in int64 or double."""
    if np.dtype(st) == np.float64 and not fp64(queue):
        pytest.skip("no fp64 on this device")
    n = 70001
    rng = np.random.default_rng(int(np.dtype(st).num))
    x = rng.integers(-5, 6, n).astype(np.int32)
    info = np.iinfo(st) if np.dtype(st).kind in "iu" else None
    s = st(info.max - 3 if info is not None and info.bits < 64 else -2.75 if info is None
           else 12345)
    acc = np.float64 if np.dtype(st).kind == "f" and fp64(queue) else np.int64
    if np.dtype(st) == np.float32 and not fp64(queue):
        acc, s = np.float32, st(-2.75)
    ct = {np.int8: "char", np.uint8: "uchar", np.int16: "short", np.uint16: "ushort",
          np.int32: "int", np.uint32: "uint", np.int64: "long", np.uint64: "ulong",
          np.float32: "float", np.float64: "double"}[st]
    act = "double" if acc == np.float64 else "float" if acc == np.float32 else "long"
    k = ocr.ReductionKernel(queue.context, acc, "0", "a+b", f"({act})x[i] * ({act})s",
                            f"__global const int *x, {ct} s")
    got = k(cla.to_device(queue, x), s).get()[()]
    want = x.astype(np.float64).sum() * float(s)
    assert got == want, (st, s, got, want)
    assert ways == ["native"]


def test_i_is_a_signed_long(queue, ways):
    """i as PyOpenCL's kernels have it (a long): i - 10 < 0 for the first ten."""
    x = cla.zeros(queue, 1000, np.float32)
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "(i - 10 < 0) ? 1 : 0",
                            "__global const float *x")
    assert k(x).get()[()] == 10
    assert ways == ["native"]


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 4099, 1000003])
def test_native_against_package(queue, ways, n):
    """The same specs both ways (the package's way forced through a range=
    that starts at 1 and a copy of x with a leading element): a float dot,
    max, an int count, a min with a scalar bound."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a, b = cla.to_device(queue, x), cla.to_device(queue, y)
    a1 = cla.to_device(queue, np.concatenate([[np.float32(1e30)], x]))
    b1 = cla.to_device(queue, np.concatenate([[np.float32(1e30)], y]))
    specs = [
        (np.float32, "0", "a+b", "x[i]*y[i]", lambda: np.dot(x.astype(np.float64), y)),
        (np.float32, "-INFINITY", "fmax(a, b)", "x[i]-y[i]", lambda: np.max(x - y)),
        (np.int64, "0", "a+b", "(long)(x[i] > y[i])", lambda: int(np.sum(x > y))),
    ]
    for dt, neutral, red, mp, want in specs:
        k = ocr.ReductionKernel(queue.context, dt, neutral, red, mp,
                                "__global const float *x, __global const float *y")
        del ways[:]
        native = k(a, b).get()[()]
        package = k(a1, b1, range=slice(1, n + 1)).get()[()]
        assert ways == ["native", "package"]
        if dt == np.int64 or red != "a+b":
            assert native == want() and package == want()
        else:
            tol = 1e-4 * np.sqrt(n) * max(1.0, np.abs(x * y).sum() / np.sqrt(n))
            assert abs(native - want()) <= tol and abs(package - want()) <= tol


def test_what_the_library_does_not_take(queue, ways):
    """Each goes the package's way, with the right value: a preamble with a
    #define, complex data, a slice that starts past 0, an Array argument
    shorter than n, an empty input, an argument named a."""
    n = 5003
    x = np.arange(n, dtype=np.int64)
    a = cla.to_device(queue, x)
    short = cla.to_device(queue, x[:10])
    ctx = queue.context
    k = ocr.ReductionKernel(ctx, np.int64, "0", "a+b", "TWICE(x[i])", "__global long *x",
                            preamble="#define TWICE(v) (2 * (v))")
    assert k(a).get()[()] == 2 * x.sum()
    c = ocr.ReductionKernel(ctx, np.complex64, "cfloat_new(0, 0)", "cfloat_add(a, b)",
                            arguments="__global cfloat_t *in")
    z = (x[:100] + 1j).astype(np.complex64)
    assert c(cla.to_device(queue, z)).get()[()] == z.astype(np.complex128).sum()
    s = ocr.ReductionKernel(ctx, np.int64, "0", "a+b", "x[i] + y[0]",
                            "__global long *x, __global long *y")
    assert s(a, a, slice=slice(3, None)).get()[()] == x[3:].sum()
    assert s(a, short).get()[()] == x.sum()
    assert s(a[:0], a[:0]).get()[()] == 0
    named = ocr.ReductionKernel(ctx, np.int64, "0", "a+b", "a[i]", "__global long *a")
    assert named(a).get()[()] == x.sum()
    assert ways == ["package"] * 6


def test_out_offset_events_and_result(queue, ways):
    """out= at an element of a larger Array, return_event, the events the
    native call adds (the result's and each Array argument's)."""
    x = np.arange(20011, dtype=np.float64 if fp64(queue) else np.float32)
    a = cla.to_device(queue, x)
    ct = "double" if x.dtype == np.float64 else "float"
    k = ocr.ReductionKernel(queue.context, x.dtype, "0", "a+b", "x[i]", f"__global {ct} *x")
    out = cla.zeros(queue, 3, x.dtype)
    res, ev = k(a, out=out[1:2], return_event=True)
    assert isinstance(ev, cl.Event) and res.events[-1] is ev and a.events[-1] is ev
    assert list(out.get()) == [0, x.sum(), 0]
    assert ways == ["native"]


@pytest.mark.parametrize("name", ["out", "off", "start", "step", "last", "t", "v", "per", "end",
                                  "part", "k", "g"])
def test_argument_names_the_kernels_use(queue, ways, name):
    """An argument may have any name the kernels' own parameters and
    variables have (ocr_rk_out, ocr_rk_off, ...): both ways, and an empty
    input, give PyOpenCL's values; so does a pair x, x_off."""
    n = 1001
    x = np.arange(n, dtype=np.int64)
    a = cla.to_device(queue, x)
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", f"{name}[i]",
                            f"__global const long *{name}")
    assert k(a).get()[()] == x.sum()
    assert k(a, range=slice(5, n, 3)).get()[()] == x[5::3].sum()
    assert k(a[:0]).get()[()] == 0
    assert ways == ["native", "package", "package"]
    pair = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "x[i] * x_off[i]",
                               "__global const long *x, __global const long *x_off")
    assert pair(a, a).get()[()] == (x * x).sum()
    assert pair(a, a, range=slice(1, n)).get()[()] == (x * x)[1:].sum()


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_out_in_memory_the_reduction_reads(queue, ways, dtype):
    """out= an element the map reads: the value is the sum of the elements
    as they were (PyOpenCL's kernels read them all before the write), by the
    package's kernels (the library refuses a result inside its input)."""
    x = np.arange(70001).astype(dtype)
    a = cla.to_device(queue, x)
    ct = "long" if dtype == np.int64 else "float"
    k = ocr.ReductionKernel(queue.context, dtype, "0", "a+b", "x[i]", f"__global {ct} *x")
    want = x.astype(np.float64).sum()
    got = k(a, out=a[-1:]).get().item()  # out= is a[-1:], a 1-d Array of one
    assert abs(float(got) - want) <= 1e-6 * want and a.get()[-1] == got
    assert ways == ["package"]


def test_python_scalars_are_checked(queue, ways):
    """A Python number an argument's type cannot hold is refused, as
    PyOpenCL's conversion refuses it (no silent wrap); NumPy scalars
    convert as NumPy does."""
    a = cla.to_device(queue, np.ones(100, np.int32))
    for ct, bad in (("uint", -1), ("uchar", -1), ("ulong", -1), ("char", 300), ("long", 2**63)):
        k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "(long)s * x[i]",
                                f"__global const int *x, {ct} s")
        with pytest.raises(OverflowError):
            k(a, bad)
        assert k(a, 3).get()[()] == 300
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "(long)s * x[i]",
                            "__global const int *x, int s")
    with pytest.raises(TypeError):
        k(a, 2.7)
    assert k(a, np.int32(-4)).get()[()] == -400


def test_one_launch_many_calls_queues_and_threads(context, ways):
    """The library's calls of 2 to 255 groups finish in one launch where the
    device lets the last group do it (a ticket and a scratch shared by every
    call of the reducer): many calls back to back on new data, then four
    queues fed by four threads at once, each value exact (integer data,
    int64 results). A partial read before it is written, or a ticket left
    set, gives another value."""
    import threading
    k = ocr.ReductionKernel(context, np.int64, "0", "a+b", "(long)x[i] * y[i]",
                            "__global const int *x, __global const int *y")
    rng = np.random.default_rng(20261129)
    # n from a GPU's 2 groups of 256 x 16 (4097) to its 255 (a CPU: 2 to 8)
    sizes = rng.integers(4097, 255 * 4096, 48)
    data = [(rng.integers(-1000, 1001, n).astype(np.int32),
             rng.integers(-1000, 1001, n).astype(np.int32)) for n in sizes]
    want = [int(np.dot(x.astype(np.int64), y.astype(np.int64))) for x, y in data]
    q = cl.CommandQueue(context)
    on = [(cla.to_device(q, x), cla.to_device(q, y)) for x, y in data]
    del ways[:]
    got = [k(x, y) for x, y in on]  # enqueued back to back, read after
    assert [int(g.get()[()]) for g in got] == want
    assert set(ways) == {"native"}
    q.finish()
    wrong: list = []

    def feed(j: int) -> None:
        qj = cl.CommandQueue(context)
        for rnd in range(3):
            for t in range(j, len(data), 4):
                x, y = (cla.to_device(qj, h) for h in data[t])
                v = int(k(x, y).get()[()])
                if v != want[t]:
                    wrong.append((j, rnd, int(sizes[t]), v, want[t]))
        qj.finish()
    threads = [threading.Thread(target=feed, args=(j,)) for j in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not wrong, wrong[:5]
