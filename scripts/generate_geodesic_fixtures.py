#!/usr/bin/env python3
"""Generate the geodesic reference fixtures used by Tests/GeodesyTests.

Reference values come from GeographicLib's Python port (pip install geographiclib), which
implements Karney (2013) with full double-precision accuracy (errors below 15 nm).
The generator is seeded, so running it again reproduces the committed files exactly:

    pip install geographiclib==2.1
    python3 scripts/generate_geodesic_fixtures.py

Output (CSV, one case per line, '#' lines are comments):
  Tests/GeodesyTests/Fixtures/inverse.csv  kind,lat1,lon1,lat2,lon2,s12,azi1,azi2
  Tests/GeodesyTests/Fixtures/direct.csv   kind,lat1,lon1,azi1,s12,lat2,lon2,azi2
Angles in degrees, distances in metres, values as Python repr (round-trip exact).
"""
import os
import random

import geographiclib
from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84
SEED = 20131  # Karney 2013
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "GeodesyTests", "Fixtures")


def r10(x):
    """Round inputs to 10 decimals to keep the file small (outputs keep full precision)."""
    return round(x, 10)


def rand_lat(rng):
    # Uniform on the sphere (area), in degrees.
    import math
    return r10(math.degrees(math.asin(rng.uniform(-1, 1))))


def rand_lon(rng):
    return r10(rng.uniform(-180, 180))


def antipode(lat, lon):
    return -lat, (lon + 180 if lon <= 0 else lon - 180)


def inverse_cases(rng):
    cases = []

    def add(kind, lat1, lon1, lat2, lon2):
        cases.append((kind, lat1, lon1, lat2, lon2))

    for _ in range(700):
        add("random", rand_lat(rng), rand_lon(rng), rand_lat(rng), rand_lon(rng))
    # Nearly antipodal: perturb the antipode by 1e-9 .. 1 degree.
    for _ in range(350):
        lat1, lon1 = rand_lat(rng), rand_lon(rng)
        alat, alon = antipode(lat1, lon1)
        d = 10 ** rng.uniform(-9, 0)
        lat2 = max(-90, min(90, r10(alat + rng.uniform(-d, d))))
        lon2 = r10(alon + rng.uniform(-d, d))
        add("antipodal", lat1, lon1, lat2, lon2)
    # Equatorial pairs, including ones whose shortest path leaves the equator (lon12 > 179.4).
    for i in range(150):
        lon1 = rand_lon(rng)
        dl = rng.uniform(-180, 180) if i % 2 == 0 else rng.choice([-1, 1]) * rng.uniform(179, 180)
        add("equatorial", 0.0, lon1, 0.0, r10(lon1 + dl))
    # Meridional: same meridian, or opposite meridians (over a pole).
    for i in range(150):
        lon1 = rand_lon(rng)
        lon2 = lon1 if i % 2 == 0 else r10(lon1 + 180 if lon1 <= 0 else lon1 - 180)
        add("meridional", rand_lat(rng), lon1, rand_lat(rng), lon2)
    # Polar: a pole or within 1e-6 .. 1 degree of one.
    for i in range(200):
        if i % 3 == 0:
            lat1 = rng.choice([-90.0, 90.0])
        else:
            lat1 = r10(rng.choice([-1, 1]) * (90 - 10 ** rng.uniform(-6, 0)))
        lat2 = rand_lat(rng) if i % 2 == 0 else r10(rng.choice([-1, 1]) * (90 - 10 ** rng.uniform(-6, 0)))
        add("polar", lat1, rand_lon(rng), lat2, rand_lon(rng))
    # Coincident points.
    for _ in range(50):
        lat, lon = rand_lat(rng), rand_lon(rng)
        add("coincident", lat, lon, lat, lon)
    # Sub-metre separations: the second point lies 1e-6 .. 1 m away.
    for _ in range(200):
        lat1, lon1 = rand_lat(rng), rand_lon(rng)
        p = G.Direct(lat1, lon1, rng.uniform(-180, 180), 10 ** rng.uniform(-6, 0))
        add("submetre", lat1, lon1, p["lat2"], p["lon2"])
    # Antimeridian crossings: both points within a few degrees of ±180 on opposite sides.
    for _ in range(200):
        add("antimeridian", rand_lat(rng), r10(180 - rng.uniform(0, 5)),
            rand_lat(rng), r10(-180 + rng.uniform(0, 5)))
    # The geofencing range: 1 m .. 100 km.
    for _ in range(300):
        lat1, lon1 = rand_lat(rng), rand_lon(rng)
        p = G.Direct(lat1, lon1, rng.uniform(-180, 180), 10 ** rng.uniform(0, 5))
        add("short", lat1, lon1, r10(p["lat2"]), r10(p["lon2"]))
    return cases


def direct_cases(rng):
    cases = []

    def add(kind, lat1, lon1, azi1, s12):
        cases.append((kind, lat1, lon1, azi1, s12))

    def rand_az():
        return r10(rng.uniform(-180, 180))

    for _ in range(800):
        add("random", rand_lat(rng), rand_lon(rng), rand_az(), r10(rng.uniform(0, 20_003_931)))
    for _ in range(200):   # beyond half the meridian, and several times round
        add("long", rand_lat(rng), rand_lon(rng), rand_az(), r10(rng.uniform(20_003_931, 1e8)))
    for _ in range(200):   # backwards
        add("negative", rand_lat(rng), rand_lon(rng), rand_az(), r10(-rng.uniform(0, 2e7)))
    for i in range(150):   # along the equator, or starting on it
        az = rng.choice([90.0, -90.0]) if i % 2 == 0 else rand_az()
        add("equatorial", 0.0, rand_lon(rng), az, r10(rng.uniform(0, 4e7)))
    for _ in range(150):   # along a meridian
        add("meridional", rand_lat(rng), rand_lon(rng), rng.choice([0.0, 180.0, -180.0]),
            r10(rng.uniform(0, 4e7)))
    for i in range(200):   # from a pole or near one
        lat1 = rng.choice([-90.0, 90.0]) if i % 2 == 0 else \
            r10(rng.choice([-1, 1]) * (90 - 10 ** rng.uniform(-6, 0)))
        add("polar", lat1, rand_lon(rng), rand_az(), r10(rng.uniform(0, 2e7)))
    for _ in range(50):
        add("zero", rand_lat(rng), rand_lon(rng), rand_az(), 0.0)
    for _ in range(200):
        add("submetre", rand_lat(rng), rand_lon(rng), rand_az(), 10 ** rng.uniform(-6, 0))
    for _ in range(150):   # eastwards or westwards across ±180
        lat1 = rand_lat(rng)
        east = rng.random() < 0.5
        lon1 = r10(180 - rng.uniform(0, 2)) if east else r10(-180 + rng.uniform(0, 2))
        add("antimeridian", lat1, lon1, r10((90 if east else -90) + rng.uniform(-60, 60)),
            r10(rng.uniform(1e5, 1e6)))
    for _ in range(300):
        add("short", rand_lat(rng), rand_lon(rng), rand_az(), r10(10 ** rng.uniform(0, 5)))
    return cases


def main():
    rng = random.Random(SEED)
    os.makedirs(OUT, exist_ok=True)
    header = "# generated by scripts/generate_geodesic_fixtures.py with geographiclib %s, WGS84\n" % geographiclib.__version__
    inv = inverse_cases(rng)
    with open(os.path.join(OUT, "inverse.csv"), "w") as f:
        f.write(header)
        f.write("# kind,lat1,lon1,lat2,lon2,s12,azi1,azi2\n")
        for kind, lat1, lon1, lat2, lon2 in inv:
            r = G.Inverse(lat1, lon1, lat2, lon2)
            f.write(",".join([kind] + [repr(float(v)) for v in
                                       (lat1, lon1, lat2, lon2, r["s12"], r["azi1"], r["azi2"])]) + "\n")
    dire = direct_cases(rng)
    with open(os.path.join(OUT, "direct.csv"), "w") as f:
        f.write(header)
        f.write("# kind,lat1,lon1,azi1,s12,lat2,lon2,azi2\n")
        for kind, lat1, lon1, azi1, s12 in dire:
            r = G.Direct(lat1, lon1, azi1, s12)
            f.write(",".join([kind] + [repr(float(v)) for v in
                                       (lat1, lon1, azi1, s12, r["lat2"], r["lon2"], r["azi2"])]) + "\n")
    print("inverse cases:", len(inv), "direct cases:", len(dire))


if __name__ == "__main__":
    main()
