"""The package's own kernels under oclgrind: every case answers as NumPy
does, and tests/scripts/python_oclgrind.sh runs this under oclgrind
--data-races --check-api (out-of-bounds accesses always reported) and
requires no diagnostic. Those kernels are the files of the package's cl/
folder, and the cases must read every one of them (else the script fails,
naming the file: a new kernel cannot go unchecked): the ReductionKernel
template (cl/custom.cl: a spec the C library does not take, here one with a
#define in its preamble) and the statistics built on it (cl/stats.cl: mean,
var, std, stats, their own walks, the vector walk among them), in one group
and in two passes over partials, in the GPU's coalesced walk and a CPU's
chunks; norm's L2 merge (nrm2.cl); the passes around the library's
reductions (narrow.cl, gather.cl, last_zero.cl) and argmin/argmax along an
axis (arg_rows.cl).

    oclgrind_kernels.py [--no-barrier]

--no-barrier: the template's tree without the barrier of its levels (the
script in oclgrind must then report a race). Exit 0 when every answer was
right, 1 otherwise. PYTHONPATH must reach the package."""
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction as ocr
from oclreduction import _custom, _kernels

TREE = """        if (ocr_rk_lid < ocr_rk_s)
            ocr_rk_l[ocr_rk_lid] = ocr_rk_reduce(ocr_rk_l[ocr_rk_lid], ocr_rk_l[ocr_rk_lid + ocr_rk_s]);
        barrier(CLK_LOCAL_MEM_FENCE);"""


def main() -> int:
    if "--no-barrier" in sys.argv[1:]:
        text = _kernels.source("custom.cl")
        assert TREE in text, "the template's tree changed: update the mutant"
        _kernels._texts["custom.cl"] = text.replace(
            TREE, TREE.replace("        barrier(CLK_LOCAL_MEM_FENCE);", ""))
    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    print(f"device: {q.device.name}")
    rng = np.random.default_rng(7)
    wrong = 0

    def check(what, got, want, tol):
        nonlocal wrong
        if not abs(float(got) - float(want)) <= tol * max(1.0, abs(float(want))):
            wrong += 1
            print(f"WRONG {what}: {got!r}, want {want!r}")

    # one group (n <= 32 x the group), two passes (more)
    sizes = (1, 7, 300, 9001)
    rk = ocr.ReductionKernel(ctx, np.float32, "0", "a+b", "x[i]*y[i] + OCR_T_ONE",
                             "__global const float *x, __global const float *y",
                             preamble="#define OCR_T_ONE 0.0f")
    for walk in ("gpu", "cpu"):
        _custom._blocked = (lambda device: False) if walk == "gpu" else (lambda device: True)
        for n in sizes:
            hx = rng.integers(-4, 5, n + 1).astype(np.float32)
            hy = rng.integers(-4, 5, n + 1).astype(np.float32)
            x, y = cla.to_device(q, hx), cla.to_device(q, hy)
            want = float(np.dot(hx[1:].astype(np.float64), hy[1:].astype(np.float64)))
            check(f"{walk} RK n={n}", rk(x[1:], y[1:]).get(), want, 0)
            for dt, tol in ((np.float32, 1e-4), (np.float64, 1e-12)):
                h = rng.standard_normal(n + 1).astype(dt)
                a = cla.to_device(q, h)
                for off in (0, 1):  # aligned to the vector walk's vector, and not
                    v, hv = a[off:], h[off:].astype(np.float64)
                    check(f"{walk} mean {dt.__name__} n={n} +{off}", ocr.mean(v).get(),
                          hv.mean(), tol)
                    check(f"{walk} var {dt.__name__} n={n} +{off}", ocr.var(v).get(),
                          hv.var(), tol)
                    s = ocr.stats(v)
                    check(f"{walk} stats.std {dt.__name__} n={n} +{off}", s.std, hv.std(), tol)
            check(f"{walk} norm n={n}", ocr.norm(cla.to_device(q, hx)).get(),
                  np.linalg.norm(hx.astype(np.float64)), 1e-5)
    helpers(q, rng, check)
    q.finish()
    missed = sorted(set(_kernels.files()) - _kernels.loaded)
    if missed:
        wrong += 1
        print(f"WRONG: no case read {', '.join(missed)} (add one above)")
    print(f"{'FAILED' if wrong else 'PASSED'}: {wrong} wrong")
    return 1 if wrong else 0


def helpers(q, rng, check) -> None:
    """The small kernels around the library's reductions, each once: the
    library's own kernels run too (oclgrind checks them as well)."""
    h8 = rng.integers(-100, 100, 1000).astype(np.int8)
    check("min int8 (narrow.cl)", ocr.min(cla.to_device(q, h8)).get(), h8.min(), 0)
    h64 = rng.standard_normal(777)
    check("sum float64 as float32 (gather.cl)",
          ocr.sum(cla.to_device(q, h64), dtype=np.float32).get(),
          h64.astype(np.float32).sum(dtype=np.float64), 1e-4)
    hz = np.array([1.0, -0.0, 2.0, 0.0, 3.0] * 50, np.float32)
    got = ocr.min(cla.to_device(q, hz)).get()[()]
    want = np.minimum.reduce(hz)
    check("min of zeros (last_zero.cl)", np.signbit(got), np.signbit(want), 0)
    h2 = rng.standard_normal((5, 37)).astype(np.float32)
    got = ocr.argmin(cla.to_device(q, h2), axis=1).get()
    check("argmin axis=1 (arg_rows.cl)", int(np.abs(got - h2.argmin(axis=1)).sum()), 0, 0)


if __name__ == "__main__":
    sys.exit(main())
