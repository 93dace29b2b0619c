#!/usr/bin/env python3
"""Slow-path share and proposals on the wait per phase (healthy / +20 ms pilot), from the scrapes nearest the phases' bounds."""
import csv, os, sys, glob, re, datetime, collections
root, ab = sys.argv[1], sys.argv[2]
sc = os.path.join(root, ab, 'scrape'); stamps = sorted(int(d) for d in os.listdir(sc) if d.isdigit())
def counters(s):
    c = collections.Counter()
    for f in glob.glob(os.path.join(sc, str(s), 'n*.prom')):
        for line in open(f):
            m = re.match(r'tandem_copilot_(commits_total|proposals_total|fast_accept_refused_total)\{.*?(path|trigger|cause)="([^"]+)".*\} ([0-9.eE+]+)$', line.strip())
            if m: c[m.group(1) + ':' + m.group(3)] += float(m.group(4))
    return c, len(glob.glob(os.path.join(sc, str(s), 'n*.prom')))
for lab in ('A', 'B'):
    rows = list(csv.DictReader(open(os.path.join(root, ab, lab, 'timeline.csv'))))
    spans = []; cur = None
    for r in rows:
        ph = r['phase']; t = datetime.datetime.fromisoformat(r['end_time'].replace('Z', '+00:00')).timestamp()
        if ph.endswith(':measure'):
            if cur and cur[0] == ph and cur[2] == t - 1 or (cur and cur[0] == ph and t - cur[2] < 2): cur[2] = t
            else:
                cur = [ph, t - 1, t]; spans.append(cur)
        else: cur = None
    for ph, t0, t1 in spans:
        inside = [s for s in stamps if t0 - 1 <= s <= t1 + 1 and counters(s)[1] == 5]
        if len(inside) < 2: print(lab, ph, 'no scrapes'); continue
        a, b = counters(inside[0])[0], counters(inside[-1])[0]
        d = {k: b[k] - a[k] for k in b}
        f, s = d.get('commits_total:fast', 0), d.get('commits_total:slow', 0)
        pb, pw = d.get('proposals_total:ball', 0), d.get('proposals_total:wait', 0)
        extra = f", proposals on the wait {100*pw/max(1,pb+pw):.1f} %, refusals concurrent-pair {d.get('fast_accept_refused_total:concurrent-pair',0):.0f} stale {d.get('fast_accept_refused_total:stale',0):.0f}" if pb + pw else ''
        print(f"{ab} {lab} {ph} ({inside[-1]-inside[0]} s): slow share {100*s/max(1,f+s):.1f} % of {f+s:.0f} slots{extra}")
