#!/usr/bin/env python3
# vsync26: medians of ab.txt per label and point. Part F (fixed 2 s warm-up): A (main), B (branch), J (JGroups), ratios
# B/J, A/J, B/A. Part W (adaptive warm-up): BW, JW, ratio BW/JW, with the warm-up taken and the JIT's share of the JVM's
# CPU in the measured seconds (medians). usage: medians.py ab.txt
import sys, statistics, collections
runs, extra = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.strip().split(',')
    if len(p) >= 7 and p[0] in ('A', 'B', 'J', 'BW', 'JW'):
        runs[(p[0], int(p[2]), int(p[3]))].append(int(p[4]))
        if len(p) >= 9: extra[(p[0], int(p[2]), int(p[3]))].append((float(p[7]), float(p[8])))
med = lambda l, n, pay: statistics.median(runs[(l, n, pay)]) if runs[(l, n, pay)] else float('nan')
trials = lambda l, n, pay: " / ".join(f"{v:,}" for v in runs[(l, n, pay)]) or "-"
jit = lambda l, n, pay: "/".join(f"{j:.0f}" for _, j in extra[(l, n, pay)]) or "-"
size = lambda pay: '1 KiB' if pay == 1024 else '8 KiB'
print("Fixed 2 s warm-up (JIT % of the JVM's CPU in the measured seconds per trial in brackets)")
print("| n | payload | A (main) trials | B (branch) trials | J (JGroups) trials | A | B | J | **B / J** | A / J | B / A |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for pay in (1024, 8192):
    for n in (2, 3, 4, 5):
        if not runs[('J', n, pay)]: continue
        m = {l: med(l, n, pay) for l in 'ABJ'}
        print(f"| {n} | {size(pay)} | {trials('A', n, pay)} | {trials('B', n, pay)} [{jit('B', n, pay)}] | {trials('J', n, pay)} [{jit('J', n, pay)}] | "
              f"{m['A']:,.0f} | {m['B']:,.0f} | {m['J']:,.0f} | **{m['B']/m['J']:.2f}x** | {m['A']/m['J']:.2f}x | {m['B']/m['A']:.2f} |")
print()
print("Adaptive warm-up (--warmup 2 --max-warmup 12; warm-up s / JIT % per trial in brackets)")
print("| n | payload | BW trials | JW trials | BW | JW | **BW / JW** | B / J (fixed, same call) |")
print("|---|---|---|---|---|---|---|---|")
for pay in (1024, 8192):
    for n in (2, 3, 4, 5):
        if not runs[('JW', n, pay)]: continue
        w = lambda l: "/".join(f"{s:.0f}s,{j:.0f}%" for s, j in extra[(l, n, pay)])
        bw, jw = med('BW', n, pay), med('JW', n, pay)
        print(f"| {n} | {size(pay)} | {trials('BW', n, pay)} [{w('BW')}] | {trials('JW', n, pay)} [{w('JW')}] | {bw:,.0f} | {jw:,.0f} | **{bw/jw:.2f}x** | "
              f"{med('B', n, pay)/med('J', n, pay):.2f}x |")
