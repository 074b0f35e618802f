#!/usr/bin/env python3
"""plot_ops_vs_cub.py OUT.svg LABEL=RAW.csv [LABEL=RAW.csv ...] - the plot of
docs/perf/ops.md's table: for each comparison (argmax, segmented
sums per type and K) the ratio CUB time / ours on each GPU, as horizontal
bars on a log axis, growing from the line of parity at 1 (right of it, ours
is faster).

RAW.csv is bench/drivers/ops_vs_cub.sh's raw.csv (round, contender, what, type, n,
k, median_ms, passed); a ratio is the median over rounds of CUB's run
divided by the median over rounds of ours, as in its summary.txt. Rows that
did not pass are left out. Plain SVG, no plotting library needed.
"""
import csv
import math
import statistics
import sys
from collections import defaultdict

COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd']
BAR, GAP, LEFT, RIGHT, TOP = 14, 10, 190, 40, 40


def ratios(path):
    runs = defaultdict(list)
    for r in csv.DictReader(open(path)):
        if r['passed'] == '1' and r['contender'] in ('ours', 'cub'):
            runs[(r['what'], r['type'], r['k'], r['contender'])].append(float(r['median_ms']))
    out = {}
    for (what, typ, k, who), t in runs.items():
        other = runs.get((what, typ, k, 'cub'))
        if who == 'ours' and other:
            out[(what, typ, k)] = statistics.median(other) / statistics.median(t)
    return out


def name(key):
    what, typ, k = key
    return f'{what} {typ}' + (f' K={int(k):,}' if k else '')


def svg(series, path):
    keys = sorted({k for _, r in series for k in r}, key=lambda k: (k[0], k[1], int(k[2] or 0)))
    vals = [v for _, r in series for v in r.values()]
    # a log2 axis, whole powers of two, parity inside: bars grow from 1
    lo = min(-1, math.floor(math.log2(min(vals))))
    hi = max(1, math.ceil(math.log2(max(vals))))
    x = lambda v: LEFT + 500 * (math.log2(v) - lo) / (hi - lo)
    width = LEFT + 500 + RIGHT
    per = len(series) * BAR + GAP
    bottom = TOP + len(keys) * per
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{bottom + 40}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{bottom + 40}" fill="white"/>',
           f'<text x="{LEFT}" y="16" font-size="13">CUB time / ours at 2^28 elements, log scale '
           '(right of 1: ours faster)</text>']
    for i, (label, _) in enumerate(series):
        out.append(f'<rect x="{LEFT + 380 + 70 * i}" y="22" width="10" height="10" '
                   f'fill="{COLOURS[i % len(COLOURS)]}"/><text x="{LEFT + 394 + 70 * i}" '
                   f'y="31">{label}</text>')
    for j, key in enumerate(keys):
        y0 = TOP + j * per
        out.append(f'<text x="{LEFT - 6}" y="{y0 + per / 2}" text-anchor="end">{name(key)}</text>')
        for i, (label, r) in enumerate(series):
            if key not in r:
                continue
            y, v = y0 + i * BAR, r[key]
            a, b = sorted((x(1), x(v)))
            tx, anchor = (b + 4, 'start') if v >= 1 else (a - 4, 'end')
            out.append(f'<rect x="{a:.1f}" y="{y}" width="{max(b - a, 1):.1f}" height="{BAR - 2}" '
                       f'fill="{COLOURS[i % len(COLOURS)]}"/><text x="{tx:.1f}" y="{y + BAR - 4}" '
                       f'text-anchor="{anchor}">{v:.2f}</text>')
    for e in range(lo, hi + 1):
        out.append(f'<line x1="{x(2.0 ** e):.1f}" y1="{bottom}" x2="{x(2.0 ** e):.1f}" '
                   f'y2="{bottom + 4}" stroke="black"/><text x="{x(2.0 ** e):.1f}" '
                   f'y="{bottom + 16}" text-anchor="middle">{2.0 ** e:g}</text>')
    out.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{LEFT + 500}" y2="{bottom}" stroke="black"/>')
    out.append(f'<line x1="{x(1):.1f}" y1="{TOP - 4}" x2="{x(1):.1f}" y2="{bottom}" '
               'stroke="black" stroke-dasharray="4,3"/>')
    out.append('</svg>')
    open(path, 'w').write('\n'.join(out) + '\n')


def main():
    if len(sys.argv) < 3 or any('=' not in a for a in sys.argv[2:]):
        print(__doc__.split('\n\n')[0], file=sys.stderr)
        return 2
    series = [(a.split('=', 1)[0], ratios(a.split('=', 1)[1])) for a in sys.argv[2:]]
    if not any(r for _, r in series):
        print('plot_ops_vs_cub: no comparison with both sides passed', file=sys.stderr)
        return 1
    svg(series, sys.argv[1])
    for label, r in series:
        for key in sorted(r):
            print(f'{label}\t{name(key)}\t{r[key]:.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
