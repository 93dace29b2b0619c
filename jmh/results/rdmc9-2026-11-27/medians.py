#!/usr/bin/env python3
"""Medians of bench-run{1,2,3}.txt: per payload and n, raw one stream, A (merge13) and B (this branch), MB/s per receiver."""
import glob, statistics, collections
pts = collections.defaultdict(list)
for f in sorted(glob.glob('bench-run*.txt')):
    for line in open(f):
        if ':' not in line or line.startswith('#') or line.startswith('['): continue
        label, rest = line.strip().split(':', 1)
        system, n, payload, mbs = rest.split(',')[:4]
        pts[(label, int(payload), int(n))].append(float(mbs))
print('| payload | n | raw 1 stream (runs) | A merge13: samples, median | B slices: samples, median | B / A | B / raw (target >= 50 %) |')
print('|---|---|---|---|---|---|---|')
for payload in (1048576, 16777216):
    raw = statistics.median(pts[('R', payload, 2)])
    for n in (2, 3):
        a, b = pts[('A', payload, n)], pts[('B', payload, n)]
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {payload >> 20} MiB | {n} | {raw:.0f} ({len(pts[('R', payload, 2)])}) | {' · '.join(f'{x:.0f}' for x in a)}: **{ma:.0f}** | {' · '.join(f'{x:.0f}' for x in b)}: **{mb:.0f}** | {mb / ma:.2f}x | {100 * mb / raw:.0f} % |")
