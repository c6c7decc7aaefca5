#!/usr/bin/env python3
"""Generate the bundled demo data of `geofence demo` (seeded, deterministic).

Writes into Sources/GeofenceCLI/Resources/Demo/:

  low-bridge.geojson   bridges on a truck route: a warning circle at each bridge and one a
                       mile (1,609 m) before it along the road, with clearance metadata
  low-bridge.gpx       a tall truck's drive toward the low railway bridge (1 Hz, GPX 1.1)
  shops.geojson        shops along a high street, circles of 60-110 m with push messages
  shops.csv            a walk past the shops (1 Hz, CSV with accuracy, speed, course)
  shanghai.geojson     the classic 2,000 m region at 31.239394, 121.499781
  shanghai.nmea        the classic demo's three simulated locations (NMEA RMC + GGA)
  provinces.geojson    two provinces side by side (tier parents), cities inside them, a
                       district inside one city, and a business's shops along the road
                       (source "acme"): the tiers of `geofence device`
  border-drive.csv     a drive east across the province border (1 Hz, CSV)

The places are plausible but the data is synthetic: road geometry, clearances and shops are
made up for the demo. GPS error: a Gauss-Markov (correlated) offset per axis, white noise on
top, now and then a jump of 100-300 m for a few fixes, and reported accuracy values that
mostly match the error but sometimes lie.

Usage: python3 scripts/generate_demo_data.py [--out DIR]
"""
import argparse
import json
import math
import os
from datetime import datetime, timedelta, timezone

import numpy as np

SEED = 20260611
A_WGS84 = 6378137.0
E2_WGS84 = 0.00669437999014132
MILE = 1609.344


class LocalFrame:
    """East / north metres around an origin (ellipsoidal radii of curvature; fine for a few km)."""

    def __init__(self, lat, lon):
        self.lat, self.lon = lat, lon
        phi = math.radians(lat)
        w = 1 - E2_WGS84 * math.sin(phi) ** 2
        n = A_WGS84 / math.sqrt(w)
        m = A_WGS84 * (1 - E2_WGS84) / (w * math.sqrt(w))
        self.kx = n * math.cos(phi) * math.pi / 180  # metres per degree of longitude
        self.ky = m * math.pi / 180                  # metres per degree of latitude

    def to_geo(self, e, n):
        return self.lat + n / self.ky, self.lon + e / self.kx

    def to_local(self, lat, lon):
        return (lon - self.lon) * self.kx, (lat - self.lat) * self.ky


# ---------------------------------------------------------------- movement and GPS error


def polyline_lengths(pts):
    seg = np.hypot(np.diff(pts[:, 0]), np.diff(pts[:, 1]))
    return np.concatenate([[0.0], np.cumsum(seg)])


def point_at(pts, cum, s):
    s = min(max(s, 0.0), cum[-1])
    i = int(np.searchsorted(cum, s, side="right") - 1)
    i = min(i, len(pts) - 2)
    t = (s - cum[i]) / max(cum[i + 1] - cum[i], 1e-9)
    p = pts[i] + t * (pts[i + 1] - pts[i])
    d = pts[i + 1] - pts[i]
    course = (math.degrees(math.atan2(d[0], d[1])) + 360) % 360
    return p, course


def drive(pts, speed_limits, rng, dt=1.0, accel=1.2, decel=1.8, stops=()):
    """Integrates a vehicle along `pts`: target speed per segment, bounded acceleration,
    slowing for corners and `stops` (arc lengths where it halts for `seconds`)."""
    pts = np.asarray(pts, float)
    cum = polyline_lengths(pts)
    total = cum[-1]
    # Corner speed limits: slower for sharper turns.
    corner = []
    for i in range(1, len(pts) - 1):
        a, b = pts[i] - pts[i - 1], pts[i + 1] - pts[i]
        ang = abs(math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], a @ b)))
        if ang > 20:
            corner.append((cum[i], max(3.0, 14.0 - ang / 8)))
    stop_list = sorted(stops)
    s, v, t = 0.0, 0.0, 0.0
    out = []
    stop_i, waiting = 0, 0.0
    while s < total - 0.5:
        seg = min(int(np.searchsorted(cum, s, side="right") - 1), len(speed_limits) - 1)
        target = speed_limits[seg] * (1 + 0.04 * math.sin(t / 23.0))
        for c_s, c_v in corner:  # brake ahead of corners
            ahead = c_s - s
            if 0 <= ahead < 120:
                target = min(target, math.sqrt(c_v ** 2 + 2 * decel * ahead * 0.6))
        if stop_i < len(stop_list):
            st_s, st_wait = stop_list[stop_i]
            ahead = st_s - s
            if ahead <= 0.5:
                if waiting < st_wait:
                    waiting += dt
                    target, v = 0.0, 0.0
                else:
                    stop_i, waiting = stop_i + 1, 0.0
            elif ahead < 150:
                target = min(target, math.sqrt(2 * decel * ahead * 0.7))
        ahead_end = total - s
        target = min(target, math.sqrt(2 * decel * max(ahead_end, 0) * 0.8) + 0.5)
        if v < target:
            v = min(target, v + accel * dt)
        else:
            v = max(target, v - decel * dt)
        p, course = point_at(pts, cum, s)
        out.append((t, p[0], p[1], v, course))
        s += v * dt
        t += dt
        if t > 36000:
            raise RuntimeError("vehicle never arrived")
    p, course = point_at(pts, cum, total)
    out.append((t, p[0], p[1], 0.0, course))
    return out


def walk(pts, rng, dt=1.0, pace=1.35, pauses=()):
    """A pedestrian: speed wanders around `pace`, pauses at given arc lengths."""
    pts = np.asarray(pts, float)
    cum = polyline_lengths(pts)
    s, t, out = 0.0, 0.0, []
    pause_list = sorted(pauses)
    pi, waited = 0, 0.0
    v = pace
    while s < cum[-1]:
        v = float(np.clip(v + rng.normal(0, 0.08), 0.9, 1.8))
        speed = v
        if pi < len(pause_list) and s >= pause_list[pi][0]:
            if waited < pause_list[pi][1]:
                waited += dt
                speed = 0.0
            else:
                pi, waited = pi + 1, 0.0
        p, course = point_at(pts, cum, s)
        out.append((t, p[0], p[1], speed, course))
        s += speed * dt
        t += dt
    return out


def gps_error(n, rng, sigma=4.0, tau=30.0, white=1.5, jump_rate=1 / 900, dt=1.0):
    """Correlated GPS error (first-order Gauss-Markov, std `sigma`, time constant `tau`),
    white noise, occasional 100-300 m jumps for 1-4 fixes. Returns (dx, dy, accuracy)."""
    phi = math.exp(-dt / tau)
    q = sigma * math.sqrt(1 - phi * phi)
    dx = np.zeros(n)
    dy = np.zeros(n)
    ex, ey = rng.normal(0, sigma, 2)
    jump_left, jx, jy = 0, 0.0, 0.0
    acc = np.zeros(n)
    for i in range(n):
        ex = phi * ex + rng.normal(0, q)
        ey = phi * ey + rng.normal(0, q)
        wx, wy = rng.normal(0, white, 2)
        if jump_left == 0 and rng.random() < jump_rate:
            jump_left = int(rng.integers(1, 5))
            d = rng.uniform(100, 300)
            a = rng.uniform(0, 2 * math.pi)
            jx, jy = d * math.sin(a), d * math.cos(a)
        if jump_left > 0:
            jump_left -= 1
            dx[i], dy[i] = ex + wx + jx, ey + wy + jy
            # Half of the jumps lie about their accuracy.
            acc[i] = rng.uniform(4, 8) if rng.random() < 0.5 else math.hypot(jx, jy) * rng.uniform(0.8, 1.3)
        else:
            dx[i], dy[i] = ex + wx, ey + wy
            acc[i] = max(3.0, math.hypot(ex, ey) * rng.uniform(0.9, 1.6) + rng.uniform(1, 3))
    return dx, dy, np.round(acc, 1)


def noisy_fixes(frame, samples, start, rng, **err):
    n = len(samples)
    dx, dy, acc = gps_error(n, rng, **err)
    fixes = []
    for i, (t, e, nn, v, course) in enumerate(samples):
        lat, lon = frame.to_geo(e + dx[i], nn + dy[i])
        fixes.append({
            "time": start + timedelta(seconds=float(t)),
            "lat": round(lat, 7), "lon": round(lon, 7),
            "acc": float(acc[i]),
            "speed": round(max(0.0, v + rng.normal(0, 0.15)), 2),
            "course": round(course, 1),
        })
    return fixes


# ---------------------------------------------------------------- writers


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_geojson(path, features):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, ensure_ascii=False, indent=1)
        f.write("\n")


def circle_feature(rid, lat, lon, radius, **props):
    p = {"id": rid, "radius": radius}
    p.update(props)
    return {"type": "Feature", "id": rid, "geometry": {"type": "Point", "coordinates": [round(lon, 7), round(lat, 7)]},
            "properties": p}


def write_gpx(path, name, fixes):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<gpx version="1.1" creator="geofence scripts/generate_demo_data.py" '
             'xmlns="http://www.topografix.com/GPX/1/1">',
             f'  <trk><name>{name}</name><trkseg>']
    for f in fixes:
        hdop = max(0.5, f["acc"] / 5.0)
        lines.append(f'    <trkpt lat="{f["lat"]:.7f}" lon="{f["lon"]:.7f}"><ele>{f.get("ele", 95.0):.1f}</ele>'
                     f'<time>{iso(f["time"])}</time><hdop>{hdop:.1f}</hdop>'
                     f'<extensions><accuracy>{f["acc"]:.1f}</accuracy><speed>{f["speed"]:.2f}</speed>'
                     f'<course>{f["course"]:.1f}</course></extensions></trkpt>')
    lines += ['  </trkseg></trk>', '</gpx>']
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def write_csv(path, fixes):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("time,latitude,longitude,accuracy,speed,course\n")
        for f in fixes:
            fh.write(f'{iso(f["time"])},{f["lat"]:.7f},{f["lon"]:.7f},{f["acc"]:.1f},{f["speed"]:.2f},{f["course"]:.1f}\n')


def nmea_sentence(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return f"${body}*{c:02X}"


def nmea_latlon(lat, lon):
    la, lo = abs(lat), abs(lon)
    lat_s = f"{int(la):02d}{(la - int(la)) * 60:07.4f}"
    lon_s = f"{int(lo):03d}{(lo - int(lo)) * 60:07.4f}"
    return lat_s, "N" if lat >= 0 else "S", lon_s, "E" if lon >= 0 else "W"


def write_nmea(path, fixes):
    out = []
    for f in fixes:
        t = f["time"]
        hms = t.strftime("%H%M%S") + ".00"
        date = t.strftime("%d%m%y")
        la, ns, lo, ew = nmea_latlon(f["lat"], f["lon"])
        knots = f["speed"] / 0.514444
        hdop = max(0.5, f["acc"] / 5.0)
        out.append(nmea_sentence(f"GPGGA,{hms},{la},{ns},{lo},{ew},1,09,{hdop:.1f},12.0,M,9.0,M,,"))
        out.append(nmea_sentence(f"GPRMC,{hms},A,{la},{ns},{lo},{ew},{knots:.1f},{f['course']:.1f},{date},,,A"))
    with open(path, "w", encoding="ascii") as fh:
        fh.write("\r\n".join(out) + "\r\n")


# ---------------------------------------------------------------- scenarios


def feet_inches(metres):
    inches = round(metres / 0.0254)
    return f"{inches // 12}′{inches % 12}″"


def low_bridge(out, rng):
    """A tall truck heads south on a long arterial road toward a low railway underpass.
    It passes under a high road bridge, gets the one-mile warning, then the bridge warning,
    and turns off on the last side street before the bridge (the detour)."""
    frame = LocalFrame(35.99420, -78.90650)   # origin: the low bridge (a Durham-like street grid)
    # Road centre line, east/north metres from the low bridge; the road bends twice.
    road = [(-2150, 5200), (-1850, 4600), (-1200, 3900), (-600, 3300), (-250, 2600),
            (-120, 1800), (-60, 900), (0, 250), (0, 0), (0, -400)]
    road = np.array(road, float)
    cum = polyline_lengths(road)
    s_low = cum[8]                     # arc length of the low bridge
    # The detour: the truck leaves the arterial 70 m before the bridge, heading west.
    s_turn = s_low - 70
    turn_pt, _ = point_at(road, cum, s_turn)
    route = [tuple(p) for p, c in zip(road, cum) if c < s_turn] + [tuple(turn_pt),
                                                                   (turn_pt[0] - 25, turn_pt[1] + 5),
                                                                   (turn_pt[0] - 700, turn_pt[1] + 30)]
    limits = [15.6, 15.6, 15.6, 13.4, 13.4, 13.4, 11.2, 8.0, 6.0, 6.0, 6.0, 11.0]
    samples = drive(route, limits, rng, stops=[(cum[4] + 200, 35)])   # a red light
    start = datetime(2026, 6, 11, 14, 5, 0, tzinfo=timezone.utc)
    fixes = noisy_fixes(frame, samples, start, rng, sigma=4.0, tau=40.0, white=1.2, jump_rate=1 / 600)
    write_gpx(os.path.join(out, "low-bridge.gpx"), "Truck 7: delivery run, northbound approach", fixes)

    bridges = [
        # (id, name, arc length on the road, clearance m, on-route?)
        ("bridge-peabody-rr", "Norfolk & Pacific rail trestle", s_low, 3.20),
        ("bridge-hwy147", "Durham Freeway overpass", cum[2] + 300, 4.72),
        ("bridge-pettigrew-rr", "Pettigrew Street rail bridge", cum[5] + 350, 4.27),
    ]
    features = []
    for bid, name, s_b, clearance in bridges:
        p, _ = point_at(road, cum, s_b)
        lat, lon = frame.to_geo(*p)
        label = feet_inches(clearance)
        common = {"name": name, "clearance_m": clearance, "clearance_label": label, "bridge": bid}
        features.append(circle_feature(bid, lat, lon, 300, kind="bridge",
                                       message=f"Low bridge ahead: {label} clearance", **common))
        q, _ = point_at(road, cum, s_b - MILE)
        lat2, lon2 = frame.to_geo(*q)
        features.append(circle_feature(f"{bid}-1mi", lat2, lon2, 250, kind="bridge-approach",
                                       notifyOnExit=False, lead_m=round(MILE, 1),
                                       message=f"Low bridge in 1 mile: {label} clearance", **common))
    write_geojson(os.path.join(out, "low-bridge.geojson"), features)
    return len(fixes)


def shops(out, rng):
    """A walk along a high street past five shops; the walker stops in the bakery."""
    frame = LocalFrame(51.51490, -0.13980)    # a London-like high street
    path = [(-650, -40), (-300, -10), (0, 0), (320, 15), (330, 120), (600, 140), (900, 160)]
    path_arr = np.array(path, float)
    cum = polyline_lengths(path_arr)
    shop_list = [
        ("shop-coffee", "Bean There", -420, -2, 70, "☕ Bean There: your flat white is 2-for-1 until 11:00"),
        ("shop-books", "Chapter & Verse", -80, -22, 70, "📚 Chapter & Verse: the book you saved is in stock"),
        ("shop-bakery", "Crumb", 250, 32, 70, "🥐 Crumb: fresh croissants just out of the oven"),
        ("shop-florist", "Petal Post", 345, 70, 70, "💐 Petal Post: 20% off tulips today"),
        ("shop-market", "Corner Market", 760, 110, 110, "🛒 Corner Market: your order is ready for collection"),
        ("shop-cinema", "Electric Cinema", 120, 420, 60, "🎬 Electric Cinema: tonight's screening has seats"),
    ]
    # Radii: a shop passed on the street is 20 m from the walker's path; with walking fixes
    # of about +-8 m the engine needs 20 m + 2 x 8 m past the boundary, held by four fixes,
    # and a region at least (20 + 2 x 8) / 0.8 = 45 m for `precise` to decide at all
    # (docs/semantics.md). Android recommends 100-150 m; 70 m is the smallest that keeps every visit.
    feats = []
    for sid, name, e, n, radius, msg in shop_list:
        lat, lon = frame.to_geo(e, n)
        feats.append(circle_feature(sid, lat, lon, radius, name=name, message=msg,
                                    exitMessage=f"Thanks for visiting {name}!", kind="shop",
                                    dwell=120 if sid == "shop-bakery" else None))
    for f in feats:
        if f["properties"].get("dwell") is None:
            del f["properties"]["dwell"]
    write_geojson(os.path.join(out, "shops.geojson"), feats)
    samples = walk(path_arr, rng, pauses=[(cum[2] + 250, 240)])
    start = datetime(2026, 6, 11, 9, 30, 0, tzinfo=timezone.utc)
    fixes = noisy_fixes(frame, samples, start, rng, sigma=5.0, tau=25.0, white=2.0, jump_rate=1 / 700)
    write_csv(os.path.join(out, "shops.csv"), fixes)
    return len(fixes)


def shanghai(out, rng):
    """The classic Core Location region-monitoring demo: a 2,000 m region on the Bund, and the
    simulator switching between three locations: outside (north), inside, outside (south)."""
    center = (31.239394, 121.499781)
    write_geojson(os.path.join(out, "shanghai.geojson"), [
        circle_feature("shanghai", center[0], center[1], 2000, name="The Bund, Shanghai",
                       message="Welcome to Shanghai!", exitMessage="Goodbye, Shanghai!")])
    frame = LocalFrame(*center)
    stops = [(31.259394, 121.499781, 60), (31.240394, 121.499781, 90), (31.219394, 121.499781, 60)]
    start = datetime(2026, 6, 11, 2, 0, 0, tzinfo=timezone.utc)
    fixes = []
    t = 0
    for lat, lon, seconds in stops:
        e, n = frame.to_local(lat, lon)
        dx, dy, acc = gps_error(seconds // 5, rng, sigma=3.0, tau=30.0, white=1.0, jump_rate=0, dt=5.0)
        for i in range(seconds // 5):  # one fix every 5 s while the simulator holds the location
            la, lo = frame.to_geo(e + dx[i], n + dy[i])
            fixes.append({"time": start + timedelta(seconds=t), "lat": round(la, 7), "lon": round(lo, 7),
                          "acc": float(acc[i]), "speed": 0.0, "course": 0.0})
            t += 5
    write_nmea(os.path.join(out, "shanghai.nmea"), fixes)
    return len(fixes)


def provinces(out, rng):
    """Two provinces (polygons) with cities (3 km circles) well inside them, a district inside
    one city, and shops of one business on the road; a car drives east across the border."""
    frame = LocalFrame(52.30, 5.50)          # origin: the border, half-way up
    def square(rid, lon0, lon1, **props):
        ring = [[lon0, 52.0], [lon1, 52.0], [lon1, 52.6], [lon0, 52.6], [lon0, 52.0]]
        p = {"id": rid}
        p.update(props)
        return {"type": "Feature", "id": rid, "geometry": {"type": "Polygon", "coordinates": [ring]}, "properties": p}
    feats = [square("province-west", 4.5, 5.5, name="West", source="gov"),
             square("province-east", 5.5, 6.5, name="East", source="gov")]
    cities = [("city-westhaven", -30000, 0, "province-west"), ("city-lowmoor", -12000, 1500, "province-west"),
              ("city-eastbrook", 15000, -1200, "province-east"), ("city-highfield", 33000, 800, "province-east")]
    for cid, e, n, parent in cities:
        lat, lon = frame.to_geo(e, n)
        feats.append(circle_feature(cid, lat, lon, 3000, name=cid.split("-")[1].title(), parent=parent,
                                    source="gov", initialTrigger=["enter"]))
    lat, lon = frame.to_geo(15400, -1000)
    feats.append(circle_feature("district-old-town", lat, lon, 700, name="Old Town", parent="city-eastbrook", source="gov"))
    road = np.array([(-36000, 0), (-12000, 1200), (0, 0), (15000, -900), (40000, 0)], float)
    cum = polyline_lengths(road)
    fuel_at = [14000, 31000, 44000, 62000]            # arc lengths; the car stops at the third
    for i, s_fuel in enumerate(fuel_at):
        (e, n), _ = point_at(road, cum, s_fuel)
        lat, lon = frame.to_geo(e + 120, n + 60)
        feats.append(circle_feature(f"fuel-{i + 1}", lat, lon, 400, name=f"Fuel stop {i + 1}", source="acme", dwell=60))
    write_geojson(os.path.join(out, "provinces.geojson"), feats)
    samples = drive(road, [27.0, 25.0, 27.0, 25.0], rng, stops=[(fuel_at[2], 150)])
    start = datetime(2026, 6, 11, 7, 0, 0, tzinfo=timezone.utc)
    fixes = noisy_fixes(frame, samples, start, rng, sigma=4.0, tau=40.0, white=1.2, jump_rate=0)
    write_csv(os.path.join(out, "border-drive.csv"), fixes)
    return len(fixes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "Sources", "GeofenceCLI", "Resources", "Demo"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    n1 = low_bridge(args.out, rng)
    n2 = shops(args.out, rng)
    n3 = shanghai(args.out, rng)
    n4 = provinces(args.out, np.random.default_rng(SEED + 4))   # its own stream: the others stay as they were
    print(f"low bridge: {n1} fixes, shops: {n2} fixes, shanghai: {n3} fixes, border drive: {n4} fixes"
          f" -> {os.path.normpath(args.out)}")


if __name__ == "__main__":
    main()
