# pend25: the stacks (top DEPTH frames, with line numbers and frame type) of one thread's CPU-time samples whose top
# frame matches TOP, counted. Usage: stacks.py file.jfr THREAD_SUBSTRING TOP [DEPTH]
import json, re, subprocess, sys, collections
f, thread, top = sys.argv[1], sys.argv[2], sys.argv[3]; depth = int(sys.argv[4]) if len(sys.argv) > 4 else 8
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.CPUTimeSample', f], capture_output=True, text=True).stdout
c = collections.Counter(); tot = 0
for e in json.loads(raw)['recording']['events']:
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread') or {}
    if thread not in (t.get('javaName') or '?'): continue
    fr = (v.get('stackTrace') or {}).get('frames') or []
    if not fr: continue
    tot += 1
    ms = [re.split(r'[./]', x['method']['type']['name'])[-1] + '.' + x['method']['name'] + ':' + str(x.get('lineNumber')) + ('' if x.get('type') == 'JIT compiled' else '[' + str(x.get('type')) + ']') for x in fr]
    if top in ms[0]: c[' <- '.join(ms[:depth])] += 1
print(f'{thread}: {tot} samples, {sum(c.values())} with top {top}')
for s, n in c.most_common(12): print(f'{n:4d} {s}')
