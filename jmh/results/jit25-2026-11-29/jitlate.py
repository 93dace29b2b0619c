#!/usr/bin/env python3
"""jit25: a JVM's compilation time after uptime FROM s, split into first compiles at a level and recompiles (the method already
had code at that level, i.e. the earlier code was thrown away by a trap), by method. Usage: jitlate.py JIT_LOG JFR FROM_S [TO_S]"""
import sys, json, subprocess, re, datetime, collections
log, jfr, lo = sys.argv[1], sys.argv[2], float(sys.argv[3]); hi = float(sys.argv[4]) if len(sys.argv) > 4 else 1e9
def ems(iso): return datetime.datetime.fromisoformat(iso.replace('Z', '+00:00').replace('+0000', '+00:00')).timestamp() * 1e3
m = re.match(r'\[([^\]]*)\]\[([\d.]+)s\]', open(log).readline()); zero = ems(m.group(1)) - float(m.group(2)) * 1e3
ev = json.loads(subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--events', 'jdk.Compilation', jfr], capture_output=True, text=True).stdout)['recording']['events']
def dur(d):
    m = re.match(r'PT(?:(\d+)M)?([\d.]+)S', d or ''); return (int(m.group(1) or 0) * 60 + float(m.group(2))) * 1e3 if m else 0
ev.sort(key=lambda e: e['values']['startTime'])
seen = set(); first = collections.defaultdict(float); again = collections.defaultdict(float); nf = na = 0; tf = ta = 0.0
for e in ev:
    v = e['values']; t = (ems(v['startTime']) - zero) / 1e3; d = dur(v.get('duration'))
    name = v['method']['type']['name'] + '::' + v['method']['name'] + v['method']['descriptor']
    key = (name, v.get('compileLevel'), bool(v.get('isOsr')))
    if lo <= t <= hi:
        if key in seen: again[(name, v.get('compileLevel'))] += d; na += 1; ta += d
        else: first[(name, v.get('compileLevel'))] += d; nf += 1; tf += d
    seen.add(key)
print(f'after {lo} s: first compiles {nf} ({tf:.0f} ms), recompiles {na} ({ta:.0f} ms)')
print(' recompiles by cost:'); [print(f'  {d:6.1f} ms L{k[1]} {k[0][:150]}') for k, d in sorted(again.items(), key=lambda x: -x[1])[:15]]
print(' first compiles by cost:'); [print(f'  {d:6.1f} ms L{k[1]} {k[0][:150]}') for k, d in sorted(first.items(), key=lambda x: -x[1])[:15]]
