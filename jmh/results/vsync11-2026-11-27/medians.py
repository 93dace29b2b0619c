#!/usr/bin/env python3
# Medians of A (merge13) and B (v1) over ab-v1.txt and ab-v1-round2.txt (rate, CPU us/msg), JGroups from ab-v1.txt.
import re, statistics, collections
rate = collections.defaultdict(list); cpu = collections.defaultdict(list)
for f in ["ab-v1.txt", "ab-v1-round2.txt"]:
    label = None; pend = None
    for line in open(f):
        m = re.match(r"== (\w)", line)
        if m: label = m.group(1); continue
        m = re.search(r"([\d.]+) us of CPU", line)
        if m: pend = float(m.group(1)); continue
        p = line.strip().split(",")
        if len(p) == 6 and p[0] in ("tandem-ordered", "jgroups-sequencer"):
            k = (label, int(p[1]), int(p[2])); rate[k].append(int(p[3])); cpu[k].append(pend)
for n in (2, 3):
    for pl in (1024, 8192):
        a, b, j = ("A", n, pl), ("B", n, pl), ("J", n, pl)
        ma, mb = statistics.median(rate[a]), statistics.median(rate[b])
        print(f"n={n} {pl:5d} A {rate[a]} med {ma:.0f} cpu {statistics.median(cpu[a]):.2f} | B {rate[b]} med {mb:.0f} cpu {statistics.median(cpu[b]):.2f} | B/A {mb/ma:.2f} | J {rate[j]} B/J {mb/rate[j][0]:.2f} A/J {ma/rate[j][0]:.2f}")
