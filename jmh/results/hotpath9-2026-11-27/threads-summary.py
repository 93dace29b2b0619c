#!/usr/bin/env python3
"""hotpath9: per JVM of a trial's threads.csv (PeerBenchmark --profile-window): µs of CPU per put of the Tandem
threads (tandem-*: loop, TCP, execution, disk, client I/O), of the JIT compilers, and of all threads.
Usage: threads-summary.py THREADS.csv..."""
import csv, sys, collections
for path in sys.argv[1:]:
    by = collections.defaultdict(lambda: collections.Counter())
    for r in csv.DictReader(open(path)):
        us = float(r['us_per_put']); j = r['jvm']; t = r['thread']
        by[j]['all'] += us
        if t.startswith('tandem-'):
            by[j]['tandem'] += us
            short = t.split('-')[1]
            by[j][short] += us
        elif 'Compiler' in t: by[j]['jit'] += us
    print(path.split('/')[-1])
    for j in sorted(by):
        c = by[j]
        detail = ' '.join(f'{k} {c[k]:.2f}' for k in ('loop', 'tcp', 'exec', 'disk', 'clients', 'kv') if c[k])
        print(f'  {j:12s} tandem {c["tandem"]:6.2f} ({detail})  jit {c["jit"]:6.2f}  all {c["all"]:6.2f}')
