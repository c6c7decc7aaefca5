#!/usr/bin/env python3
"""The clustered drive: seeded inputs for `geofence simulate --power` on a catalogue too dense
for 20 slots (issue 32, docs/power.md "Your own catalogue").

  regions.geojson   200,000 circles of 50-2,000 m: 20 cities of 1,500 circles (35 centred
                    within 150 m of the city centre, radii 300-2,000 m; the rest within 6 km,
                    radii 50 + 1,950 u^3 m, so most are small), and 170,000 over
                    1,000 km x 600 km; with --sharp-edges each city's circles lie wholly
                    within its 6 km disc
  track.csv         one car through the 20 city centres (a zig-zag of about 450 km) at
                    about 28 m/s (+-25 %, never above 36 m/s), one fix a second, correlated
                    GPS noise (sigma 3 m) and a claimed accuracy of +-10 m

The same design as the planner tests' clustered drive (Tests/RegionPlannerTests/
DriveScenarios.swift), with its own random numbers: the figures are of the same kind, not
the same. The same arguments always give the same files (Python's random, seed 32).
Usage: clustered_drive_data.py OUTDIR [--sharp-edges]
"""
import argparse
import math
import os
import random
import time

LAT0, LON0 = 47.0, 8.0
KY = 111_200.0  # metres per degree of latitude (close enough here)
T0 = 1_760_000_000
CITIES = [(20_000 + i * 19_000, 294_000 if i % 2 == 0 else 306_000) for i in range(20)]


def coordinate(east, north):
    """A local frame's metres as latitude and longitude (east scaled at the point's latitude)."""
    lat = LAT0 + north / KY
    return lat, LON0 + east / (KY * math.cos(math.radians(lat)))


def circles(rng, sharp_edges):
    for c, (ce, cn) in enumerate(CITIES):
        for j in range(1_500):
            core = j < 35
            u = rng.random()
            a = rng.uniform(0, 2 * math.pi)
            radius = rng.uniform(300, 2_000) if core else 50 + 1_950 * rng.random() ** 3
            reach = 6_000 - radius if sharp_edges else 6_000
            d = 150 * u if core else reach * math.sqrt(u)
            yield f"c{c}-{j}", ce + d * math.sin(a), cn + d * math.cos(a), radius
    for i in range(170_000):
        yield f"u{i}", rng.uniform(-100_000, 900_000), rng.uniform(0, 600_000), rng.uniform(50, 2_000)


def write_regions(path, rng, sharp_edges):
    with open(path, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for k, (name, east, north, radius) in enumerate(circles(rng, sharp_edges)):
            lat, lon = coordinate(east, north)
            sep = "," if k else ""
            f.write(f'{sep}{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{lon:.7f},{lat:.7f}]}},'
                    f'"properties":{{"id":"{name}","radius":{radius:.1f}}}}}\n')
        f.write("]}\n")


def write_track(path, rng):
    points = [(0.0, 300_000.0)] + CITIES
    rho, sigma = 0.95, 3.0
    ex = ey = 0.0
    t = 0
    with open(path, "w") as f:
        f.write("time,latitude,longitude,accuracy\n")
        for (ax, ay), (bx, by) in zip(points, points[1:]):
            leg = math.hypot(bx - ax, by - ay)
            s = 0.0
            while s < leg:
                x = ax + (bx - ax) * s / leg
                y = ay + (by - ay) * s / leg
                ex = rho * ex + math.sqrt(1 - rho * rho) * sigma * rng.gauss(0, 1)
                ey = rho * ey + math.sqrt(1 - rho * rho) * sigma * rng.gauss(0, 1)
                lat, lon = coordinate(x + ex, y + ey)
                f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(T0 + t))},{lat:.7f},{lon:.7f},10\n")
                s += min(36.0, 28.0 * rng.uniform(0.75, 1.25))
                t += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sharp-edges", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(32)
    write_regions(os.path.join(a.out, "regions.geojson"), rng, a.sharp_edges)
    write_track(os.path.join(a.out, "track.csv"), rng)


if __name__ == "__main__":
    main()
