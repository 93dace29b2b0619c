#!/usr/bin/env python3
"""vsync15: per system label and point, the runs of ab-part*.txt in order, their median (the mean of the middle two for
an even count) and the median CPU us per message; then the ratios B/A, B/J and B/(best JGroups stack per point)."""
import re, statistics, sys, glob
runs = {}   # (label, n, payload) -> [(rate, cpu_us)]
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else 'ab-part*.txt')):
    label = None; cpu = None
    for line in open(f):
        m = re.match(r'== (\S+) ', line)
        if m: label = m.group(1); continue
        m = re.match(r'# \S+: threads of this JVM used ([\d.]+) cores; ([\d.]+) us', line)
        if m: cpu = (float(m.group(1)), float(m.group(2))); continue
        m = re.match(r'(tandem-ordered|jgroups-sequencer),(\d),(\d+),(\d+),', line)
        if m and label:
            runs.setdefault((label, int(m.group(2)), int(m.group(3))), []).append((int(m.group(4)), cpu))
            cpu = None
points = sorted({(n, p) for (_, n, p) in runs})
labels = ['A', 'B', 'C', 'J', 'JT', 'JG']
med = {}
print('| n | payload | ' + ' | '.join(f'{l} runs' for l in labels) + ' |')
for n, p in points:
    cells = []
    for l in labels:
        rs = runs.get((l, n, p), [])
        if rs: med[(l, n, p)] = statistics.median(r for r, _ in rs)
        cells.append(' / '.join(f'{r:,}' for r, _ in rs) or '-')
    print(f'| {n} | {p} | ' + ' | '.join(cells) + ' |')
print()
print('| n | payload | A | B | C | J | JT | JG | B / A | **B / J** | B / best JGroups | CPU us/msg A / B / J (medians) |')
for n, p in points:
    g = lambda l: med.get((l, n, p))
    cpu = lambda l: statistics.median([c[1] for _, c in runs.get((l, n, p), []) if c] or [0])
    best = max(v for v in (g('J'), g('JT'), g('JG')) if v)
    fmt = lambda v: f'{v:,.0f}' if v else '-'
    print(f'| {n} | {p} | ' + ' | '.join(fmt(g(l)) for l in labels) +
          f' | {g("B")/g("A"):.2f} | **{g("B")/g("J"):.2f}x** | {g("B")/best:.2f}x | {cpu("A"):.1f} / {cpu("B"):.1f} / {cpu("J"):.1f} |')
