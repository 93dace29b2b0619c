#!/usr/bin/env python3
"""mp21: per trial, all JVMs' thread CPU per put without JIT threads, and the followers' TCP threads (--profile-window threads.csv)."""
import csv, sys, re
for f in sys.argv[1:]:
    tot = nojit = 0.0; ftcp = []; per = {}
    for r in csv.DictReader(open(f)):
        v = float(r["us_per_put"]); t = r["thread"].strip('"'); tot += v
        if not (t.startswith("C2 Compiler") or t.startswith("C1 Compiler")): nojit += v
        if "FOLLOWER" in r["jvm"] and t.startswith("tandem-tcp"): per[r["jvm"]] = per.get(r["jvm"], 0) + v
    print("%-10s total %5.1f  without JIT %5.1f  follower tcp %s" % (f.split("/")[-1].split("-run1")[0], tot, nojit, " ".join("%.2f" % x for x in per.values())))
