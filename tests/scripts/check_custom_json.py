"""check_custom_json.py KERNEL N BUFFERS - reads oclReduction --preset/--map
--format json from stdin: one strict JSON object (no NaN or Infinity) with
every field docs/output.md documents for custom runs, a PASSED verdict on
KERNEL over N elements, min <= median kernel time, and bandwidth_gbs the
bytes of the BUFFERS arrays the map reads over the median kernel time."""
import json
import sys


def refuse(name):
    sys.exit(f"not JSON: {name}")


kernel, n, buffers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
doc = json.loads(sys.stdin.read(), parse_constant=refuse)
top = ["kernel", "map", "reduce", "neutral", "preset", "type", "n", "seed", "data", "device",
       "result", "expected", "tolerance", "depth", "passed", "repetitions", "bad_run", "data2",
       "bandwidth_gbs", "median", "min"]
missing = [k for k in top if k not in doc]
missing += [f"{s}.t_kernels_ms" for s in ("median", "min") if "t_kernels_ms" not in doc.get(s, {})]
if missing:
    sys.exit(f"missing fields: {missing}")
if doc["passed"] is not True or doc["n"] != n or doc["kernel"] != kernel or doc["bad_run"] != -1:
    sys.exit(f"unexpected values: {doc}")
med, low = doc["median"]["t_kernels_ms"], doc["min"]["t_kernels_ms"]
if not 0 < low <= med:
    sys.exit(f"kernel times: min {low} median {med}")
size = 8 if doc["type"] == "double" else 4
want = buffers * n * size / (med * 1e6)
if abs(doc["bandwidth_gbs"] - want) > 1e-3 + 1e-3 * want:
    sys.exit(f"bandwidth_gbs {doc['bandwidth_gbs']}, bytes / median {want}")
print("ok")
