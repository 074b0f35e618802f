"""oclReduction --accurate against math.fsum on the program's own data.

The data are the program's (ocr_data_fill, from the test module
$OCR_DATA_MODULE through ctypes: same seed, size, type and kind). --data max
holds the type's largest in signs + + - -, so partial sums overflow in any
grouping while the exact sum is 0, the largest or past it; uniform data are
ordinary values. The answer IEEE arithmetic on the exact sum gives: NaN where
a NaN is or +inf meets -inf, an infinity where one is or the exact sum
overflows, else within one ulp of the correctly rounded exact sum: math.fsum,
and where its float64 partials overflow (OverflowError) the exact sum as a
Fraction, its overflow an infinity of its sign. The program must report that
value and PASSED (exit 0). Usage: accurate_fsum_test.py OCLREDUCTION
(PYTHONPATH: the package)."""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np

from oclreduction import _declarations as D
from oclreduction._native import lib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from ieee import ieee_sum  # noqa: E402  (tests/python/ieee.py, shared with test_accurate.py)

# ocr_data_fill is the benchmark API's, which the shared library does not
# export: tests/unit/shims/data_fill_module.c links the archive and offers it.
data_fill = ctypes.CDLL(os.environ["OCR_DATA_MODULE"]).test_data_fill
data_fill.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_int,
                      ctypes.c_uint64, ctypes.c_int]
data_fill.restype = None

DTYPES = {"float": (np.float32, D.OCR_FLOAT), "double": (np.float64, D.OCR_DOUBLE)}
KINDS = {"uniform": D.OCR_DATA_UNIFORM, "max": D.OCR_DATA_MAX}


def data(tname, n, seed, kind):
    dt, t = DTYPES[tname]
    x = np.empty(n, dt)
    data_fill(x.ctypes.data, n, t, D.OCR_SUM, seed, KINDS[kind])
    return x


def within(got, want):
    if not np.isfinite(want):
        return (np.isnan(got) and np.isnan(want)) or got == want
    a = np.abs(want)
    with np.errstate(over="ignore"):
        sp = np.float64(np.spacing(a))
    if not np.isfinite(sp):  # at the largest: the spacing below it
        sp = np.float64(a) - np.float64(np.nextafter(a, want.dtype.type(0)))
    return bool(np.isfinite(got)) and abs(np.float64(got) - np.float64(want)) <= sp


def case(ocr, tname, kind, n, extra):
    x = data(tname, n, 1, kind)
    want = ieee_sum(x)
    cmd = [ocr, "-n", "7", "--accurate", "--type", tname, "--data", kind, "-s", str(n),
           "-r", "1", "--format", "json"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 3 and "double precision" in p.stderr:
        return True  # no fp64 on this device
    try:
        rep = json.loads(p.stdout)
        got = x.dtype.type(float(rep["result"]))
    except (ValueError, KeyError) as e:
        print(f"FAIL: {' '.join(cmd)}: exit {p.returncode}, no report ({e}): {p.stderr}")
        return False
    ok = p.returncode == 0 and rep["passed"] and within(got, want)
    if not ok:
        print(f"FAIL: {' '.join(cmd)}: {got!r}, fsum says {want!r}; "
              f"passed={rep['passed']} exit {p.returncode}")
    return ok


def main():
    ocr = sys.argv[1]
    shapes = [[], ["--access", "strided"], ["--access", "blocked"],
              ["-M", "1", "-g", "7", "-w", "4"],        # the last group's finish
              ["-M", "1", "-g", "1500", "-w", "1"],     # launches of accumulators
              ["-M", "1", "-g", "1", "-w", "1"]]        # one work-item
    cases = [(t, "max", n, s) for t in DTYPES for n in (1, 2, 3, 4, 4103, 4102, 16000, 100003)
             for s in shapes if n <= 16000 or s[-1:] != ["1"]]
    cases += [(t, "uniform", n, s) for t in DTYPES for n in (3, 16001) for s in shapes]
    bad = sum(not case(ocr, *c) for c in cases)
    print(f"{len(cases) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
