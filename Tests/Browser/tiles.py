"""The base map: a local tile server (127.0.0.1) whose every tile is one colour that encodes its
z, x and y, and a `geofence serve` configured with its XYZ template. The checks read back
screenshot pixels: the right tile at the right place at three zooms, on both sides of the
antimeridian, the highest zoom's tiles scaled past it, tiles served again from the browser's
cache, and the page working with the tile server down. The Content-Security-Policy allows the
tile host and no other.
"""
import http.server
import json
import math
import os
import re
import threading
import time

from selenium.webdriver.common.by import By

import png
from colours import is_background, is_region_blue
from server import Server

MAX_ZOOM = 14


def tile_colour(z, x, y):
    """A colour per tile, distinct between neighbours (x and y modulo 16) and zooms; never the
    background's light grey, a region's blue or a device's red."""
    return (40 + 9 * z, 40 + 12 * (x % 16), 40 + 12 * (y % 16))


def tile_of(lon, lat, z):
    n = 2 ** z
    x = int((lon + 180) / 360 * n) % n
    phi = math.radians(lat)
    y = int((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * n)
    return x, y


class TileServer:
    """256-pixel PNG tiles at /{z}/{x}/{y}.png, cacheable for a day; anything else is 404.
    `requests` lists every path asked for."""

    def __init__(self):
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                m = re.fullmatch(r"/(\d+)/(\d+)/(\d+)\.png", self.path)
                if not m:
                    self.send_error(404)
                    return
                z, x, y = map(int, m.groups())
                if not (0 <= z <= MAX_ZOOM and 0 <= x < 2 ** z and 0 <= y < 2 ** z):
                    self.send_error(404)   # as a real tile server answers past its range
                    return
                body = png.encode_solid(256, 256, tile_colour(z, x, y))
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "public, max-age=86400")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.http.server_address[1]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def stop(self):
        self.http.shutdown()
        self.http.server_close()


def img_src(headers):
    csp = headers["Content-Security-Policy"]
    return next(d.split()[1:] for d in csp.split(";") if d.strip().startswith("img-src"))


def close(a, b, tolerance=3):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def check_base_map(s):
    tiles = TileServer()
    config = os.path.join(s.server.dir, "tiles.json")
    with open(config, "w") as f:
        json.dump({"dashboardTileURL": f"http://127.0.0.1:{tiles.port}/{{z}}/{{x}}/{{y}}.png",
                   "dashboardTileAttribution": "Tiles: test server", "dashboardTileMaxZoom": MAX_ZOOM}, f)
    other = Server(s.server.binary, ["--config", config]).start()
    try:
        _, headers, _ = other.raw("/")
        assert img_src(headers) == ["'self'", f"http://127.0.0.1:{tiles.port}"], headers["Content-Security-Policy"]
        t = type(s)(other, s.d)
        t.open(121.49, 31.24, 3)
        t.sign_in(other.key)
        t.wait(lambda: t.loads() >= 1, what="a viewport load")
        assert t.text("attribution") == "Tiles: test server"
        seen = []
        # Three zooms, then both sides of 180°: the tile under each point is the one it lies in.
        views = [(121.49, 31.24, 3, [(121.49, 31.24), (100.0, 10.0), (140.0, 50.0)]),
                 (121.49, 31.24, 9, [(121.2, 31.1), (121.8, 31.4)]),
                 (121.49, 31.24, 13, [(121.47, 31.23), (121.52, 31.25)]),
                 (180.0, -17.0, 5, [(178.0, -17.0), (-178.0, -17.0), (175.0, -12.0), (-170.0, -20.0)])]
        for lon, lat, zoom, points in views:
            n = t.loads()
            t.js("window.geofenceDashboard.setView(arguments[0], arguments[1], arguments[2])", lon, lat, zoom)
            t.wait_for_load(n)
            def shows_tiles():
                shot = t.screenshot()
                return all(close(t.pixel(plon, plat, shot), tile_colour(zoom, *tile_of(plon, plat, zoom))) for plon, plat in points)
            t.wait(shows_tiles, timeout=5, what=f"the tiles at zoom {zoom}")
            seen.append(f"z{zoom}: " + ", ".join("{}/{}".format(*tile_of(plon, plat, zoom)) for plon, plat in points))
        # Past the highest zoom: that zoom's tile, scaled; nothing beyond it asked for.
        n = t.loads()
        t.js("window.geofenceDashboard.setView(121.49, 31.24, 17)")
        t.wait_for_load(n)
        t.wait(lambda: close(t.pixel(121.49, 31.24), tile_colour(MAX_ZOOM, *tile_of(121.49, 31.24, MAX_ZOOM))), timeout=5,
               what="the highest zoom's tile scaled")
        assert all(int(r.split("/")[1]) <= MAX_ZOOM for r in tiles.requests), [r for r in tiles.requests if int(r.split("/")[1]) > MAX_ZOOM]
        # Cached by the browser: the same view again in a fresh page asks the tile server nothing.
        asked = len(tiles.requests)
        t.d.get("about:blank")
        t.open(121.49, 31.24, 17)
        t.wait(lambda: t.loads() >= 1, what="the reload")
        t.wait(lambda: close(t.pixel(121.49, 31.24), tile_colour(MAX_ZOOM, *tile_of(121.49, 31.24, MAX_ZOOM))), timeout=5,
               what="the cached tile")
        again = tiles.requests[asked:]
        assert not again, f"the reload asked for {len(again)} tiles again: {again[:4]}"
        # The tile server down: a view never seen keeps its background and grid, and the page
        # works (a region added through the API is drawn there).
        tiles.stop()
        lon, lat = 2.35, 48.85
        status, _, answer = other.api("POST", "/v1/regions", {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]},
                                                              "properties": {"id": "paris", "radius": 400}})
        assert status == 201, answer
        n = t.loads()
        t.js("window.geofenceDashboard.setView(arguments[0], arguments[1], 14)", lon, lat)
        t.wait_for_load(n)
        time.sleep(0.5)
        shot = t.screenshot()
        inside, outside = t.pixel(lon, lat, shot), t.pixel(lon + 0.02, lat + 0.01, shot)
        assert is_region_blue(inside) and is_background(outside), (inside, outside)
        assert t.d.find_element(By.ID, "app").is_displayed() and t.text("live") == "Live"
        print(f"    {len(tiles.requests)} tiles asked for; tiles read back at {'; '.join(seen)}; z17 shows z{MAX_ZOOM} scaled; "
              f"a reload asked for none; server down: region {inside}, elsewhere the background {outside}")
    finally:
        other.stop()
        try:
            tiles.stop()
        except Exception:  # noqa: BLE001 - already stopped
            pass


def check_tile_policy_hosts(s):
    """With `{s}` in the template, the policy names each subdomain's host and nothing else; the
    default (no tiles) allows images from the page's own origin only."""
    _, headers, _ = s.server.raw("/")
    assert img_src(headers) == ["'self'"], headers["Content-Security-Policy"]
    config = os.path.join(s.server.dir, "tiles-s.json")
    with open(config, "w") as f:
        json.dump({"dashboardTileURL": "https://{s}.tile.example.org/{z}/{x}/{y}.png", "dashboardTileSubdomains": ["a", "b"]}, f)
    other = Server(s.server.binary, ["--config", config]).start()
    try:
        _, headers, _ = other.raw("/")
        assert img_src(headers) == ["'self'", "https://a.tile.example.org", "https://b.tile.example.org"], headers["Content-Security-Policy"]
        status, _, body = other.raw("/dashboard/config.json")
        c = json.loads(body)
        assert c["tileSubdomains"] == ["a", "b"] and c["tileMaxZoom"] == 19, c
        print(f"    img-src {' '.join(img_src(headers))}")
    finally:
        other.stop()
