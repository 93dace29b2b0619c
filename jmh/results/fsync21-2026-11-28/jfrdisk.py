#!/usr/bin/env python3
"""fsync21: per replica JFR (the measured window cut by --profile-window): every jdk.FileForce and jdk.FileWrite on
the log's segment files -> fsyncs per second, fsync duration percentiles, bytes written per fsync (one round's batch),
and the time between the end of one fsync and the start of the next (the disk thread's work between two fsyncs).
Usage: jfrdisk.py JFR... (prints one line per file)"""
import json, subprocess, sys, re
from datetime import datetime

def ts(s):
    # e.g. 2026-11-28T15:10:01.123456789Z (nanos trimmed to micros)
    m = re.match(r'(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?', s)
    base = datetime.fromisoformat(m.group(1))
    frac = float(m.group(2) or 0)
    return base.timestamp() + frac

def dur(s):  # ISO-8601 duration like PT0.000123S or "0.123 ms"
    if isinstance(s, (int, float)): return s / 1e9
    m = re.match(r'PT(?:(\d+)M)?([\d.]+)S', s)
    if m: return int(m.group(1) or 0) * 60 + float(m.group(2))
    return float('nan')

def pct(v, p):
    if not v: return float('nan')
    v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]

for f in sys.argv[1:]:
    out = subprocess.run(['jfr', 'print', '--json', '--events', 'jdk.FileForce,jdk.FileWrite', f], capture_output=True, text=True).stdout
    ev = json.loads(out)['recording']['events']
    forces, writes = [], []
    for e in ev:
        v = e['values']; path = v.get('path') or ''
        if not re.search(r'log-\d+\.seg', path): continue
        start = ts(v['startTime']); d = dur(v['duration'])
        if e['type'] == 'jdk.FileForce': forces.append((start, d))
        else: writes.append((start, d, v.get('bytesWritten', 0)))
    forces.sort(); writes.sort()
    if not forces:
        print(f, 'no fsyncs on log segments'); continue
    span = forces[-1][0] + forces[-1][1] - forces[0][0]
    ds = [d * 1e3 for _, d in forces]
    gaps = [(forces[i + 1][0] - (forces[i][0] + forces[i][1])) * 1e3 for i in range(len(forces) - 1)]
    wb = sum(w[2] for w in writes)
    wd = [w[1] * 1e3 for w in writes]
    print(f"{f.split('/')[-1]}: {len(forces)} fsyncs in {span:.2f} s = {len(forces)/span:,.0f}/s; fsync ms p50 {pct(ds,.5):.3f} p90 {pct(ds,.9):.3f} "
          f"p99 {pct(ds,.99):.3f} max {max(ds):.3f} mean {sum(ds)/len(ds):.3f}; busy in fsync {sum(ds)/1e3/span*100:.0f} %; "
          f"gap fsync end->next start ms p50 {pct(gaps,.5):.3f} p90 {pct(gaps,.9):.3f}; writes {len(writes)} ({wb/len(forces):,.0f} B per fsync, "
          f"write ms p50 {pct(wd,.5):.3f})")
