#!/usr/bin/env python3
"""Medians of bench-ab.txt (A/B per build, n, payload; MB/s per receiver, frames per message, CPU us per MB) and of
bench-matrix.txt (per system, n, payload). Usage: medians.py bench-ab.txt | medians.py --matrix bench-matrix.txt"""
import re, sys, statistics
from collections import defaultdict

def parse(path, matrix):
    vals = defaultdict(list); frames = defaultdict(list); cpu = defaultdict(list); cores = defaultdict(list)
    label = None
    for line in open(path):
        line = line.rstrip()
        m = re.match(r'^(\w+),(raw|raw-fanout|tandem),(\d),(\d+),([\d.]+)', line)
        if m:
            lab = 'B' if matrix else m.group(1)
            key = (lab, m.group(2), int(m.group(3)), int(m.group(4)))
            vals[key].append(float(m.group(5)))
            continue
        m = re.match(r'^# (?:(\w+) )?cpu (\S+) n=(\d) payload=(\d+): ([\d.]+) cores, (\d+) CPU', line)
        if m:
            lab = 'B' if matrix else m.group(1)
            key = (lab, m.group(2), int(m.group(3)), int(m.group(4)))
            cpu[key].append(float(m.group(6))); cores[key].append(float(m.group(5)))
            continue
        m = re.match(r'^# (?:(\w+) )?tandem n=(\d) payload=(\d+): frames sent ([\d.]+)', line)
        if m:
            lab = 'B' if matrix else m.group(1)
            frames[(lab, 'tandem', int(m.group(2)), int(m.group(3)))].append(float(m.group(4)))
    return vals, frames, cpu, cores

matrix = sys.argv[1] == '--matrix'
path = sys.argv[-1]
vals, frames, cpu, cores = parse(path, matrix)
med = lambda xs: statistics.median(xs) if xs else float('nan')
fmt = lambda xs: ' · '.join(f'{x:.0f}' for x in xs)
print('| build | system | n | payload | MB/s per receiver (samples): median | frames/msg | CPU us per MB received (median) | cores |')
print('|---|---|---|---|---|---|---|---|')
for key in sorted(vals, key=lambda k: (k[3], k[1] != 'raw', k[1], k[2], k[0])):
    print(f'| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {fmt(vals[key])}: **{med(vals[key]):.0f}** | {med(frames.get(key, [])):.2f} | {med(cpu.get(key, [])):.0f} | {med(cores.get(key, [])):.2f} |')
