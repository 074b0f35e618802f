#!/usr/bin/env python3
"""per_call_floor.py [--device NAME] [--sizes 10,14,18,20,22,24] - what one
Python call of a reduction cannot go below on this device: a one-work-item
kernel launched and its 4-byte value read through PyOpenCL (floor1), the
same with a second launch between (floor2; wide: a first kernel as wide as
a reduction's first pass), beside oclreduction.sum(x).get(), a float32
ReductionKernel dot x[i]*y[i] of the package's and of PyOpenCL's, each with
.get(). Tight loops: 200 untimed calls, then the median of 2000 (µs); three
rounds, the calls' order reversed every other round; each call's answer
checked once per size, before it is timed.
PYTHONPATH must reach the package (build/python)."""
import argparse
import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel as PyOpenCLReductionKernel

import oclreduction as ocr

SRC = """__kernel void one(__global int *o) { o[0] = 1; }
__kernel void wide(__global int *o) { if (get_global_id(0) == 0) o[0] = 2; }"""


def timed(f, reps: int = 2000) -> float:
    for _ in range(200):
        f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        f()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts) / 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="")
    ap.add_argument("--sizes", default="10,14,18,20,22,24")
    args = ap.parse_args()
    devs = [d for p in cl.get_platforms() for d in p.get_devices()
            if args.device.lower() in (d.name + " " + p.name).lower()]
    if not devs:
        sys.exit(f"per_call_floor.py: no device matches {args.device!r}")
    dev = devs[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build()
    one, wide_k = cl.Kernel(prg, "one"), cl.Kernel(prg, "wide")  # each retrieval is a new kernel
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    host = np.empty((), np.int32)
    wide = dev.max_compute_units * 2048
    spec = dict(neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                arguments="__global const float *x, __global const float *y")
    ours, theirs = ocr.ReductionKernel(ctx, np.float32, **spec), \
        PyOpenCLReductionKernel(ctx, np.float32, **spec)
    print(f"# {dev.name.strip()} ({dev.platform.name.strip()}), {dev.driver_version}, pyopencl "
          f"{cl.VERSION_TEXT}, oclreduction {ocr.__version__}; median µs of 2000 calls, "
          "the median of three rounds")

    def read():
        cl.enqueue_copy(q, host, buf, is_blocking=True)
        return host[()]
    calls = {
        "floor1": lambda: (one(q, (1,), None, buf), read())[1] == 1,
        "floor2": lambda: (one(q, (1,), None, buf), one(q, (1,), None, buf), read())[2] == 1,
        "floor_wide2": lambda: (wide_k(q, (wide,), (256,), buf), one(q, (1,), None, buf),
                                read())[2] == 1,
    }
    wrong = 0
    rows = []
    for lg in (int(k) for k in args.sizes.split(",")):
        n = 1 << lg
        hx = np.random.default_rng(lg).integers(-4, 5, n).astype(np.float32)
        hy = hx[::-1].copy()
        x, y = cla.to_device(q, hx), cla.to_device(q, hy)
        dot = float(np.dot(hx.astype(np.float64), hy.astype(np.float64)))
        tot = float(hx.sum(dtype=np.float64))
        sized = dict(calls)
        sized["sum"] = lambda: float(ocr.sum(x).get()) == tot
        sized["ours_rk"] = lambda: float(ours(x, y).get()) == dot
        sized["pyopencl_rk"] = lambda: float(theirs(x, y).get()) == dot
        for name, f in sized.items():
            if not f():
                wrong += 1
                print(f"WRONG {name} at 2^{lg}")
        got = {k: [] for k in sized}
        for rnd in range(3):
            for k in (list(sized) if rnd % 2 == 0 else list(sized)[::-1]):
                got[k].append(timed(sized[k]))
        rows.append((lg, {k: statistics.median(v) for k, v in got.items()}))
        q.finish()
    names = list(rows[0][1])
    print("| N | " + " | ".join(names) + " |\n|---:|" + "---:|" * len(names))
    for lg, med in rows:
        print(f"| 2^{lg} | " + " | ".join(f"{med[k]:.1f}" for k in names) + " |")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
