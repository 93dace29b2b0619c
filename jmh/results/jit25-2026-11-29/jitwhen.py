#!/usr/bin/env python3
"""jit25: a JVM's compilation time (JFR jdk.Compilation durations, summed by start second of JVM uptime) and the costliest
compilations in an uptime range. Usage: jitwhen.py JIT_LOG JFR [from_s to_s]"""
import sys, json, subprocess, re, datetime, collections
log, jfr = sys.argv[1], sys.argv[2]
lo, hi = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) > 4 else (0, 1e9)
def ems(iso): return datetime.datetime.fromisoformat(iso.replace('Z', '+00:00').replace('+0000', '+00:00')).timestamp() * 1e3
first = open(log).readline(); m = re.match(r'\[([^\]]*)\]\[([\d.]+)s\]', first)
zero = ems(m.group(1)) - float(m.group(2)) * 1e3  # epoch ms at uptime 0
ev = json.loads(subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--events', 'jdk.Compilation', jfr], capture_output=True, text=True).stdout)['recording']['events']
def dur(d):
    m = re.match(r'PT(?:(\d+)M)?([\d.]+)S', d or ''); return (int(m.group(1) or 0) * 60 + float(m.group(2))) * 1e3 if m else 0
per = collections.defaultdict(float); rng = []
for e in ev:
    v = e['values']; t = (ems(v['startTime']) - zero) / 1e3; d = dur(v.get('duration'))
    per[int(t)] += d
    if lo <= t <= hi: rng.append((d, t, v.get('compileLevel'), v.get('isOsr'), v['method']['type']['name'] + '::' + v['method']['name'], v.get('inlinedBytes')))
print('compile ms per second of uptime: ' + ' '.join(f'{s}:{per[s]:.0f}' for s in sorted(per) if s >= 15))
if rng:
    print(f'{len(rng)} compilations in {lo}-{hi} s, {sum(r[0] for r in rng):.0f} ms; costliest:')
    for d, t, lv, osr, name, inl in sorted(rng, reverse=True)[:25]: print(f'  {d:7.1f} ms at {t:6.2f} s L{lv}{" osr" if osr else ""} {name} (inlined {inl} B)')
