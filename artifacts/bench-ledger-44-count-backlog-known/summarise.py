import json,re
D='/work/main/artifacts/bench-ledger-44-count-backlog-known/'
rows={};order=[]
vs=['cte','few2','known']
for v in vs:
  for i in [1,2,3]:
    d=json.load(open(f'{D}pg-{v}-{i}.json'))
    for b in d['benchmarks']:
      n=re.sub(r'/min_warmup_time:[0-9.]+','',b['name']).replace('/manual_time','')
      if n not in rows: rows[n]={}; order.append(n)
      rows[n][f'{v}{i}']=b['real_time']
out=["PostgreSQL count rows, us per count (mean of each run); runs alternated fb2dc2a (-42), f235f80 (-43), this change, three times.",
     "row: -42 x3 | -43 x3 | this x3 | medians -42 / -43 / this"]
for n in order:
  r=rows[n]
  med=lambda v: sorted(r[f'{v}{i}'] for i in [1,2,3])[1]
  out.append(f"{n:40s} "+" | ".join(" ".join(f"{r[f'{v}{i}']:8.1f}" for i in [1,2,3]) for v in vs)+f" | {med('cte'):.0f} / {med('few2'):.0f} / {med('known'):.0f}")
open(D+'summary.txt','w').write("\n".join(out)+"\n")
print("\n".join(out))
