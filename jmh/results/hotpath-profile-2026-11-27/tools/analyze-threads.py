#!/usr/bin/env python3
"""Per thread group: CPU ms and context switches per 1000 puts between two sampler snapshots inside the measured window."""
import sys, re, csv, collections, glob, os
d = sys.argv[1]; warm = int(sys.argv[2]) if len(sys.argv) > 2 else 15
rows = collections.defaultdict(dict)  # ts -> key -> (ut+st, v, nv)
meta = {}
for line in open(f'{d}/threads.txt'):
    ts, pid, sysn, kind, tid, name, ut, st, v, nv = line.split()
    rows[float(ts)][(sysn, kind, pid, tid)] = (name, int(ut) + int(st), int(v), int(nv))
times = sorted(rows)
for tl in sorted(glob.glob(f'{d}/timelines/*.csv')):
    m = re.match(r'run(\d+)-(.*)-(tandem-[a-z-]+|jgroups-raft|ratis|sofajraft|aeron-cluster)\.csv', os.path.basename(tl))
    sysn = m.group(3); trial = os.path.basename(tl)[:-4]
    tr = list(csv.DictReader(open(tl)))
    sec = {int(r['second']): (int(r['epoch_ms']) / 1000, int(r['ops'])) for r in tr}
    if warm + 1 not in sec: continue
    lo, hi = sec[warm + 1][0] - 1, sec[max(sec)][0]
    inside = [t for t in times if lo <= t <= hi and any(k[0] == sysn for k in rows[t])]
    if len(inside) < 2: print(trial, 'fewer than 2 samples inside'); continue
    a, b = inside[0], inside[-1]
    # puts between a and b: seconds whose end (epoch) lies in (a, b]
    puts = sum(ops for s, (e, ops) in sec.items() if a < e <= b)
    span = b - a
    print(f'== {trial}: {span:.1f} s between samples, {puts} puts ({puts/span:,.0f}/s)')
    groups = collections.defaultdict(lambda: [0, 0, 0])
    for k, (name, cpu, v, nv) in rows[b].items():
        if k[0] != sysn or k not in rows[a]: continue
        _, cpu0, v0, nv0 = rows[a][k]
        g = (k[1], re.sub(r'\d+', '#', name))
        groups[g][0] += cpu - cpu0; groups[g][1] += v - v0; groups[g][2] += nv - nv0
    tot = collections.defaultdict(lambda: [0, 0, 0])
    print(f'{"jvm":10} {"thread":28} {"cpu ms/1k puts":>15} {"vol cs/put":>11} {"invol cs/put":>13}')
    for g, (cpu, v, nv) in sorted(groups.items(), key=lambda x: (x[0][0], -x[1][0])):
        for t in (tot[g[0]], tot['ALL']):
            t[0] += cpu; t[1] += v; t[2] += nv
        if cpu == 0 and v < puts * 0.01: continue
        print(f'{g[0]:10} {g[1]:28} {cpu*10/puts*1000:15.1f} {v/puts:11.3f} {nv/puts:13.3f}')
    for j, (cpu, v, nv) in sorted(tot.items()):
        print(f'{j:10} {"TOTAL":28} {cpu*10/puts*1000:15.1f} {v/puts:11.3f} {nv/puts:13.3f}')
