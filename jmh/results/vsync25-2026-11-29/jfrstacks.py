#!/usr/bin/env python3
# vsync25: the deeper stacks (frames 0-N) of samples whose top frames match a pattern. usage: jfrstacks.py FILE EVENT PATTERN [DEPTH]
import json, subprocess, sys, collections
f, ev, pat = sys.argv[1:4]; depth = int(sys.argv[4]) if len(sys.argv) > 4 else 10
evs = json.loads(subprocess.run(["jfr", "print", "--json", "--events", ev, "--stack-depth", str(depth), f], capture_output=True, text=True).stdout)["recording"]["events"]
c = collections.Counter(); n = 0
for e in evs:
    st = e["values"].get("stackTrace")
    if not st: continue
    fr = [x["method"]["type"]["name"].rsplit('/', 1)[-1] + "." + x["method"]["name"] + ":" + str(x.get("lineNumber")) for x in st["frames"]]
    if pat in " ".join(fr[:3]):
        n += 1; c["\n      ".join(fr)] += 1
print(f"{n} of {len(evs)} samples match {pat}")
for k, v in c.most_common(6): print(f"  {v}:\n      {k}")
