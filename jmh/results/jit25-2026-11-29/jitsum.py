#!/usr/bin/env python3
"""jit25: what the JIT did in each trial of a trials.sh output directory.
Per trial: throughput, CPU/put and jit_pct_of_cpu (results.csv); per JVM the window's compiler-thread CPU (profile/*-threads.csv);
with the `jit` option also the window's compilations from the JFR cut of each replica (jdk.Compilation: count, summed duration,
the costliest methods) and deoptimizations (jdk.Deoptimization), and from the -Xlog JIT log compilations and uncommon traps per 5 s
of JVM uptime. Usage: jitsum.py OUTDIR [top]"""
import csv, glob, json, os, re, subprocess, sys, collections

out = sys.argv[1]; top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
JFR = '/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr'

def results(label):
    f = os.path.join(out, label, 'results.csv')
    if not os.path.exists(f): return None
    rows = list(csv.DictReader(open(f)))
    return rows[0] if rows else None

def threads(label):
    jit = collections.defaultdict(float); tot = collections.defaultdict(float)
    for f in glob.glob(os.path.join(out, 'profile', label + '-*threads.csv')):
        for r in csv.DictReader(open(f)):
            tot[r['jvm']] += float(r['cpu_s'])
            if 'CompilerThre' in r['thread']: jit[r['jvm']] += float(r['cpu_s'])
    return jit, tot

def jfr_events(path, name):
    try:
        j = subprocess.run([JFR, 'print', '--json', '--events', name, path], capture_output=True, text=True, timeout=120).stdout
        return json.loads(j)['recording']['events']
    except Exception as e:
        return []

def dur_ms(d):  # ISO-8601 duration "PT0.012345S"
    m = re.match(r'PT(?:(\d+)M)?([\d.]+)S', d or '')
    return (int(m.group(1) or 0) * 60 + float(m.group(2))) * 1e3 if m else 0.0

def meth(m):
    return (m.get('type', {}).get('name', '?') + '::' + m.get('name', '?')) if isinstance(m, dict) else str(m)

import datetime
def window(label):
    """The measured window in epoch ms: the timeline's last `measure` (8) seconds."""
    f = glob.glob(os.path.join(out, label, 'timelines', '*.csv'))
    if not f: return None
    rows = list(csv.DictReader(open(f[0])))
    end = int(rows[-1]['epoch_ms']); return (end - 8000, end)

def epoch_ms(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00").replace("+0000", "+00:00")).timestamp() * 1e3

labels = sorted({os.path.basename(d) for d in glob.glob(os.path.join(out, '*')) if os.path.isdir(d) and os.path.exists(os.path.join(d, 'results.csv'))})
for label in labels:
    r = results(label)
    print(f"== {label}: {r['throughput']} puts/s, {r['cpu_us_per_op']} us/put, p99 {r['p99_us']} us, warm-up {r['warmup_s']} s, jit_pct_of_cpu {r['jit_pct_of_cpu']}")
    jit, tot = threads(label)
    print('   window compiler-thread CPU s (of the JVM\'s): ' + ', '.join(f"{k} {jit[k]:.2f}/{tot[k]:.2f}" for k in sorted(tot)))
    for f in sorted(glob.glob(os.path.join(out, 'profile', label + '-*-r*.jfr'))):
        w = window(label)
        inw = lambda e: w is None or w[0] <= epoch_ms(e['values']['startTime']) <= w[1]
        comps = [e for e in jfr_events(f, 'jdk.Compilation') if inw(e)]; deopts = [e for e in jfr_events(f, 'jdk.Deoptimization') if inw(e)]
        by = collections.defaultdict(lambda: [0, 0.0, set()])
        total = 0.0
        for e in comps:
            v = e['values']; d = dur_ms(v.get('duration')); total += d
            k = meth(v.get('method')); by[k][0] += 1; by[k][1] += d; by[k][2].add(str(v.get('compileLevel')) + ('osr' if v.get('isOsr') else ''))
        lv = collections.Counter(str(e['values'].get('compileLevel')) for e in comps)
        print(f"   {os.path.basename(f)} (window only): {len(comps)} compilations, {total:.0f} ms summed (levels {dict(lv)}), {len(deopts)} deopts")
        for k, (n, d, levels) in sorted(by.items(), key=lambda x: -x[1][1])[:top]:
            print(f"      {d:7.1f} ms  {n}x  L{'/'.join(sorted(levels))}  {k}")
        dk = collections.Counter(f"{meth(e['values'].get('method'))} {e['values'].get('reason')} {e['values'].get('action')}" for e in deopts)
        for k, n in dk.most_common(top): print(f"      deopt {n}x {k}")
    for f in sorted(glob.glob(os.path.join(out, label + '-jit', 'jit-*.log'))):
        comp = collections.Counter(); traps = collections.Counter(); wc = wt = 0; wup = []
        w = window(label)
        for line in open(f, errors='replace'):
            m = re.match(r'\[([^\]]*)\]\[([\d.]+)s\]\s+(.*)', line)
            if not m: continue
            t = float(m.group(2)); b = int(t // 5) * 5; rest = m.group(3)
            inwin = w is not None and w[0] <= epoch_ms(m.group(1)) <= w[1]
            if inwin: wup.append(t)
            if rest.startswith('cid=') or 'Uncommon trap' in rest: traps[b] += 1; wt += inwin
            elif re.match(r'\d+\s', rest) and 'made not entrant' not in rest: comp[b] += 1; wc += inwin
        print(f"   {os.path.basename(f)} window (uptime {min(wup, default=0):.1f}-{max(wup, default=0):.1f} s): {wc} compilations, {wt} traps")
        print(f"   {os.path.basename(f)} compilations/5s: " + ' '.join(f"{b}:{comp[b]}" for b in sorted(comp)) + " | traps/5s: " + ' '.join(f"{b}:{traps[b]}" for b in sorted(traps)))
