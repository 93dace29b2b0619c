#!/usr/bin/env python3
"""hotpath10: allocation per put by thread and by site over the last WINDOW seconds of a recording (the window dumps
of PeerBenchmark --profile-window hold the whole recording, so the measured window is cut here by time: it ends at
the last event). Sums jdk.ObjectAllocationSample weights (JFR's estimate of the bytes allocated) and divides by
RATE*WINDOW puts. Also CPU-time samples of the same window per thread, top self frames.
Usage: alloc.py REC.jfr RATE WINDOW"""
import subprocess, sys, json, collections, re
from datetime import datetime
rec, rate, window = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def events(name, depth=16):
    out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', str(depth), '--events', name, rec], capture_output=True, text=True).stdout
    return json.loads(out)['recording']['events']
def ts(e): return datetime.fromisoformat(e['values']['startTime'][:26]).timestamp()
def tname(e):
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread') or {}
    return re.sub(r'\d+', '#', t.get('javaName') or t.get('osName') or '?')
def frames(e):
    st = e['values'].get('stackTrace')
    return [f['method']['type']['name'].replace('/', '.') + '.' + f['method']['name'] for f in (st['frames'] if st else [])]
alloc = events('jdk.ObjectAllocationSample', 12)
end = max(ts(e) for e in alloc); start = end - window
alloc = [e for e in alloc if ts(e) >= start]
puts = rate * window
by_t = collections.Counter(); by_site = collections.Counter(); by_cls = collections.Counter()
for e in alloc:
    w = e['values']['weight']; by_t[tname(e)] += w
    by_cls[(e['values'].get('objectClass') or {}).get('name', '?')] += w
    fr = frames(e); tf = [x for x in fr if x.startswith('io.tandem')][:2]
    by_site[' <- '.join(tf) if tf else (fr[0] if fr else '?')] += w
tot = sum(by_t.values())
print(f'# {rec}: sampled allocation in the last {window:.0f} s, per put ({puts:.0f} puts)')
print(f'  {tot/puts:7.0f} B/put  total')
for n, b in by_t.most_common(6): print(f'  {b/puts:7.0f} B/put  thread {n}')
for n, b in by_cls.most_common(10): print(f'  {b/puts:7.0f} B/put  class {n}')
for n, b in by_site.most_common(16): print(f'  {b/puts:7.0f} B/put  site {n}')
cpu = [e for e in events('jdk.CPUTimeSample', 24) if ts(e) >= start]
by = collections.defaultdict(list)
for e in cpu: by[tname(e)].append(frames(e))
print(f'\n# CPU-time samples in the window: {len(cpu)}')
for t, fs in sorted(by.items(), key=lambda kv: -len(kv[1])):
    if len(fs) < 10: continue
    print(f'## {t}: {len(fs)}')
    for m, n in collections.Counter(x[0] for x in fs if x).most_common(10): print(f'   self {100*n/len(fs):5.1f}%  {m}')
