#!/usr/bin/env python3
"""Per-cell table of hotpath7's rounds: tools/table.py DIR... (each DIR a round.sh output with <system>-c<clients>-<config>/results.csv)."""
import csv, glob, statistics, sys
rows = {}
for i, d in enumerate(sys.argv[1:], 1):
    for f in sorted(glob.glob(d + '/*/results.csv')):
        entry = f.split('/')[-2]
        for r in csv.DictReader(open(f)):
            if r['status'] != 'ok': continue
            rows.setdefault(entry, []).append((i, float(r['throughput']), float(r['cpu_us_per_op']), float(r['p50_us']), float(r['p99_us']),
                                               int(r['warmup_s']), float(r['jit_pct_of_cpu']), float(r['load_average'])))
med = {}
for e in sorted(rows, key=lambda e: (e.split('-c')[1], e)):
    rs = rows[e]
    m = lambda k: statistics.median(x[k] for x in rs)
    med[e] = (m(1), m(2), m(3), m(4))
    trials = ', '.join(f"r{x[0]} {x[1]:,.0f} ({x[7]:.0f}; {x[5]} s, JIT {x[6]:.1f} %)" for x in sorted(rs))
    print(f"| {e} | {trials} | **{m(1):,.0f}** | {m(3)/1000:.2f} / {m(4)/1000:.2f} | {m(2):.1f} |")
print()
for cell in ('c16-64B-nofsync', 'c16-64B-fsync', 'c64-64B-fsync'):
    g = lambda s, k=0: med.get(f'{s}-{cell}', (float('nan'),) * 4)[k]
    print(cell, 'raft/unrep %.2f' % (g('tandem-raft') / g('tandem-unreplicated')), 'raft/jgroups %.2f' % (g('tandem-raft') / g('jgroups-raft')),
          'p99 raft/jgroups %.2f' % (g('tandem-raft', 3) / g('jgroups-raft', 3)), 'cpu raft/jgroups %.2f' % (g('tandem-raft', 1) / g('jgroups-raft', 1)))
