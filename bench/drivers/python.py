#!/usr/bin/env python3
"""python.py - the oclreduction package against pyopencl.array.sum,
numpy.sum and (where pyclblast imports, float types) CLBlast's xSUM, on one
OpenCL device, from 2^10 to 2^26 elements; docs/python.md shows the results.

  bench/drivers/python.py [--device P:D | NAME] [--out DIR] [--dtype int32]
                        [--sizes 10-26] [--budget SECONDS]

Device: --device, else $PYOPENCL_CTX ("P:D", platform and device index, as
PyOpenCL reads it), else the first GPU, else the first device. The timed
region, for every method: the host clock from the call until the value is in
host memory (blocking); the input already on the device (written once,
untimed), or in host memory for numpy:
  oclreduction   oclreduction.sum(a).get()
  pyopencl       pyopencl.array.sum(a).get()
  numpy          host.sum(dtype=host.dtype)
  clblast        pyclblast.sum(queue, n, a, out); out.get()   (float32/float64)
Two untimed calls of each, then rounds calling every method in turn (alternated)
until --budget seconds per method and size (at
least 5, at most 200); medians and minima. Every answer is checked against the
exact (wrapped) integer sum, or for floats data exact in any order.

Writes to DIR (default: a new directory under $TMPDIR, printed): results.csv (one row per size and
method), table.md (medians, and the ratio pyopencl / oclreduction), env.txt
(device, versions, command), time.png (gnuplot or matplotlib, if either is
there). Exit 0 with the results, 1 if an answer was wrong, 3 if something it
needs is missing (it says what).
"""
import argparse
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def need():
    """The modules, or exit 3 naming every missing one."""
    missing, mods = [], {}
    for name, how in (("numpy", "pip install numpy, or Debian: apt-get install python3-numpy"),
                      ("pyopencl", "pip install pyopencl, or Debian: apt-get install "
                                   "python3-pyopencl")):
        try:
            mods[name] = __import__(name)
        except ImportError as e:
            missing.append(f"{name} ({e}; {how})")
    try:
        import oclreduction
    except ImportError:
        # A checkout's build tree: build/python holds the package as built.
        tree = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "python")
        sys.path.insert(0, tree)
        try:
            import oclreduction
        except ImportError as e:
            missing.append(f"oclreduction ({e}; pip install the checkout, or build it: cmake -B "
                           f"build && cmake --build build, which makes {tree})")
            oclreduction = None
    mods["oclreduction"] = oclreduction
    if missing:
        sys.stderr.write("python.py: cannot run, missing:\n  " + "\n  ".join(missing) + "\n")
        sys.exit(3)
    try:
        import pyclblast
        mods["pyclblast"] = pyclblast
    except ImportError as e:
        mods["pyclblast"] = None
        print(f"python.py: CLBlast skipped (pyclblast: {e})")
    return mods


def pick_device(cl, spec):
    plats = cl.get_platforms()
    spec = spec or os.environ.get("PYOPENCL_CTX", "")
    if spec and ":" in spec and all(p.isdigit() for p in spec.split(":", 1)):
        p, d = (int(x) for x in spec.split(":", 1))
        return plats[p].get_devices()[d]
    devs = [d for p in plats for d in p.get_devices()]
    if spec:
        named = [d for d in devs if spec.lower() in (d.name + " " + d.platform.name).lower()]
        if not named:
            sys.exit(f"python.py: no device matches {spec!r}: "
                     + "; ".join(f"{d.platform.name}: {d.name}" for d in devs))
        return named[0]
    gpus = [d for d in devs if d.type & cl.device_type.GPU]
    return (gpus or devs)[0]


def timed_alternated(methods, budget, check):
    """{method: (median s, minimum s, calls)}: two untimed calls of each, then
    rounds that call every method once, in turn (so drift and neighbours'
    load fall on all alike), in an order drawn anew for each round (a method
    always called after numpy's host-only one found an idle GPU: on an H200
    it took up to 2x longer), until the budget per method (at least 5
    rounds, at most 200)."""
    for fn in methods.values():
        for _ in range(2):
            check(fn())
    times = {m: [] for m in methods}
    start, rounds = time.perf_counter(), 0
    while rounds < 200 and (rounds < 5 or time.perf_counter() - start < budget * len(methods)):
        order = list(methods.items())
        random.Random(rounds).shuffle(order)
        for m, fn in order:
            t0 = time.perf_counter()
            v = fn()
            times[m].append(time.perf_counter() - t0)
            check(v)
        rounds += 1
    out = {}
    for m, ts in times.items():
        ts.sort()
        out[m] = (ts[len(ts) // 2], ts[0], len(ts))
    return out


def make_data(np, dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":  # multiples of 1/4 with small partial sums
        return (rng.integers(-64, 64, n) / 4).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def plot(out, rows, title):
    methods = sorted({r[1] for r in rows})
    for m in methods:
        with open(os.path.join(out, f"{m}.dat"), "w") as f:
            f.writelines(f"{n} {ms}\n" for n, mm, ms, *_ in rows if mm == m)
    png = os.path.join(out, "time.png")
    if shutil.which("gnuplot"):
        lines = ", ".join(f"'{out}/{m}.dat' using 1:2 with linespoints title '{m}'"
                          for m in methods)
        gp = (f"set terminal pngcairo size 900,560 noenhanced\nset output '{png}'\n"
              f"set title '{title}'\nset logscale x 2\nset logscale y 10\nset format x '2^%L'\n"
              "set xlabel 'N (elements)'\nset ylabel 'median time to a host value (ms)'\n"
              f"set key top left\nset grid\nplot {lines}\n")
        r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
        for m in methods:
            os.remove(os.path.join(out, f"{m}.dat"))
        if r.returncode == 0:
            return png
        print(f"python.py: gnuplot failed: {r.stderr.strip()}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("python.py: no plot (neither gnuplot nor matplotlib)")
        return None
    for m in methods:
        if os.path.exists(os.path.join(out, f"{m}.dat")):
            os.remove(os.path.join(out, f"{m}.dat"))
    fig, ax = plt.subplots(figsize=(9, 5.6))
    for m in methods:
        pts = [(n, ms) for n, mm, ms, *_ in rows if mm == m]
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", base=2, label=m)
    ax.set(xlabel="N (elements)", ylabel="median time to a host value (ms)", title=title)
    ax.grid(True, which="both")
    ax.legend()
    fig.savefig(png, dpi=100)
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", help="P:D (platform:device indices) or part of a name")
    ap.add_argument("--out", help="output directory (default: a new one under $TMPDIR)")
    ap.add_argument("--dtype", default="int32")
    ap.add_argument("--sizes", default="10-26", help="log2 sizes, FIRST-LAST (every one)")
    ap.add_argument("--budget", type=float, default=0.5, help="seconds per method and size")
    args = ap.parse_args()
    mods = need()
    np, cl, ocr, clblast = mods["numpy"], mods["pyopencl"], mods["oclreduction"], mods["pyclblast"]
    import pyopencl.array as cla
    lo, hi = (int(x) for x in args.sizes.split("-"))
    dtype = np.dtype(args.dtype)
    dev = pick_device(cl, args.device)
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    if args.out is None:
        args.out = tempfile.mkdtemp(prefix="ocr-python.")
    os.makedirs(args.out, exist_ok=True)
    print(f"python.py: files in {args.out}/")
    with open(os.path.join(args.out, "env.txt"), "w") as f:
        f.write(f"command: {' '.join([sys.executable] + sys.argv)}\n"
                f"device: {dev.name} ({dev.platform.name}, {dev.platform.version}; "
                f"driver {dev.driver_version}; {dev.max_compute_units} compute units)\n"
                f"host: {platform.node()} {platform.processor() or platform.machine()}, "
                f"{os.cpu_count()} CPUs\npython {platform.python_version()}, numpy "
                f"{np.__version__}, pyopencl {cl.VERSION_TEXT}, oclreduction {ocr.__version__} "
                f"({os.path.dirname(ocr.__file__)}), pyclblast "
                f"{getattr(clblast, '__version__', 'yes') if clblast else 'not found'}\n"
                f"date: {time.strftime('%Y-%m-%d %H:%M')}\n")
    print(open(os.path.join(args.out, "env.txt")).read().strip())
    rows, wrong = [], 0
    for k in range(lo, hi + 1):
        n = 1 << k
        host = make_data(np, dtype, n)
        want = host.sum(dtype=dtype)
        a = cla.to_device(q, host)
        q.finish()

        def check(v, want=want, k=k):
            nonlocal wrong
            if np.asarray(v, dtype=dtype).tobytes() != np.asarray(want, dtype=dtype).tobytes():
                wrong += 1
                print(f"WRONG at 2^{k}: {v} != {want}")

        red = ocr._cache._cached(q, a, a.dtype, a.dtype, "sum")
        res = cla.empty(q, (), dtype)
        val = np.empty((), dtype)

        def c_call():  # the library call alone (one reused result buffer), then the copy
            ev = red.enqueue(q, a.base_data.int_ptr, 0, n, res.base_data.int_ptr, 0, [])
            cl.enqueue_copy(q, val, res.base_data, wait_for=[ev], is_blocking=True)
            return val[()]
        methods = {"oclreduction": lambda: ocr.sum(a).get()[()],
                   "ocr.value": lambda: ocr.value(a),
                   "c_call": c_call,
                   "pyopencl": lambda: cla.sum(a).get()[()],
                   "numpy": lambda: host.sum(dtype=dtype)}
        if clblast and dtype.kind == "f":
            out = cla.empty(q, (1, 1), dtype)  # pyclblast wants a 2-D result

            def xsum():
                clblast.sum(q, n, a, out)
                return out.get()[0, 0]
            methods["clblast"] = xsum
        line = [f"2^{k:<2}"]
        for m, (med, mn, reps) in timed_alternated(methods, args.budget, check).items():
            rows.append((n, m, med * 1e3, mn * 1e3, reps))
            line.append(f"{m} {med * 1e3:9.4f} ms")
        print("  ".join(line), flush=True)
    write_tables(args.out, rows, dtype, dev)
    png = plot(args.out, rows, f"sum of {dtype} on {dev.name}, blocking, device-resident")
    if png:
        print(f"plot: {png}")
    verdict(rows)
    return 1 if wrong else 0


def write_tables(out, rows, dtype, dev):
    with open(os.path.join(out, "results.csv"), "w") as f:
        f.write("n,method,median_ms,min_ms,reps\n")
        f.writelines(f"{n},{m},{med:.6f},{mn:.6f},{r}\n" for n, m, med, mn, r in rows)
    methods = list(dict.fromkeys(m for _, m, *_ in rows))
    med = {(n, m): v for n, m, v, *_ in rows}
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(f"Sum of {dtype}, {dev.name}: median ms from the call to the value on the "
                "host\n\n| N | " + " | ".join(methods) + " | pyopencl / oclreduction |\n")
        f.write("|---:|" + "---:|" * len(methods) + "---:|\n")
        for n in sorted({n for n, *_ in rows}):
            f.write(f"| 2^{n.bit_length() - 1} | "
                    + " | ".join(f"{med[(n, m)]:.4g}" for m in methods)
                    + f" | {med[(n, 'pyopencl')] / med[(n, 'oclreduction')]:.1f}x |\n")
    print(open(os.path.join(out, "table.md")).read())


def verdict(rows):
    """The issue's bar: >= 2x pyopencl at 2^22, faster from 2^14 on."""
    med = {(n, m): v for n, m, v, *_ in rows}
    sizes = sorted({n for n, *_ in rows})
    if (1 << 22) in sizes:
        r = med[(1 << 22, "pyopencl")] / med[(1 << 22, "oclreduction")]
        print(f"at 2^22: {r:.1f}x pyopencl.array.sum ({'at least' if r >= 2 else 'BELOW'} 2x)")
    slower = [n for n in sizes if n >= 1 << 14 and med[(n, "oclreduction")] >= med[(n, "pyopencl")]]
    print("faster than pyopencl.array.sum at every size from 2^14 on" if not slower else
          "NOT faster than pyopencl.array.sum at " + ", ".join(f"2^{n.bit_length() - 1}"
                                                              for n in slower))


if __name__ == "__main__":
    sys.exit(main())
