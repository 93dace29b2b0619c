#!/usr/bin/env python3
"""Summary of one window recording (PeerBenchmark --profile-window): CPU-time samples (jdk.CPUTimeSample, else
jdk.ExecutionSample) per thread, each thread's top self frames and top inclusive io.tandem frames, and sampled
allocation (jdk.ObjectAllocationSample weight) by thread and by class.
Usage: jfr-window.py REC.jfr [JFR_TOOL]"""
import subprocess, sys, re, json, collections
f = sys.argv[1]; jfr = sys.argv[2] if len(sys.argv) > 2 else 'jfr'
def events(name, depth=64):
    out = subprocess.run([jfr, 'print', '--json', '--stack-depth', str(depth), '--events', name, f], capture_output=True, text=True).stdout
    try: return json.loads(out)['recording']['events']
    except Exception: return []
def frames(ev):
    st = ev['values'].get('stackTrace')
    if not st: return []
    return [fr['method']['type']['name'].replace('/', '.') + '.' + fr['method']['name'] for fr in st['frames']]
def tname(ev):
    v = ev['values']; t = v.get('sampledThread') or v.get('eventThread')
    return re.sub(r'\d+', '#', (t.get('javaName') or t.get('osName') or '?')) if t else '?'
kind = 'jdk.CPUTimeSample'; samples = events(kind)
if not samples: kind = 'jdk.ExecutionSample'; samples = events(kind)
print(f'# {f}\n{kind}: {len(samples)} samples')
by = collections.defaultdict(list)
for e in samples: by[tname(e)].append(frames(e))
tot = len(samples) or 1
for t, fs in sorted(by.items(), key=lambda kv: -len(kv[1])):
    if len(fs) < tot * 0.01: continue
    print(f'\n## {t}: {len(fs)} samples, {100*len(fs)/tot:.1f}% of all')
    self_ = collections.Counter(x[0] for x in fs if x)
    for m, n in self_.most_common(14): print(f'   self {100*n/len(fs):5.1f}%  {m}')
    incl = collections.Counter()
    for x in fs:
        for m in set(x):
            if m.startswith('io.tandem') or 'CompletableFuture' in m or 'ConcurrentHashMap' in m or 'LockSupport' in m or 'Native.' in m or 'epoll' in m.lower() or 'FileChannel' in m or 'FileDispatcher' in m: incl[m] += 1
    for m, n in incl.most_common(16): print(f'   incl {100*n/len(fs):5.1f}%  {m}')
alloc = events('jdk.ObjectAllocationSample', 8)
if alloc:
    w = collections.Counter(); c = collections.Counter(); site = collections.Counter()
    for e in alloc:
        wt = e['values'].get('weight', 0); w[tname(e)] += wt
        oc = e['values'].get('objectClass') or {}; c[oc.get('name', '?')] += wt
        fr = [x for x in frames(e) if x.startswith('io.tandem')][:1]
        site[(fr[0] if fr else '?') + ' <- ' + (frames(e)[0] if frames(e) else '?')] += wt
    tw = sum(w.values()) or 1
    print(f'\n## sampled allocation (weight {tw/1e6:.1f} MB)')
    for t, n in w.most_common(8): print(f'   thread {100*n/tw:5.1f}%  {t}')
    for k, n in c.most_common(12): print(f'   class  {100*n/tw:5.1f}%  {k}')
    for k, n in site.most_common(12): print(f'   site   {100*n/tw:5.1f}%  {k}')
