#!/usr/bin/env python3
"""The loopback bound per point: the delivered rate at which the payload bytes alone fill loopback for n-1 receivers,
next to JGroups' rate and what 2x JGroups needs. Reads bound.txt (transport raw streams, JGroups) and the bare
loopback lines of the files given (LoopbackBandwidth CSV: streams,write,total,min,seconds)."""
import re, sys
def lines(f): return open(f).read().splitlines()
raw = {}; jg = {}; tan = {}
for l in lines("bound.txt"):
    p = l.split(",")
    if l.startswith("1,raw"):
        n, pay, mean = int(p[2]), int(p[3]), float(p[4])
        raw[(n, pay)] = mean * (n - 1)          # per-stream mean x streams = the aggregate
    elif l.startswith("jgroups-sequencer,"):
        jg[(int(p[1]), int(p[2]))] = int(p[3])
bare = {}
for f in sys.argv[1:]:
    for l in lines(f):
        if re.match(r"^\d+,262144,", l):
            p = l.split(","); bare.setdefault(int(p[0]), []).append(float(p[2]))
bare_best = max(max(v) for v in bare.values()) if bare else None
print("bare loopback (MB/s, by streams):", {k: v for k, v in sorted(bare.items())})
print("| n | payload | transport BW, n-1 streams (MB/s) | bound rate (transport) | bare loopback best (MB/s) | bound rate (bare) | JGroups (this session) | 2x JGroups | bytes 2x JGroups needs (MB/s) | 2x J / transport bound |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n in (2, 3, 4, 5):
    for pay in (64, 1024, 8192):
        bw = raw.get((n, 1048576))
        per = (n - 1) * pay
        j = jg.get((n, pay))
        rt = bw * 1e6 / per if bw else None
        rb = bare_best * 1e6 / per if bare_best else None
        need = 2 * j * per / 1e6 if j else None
        print(f"| {n} | {pay} | {bw:.0f} | {rt:,.0f} | {bare_best:.0f} | {rb:,.0f} | {j:,} | {2*j:,} | {need:.0f} | {2*j/rt:.2f} |")
