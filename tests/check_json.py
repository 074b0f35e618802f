"""check_json.py - reads oclReduction --format json from stdin and checks that
it parses and carries every field docs/output.md documents."""
import json
import sys

doc = json.loads(sys.stdin.read())
top = ["kernel", "kernel_file", "type", "op", "n", "m", "seed", "device", "platform",
       "driver", "device_version", "work_group_size", "passes", "leftover", "host_mem",
       "result", "expected", "tolerance", "passed", "repetitions", "median", "min",
       "bandwidth_gbs", "memops_per_s", "speedup", "kernel_speedup", "best_speedup",
       "cpu_threads"]
times = ["t_kernels_ms", "t_gpu_ms", "h2d_ms", "d2h_ms", "cpu_ms", "t_ref_ms", "t_best_ms"]
missing = [k for k in top if k not in doc]
missing += [f"{s}.{k}" for s in ("median", "min") for k in times if k not in doc.get(s, {})]
if missing:
    sys.exit(f"missing fields: {missing}")
if doc["passed"] is not True or doc["n"] != 4103 or doc["kernel"] != "reduce6":
    sys.exit(f"unexpected values: passed={doc['passed']} n={doc['n']} kernel={doc['kernel']}")
m = doc["median"]
total = m["h2d_ms"] + m["t_kernels_ms"] + m["d2h_ms"] + m["cpu_ms"]
if abs(total - m["t_gpu_ms"]) > 1e-3 * max(1.0, m["t_gpu_ms"]):
    sys.exit(f"t_gpu_ms {m['t_gpu_ms']} is not the sum of its parts {total}")
print("ok: json has every documented field")
