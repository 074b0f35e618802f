#!/usr/bin/env python3
"""var_walks.py [options] - oclreduction.var on one GPU at N = 2^SIZE, float32
and float64: how long each of its two passes takes and how fast calls follow
each other (--passes), and the first pass with each walk over the data
(--walks): the vector walk the package takes (float2 / double4 loads, four
a step), the same with two loads a step, two-lane and four-lane vectors for
both types, and the scalar walk (4- or 8-byte loads).

Times are OpenCL kernel events on a profiling queue, medians of REPS calls:
the first pass (start to end), the gap to the second, the second, the span;
back to back: REPS + 1 calls enqueued without waiting, a call's time the gap
between successive calls' last kernels' ends, beside oclreduction.sum's the
same way. Walk variants are built by editing the package's kernel text
(cl/stats.cl as _kernels holds it) or its lanes (_stats._VEC_LANES) in this process, each checked against NumPy's var. The
data are custom_vs_cub.py's. PYTHONPATH must reach the package (build/python);
--passes runs against any version of it (to compare two builds)."""
import argparse
import os
import statistics
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oclreduction as ocr  # noqa: E402
from oclreduction import _custom  # noqa: E402
from custom_vs_cub import Recorder, data  # noqa: E402

med = statistics.median


def two_a_step(text):
    """Two vector loads a step instead of four (cl/stats.cl's macro lines)."""
    a = text[text.index("        for (; ocr_st_v + 3 * ocr_rk_g"):text.index(
        "        for (; ocr_st_v < ocr_st_nv")]
    return text.replace(a, """        for (; ocr_st_v + ocr_rk_g < ocr_st_nv; ocr_st_v += 2 * ocr_rk_g) { \\
            const OCR_ST_VT ocr_st_e0 = ocr_st_xv[ocr_st_v], ocr_st_e1 = ocr_st_xv[ocr_st_v + ocr_rk_g]; \\
            OCR_ST_VSTEP(ocr_st_e0) OCR_ST_VSTEP(ocr_st_e1) \\
        } \\
""")


def first_pass(q, x, reps):
    """(first pass, gap, second pass, span) in ms, medians over reps calls."""
    ocr.var(x).get()
    real = _custom._launch
    rec = Recorder()
    try:
        for spec in list(_custom._specs.values()):
            rec.wrap(spec, q)
        rows = []
        for _ in range(reps):
            rec.events.clear()
            ocr.var(x)
            q.finish()
            a, b = rec.events[0], rec.events[-1]
            rows.append(((a.profile.end - a.profile.start) * 1e-6,
                         (b.profile.start - a.profile.end) * 1e-6,
                         (b.profile.end - b.profile.start) * 1e-6,
                         (b.profile.end - a.profile.start) * 1e-6))
    finally:
        _custom._launch = real
    return [med(r[k] for r in rows) for k in range(4)]


def back_to_back(q, f, reps):
    rs = [f() for _ in range(reps + 1)]
    q.finish()
    ends = [r.events[-1].profile.end for r in rs]
    return med((b - a) * 1e-6 for a, b in zip(ends, ends[1:]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="NVIDIA")
    ap.add_argument("--size", type=int, default=28, help="log2 of N")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--passes", action="store_true", help="the passes and back-to-back calls")
    ap.add_argument("--walks", action="store_true", help="the first pass with each walk")
    ap.add_argument("--gpu-walk", action="store_true",
                    help="walk as on a GPU on any device (a dry run on a CPU)")
    a = ap.parse_args()
    if a.gpu_walk:
        _custom._blocked = lambda device: False
    dev = [d for p in cl.get_platforms() for d in p.get_devices()
           if a.device.lower() in (d.name + " " + p.name).lower()][0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    print(f"# {dev.name} ({dev.platform.name}, driver {dev.driver_version}), N = 2^{a.size}, "
          f"pyopencl {cl.VERSION_TEXT}, oclreduction {ocr.__version__} ({ocr.__file__})",
          flush=True)
    n = 1 << a.size
    wrong = 0
    for dt in (np.float32, np.float64):
        hx, _ = data(n, dt)
        want = float(np.var(hx.astype(np.float64)))
        x = cla.to_device(q, hx)
        del hx
        if a.passes:
            print(f"\n{np.dtype(dt)}: | round | pass 1 ms | gap ms | pass 2 ms | span ms | "
                  "var back to back ms | sum back to back ms |\n|---|---:|---:|---:|---:|---:|---:|")
            for rnd in range(a.rounds):
                p = first_pass(q, x, a.reps)
                v = back_to_back(q, lambda: ocr.var(x), a.reps)
                s = back_to_back(q, lambda: ocr.sum(x), a.reps)
                print(f"| {rnd} | " + " | ".join(f"{t:.4f}" for t in p + [v, s]) + " |",
                      flush=True)
        if a.walks:
            from oclreduction import _kernels, _stats
            vec, lanes = _kernels.source("stats.cl"), dict(_stats._VEC_LANES)
            variants = {"the package's, 4 a step": (vec, lanes),
                        "the package's, 2 a step": (two_a_step(vec), lanes),
                        "two lanes": (vec, dict.fromkeys(lanes, 2)),
                        "four lanes": (vec, dict.fromkeys(lanes, 4)),
                        "scalar": (vec.replace("if (OCR_ST_ALIGNED) {", "if (0) {"), lanes)}
            assert len({t for t, _ in variants.values()}) == 3, "a variant's edit missed"
            got = {}
            for rnd in range(a.rounds):
                order = list(variants.items())
                for name, (text, walk) in (order if rnd % 2 == 0 else order[::-1]):
                    _custom._specs.clear()
                    _kernels._texts["stats.cl"] = text
                    _stats._VEC_LANES.update(walk)
                    try:
                        if abs(float(ocr.var(x).get()) - want) > 1e-4 * want:
                            wrong += 1
                            print("WRONG", name, np.dtype(dt))
                        got.setdefault(name, []).append(first_pass(q, x, a.reps)[0])
                    finally:
                        _kernels._texts["stats.cl"] = vec
                        _stats._VEC_LANES.update(lanes)
            _custom._specs.clear()
            print(f"\n{np.dtype(dt)} first pass: | walk | median ms | rounds |\n|---|---:|---|")
            for name, v in got.items():
                print(f"| {name} | {med(v):.4f} | " + " ".join(f"{t:.4f}" for t in v) + " |")
        del x
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
