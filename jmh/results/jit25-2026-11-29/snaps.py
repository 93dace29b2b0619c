#!/usr/bin/env python3
"""jit25: per trial, the snapshot-time JIT events of io.tandem code. A snapshot is found in each replica's JIT log as a burst of
uncommon traps in NodeStorage/NodeRuntime/ExecutionThread/RaftEngine methods (the first one also traps in maybeTakeSnapshot).
Per burst (traps within 1 s): traps in io.tandem methods, and io.tandem compiled methods thrown away (made not entrant by a trap).
Up to the end of the measured window. Usage: snaps.py OUTDIR"""
import csv, glob, os, re, sys, datetime, collections
out = sys.argv[1]
def ems(iso): return datetime.datetime.fromisoformat(iso.replace('+0000', '+00:00')).timestamp() * 1e3
hot = re.compile(r'io\.tandem\.(storage\.NodeStorage|runtime\.NodeRuntime|runtime\.ExecutionThread|protocols\.raft\.RaftEngine)')
tot = collections.defaultdict(lambda: [0, 0, 0, 0])
for d in sorted(glob.glob(os.path.join(out, '*-jit'))):
    label = os.path.basename(d)[:-4]
    tl = list(csv.DictReader(open(glob.glob(os.path.join(out, label, 'timelines', '*.csv'))[0]))); wend = int(tl[-1]['epoch_ms'])
    logs = sorted(glob.glob(os.path.join(d, 'jit-*.log')), key=lambda f: int(re.findall(r'(\d+)\.log', f)[0]))[:-1]
    line_out = []
    for f in logs:
        bursts = []  # [start_s, traps, thrown]
        for line in open(f, errors='replace'):
            m = re.match(r'\[([^\]]*)\]\[([\d.]+)s\]\s+(.*)', line)
            if not m: continue
            if ems(m.group(1)) > wend: break
            t = float(m.group(2)); rest = m.group(3)
            trap = rest.startswith('cid=') and hot.search(rest)
            thrown = 'made not entrant: uncommon trap' in rest and 'io.tandem.' in rest
            if not (trap or thrown) or t < 20: continue
            if trap and (not bursts or t - bursts[-1][0] > 1.0): bursts.append([t, 0, 0])
            if not bursts: continue
            if trap: bursts[-1][1] += 1
            elif t - bursts[-1][0] <= 1.0: bursts[-1][2] += 1
        line_out.append(' / '.join(f'{b[0]:.1f}s:{b[1]}t,{b[2]}x' for b in bursts))
        for i, b in enumerate(bursts):
            k = label[:3] + (' first burst' if i == 0 else ' later bursts')
            tot[k][0] += 1; tot[k][1] += b[1]; tot[k][2] += b[2]
    print(f'{label}: ' + ' | '.join(line_out))
print()
for k in sorted(tot): n, t, x, _ = tot[k]; print(f'{k}: {n} bursts, {t / n:.1f} traps and {x / n:.1f} thrown-away io.tandem methods per burst')
