# hot24: per-thread CPU (us/put) of the measured windows (--profile-window threads CSVs), grouped by role and thread name.
# Usage: threads.py DIR...   (DIR/profile/*-threads.csv)
import csv, glob, re, sys, collections
keys = [('L', 'loop'), ('L', 'exec'), ('L', 'clients'), ('L', 'tcp'), ('L', 'GC Thread'), ('load', 'kv-clien'), ('F', 'loop'), ('F', 'exec'), ('F', 'tcp')]
print('trial', *[k[0] + ':' + k[1] for k in keys], 'all', sep=' | ')
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d + '/profile/*threads.csv')):
        c = collections.Counter()
        for r in csv.DictReader(open(f)):
            role = 'L' if 'LEADER' in r['jvm'] else ('load' if r['jvm'] == 'load' else 'F')
            t = re.sub(r'-r$', '', re.sub(r'[-#\d]+$', '', r['thread'].strip('"')).replace('tandem-', ''))
            c[(role, t)] += float(r['us_per_put'])
        print(f.split('/')[-1].split('-run1')[0], *[f'{c[k]:.2f}' for k in keys], f'{sum(c.values()):.1f}', sep=' | ')
