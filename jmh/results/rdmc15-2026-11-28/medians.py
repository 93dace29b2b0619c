#!/usr/bin/env python3
"""Medians of the rdmc15 matrix samples (bench-matrix.txt, bench-matrix2.txt): MB/s per receiver, the group against
one raw stream and against the raw fan-out to n - 1 receivers measured in the same JVM, and the group's total (n - 1
deliveries per message) against one raw stream."""
import statistics, collections
s = collections.defaultdict(list)
for f in ["bench-matrix.txt", "bench-matrix2.txt"]:
    for line in open(f):
        if not line.startswith("1,"): continue
        _, system, n, payload, mean, *_ = line.strip().split(",")
        s[(system, int(n), int(payload))].append(float(mean))
print("| payload | raw 1 stream: samples, median | n | group: samples, median | % of 1 stream | raw fan-out: median | % of fan-out | group total (n-1) x median, % of 1 stream |")
print("|---|---|---|---|---|---|---|---|")
for p in sorted({k[2] for k in s}):
    raw = s[("raw", 2, p)]; r = statistics.median(raw)
    for n in (2, 3, 4, 5):
        g = s[("tandem", n, p)]; m = statistics.median(g)
        fo = s.get(("raw-fanout", n, p)); fm = statistics.median(fo) if fo else None
        fs = f"{fm:.0f}" if fm else "(= 1 stream)"
        fp = f"**{100*m/fm:.0f} %**" if fm else f"**{100*m/r:.0f} %**"
        print(f"| {p>>10} KiB | {' · '.join(f'{x:.0f}' for x in raw)}: **{r:.0f}** | {n} | {' · '.join(f'{x:.0f}' for x in g)}: **{m:.0f}** | **{100*m/r:.0f} %** | {fs} | {fp} | {(n-1)*m:.0f}, {100*(n-1)*m/r:.0f} % |")
