#!/usr/bin/env python3
"""Text summary of one JFR recording: CPU samples per thread; per thread, top self frames and top inclusive
io.tandem/io.netty/jgroups frames; allocation per thread over the recording (ThreadAllocationStatistics deltas)
and top allocation sites (ObjectAllocationSample weight)."""
import subprocess, sys, re, collections, json
f = sys.argv[1]; puts = 0
timeline = sys.argv[2] if len(sys.argv) > 2 else None
jfr = sys.argv[3] if len(sys.argv) > 3 else 'jfr'
def events(name, depth=40):
    out = subprocess.run([jfr, 'print', '--json', '--stack-depth', str(depth), '--events', name, f], capture_output=True, text=True).stdout
    return json.loads(out)['recording']['events']
def frames(ev):
    st = ev['values'].get('stackTrace')
    if not st: return []
    return [fr['method']['type']['name'] + '.' + fr['method']['name'] for fr in st['frames']]
def tname(ev, key='sampledThread'):
    t = ev['values'].get(key) or ev['values'].get('eventThread')
    return re.sub(r'\d+', '#', t['javaName'] or t['osName']) if t else '?'
samples = events('jdk.ExecutionSample')
if timeline:
    # puts of the load seconds that ended inside the recording (from its first to its last event)
    import csv, datetime
    def ts(e): return datetime.datetime.fromisoformat(e['values']['startTime']).timestamp()
    allts = [ts(e) for e in samples]
    lo, hi = min(allts), max(allts)
    rows = list(csv.DictReader(open(timeline)))
    puts = sum(int(r['ops']) for r in rows if lo < int(r['epoch_ms']) / 1000 <= hi)
    print(f'(recording {hi - lo:.1f} s; {puts} puts of the load in it, {puts / (hi - lo):,.0f}/s)')
per_thread = collections.Counter(tname(e) for e in samples)
total = sum(per_thread.values())
print(f'# {f}\n\nCPU samples (jdk.ExecutionSample, Java code only): {total}')
for t, n in per_thread.most_common(12): print(f'  {t:40} {n:6} {100*n/total:5.1f}%')
interesting = re.compile(r'^(io\.tandem|io\.netty\.channel|org\.jgroups|java\.util\.concurrent|io\.micrometer|java\.io)')
for t, n in per_thread.most_common(6):
    if n < total * 0.03: break
    selfc = collections.Counter(); incl = collections.Counter()
    for e in samples:
        if tname(e) != t: continue
        fr = frames(e)
        if fr: selfc[fr[0]] += 1
        for m in set(x for x in fr if interesting.match(x)): incl[m] += 1
    print(f'\n## {t}: {n} samples\n  self (top frames):')
    for m, c in selfc.most_common(15): print(f'    {100*c/n:5.1f}% {m}')
    print('  inclusive (io.tandem, netty channel, jgroups, j.u.concurrent, micrometer, java.io):')
    for m, c in incl.most_common(25): print(f'    {100*c/n:5.1f}% {m}')
# allocation per thread: delta of ThreadAllocationStatistics over the recording
tas = events('jdk.ThreadAllocationStatistics', 1)
first, last = {}, {}
for e in tas:
    t = e['values']['thread']; k = (t['javaName'] or t['osName']) if t else '?'
    a = e['values']['allocated']
    first.setdefault(k, a); last[k] = a
alloc = {k: last[k] - first[k] for k in last}
tot = sum(alloc.values())
print(f'\nAllocation over the recording (ThreadAllocationStatistics, last - first): {tot/1e6:.1f} MB' + (f', {tot/puts:,.0f} bytes per put ({puts:.0f} puts)' if puts else ''))
for k, v in sorted(alloc.items(), key=lambda x: -x[1])[:8]:
    print(f'  {k:40} {v/1e6:8.1f} MB' + (f'  {v/puts:8,.0f} B/put' if puts else ''))
oas = events('jdk.ObjectAllocationSample', 12)
site = collections.Counter(); cls = collections.Counter(); w = 0
for e in oas:
    wt = e['values']['weight']; w += wt
    cls[e['values']['objectClass']['name']] += wt
    fr = [x for x in frames(e) if x.startswith(('io.tandem', 'org.jgroups'))]
    site[(tname(e, 'eventThread'), fr[0] if fr else (frames(e) or ['?'])[0])] += wt
print('\nAllocation by class (ObjectAllocationSample weight):')
for c, v in cls.most_common(12): print(f'  {100*v/w:5.1f}% {c}')
print('Allocation by thread and first io.tandem/org.jgroups frame:')
for (t, m), v in site.most_common(20): print(f'  {100*v/w:5.1f}% {t:28} {m}')
