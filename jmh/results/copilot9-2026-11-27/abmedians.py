#!/usr/bin/env python3
"""Medians of the A/B windows (ab1 + ab2): per jar, healthy windows (0 and 2) and the +20 ms pilot window (1)."""
import csv, statistics, sys, os
root = sys.argv[1]
rows = {}
for ab in ('ab1', 'ab2'):
    for lab in ('A', 'B'):
        f = os.path.join(root, ab, lab, 'windows.csv')
        if not os.path.exists(f): continue
        for r in csv.DictReader(open(f)):
            kind = 'slow' if r['slow_nodes'] else 'healthy'
            rows.setdefault((lab, kind), []).append((ab, r))
def med(xs): return statistics.median(xs) if xs else float('nan')
for lab in ('A', 'B'):
    for kind in ('healthy', 'slow'):
        rs = rows.get((lab, kind), [])
        t = [float(r['throughput_ops_s']) for _, r in rs]; p50 = [float(r['p50_ms']) for _, r in rs]; p99 = [float(r['p99_ms']) for _, r in rs]
        print(f"{lab} {kind:7s} n={len(rs)} ops/s {med(t):7.0f}  p50 {med(p50):6.2f}  p99 {med(p99):7.2f}   per window: " +
              '; '.join(f"{ab}:{float(r['throughput_ops_s']):.0f}/{float(r['p99_ms']):.1f}/{r['leader']}/load {r['load_avg']}" for ab, r in rs))
