import sys, collections
rows = [l.strip().split(',') for l in open(sys.argv[1]) if l[:1].isdigit()]
raw = collections.defaultdict(dict); tan = collections.defaultdict(dict)
for r in rows:
    run, system, n, payload, mean, mn = r[0], r[1], int(r[2]), int(r[3]), float(r[4]), float(r[5])
    if system == 'raw': raw[payload][run] = mean
    else: tan[(n, payload)][run] = (mean, mn)
def fmt(p):
    return f"{p >> 20} MiB" if p >= 1 << 20 else f"{p >> 10} KiB"
print("| payload | raw (1 stream) MB/s | n | Tandem MB/s per receiver (mean; slowest) | ratio to raw |")
print("|---|---|---|---|---|")
for payload in sorted(raw):
    runs = sorted(raw[payload])
    rawv = " / ".join(f"{raw[payload][r]:.0f}" for r in runs)
    for n in sorted({k[0] for k in tan}):
        t = tan.get((n, payload), {})
        tv = " / ".join(f"{t[r][0]:.1f}; {t[r][1]:.1f}" for r in runs if r in t)
        ratios = [t[r][0] / raw[payload][r] for r in runs if r in t and raw[payload][r] > 0]
        rv = " / ".join(f"{x:.0%}" for x in ratios)
        print(f"| {fmt(payload)} | {rawv} | {n} | {tv} | {rv} |")
