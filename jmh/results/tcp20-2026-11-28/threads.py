#!/usr/bin/env python3
"""tcp20: per-role thread CPU (us/put) and voluntary switches per 1000 puts from PeerBenchmark --profile-window CSVs
(both followers summed into FOLLOWER). Usage: threads.py FILE..."""
import csv, sys, re, collections
for f in sys.argv[1:]:
    agg = collections.defaultdict(lambda: [0.0, 0.0])
    for r in csv.DictReader(open(f)):
        role = r['jvm'].split('-')[1] if '-' in r['jvm'] else r['jvm']
        t = re.sub(r'\d+', '#', r['thread'].strip('"'))
        if 'tandem' in t:
            agg[(role, t)][0] += float(r['us_per_put']); agg[(role, t)][1] += float(r['voluntary_switches_per_1000_puts'])
    print('==', f.split('/')[-1])
    for k, v in sorted(agg.items()):
        if v[0] >= 0.1: print(f"  {k[0]:9s} {k[1]:20s} {v[0]:6.2f} us/put {v[1]:6.1f} vsw/1000")
