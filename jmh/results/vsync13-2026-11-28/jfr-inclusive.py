import sys,re,collections
# inclusive counts of methods from `jfr print --events jdk.ExecutionSample --stack-depth 64`
txt=open(sys.argv[1]).read()
evs=txt.split('jdk.ExecutionSample')[1:]
inc=collections.Counter(); thr=collections.Counter(); n=0
for e in evs:
    m=re.search(r'sampledThread = "([^"]*)"',e)
    t=re.sub(r'\d+','#',m.group(1)) if m else '?'
    thr[t]+=1; n+=1
    frames=set(re.sub(r'\s+line:.*','',l.strip()) for l in e.split('stackTrace = [')[1].split(']')[0].strip().splitlines() if l.strip() and l.strip()!='...')
    for f in frames: inc[f]+=1
print('samples',n); 
for t,c in thr.most_common(): print(f'{c:5d} {100*c/n:5.1f}% thread {t}')
for f,c in inc.most_common(int(sys.argv[2]) if len(sys.argv)>2 else 60): print(f'{c:5d} {100*c/n:5.1f}% {f}')
