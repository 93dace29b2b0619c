# Per point: the runs of each system in matrix.txt (two passes), their mean (= median of two), ratio T/J.
import re, collections
runs = collections.defaultdict(list)
for line in open('matrix.txt'):
    m = re.match(r'^(tandem-ordered|jgroups-sequencer),(\d+),(\d+),(\d+),', line)
    if m: runs[(m.group(1), int(m.group(2)), int(m.group(3)))].append(int(m.group(4)))
for n in (2, 3, 4, 5):
    for p in (64, 1024):
        t = runs[('tandem-ordered', n, p)]; j = runs[('jgroups-sequencer', n, p)]
        tm = sum(t) / len(t); jm = sum(j) / len(j)
        per = ' / '.join('%.2f' % (a / b) if b else 'inf' for a, b in zip(t, j))
        print('%d %5d  T %s  J %s  T %.0f J %.0f  ratio %s  (per pass %s)' % (n, p, t, j, tm, jm, '%.2fx' % (tm / jm) if jm else 'inf', per))
