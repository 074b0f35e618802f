#!/usr/bin/env python3
"""peers_pyopencl.py - PyOpenCL's reductions, timed as bench/peers/peers.c times the
others, writing the same CSV rows (bench/drivers/peers.sh runs both and merges them).

  peers_pyopencl.py -p P -d D [--sizes "20 25 28"] [--types "int float"]
                    [-r R] [--budget SECONDS] [--seed S] [--no-header]

Timed region: the host clock (perf_counter_ns) from the call until the sum is
in host memory:
  pyopencl_sum  pyopencl.array.sum(a, queue=q).get(): PyOpenCL's cached sum
                kernel (two stages), a new 1-element result array each call,
                and the blocking read of it.
  pyopencl_rk   a ReductionKernel(ctx, T, "0", "a+b", "x[i]") made once, then
                kernel(a, queue=q).get(), likewise.
The input is on the device (written once, untimed); two untimed calls first,
then R timed calls round-robin (fewer if R would pass --budget, at least 3);
median and minimum; every answer checked against the exact sum. The data are
bench/peers/peers.c's (splitmix64, integer values), so the expected sums match.
PyOpenCL runs in its own process, with its own context and queue (no
profiling) on the same device, which -p and -d name as ocr_peers printed them.
"""
import argparse
import sys
import time

import numpy as np

try:
    import pyopencl as cl
    import pyopencl.array as cla
    from pyopencl.reduction import ReductionKernel
except ImportError as e:  # the driver checks first; this is for direct use
    sys.exit(f"peers_pyopencl: PyOpenCL cannot be imported ({e})")

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(seed, i):
    """bench/peers/peers.c's generator, on an array of indices (uint64 wraps)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (i + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def make_data(n, typ, seed):
    """The sum data and their exact sum, made in chunks to bound memory."""
    k = 1024 if typ == "int" else 4
    dt = np.int32 if typ == "int" else np.float32
    x = np.empty(n, dtype=dt)
    total = 0
    chunk = 1 << 22
    for lo in range(0, n, chunk):
        i = np.arange(lo, min(n, lo + chunk), dtype=np.uint64)
        h = splitmix64(seed, i)
        v = (1 + (h >> np.uint64(1)) % np.uint64(k)).astype(np.int64)
        v[(h & np.uint64(1)) == 1] *= -1
        total += int(v.sum())
        x[lo:lo + len(v)] = v.astype(dt)
    if typ == "int":
        want = np.int32(((total + (1 << 31)) % (1 << 32)) - (1 << 31))  # int sums wrap
    else:
        want = np.float32(total)
    return x, want


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-p", type=int, required=True)
    ap.add_argument("-d", type=int, required=True)
    ap.add_argument("--sizes", default="20 25 28")
    ap.add_argument("--types", default="int float")
    ap.add_argument("-r", type=int, default=20)
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-header", action="store_true")
    ap.add_argument("--name", help="the device's name: platform order differs between ICD "
                    "loaders (a PyOpenCL wheel brings its own), so the name decides")
    a = ap.parse_args()

    dev = cl.get_platforms()[a.p].get_devices()[a.d]
    if a.name and dev.name.strip() != a.name:
        found = [d for p in cl.get_platforms() for d in p.get_devices() if d.name.strip() == a.name]
        if not found:
            sys.exit(f"peers_pyopencl: no device named {a.name!r} here")
        dev = found[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    name = dev.name.strip().replace(",", ";")
    driver = dev.driver_version.strip().replace(",", ";")
    print(f"peers_pyopencl: {name} (driver {driver}), PyOpenCL {cl.VERSION_TEXT}", file=sys.stderr)
    if not a.no_header:
        print("platform_index,device_index,device,driver,type,n,peer,median_ms,min_ms,gbs,"
              "reps,result,expected,correct,note")

    for typ in a.types.split():
        ctype = {"int": "int", "float": "float"}[typ]
        dt = np.int32 if typ == "int" else np.float32
        rk = ReductionKernel(ctx, dt, neutral="0", reduce_expr="a+b", map_expr="x[i]",
                             arguments=f"__global const {ctype} *x")
        sides = [
            ("pyopencl_sum", lambda x: cla.sum(x, queue=q).get()),
            ("pyopencl_rk", lambda x: rk(x, queue=q).get()),
        ]
        for l2 in (int(s) for s in a.sizes.split()):
            n = 1 << l2
            print(f"peers_pyopencl: {typ}, n = {n}", file=sys.stderr)
            host, want = make_data(n, typ, a.seed)
            x = cla.to_device(q, host)
            del host
            q.finish()
            recs = []
            for nm, fn in sides:
                r = {"name": nm, "t": [], "right": 0, "last": None, "bad": None, "note": ""}
                for _ in range(2):
                    t0 = time.perf_counter_ns()
                    fn(x)
                    t = time.perf_counter_ns() - t0
                per = t / 1e9
                r["reps"] = a.r
                if per * a.r > a.budget:
                    r["reps"] = max(3, int(a.budget / per))
                    if r["reps"] < a.r:
                        r["note"] = f"{r['reps']} of {a.r} runs ({per:.3g} s each; --budget {a.budget:.3g} s)"
                recs.append((r, fn))
            for rep in range(a.r):
                for r, fn in recs:
                    if rep >= r["reps"]:
                        continue
                    t0 = time.perf_counter_ns()
                    v = fn(x)
                    r["t"].append(time.perf_counter_ns() - t0)
                    v = dt(v)
                    r["last"] = v
                    if v == want:
                        r["right"] += 1
                    elif r["bad"] is None:
                        r["bad"] = v
            for r, _ in recs:
                ts = sorted(r["t"])
                med = ts[(len(ts) - 1) // 2] / 1e6  # the lower median, as ocr_median_u64
                wrong = r["right"] < len(ts)
                got = r["bad"] if wrong else r["last"]
                fmt = (lambda v: str(int(v))) if typ == "int" else (lambda v: f"{float(v):.9g}")
                note = r["note"]
                if wrong:
                    note = f"WRONG: {len(ts) - r['right']} of {len(ts)} answers differ from the exact sum; " + note
                    print(f"peers_pyopencl: {r['name']} gave {fmt(got)} for {typ} n={n}, exact {fmt(want)}",
                          file=sys.stderr)
                print(f"{a.p},{a.d},{name},{driver},{typ},{n},{r['name']},{med:.6f},{ts[0] / 1e6:.6f},"
                      f"{n * 4 / med / 1e6:.3f},{len(ts)},{fmt(got)},{fmt(want)},{r['right']}/{len(ts)},{note}")
            sys.stdout.flush()
            del x


if __name__ == "__main__":
    main()
