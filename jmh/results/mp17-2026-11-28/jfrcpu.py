#!/usr/bin/env python3
"""mp17: CPU-time samples (jdk.CPUTimeSample) of one JFR file by thread: top self frames and top inclusive
io.tandem frames. Usage: jfrcpu.py FILE.jfr [THREAD_PREFIX...]"""
import re, json, subprocess, sys, collections
JFR = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr"
f = sys.argv[1]; prefixes = sys.argv[2:] or ["tandem-loop", "tandem-tcp", "tandem-exec", "tandem-disk", "tandem-clients"]
data = json.loads(subprocess.run([JFR, "print", "--json", "--stack-depth", "48", "--events", "jdk.CPUTimeSample", f],
                                 capture_output=True, text=True).stdout)
by = collections.defaultdict(list)
for e in data["recording"]["events"]:
    v = e["values"]; t = (v.get("eventThread") or {}).get("javaName") or "?"
    frames = [x for x in (v.get("stackTrace") or {}).get("frames", []) if "$$Lambda" not in x["method"]["type"]["name"] and "TypeSwitch" not in x["method"]["type"]["name"]]
    full = [(x["method"]["type"]["name"].replace("/", ".") + "." + x["method"]["name"]) for x in frames]
    fr = [re.sub(r"^.*\.([^.]+\.[^.]+)$", r"\1", x) for x in full]
    by[t].append((fr, full))
for p in prefixes:
    ss = [s for t, l in by.items() if t.startswith(p) for s in l]
    if not ss: continue
    n = len(ss)
    self_c = collections.Counter(s[0][0] if s[0] else "?" for s in ss)
    inc = collections.Counter()
    for fr, full in ss:
        seen = set()
        for a, b in zip(fr, full):
            if b.startswith("io.tandem") and a not in seen: seen.add(a); inc[a] += 1
    print(f"== {p}: {n} samples")
    print("  self: " + "; ".join(f"{k} {100*c/n:.0f}%" for k, c in self_c.most_common(10)))
    print("  incl: " + "; ".join(f"{k} {100*c/n:.0f}%" for k, c in inc.most_common(22)))
