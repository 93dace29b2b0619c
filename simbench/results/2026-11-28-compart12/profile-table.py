# compart12: per-replica, acceptor and proxy CPU by message type from the model profiles (tandem.simbench.profile), r-p2-grid24-r24-batchers seed 1
import csv
runs={'main 7dbed94':('simbench/results/2026-11-28-compart12/profile-old-s1.csv',4396940),'merged (52b6897)':('simbench/results/2026-11-28-compart12/profile-new-s1.csv',4168780),'this branch':('simbench/results/2026-11-28-compart12/profile-fixc-s1.csv',4365440)}
def agg(f, role_pred, cnt):
    d={}
    for r in csv.DictReader(open(f)):
        nd=r['node']
        if not role_pred(nd): continue
        k=(r['what'],r['type'] or ('BatchTimer' if r['what']=='recv timer' else ''))
        if k==('recv timer','Frontend$BatchTimer'): k=('recv timer','BatchTimer')
        a=d.setdefault(k,[0.0,0.0]); a[0]+=float(r['count_per_op'])/cnt; a[1]+=float(r['micros_per_op'])/cnt
    return d
for role,pred,cnt in [('replica',lambda n:n.startswith('n') and int(n[1:])>=13,24),('acceptor',lambda n:n.startswith('n') and 5<=int(n[1:])<=12,8),('proxy',lambda n:n in('n3','n4'),2)]:
    ds={k:agg(f,pred,cnt) for k,(f,t) in runs.items()}
    keys=sorted(set().union(*ds.values()), key=lambda k:-ds['this branch'].get(k,[0,0])[1]-ds['main 7dbed94'].get(k,[0,0])[1])
    print(role)
    for k in keys:
        row=[f"{k[0]} {k[1]}".strip()]
        for name,(f,t) in runs.items():
            c,u=ds[name].get(k,[0,0]); row.append(f"{c*t/1000:.1f}k/s, {u*t/1e6*100:.1f} %")
        print(" | ".join(row))
    print("total", [round(sum(v[1] for v in ds[n].values())*t/1e6*100,1) for n,(f,t) in runs.items()])
