import json, re, subprocess, sys, collections
f = sys.argv[1]; thread = sys.argv[2]; pat = sys.argv[3]; depth = int(sys.argv[4]) if len(sys.argv) > 4 else 8
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.CPUTimeSample', f], capture_output=True, text=True).stdout
events = json.loads(raw)['recording']['events']
c = collections.Counter()
for e in events:
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread') or {}
    if thread not in (t.get('javaName') or '?'): continue
    frames = (v.get('stackTrace') or {}).get('frames') or []
    meths = [re.split(r'[./]', fr['method']['type']['name'])[-1] + '.' + fr['method']['name'] + ':' + str(fr.get('lineNumber')) for fr in frames]
    idx = [i for i, m in enumerate(meths) if pat in m]
    if not idx: continue
    i = idx[-1]
    c[' < '.join(meths[max(0, i - depth):i + 3])] += 1
for s, n in c.most_common(12): print(n, s)
