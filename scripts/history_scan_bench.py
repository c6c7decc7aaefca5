"""The history page's bounded scan against the unbounded one it replaced (issue 34 review).

Models SQLiteStore.eventHistory's SQL on 1,000,000 events of one tenant in an in-memory
SQLite (Python's sqlite3): a `kind` filter that matches nothing, 100 a page. The old query
walks every event; the new one examines at most 10,000 (historyScanEvents) and answers an
empty page with a `next`. Run: python3 scripts/history_scan_bench.py (figures: docs/server.md).
"""
import sqlite3, json, time, random
db=sqlite3.connect(':memory:')
db.execute("CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, event_id TEXT NOT NULL UNIQUE, device TEXT NOT NULL, body TEXT NOT NULL, created_at REAL NOT NULL)")
db.execute("CREATE INDEX outbox_tenant ON outbox (tenant, id)")
N=1_000_000
rows=[]
for i in range(N):
    d=f"dev-{i%1000}"
    body=json.dumps({"id":f"e{i}","event":"enter" if i%2 else "exit","device":d,"region":f"r{i%5000}","time":"2026-11-%02dT10:00:00Z"%(1+i*27//N),"latitude":31.0,"longitude":121.0,"crossedAt":"2026-11-01T10:00:00Z"})
    rows.append(("acme",f"e{i}",d,body,0.0))
db.executemany("INSERT INTO outbox (tenant,event_id,device,body,created_at) VALUES (?,?,?,?,?)",rows)
db.commit()
old="SELECT id, body FROM outbox WHERE tenant=? AND json_extract(body,'$.event')=? ORDER BY id DESC LIMIT 100"
new="""WITH scanned AS (SELECT id, body FROM outbox WHERE tenant = ? ORDER BY id DESC LIMIT ?)
SELECT c.n, c.low, s.id, s.body FROM (SELECT count(*) AS n, min(id) AS low FROM scanned) AS c LEFT JOIN (SELECT id, body FROM scanned WHERE json_extract(body,'$.event') = ? ORDER BY id DESC LIMIT 100) AS s ON 1 ORDER BY s.id DESC"""
for rep in range(3):
  for name,q,a in [("old",old,("acme","dwell")),("new",new,("acme",10000,"dwell"))]:
    t=time.perf_counter(); r=db.execute(q,a).fetchall(); print(name, len(r), "%.1f ms"%((time.perf_counter()-t)*1000))
