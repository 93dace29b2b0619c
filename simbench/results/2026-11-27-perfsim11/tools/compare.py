#!/usr/bin/env python3
"""Per-thread CPU per op, real (profile-window of the quiet runs) against the model's stages (SimValidation --stages).
Usage: compare.py REALDIR MODEL.txt. Real I/O = client I/O + peer I/O threads; the model's leader is its node with the most I/O."""
import csv, glob, re, sys
real_dir, model_txt = sys.argv[1], sys.argv[2]
def group(t):
    t = t.strip('"')
    for p, g in (("tandem-loop", "LOOP"), ("tandem-exec", "EXEC"), ("tandem-disk", "DISK"), ("tandem-tcp", "IO"),
                 ("tandem-clients", "IO"), ("tandem-kv-clien", "IO")):
        if t.startswith(p): return g
    return None
model = {}
for line in open(model_txt):
    m = re.match(r"\s*model CPU us/op by stage, (\d+) clients, (\S+): (.*)", line)
    if not m: continue
    vals = {}
    toks = m.group(3).split()
    for k, v in zip(toks[::2], toks[1::2]): vals[k] = float(v)
    model[(m.group(1), m.group(2))] = vals
print("%-3s %-20s %-9s | %-34s | %-34s" % ("c", "system", "node", "real LOOP EXEC DISK IO (turns)", "model LOOP EXEC DISK IO"))
for c in ("1", "16", "64"):
    for s in ("tandem-raft", "tandem-multipaxos", "tandem-unreplicated"):
        fs = glob.glob(f"{real_dir}/profile-{c}-{s}/*-threads.csv")
        if not fs or (c, s) not in model: continue
        real = {}
        for row in csv.DictReader(open(fs[0])):
            g = group(row["thread"])
            if not g: continue
            node = "client" if row["jvm"] == "load" else ("leader" if "LEADER" in row["jvm"] else "follower:" + row["jvm"])
            real.setdefault(node, {}).setdefault(g, 0.0)
            real[node][g] += float(row["us_per_put"])
        mv = model[(c, s)]
        nodes = sorted({k.split("/")[0] for k in mv if k.split("/")[0] != "client" and "/" in k})
        leader = max(nodes, key=lambda n: mv.get(n + "/IO", 0))
        mnode = {"leader": leader, "client": "client"}
        followers_real = sorted(n for n in real if n.startswith("follower"))
        followers_model = [n for n in nodes if n != leader]
        for fr, fm in zip(followers_real, followers_model): mnode[fr] = fm
        for node in ["leader"] + followers_real + ["client"]:
            r = real.get(node, {}); mn = mnode.get(node)
            rs = " ".join("%5.2f" % r.get(g, 0) for g in ("LOOP", "EXEC", "DISK", "IO")) if node != "client" else " " * 18 + "%5.2f" % r.get("IO", 0)
            ms = " ".join("%5.2f" % mv.get(f"{mn}/{g}", 0) for g in ("LOOP", "EXEC", "DISK", "IO")) if node != "client" else " " * 18 + "%5.2f" % mv.get("client/IO", 0)
            rt = sum(r.values()); mt = sum(mv.get(f"{mn}/{g}", 0) for g in ("LOOP", "EXEC", "DISK", "IO"))
            print("%-3s %-20s %-9s | %s  =%6.1f | %s  =%6.1f" % (c, s, node.split("-")[0], rs, rt, ms, mt))
