"""oclReduction --op argmin/argmax against NumPy on the same data.

The data are the program's own (ocr_data_fill, from the test module
$OCR_DATA_MODULE through ctypes: the same seed, size, type and data kind);
the program's JSON report must give the index NumPy's argmin/argmax gives
and the value there.
Usage: arg_numpy_test.py OCLREDUCTION (PYTHONPATH: the package)."""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np

from oclreduction import _declarations as D
from oclreduction._native import lib

# ocr_data_fill is the benchmark API's, which the shared library does not
# export: tests/unit/shims/data_fill_module.c links the archive and offers it.
data_fill = ctypes.CDLL(os.environ["OCR_DATA_MODULE"]).test_data_fill
data_fill.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_int,
                      ctypes.c_uint64, ctypes.c_int]
data_fill.restype = None
for f in (lib.ocr_type_from_name, lib.ocr_op_from_name):
    f.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    f.restype = ctypes.c_int

DTYPES = {"int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
          "float": np.float32, "double": np.float64}
KINDS = {"exact": D.OCR_DATA_EXACT, "uniform": D.OCR_DATA_UNIFORM,
         "one-sided": D.OCR_DATA_ONE_SIDED}


def data(tname, op, n, seed, kind):
    x = np.empty(n, DTYPES[tname])
    t, o = ctypes.c_int(), ctypes.c_int()
    assert lib.ocr_type_from_name(tname.encode(), ctypes.byref(t)) == 0
    assert lib.ocr_op_from_name(op.encode(), ctypes.byref(o)) == 0
    data_fill(x.ctypes.data, n, t.value, o.value, seed, KINDS[kind])
    return x


def case(ocr, kernel, tname, op, n, seed, kind):
    x = data(tname, op, n, seed, kind)
    want = int(np.argmin(x) if op == "argmin" else np.argmax(x))
    cmd = [ocr, "-n", kernel, "--type", tname, "--op", op, "-s", str(n), "--seed", str(seed),
           "--data", kind, "-r", "1", "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2 and "fp64" in p.stderr + p.stdout:
        return True
    rep = json.loads(p.stdout)
    got = int(rep["index"])
    ok = p.returncode == 0 and rep["passed"] and got == want and int(rep["expected_index"]) == want
    # the value printed is the element at that index (up to -0.0, printed as 0)
    value = x.dtype.type(rep["result"])  # printed with the type's digits: exact
    ok = ok and (value == x[want] or (np.isnan(x[want]) and np.isnan(value)))
    if not ok:
        print(f"FAIL: {' '.join(cmd)}: index {got}, NumPy {want} (value {x[want]!r}); "
              f"report {rep['result']} passed={rep['passed']} rc={p.returncode}")
    return ok


def main():
    ocr = sys.argv[1]
    cases = [("6", "float", "argmax", 1000003, 1, "exact"),  # the command
             ("6", "float", "argmax", 1000003, 1, "uniform"),
             ("7", "double", "argmin", 1000003, 2, "exact"),
             ("7", "int", "argmax", 65537, 3, "one-sided"),
             ("0", "uint", "argmin", 4103, 4, "exact"),
             ("3", "long", "argmax", 100003, 5, "uniform"),
             ("7", "ulong", "argmin", 3, 6, "exact"),
             ("2", "float", "argmin", 1, 7, "exact")]
    bad = sum(not case(ocr, *c) for c in cases)
    print(f"{len(cases) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
