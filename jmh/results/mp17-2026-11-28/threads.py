#!/usr/bin/env python3
"""mp17: thread CPU per put of a --profile-window threads.csv, grouped by JVM role and thread kind."""
import csv, re, sys, collections
def kind(t):
    t = t.strip('"')
    for p, k in [("tandem-loop", "loop"), ("tandem-tcp", "tcp"), ("tandem-exec", "exec"), ("tandem-disk", "disk"),
                 ("tandem-clients", "client-io"), ("tandem-kv-clien", "client"), ("C2 Compiler", "jit"), ("C1 Compiler", "jit"), ("GC Thread", "gc")]:
        if t.startswith(p): return k
    return "other"
for f in sys.argv[1:]:
    agg = collections.defaultdict(float); tot = collections.defaultdict(float)
    for r in csv.DictReader(open(f)):
        j = re.sub(r"^r\d-", "", r["jvm"]) if r["jvm"] != "load" else "load"
        if j == "FOLLOWER": j = r["jvm"]
        agg[(j, kind(r["thread"]))] += float(r["us_per_put"]); tot[j] += float(r["us_per_put"])
    print(f.split("/")[-1], " total %.1f" % sum(tot.values()))
    for j in sorted(tot):
        print("  %-12s %5.2f: " % (j, tot[j]) + ", ".join("%s %.2f" % (k, v) for (jj, k), v in sorted(agg.items(), key=lambda x: -x[1]) if jj == j and v >= 0.05))
