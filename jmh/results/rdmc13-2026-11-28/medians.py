#!/usr/bin/env python3
"""rdmc13 (usage: medians.py [GLOB] [B|C]): medians of bench-run*.txt (bench-ab.sh output) as a markdown table. MB/s per receiver (10^6 bytes)."""
import glob, re, statistics, sys
from collections import defaultdict
d = defaultdict(list)      # (build, payload, n) -> MB/s samples
raw = defaultdict(list)    # payload -> raw one-stream samples
cnt = defaultdict(list)    # (build, payload, n) -> (frames, flushes) per message
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else 'bench-run*.txt')):
    for line in open(f):
        p = line.strip().split(',')
        if len(p) == 8 and p[1] == 'raw':
            raw[int(p[3])].append(float(p[4]))
        elif len(p) == 8 and p[1] == 'tandem':
            d[(p[0][0], int(p[3]), int(p[2]))].append(float(p[4]))
        m = re.match(r'# (\w)-\w+ tandem n=(\d) payload=(\d+): frames sent ([\d.]+), flushes ([\d.]+)', line)
        if m:
            cnt[(m[1], int(m[3]), int(m[2]))].append((float(m[4]), float(m[5])))
X = sys.argv[2] if len(sys.argv) > 2 else 'B'  # the build compared with A
med = statistics.median
fmt = lambda xs: ' · '.join('%.0f' % x for x in xs)
print('| payload | n | raw 1 stream: samples, median | A: samples, median | B: samples, median | B/A | A % of raw | **B % of raw** | frames / flushes per message A | B |')
print('|---|---|---|---|---|---|---|---|---|---|')
for payload in sorted({k[1] for k in d}):
    r = raw[payload]
    for n in sorted({k[2] for k in d if k[1] == payload}):
        a, b = d[('A', payload, n)], d[(X, payload, n)]
        ca, cb = cnt[('A', payload, n)], cnt[(X, payload, n)]
        cf = lambda c: '%.1f / %.2f' % (med([x[0] for x in c]), med([x[1] for x in c])) if c else '-'
        label = '%d KiB' % (payload >> 10) if payload < 1 << 20 else '%d MiB' % (payload >> 20)
        print('| %s | %d | %s: **%.0f** | %s: **%.0f** | %s: **%.0f** | %.2f | %.0f %% | **%.0f %%** | %s | %s |' % (
            label, n, fmt(r), med(r), fmt(a), med(a), fmt(b), med(b), med(b) / med(a), 100 * med(a) / med(r), 100 * med(b) / med(r), cf(ca), cf(cb)))
