# Medians over the runs of bench-ab.sh: python3 medians.py run1.txt run2.txt run3.txt
import sys, collections, statistics as st
raw = collections.defaultdict(dict); streams = collections.defaultdict(dict); tan = collections.defaultdict(dict)
for f in sys.argv[1:]:
    for l in open(f):
        r = l.strip().split(',')
        if len(r) < 8 or not r[0].isdigit(): continue
        run = r[0]; label, system = r[1].split(':'); n, p, mean = int(r[2]), int(r[3]), float(r[4])
        if system == 'raw': raw[p][run] = mean
        elif system == 'raw-streams': streams[(n, p)][run] = mean
        else: tan[(label, n, p)][run] = mean
def fmt(p): return f"{p >> 20} MiB" if p >= 1 << 20 else f"{p >> 10} KiB"
print("| payload | n | raw, 1 stream | raw, n-1 streams at once: per stream (sum) | before (one transfer per sender) | after (pipelined) | after / before | after / raw 1 stream (target ≥ 50 %) | after / per-stream rate of n-1 streams |")
print("|---|---|---|---|---|---|---|---|---|")
for p in sorted(raw):
    for n in (2, 3, 4, 5):
        s = raw[p] if n == 2 else streams[(n, p)]
        a, b = tan[('A', n, p)], tan[('B', n, p)]
        runs = sorted(b)
        ab = st.median(b[r] / a[r] for r in runs if r in a)
        r1 = st.median(b[r] / raw[p][r] for r in runs)
        rs = st.median(b[r] / s[r] for r in runs)
        print(f"| {fmt(p)} | {n} | {st.median(raw[p].values()):.0f} | {st.median(s.values()):.0f} ({st.median(s.values()) * (n - 1):.0f}) | {st.median(a.values()):.0f} | {st.median(b.values()):.0f} | {ab:.2f}x | {r1:.0%} | {rs:.0%} |")
