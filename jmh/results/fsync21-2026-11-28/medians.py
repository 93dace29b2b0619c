#!/usr/bin/env python3
"""fsync21: medians per group from a trials.sh load.txt (groups by label prefix before '-': a64, b64, a16, b16, j64, ...)."""
import re, sys, statistics, collections
g = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) end .*::\s+([\d,]+) puts/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms, p99.9 ([\d.]+) ms, CPU ([\d.]+) us/op', line)
    if not m: continue
    label = m.group(1).split('-')[0]
    g[label].append((m.group(1), int(m.group(2).replace(',', '')), float(m.group(3)), float(m.group(4)), float(m.group(5)), float(m.group(6))))
for k in sorted(g):
    v = g[k]
    med = lambda i: statistics.median(x[i] for x in v)
    print(f"{k}: trials " + ", ".join(f"{x[0]} {x[1]:,} ({x[5]})" for x in v)
          + f" | median {med(1):,.0f} puts/s, p50 {med(2):.2f} p99 {med(3):.2f} p99.9 {med(4):.2f} ms, CPU {med(5):.1f} us/put")
