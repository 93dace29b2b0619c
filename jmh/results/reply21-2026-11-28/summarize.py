#!/usr/bin/env python3
"""reply21: per-trial puts/s, p50/p99, CPU/put (from load.txt) and the leader's execution and client-I/O threads'
CPU per put and voluntary switches per 1,000 puts (from profile/*-threads.csv); medians per (clients, tree)."""
import csv, glob, os, re, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'ab')
rows = {}
for line in open(os.path.join(d, 'load.txt')):
    m = re.match(r'(\S+) end .*:: +([\d,]+) puts/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms.*CPU ([\d.]+) us/op', line)
    if m:
        rows[m.group(1)] = dict(puts=int(m.group(2).replace(',', '')), p50=float(m.group(3)), p99=float(m.group(4)), cpu=float(m.group(5)))
for label, r in rows.items():
    f = glob.glob(os.path.join(d, 'profile', label + '-*threads.csv'))
    if not f:
        continue
    for t in csv.DictReader(open(f[0])):
        if 'LEADER' not in t['jvm']:
            continue
        name = t['thread'].strip('"')
        key = 'exec' if name.startswith('tandem-exec') else 'clients' if name.startswith('tandem-clients') else None
        if key:
            r[key + '_us'] = float(t['us_per_put'])
            r[key + '_vcs'] = float(t['voluntary_switches_per_1000_puts'])
print('| trial | puts/s | p50 ms | p99 ms | CPU us/put (all JVMs) | leader exec us/put | exec vol. switches /1k puts | leader client I/O us/put | client I/O vol. switches /1k puts |')
print('|---|---|---|---|---|---|---|---|---|')
for label in sorted(rows, key=lambda l: (int(re.match(r'c(\d+)', l).group(1)), l)):
    r = rows[label]
    print(f"| {label} | {r['puts']:,} | {r['p50']} | {r['p99']} | {r['cpu']} | {r.get('exec_us', '-')} | {r.get('exec_vcs', '-')} | {r.get('clients_us', '-')} | {r.get('clients_vcs', '-')} |")
print()
print('| clients | tree | median puts/s | p50 | p99 | CPU us/put | exec us/put | client I/O us/put |')
print('|---|---|---|---|---|---|---|---|')
for c in ('1', '16', '64'):
    for tree, tag in (('base', 'a'), ('new', 'b')):
        rs = [r for l, r in rows.items() if l.startswith(f'c{c}-{tag}')]
        if not rs:
            continue
        med = lambda k: statistics.median([r[k] for r in rs if k in r]) if any(k in r for r in rs) else float('nan')
        print(f"| {c} | {tree} | {med('puts'):,.0f} | {med('p50'):.2f} | {med('p99'):.2f} | {med('cpu'):.1f} | {med('exec_us'):.2f} | {med('clients_us'):.2f} |")
