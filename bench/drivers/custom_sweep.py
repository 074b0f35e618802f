#!/usr/bin/env python3
"""custom_sweep.py [options] - the custom reductions' launch shape on one
GPU: a float32 dot through the library's custom reducer for each kernel
directory (--kernel-dirs: cl/ and variants of cl/custom.cl) and first-pass
group count (--groups-per-cu: 0 is the library's default), oclreduction.var
(the package's own kernels) for each groups-per-CU of the package, with the
common call's index (start 0, step 1) and the general one; CUB's
TransformReduce dot and stats, cuBLAS's sdot and CUB's Sum beside them
(bench/cub/cub_transform.cu, --cub), and oclreduction.sum.

Times are OpenCL kernel events on a profiling queue: REPS + 1 calls enqueued
back to back, a call's time the gap between successive calls' last kernels'
ends (the GPU never idles: a call enqueues in tens of microseconds and runs
for hundreds); CUB's are CUDA events. Every contender runs once a round in
an order drawn anew; medians over rounds. The data are custom_vs_cub.py's;
every answer is checked. PYTHONPATH must reach the package (build/python)."""
import argparse
import random
import statistics
import subprocess
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction as ocr
from oclreduction import _custom
from oclreduction._native import CustomReducer


def gaps(events):
    ends = [e.profile.end for e in events]
    return statistics.median((b - a) * 1e-6 for a, b in zip(ends, ends[1:]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="NVIDIA")
    ap.add_argument("--size", type=int, default=28, help="log2 of N")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--kernel-dirs", default="cl", help="comma-separated")
    ap.add_argument("--groups-per-cu", default="0,8", help="the library's, comma-separated")
    ap.add_argument("--package-groups-per-cu", default="4,8", help="comma-separated")
    ap.add_argument("--cub", default="", help="cub_transform (bench/cub); none or empty: skipped")
    a = ap.parse_args()
    dev = [d for p in cl.get_platforms() for d in p.get_devices()
           if a.device.lower() in (d.name + " " + p.name).lower()][0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    cus, n, f32 = dev.max_compute_units, 1 << a.size, np.dtype(np.float32)
    print(f"# {dev.name} ({dev.platform.name}, driver {dev.driver_version}), {cus} compute "
          f"units, N = 2^{a.size}, oclreduction {ocr.__version__}", flush=True)
    i = np.arange(n, dtype=np.uint64)
    hx = ((((i * np.uint64(2654435761)) % np.uint64(127)).astype(np.int64) - 63) / 64)
    hy = ((((i * np.uint64(40503) + np.uint64(7)) % np.uint64(101)).astype(np.int64) - 50) / 64)
    del i
    want = float(np.dot(hx, hy))  # exact: multiples of 2^-12 below 2^40
    tol = 1.2e-7 * a.size * float(np.abs(hx * hy).sum())
    want_var = float(np.var(hx))
    x, y = cla.to_device(q, hx.astype(f32)), cla.to_device(q, hy.astype(f32))
    del hx, hy
    res = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8)
    wrong = 0

    def dot(r):
        def call():
            return r.enqueue_custom(q, n, [(x.base_data.int_ptr, 0), (y.base_data.int_ptr, 0)],
                                    res.int_ptr, 0, [])
        evs = [call() for _ in range(a.reps + 1)]
        q.finish()
        got = np.empty(1, f32)
        cl.enqueue_copy(q, got, res)
        return gaps(evs), abs(float(got[0]) - want) <= tol

    def array_call(f, ok):
        rs = [f() for _ in range(a.reps + 1)]
        q.finish()
        return gaps([r.events[-1] for r in rs]), ok(rs[-1])

    def var(gpc, unit):
        def call():
            real = _custom._Spec.kernels
            _custom._GROUPS_PER_CU = gpc
            if not unit:  # the general index (start + k * step) for the common call
                _custom._Spec.kernels = lambda self, where, u=False: real(self, where, False)
            try:
                return array_call(lambda: ocr.var(x), lambda r: abs(float(r.get()) - want_var)
                                  <= 1e-4 * want_var)
            finally:
                _custom._Spec.kernels, _custom._GROUPS_PER_CU = real, 8
        return call

    def cub(what):
        p = subprocess.run([a.cub, what, "float", str(a.reps), str(n)], capture_output=True,
                           text=True)
        return (float(p.stdout.split(",")[3]) if p.returncode == 0 else 0.0), "ok" in p.stdout

    cont = {}
    for kd in a.kernel_dirs.split(","):
        for g in (int(v) for v in a.groups_per_cu.split(",")):
            r = CustomReducer(ctx, dev, f32, "0", "a+b", "x[i]*y[i]", "",
                              [("x", f32, True), ("y", f32, True)], kernel_dir=kd,
                              groups=g * cus)
            cont[("dot", kd, g)] = lambda r=r: dot(r)
    for g in (int(v) for v in a.package_groups_per_cu.split(",")):
        cont[("var", "unit", g)] = var(g, True)
        cont[("var", "general", g)] = var(g, False)
    cont[("sum", "ocr", 0)] = lambda: array_call(lambda: ocr.sum(x), lambda r: True)
    if a.cub not in ("", "none"):
        for what in ("dot", "cublas_dot", "stats", "sum"):
            cont[(what, "cub", 0)] = lambda what=what: cub(what)
    rows = {}
    for rnd in range(a.rounds):
        order = list(cont.items())
        random.Random(rnd).shuffle(order)
        for k, f in order:
            ms, ok = f()
            if not ok:
                wrong += 1
                print("WRONG", k)
            rows.setdefault(k, []).append(ms)
    print("| what | who | groups/CU | median ms | rounds |\n|---|---|---:|---:|---|")
    for k in sorted(rows, key=str):
        v = rows[k]
        print(f"| {k[0]} | {k[1]} | {k[2]} | {statistics.median(v):.4f} | "
              + " ".join(f"{t:.4f}" for t in v) + " |")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
