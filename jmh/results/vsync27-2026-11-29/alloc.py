#!/usr/bin/env python3
# vsync27: allocation by weight (jdk.ObjectAllocationSample) per allocating frame and class, and per thread; GC pauses.
# usage: alloc.py FILE.jfr
import subprocess, sys, collections, json, re
f = sys.argv[1]
def events(name, depth):
    txt = subprocess.run(["jfr", "print", "--json", "--events", name, "--stack-depth", str(depth), f], capture_output=True, text=True).stdout
    return json.loads(txt)["recording"]["events"]
def frames(ev):
    st = ev["values"].get("stackTrace")
    if not st: return []
    return [fr["method"]["type"]["name"].rsplit('.', 1)[-1] + "." + fr["method"]["name"] for fr in st["frames"]]
def thread(ev):
    t = ev["values"].get("eventThread") or {}
    return re.sub(r'\d+', '#', t.get("javaName") or t.get("osName") or "?")
gcs = events("jdk.GarbageCollection", 1)
def secs(s):
    m = re.match(r'PT(?:([\d.]+)M)?(?:([\d.]+)S)?', s or "PT0S")
    return float(m.group(1) or 0) * 60 + float(m.group(2) or 0)
pauses = [secs(e["values"].get("sumOfPauses")) * 1000 for e in gcs]
print("GC: %d collections, sum of pauses %.1f ms, longest %.1f ms" % (len(gcs), sum(pauses), max(pauses or [0])))
evs = events("jdk.ObjectAllocationSample", 8)
total = sum(e["values"]["weight"] for e in evs)
print(f"allocation samples: {len(evs)}, weight {total / 2**20:.0f} MiB")
by = collections.Counter(); byth = collections.Counter()
for e in evs:
    fr = [x for x in frames(e) if not x.split('.')[0] in ("Arrays", "Object", "StringLatin1", "StringUTF16")]
    cls = e["values"]["objectClass"]["name"].rsplit('.', 1)[-1]
    by[(cls, " < ".join(fr[:3]))] += e["values"]["weight"]
    byth[thread(e)] += e["values"]["weight"]
print("by thread: " + ", ".join(f"{k} {100*v/total:.1f}%" for k, v in byth.most_common(8)))
for (cls, st), w in by.most_common(20):
    print(f"  {100*w/total:5.1f}%  {cls:28s} {st}")
