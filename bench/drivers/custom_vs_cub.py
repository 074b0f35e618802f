#!/usr/bin/env python3
"""custom_vs_cub.py --cub CUB_TRANSFORM --ocr OCLREDUCTION [options] - issue
40's GPU comparison at N = 2^SIZE: oclreduction.dot against CUB's
TransformReduce and cuBLAS's sdot/ddot, oclreduction.var (fused count, mean,
M2) against CUB's TransformReduce with the same Chan merge, and the plain sum
(oclReduction -n 7, reduce7) against CUB's Sum, float32 and float64.

Ours is timed with OpenCL kernel events on a profiling queue: var (the
package's own kernels) from the first kernel's start to the last one's end,
dot (one call of the library's custom reducer) as the gap between the last
kernels' ends of calls enqueued back to back, CUB's and cuBLAS's with CUDA events around
the call (bench/cub/cub_transform.cu), the plain sum by oclReduction's own
JSON (median T kernels). Each round runs every contender once (REPS timed
calls after 3 warm-ups, median), in an order drawn anew each round; the
result is the median over rounds. Every answer is checked (ours: var within 1e-4 of float64's, dot exactly in float64 and within a tree's rounding bound in float32; CUB's by cub_transform itself). Writes OUT/raw.csv and prints the
table (ratio = theirs / ours: above 1, ours is faster).

PYTHONPATH must reach the package (build/python)."""
import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction as ocr
from oclreduction import _custom, _linalg


def data(n, dtype):
    """cub_transform.cu's x and y: small integers over 64."""
    i = np.arange(n, dtype=np.uint64)
    x = ((i * np.uint64(2654435761)) % np.uint64(127)).astype(np.int64) - 63
    y = ((i * np.uint64(40503) + np.uint64(7)) % np.uint64(101)).astype(np.int64) - 50
    return (x / 64).astype(dtype), (y / 64).astype(dtype)


class Recorder:
    """Collects the events of the template's launches (one or two a call:
    every launch of cl/custom.cl goes through _custom._launch)."""

    def __init__(self):
        self.events = []
        real = _custom._launch

        def launch(*a, **k):
            ev = real(*a, **k)
            self.events.append(ev)
            return ev
        _custom._launch = launch

    def wrap(self, spec, queue):
        """Nothing per spec: _custom._launch sees every launch."""


def time_ours(q, rec, call, check, reps):
    for _ in range(3):
        check(call())
    ts = []
    for _ in range(reps):
        rec.events.clear()
        r = call()
        q.finish()
        first, last = rec.events[0], rec.events[-1]
        ts.append((last.profile.end - first.profile.start) * 1e-6)
    check(r)
    return statistics.median(ts)


def time_native(q, call, check, reps):
    """A reduction that runs as one call of the library (its kernels' events
    stay inside): REPS + 1 calls enqueued back to back, each returning its
    last kernel's event; a call's time is the gap between successive calls'
    ends (the GPU never idles at these sizes: one call enqueues in tens of
    microseconds and runs for hundreds), median."""
    for _ in range(3):
        check(call()[0])
    q.finish()
    got = [call() for _ in range(reps + 1)]
    q.finish()
    ends = [ev.profile.end for _r, ev in got]
    check(got[-1][0])
    return statistics.median((b - a) * 1e-6 for a, b in zip(ends, ends[1:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cub", required=True)
    ap.add_argument("--ocr", required=True)
    ap.add_argument("--ocr-args", default="")
    ap.add_argument("--ocr-device", default="-t gpu")
    ap.add_argument("--device", default="NVIDIA")
    ap.add_argument("--size", type=int, default=28)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", default="custom_vs_cub")
    ap.add_argument("--groups-per-cu", type=int, default=0,
                    help="first-pass groups per compute unit of ours (default: the package's)")
    a = ap.parse_args()
    if a.groups_per_cu:
        _custom._GROUPS_PER_CU = a.groups_per_cu
    os.makedirs(a.out, exist_ok=True)
    devs = [d for p in cl.get_platforms() for d in p.get_devices()
            if a.device.lower() in (d.name + " " + p.name).lower()]
    ctx = cl.Context([devs[0]])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    print(f"# {devs[0].name} ({devs[0].platform.name}, driver {devs[0].driver_version}), "
          f"pyopencl {cl.VERSION_TEXT}, numpy {np.__version__}, oclreduction {ocr.__version__}")
    print("# " + subprocess.run([a.cub, "version"], capture_output=True, text=True).stdout.strip())
    n = 1 << a.size
    rec = Recorder()
    rows, wrong = [], 0
    for dt, tname in ((np.float32, "float"), (np.float64, "double")):
        hx, hy = data(n, dt)
        x, y = cla.to_device(q, hx), cla.to_device(q, hy)
        xy = hx.astype(np.float64) * hy.astype(np.float64)
        want_dot = float(xy.sum())
        # a tree's rounding in float32: eps * log2(n) of the terms' sizes (exact in float64)
        dot_tol = (1.2e-7 * a.size * float(np.abs(xy).sum())) if dt == np.float32 else 0.0
        del xy
        want_var = float(np.var(hx.astype(np.float64)))
        ocr.dot(x, y).get(), ocr.var(x).get()  # built
        dot_spec = _linalg._dot_spec(x.dtype, y.dtype, x.dtype, False, None)
        if _custom._native(dot_spec, q) is False:
            sys.exit("custom_vs_cub.py: the library did not take the dot's spec")
        for spec in list(_custom._specs.values()):
            rec.wrap(spec, q)

        def check_dot(r, want=want_dot, tol=dot_tol, name=f"dot {tname}"):
            nonlocal wrong
            if abs(float(r.get()) - want) > tol:
                wrong += 1
                print(f"WRONG ours {name}: {float(r.get())} != {want}")

        def check_var(r, want=want_var, name=f"var {tname}"):
            nonlocal wrong
            if abs(float(r.get()) - want) > 1e-4 * want:
                wrong += 1
                print(f"WRONG ours {name}: {float(r.get())} vs {want}")
        contenders = {
            ("dot", "ours"): lambda: time_native(q, lambda: _custom._run(
                dot_spec, (x, y), q, return_event=True), check_dot, a.reps),
            ("var", "ours"): lambda: time_ours(q, rec, lambda: ocr.var(x), check_var, a.reps),
            ("sum", "ours"): lambda: ours_sum(a, tname),
            ("dot", "cub"): lambda: theirs(a, "dot", tname),
            ("dot", "cublas"): lambda: theirs(a, "cublas_dot", tname),
            ("var", "cub"): lambda: theirs(a, "stats", tname),
            ("sum", "cub"): lambda: theirs(a, "sum", tname),
        }
        for r in range(a.rounds):
            order = list(contenders.items())
            random.Random(r).shuffle(order)
            for (what, who), f in order:
                ms = f()
                if ms is None:
                    wrong += 1
                    continue
                rows.append(dict(round=r, what=what, who=who, type=tname, n=n, ms=ms))
        del x, y
    with open(os.path.join(a.out, "raw.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["round", "what", "who", "type", "n", "ms"])
        w.writeheader()
        w.writerows(rows)
    med = {}
    for r in rows:
        med.setdefault((r["what"], r["who"], r["type"]), []).append(r["ms"])
    med = {k: statistics.median(v) for k, v in med.items()}
    print(f"\n| what | type | ours ms | ours GB/s | CUB ms | CUB / ours | cuBLAS ms | cuBLAS / ours "
          f"| ours / ours sum (GB/s) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for what in ("dot", "var", "sum"):
        for tname, size in (("float", 4), ("double", 8)):
            o = med.get((what, "ours", tname))
            c = med.get((what, "cub", tname))
            b = med.get((what, "cublas", tname))
            s = med.get(("sum", "ours", tname))
            if o is None:
                continue
            nbytes = n * size * (2 if what == "dot" else 1)
            gbs = nbytes / o / 1e6
            sum_gbs = n * size / s / 1e6 if s else float("nan")
            print(f"| {what} | {tname} | {o:.4f} | {gbs:.0f} | {c or float('nan'):.4f} | "
                  f"{(c or float('nan')) / o:.3f} | {b if b else float('nan'):.4f} | "
                  f"{(b or float('nan')) / o:.3f} | {gbs / sum_gbs:.3f} |")
    return 1 if wrong else 0


def ours_sum(a, tname):
    """reduce7's plain sum by oclReduction (median T kernels of REPS runs)."""
    cmd = [a.ocr] + a.ocr_device.split() + ["-n", "7", "--type", tname, "-s", str(1 << a.size), "-r",
           str(a.reps), "--format", "json"] + a.ocr_args.split()
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        print("ours sum failed:", p.stderr[-400:])
        return None
    if not d.get("passed"):
        print("WRONG ours sum", tname)
        return None
    return d["median"]["t_kernels_ms"]


def theirs(a, what, tname):
    p = subprocess.run([a.cub, what, tname, str(a.reps), str(1 << a.size)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{what} {tname} failed ({p.returncode}): {p.stdout.strip()} {p.stderr[-300:]}")
        return None
    return float(p.stdout.strip().split(",")[3])


if __name__ == "__main__":
    sys.exit(main())
