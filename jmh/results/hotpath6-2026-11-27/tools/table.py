#!/usr/bin/env python3
"""Per-system table of the A/B rounds: tools/table.py DIR... (each DIR an ab.sh output with <entry>/results.csv, or a copy with <entry>-results.csv)."""
import csv, glob, statistics, sys
rows = {}
for i, d in enumerate(sys.argv[1:], 1):
    for f in sorted(glob.glob(d + '/*/results.csv') + glob.glob(d + '/*-results.csv')):
        entry = f.split('/')[-2] if f.endswith('/results.csv') else f.split('/')[-1][:-len('-results.csv')]
        for r in csv.DictReader(open(f)):
            if r['status'] != 'ok': continue
            rows.setdefault(entry, []).append((i, float(r['throughput']), float(r['cpu_us_per_op']), float(r['p50_us']), float(r['p99_us']),
                                               int(r['warmup_s']), float(r['jit_pct_of_cpu']), float(r['load_average'])))
med = {}
for e, rs in rows.items():
    m = lambda k: statistics.median(x[k] for x in rs)
    med[e] = (m(1), m(2), m(3), m(4))
    trials = ', '.join(f"{x[1]:,.0f} ({x[7]:.0f}; {x[5]} s, JIT {x[6]:.1f} %)" for x in sorted(rs))
    print(f"| {e} | {trials} | **{m(1):,.0f}** | {m(3)/1000:.2f} / {m(4)/1000:.2f} | {m(2):.1f} |")
def r(a, b, k=0): return med[a][k] / med[b][k] if a in med and b in med else float('nan')
print()
for e in ('base-raft', 'new-raft'):
    print(e, 'vs jgroups %.2f' % r(e, 'new-jgroups'), 'vs unrep %.2f' % r(e, 'new-unrep'), 'cpu vs jgroups %.2f' % r(e, 'new-jgroups', 1), 'p99 vs jgroups %.2f' % r(e, 'new-jgroups', 3))
print('new/base throughput %.2f cpu %.2f p99 %.2f' % (r('new-raft', 'base-raft'), r('new-raft', 'base-raft', 1), r('new-raft', 'base-raft', 3)))
