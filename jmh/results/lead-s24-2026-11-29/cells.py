import csv, glob, os, re, statistics, sys
# For each cell directory: per label (r, j, rb, u, pb) the trials' puts/s, p99 (ms), CPU us/put, JIT %; medians.
for cell in sys.argv[1:]:
    rows = {}
    for f in sorted(glob.glob(f"{cell}/*/results.csv")):
        label = os.path.basename(os.path.dirname(f))
        base = re.sub(r"\d+$", "", label)
        for r in csv.DictReader(open(f)):
            rows.setdefault(base, []).append((label, float(r["throughput"]), float(r["p99_us"]) / 1000, float(r["cpu_us_per_op"]), float(r["jit_pct_of_cpu"] or 0)))
    print(f"== {cell}")
    med = {}
    for base, t in sorted(rows.items()):
        med[base] = statistics.median(x[1] for x in t)
        p99 = statistics.median(x[2] for x in t); cpu = statistics.median(x[3] for x in t)
        print(f"{base:3s} median {med[base]:9,.0f} p99 {p99:5.2f} ms cpu {cpu:5.1f} us  trials " + ", ".join(f"{l} {v:,.0f} ({c:.1f} us, JIT {j:.0f} %)" for l, v, _, c, j in t))
    if "r" in med and "j" in med:
        print(f"Raft/jgroups {med['r']/med['j']:.2f}x" + (f"  Raft/unrepl {med['r']/med['u']:.2f}x" if 'u' in med else "") + (f"  B+-tree Raft/jgroups {med['rb']/med['j']:.2f}x  hash/tree {med['r']/med['rb']:.2f}x" if 'rb' in med else "") + (f"  MultiPaxos/Raft {med['pb']/med['r']:.2f}x" if 'pb' in med else ""))
    # per-round ratios r/j
    rr = {l[-1]: v for l, v, *_ in rows.get('r', [])}; jj = {l[-1]: v for l, v, *_ in rows.get('j', [])}
    print("per round Raft/jgroups: " + " / ".join(f"{rr[k]/jj[k]:.2f}" for k in sorted(rr) if k in jj))
