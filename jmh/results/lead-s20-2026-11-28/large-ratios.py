#!/usr/bin/env python3
"""Per build and payload: median MB/s per receiver of raw (one stream), raw-fanout (n = 3-5) and tandem (n = 2-5) over the
samples of large-ab.txt / large-matrix.txt, and the group's share of the same build's fan-out (n = 2: of one stream).
Usage: large-ratios.py FILE"""
import re, sys, statistics
from collections import defaultdict
vals = defaultdict(list); build = 'B'
for line in open(sys.argv[1], errors='replace'):
    m = re.match(r'# sample \d+(?: build (\w))? payload (\d+)', line)
    if m: build = m.group(1) or 'B'; continue
    m = re.match(r'^1,(raw|raw-fanout|tandem),(\d),(\d+),([\d.]+)', line)
    if m: vals[(build, int(m.group(3)), m.group(1), int(m.group(2)))].append(float(m.group(4)))
med = {k: statistics.median(v) for k, v in vals.items()}
for (b, p) in sorted({(k[0], k[1]) for k in vals}):
    out = []
    for n in range(2, 6):
        t = med.get((b, p, 'tandem', n)); ref = med.get((b, p, 'raw', 2) if n == 2 else (b, p, 'raw-fanout', n))
        if t and ref: out.append(f"n={n} {t:.0f}/{ref:.0f} = {100*t/ref:.0f}% ({len(vals[(b, p, 'tandem', n)])} samples)")
    print(f"build {b} payload {p}: " + '; '.join(out))
