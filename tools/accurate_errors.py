#!/usr/bin/env python3
"""accurate_errors.py [LOG2_MIN LOG2_MAX] - the error of float32 sums of seeded
normal(0.5, 1) data at 2^LOG2_MIN..2^LOG2_MAX: oclreduction.sum(accurate=True),
the plain oclreduction.sum, numpy's np.sum (pairwise) and pyopencl.array.sum,
each in ulps of the correctly rounded exact sum (math.fsum of the values,
rounded to float32) and relative to sum |x|. Runs on the first OpenCL device;
PYTHONPATH must reach the package (build/python)."""
import math
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction as ocr


def main() -> None:
    lo, hi = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (20, 26)
    q = cl.CommandQueue(cl.create_some_context(interactive=False))
    print(f"# device: {q.device.name.strip()} ({q.device.platform.name.strip()})")
    print("| n | accurate ulps | plain ulps | numpy ulps | pyopencl ulps "
          "| accurate rel | plain rel | numpy rel | pyopencl rel |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in range(lo, hi + 1):
        x = np.random.default_rng(k).normal(0.5, 1.0, 1 << k).astype(np.float32)
        exact = math.fsum(x.astype(np.float64))
        want = np.float32(exact)
        ulp = float(np.spacing(np.abs(want)))
        mag = float(np.abs(x.astype(np.float64)).sum())
        a = cla.to_device(q, x)
        got = {"accurate": ocr.sum(a, accurate=True).get(), "plain": ocr.sum(a).get(),
               "numpy": np.sum(x), "pyopencl": cla.sum(a).get()}
        err = {m: abs(float(v) - float(want)) for m, v in got.items()}
        rel = {m: abs(float(v) - exact) / mag for m, v in got.items()}
        print(f"| 2^{k} | " + " | ".join(f"{err[m] / ulp:.3g}" for m in got) + " | "
              + " | ".join(f"{rel[m]:.2g}" for m in got) + " |", flush=True)


if __name__ == "__main__":
    main()
