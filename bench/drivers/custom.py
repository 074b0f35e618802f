#!/usr/bin/env python3
"""custom.py [--device NAME] - oclreduction's dot and ReductionKernel against
PyOpenCL's, per call: float32 x[i]*y[i] from 2^10 to 2^24, `.get()` included
(the value on the host), with oclreduction.sum(x).get() beside them (the
package's leanest call: one library call, a 0-d Array, PyOpenCL's .get()),
integer-valued data (every answer checked exactly), 150 rounds in an order drawn anew each round; medians in µs, as a Markdown
table. Then stats, mean and var against a plain sum of the same float32
array, in GB/s of the input (issue 40's target: var at >= 0.95x sum's on a
GPU; --stats-top 28 reaches 1 GiB). --device: part of a platform or device
name (default: the first device). PYTHONPATH must reach the package
(build/python)."""
import argparse
import random
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.reduction as clr

import oclreduction as ocr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="")
    ap.add_argument("--rounds", type=int, default=150)
    ap.add_argument("--stats-top", type=int, default=24, help="largest size of the stats "
                    "table, log2")
    args = ap.parse_args()
    devs = [d for p in cl.get_platforms() for d in p.get_devices()
            if args.device.lower() in (d.name + " " + p.name).lower()]
    if not devs:
        sys.exit(f"custom.py: no device matches {args.device!r}")
    ctx = cl.Context([devs[0]])
    q = cl.CommandQueue(ctx)
    print(f"# {devs[0].name.strip()} ({devs[0].platform.name.strip()}), pyopencl "
          f"{cl.VERSION_TEXT}, numpy {np.__version__}, oclreduction {ocr.__version__}")
    spec = dict(neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                arguments="__global const float *x, __global const float *y")
    theirs = clr.ReductionKernel(ctx, np.float32, **spec)
    ours = ocr.ReductionKernel(ctx, np.float32, **spec)
    print("| N | oclreduction.dot | pyopencl dot | oclreduction RK | pyopencl RK | dot ratio "
          "| RK ratio | oclreduction.sum(x) |\n|---:|---:|---:|---:|---:|---:|---:|---:|")
    wrong = 0
    for k in (10, 14, 18, 20, 22, 24):
        rng = np.random.default_rng(k)
        hx, hy = (rng.integers(-4, 5, 1 << k).astype(np.float32) for _ in range(2))
        x, y = cla.to_device(q, hx), cla.to_device(q, hy)
        want = float(np.dot(hx.astype(np.float64), hy.astype(np.float64)))
        calls = {"od": lambda: ocr.dot(x, y).get(), "cd": lambda: cla.dot(x, y).get(),
                 "ork": lambda: ours(x, y).get(), "crk": lambda: theirs(x, y).get(),
                 "os": lambda: ocr.sum(x).get()}
        for name, f in calls.items():
            for _ in range(3):
                if float(f()) != (float(hx.sum(dtype=np.float64)) if name == "os" else want):
                    wrong += 1
                    print(f"WRONG {name} at 2^{k}")
        t = {name: [] for name in calls}
        for r in range(args.rounds):
            order = list(calls.items())
            random.Random(r).shuffle(order)
            for name, f in order:
                s = time.perf_counter()
                f()
                t[name].append(time.perf_counter() - s)
        med = {a: sorted(v)[len(v) // 2] * 1e6 for a, v in t.items()}
        print(f"| 2^{k} | {med['od']:.1f} | {med['cd']:.1f} | {med['ork']:.1f} | {med['crk']:.1f}"
              f" | {med['cd'] / med['od']:.2f}x | {med['crk'] / med['ork']:.2f}x | {med['os']:.1f} |",
              flush=True)
    wrong += stats_table(q, min(args.rounds, 20), args.stats_top)
    return 1 if wrong else 0


def stats_table(q: cl.CommandQueue, rounds: int, top: int) -> int:
    """var, mean, stats() and the template's own sum (a ReductionKernel
    "a+b") against oclreduction.sum of one float32 array: 10 calls back to
    back, then one finish (the kernels' pace with their launches; stats()
    reads its result each call), medians over rounds in a drawn order; GB/s
    of the input. Returns how many answers were wrong."""
    plain = ocr.ReductionKernel(q.context, np.float32, "0", "a+b", "x[i]",
                                "__global const float *x")
    print("\n| N | sum GB/s | RK sum GB/s | mean GB/s | var GB/s | stats() GB/s | var/sum |\n"
          "|---:|---:|---:|---:|---:|---:|---:|")
    wrong = 0
    for k in sorted({20, min(24, top), top}):
        hx = np.random.default_rng(k).integers(-4, 5, 1 << k).astype(np.float32)
        x = cla.to_device(q, hx)
        ref = np.var(hx.astype(np.float64))
        calls = {"sum": lambda: ocr.sum(x), "rk": lambda: plain(x), "mean": lambda: ocr.mean(x),
                 "var": lambda: ocr.var(x), "stats": lambda: ocr.stats(x)}
        if (float(ocr.sum(x).get()) != hx.sum(dtype=np.float64)
                or abs(float(ocr.var(x).get()) - ref) > 1e-4 * ref
                or abs(float(ocr.stats(x).var) - ref) > 1e-4 * ref):
            wrong += 1
            print(f"WRONG sum or var at 2^{k}")
        t = {name: [] for name in calls}
        for r in range(rounds):
            order = list(calls.items())
            random.Random(r).shuffle(order)
            for name, f in order:
                q.finish()
                s = time.perf_counter()
                for _ in range(10):
                    f()
                q.finish()
                t[name].append((time.perf_counter() - s) / 10)
        gbs = {a: hx.nbytes / sorted(v)[len(v) // 2] / 1e9 for a, v in t.items()}
        print(f"| 2^{k} | {gbs['sum']:.1f} | {gbs['rk']:.1f} | {gbs['mean']:.1f} | "
              f"{gbs['var']:.1f} | {gbs['stats']:.1f} | {gbs['var'] / gbs['sum']:.2f}x |",
              flush=True)
    return wrong


if __name__ == "__main__":
    sys.exit(main())
