# Lead s25: for CPU-time samples of THREAD whose stack contains METHOD, the distinct call paths (up to DEPTH frames above it).
# Usage: callers.py file.jfr THREAD METHOD [DEPTH]
import json, re, subprocess, sys, collections
f, thread, method = sys.argv[1:4]; depth = int(sys.argv[4]) if len(sys.argv) > 4 else 4
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.CPUTimeSample', f], capture_output=True, text=True).stdout
paths = collections.Counter(); tot = 0; hit = 0
for e in json.loads(raw)['recording']['events']:
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread') or {}
    if thread not in (t.get('javaName') or '?'): continue
    ms = [re.split(r'[./]', x['method']['type']['name'])[-1] + '.' + x['method']['name'] for x in ((v.get('stackTrace') or {}).get('frames') or [])]
    tot += 1
    if method in ms:
        hit += 1; i = ms.index(method); paths[' <- '.join(ms[i:i + depth])] += 1
print(f'{thread}: {hit}/{tot} samples contain {method}')
for p, c in paths.most_common(12): print(f'  {100*c/tot:5.1f}% {p}')
