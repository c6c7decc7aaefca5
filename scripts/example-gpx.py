#!/usr/bin/env python3
"""Writes Examples/ShopAlerts/ShopWalk.gpx: a walk through Lyon past the example's shops.

One fix per second at 1.4 m/s along straight legs between the shops of
Examples/ShopAlerts/Shops.swift, with two minutes at each shop, starting 600 m south of the first
and ending 600 m north of the last (so every shop is entered and left). Xcode's Simulator plays
the waypoints at their times (docs/ios.md, section 11).
"""
import math
import os
from datetime import datetime, timedelta, timezone

SHOPS = [  # the order of the walk; coordinates as in Shops.swift
    ("books-bellecour", 45.7578, 4.8320),
    ("bakery-rue-neuve", 45.7640, 4.8357),
    ("cafe-terreaux", 45.7675, 4.8336),
    ("market-croix-rousse", 45.7745, 4.8310),
]
SPEED = 1.4  # m/s, walking
PAUSE = 120  # s at each shop
EARTH = 6_371_000.0


def offset(lat, lon, north, east):
    return lat + math.degrees(north / EARTH), lon + math.degrees(east / (EARTH * math.cos(math.radians(lat))))


def distance(a, b):
    north = math.radians(b[0] - a[0]) * EARTH
    east = math.radians(b[1] - a[1]) * EARTH * math.cos(math.radians(a[0]))
    return math.hypot(north, east)


def walk():
    start = offset(SHOPS[0][1], SHOPS[0][2], -600, 0)
    end = offset(SHOPS[-1][1], SHOPS[-1][2], 600, 0)
    stops = [start] + [(lat, lon) for _, lat, lon in SHOPS] + [end]
    points = [stops[0]]
    for index, (a, b) in enumerate(zip(stops, stops[1:])):
        steps = max(1, round(distance(a, b) / SPEED))
        points += [(a[0] + (b[0] - a[0]) * i / steps, a[1] + (b[1] - a[1]) * i / steps) for i in range(1, steps + 1)]
        if index < len(SHOPS):
            points += [b] * PAUSE
    return points


def main():
    t0 = datetime(2026, 5, 4, 9, 0, 0, tzinfo=timezone.utc)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<gpx version="1.1" creator="scripts/example-gpx.py" xmlns="http://www.topografix.com/GPX/1/1">']
    for second, (lat, lon) in enumerate(walk()):
        time = (t0 + timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append(f'  <wpt lat="{lat:.6f}" lon="{lon:.6f}"><time>{time}</time></wpt>')
    lines.append("</gpx>")
    path = os.path.join(os.path.dirname(__file__), "..", "Examples", "ShopAlerts", "ShopWalk.gpx")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    print(f"{path}: {len(lines) - 3} waypoints")


if __name__ == "__main__":
    main()
