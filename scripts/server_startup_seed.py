#!/usr/bin/env python3
"""Writes stored fix batches straight into a geofence server database, in exactly the format
the server commits them (journal rows as FixJSON.journalText writes them, device rows as
commitFixBatches writes them), for scripts/server-startup.sh. Fast: no HTTP, one transaction
(SQLite) or COPY (PostgreSQL, written to stdout for psql).

Devices walk at 15 m/s through the load generator's box (Shanghai, 30.5-32.5 N,
120.5-122.5 E), one fix a second, accuracy 5-30 m, in batches; the last fix is `end` (Unix
seconds). Seeded: the same arguments give the same rows.

  server_startup_seed.py sqlite PATH TENANT FIXES DEVICES BATCH END
  server_startup_seed.py postgres-journal TENANT FIXES DEVICES BATCH END | psql … COPY journal …
  server_startup_seed.py postgres-devices TENANT FIXES DEVICES BATCH END | psql … COPY devices …
"""
import math
import random
import sqlite3
import sys

REFERENCE = 978307200.0  # 2001-01-01 in Unix seconds (Date's reference date)


def num(x):
    """A number as the server's JSON writer prints it (integral: no fraction)."""
    if x == int(x) and abs(x) < 2**53:
        return str(int(x))
    return repr(x)


def batches(fixes, devices, batch, end):
    """Yields (device, version, journal body, last fix JSON, last Unix time, count), device by device."""
    per = fixes // devices
    start = end - per
    for d in range(devices):
        rng = random.Random(d)
        lat = rng.uniform(30.6, 32.4)
        lon = rng.uniform(120.6, 122.4)
        heading = rng.uniform(0, 2 * math.pi)
        name = f"dev-{d}"
        version = 0
        for b0 in range(0, per, batch):
            items = []
            for i in range(b0, min(per, b0 + batch)):
                heading += rng.uniform(-0.3, 0.3)
                lat += 15 * math.cos(heading) / 111_320
                lon += 15 * math.sin(heading) / (111_320 * math.cos(math.radians(lat)))
                if not 30.5 < lat < 32.5: heading = math.pi - heading; lat = min(32.49, max(30.51, lat))
                if not 120.5 < lon < 122.5: heading = -heading; lon = min(122.49, max(120.51, lon))
                t = start + i + 1
                a = float(rng.randint(5, 30))
                la, lo = round(lat, 6), round(lon, 6)
                items.append(f'{{"a":{num(a)},"la":{num(la)},"lo":{num(lo)},"t":{num(t - REFERENCE)}}}')
            version += 1
            body = f'{{"device":"{name}","fixes":[{",".join(items)}]}}'
            last = f'{{"horizontalAccuracy":{num(a)},"latitude":{num(la)},"longitude":{num(lo)},"timestamp":{num(t)}}}'
            yield name, version, body, last, float(t), len(items)


def copy_text(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main():
    mode = sys.argv[1]
    if mode == "sqlite":
        path, tenant, fixes, devices, batch, end = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("BEGIN")
        devices_rows = {}
        def rows():
            for name, version, body, last, t, n in batches(fixes, devices, batch, end):
                c = devices_rows.get(name, (None, 0, 0))[1]
                devices_rows[name] = (last, c + n, t)
                yield (tenant, body)
        db.executemany("INSERT INTO journal (tenant, kind, body) VALUES (?, 'fixes', ?)", rows())
        db.executemany(
            "INSERT INTO devices (tenant, id, last_fix, last_time, fix_count, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            ((tenant, name, last, t, c, end) for name, (last, c, t) in devices_rows.items()))
        db.commit()
        db.close()
        return
    tenant, fixes, devices, batch, end = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    out = sys.stdout
    if mode == "postgres-journal":
        # COPY journal (tenant, kind, device, device_version, body)
        for name, version, body, last, t, n in batches(fixes, devices, batch, end):
            out.write(f"{tenant}\tfixes\t{name}\t{version}\t{copy_text(body)}\n")
    elif mode == "postgres-devices":
        # COPY devices (tenant, id, last_fix, last_time, fix_count, version, updated_at)
        state = {}
        for name, version, body, last, t, n in batches(fixes, devices, batch, end):
            c = state.get(name, (None, 0, 0, 0))[1]
            state[name] = (last, c + n, t, version)
        for name, (last, c, t, version) in state.items():
            out.write(f"{tenant}\t{name}\t{copy_text(last)}\t{t}\t{c}\t{version}\t{end}\n")
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
