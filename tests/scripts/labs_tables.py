#!/usr/bin/env python3
"""labs_tables.py SRC [--write] - the measured tables of docs/labs/*.md.

A lab page marks a table of measured T kernels with
    <!-- measured: reduce3 reduce4 -->
    ... (generated) ...
    <!-- end measured -->
(or, for one kernel's times in the tutorial's and our definitions, one row a
device, <!-- measured-e2e: reduce7 -->) and this script fills it from the committed CSV files of bench/results/ladder/,
so a page cannot quote a number that the files do not hold. Without --write
it checks that every marked table is what the files give (exit 1 and a diff
if not); with --write it rewrites the tables in place.
"""
import csv
import difflib
import glob
import os
import re
import sys

# The columns: a heading and the files behind it (several files: one cell
# "a / b", in this order). Devices and dates: bench/results/ladder/README.md.
COLUMNS = [
    ("H100", ["ladder-h100.csv"]),
    ("H200", ["ladder-h200.csv"]),
    ("POCL, 16 cores", ["ladder-pocl-16core-h100box.csv", "ladder-pocl-16core-h200box.csv"]),
    ("POCL, 2 cores", ["ladder-pocl-2core-h100box.csv", "ladder-pocl-2core-h200box.csv"]),
    ("POCL 3.1, 2 cores (CI)", ["ladder-pocl31-2core-ci.csv"]),
]
CAPTION = (
    "T kernels in ms (median), 2^25 int sums, `oclReduction -n K --format csv`, "
    "2026-11-22 ([bench/results/ladder](../../bench/results/ladder/README.md)): "
    "H100 80GB HBM3 and H200, NVIDIA OpenCL 3.0, driver 580.159.04, 30 runs "
    "(`ladder-h100.csv`, `ladder-h200.csv`); POCL 5.0 on the Xeon (Skylake-AVX512) "
    "of each GPU machine, 16 cores and 2 cores, 10 runs, "
    "cells \"H100 machine / H200 machine\" (`ladder-pocl-16core-*.csv`, "
    "`ladder-pocl-2core-*.csv`); POCL 3.1 on the 2-core AMD EPYC machine CI runs on, "
    "10 runs, the middle of 3 passes, 2026-11-24 (`ladder-pocl31-2core-ci.csv`)."
)
BEGIN = re.compile(r"^<!-- measured(-e2e)?: ([A-Za-z0-9_ ]+) -->$")
END = "<!-- end measured -->"


def fmt(ms):
    """Three significant figures, no exponent."""
    v = float(ms)
    digits = max(0, 2 - (len(str(int(v))) - 1) if v >= 1 else 2 - int(f"{v:e}".split("e")[1]))
    return f"{v:.{digits}f}"


def load(mdir):
    data = {}
    for _, files in COLUMNS:
        for f in files:
            with open(os.path.join(mdir, f), newline="") as fh:
                data[f] = {r["kernel"]: r for r in csv.DictReader(fh)}
    return data


def table(kernels, data):
    out = ["| kernel | " + " | ".join(h for h, _ in COLUMNS) + " |",
           "|---|" + "---:|" * len(COLUMNS)]
    for k in kernels:
        cells = []
        for _, files in COLUMNS:
            rows = [data[f].get(k) for f in files]
            if any(r is None for r in rows):
                sys.exit(f"labs_tables: no row for {k} in {files}")
            if any(r["passed"] != "1" for r in rows):
                sys.exit(f"labs_tables: {k} did not pass in {files}")
            cells.append(" / ".join(fmt(r["t_kernels_ms"]) for r in rows))
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    out += ["", CAPTION]
    return out


# A "measured-e2e" table: one kernel, one row per device, the tutorial's
# T gpu and speedup (upload excluded) beside ours (upload included).
E2E = [("T gpu (tutorial: no upload), ms", "t_gpu_tutorial_ms"),
       ("T total (ours: upload included), ms", "t_gpu_ms"),
       ("Speedup (tutorial)", "speedup_tutorial"),
       ("Speedup end to end", "speedup")]


def table_e2e(kernels, data):
    if len(kernels) != 1:
        sys.exit("labs_tables: a measured-e2e table takes one kernel")
    k = kernels[0]
    out = ["| device | " + " | ".join(h for h, _ in E2E) + " |",
           "|---|" + "---:|" * len(E2E)]
    for head, files in COLUMNS:
        rows = [data[f].get(k) for f in files]
        if any(r is None or r["passed"] != "1" for r in rows):
            sys.exit(f"labs_tables: no passing row for {k} in {files}")
        cells = [" / ".join(fmt(r[col]) for r in rows) for _, col in E2E]
        out.append(f"| {head} | " + " | ".join(cells) + " |")
    out += ["", CAPTION.replace("T kernels in ms (median)", f"{k}, medians")]
    return out


def fill(lines, data):
    res, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        res.append(lines[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(lines) and lines[j] != END:
            j += 1
        if j == len(lines):
            sys.exit("labs_tables: a measured table has no end marker")
        res += (table_e2e if m.group(1) else table)(m.group(2).split(), data)
        res.append(END)
        i = j + 1
    return res


def main():
    src = sys.argv[1]
    write = "--write" in sys.argv[2:]
    data = load(os.path.join(src, "bench", "results", "ladder"))
    bad = tables = 0
    for md in sorted(glob.glob(os.path.join(src, "docs", "labs", "*.md"))):
        with open(md) as fh:
            old = fh.read().split("\n")
        tables += sum(1 for line in old if BEGIN.match(line))
        new = fill(old, data)
        if new == old:
            continue
        if write:
            with open(md, "w") as fh:
                fh.write("\n".join(new))
            print(f"rewrote {md}")
        else:
            bad += 1
            sys.stdout.writelines(difflib.unified_diff(
                [x + "\n" for x in old], [x + "\n" for x in new], md, md + " (from the CSV files)"))
    if tables == 0:
        sys.exit("labs_tables: no measured table in docs/labs")
    if bad:
        print(f"FAIL: {bad} page(s) quote tables the measurement files do not give;"
              " run tests/scripts/labs_tables.py SRC --write")
        return 1
    print(f"ok: {tables} measured tables agree with bench/results/ladder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
