#!/usr/bin/env python3
"""placement_summary.py RAW.csv [SLOW_US] - the tables of
bench/drivers/latency_placement.sh, in Markdown on stdout.

RAW.csv: ocr_latency's rows (bench/latency/latency.c), each prefixed with the
placement and the process number. Per side, size and placement: the number of
processes, the median over processes of each process's median, their range,
the median p10 and p90, and how many processes ran that side and size in the
slow mode: a median at least SLOW_US (default 4) above the side's fast level,
the 10th percentile of every process's median at that side and size, all
placements together. Then, per process, the blocking sides' medians over the
floor of the same process, in the order the processes ran.
"""
import csv
import statistics
import sys

COLS = ('placement,proc,round,side,type,log2n,reps,median_us,min_us,p10_us,p90_us,max_us,'
        'passes,groups,local,finish,correct').split(',')


def quantile(xs, q):
    xs = sorted(xs)
    return xs[int(q * (len(xs) - 1) + 0.5)]


def size_table(heads, sizes, rows):
    """A Markdown table: a column per head, then one per size (2^n); rows:
    (labels, cells) pairs, a label per head and a cell per size."""
    print('| ' + ' | '.join(heads) + ' | ' + ' | '.join('2^%d' % n for n in sizes) + ' |')
    print('|' + '---|' * len(heads) + '---:|' * len(sizes))
    for labels, cells in rows:
        print('| ' + ' | '.join(list(labels) + cells) + ' |')


def main():
    path = sys.argv[1]
    slow_us = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
    rows = [dict(zip(COLS, r)) for r in csv.reader(open(path)) if len(r) == len(COLS)
            and r[2] != 'round']
    if not rows:
        print('no rows')
        return 1
    for r in rows:
        for k in ('median_us', 'p10_us', 'p90_us', 'min_us'):
            r[k] = float(r[k])
        r['proc'], r['log2n'] = int(r['proc']), int(r['log2n'])
    places = list(dict.fromkeys(r['placement'] for r in rows))
    sides = list(dict.fromkeys(r['side'] for r in rows))
    types = list(dict.fromkeys(r['type'] for r in rows))
    sizes = sorted({r['log2n'] for r in rows})
    wrong = [r for r in rows if r['correct'] != '1']
    by = {}
    for r in rows:
        by.setdefault((r['side'], r['type'], r['log2n']), []).append(r)
    fast = {k: quantile([r['median_us'] for r in v], 0.1) for k, v in by.items()}

    print('# Latency by placement\n')
    print('%d processes, %d placements; every value right: %s. Slow: a process\'s median '
          'at least %.1f us above the fast level (the 10th percentile of all processes\' '
          'medians at that side and size). Microseconds.\n'
          % (len({r['proc'] for r in rows}), len(places),
             'yes' if not wrong else 'NO (%d rows)' % len(wrong), slow_us))
    def cell(s, t, n, p):
        v = [r for r in by.get((s, t, n), []) if r['placement'] == p]
        if not v:
            return '-'
        slow = sum(r['median_us'] >= fast[(s, t, n)] + slow_us for r in v)
        return '%.1f (%d/%d)' % (statistics.median(r['median_us'] for r in v), slow, len(v))

    for t in types:
        print('## %s: median over processes (slow processes / processes)\n' % t)
        size_table(('side', 'placement'), sizes,
                   (((s, p), [cell(s, t, n, p) for n in sizes]) for s in sides for p in places))
        print()
        print('## %s: per side and size, per placement\n' % t)
        print('| side | 2^n | fast level | placement | procs | median | range of medians | '
              'p10 | p90 | slow |')
        print('|---|---:|---:|---|---:|---:|---|---:|---:|---:|')
        for s in sides:
            for n in sizes:
                for p in places:
                    v = [r for r in by.get((s, t, n), []) if r['placement'] == p]
                    if not v:
                        continue
                    m = [r['median_us'] for r in v]
                    print('| %s | %d | %.1f | %s | %d | %.1f | %.1f-%.1f | %.1f | %.1f | %d |' % (
                        s, n, fast[(s, t, n)], p, len(v), statistics.median(m), min(m), max(m),
                        statistics.median(r['p10_us'] for r in v),
                        statistics.median(r['p90_us'] for r in v),
                        sum(x >= fast[(s, t, n)] + slow_us for x in m)))
        print()
        # per process: each blocking side's median minus the same process's floor
        blocking = [s for s in sides if s != 'cl_floor']
        if 'cl_floor' in sides:
            print('## %s: per process, median minus the same process\'s cl_floor median '
                  '(* slow)\n' % t)
            print('| proc | placement | side | ' + ' | '.join('2^%d' % n for n in sizes) + ' |')
            print('|---:|---|---|' + '---:|' * len(sizes))
            procs = sorted({r['proc'] for r in rows})
            for pr in procs:
                mine = {(r['side'], r['log2n']): r for r in rows
                        if r['proc'] == pr and r['type'] == t}
                if not mine:
                    continue
                pl = next(iter(mine.values()))['placement']
                for s in blocking:
                    cells = []
                    for n in sizes:
                        a, f = mine.get((s, n)), mine.get(('cl_floor', n))
                        if not a or not f:
                            cells.append('-')
                            continue
                        star = '*' if a['median_us'] >= fast[(s, t, n)] + slow_us else ''
                        cells.append('%+.1f%s' % (a['median_us'] - f['median_us'], star))
                    print('| %d | %s | %s | %s |' % (pr, pl, s, ' | '.join(cells)))
            print()
    return 1 if wrong else 0


if __name__ == '__main__':
    sys.exit(main())
