"""The history's and the device list's bounded pages against the unbounded walks they replaced
(issue 34 review).

Models SQLiteStore.eventHistory's SQL on 1,000,000 events of one tenant in an in-memory
SQLite (Python's sqlite3): a `kind` filter that matches nothing, 100 a page. The old query
walks every event; the new one examines at most 10,000 (historyScanEvents) and answers an
empty page with a `next`. Then the same for the device list's `prefix` on 1,000,000
devices. Run: python3 scripts/history_scan_bench.py (figures: docs/server.md).
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

# The device list's prefix page: 1,000,000 devices, a prefix that matches none, 100 a page.
db.execute("CREATE TABLE devices (tenant TEXT NOT NULL, id TEXT NOT NULL, last_fix TEXT NOT NULL, last_time REAL NOT NULL, PRIMARY KEY (tenant, id)) WITHOUT ROWID")
db.execute("CREATE INDEX devices_last_seen ON devices (tenant, last_time DESC, id)")
db.executemany("INSERT INTO devices VALUES (?,?,?,?)", (("acme", f"dev-{i}", '{"latitude":31,"longitude":121}', float(i)) for i in range(N)))
db.commit()
old = "SELECT id, last_fix, last_time FROM devices WHERE tenant = ? AND substr(id, 1, length(?)) = ? ORDER BY last_time DESC, id LIMIT 100"
new = """WITH scanned AS (SELECT id, last_fix, last_time FROM devices WHERE tenant = ? ORDER BY last_time DESC, id LIMIT ?)
SELECT c.n, c.lt, c.lid, s.id FROM (SELECT (SELECT count(*) FROM scanned) AS n,
  (SELECT last_time FROM scanned ORDER BY last_time, id DESC LIMIT 1) AS lt,
  (SELECT id FROM scanned ORDER BY last_time, id DESC LIMIT 1) AS lid) AS c
LEFT JOIN (SELECT id, last_fix, last_time FROM scanned WHERE substr(id, 1, length(?)) = ? ORDER BY last_time DESC, id LIMIT 100) AS s ON 1"""
for rep in range(3):
    for name, q, a in [("devices old", old, ("acme", "bus", "bus")), ("devices new", new, ("acme", 10000, "bus", "bus"))]:
        t = time.perf_counter(); r = db.execute(q, a).fetchall(); print(name, len(r), "%.1f ms" % ((time.perf_counter() - t) * 1000))
