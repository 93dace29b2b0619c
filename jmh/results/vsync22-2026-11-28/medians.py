#!/usr/bin/env python3
"""Rates and CPU us/msg per label and point from ab*.txt (vsync22): every run and the medians."""
import re, statistics, sys
from collections import defaultdict
for f in sys.argv[1:]:
    rate = defaultdict(list); cpu = defaultdict(list); label = None; pend = {}
    for line in open(f):
        m = re.match(r'== (\w+) ', line)
        if m: label = m.group(1); continue
        m = re.match(r'# (\S+)-(\d+)-(\d+): threads of this JVM used [\d.]+ cores; ([\d.]+) us', line)
        if m: pend[(m.group(2), m.group(3))] = float(m.group(4)); continue
        m = re.match(r'(tandem-ordered|jgroups-sequencer),(\d+),(\d+),(\d+),', line)
        if m:
            k = (label, m.group(2), m.group(3)); rate[k].append(int(m.group(4)))
            cpu[k].append(pend.get((m.group(2), m.group(3)), float('nan')))
    print('#', f)
    print('label n payload | runs (msg/s) | median | CPU us/msg runs | median')
    for k in sorted(rate, key=lambda k: (int(k[1]), int(k[2]), k[0])):
        print(k[0], k[1], k[2], '|', ' / '.join(f'{r:,}' for r in rate[k]), '|', f'{statistics.median(rate[k]):,.0f}', '|',
              ' / '.join(f'{c:.2f}' for c in cpu[k]), '|', f'{statistics.median(cpu[k]):.2f}')
