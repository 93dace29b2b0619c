#!/usr/bin/env python3
# Per (file, label, n, payload): every run's msg/s at member 0 and CPU us/msg, and their medians. usage: summary.py FILES
import sys, re, statistics, collections
rate, cpu = collections.defaultdict(list), collections.defaultdict(list)
for f in sys.argv[1:]:
    label = None
    for line in open(f):
        m = re.match(r'== (\w+) ', line)
        if m: label = m.group(1); continue
        m = re.match(r'# ([\w-]+?)-(\d+)-(\d+): threads of this JVM used ([\d.]+) cores; ([\d.]+) us', line)
        if m: cpu[(f, label, int(m.group(2)), int(m.group(3)))].append(float(m.group(5))); continue
        m = re.match(r'(tandem-ordered|jgroups-sequencer),(\d+),(\d+),(\d+),', line)
        if m: rate[(f, label, int(m.group(2)), int(m.group(3)))].append(int(m.group(4)))
for k in sorted(rate, key=lambda k: (k[0], k[2], k[3], k[1])):
    r, c = rate[k], cpu[k]
    print(f"{k[0]:14s} {k[1]:3s} n={k[2]} {k[3]:5d} B  msg/s {' / '.join(f'{x:,}' for x in r):32s} median {statistics.median(r):>9,.0f}"
          f"   us/msg {' / '.join(f'{x:.2f}' for x in c):22s} median {statistics.median(c):.2f}")
