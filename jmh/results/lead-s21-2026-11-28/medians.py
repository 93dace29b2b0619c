#!/usr/bin/env python3
"""Medians per system and tree from trials.sh's load.txt (label = prefix + round: b base raft, m merge raft, j jgroups-raft,
u merge unreplicated, pm/p merge multipaxos, pb base multipaxos, n merge without raft20, s sofajraft). Usage: medians.py c64/load.txt"""
import re, sys, statistics
from collections import defaultdict
names = {'b': 'tandem-raft base', 'm': 'tandem-raft merge', 'j': 'jgroups-raft', 'u': 'tandem-unreplicated merge',
         'pm': 'tandem-multipaxos merge', 'pb': 'tandem-multipaxos base',
         'p': 'tandem-multipaxos merge', 'n': 'tandem-raft merge w/o raft20', 's': 'sofajraft'}
rows = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'^([a-z]+)\d end .*::\s+([\d,]+) puts/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms, p99.9 ([\d.]+) ms, CPU ([\d.]+) us/op', line)
    if m:
        rows[m.group(1)].append([float(m.group(2).replace(',', ''))] + [float(m.group(i)) for i in range(3, 7)])
med = {}
for k, v in rows.items():
    med[k] = [statistics.median(c) for c in zip(*v)]
    print(f"{names[k]:28s} runs {' / '.join(f'{r[0]:,.0f}' for r in v):30s} median {med[k][0]:9,.0f} puts/s  p50 {med[k][1]:.2f}  p99 {med[k][2]:.2f}  p99.9 {med[k][3]:.1f} ms  CPU {med[k][4]:.1f} us/put")
def ratio(a, b, i=0): return med[a][i] / med[b][i]
if 'm' in med and 'j' in med:
    print(f"merge Raft / jgroups-raft {ratio('m','j'):.2f}x puts/s, CPU {ratio('m','j',4):.2f}x, p99 {ratio('m','j',2):.2f}x")
if 'm' in med and 'b' in med: print(f"merge Raft / base Raft {ratio('m','b'):.2f}x puts/s, CPU {ratio('m','b',4):.2f}x")
if 'm' in med and 'u' in med: print(f"merge Raft / unreplicated {ratio('m','u'):.2f}x")
if 'pm' in med and 'pb' in med: print(f"merge MultiPaxos / base {ratio('pm','pb'):.2f}x puts/s, CPU {ratio('pm','pb',4):.2f}x")
if 'm' in med and 'n' in med: print(f"merge Raft / merge without raft20 {ratio('m','n'):.2f}x puts/s, CPU {ratio('m','n',4):.2f}x")
if 'm' in med and 's' in med: print(f"merge Raft / sofajraft {ratio('m','s'):.2f}x puts/s, CPU {ratio('m','s',4):.2f}x")
if 'p' in med and 'm' in med: print(f"merge MultiPaxos / merge Raft {ratio('p','m'):.2f}x")
if 'pm' in med and 'm' in med: print(f"merge MultiPaxos / merge Raft {ratio('pm','m'):.2f}x; / jgroups-raft {ratio('pm','j'):.2f}x")
