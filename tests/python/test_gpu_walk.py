"""The custom reductions' GPU walk (a coalesced grid stride, four elements
a step, then the rest one at a time) run on this CPU device, whose own walk
is the blocked one: every index once, the step's four maps and their
combine, the seq walk of stats (shifted sums) and its mutants, at sizes
that leave 0-3 elements to the one-at-a-time rest."""
import contextlib

import pytest

from oclreduction import _custom
from conftest import patch_kernel
from test_custom import (test_count_nonzero, test_dot_offsets_and_slice,  # noqa: F401
                         test_dot_vdot, test_kernel_every_index_once, test_kernel_pyopencl_call,
                         test_norm)
from test_stats import (test_a_wrong_count_is_caught, test_a_wrong_walk_is_caught,  # noqa: F401
                        test_every_dtype, test_nan_and_inf, test_offsets_and_views,
                        test_random_sizes_and_seeds)


@pytest.fixture(autouse=True)
def gpu_walk(monkeypatch):
    """Every spec built afresh, walking as on a GPU."""
    monkeypatch.setattr(_custom, "_blocked", lambda device: False)
    monkeypatch.setattr(_custom, "_specs", {})
    # The library's custom reducer: groups of 64 walk as on a GPU.
    monkeypatch.setattr(_custom, "_NATIVE_LOCAL", 64)


def test_the_walk_is_the_gpu_one(queue, monkeypatch):
    """The fixture reaches both builds: the library's custom reducer gets
    groups of 64 (its coalesced walk; a CPU's chunk walk needs groups of
    one), and a spec it does not take (a preamble with a #define) the
    package's own program built for the GPU walk."""
    import numpy as np
    import pyopencl.array as cla
    import oclreduction as ocr
    from oclreduction import _native
    made, seen = [], []
    real_init, real_program = _native.CustomReducer.__init__, _custom._program

    def spy_init(self, *args, **kw):
        made.append(kw.get("local_size"))
        real_init(self, *args, **kw)

    def spy_program(where, key, source, options):
        seen.append(options)
        return real_program(where, key, source, options)
    monkeypatch.setattr(_native.CustomReducer, "__init__", spy_init)
    monkeypatch.setattr(_custom, "_program", spy_program)
    x = cla.arange(queue, 4099, dtype=np.int64)
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "x[i]", "__global long *x")
    assert k(x).get()[()] == 4099 * 4098 // 2
    assert made == [64] and not seen
    k = ocr.ReductionKernel(queue.context, np.int64, "0", "a+b", "TWICE(x[i])",
                            "__global long *x", preamble="#define TWICE(v) (2 * (v))")
    assert k(x).get()[()] == 4099 * 4098
    assert made == [64] and seen and all("-DOCR_RK_BLOCKED=0" in o for o in seen)


@pytest.mark.parametrize("wrong", [
    ("ocr_st_nv * OCR_ST_W; ocr_rk_k", "ocr_rk_n; ocr_rk_k"),  # the last n % W left out
    ("ocr_rk_n % OCR_ST_W : 0", "0 : 0"),  # ... or read but not counted
    ("ocr_st_a2 += ocr_st_d * ocr_st_d", "ocr_st_a2 += ocr_st_d"),  # the lanes' squares
    ("ocr_st_e3 = ocr_st_xv[ocr_st_v + 3 * ocr_rk_g]", "ocr_st_e3 = ocr_st_xv[ocr_st_v]"),
    ("ocr_st_s1 = OCR_ST_LANES(ocr_st_a1)", "ocr_st_s1 = OCR_ST_W * ocr_st_a1.s0"),  # the other lanes left out
    ("(__global const OCR_ST_VT *)x", "(__global const OCR_ST_VT *)ocr_rk_p0"),  # the view's offset
    None,  # the walk as it is: right on both views
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_wrong_vector_walk_is_caught(queue, monkeypatch, wrong, dtype):
    """The stats' vector walk (float and double data aligned to float2 /
    double4, the common call) runs, from the buffer's start and from a view
    on a later vector: each mutant fails the reference check or the count
    (an outlier sits in the last element, which the n % W tail reads),
    while a view one element off takes the scalar walk and stays right."""
    import numpy as np
    import pyopencl.array as cla
    import oclreduction as ocr
    from oclreduction import _stats
    from test_stats import check, real_eps, values, walk_n
    dt = np.dtype(dtype)
    w = _stats._VEC_LANES[dt]
    n = walk_n(queue, per_item=8 * w)  # the four-vector steps run on any device
    x = values(dt, n + w, 13, loc=3.0)
    x[-1] = 1000.0
    x[:w] = 500.0  # before the view a[w:]: a walk that reads from the buffer's start sees them
    a = cla.to_device(queue, x)
    if wrong is not None:
        patch_kernel(monkeypatch, "stats.cl", *wrong)
    eps = real_eps(dt)
    with pytest.raises(AssertionError) if wrong else contextlib.nullcontext():
        for v, h in ((a, x), (a[w:], x[w:])):  # n + w and n (n % 4 == 3): a tail each
            assert ocr.stats(v).count == h.size
            check(ocr.mean(v).get()[()], ocr.var(v).get()[()], h, 0, eps)
    check(ocr.mean(a[1:]).get()[()], ocr.var(a[1:]).get()[()], x[1:], 0, eps)
