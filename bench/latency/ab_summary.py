#!/usr/bin/env python3
"""ab_summary.py RAW.CSV [SLOW_US] - bench/drivers/latency_ab.sh's tables: per
type, contender and side, the median over every process and context of their
medians (us) at each size, and [k/m]: how many of the m medians lie SLOW_US
(default 4) or more above the side's fastest tenth (the slow read mode); then
the reducer's plans (groups of the first pass, F: one launch)."""
import collections
import csv
import statistics
import sys

from placement_summary import size_table


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    slow_us = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
    med = collections.defaultdict(list)
    plan = {}
    for r in rows:
        key = (r['contender'], r['side'], r['type'], int(r['log2n']))
        med[key].append(float(r['median_us']))
        if r['passes'] != '0':
            plan[key] = '%s%s' % (r['groups'], 'F' if r['finish'] == '1' else '')
    names = list(dict.fromkeys(r['contender'] for r in rows))
    sides = list(dict.fromkeys(r['side'] for r in rows))
    sizes = sorted({int(r['log2n']) for r in rows})
    wrong = sum(r['correct'] != '1' for r in rows)
    print('# Contenders alternated round by round (us)\n')
    print('Rows: %d, wrong values: %d. [k/m]: medians %.0f us or more above the fastest tenth.\n'
          % (len(rows), wrong, slow_us))
    def cell(key):
        v = med.get(key)
        if not v:
            return '-'
        fast = sorted(v)[len(v) // 10]
        k = sum(x >= fast + slow_us for x in v)
        p = plan.get(key)
        return '%.1f [%d/%d]%s' % (statistics.median(v), k, len(v), ' (%s)' % p if p else '')

    for t in dict.fromkeys(r['type'] for r in rows):
        print('## %s\n' % t)
        size_table(('contender', 'side'), sizes,
                   (((c, s), [cell((c, s, t, n)) for n in sizes]) for c in names for s in sides))
        print()


if __name__ == '__main__':
    main()
