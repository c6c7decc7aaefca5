#!/usr/bin/env python3
"""Big, seeded inputs for scripts/bench-simulate.sh.

  regions.geojson  N circles (default 100,000) of radius 50-500 m, uniform over a
                   200 km x 200 km box centred on 48.0 N, 11.0 E
  track.csv        one vehicle, M fixes (default 10,000,000) at 1 Hz, ISO 8601 times,
                   driving a wandering route at 8-30 m/s that stays in the box, with
                   correlated GPS noise and accuracy values

Usage: bench_simulate_data.py OUTDIR [--regions N] [--fixes M]
"""
import argparse
import json
import math
import os
from datetime import datetime, timezone

import numpy as np

LAT0, LON0 = 48.0, 11.0
HALF = 100_000.0  # metres
KY = 111_200.0
KX = KY * math.cos(math.radians(LAT0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--regions", type=int, default=100_000)
    ap.add_argument("--fixes", type=int, default=10_000_000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)

    e = rng.uniform(-HALF, HALF, a.regions)
    n = rng.uniform(-HALF, HALF, a.regions)
    r = rng.uniform(50, 500, a.regions)
    with open(os.path.join(a.out, "regions.geojson"), "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i in range(a.regions):
            lat, lon = LAT0 + n[i] / KY, LON0 + e[i] / KX
            sep = "," if i else ""
            f.write(f'{sep}{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{lon:.7f},{lat:.7f}]}},'
                    f'"properties":{{"id":"c{i}","radius":{r[i]:.1f}}}}}\n')
        f.write("]}\n")

    t0 = int(datetime(2026, 6, 1, tzinfo=timezone.utc).timestamp())
    chunk = 1_000_000
    x, y, heading, speed = 0.0, 0.0, 0.0, 15.0
    ex = ey = 0.0
    phi = math.exp(-1 / 30)
    q = 4.0 * math.sqrt(1 - phi * phi)
    with open(os.path.join(a.out, "track.csv"), "w") as f:
        f.write("time,latitude,longitude,accuracy,speed\n")
        done = 0
        while done < a.fixes:
            m = min(chunk, a.fixes - done)
            dh = rng.normal(0, 0.03, m)
            dv = rng.normal(0, 0.2, m)
            xs = np.empty(m); ys = np.empty(m); vs = np.empty(m)
            exs = np.empty(m); eys = np.empty(m)
            wx = rng.normal(0, q, m); wy = rng.normal(0, q, m)
            for i in range(m):
                heading += dh[i]
                speed = min(30.0, max(8.0, speed + dv[i]))
                x += speed * math.sin(heading)
                y += speed * math.cos(heading)
                if abs(x) > HALF * 0.95 or abs(y) > HALF * 0.95:
                    heading += math.pi  # turn back into the box
                    x = max(-HALF * 0.95, min(HALF * 0.95, x))
                    y = max(-HALF * 0.95, min(HALF * 0.95, y))
                ex = phi * ex + wx[i]; ey = phi * ey + wy[i]
                xs[i] = x; ys[i] = y; vs[i] = speed; exs[i] = ex; eys[i] = ey
            lat = LAT0 + (ys + eys) / KY
            lon = LON0 + (xs + exs) / KX
            acc = np.round(np.hypot(exs, eys) + 3.0, 1)
            times = t0 + done + np.arange(m)
            iso = np.datetime_as_string(times.astype("datetime64[s]"), unit="s")
            lines = [f"{iso[i]}Z,{lat[i]:.7f},{lon[i]:.7f},{acc[i]:.1f},{vs[i]:.1f}\n" for i in range(m)]
            f.write("".join(lines))
            done += m


if __name__ == "__main__":
    main()
