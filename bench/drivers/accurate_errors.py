#!/usr/bin/env python3
"""accurate_errors.py [--sizes 10,20,24] [--dtypes float32,float64]
[--data uniform,normal,cancelling] [--seeds 5] - the error of float sums, in ulps of the
correctly rounded exact sum (math.fsum of the values, rounded to the dtype):
oclreduction.sum (the default), oclreduction.sum(accurate=True),
pyopencl.array.sum and NumPy's np.sum (pairwise), over seeded data:

  uniform     uniform(0, 1)
  normal      normal(0.5, 1)
  cancelling  h and -h(1 + u 2^-10) for h normal(0, 1), u uniform(0, 1),
              shuffled: the exact sum is small against sum |x|

Each cell is the median over --seeds data sets (one error in ulps of a
cancelling sum varies tenfold from seed to seed), with the largest in the
CSV. Prints a Markdown table (and --csv FILE writes the numbers). Runs on the
first OpenCL device ($PYOPENCL_CTX picks another); PYTHONPATH must reach the
package (build/python)."""
import argparse
import csv
import math
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import oclreduction as ocr


def draw(kind: str, n: int, dtype: np.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.random(n).astype(dtype)
    if kind == "normal":
        return rng.normal(0.5, 1.0, n).astype(dtype)
    h = rng.normal(0.0, 1.0, n // 2)
    x = np.concatenate([h, -h * (1 + rng.random(n // 2) * 2.0 ** -10)])
    return rng.permutation(x).astype(dtype)


def ulps(got: float, exact: float, dtype: np.dtype) -> float:
    want = dtype.type(exact)
    return abs(float(got) - float(want)) / float(np.spacing(np.abs(want)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,20,24", help="log2 of the sizes")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--data", default="uniform,normal,cancelling")
    ap.add_argument("--seeds", type=int, default=5, help="data sets per cell (median)")
    ap.add_argument("--csv", help="also write the numbers here")
    args = ap.parse_args()
    q = cl.CommandQueue(cl.create_some_context(interactive=False))
    print(f"# device: {q.device.name.strip()} ({q.device.platform.name.strip()}), "
          f"pyopencl {cl.VERSION_TEXT}, numpy {np.__version__}, oclreduction {ocr.__version__}")
    methods = ("oclreduction", "accurate=True", "pyopencl", "numpy")
    print("| dtype | data | n | " + " | ".join(methods) + " |")
    print("|---|---|---:|" + "---:|" * len(methods))
    rows = []
    for dt in (np.dtype(d) for d in args.dtypes.split(",")):
        if dt == np.float64 and not q.device.double_fp_config:
            continue
        for kind in args.data.split(","):
            for k in (int(s) for s in args.sizes.split(",")):
                errs = []
                for seed in range(args.seeds):
                    x = draw(kind, 1 << k, dt, seed=k + 100 * seed)
                    exact = math.fsum(x.astype(np.float64))
                    a = cla.to_device(q, x)
                    got = (ocr.sum(a).get()[()], ocr.sum(a, accurate=True).get()[()],
                           cla.sum(a).get()[()], np.sum(x))
                    errs.append([ulps(g, exact, dt) for g in got])
                err = [float(np.median(col)) for col in zip(*errs)]
                rows.append([dt.name, kind, 1 << k, args.seeds] + err
                            + [max(col) for col in zip(*errs)])
                print(f"| {dt.name} | {kind} | 2^{k} | " + " | ".join(f"{e:.3g}" for e in err)
                      + " |", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["dtype", "data", "n", "seeds"] + [f"{m} median ulps" for m in methods]
                       + [f"{m} max ulps" for m in methods])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
