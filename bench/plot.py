#!/usr/bin/env python3
"""plot.py - the project's plotting command: committed CSVs in, one SVG (or PNG) out
(gnuplot draws it). The pictures of docs/ are made by this command from the
files of bench/results/, each page showing the command beside its picture
and its table; tests/scripts/docs_plots_test.py runs every such command.

  bench/plot.py [LABEL=]CSV... -x COL -y COL -o OUT.svg|png [--series COL[,COL]]
                [--where COL=V[|V...]]... [--bars] [--logx B] [--logy]
                [--xformat FMT] [--xlabel T] [--ylabel T] [--title T]
                [--out-dir DIR]

Each row of each CSV (its first line the header; lines starting with '#'
skipped) that passes every --where becomes a point (a y of nan or inf: none): x from column -x, y from
-y. Points fall into series by the CSV's LABEL and the values of the
--series columns (joined by spaces). Lines (default): x numeric, a line per
series, --logx B a log axis of base B, --xformat a gnuplot format for its
labels ('2^%g' where x is already a log2). --bars: x is a category, in the
order first seen, one bar per series in each group. --out-dir DIR writes
OUT's file name into DIR instead (the test's copy).
Exit 0 with the picture, 2 on a usage error or nothing to plot, 3 if gnuplot
is missing or fails.
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile


def usage(msg):
    print(f"plot.py: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="plot.py", description=__doc__.split("\n")[0])
    p.add_argument("csv", nargs="+", help="[LABEL=]CSV")
    p.add_argument("-x", required=True)
    p.add_argument("-y", required=True)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--series", default="")
    p.add_argument("--where", action="append", default=[])
    p.add_argument("--bars", action="store_true")
    p.add_argument("--logx", type=float)
    p.add_argument("--logy", action="store_true")
    p.add_argument("--xformat")
    p.add_argument("--xlabel")
    p.add_argument("--ylabel")
    p.add_argument("--title", default="")
    p.add_argument("--out-dir")
    a = p.parse_args(argv)
    if not a.output.endswith((".svg", ".png")):
        usage(f"-o {a.output}: the picture is an SVG or a PNG (name it .svg or .png)")
    return a


def filters(where):
    """--where COL=V|W -> [(COL, {V, W})]"""
    out = []
    for w in where:
        col, eq, vals = w.partition("=")
        if not eq or not col:
            usage(f"--where {w}: expected COL=VALUE[|VALUE...]")
        out.append((col, set(vals.split("|"))))
    return out


def read_points(specs, a):
    """[(series, x, y)] in file and row order."""
    cols = [c for c in a.series.split(",") if c]
    where = filters(a.where)
    points = []
    for spec in specs:
        label, eq, path = spec.partition("=")
        if not eq:
            label, path = "", spec
        try:
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        except OSError as e:
            usage(f"{path}: {e.strerror}")
        if not rows:
            usage(f"{path}: no rows")
        for c in [a.x, a.y] + cols + [w[0] for w in where]:
            if c not in rows[0]:
                usage(f"{path} has no column '{c}' (it has: {', '.join(rows[0])})")
        for r in rows:
            if all(r[c] in vals for c, vals in where) and r[a.y] != "":
                name = " ".join(s for s in [label] + [r[c] for c in cols] if s)
                try:
                    y = float(r[a.y])
                    x = r[a.x] if a.bars else float(r[a.x])
                except ValueError:
                    usage(f"{path}: '{r[a.y]}' or '{r[a.x]}' is not a number")
                if math.isfinite(y):  # a run cut short writes nan: no point, not a zero
                    points.append((name or a.y, x, y))
    if not points:
        usage("no row passes the --where filters: nothing to plot")
    return points


def ordered(seq):
    return list(dict.fromkeys(seq))


def write_data(points, a, tmp):
    """The data files and the plot command's terms."""
    series = ordered(p[0] for p in points)
    terms = []
    if a.bars:
        xs = ordered(p[1] for p in points)
        value = {(s, x): y for s, x, y in points}
        path = os.path.join(tmp, "bars.dat")
        with open(path, "w", encoding="utf-8") as f:
            for x in xs:
                cells = [value.get((s, x), math.nan) for s in series]
                f.write('"%s" %s\n' % (x, " ".join("?" if math.isnan(v) else repr(v) for v in cells)))
        for i, s in enumerate(series):
            terms.append(f"'{path}' using {i + 2}{':xtic(1)' if i == 0 else ''} title '{s}'")
        return terms
    for i, s in enumerate(series):
        path = os.path.join(tmp, f"s{i}.dat")
        with open(path, "w", encoding="utf-8") as f:
            for _, x, y in sorted((p for p in points if p[0] == s), key=lambda p: p[1]):
                f.write(f"{x!r} {y!r}\n")
        terms.append(f"'{path}' using 1:2 with linespoints title '{s}'")
    return terms


# SVG for the docs (text, small, its labels greppable); PNG where a page needs one.
TERMINALS = {
    ".svg": "set terminal svg size 760,440 dynamic noenhanced font 'sans,12' background rgb 'white'",
    ".png": "set terminal pngcairo size 760,440 noenhanced font 'sans,10'",
}


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def script(a, terms, out):
    lines = [
        TERMINALS[os.path.splitext(out)[1]],
        f"set output {quote(out)}",
        f"set title {quote(a.title)}",
        f"set xlabel {quote(a.xlabel or a.x)}",
        f"set ylabel {quote(a.ylabel or a.y)}",
        "set key outside right top",
        "set grid",
    ]
    if a.logy:
        lines.append("set logscale y 10")
    if a.bars:
        lines += ["set style data histograms", "set style histogram clustered gap 1",
                  "set style fill solid 0.8 border -1"]
        if not a.logy:
            lines.append("set yrange [0:*]")  # a bar starts at zero, or its height lies
    else:
        if a.logx:
            lines.append(f"set logscale x {a.logx:g}")
        if a.xformat:
            lines.append(f"set format x {quote(a.xformat)}")
    lines.append("plot " + ", ".join(terms))
    return "\n".join(lines) + "\n"


def main(argv):
    a = parse_args(argv)
    points = read_points(a.csv, a)
    out = a.output if a.out_dir is None else os.path.join(a.out_dir, os.path.basename(a.output))
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("plot.py: gnuplot not found (apt-get install gnuplot-nox)", file=sys.stderr)
        return 3
    with tempfile.TemporaryDirectory() as tmp:
        gp = script(a, write_data(points, a, tmp), out)
        r = subprocess.run([gnuplot], input=gp, text=True, capture_output=True)
    if r.returncode != 0 or not os.path.exists(out):
        print(f"plot.py: gnuplot failed: {r.stderr.strip()}", file=sys.stderr)
        return 3
    print(f"plot.py: wrote {out} ({len(points)} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
