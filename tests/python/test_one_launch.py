"""The one-launch finish of the package's own custom reductions (cl/custom.cl
built after the package's prelude: mean, var, std, stats and any
ReductionKernel the C library does not take): where the C library's rule
allows it (ocr_reducer_custom_finish) every call over several groups is one
launch, and the values stay right over rounds of new data (a ticket left
wrong would show in a later call). The rule is stated again here from the
device's own answers, as tests/unit/reducer/test_custom.c does, so that a
finish that silently turned off fails (on POCL 3.0 with acquire-release
atomics at device scope it is on)."""
import warnings

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import oclreduction as ocr
from oclreduction import _custom
from test_stats import check, real_eps


def expect_one_launch(device):
    """OpenCL 2.x; 3.0 with acquire-release atomics at device scope; NVIDIA's
    OpenCL; never oclgrind (its checker calls the finish a race)."""
    if "Oclgrind" in device.platform.name:
        return False
    major = int(device.version.split()[1].split(".")[0])
    if major == 2:
        return True
    if major >= 3:
        caps = device.get_info(cl.device_info.ATOMIC_MEMORY_CAPABILITIES)
        if caps & (1 << 1) and caps & (1 << 5):
            return True
    return "NVIDIA" in device.vendor


@pytest.fixture
def launches(monkeypatch):
    """The template's launches of each call: (kernel name, groups)."""
    seen = []
    real = _custom._launch

    def spy(queue, kernel, groups, wg, args, waits):
        seen.append((kernel.function_name, groups))
        return real(queue, kernel, groups, wg, args, waits)
    monkeypatch.setattr(_custom, "_launch", spy)
    monkeypatch.setattr(_custom, "_specs", {})
    return seen


def want_names(queue, groups):
    if groups == 1:
        return ["ocr_rk_first"]
    if expect_one_launch(queue.device) and groups <= 255:
        return ["ocr_rk_first_finish"]
    return ["ocr_rk_first", "ocr_rk_final"]


@pytest.mark.parametrize("kind", ["mean", "var", "std", "stats"])
def test_statistics_in_one_launch(queue, launches, kind):
    rng = np.random.default_rng()
    n = int(rng.integers(40_000, 200_000))  # several groups (more than 32 x 256)
    for _ in range(3):
        x = rng.normal(rng.uniform(-100, 100), rng.uniform(0.5, 20), n).astype(np.float32)
        a = cla.to_device(queue, x)
        del launches[:]
        if kind == "stats":
            s = ocr.stats(a, minmax=True)  # a struct with min/max: the package's kernel
            m, v = s.mean, s.var
            assert (s.min, s.max, s.argmin, s.argmax) == (x.min(), x.max(), x.argmin(),
                                                          x.argmax())
        else:
            got = getattr(ocr, kind)(a).get()[()]
            m, v = (got, np.var(x)) if kind == "mean" else (np.mean(x), got ** 2 if
                                                            kind == "std" else got)
        groups = launches[0][1]
        assert groups > 1
        assert [k for k, _ in launches] == want_names(queue, groups), (kind, n, launches)
        check(m, v, x, 0, 2 * real_eps(np.float32))


def test_a_reduction_kernel_in_one_launch(queue, launches):
    """A spec the C library does not take (a #define in its preamble), over
    a range= (start and step) and the whole input, exact integer sums."""
    rng = np.random.default_rng()
    n = int(rng.integers(40_000, 200_000))
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "TWICE(x[i])",
                            "__global const int *x", preamble="#define TWICE(v) (2 * (long)(v))")
    for _ in range(3):
        h = rng.integers(-1000, 1000, n).astype(np.int32)
        a = cla.to_device(queue, h)
        for rng_ in (None, slice(3, n - 5, 3)):
            del launches[:]
            got = int(k(a, range=rng_).get())
            want = 2 * int(h[rng_ or slice(None)].astype(np.int64).sum())
            assert got == want
            assert [k_ for k_, _ in launches] == want_names(queue, launches[0][1])


def test_one_launch_on_pocl(queue):
    """The rule is on where the device has what it needs (POCL 3.0 here),
    through the C library's query itself."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mode, most, std = _custom._finish_rule(queue, [])
    assert (mode > 0) == expect_one_launch(queue.device)
    assert most == (255 if mode else 0)
    assert _custom._finish_rule(queue, ["-cl-std=CL1.2"])[0] == 0  # the caller's own version
