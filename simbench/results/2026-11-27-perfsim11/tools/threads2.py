#!/usr/bin/env python3
"""Real CPU (schedstat run time) per put and voluntary switches (turns) per 1000 puts by node and thread group, from
run-simvalidate --profile-window with perfsim11's window profile. Usage: threads2.py DIR"""
import csv, glob, sys
d = sys.argv[1]
def group(t):
    t = t.strip('"')
    for p, g in (("tandem-loop", "LOOP"), ("tandem-exec", "EXEC"), ("tandem-disk", "DISK"), ("tandem-tcp", "IOp"),
                 ("tandem-clients", "IOc"), ("tandem-kv-clien", "IO")):
        if t.startswith(p): return g
    return None
for f in sorted(glob.glob(f"{d}/profile-*/*-threads.csv")):
    tag = f.split("/profile-")[1].split("/")[0]
    agg = {}
    for row in csv.DictReader(open(f)):
        g = group(row["thread"])
        if g is None: continue
        node = "client" if row["jvm"] == "load" else row["jvm"]
        a = agg.setdefault(node, {}).setdefault(g, [0.0, 0.0])
        a[0] += float(row["run_us_per_put"]); a[1] += float(row["voluntary_switches_per_1000_puts"])
    print(tag)
    for node in sorted(agg, key=lambda n: (n == "client", n)):
        print("   %-12s " % node + "  ".join("%s %.2f us, %.0f turns/1000 (%.1f us/turn)" % (g, v[0], v[1], 1000 * v[0] / v[1] if v[1] else float('nan'))
                                           for g, v in sorted(agg[node].items())))
