# Lead s25: per cell directory, each system's trials (puts/s, p50/p99 ms, CPU µs/put, JIT %) and medians; the ratios of
# issue 25's targets: Raft / jgroups-raft, Raft / unreplicated, Raft / Aeron, CPU and p99 against jgroups-raft.
import csv, glob, os, re, statistics, sys
names = {'r': 'tandem-raft', 'u': 'tandem-unreplicated', 'j': 'jgroups-raft', 'a': 'aeron-cluster', 's': 'sofajraft', 't': 'ratis', 'p': 'tandem-multipaxos', 'm': 'raft (merge)'}
for cell in sys.argv[1:]:
    rows = {}
    for f in sorted(glob.glob(f"{cell}/*/results.csv")):
        label = os.path.basename(os.path.dirname(f)); base = re.sub(r"\d+$", "", label)
        for r in csv.DictReader(open(f)):
            if r['status'] != 'ok': continue
            rows.setdefault(base, []).append((label, float(r["throughput"]), float(r["p50_us"]) / 1000, float(r["p99_us"]) / 1000, float(r["cpu_us_per_op"]), float(r["jit_pct_of_cpu"] or 0)))
    print(f"== {cell}")
    med = {}
    for base, t in sorted(rows.items()):
        med[base] = {k: statistics.median(x[i] for x in t) for i, k in ((1, 'thr'), (2, 'p50'), (3, 'p99'), (4, 'cpu'))}
        m = med[base]
        print(f"  {names.get(base, base):20s} median {m['thr']:9,.0f} p50 {m['p50']:5.2f} p99 {m['p99']:5.2f} ms cpu {m['cpu']:6.1f} us | " + ", ".join(f"{l} {v:,.0f} (JIT {j:.0f} %)" for l, v, _, _, _, j in t))
    for r in [k for k in ('r', 'm') if k in med]:
        out = [f"{names[r]}:"]
        if 'j' in med: out.append(f"/jgroups {med[r]['thr']/med['j']['thr']:.2f}x (CPU {med[r]['cpu']/med['j']['cpu']:.2f}x, p99 {med[r]['p99']/med['j']['p99']:.2f}x)")
        if 'u' in med: out.append(f"/unrepl {med[r]['thr']/med['u']['thr']:.2f}x")
        if 'a' in med: out.append(f"/aeron {med[r]['thr']/med['a']['thr']:.2f}x")
        if 'p' in med: out.append(f"multipaxos/raft {med['p']['thr']/med[r]['thr']:.2f}x")
        print("  " + "  ".join(out))
