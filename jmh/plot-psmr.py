#!/usr/bin/env python3
"""Plots of the P-SMR measurements (issue 20): Mode E (measured, 2 workers) and Mode S (modelled, 1-16 workers).
Usage: python3 jmh/plot-psmr.py MODE_E_CSV MODE_S_CSV OUT_DIR   (needs matplotlib)"""
import csv, sys, collections
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))

e, s, out = sys.argv[1], sys.argv[2], sys.argv[3]

# Mode E: ratio to sequential against the dependent share, K=1 and K=2.
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for tech, k, style in [("psmr", "2", "o-"), ("opt-psmr", "2", "s-"), ("psmr", "1", "o:"), ("opt-psmr", "1", "s:")]:
    pts = sorted((int(r["dep_pct"]), float(r["ratio_to_smr_median"])) for r in rows(e) if r["technique"] == tech and r["K"] == k)
    shares = [p[0] for p in pts]
    ax.plot(range(len(pts)), [p[1] for p in pts], style, label=f"{'opt-P-SMR' if tech == 'opt-psmr' else 'P-SMR'}, {k} worker{'s' if k != '1' else ''}")
ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="sequential SMR")
ax.set_xticks(range(len(shares)), [str(x) for x in shares])
ax.set_xlabel("dependent commands (%)")
ax.set_ylabel("throughput / sequential (median of 5 rounds)")
ax.set_title("Mode E, measured: execution only, 1M-key B+-tree, 2-core VM")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{out}/psmr-mode-e.png", dpi=110)

# Mode S: throughput against workers, one panel per dependent share.
data = collections.defaultdict(dict)
for r in rows(s):
    if r["technique"] in ("smr", "psmr", "opt-psmr"):
        data[(r["technique"], int(r["dep_pct"]))][int(r["K"])] = float(r["model_kcps"])
deps = sorted({d for (_, d) in data})
fig, axes = plt.subplots(1, len(deps), figsize=(3.0 * len(deps), 3.4), sharey=False)
for ax, d in zip(axes, deps):
    for tech, style, name in [("psmr", "o-", "P-SMR"), ("opt-psmr", "s-", "opt-P-SMR")]:
        pts = sorted(data[(tech, d)].items())
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=name)
    smr = data[("smr", d)].get(1)
    if smr:
        ax.axhline(smr, color="grey", lw=0.8, ls="--", label="SMR")
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 2, 4, 8, 16], ["1", "2", "4", "8", "16"])
    ax.set_title(f"{d} % dependent", fontsize=9)
    ax.set_xlabel("workers")
axes[0].set_ylabel("modelled kcommands/s")
axes[0].legend(fontsize=7)
fig.suptitle("Mode S, modelled (barrier 14.8 µs, calibrated from Mode E)", fontsize=10)
fig.tight_layout()
fig.savefig(f"{out}/psmr-mode-s.png", dpi=110)
