# wire22: per thread-name prefix, the share of CPU-time samples by self frame and by inclusive frame.
# Usage: jfr-summary.py file.jfr THREAD_SUBSTRING [N]
import json, re, subprocess, sys, collections
f, thread = sys.argv[1], sys.argv[2]; n = int(sys.argv[3]) if len(sys.argv) > 3 else 25
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.CPUTimeSample', f], capture_output=True, text=True).stdout
ev = json.loads(raw)['recording']['events']
selfc, incl = collections.Counter(), collections.Counter(); tot = 0
for e in ev:
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread') or {}
    if thread not in (t.get('javaName') or '?'): continue
    fr = (v.get('stackTrace') or {}).get('frames') or []
    ms = [re.split(r'[./]', x['method']['type']['name'])[-1] + '.' + x['method']['name'] for x in fr]
    if not ms: continue
    tot += 1; selfc[ms[0]] += 1
    for m in set(ms): incl[m] += 1
print(f'{thread}: {tot} samples')
for m, c in selfc.most_common(n): print(f'  self {100*c/tot:5.1f}% {m}')
for m, c in incl.most_common(n + 15): print(f'  incl {100*c/tot:5.1f}% {m}')
