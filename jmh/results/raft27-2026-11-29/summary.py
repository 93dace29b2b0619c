# raft27: follow26's summary.py with the leader's client and TCP I/O threads and the load JVM, and the batch proxies.
# Per trial: tree, puts/s, p99, CPU us/put, JIT % (results.csv) and, from the --profile-window threads CSVs, per role
# (F = the two followers, averaged per follower; L = leader) the threads' CPU us/put, kernel us/put and voluntary
# switches per 1000 puts; then medians per tree. Labels are <tree><clients>-<n> (e.g. a64-1, b64-2, i4-64-1).
# Batch proxies: puts per follower TCP wake-up (~ entries per AppendEntries a follower receives) = 1000 / F:tcp switches,
# puts per leader loop wake-up = 1000 / L:loop switches. Usage: summary.py DIR
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
            name = 'C2' if name.startswith('C2') else re.sub(r'-(r\d|clients).*$', '', name.replace('tandem-', '')).rstrip('-') if name.startswith('tandem-') else ('GC' if name.startswith('GC') else 'other')
            us[(role, name)] += float(t['us_per_put']); ker[(role, name)] += float(t.get('kernel_us_per_put') or 0); sw[(role, name)] += float(t['voluntary_switches_per_1000_puts'])
            us[(role, 'all')] += float(t['us_per_put']); ker[(role, 'all')] += float(t.get('kernel_us_per_put') or 0); sw[(role, 'all')] += float(t['voluntary_switches_per_1000_puts'])
    k = max(1, len(nf))
    for key in list(us):
        if key[0] == 'F': us[key] /= k; ker[key] /= k; sw[key] /= k
    tree = re.match(r'([a-z]+\d*?)-?(\d+)-\d+$', label).group(1) if re.match(r'([a-z]+\d*?)-?(\d+)-\d+$', label) else label
    rows.append(dict(label=label, tree=tree, puts=float(r['throughput']), p99=float(r['p99_us']) / 1000, cpu=float(r['cpu_us_per_op']),
                     jit=float(r['jit_pct_of_cpu']), us=us, ker=ker, sw=sw))
cols = [('F', 'all'), ('F', 'loop'), ('F', 'exec'), ('F', 'tcp'), ('L', 'all'), ('L', 'loop'), ('L', 'exec'), ('L', 'clients'), ('L', 'tcp'), ('load', 'all')]
hdr = ' | '.join(f'{r}:{n}' for r, n in cols)
def cell(x, c, m=lambda f: f):
    return f'{x["us"][c]:.2f} ({x["ker"][c]:.2f}) {x["sw"][c]:.1f}'
def prox(x):
    f, l = x['sw'][('F', 'tcp')], x['sw'][('L', 'loop')]
    return f'{1000 / f if f else 0:.0f} / {1000 / l if l else 0:.0f}'
print('Cells: CPU µs/put (kernel µs/put) voluntary switches per 1000 puts; F = per follower, L = leader; proxies = puts per F:tcp wake-up / per L:loop wake-up')
print(f'| trial | tree | puts/s | p99 ms | CPU µs/put | JIT % | {hdr} | proxies |'); print('|' + '---|' * (7 + len(cols)))
order = {l: i for i, l in enumerate([l.split()[0] for l in open(d + '/load.txt') if ' start ' in l])}
for x in sorted(rows, key=lambda x: order.get(x['label'], 99)):
    print(f'| {x["label"]} | {x["tree"]} | {x["puts"]:,.0f} | {x["p99"]:.2f} | {x["cpu"]:.1f} | {x["jit"]:.1f} | ' + ' | '.join(cell(x, c) for c in cols) + f' | {prox(x)} |')
print(); print(f'Medians: | tree | n | puts/s | p99 ms | CPU µs/put | JIT % | {hdr} |'); print('|' + '---|' * (6 + len(cols)))
for tree in sorted({x['tree'] for x in rows}):
    g = [x for x in rows if x['tree'] == tree]
    m = lambda f: statistics.median(f(x) for x in g)
    cells = ' | '.join(f'{m(lambda x: x["us"][cc]):.2f} ({m(lambda x: x["ker"][cc]):.2f}) {m(lambda x: x["sw"][cc]):.1f}' for cc in cols)
    print(f'| {tree} | {len(g)} | {m(lambda x: x["puts"]):,.0f} | {m(lambda x: x["p99"]):.2f} | {m(lambda x: x["cpu"]):.1f} | {m(lambda x: x["jit"]):.1f} | {cells} |')
