#!/usr/bin/env python3
"""Per-command costs from a scrape directory (scrape.sh) split into runs by runs.txt (ab.sh) or *.start/*.end (diag.sh).
Deltas from each run's first to last scrape, per node, summed over the nodes present in both."""
import os, re, sys, glob, collections
root = sys.argv[1]
sc = os.path.join(root, 'scrape')
stamps = sorted(int(d) for d in os.listdir(sc) if d.isdigit())
runs = []
if os.path.exists(os.path.join(root, 'runs.txt')):
    starts = {}
    for line in open(os.path.join(root, 'runs.txt')):
        lab, t = line.split()[:2]
        if lab.endswith('-end'): runs.append((lab[:-4], starts[lab[:-4]], int(t)))
        else: starts[lab] = int(t)
else:
    for f in sorted(glob.glob(os.path.join(root, '*.start'))):
        lab = os.path.basename(f)[:-6]
        runs.append((lab, int(open(f).read()), int(open(os.path.join(root, lab + '.end')).read())))
metric = re.compile(r'^([a-z_]+)(\{[^}]*\})? ([0-9.eE+-]+)$')
def prom(path):
    out = collections.Counter()
    for line in open(path):
        m = metric.match(line.strip())
        if not m: continue
        name, tags, val = m.group(1), m.group(2) or '', float(m.group(3))
        if 'quantile' in tags: continue
        key = name
        for t in ('path', 'trigger', 'kind', 'reason', 'cause'):
            mm = re.search(t + r'="([^"]*)"', tags)
            if mm: key += '{' + mm.group(1) + '}'
        out[key] += val
    return out
def threads(path):
    out = collections.defaultdict(collections.Counter)
    for line in open(path):
        p = line.split()
        if len(p) != 4: continue
        pid, port, comm, ticks = p
        kind = re.sub(r'[-_]?n?\d.*$', '', comm)
        if comm.startswith('tandem-'): kind = '-'.join(comm.split('-')[:2])
        out[port][kind] += int(ticks); out[port]['total'] += int(ticks)
    return out
for lab, t0, t1 in runs:
    inside = [s for s in stamps if t0 <= s <= t1]
    full = [s for s in inside if len(glob.glob(os.path.join(sc, str(s), 'n*.prom'))) >= 4]
    if len(full) < 2: print(lab, 'too few scrapes'); continue
    a, b = full[0], full[-1]
    tot = collections.Counter()
    nodes = [f for f in glob.glob(os.path.join(sc, str(b), 'n*.prom')) if os.path.exists(os.path.join(sc, str(a), os.path.basename(f)))]
    N = len(nodes)
    for f in nodes:
        n = os.path.basename(f)
        pa, pb = prom(os.path.join(sc, str(a), n)), prom(f)
        for k in pb: tot[k] += pb[k] - pa.get(k, 0)
    ta, tb = threads(os.path.join(sc, str(a), 'threads.txt')), threads(os.path.join(sc, str(b), 'threads.txt'))
    cpu = collections.Counter()
    for port in tb:
        for k in tb[port]: cpu[k] += tb[port][k] - ta.get(port, {}).get(k, 0)
    cmds = tot['tandem_exec_applied_total'] / 5
    print(f"== {lab} ({N} nodes scraped): {b-a} s between scrapes, {cmds:.0f} commands executed per node ({cmds/(b-a):.0f}/s)")
    print(f"  per command per node: bytes written {tot['tandem_storage_appended_bytes_total']/N/cmds:.0f}, fsyncs {tot['tandem_storage_sync_seconds_count']/N/cmds:.3f}"
          f" (mean fsync {1000*tot['tandem_storage_sync_seconds_sum']/max(1,tot['tandem_storage_sync_seconds_count']):.2f} ms), frames sent {tot['tandem_transport_frames_sent_total']/N/cmds:.2f}")
    print(f"  CPU ticks (10 ms) per 1k commands, all nodes: " + ', '.join(f"{k} {1000*v/cmds:.1f}" for k, v in cpu.most_common(8)))
    keys = [k for k in sorted(tot) if k.startswith('tandem_copilot_') and ('commits' in k or 'proposals' in k or 'balls' in k or 'slow_path' in k or 'refused' in k or 'takeovers' in k or 'abandoned' in k)]
    print('  ' + ', '.join(f"{k.replace('tandem_copilot_','').replace('_total','')} {tot[k]:.0f}" for k in keys))
    f, s = tot.get('tandem_copilot_commits_total{fast}', 0), tot.get('tandem_copilot_commits_total{slow}', 0)
    if f + s: print(f"  slow-path share {100*s/(f+s):.1f} % of {f+s:.0f} own slots; commands per slot {2*cmds/(f+s):.1f}")
