#!/usr/bin/env python3
"""Medians of sweep.out (label,system,n,payload,rate,...) and table.out (rN,system,n,payload,rate,...); ratios to JGroups."""
import collections, statistics, sys

def read(path, key):
    d = collections.defaultdict(list)
    for line in open(path):
        f = line.strip().split(',')
        if len(f) >= 7 and f[1] in ('tandem-ordered', 'jgroups-sequencer', 'tandem-raw'):
            d[key(f)].append(int(f[4]))
    return d

sw = read('sweep.out', lambda f: (f[0], int(f[2]), int(f[3])))
print('sweep: label n payload | trials | median | / J median')
for (label, n, p), v in sorted(sw.items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][0] != 'J', len(kv[0][0]), kv[0][0])):
    j = statistics.median(sw[('J', n, p)])
    m = statistics.median(v)
    print(f'{label:6} n={n} {p:5} | {" ".join(f"{x:,}" for x in v)} | {m:,.0f} | {m / j:.2f}x')
try:
    tb = read('table.out', lambda f: (f[1], int(f[2]), int(f[3])))
except FileNotFoundError:
    sys.exit()
print('\ntable: n payload | Tandem trials | J trials | T median | J median | T/J')
for n in (2, 3, 4, 5):
    for p in (64, 1024, 8192):
        t, j = tb.get(('tandem-ordered', n, p), []), tb.get(('jgroups-sequencer', n, p), [])
        if not t or not j: continue
        mt, mj = statistics.median(t), statistics.median(j)
        r = f'{mt / mj:.2f}x' if mj > 0 else 'inf (J 0)'
        print(f'n={n} {p:5} | {" ".join(f"{x:,}" for x in t)} | {" ".join(f"{x:,}" for x in j)} | {mt:,.0f} | {mj:,.0f} | {r}')
