#!/usr/bin/env python3
"""summary.py RAW.csv SUMMARY.csv SUMMARY.md - the tables of
bench/drivers/latency.sh from the rows of every round (bench/latency/latency.c and
bench/cub/cub_latency.cu write the same columns).

Per side, type and size: the median over rounds of each round's median, the
smallest minimum, the median over rounds of p10 and of p90, and whether every
value of every round was right. summary.md holds the tables of
docs/perf/latency.md; a side that was not run is "-".
"""
import csv
import statistics
import sys


def load(path):
    groups = {}
    for row in csv.DictReader(open(path)):
        if row.get('round') == 'round':  # a header repeated by a later process
            continue
        groups.setdefault((row['side'], row['type'], int(row['log2n'])), []).append(row)
    summary = {}
    for key, rows in groups.items():
        med = lambda f: statistics.median(float(r[f]) for r in rows)
        summary[key] = {
            'median': med('median_us'), 'min': min(float(r['min_us']) for r in rows),
            'p10': med('p10_us'), 'p90': med('p90_us'), 'rounds': len(rows),
            'correct': all(r['correct'] == '1' for r in rows),
            'plan': (rows[0]['passes'], rows[0]['groups'], rows[0]['local'], rows[0]['finish']),
        }
    return summary


def write_csv(summary, path):
    with open(path, 'w') as f:
        f.write('side,type,log2n,rounds,median_us,min_us,p10_us,p90_us,passes,groups,local,'
                'finish,all_correct\n')
        for (side, t, n), s in sorted(summary.items()):
            f.write('%s,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%s,%d\n' % (
                side, t, n, s['rounds'], s['median'], s['min'], s['p10'], s['p90'], *s['plan'],
                s['correct']))


def table(out, title, header, rows):
    out.append('\n' + title + '\n')
    out.append('| ' + ' | '.join(header) + ' |')
    out.append('|' + '|'.join('---' if i == 0 else '---:' for i in range(len(header))) + '|')
    for r in rows:
        out.append('| ' + ' | '.join(r) + ' |')


def main():
    summary = load(sys.argv[1])
    write_csv(summary, sys.argv[2])
    types = sorted({t for _, t, _ in summary}, key=lambda t: t != 'int')
    sizes = sorted({n for _, _, n in summary})
    get = lambda side, t, n: summary.get((side, t, n))

    def med(side, t, n):
        s = get(side, t, n)
        return '-' if not s else '%.1f%s' % (s['median'], '' if s['correct'] else ' WRONG')

    def diff(a, b, t, n):
        x, y = get(a, t, n), get(b, t, n)
        return None if not x or not y else x['median'] - y['median']

    def fmt(v):
        return '-' if v is None else '%+.1f' % v

    out = ['# Application latency (host wall time per call, microseconds; median over rounds '
           'of each round\'s median)']
    for t in types:
        rows = []
        for n in sizes:
            ours, cub = diff('reduce', 'cl_floor', t, n), diff('cub', 'cuda_floor', t, n)
            goal = []
            if ours is not None and n <= 20:
                goal.append('floor+1.5: %s' % ('yes' if ours <= 1.5 else 'NO'))
            if ours is not None and cub is not None:
                goal.append('vs CUB: %s' % ('yes' if ours <= cub else 'NO'))
            rows.append(['2^%d' % n, med('cl_floor', t, n), med('reduce', t, n), fmt(ours),
                         med('cuda_floor', t, n), med('cub', t, n), fmt(cub), ', '.join(goal)])
        table(out, '## %s: blocking, the value on the host' % t,
              ['N', 'OpenCL floor', 'reducer', 'reducer - floor', 'CUDA floor', 'CUB',
               'CUB - floor', 'goals'], rows)

        def spread(side, n):
            s = get(side, t, n)
            return '-' if not s else '%.1f / %.1f / %.1f' % (s['min'], s['p10'], s['p90'])
        table(out, '### %s: spread (min / p10 / p90)' % t,
              ['N', 'OpenCL floor', 'reducer', 'CUB'],
              [['2^%d' % n, spread('cl_floor', n), spread('reduce', n), spread('cub', n)]
               for n in sizes])
        sides = ['async_wait', 'async_tput', 'cub_async', 'cub_tput']
        table(out, '### %s: async, the value on the device (completion waited for; '
              'tput: per call of a batch back to back)' % t, ['N'] + sides,
              [['2^%d' % n] + [med(s, t, n) for s in sides] for n in sizes])
        sides = ['cl_floor', 'cl_floor_pinned', 'cl_floor_spin', 'cl_floor_map',
                 'cl_floor_direct', 'cuda_floor', 'cuda_floor_pinned']
        table(out, '### %s: floors, the value brought home each way' % t, ['N'] + sides,
              [['2^%d' % n] + [med(s, t, n) for s in sides] for n in sizes])
        sides = ['reduce', 'reduce_read', 'reduce_pinned', 'reduce_map', 'reduce_direct', 'reduce_spin',
                 'reduce_wait', 'reduce_two_launches', 'reduce_cu_groups', 'reduce_cold', 'cub_pinned',
                 'cub_cold']
        table(out, '### %s: reducer variants (blocking)' % t, ['N'] + sides,
              [['2^%d' % n] + [med(s, t, n) for s in sides] for n in sizes])

        def plan(side, n):
            s = get(side, t, n)
            if not s:
                return '-'
            passes, groups, local, finish = s['plan']
            return '%s x %s x %s%s' % (passes, groups, local, ', one launch' if finish == '1'
                                       else '')
        sides = ['reduce', 'reduce_two_launches', 'reduce_cu_groups']
        table(out, '### %s: plans (passes x groups of the first x work-group size)' % t,
              ['N'] + sides, [['2^%d' % n] + [plan(s, n) for s in sides] for n in sizes])
    wrong = sorted('%s %s 2^%d' % k for k, s in summary.items() if not s['correct'])
    out.append('\nWrong values: %s\n' % (', '.join(wrong) if wrong else 'none'))
    open(sys.argv[3], 'w').write('\n'.join(out))


if __name__ == '__main__':
    main()
