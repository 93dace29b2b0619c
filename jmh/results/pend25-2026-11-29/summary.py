# pend25: the A/B table: per trial the tree, puts/s, p99, CPU us/put, JIT % (results.csv) and the leader's execution and
# client I/O threads' and the followers' execution threads' CPU us/put (--profile-window threads CSVs; followers summed),
# then medians per (clients, tree). Usage: summary.py DIR
import csv, glob, re, sys, statistics, collections
d = sys.argv[1]; rows = []
for res in sorted(glob.glob(d + '/*/results.csv')):
    label = res.split('/')[-2]; r = next(csv.DictReader(open(res)))
    th = collections.Counter()
    for f in glob.glob(f'{d}/profile/{label}-*threads.csv'):
        for t in csv.DictReader(open(f)):
            role = 'L' if 'LEADER' in t['jvm'] else ('load' if t['jvm'] == 'load' else 'F')
            name = re.sub(r'-r$', '', re.sub(r'[-#\d]+$', '', t['thread'].strip('"')).replace('tandem-', ''))
            th[(role, name)] += float(t['us_per_put'])
    tree = 'new' if label[0] in 'bp' else 'base'
    rows.append((label, tree, int(label[1:3]) if label[0] != 'p' else 64, float(r['throughput']), float(r['p99_us']) / 1000, float(r['cpu_us_per_op']),
                 float(r['jit_pct_of_cpu']), th[('L', 'exec')], th[('L', 'clients')], th[('F', 'exec')], th[('L', 'loop')]))
print('| trial | tree | puts/s | p99 ms | CPU µs/put | JIT % | leader exec µs/put | leader client I/O µs/put | followers exec µs/put (sum) | leader loop µs/put |')
print('|---|---|---|---|---|---|---|---|---|---|')
order = {l: i for i, l in enumerate([l.split()[0] for l in open(d + '/load.txt') if ' start ' in l])}
for r in sorted(rows, key=lambda r: order.get(r[0], 99)):
    print(f'| {r[0]} | {r[1]} | {r[3]:,.0f} | {r[4]:.2f} | {r[5]:.1f} | {r[6]:.1f} | {r[7]:.2f} | {r[8]:.2f} | {r[9]:.2f} | {r[10]:.2f} |')
print()
print('| cell | tree | trials | puts/s | p99 ms | CPU µs/put | JIT % | leader exec | leader client I/O | followers exec | leader loop |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
for c in (64, 16):
    for tree in ('base', 'new'):
        g = [r for r in rows if r[2] == c and r[1] == tree and not r[0].startswith('p')]
        if not g: continue
        m = lambda i: statistics.median(r[i] for r in g)
        print(f'| {c} clients | {tree} | {len(g)} | {m(3):,.0f} | {m(4):.2f} | {m(5):.1f} | {m(6):.1f} | {m(7):.2f} | {m(8):.2f} | {m(9):.2f} | {m(10):.2f} |')
