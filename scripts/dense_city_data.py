#!/usr/bin/env python3
"""The dense city: seeded inputs for scripts/bench-dense-city.sh (issue 35).

  regions.geojson   N circles (default 100,000) of radius 50-500 m, uniform over a
                    50 km x 50 km box centred on 48.0 N, 11.0 E: pi * E[r^2] * N / area
                    = 11.6 circles over an average point
  track.csv         one car, M fixes (default 10,000,000) at 1 Hz, 15 m per fix,
                    wandering (heading a random walk) and reflected at the box's edges,
                    with correlated GPS noise (about 4 m) and its accuracy
  tracks/NNN.csv    with --tracks K: K more cars of --track-fixes fixes each (default
                    50,000), each its own seed, all starting at the same time (a fleet
                    replay)

The same arguments always give the same files (numpy's PCG64, seed 35).
Usage: dense_city_data.py OUTDIR [--regions N] [--fixes M] [--tracks K] [--track-fixes F]
"""
import argparse
import json
import math
import os
from datetime import datetime, timezone

import numpy as np

LAT0, LON0 = 48.0, 11.0
HALF = 25_000.0  # metres: a 50 km x 50 km box
KY = 111_200.0  # metres per degree of latitude (close enough at 48 N)
KX = KY * math.cos(math.radians(LAT0))
STEP = 15.0  # metres per fix
T0 = int(datetime(2026, 6, 1, tzinfo=timezone.utc).timestamp())
CHUNK = 1_000_000


def write_regions(path, count, rng):
    e = rng.uniform(-HALF, HALF, count)
    n = rng.uniform(-HALF, HALF, count)
    r = rng.uniform(50, 500, count)
    with open(path, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i in range(count):
            lat, lon = LAT0 + n[i] / KY, LON0 + e[i] / KX
            sep = "," if i else ""
            f.write(f'{sep}{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{lon:.7f},{lat:.7f}]}},'
                    f'"properties":{{"id":"c{i}","radius":{r[i]:.1f}}}}}\n')
        f.write("]}\n")


def reflect(v):
    """Folds unbounded coordinates into [-0.95 HALF, 0.95 HALF] like a mirror (steps keep
    their length)."""
    h = 0.95 * HALF
    w = np.mod(v + h, 4 * h)
    return np.where(w < 2 * h, w, 4 * h - w) - h


def noise(rng, m, state):
    """Correlated GPS noise (AR(1), 30 s time constant, about 4 m), carried over chunks."""
    phi = math.exp(-1 / 30)
    q = 4.0 * math.sqrt(1 - phi * phi)
    w = rng.normal(0, q, m)
    out = np.empty(m)
    # An AR(1) filter in closed form: out[i] = phi^i * state + sum_k phi^(i-k) w[k],
    # computed in blocks of 256 to keep the powers of phi well away from underflow.
    block = 256
    powers = phi ** np.arange(block)
    for s in range(0, m, block):
        b = w[s:s + block]
        k = len(b)
        p = powers[:k]
        acc = np.cumsum(b / p) * p
        out[s:s + k] = acc + state * phi * p
        state = out[s + k - 1]
    return out, state


def write_track(path, fixes, rng, start=(0.0, 0.0)):
    x, y = start
    heading = rng.uniform(0, 2 * math.pi)
    nx = ny = 0.0
    done = 0
    with open(path, "w") as f:
        f.write("time,latitude,longitude,accuracy,speed\n")
        while done < fixes:
            m = min(CHUNK, fixes - done)
            headings = heading + np.cumsum(rng.normal(0, 0.05, m))
            heading = headings[-1]
            xs = x + np.cumsum(STEP * np.sin(headings))
            ys = y + np.cumsum(STEP * np.cos(headings))
            x, y = xs[-1], ys[-1]
            ex, nx = noise(rng, m, nx)
            ey, ny = noise(rng, m, ny)
            lat = LAT0 + (reflect(ys) + ey) / KY
            lon = LON0 + (reflect(xs) + ex) / KX
            acc = np.round(np.hypot(ex, ey) + 3.0, 1)
            times = T0 + done + np.arange(m)
            iso = np.datetime_as_string(times.astype("datetime64[s]"), unit="s")
            f.write("".join(f"{iso[i]}Z,{lat[i]:.7f},{lon[i]:.7f},{acc[i]:.1f},{STEP:.1f}\n" for i in range(m)))
            done += m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--regions", type=int, default=100_000)
    ap.add_argument("--fixes", type=int, default=10_000_000)
    ap.add_argument("--tracks", type=int, default=0)
    ap.add_argument("--track-fixes", type=int, default=50_000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(35)
    write_regions(os.path.join(a.out, "regions.geojson"), a.regions, rng)
    if a.fixes > 0:
        write_track(os.path.join(a.out, "track.csv"), a.fixes, rng)
    if a.tracks > 0:
        os.makedirs(os.path.join(a.out, "tracks"), exist_ok=True)
        for k in range(a.tracks):
            fleet = np.random.default_rng([35, k])
            start = tuple(fleet.uniform(-0.9 * HALF, 0.9 * HALF, 2))
            write_track(os.path.join(a.out, "tracks", f"{k:03d}.csv"), a.track_fixes, fleet, start)


if __name__ == "__main__":
    main()
