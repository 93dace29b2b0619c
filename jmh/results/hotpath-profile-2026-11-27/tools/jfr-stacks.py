#!/usr/bin/env python3
"""Most common stacks (top N frames) of an event type for threads matching a regex, weighted (allocation) or counted."""
import subprocess, sys, re, collections, json
f, event, thread_re, depth = sys.argv[1], sys.argv[2], re.compile(sys.argv[3]), int(sys.argv[4])
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', event, f], capture_output=True, text=True).stdout
evs = json.loads(out)['recording']['events']
c = collections.Counter(); total = 0
for e in evs:
    v = e['values']; t = v.get('sampledThread') or v.get('eventThread')
    if not t or not thread_re.search(t['javaName'] or ''): continue
    w = v.get('weight', 1); total += w
    fr = [x['method']['type']['name'].split('/')[-1] + '.' + x['method']['name'] + ':' + str(x['lineNumber']) for x in (v['stackTrace'] or {'frames': []})['frames']]
    fr = [x for x in fr if 'Lambda' not in x and 'LambdaForm' not in x]
    key = ' < '.join(fr[:depth])
    if event == 'jdk.ObjectAllocationSample': key = v['objectClass']['name'] + ' @ ' + key
    c[key] += w
for k, w in c.most_common(int(sys.argv[5]) if len(sys.argv) > 5 else 25): print(f'{100*w/total:5.1f}% {k}')
