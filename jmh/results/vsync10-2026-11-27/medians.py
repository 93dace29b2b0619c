#!/usr/bin/env python3
"""Per point: Tandem ordered (B) and JGroups SEQUENCER (J) runs from final-round*.txt, medians, ratio B/J."""
import glob, statistics, collections, re, os
here = os.path.dirname(os.path.abspath(__file__))
runs = collections.defaultdict(list); cpu = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(here, "final-round*.txt"))):
    last = None
    for line in open(f):
        m = re.match(r"# (tandem-ordered|jgroups-sequencer)-(\d)-(\d+): .* ([\d.]+) us of CPU", line)
        if m: cpu[(m.group(1), int(m.group(2)), int(m.group(3)))].append(float(m.group(4)))
        p = line.strip().split(",")
        if len(p) == 6 and p[0] in ("tandem-ordered", "jgroups-sequencer"):
            runs[(p[0], int(p[1]), int(p[2]))].append(float(p[3]))
print("| n | payload | Tandem ordered runs | JGroups runs | Tandem median | JGroups median | **Tandem / JGroups** | CPU us/msg T / J (medians) |")
print("|---|---|---|---|---|---|---|---|")
for n in (2, 3, 4, 5):
    for size in (64, 1024, 8192):
        t = runs.get(("tandem-ordered", n, size), []); j = runs.get(("jgroups-sequencer", n, size), [])
        if not t or not j: continue
        tm, jm = statistics.median(t), statistics.median(j)
        ct = statistics.median(cpu[("tandem-ordered", n, size)]) if cpu[("tandem-ordered", n, size)] else float("nan")
        cj = statistics.median(cpu[("jgroups-sequencer", n, size)]) if cpu[("jgroups-sequencer", n, size)] else float("nan")
        label = {64: "64 B", 1024: "1 KiB", 8192: "8 KiB"}[size]
        print(f"| {n} | {label} | {' / '.join(f'{x:,.0f}' for x in t)} | {' / '.join(f'{x:,.0f}' for x in j)} | {tm:,.0f} | {jm:,.0f} | **{tm/jm:.2f}x** | {ct:.1f} / {cj:.1f} |")
