"""check_json.py - reads oclReduction --format json from stdin and checks that
it parses, carries every field docs/output.md documents, and that its times
obey exactly the definitions documented there:
  - each run's t_gpu is the sum of its four parts (h2d, kernels, d2h, cpu);
  - median.X is the lower median of X over the timed runs (runs[1:], runs[0]
    is the warm-up), and min.X their minimum, for every part, t_gpu and wall;
  - so median.t_gpu_ms is the median of the totals, not the sum of the parts'
    medians (those differ whenever different runs are the median of each part).
Times are printed as milliseconds with six decimals, i.e. exact nanoseconds,
so every comparison is made in integer nanoseconds."""
import json
import sys

doc = json.loads(sys.stdin.read())
top = ["kernel", "kernel_file", "type", "op", "data", "n", "m", "seed", "device", "platform",
       "driver", "device_version", "work_group_size", "passes", "leftover", "host_mem",
       "build_options", "result", "expected", "exact", "any_order", "tolerance", "err_ulps",
       "tol_ulps", "passed", "bad_run", "repetitions", "median", "min", "runs", "note",
       "bandwidth_gbs", "memops_per_s", "speedup", "kernel_speedup", "best_speedup",
       "cpu_threads", "speedup_tutorial", "bandwidth_tutorial_gbs", "memops_tutorial"]
parts = ["h2d_ms", "t_kernels_ms", "d2h_ms", "cpu_ms"]
times = parts + ["t_gpu_ms", "wall_ms", "t_gpu_tutorial_ms"]
missing = [k for k in top if k not in doc]
missing += [f"{s}.{k}" for s in ("median", "min") for k in times + ["t_ref_ms", "t_best_ms"]
            if k not in doc.get(s, {})]
if missing:
    sys.exit(f"missing fields: {missing}")
if doc["passed"] is not True or doc["n"] != 4103 or doc["kernel"] != "reduce6" or doc["bad_run"]:
    sys.exit(f"unexpected values: passed={doc['passed']} n={doc['n']} kernel={doc['kernel']}")


def ns(ms):
    return round(ms * 1e6)


runs = doc["runs"]
if len(runs) != doc["repetitions"] + 1 or [r["run"] for r in runs] != list(range(len(runs))):
    sys.exit(f"{len(runs)} runs for {doc['repetitions']} repetitions plus the warm-up")
for r in runs:
    t = r["times"]
    if ns(t["t_gpu_ms"]) != sum(ns(t[p]) for p in parts):
        sys.exit(f"run {r['run']}: t_gpu_ms {t['t_gpu_ms']} is not the sum of its parts")
    # The tutorial's T gpu leaves the upload out.
    if ns(t["t_gpu_tutorial_ms"]) != sum(ns(t[p]) for p in parts[1:]):
        sys.exit(f"run {r['run']}: t_gpu_tutorial_ms is not kernels + d2h + cpu")
    if len(r["pass_ms"]) != doc["passes"] or ns(t["t_kernels_ms"]) != sum(map(ns, r["pass_ms"])):
        sys.exit(f"run {r['run']}: pass_ms {r['pass_ms']} do not add up to t_kernels_ms")
    if r["passed"] is not True or r["result"] != doc["expected"]:
        sys.exit(f"run {r['run']}: result {r['result']} passed={r['passed']}")
timed = runs[1:]
for k in times:
    vals = sorted(ns(r["times"][k]) for r in timed)
    med, low = vals[(len(vals) - 1) // 2], vals[0]
    if ns(doc["median"][k]) != med or ns(doc["min"][k]) != low:
        sys.exit(f"{k}: median {doc['median'][k]} / min {doc['min'][k]} are not the lower "
                 f"median {med} ns / minimum {low} ns of the timed runs")
# The tutorial's figures from the medians: N/2 elements per kernel time.
med = doc["median"]
n2, es = doc["n"] // 2, {"int": 4, "uint": 4, "float": 4}.get(doc["type"], 8)
checks = [("bandwidth_tutorial_gbs", n2 * es / (med["t_kernels_ms"] * 1e6), 1e-3),
          ("memops_tutorial", n2 / med["t_kernels_ms"], 1e-5),
          ("speedup_tutorial", med["t_ref_ms"] / med["t_gpu_tutorial_ms"], 1e-4)]
for name, want, rel in checks:
    if abs(doc[name] - want) > rel * max(1.0, abs(want)):
        sys.exit(f"{name} {doc[name]} is not {want}")
print(f"ok: every documented field; times of {len(timed)} timed runs obey their definitions")
