#!/usr/bin/env python3
# vsync27: medians of ab.txt per label and point, every trial in round order with [warm-up s / JIT %], ratios B/J, A/J, B/A.
# usage: medians.py ab.txt
import sys, statistics, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.strip().split(',')
    if len(p) == 9 and p[0] in 'ABJ': runs[(p[0], int(p[2]), int(p[3]))].append((int(p[4]), float(p[7]), float(p[8])))
print("| n | payload | A (main) trials | B (branch) trials | J (JGroups) trials | A | B | J | **B / J** | A / J | B / A |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for pay in (1024, 8192):
    for n in (2, 3):
        m = {l: statistics.median(r[0] for r in runs[(l, n, pay)]) for l in 'ABJ'}
        t = {l: " / ".join(f"{r[0]:,} [{r[1]:.0f}/{r[2]:.0f}]" for r in runs[(l, n, pay)]) for l in 'ABJ'}
        print(f"| {n} | {'1 KiB' if pay == 1024 else '8 KiB'} | {t['A']} | {t['B']} | {t['J']} | {m['A']:,.0f} | {m['B']:,.0f} | {m['J']:,.0f} | "
              f"**{m['B']/m['J']:.2f}x** | {m['A']/m['J']:.2f}x | {m['B']/m['A']:.2f} |")
