#!/usr/bin/env python3
"""modes_summary.py RAW.csv CONTEXTS [SLOW_US] - is the blocking
call's slow mode a property of the process or of the OpenCL context?

RAW.csv: bench/drivers/latency_placement.sh's rows of `ocr_latency --contexts K`
(placement, process, round = R * K + context, then ocr_latency's columns).
A (process, context, side, size) is slow when its median is at least SLOW_US
(default 4) above that side and size's fast level (the 10th percentile of all
medians, every placement together). Per placement, side and size: the share
of slow contexts, and how the K contexts of a process split: all slow, none,
mixed, beside the count of mixed processes expected if each context were slow
on its own at that share (1 - p^K - (1 - p)^K of the processes). Mixed near
the expectation: the mode belongs to the context; near 0 with p well inside
(0, 1): to the process.
"""
import csv
import sys
from collections import defaultdict

from placement_summary import COLS, quantile  # the same rows


def main():
    path, k = sys.argv[1], int(sys.argv[2])
    slow_us = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
    rows = [dict(zip(COLS, r)) for r in csv.reader(open(path))
            if len(r) == len(COLS) and r[2] != 'round']
    if not rows:
        print('no rows')
        return 1
    wrong = sum(r['correct'] != '1' for r in rows)
    fast = defaultdict(list)
    for r in rows:
        r['median_us'] = float(r['median_us'])
        r['ctx'] = int(r['round']) % k
        fast[(r['side'], r['type'], r['log2n'])].append(r['median_us'])
    fast = {key: quantile(v, 0.1) for key, v in fast.items()}
    groups = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        key = (r['side'], r['type'], r['log2n'])
        slow = r['median_us'] >= fast[key] + slow_us
        groups[(r['placement'],) + key][r['proc']][r['ctx']] = (slow, r['median_us'])
    print(f'{len(rows)} rows, {k} contexts per process, slow: median >= fast level + {slow_us} us;'
          f' {wrong} rows with a wrong value\n')
    print('| placement | side | type | 2^n | fast level (us) | processes | slow contexts |'
          ' all slow | none | mixed | mixed if independent | slow by context 0..K-1 |')
    print('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|')
    for (place, side, typ, log2n), procs in sorted(groups.items()):
        full = [c for c in procs.values() if len(c) == k]
        if not full:
            continue
        n_slow = sum(s for c in full for s, _ in c.values())
        p = n_slow / (len(full) * k)
        all_slow = sum(all(s for s, _ in c.values()) for c in full)
        none = sum(not any(s for s, _ in c.values()) for c in full)
        mixed = len(full) - all_slow - none
        expect = len(full) * (1 - p ** k - (1 - p) ** k)
        by_ctx = ' '.join(str(sum(c[j][0] for c in full)) for j in range(k))
        print(f'| {place} | {side} | {typ} | {log2n} | {fast[(side, typ, log2n)]:.1f} | {len(full)} |'
              f' {n_slow} of {len(full) * k} | {all_slow} | {none} | {mixed} | {expect:.1f} |'
              f' {by_ctx} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
