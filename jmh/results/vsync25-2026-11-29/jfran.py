#!/usr/bin/env python3
# vsync25: summary of one JFR file: GC pauses, per-thread sample counts, top self frames (Java and CPU-time samples),
# native samples per thread and frame, thread parks per thread (count, total ms, top frames). usage: jfran.py FILE.jfr
import re, subprocess, sys, collections, json
f = sys.argv[1]
def events(name, depth=6):
    txt = subprocess.run(["jfr", "print", "--json", "--events", name, "--stack-depth", str(depth), f], capture_output=True, text=True).stdout
    return json.loads(txt)["recording"]["events"]
def frames(ev):
    st = ev["values"].get("stackTrace")
    if not st: return []
    return [fr["method"]["type"]["name"].rsplit('.', 1)[-1] + "." + fr["method"]["name"] for fr in st["frames"]]
def thread(ev, key="sampledThread"):
    t = ev["values"].get(key) or ev["values"].get("eventThread")
    name = (t or {}).get("javaName") or (t or {}).get("osName") or "?"
    return re.sub(r'\d+', '#', name)
def dur(ev):
    d = ev["values"].get("duration", "PT0S")
    m = re.match(r'PT(?:([\d.]+)M)?([\d.]+)?S?', d)
    mins = float(m.group(1) or 0); secs = float(m.group(2) or 0)
    return (mins * 60 + secs) * 1000
gcs = events("jdk.GarbageCollection")
print("GC: %d collections, sum of pauses %.1f ms, longest %.1f ms" % (len(gcs), sum(float(e["values"]["sumOfPauses"].strip("PTS").replace("0.", "0.") or 0) * 1000 if 'S' in e["values"]["sumOfPauses"] else 0 for e in gcs), max([dur(e) for e in gcs] or [0])))
for name in ["jdk.ExecutionSample", "jdk.CPUTimeSample", "jdk.NativeMethodSample"]:
    evs = events(name, 4)
    per = collections.Counter(thread(e) for e in evs)
    print(f"\n== {name}: {len(evs)} samples; per thread: " + ", ".join(f"{k} {v}" for k, v in per.most_common()))
    for th, _ in per.most_common(5):
        top = collections.Counter(" < ".join(frames(e)[:3]) for e in evs if thread(e) == th)
        print(f"  -- {th}")
        for k, c in top.most_common(8): print(f"    {c:5d} {100*c/len(evs):5.1f}% {k}")
parks = events("jdk.ThreadPark", 5)
per = collections.defaultdict(lambda: [0, 0.0])
for e in parks:
    p = per[thread(e, "eventThread")]; p[0] += 1; p[1] += dur(e)
print("\n== jdk.ThreadPark (>= 10 ms by default settings' threshold):")
for th, (c, ms) in sorted(per.items(), key=lambda x: -x[1][1]):
    top = collections.Counter(" < ".join(frames(e)[1:4]) for e in parks if thread(e, "eventThread") == th).most_common(2)
    print(f"  {th}: {c} parks, {ms:.0f} ms; {top}")
