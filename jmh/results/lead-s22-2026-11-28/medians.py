#!/usr/bin/env python3
"""Medians per system and tree from trials.sh's load.txt. Label = prefix + round number:
r tandem-raft main, m tandem-raft merge, j jgroups-raft, a aeron-cluster, s sofajraft, t ratis,
u tandem-unreplicated (merge), p tandem-multipaxos merge, pb tandem-multipaxos main. Usage: medians.py DIR/load.txt"""
import re, sys, statistics
from collections import defaultdict
names = {'r': 'tandem-raft main', 'm': 'tandem-raft merge', 'j': 'jgroups-raft', 'a': 'aeron-cluster', 's': 'sofajraft',
         't': 'ratis', 'u': 'tandem-unreplicated', 'p': 'tandem-multipaxos merge', 'pb': 'tandem-multipaxos main'}
rows = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'^([a-z]+)\d end .*::\s+([\d,]+) puts/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms, p99.9 ([\d.]+) ms, CPU ([\d.,]+) us/op', line)
    if m:
        rows[m.group(1)].append([float(m.group(2).replace(',', ''))] + [float(m.group(i).replace(",", "")) for i in range(3, 7)])
med = {}
for k, v in rows.items():
    med[k] = [statistics.median(c) for c in zip(*v)]
    print(f"{names[k]:24s} runs {' / '.join(f'{r[0]:,.0f}' for r in v):28s} median {med[k][0]:9,.0f} puts/s  p50 {med[k][1]:.2f}  "
          f"p99 {med[k][2]:.2f}  p99.9 {med[k][3]:.1f} ms  CPU {med[k][4]:.1f} us/put")
for raft in ('m', 'r'):
    if raft not in med: continue
    for other in ('j', 's', 't', 'a', 'u', 'r', 'p', 'pb'):
        if other in med and other != raft:
            a, b = med[raft], med[other]
            print(f"{names[raft]} / {names[other]}: {a[0]/b[0]:.2f}x puts/s, p50 {a[1]/b[1]:.2f}x, p99 {a[2]/b[2]:.2f}x, CPU {a[4]/b[4]:.2f}x")
