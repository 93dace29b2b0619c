# follow26: the A/B table. Per trial: tree, puts/s, p99, CPU us/put, JIT % (results.csv) and, from the --profile-window
# threads CSVs, per role (F = the two followers, averaged per follower; L = leader) the threads' CPU us/put, kernel us/put
# and voluntary switches per 1000 puts; then medians per (clients, tree). Usage: summary.py DIR
import csv, glob, re, sys, statistics, collections
d = sys.argv[1]; rows = []
def role_of(jvm): return 'L' if 'LEADER' in jvm else ('load' if jvm == 'load' else 'F')
for res in sorted(glob.glob(d + '/*/results.csv')):
    label = res.split("/")[-2]; r = next(csv.DictReader(open(res)), None)
    if r is None: continue
    us, ker, sw = collections.Counter(), collections.Counter(), collections.Counter(); nf = set()
    for f in glob.glob(f'{d}/profile/{label}-*threads.csv'):
        for t in csv.DictReader(open(f)):
            role = role_of(t['jvm'])
            if role == 'F': nf.add(t['jvm'])
            name = t['thread'].strip('"')
            name = 'C2' if name.startswith('C2') else re.sub(r'-(r\d|clients).*$', '', name.replace('tandem-', '')) if name.startswith('tandem-') else ('GC' if name.startswith('GC') else 'other')
            us[(role, name)] += float(t['us_per_put']); ker[(role, name)] += float(t.get('kernel_us_per_put') or 0); sw[(role, name)] += float(t['voluntary_switches_per_1000_puts'])
            us[(role, 'all')] += float(t['us_per_put']); ker[(role, 'all')] += float(t.get('kernel_us_per_put') or 0)
    k = max(1, len(nf))
    for key in list(us):
        if key[0] == 'F': us[key] /= k; ker[key] /= k; sw[key] /= k
    tree = 'new' if label[0] == 'b' else 'base'
    rows.append(dict(label=label, tree=tree, clients=int(re.match(r'[ab](\d+)', label).group(1)), puts=float(r['throughput']),
                     p99=float(r['p99_us']) / 1000, cpu=float(r['cpu_us_per_op']), jit=float(r['jit_pct_of_cpu']), us=us, ker=ker, sw=sw))
cols = [('F', 'all'), ('F', 'loop'), ('F', 'exec'), ('F', 'tcp'), ('F', 'disk'), ('L', 'all'), ('L', 'loop'), ('L', 'disk')]
hdr = ' | '.join(f'{r}:{n} µs (kernel) sw' for r, n in cols)
print(f'| trial | tree | puts/s | p99 ms | CPU µs/put | JIT % | {hdr} |'); print('|' + '---|' * (6 + len(cols)))
order = {l: i for i, l in enumerate([l.split()[0] for l in open(d + '/load.txt') if ' start ' in l])}
def cell(x, c): return f'{x["us"][c]:.2f} ({x["ker"][c]:.2f}) {x["sw"][c]:.1f}' if c[1] != 'all' else f'{x["us"][c]:.2f} ({x["ker"][c]:.2f})'
for x in sorted(rows, key=lambda x: order.get(x['label'], 99)):
    print(f'| {x["label"]} | {x["tree"]} | {x["puts"]:,.0f} | {x["p99"]:.2f} | {x["cpu"]:.1f} | {x["jit"]:.1f} | ' + ' | '.join(cell(x, c) for c in cols) + ' |')
print(); print(f'Medians: | cell | tree | n | puts/s | p99 ms | CPU µs/put | JIT % | {hdr} |'); print('|' + '---|' * (7 + len(cols)))
for c in (64, 16):
    for tree in ('base', 'new'):
        g = [x for x in rows if x['clients'] == c and x['tree'] == tree]
        if not g: continue
        m = lambda f: statistics.median(f(x) for x in g)
        cells = ' | '.join((f'{m(lambda x: x["us"][cc]):.2f} ({m(lambda x: x["ker"][cc]):.2f}) {m(lambda x: x["sw"][cc]):.1f}' if cc[1] != 'all' else f'{m(lambda x: x["us"][cc]):.2f} ({m(lambda x: x["ker"][cc]):.2f})') for cc in cols)
        print(f'| {c} clients | {tree} | {len(g)} | {m(lambda x: x["puts"]):,.0f} | {m(lambda x: x["p99"]):.2f} | {m(lambda x: x["cpu"]):.1f} | {m(lambda x: x["jit"]):.1f} | {cells} |')
