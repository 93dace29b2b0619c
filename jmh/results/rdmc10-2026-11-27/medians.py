#!/usr/bin/env python3
"""Medians of bench-run{1,2,3}.txt (MB/s per receiver, 10^6 bytes). Each run has, per build (A main, B this
branch) and payload, one JVM: raw 1 stream, raw n-1 streams at once (n = 3..5), Tandem n = 2..5.
Ratios are medians of the per-run ratios (each against the same run's raw number of the same build)."""
import glob, statistics, collections, os
os.chdir(os.path.dirname(os.path.abspath(__file__)))
pts = collections.defaultdict(dict)  # (label, system, n, payload) -> {run: mbs}
for f in sorted(glob.glob('bench-run*.txt')):
    run = f
    for line in open(f):
        if ':' not in line or line.startswith('#') or line.startswith('['): continue
        label, rest = line.strip().split(':', 1)
        system, n, payload, mbs = rest.split(',')[:4]
        pts[(label, system, int(n), int(payload))][run] = float(mbs)
med = lambda xs: statistics.median(xs) if xs else float('nan')
def raw1(b, p): return pts[(b, 'raw', 2, p)]
def rawn(b, n, p): return raw1(b, p) if n == 2 else pts[(b, 'raw-streams', n, p)]
def ratio(num, den):
    return med([num[r] / den[r] for r in num if r in den])
print('| payload | n | raw 1 stream A / B | raw n-1 streams, per stream A / B (sum B) | Tandem A: samples, median | Tandem B: samples, median | B / A | A / raw 1 (A) | **B / raw 1 (B)** (target >= 50 %) | B / raw 1 (A) | B / per-stream rate of n-1 streams (B) |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
for p in (65536, 1048576, 16777216):
    for n in (2, 3, 4, 5):
        a, b = pts[('A', 'tandem', n, p)], pts[('B', 'tandem', n, p)]
        if not a or not b: continue
        ra, rb = raw1('A', p), raw1('B', p)
        sa, sb = rawn('A', n, p), rawn('B', n, p)
        size = f"{p >> 10} KiB" if p < 1 << 20 else f"{p >> 20} MiB"
        print(f"| {size} | {n} | {med(list(ra.values())):.0f} / {med(list(rb.values())):.0f} | {med(list(sa.values())):.0f} / {med(list(sb.values())):.0f} ({(n - 1) * med(list(sb.values())):.0f}) "
              f"| {' · '.join(f'{x:.0f}' for x in a.values())}: **{med(list(a.values())):.0f}** | {' · '.join(f'{x:.0f}' for x in b.values())}: **{med(list(b.values())):.0f}** "
              f"| {ratio(b, a):.2f}x | {100 * ratio(a, ra):.0f} % | **{100 * ratio(b, rb):.0f} %** | {100 * ratio(b, ra):.0f} % | {100 * ratio(b, sb):.0f} % |")
