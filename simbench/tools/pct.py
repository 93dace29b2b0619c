#!/usr/bin/env python3
"""% of healthy (same protocol, nodes, clients, seed) for ParallelRows CSV lines; medians over seeds.
   python3 simbench/tools/pct.py simbench/results/2026-11-27-perfsim10/raft3-512-*.csv"""
import csv, statistics, sys
from collections import defaultdict
import os
H = open(os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), '..', 'results', '2026-11-27-perfsim10', 'header.csv')).read().strip().split(',')
rows = []
for f in sys.argv[1:]:
    for line in open(f):
        if line.strip() and not line.startswith('protocol'):
            rows.append(dict(zip(H, line.strip().split(','))))
healthy = {(r['protocol'], r['nodes'], r['clients'], r['seed']): r for r in rows if r['slow'] == 'healthy'}
agg = defaultdict(lambda: defaultdict(list))
for r in rows:
    h = healthy.get((r['protocol'], r['nodes'], r['clients'], r['seed']))
    if h is None: continue
    k = (r['protocol'], r['nodes'], r['clients'], r['slow'])
    a = agg[k]
    a['seeds'].append(r['seed'])
    for m, src in (('thr', 'ops_s'), ('mean', 'mean_us'), ('p99', 'p99_us')):
        a[m].append(100.0 * float(r[src]) / float(h[src]))
    for m in ('ops_s', 'mean_us', 'p99_us', 'leader_util', 'leader_work_util', 'lq_max', 'lq_end', 'log_bytes_start', 'log_bytes_max', 'log_bytes_end',
              'inflight_bytes_start', 'inflight_bytes_max', 'inflight_bytes_end', 'outbox_max', 'slow_backlog_end'):
        a[m].append(float(r[m]))
for k, a in agg.items():
    med = {m: statistics.median(v) for m, v in a.items() if m != 'seeds'}
    per_seed = ' | '.join('s%s %.1f/%.1f/%.1f' % (s, t, m, p) for s, t, m, p in zip(a['seeds'], a['thr'], a['mean'], a['p99']))
    ok = med['thr'] >= 95 and med['mean'] <= 105 and med['p99'] <= 105
    print('%-38s %s/%s %-24s median %6.1f / %6.1f / %6.1f  %s  ops/s %.0f mean %.0f p99 %.0f util %.2f/%.2f lq max %.0f log KB %.0f/%.0f/%.0f inflight KB %.1f/%.1f/%.1f outbox %.0f backlog_end %.0f  [%s]' % (
        k[0], k[1], k[2], k[3], med['thr'], med['mean'], med['p99'], 'within' if ok else 'miss', med['ops_s'], med['mean_us'], med['p99_us'],
        med['leader_util'], med['leader_work_util'], med['lq_max'], med['log_bytes_start'] / 1e3, med['log_bytes_max'] / 1e3, med['log_bytes_end'] / 1e3,
        med['inflight_bytes_start'] / 1e3, med['inflight_bytes_max'] / 1e3, med['inflight_bytes_end'] / 1e3, med['outbox_max'], med['slow_backlog_end'], per_seed))
