#!/usr/bin/env python3
"""Medians of the A/B runs in ab.txt (A B C C B A) and final.txt (A B B A, J): messages/s at member 0 and CPU us/msg."""
import re, statistics, collections
runs = collections.defaultdict(lambda: collections.defaultdict(list))  # label -> (n, payload) -> [(rate, cpu)]
for f in ("ab.txt", "final.txt"):
    label = None; cpu = None
    for l in open(f):
        m = re.match(r"== (\w+) ", l)
        if m: label = f + ":" + m.group(1); continue
        m = re.search(r"; ([\d.]+) us of CPU", l)
        if m: cpu = float(m.group(1)); continue
        if l.startswith(("tandem-ordered,", "jgroups-sequencer,")):
            p = l.split(","); runs[label][(int(p[1]), int(p[2]))].append((int(p[3]), cpu))
def med(f, sys_):
    out = {}
    for k in ((2, 1024), (2, 8192), (3, 1024), (3, 8192)):
        xs = runs[f + ":" + sys_][k]
        out[k] = (xs, statistics.median(r for r, _ in xs) if xs else None, statistics.median(c for _, c in xs) if xs else None)
    return out
for f, systems in (("ab.txt", ("A", "B", "C")), ("final.txt", ("A", "B", "J"))):
    print(f"## {f}")
    m = {s: med(f, s) for s in systems}
    print("| n | payload | " + " | ".join(f"{s} runs | {s} median (CPU us)" for s in systems) + " | B / A |")
    for k in ((2, 1024), (2, 8192), (3, 1024), (3, 8192)):
        cells = []
        for s in systems:
            xs, r, c = m[s][k]
            cells.append(" / ".join(f"{x:,}" for x, _ in xs) if xs else "-")
            cells.append(f"{r:,.0f} ({c:.1f})" if r else "-")
        ba = m["B"][k][1] / m["A"][k][1]
        print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + f" | {ba:.2f} |")
