#!/usr/bin/env python3
"""raft19: per thread group (thread name with digits replaced by #), the top self and inclusive methods of the
jdk.CPUTimeSample events of one JFR file. Usage: jfr-threads.py FILE.jfr [TOP]"""
import json, re, subprocess, sys, collections
f = sys.argv[1]; top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '64',
                      '--events', 'jdk.CPUTimeSample', f], capture_output=True, text=True).stdout
events = json.loads(raw)['recording']['events']
groups = collections.defaultdict(lambda: [0, collections.Counter(), collections.Counter()])
for e in events:
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread') or {}
    name = re.sub(r'\d+', '#', (t.get('javaName') or t.get('osName') or '?'))
    frames = (v.get('stackTrace') or {}).get('frames') or []
    meths = [re.split(r'[./]', fr['method']['type']['name'])[-1] + '.' + fr['method']['name'] for fr in frames]
    g = groups[name]; g[0] += 1
    if meths: g[1][meths[0]] += 1
    for m in set(meths): g[2][m] += 1
total = sum(g[0] for g in groups.values())
print(f"# {f}\njdk.CPUTimeSample: {total} samples")
for name, (n, self_, incl) in sorted(groups.items(), key=lambda kv: -kv[1][0]):
    if n < total * 0.01: continue
    print(f"\n## {name}: {n} samples, {100*n/total:.1f}% of all")
    for m, c in self_.most_common(top): print(f"   self {100*c/n:5.1f}%  {m}")
    for m, c in incl.most_common(top + 8): print(f"   incl {100*c/n:5.1f}%  {m}")
