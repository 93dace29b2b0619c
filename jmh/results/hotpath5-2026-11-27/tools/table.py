#!/usr/bin/env python3
"""Markdown rows from PeerBenchmark results.csv files: per system, each trial's puts/s (load), medians."""
import csv, sys, statistics as st
from collections import defaultdict
rows = defaultdict(list)
for path in sys.argv[1:]:
    tag = ''
    if ':' in path: tag, path = path.split(':', 1)
    for r in csv.DictReader(open(path)):
        if r['status'] != 'ok': rows[(r['config'], r['system'] + tag)].append(None); continue
        rows[(r['config'], r['system'] + tag)].append(r)
print('| config | system | puts/s per trial (load) | median puts/s | p50 / p99 ms | CPU µs/put |')
print('|---|---|---|---|---|---|')
for (cfg, sysname), rs in sorted(rows.items()):
    ok = [r for r in rs if r]
    med = lambda k: st.median(float(r[k]) for r in ok)
    trials = ', '.join(f"{float(r['throughput']):,.0f} ({float(r['load_average']):.0f})" for r in ok)
    print(f"| {cfg} | {sysname} | {trials} | **{med('throughput'):,.0f}** | {med('p50_us')/1000:.2f} / {med('p99_us')/1000:.2f} | {med('cpu_us_per_op'):.1f} |")
