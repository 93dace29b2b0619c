#!/usr/bin/env python3
# Medians of CPU per message (us, all threads of the JVM) and cores used per (label, point) from the "# point: ..." lines.
import sys, re, statistics, collections
cpu, cores = collections.defaultdict(list), collections.defaultdict(list)
for f in sys.argv[1:]:
    label = None
    for line in open(f):
        m = re.match(r'== (\w+) ', line)
        if m: label = m.group(1); continue
        m = re.match(r'# ([\w-]+)-(\d+)-(\d+): threads of this JVM used ([\d.]+) cores; ([\d.]+) us', line)
        if m:
            k = (label, m.group(1), int(m.group(2)), int(m.group(3)))
            cores[k].append(float(m.group(4))); cpu[k].append(float(m.group(5)))
for k in sorted(cpu, key=lambda k: (k[2], k[3], k[1], k[0])):
    print(*k, "us/msg", " / ".join(f"{x:.2f}" for x in cpu[k]), "median", f"{statistics.median(cpu[k]):.2f}",
          "cores median", f"{statistics.median(cores[k]):.2f}")
