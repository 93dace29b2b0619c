#!/usr/bin/env python3
"""jit25: the A/B table. Per trial: puts/s, CPU us/put, jit_pct_of_cpu, p99 (results.csv); from the JIT logs of the three
replicas: uncommon traps and compiled methods thrown away by a trap ("made not entrant: uncommon trap") after 30 s of uptime up to the window's end,
those of io.tandem methods, and compilations inside the measured window; medians per tree and client count.
Usage: absummary.py OUTDIR"""
import csv, glob, os, re, sys, statistics, datetime
out = sys.argv[1]
def ems(iso): return datetime.datetime.fromisoformat(iso.replace('Z', '+00:00').replace('+0000', '+00:00')).timestamp() * 1e3
rows = []
for d in sorted(glob.glob(os.path.join(out, '*'))):
    label = os.path.basename(d)
    if not os.path.exists(os.path.join(d, 'results.csv')): continue
    r = list(csv.DictReader(open(os.path.join(d, 'results.csv'))))[0]
    tl = list(csv.DictReader(open(glob.glob(os.path.join(d, 'timelines', '*.csv'))[0])))
    wend = int(tl[-1]['epoch_ms']); wbeg = wend - 8000
    traps = nents = ours = wcomp = wtraps = 0
    logs = sorted(glob.glob(os.path.join(out, label + '-jit', 'jit-*.log')))
    # the load JVM is the last to start: the highest pid; replicas are the others
    logs = sorted(logs, key=lambda f: int(re.findall(r'(\d+)\.log', f)[0]))[:-1]
    for f in logs:
        for line in open(f, errors='replace'):
            m = re.match(r'\[([^\]]*)\]\[([\d.]+)s\]\s+(.*)', line)
            if not m: continue
            t = float(m.group(2)); rest = m.group(3); e = ems(m.group(1)); w = wbeg <= e <= wend
            if e > wend: break  # the trial's shutdown: not counted
            if rest.startswith('cid='):
                if t > 30: traps += 1
                wtraps += w
            elif 'made not entrant: uncommon trap' in rest:
                if t > 30:
                    nents += 1
                    if 'io.tandem.' in rest: ours += 1
            elif re.match(r'\d+\s', rest) and 'made not entrant' not in rest:
                wcomp += w
    rows.append((label, float(r['throughput']), float(r['cpu_us_per_op']), float(r['jit_pct_of_cpu']), float(r['p99_us']) / 1e3, int(r['warmup_s']), traps, nents, ours, wcomp, wtraps))
print('| trial | puts/s | CPU us/put | JIT % of window CPU | p99 ms | warm-up s | traps after 30 s | thrown away after 30 s (io.tandem) | compilations in window | traps in window |')
print('|---|---|---|---|---|---|---|---|---|---|')
for x in rows: print(f'| {x[0]} | {x[1]:,.0f} | {x[2]:.1f} | {x[3]:.1f} | {x[4]:.2f} | {x[5]} | {x[6]} | {x[7]} ({x[8]}) | {x[9]} | {x[10]} |')
print()
for cl in ('64', '16'):
    for tree in ('a', 'b'):
        g = [x for x in rows if x[0].startswith(tree + cl)]
        if not g: continue
        med = lambda i: statistics.median(x[i] for x in g)
        print(f'{tree}{cl} ({"main" if tree == "a" else "jit25"}, n={len(g)}): puts/s {med(1):,.0f}, CPU {med(2):.1f} us/put, JIT {med(3):.1f} %, p99 {med(4):.2f} ms, '
              f'traps after 30 s {med(6):.0f}, thrown away {med(7):.0f} ({med(8):.0f} io.tandem), window compilations {med(9):.0f}, window traps {med(10):.0f}')
