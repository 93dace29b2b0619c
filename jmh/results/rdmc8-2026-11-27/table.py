# Table of bench-ab.sh output files: python3 table.py run1.txt [run2.txt ...]
import sys, collections
raw = collections.defaultdict(list)      # payload -> [MB/s of one stream]
streams = collections.defaultdict(list)  # (n, payload) -> [per-stream MB/s with n-1 streams at once]
tan = collections.defaultdict(list)      # (label, n, payload) -> [(mean, min)]
for f in sys.argv[1:]:
    for l in open(f):
        r = l.strip().split(',')
        if len(r) < 8 or not r[0].isdigit(): continue
        label, system = r[1].split(':')
        n, payload, mean, mn = int(r[2]), int(r[3]), float(r[4]), float(r[5])
        if system == 'raw': raw[payload].append(mean)
        elif system == 'raw-streams': streams[(n, payload)].append(mean)
        else: tan[(label, n, payload)].append((mean, mn))
def fmt(p): return f"{p >> 20} MiB" if p >= 1 << 20 else f"{p >> 10} KiB"
def med(xs):
    xs = sorted(xs); k = len(xs)
    return None if k == 0 else (xs[k // 2] if k % 2 else (xs[k // 2 - 1] + xs[k // 2]) / 2)
def show(xs): return " / ".join(f"{x:.0f}" for x in xs)
print("| payload | n | raw 1 stream | raw n-1 streams: per stream (aggregate) | A before: per receiver | B pipelined: per receiver (slowest) | B / raw 1 stream (target 50 %) | B / per-stream rate of n-1 streams (CPU bound) |")
print("|---|---|---|---|---|---|---|---|")
for payload in sorted(raw):
    r1 = raw[payload]
    for n in sorted({k[1] for k in tan}):
        st = streams.get((n, payload), r1 if n == 2 else [])
        a = [m for m, _ in tan.get(('A', n, payload), [])]
        b = tan.get(('B', n, payload), [])
        bm = [m for m, _ in b]
        ratio1 = [x / y for x, y in zip(bm, r1) if y > 0]
        ratio2 = [x / y for x, y in zip(bm, st) if y > 0]
        agg = " / ".join(f"{x * (n - 1):.0f}" for x in st)
        print(f"| {fmt(payload)} | {n} | {show(r1)} | {show(st)} ({agg}) | {show(a)} | {show(bm)} ({show([m for _, m in b])}) | "
              + " / ".join(f"{x:.0%}" for x in ratio1) + " | " + " / ".join(f"{x:.0%}" for x in ratio2) + " |")
