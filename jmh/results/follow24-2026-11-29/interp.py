# follow24: per thread (loop, exec, tcp) of one window JFR (jdk.CPUTimeSample), in the last 8 s of the recording (the
# measured window): samples, samples whose top frame is interpreted, and how the loop/batch frames ran.
# Usage: interp.py file.jfr
import json, subprocess, sys, collections
raw = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.CPUTimeSample', sys.argv[1]], capture_output=True, text=True).stdout
ev = json.loads(raw)['recording']['events']
def sec(t): h, m, s = t[11:19].split(':'); return int(h) * 3600 + int(m) * 60 + int(s)
end = max(sec(e['values']['startTime']) for e in ev)
n, top, how = collections.Counter(), collections.Counter(), collections.Counter()
for e in ev:
    v = e['values']
    if sec(v['startTime']) < end - 8: continue
    name = ((v.get('sampledThread') or v.get('eventThread') or {}).get('javaName') or '')
    k = name.split('-')[1] if name.startswith('tandem-') else None
    if k not in ('loop', 'exec', 'tcp'): continue
    fr = (v.get('stackTrace') or {}).get('frames') or []
    n[k] += 1
    if fr and fr[0].get('type') == 'Interpreted': top[k] += 1
    for f in fr:
        if f['method']['name'] in ('runLoop', 'turn', 'run', 'batch') and f['method']['type']['name'].endswith(('NodeRuntime', 'ExecutionThread')):
            how[(k, f['method']['name'], f.get('type'))] += 1
for k in sorted(n): print(f'{k}: {n[k]} samples, top frame interpreted {top[k]} ({100 * top[k] / n[k]:.0f} %)')
for (k, m, t), c in sorted(how.items()): print(f'  {k} {m}: {t} in {c}')
