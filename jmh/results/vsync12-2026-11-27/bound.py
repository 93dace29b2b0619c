#!/usr/bin/env python3
"""The loopback bound per point (docs/vsync-benchmark.md, Session vsync12): the delivered rate at which the payload
bytes alone fill the best bare loopback figure L for n-1 receivers, next to 2x JGroups and what it leaves of the 2
cores. Usage: python3 bound.py ab.txt final.txt  (L = the best LoopbackBandwidth total in those files; the
transport's raw streams and this session's JGroups run from bound.txt; the quiet JGroups rates of vsync10/vsync11
as listed below)."""
import re, sys
raw = {}; jg_now = {}
for l in open("bound.txt"):
    p = l.strip().split(",")
    if l.startswith("1,raw"): raw[(int(p[2]), int(p[3]))] = float(p[4]) * (int(p[2]) - 1)  # per-stream mean x streams
    elif l.startswith("jgroups-sequencer,"): jg_now[(int(p[1]), int(p[2]))] = int(p[3])
L = max(float(l.split(",")[2]) for f in sys.argv[1:] for l in open(f) if re.match(r"^\d+,262144,", l))
# vsync10 medians (final rounds); at 2-3 members x 1 KiB/8 KiB the higher of vsync10's median and vsync11's run.
jg = {(2, 64): 27239, (2, 1024): 364854, (2, 8192): 97431, (3, 64): 19531, (3, 1024): 324603, (3, 8192): 71776,
      (4, 64): 19531, (4, 1024): 19298, (4, 8192): 48868, (5, 64): 19531, (5, 1024): 8788, (5, 8192): 30512}
print(f"L = {L:.0f} MB/s (both cores); kernel cost {2 / (L * 1e6) * 1e9:.3f} ns of a core per byte")
print("| n | payload | JGroups (this session) | 2x J | bytes MB/s | R_L | 2xJ/R_L | kernel cores | CPU left us/msg | transport n-1 streams MB/s | 2xJ/R_transport |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (n, pay), j in sorted(jg.items()):
    per = (n - 1) * pay; need = 2 * j * per / 1e6; rl = L * 1e6 / per; cores = 2 * need / L
    t = raw[(n, 1048576)]; rt = t * 1e6 / per
    print(f"| {n} | {pay} | {j:,} ({jg_now.get((n, pay), 0):,}) | {2*j:,} | {need:,.0f} | {rl:,.0f} | {2*j/rl:.3f} | {cores:.2f} | {(2-cores)/(2*j)*1e6:.1f} | {t:.0f} | {2*j/rt:.2f} |")
