# alloc21: allocation per put and GC pauses of a trial's window JFRs (jfra recordings cut by --profile-window).
# Usage: alloc.py PUTS_PER_S file.jfr...   Prints per JFR: window seconds, MB allocated (jdk.ThreadAllocationStatistics,
# last minus first sample per thread), MB/s, bytes/put, GC count / total / max pause (jdk.GarbageCollection), and the
# top allocation classes and sites (jdk.ObjectAllocationSample weights).
import json, re, subprocess, sys, collections
JFR = '/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr'
def events(f, names, depth=0):
    raw = subprocess.run([JFR, 'print', '--json', '--stack-depth', str(depth), '--events', names, f], capture_output=True, text=True).stdout
    return json.loads(raw)['recording']['events']
def secs(t):  # "2026-11-28T12:16:25.037123Z"-like
    h, m, s = t.split('T')[1].rstrip('Z').split('+')[0].split(':'); return int(h) * 3600 + int(m) * 60 + float(s)
def dur(v):  # JFR json durations are ISO "PT0.0321S" strings or numbers of ns
    if isinstance(v, str): return float(v.replace('PT', '').rstrip('S') or 0) * 1000
    return v / 1e6
puts = float(sys.argv[1])
for f in sys.argv[2:]:
    first, last = {}, {}
    for e in events(f, 'jdk.ThreadAllocationStatistics'):
        v = e['values']; tid = v['thread']['javaThreadId'] if v.get('thread') else v.get('threadId'); t = secs(v['startTime'])
        if tid not in first or t < first[tid][0]: first[tid] = (t, v['allocated'])
        if tid not in last or t > last[tid][0]: last[tid] = (t, v['allocated'])
    total = sum(last[k][1] - first[k][1] for k in last)
    times = [x[0] for x in first.values()] + [x[0] for x in last.values()]
    window = max(times) - min(times) if times else 0
    gcs = [e['values'] for e in events(f, 'jdk.GarbageCollection')]
    pauses = [dur(g['sumOfPauses']) for g in gcs]
    rate = total / window if window else 0
    print(f'{f}\n  window {window:.1f} s, allocated {total/1e6:.0f} MB, {rate/1e6:.1f} MB/s, {rate/puts:.0f} B/put at {puts:.0f} puts/s;'
          f' GCs {len(gcs)} ({", ".join(g["name"] for g in gcs[:1])}), pauses total {sum(pauses):.0f} ms, max {max(pauses, default=0):.1f} ms,'
          f' each {" ".join(f"{p:.0f}" for p in pauses)}')
    byc = collections.Counter(); bys = collections.Counter(); tot = 0
    for e in events(f, 'jdk.ObjectAllocationSample', 6):
        v = e['values']; w = v['weight']; tot += w
        frames = (v.get('stackTrace') or {}).get('frames') or []
        site = ' < '.join(re.split(r'[./]', fr['method']['type']['name'])[-1] + '.' + fr['method']['name'] for fr in frames[:3])
        t = re.sub(r'\d+', '#', (v.get('eventThread') or {}).get('javaName', '?'))
        byc[(t, v['objectClass']['name'])] += w; bys[(t, site)] += w
    for k, w in byc.most_common(10): print(f'  {100*w/tot:5.1f}% {k[0]} {k[1]}')
    for k, w in bys.most_common(10): print(f'  {100*w/tot:5.1f}% {k[0]} {k[1]}')
