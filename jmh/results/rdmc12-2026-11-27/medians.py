#!/usr/bin/env python3
"""rdmc12: medians of bench-run{1,2,3}.txt (A = main 7dbed94, B = this branch, raw = one stream, C-park = B with --idle park)."""
import collections, statistics
samples = collections.defaultdict(list)
for run in (1, 2, 3):
    for line in open(f"bench-run{run}.txt"):
        f = line.strip().split(",")
        if len(f) != 8 or not f[4].replace(".", "").isdigit(): continue
        label, system, n, payload, mean = f[0], f[1], int(f[2]), int(f[3]), float(f[4])
        build = "raw" if label == "raw" else label.rsplit("-", 1)[0]
        samples[(build, n if build != "raw" else 1, payload)].append(mean)
med = lambda xs: statistics.median(xs)
print("| payload | n | raw 1 stream: samples, median | A main: samples, median | B this branch: samples, median | B/A | A % of raw | **B % of raw** | B (park) |")
print("|---|---|---|---|---|---|---|---|---|")
for payload, ns in ((65536, (2, 3, 4, 5)), (16777216, (4, 5))):
    raw = samples[("raw", 1, payload)]
    for n in ns:
        a, b, c = samples[("A", n, payload)], samples[("B", n, payload)], samples[("C-park", n, payload)]
        fmt = lambda xs: " · ".join(f"{x:.0f}" for x in xs) + f": **{med(xs):.0f}**"
        print(f"| {payload // 1024} KiB | {n} | {fmt(raw)} | {fmt(a)} | {fmt(b)} | {med(b) / med(a):.2f} | {100 * med(a) / med(raw):.0f} % | **{100 * med(b) / med(raw):.0f} %** | {' · '.join(f'{x:.0f}' for x in c)} |")
