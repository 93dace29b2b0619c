#!/usr/bin/env python3
"""hotpath15: one line per JMH configuration and tree from the CSVs of a jmh.sh run (ns/op +- error, B/op)."""
import csv, glob, os, re, sys
d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(d, '*.csv'))):
    b = os.path.basename(f); tree = 'new2' if '-new2' in b else 'heads' if '-heads' in b else 'new' if '-new' in b else 'base'
    m = re.search(r'-(r\d+)-', os.path.basename(f))
    rnd = m.group(1) if m else ''
    for r in csv.DictReader(open(f)):
        name = r['Benchmark'].split('Benchmark.', 1)[1]
        params = ','.join(r[k] for k in r if k.startswith('Param') and r[k])
        key = (name.split(':')[0], params, tree, rnd)
        e = rows.setdefault(key, {})
        if ':' not in name: e['ns'] = (float(r['Score']), float(r['Score Error (99.9%)'] or 'nan'))
        elif name.endswith('gc.alloc.rate.norm'): e['B'] = float(r['Score'])
for (name, params, tree, rnd), e in sorted(rows.items()):
    ns = e.get('ns', (float('nan'),) * 2)
    print(f"{name:22s} {params:28s} {tree:4s} {rnd:3s} {ns[0]:9.1f} ns/op +- {ns[1]:8.1f}  {e.get('B', float('nan')):7.1f} B/op")
