# Medians of the vsync9 A/B rounds (ab-round*.txt in the folder given): per point A, B, J (and W = B at window 256).
import re, sys, statistics, collections, glob
rates = collections.defaultdict(list); cpu = collections.defaultdict(list); loads = []
for f in sorted(glob.glob(sys.argv[1] + '/ab-round*.txt')):
    label = None
    for line in open(f):
        m = re.match(r'== (\w+) round (\d) (\S+) load: (\S+)', line)
        if m: label = m.group(1); loads.append(f"{m.group(2)}{label} {m.group(3)} {m.group(4)}"); continue
        m = re.match(r'# \S+-(\d)-(\d+): threads of this JVM used ([\d.]+) cores; ([\d.]+) us', line)
        if m: cpu[(label, int(m.group(1)), int(m.group(2)))].append((float(m.group(3)), float(m.group(4)))); continue
        m = re.match(r'(tandem-ordered|jgroups-sequencer),(\d),(\d+),(\d+),', line)
        if m: rates[(label, int(m.group(2)), int(m.group(3)))].append(int(m.group(4)))
med = lambda l: statistics.median(l) if l else float('nan')
fmt = lambda l: ' / '.join(f"{x:,}" for x in l)
print("loads:", '; '.join(loads))
print("| n | payload | A runs | B runs | J runs | A med | B med | J med | A/J | **B/J** | B/A | µs/msg A / B |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for n in (2, 3, 4, 5):
    for p in (1024, 8192):
        a, b, j = rates[('A', n, p)], rates[('B', n, p)], rates[('J', n, p)]
        if not b: continue
        ma, mb, mj = med(a), med(b), med(j)
        ua = med([u for _, u in cpu[('A', n, p)]]); ub = med([u for _, u in cpu[('B', n, p)]])
        print(f"| {n} | {'1 KiB' if p == 1024 else '8 KiB'} | {fmt(a)} | {fmt(b)} | {fmt(j)} | {ma:,.0f} | {mb:,.0f} | {mj:,.0f} | {ma/mj:.2f}x | **{mb/mj:.2f}x** | {mb/ma:.2f} | {ua:.1f} / {ub:.1f} |")
print()
print("| n | payload | B (W=64) runs | W=256 runs | B med | W med | J med | W/B | **W/J** | µs/msg B / W |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n in (2, 3):
    for p in (1024, 8192):
        b, w, j = rates[('B', n, p)], rates[('W', n, p)], rates[('J', n, p)]
        if not w: continue
        mb, mw, mj = med(b), med(w), med(j)
        ub = med([u for _, u in cpu[('B', n, p)]]); uw = med([u for _, u in cpu[('W', n, p)]])
        print(f"| {n} | {'1 KiB' if p == 1024 else '8 KiB'} | {fmt(b)} | {fmt(w)} | {mb:,.0f} | {mw:,.0f} | {mj:,.0f} | {mw/mb:.2f} | **{mw/mj:.2f}x** | {ub:.1f} / {uw:.1f} |")
