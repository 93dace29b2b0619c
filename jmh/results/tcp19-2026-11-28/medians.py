#!/usr/bin/env python3
"""Medians per variant and point of a LargeMessageBenchmark A/B file (run2b.txt, ...): MB/s per receiver (mean),
and the I/O threads' CPU per MB received (sending side, receiving side). Usage: medians.py FILE"""
import re, sys, statistics
cur = None
rows = {}  # (label, point) -> list of (mbps, send_us, recv_us)
last = {}
for line in open(sys.argv[1]):
    m = re.match(r'== (\S+) \d', line)
    if m and m.group(1) not in ('start', 'end'):
        cur = m.group(1); continue
    m = re.match(r'1,([a-z-]+),(\d+),(\d+),([\d.]+),', line)
    if m and cur:
        pt = (m.group(1), int(m.group(2)), int(m.group(3)))
        last[cur] = pt
        rows.setdefault((cur, pt), []).append([float(m.group(4)), None, None]); continue
    m = re.search(r'sending ([\d.]+) cores (\d+) us/MB, receiving ([\d.]+) cores (\d+) us/MB', line)
    if m and cur:
        r = rows[(cur, last[cur])][-1]; r[1] = int(m.group(2)); r[2] = int(m.group(4))
labels = []
for (l, _) in rows:
    if l not in labels: labels.append(l)
points = []
for (_, p) in rows:
    if p not in points: points.append(p)
med = lambda xs: statistics.median([x for x in xs if x is not None]) if any(x is not None for x in xs) else float('nan')
print('point | ' + ' | '.join(f'{l} MB/s (runs) | {l} send/recv us/MB' for l in labels))
for p in points:
    cells = []
    for l in labels:
        rs = rows.get((l, p), [])
        cells.append(f"{med([r[0] for r in rs]):.0f} ({' / '.join(f'{r[0]:.0f}' for r in rs)}) | {med([r[1] for r in rs]):.0f} / {med([r[2] for r in rs]):.0f}")
    print(f'{p[0]} n={p[1]} {p[2]} | ' + ' | '.join(cells))
