#!/usr/bin/env python3
# Medians per (label, system, n, payload) of the result lines of the given files; the label is the "== X" line before.
import sys, re, statistics, collections
runs = collections.defaultdict(list)
for f in sys.argv[1:]:
    label = None
    for line in open(f):
        m = re.match(r'== (\w+) ', line)
        if m: label = m.group(1); continue
        if re.match(r'^(tandem|jgroups)', line):
            sys_, n, p, rate = line.split(',')[:4]
            runs[(label, sys_, int(n), int(p))].append(int(rate))
for k in sorted(runs, key=lambda k: (k[2], k[3], k[1], k[0])):
    print(k[0], k[1], k[2], k[3], "runs", " / ".join(f"{r:,}" for r in runs[k]), "median", f"{int(statistics.median(runs[k])):,}")
