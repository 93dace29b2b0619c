#!/usr/bin/env python3
"""Real CPU per put by node and thread group, from run-simvalidate --profile-window (profile-<clients>-<system>/*-threads.csv)."""
import csv, glob, os, sys
d = sys.argv[1]
def group(t):
    t = t.strip('"')
    for p, g in (("tandem-loop", "LOOP"), ("tandem-exec", "EXEC"), ("tandem-disk", "DISK"), ("tandem-tcp", "IO-peers"),
                 ("tandem-clients", "IO-clients"), ("tandem-kv-clien", "IO")):
        if t.startswith(p): return g
    if t.startswith("C1") or t.startswith("C2"): return "JIT"
    if t.startswith("GC"): return "GC"
    return "other"
for c in ("1", "16", "64"):
    for s in ("tandem-raft", "tandem-multipaxos", "tandem-unreplicated"):
        fs = glob.glob(f"{d}/profile-{c}-{s}/*-threads.csv")
        if not fs: continue
        agg = {}
        for row in csv.DictReader(open(fs[0])):
            j = row["jvm"]; node = "client" if j == "load" else j
            g = group(row["thread"])
            agg.setdefault(node, {}).setdefault(g, 0.0)
            agg[node][g] += float(row["us_per_put"])
        tot = sum(sum(v.values()) for v in agg.values())
        line = f"{c:>3} {s:<20} total {tot:7.1f}:"
        for node in sorted(agg, key=lambda n: (n == "client", n)):
            parts = " ".join(f"{g} {v:.2f}" for g, v in sorted(agg[node].items()) if v > 0)
            line += f" | {node}: {parts}"
        print(line)
