#!/usr/bin/env python3
"""Medians of ab.sh output (one or more files): per build (A main, B this branch), system, n, payload: MB/s per receiver,
% of the same JVM's raw fan-out to n - 1 (n = 2: of the raw one stream), frames per message, CPU us per MB; and the
frames by kind per message (medians). Usage: medians.py ab-64k.txt [ab-256k.txt ...]"""
import re, sys, statistics
from collections import defaultdict
vals = defaultdict(list); pct = defaultdict(list); frames = defaultdict(list); cpu = defaultdict(list); kinds = defaultdict(lambda: defaultdict(list))
for path in sys.argv[1:]:
    build = None; jvm = {}
    def close():
        for (sysname, n, p), v in jvm.items():
            if sysname != 'tandem': continue
            ref = jvm.get(('raw', 2, p) if n == 2 else ('raw-fanout', n, p))
            if ref: pct[(build, n, p)].append(100 * v / ref)
    for line in open(path):
        line = line.rstrip()
        m = re.match(r'^# sample \d+ build (\w)', line)
        if m:
            if build: close()
            build = m.group(1); jvm = {}; continue
        m = re.match(r'^\d+,(raw|raw-fanout|tandem),(\d),(\d+),([\d.]+)', line)
        if m:
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            jvm[key] = float(m.group(4)); vals[(build,) + key].append(float(m.group(4))); continue
        m = re.match(r'^# cpu (\S+) n=(\d) payload=(\d+): [\d.]+ cores, (\d+) CPU', line)
        if m: cpu[(build, m.group(1), int(m.group(2)), int(m.group(3)))].append(float(m.group(4))); continue
        m = re.match(r'^# tandem n=(\d) payload=(\d+): frames sent ([\d.]+)', line)
        if m: frames[(build, 'tandem', int(m.group(1)), int(m.group(2)))].append(float(m.group(3))); continue
        m = re.match(r'^# frames by kind per message: total [\d.]+;(.*)', line)
        if m and build:
            # follows the tandem point's "frames sent" line: attribute to the last tandem key of this JVM
            last = [k for k in jvm if k[0] == 'tandem'][-1]
            for kk, v in re.findall(r' (\S+) ([\d.]+)', m.group(1)): kinds[(build, last[1], last[2])][kk].append(float(v))
    if build: close()
med = lambda xs: statistics.median(xs) if xs else float('nan')
fmt = lambda xs: ' · '.join(f'{x:.0f}' for x in xs)
print('| build | system | n | payload | MB/s per receiver (samples): median | % of fan-out per JVM (samples): median | frames/msg | CPU us/MB |')
print('|---|---|---|---|---|---|---|---|')
for key in sorted(vals, key=lambda k: (k[3], k[1] != 'raw', k[1], k[2], k[0])):
    b, s, n, p = key
    pc = pct.get((b, n, p), []) if s == 'tandem' else []
    pcs = f"{' · '.join(f'{x:.0f}' for x in pc)}: **{med(pc):.0f} %**" if pc else ''
    print(f'| {b} | {s} | {n} | {p} | {fmt(vals[key])}: **{med(vals[key]):.0f}** | {pcs} | {med(frames.get(key, [])):.2f} | {med(cpu.get(key, [])):.0f} |')
print()
print('Frames by kind per message (medians):')
for key in sorted(kinds):
    k = kinds[key]
    print(f'- {key[0]} n={key[1]} payload={key[2]}: ' + ', '.join(f'{kk} {med(v):.2f}' for kk, v in sorted(k.items(), key=lambda e: -med(e[1]))))
