#!/usr/bin/env python3
"""mp20: allocation samples (jdk.ObjectAllocationSample, weighted by bytes) of one JFR file, by thread prefix:
top allocated classes and the top io.tandem frames that allocated them. Usage: alloc.py FILE.jfr [THREAD_PREFIX...]"""
import json, subprocess, sys, collections
JFR = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr"
f = sys.argv[1]; prefixes = sys.argv[2:] or ["tandem-loop", "tandem-tcp", "tandem-exec", "tandem-clients"]
data = json.loads(subprocess.run([JFR, "print", "--json", "--stack-depth", "24", "--events", "jdk.ObjectAllocationSample", f],
                                 capture_output=True, text=True).stdout)
by = collections.defaultdict(lambda: [collections.Counter(), collections.Counter(), 0])
for e in data["recording"]["events"]:
    v = e["values"]; t = (v.get("eventThread") or {}).get("javaName") or "?"
    p = next((p for p in prefixes if t.startswith(p)), None)
    if p is None: continue
    w = v.get("weight", 0); cls = (v.get("objectClass") or {}).get("name", "?")
    frames = (v.get("stackTrace") or {}).get("frames", [])
    site = next((x["method"]["type"]["name"].split("/")[-1] + "." + x["method"]["name"] for x in frames
                 if x["method"]["type"]["name"].startswith("io/tandem")), "?")
    b = by[p]; b[0][cls] += w; b[1][cls + " @ " + site] += w; b[2] += w
for p in prefixes:
    if p not in by: continue
    cls, site, tot = by[p]
    print(f"== {p}: {tot/1e6:.0f} MB sampled weight")
    print("  class: " + "; ".join(f"{k} {100*c/tot:.0f}%" for k, c in cls.most_common(8)))
    print("  site:  " + "; ".join(f"{k} {100*c/tot:.0f}%" for k, c in site.most_common(12)))
