import json, re, subprocess, sys, collections
f = sys.argv[1]
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '12', '--events', 'jdk.ObjectAllocationSample', f], capture_output=True, text=True).stdout
events = json.loads(raw)['recording']['events']
byc = collections.Counter(); bys = collections.Counter(); tot = 0
for e in events:
    v = e['values']; w = v['weight']; tot += w
    cls = v['objectClass']['name']
    frames = (v.get('stackTrace') or {}).get('frames') or []
    site = ' < '.join(re.split(r'[./]', fr['method']['type']['name'])[-1] + '.' + fr['method']['name'] for fr in frames[:3])
    t = (v.get('eventThread') or {}).get('javaName', '?'); t = re.sub(r'\d+', '#', t)
    byc[(t, cls)] += w; bys[(t, site)] += w
print(f, 'total MB', tot / 1e6)
for k, w in byc.most_common(12): print(f'{100*w/tot:5.1f}% {k}')
print()
for k, w in bys.most_common(15): print(f'{100*w/tot:5.1f}% {k}')
