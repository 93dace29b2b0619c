#!/usr/bin/env python3
"""hotpath11: per JVM role, CPU µs per put by thread group (exec, loop, tcp, client I/O, GC, JIT, other) from
PeerBenchmark --profile-window threads.csv files. Usage: threads-summary.py FILE..."""
import csv, sys, re, collections
def group(t):
    t = t.lower()
    if 'exec' in t: return 'exec'
    if 'loop' in t: return 'loop'
    if 'tcp' in t: return 'tcp'
    if 'client' in t or 'kv-io' in t or 'server' in t: return 'client'
    if 'gc' in t: return 'gc'
    if 'compiler' in t: return 'jit'
    if 'disk' in t: return 'disk'
    return 'other'
for f in sys.argv[1:]:
    by = collections.defaultdict(lambda: collections.Counter())
    for r in csv.DictReader(open(f)):
        by[r['jvm']][group(r['thread'])] += float(r['us_per_put'])
    print(f.split('/')[-1].split('-run1')[0], end=': ')
    parts = []
    for jvm in sorted(by):
        c = by[jvm]; tot = sum(c.values())
        parts.append(f"{jvm} {tot:.2f} (" + ', '.join(f"{k} {c[k]:.2f}" for k in ['exec','loop','tcp','client','gc','jit','disk','other'] if c[k] >= 0.005) + ")")
    print('; '.join(parts))
