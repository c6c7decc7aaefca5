#!/usr/bin/env python3
"""Browser test of the dashboard `geofence serve` serves at `/`, in headless Chromium driven by
Selenium (Debian's `chromium` and `chromium-driver`; `.ci/run` installs them).

    python3 Tests/Browser/run.py --geofence .build/debug/geofence [--regions 100000] [--screenshot docs/images/dashboard.png]
        [--screenshots docs/images]

Each check prints a line; the last line is `browser: N passed, M failed`, and the exit status
is non-zero when any check failed. Pixels are read from real screenshots (png.py) and compared
with the dashboard's colours where the region and the device must be drawn.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png  # noqa: E402
from server import Server  # noqa: E402

# The Bund, Shanghai: the region drawn by the test, and its zoom level (4.1 m per pixel).
CENTRE = (121.4900, 31.2400)
ZOOM = 15
RADIUS = 300
WIDTH, HEIGHT = 1200, 900   # the window; headless Chromium's viewport is about 1200 × 760


from colours import is_background, is_device_red, is_occupied_green, is_region_blue  # noqa: E402
import fleet  # noqa: E402
import operator_checks  # noqa: E402
import tiles  # noqa: E402
import tracks  # noqa: E402


def offset_metres(lon, lat, east, north):
    """The point `east`, `north` metres from (lon, lat) (local flat approximation)."""
    return (lon + east / (111_320 * math.cos(math.radians(lat))), lat + north / 110_574)


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Session:
    def __init__(self, server, driver):
        self.server, self.d = server, driver

    def wait(self, predicate, timeout=10.0, what="condition"):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = predicate()
                if last:
                    return last
            except Exception as e:  # noqa: BLE001 - the element may not exist yet
                last = e
            time.sleep(0.03)
        raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def open(self, lon, lat, zoom):
        self.d.get(f"{self.server.base}/#map={zoom}/{lat}/{lon}")

    def sign_in(self, key):
        field = self.wait(lambda: self.d.find_element(By.ID, "api-key"), what="the key field")
        self.wait(lambda: field.is_displayed(), what="the sign-in form")
        field.clear()
        field.send_keys(key)
        self.d.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()

    def loads(self):
        return self.js("return (window.geofenceDashboard && window.geofenceDashboard.loadCount) || 0")

    def wait_for_load(self, after, timeout=10.0):
        self.wait(lambda: self.loads() > after, timeout, "a viewport load")
        return self.js("const l = window.geofenceDashboard.loads; return l[l.length - 1];")

    def screen_of(self, lon, lat):
        """Canvas pixel (CSS px) of a map point, and the canvas's offset in the page."""
        x, y = self.js("return window.geofenceDashboard.screenOf(arguments[0], arguments[1]);", lon, lat)
        rect = self.js("const r = document.getElementById('map').getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")
        return x, y, rect

    def click_map(self, lon, lat):
        x, y, rect = self.screen_of(lon, lat)
        canvas = self.d.find_element(By.ID, "map")
        ActionChains(self.d).move_to_element_with_offset(canvas, int(x - rect[2] / 2), int(y - rect[3] / 2)).click().perform()

    def pixel(self, lon, lat, shot=None):
        """The median colour around a map point in a fresh screenshot."""
        img = shot or png.decode(self.d.get_screenshot_as_png())
        x, y, rect = self.screen_of(lon, lat)
        dpr = self.js("return window.devicePixelRatio")
        return img.median(int((rect[0] + x) * dpr), int((rect[1] + y) * dpr))

    def screenshot(self):
        return png.decode(self.d.get_screenshot_as_png())

    def text(self, element_id):
        return self.d.find_element(By.ID, element_id).text


# MARK: Checks

def check_static_headers(s):
    status, headers, body = s.server.raw("/")
    assert status == 200, status
    assert headers["Content-Type"].startswith("text/html"), headers["Content-Type"]
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp, csp
    status, headers, _ = s.server.raw("/dashboard/app.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript"), headers
    status, _, _ = s.server.raw("/dashboard/app.js", {"If-None-Match": headers["ETag"]})
    assert status == 304, f"revalidation answered {status}, not 304"
    assert b"<script>" not in body and b"style=" not in body, "inline script or style in index.html"


def check_wrong_key(s):
    s.open(*CENTRE, ZOOM)
    s.sign_in("gfk_not-a-real-key")
    msg = s.wait(lambda: s.text("sign-in-error"), what="the sign-in error")
    assert "did not accept this API key" in msg and "401" in msg, msg
    assert not s.d.find_element(By.ID, "app").is_displayed(), "the dashboard is shown after a wrong key"
    assert s.js("return sessionStorage.getItem('geofence.apiKey')") is None, "a rejected key was kept"
    colour = s.js("return getComputedStyle(document.getElementById('sign-in-error')).color")
    assert colour == "rgb(220, 38, 38)", f"the message is {colour}, not the danger red"
    print(f"    message shown in {colour}: {msg[:90]}…")


def check_sign_in(s):
    s.open(*CENTRE, ZOOM)
    s.sign_in(s.server.key)
    s.wait(lambda: s.d.find_element(By.ID, "app").is_displayed(), what="the dashboard")
    s.wait_for_load(0)
    assert s.server.key not in s.d.current_url, "the key is in the URL"
    urls = s.js("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert urls and not any(s.server.key in u for u in urls), "the key is in a request's URL"
    assert s.js("return sessionStorage.getItem('geofence.apiKey')") == s.server.key
    s.wait(lambda: s.text("live") == "Live", what="the live stream")


def check_draw_circle(s):
    before = s.loads()
    s.d.find_element(By.ID, "draw-circle").click()
    s.click_map(*CENTRE)
    s.click_map(*offset_metres(*CENTRE, 250, 0))
    dialog = s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the region form")
    assert dialog
    radius = float(s.d.find_element(By.ID, "f-radius").get_attribute("value"))
    assert 200 < radius < 300, f"radius from the drag {radius} m is not ~250 m"
    s.d.find_element(By.ID, "f-id").send_keys("bund")
    r = s.d.find_element(By.ID, "f-radius")
    r.clear()
    r.send_keys(str(RADIUS))
    s.d.find_element(By.ID, "f-metadata").send_keys("owner=browser-test")
    s.d.find_element(By.ID, "form-save").click()
    s.wait(lambda: not s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form to close")
    s.wait_for_load(before)
    status, _, f = s.server.api("GET", "/v1/regions/bund")
    assert status == 200 and f["properties"]["radius"] == RADIUS and f["properties"]["owner"] == "browser-test", f
    lon, lat = f["geometry"]["coordinates"]
    # Within about a pixel (4 m) of the point clicked: clicks land on whole CSS pixels.
    assert abs(lon - CENTRE[0]) < 6e-5 and abs(lat - CENTRE[1]) < 5e-5, f"centre {lon}, {lat} is not where it was clicked"
    shot = s.screenshot()
    inside = s.pixel(*offset_metres(*CENTRE, -150, 60), shot)
    outside = s.pixel(*offset_metres(*CENTRE, -600, 60), shot)
    assert is_region_blue(inside), f"inside the circle the screenshot shows {inside}, not the region's blue"
    assert is_background(outside), f"outside the circle the screenshot shows {outside}, not the background"
    print(f"    screenshot: inside {inside}, outside {outside}")


def check_problem_shown(s):
    s.d.find_element(By.ID, "draw-circle").click()
    s.click_map(*offset_metres(*CENTRE, 700, -500))
    s.click_map(*offset_metres(*CENTRE, 800, -500))
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the region form")
    s.d.find_element(By.ID, "f-id").send_keys("bad-circle")
    r = s.d.find_element(By.ID, "f-radius")
    r.clear()
    r.send_keys("-5")
    s.d.find_element(By.ID, "form-save").click()
    msg = s.wait(lambda: s.text("form-problem"), what="the problem answer")
    assert "400" in msg and "radius" in msg, msg
    assert s.d.find_element(By.ID, "f-radius").get_attribute("aria-invalid") == "true", "the radius field is not marked"
    s.d.find_element(By.ID, "form-cancel").click()
    status, _, _ = s.server.api("GET", "/v1/regions/bad-circle")
    assert status == 404, "a refused region was stored"
    print(f"    problem shown: {msg}")


def check_enter_event_live(s):
    now = time.time()
    device_at = offset_metres(*CENTRE, 80, -40)
    far = offset_metres(*CENTRE, 0, 3000)
    fixes = [{"latitude": far[1], "longitude": far[0], "timestamp": iso(now - 30), "horizontalAccuracy": 10}]
    status, _, answer = s.server.api("POST", "/v1/devices/phone-1/locations", {"fixes": fixes})
    assert status == 200, answer
    # Four fixes inside over 15 s: what the precise rule needs to confirm an entry (docs/semantics.md).
    fixes = [{"latitude": device_at[1], "longitude": device_at[0], "timestamp": iso(now - 20 + i * 5), "horizontalAccuracy": 10}
             for i in range(4)]
    sent = time.monotonic()
    status, _, answer = s.server.api("POST", "/v1/devices/phone-1/locations", {"fixes": fixes})
    assert status == 200 and [e["event"] for e in answer["events"]] == ["enter"], answer
    s.wait(lambda: s.d.find_elements(By.CSS_SELECTOR, '#event-list .event[data-event="enter"][data-device="phone-1"][data-region="bund"]'),
           timeout=2.0, what="the enter event in the list")
    in_list = time.monotonic() - sent
    # On the map: the device's marker where the event happened, the region drawn as occupied —
    # timed on the canvas's own pixels (cheap to poll), then confirmed on a screenshot.
    region_at = offset_metres(*CENTRE, -150, 60)
    def canvas_pixel(lon, lat):
        return tuple(s.js("""const [x, y] = window.geofenceDashboard.screenOf(arguments[0], arguments[1]);
            const c = document.getElementById('map'), r = window.devicePixelRatio;
            return Array.from(c.getContext('2d').getImageData(Math.round(x * r), Math.round(y * r), 1, 1).data).slice(0, 3);""", lon, lat))
    s.wait(lambda: is_device_red(canvas_pixel(*device_at)) and is_occupied_green(canvas_pixel(*region_at)),
           timeout=max(0.1, 2.0 - in_list), what="the device and the occupied region on the map")
    on_map = time.monotonic() - sent
    shot = s.screenshot()
    dev, reg = s.pixel(*device_at, shot), s.pixel(*region_at, shot)
    print(f"    enter event in the list after {in_list * 1000:.0f} ms, on the map after {on_map * 1000:.0f} ms; "
          f"screenshot: device pixel {dev}, region pixel {reg}")
    assert is_device_red(dev), f"the screenshot shows {dev} where the device is, not its red"
    assert is_occupied_green(reg), f"the screenshot shows {reg} in the region, not the occupied green"


def check_device_details(s):
    device_at = offset_metres(*CENTRE, 80, -40)
    s.click_map(*device_at)
    s.wait(lambda: s.text("details-title") == "phone-1", what="the device's details")
    body = s.wait(lambda: "bund" in s.text("details-body") and s.text("details-body"), what="the device's state")
    assert "Inside" in body and "bund" in body, body
    assert "enter" in body.lower(), f"the device's last events are missing: {body}"


def check_edit_region(s):
    """Changes a region's properties through its details' Edit form (PUT /v1/regions/{id})."""
    if s.d.find_element(By.ID, "details").is_displayed():
        s.d.find_element(By.ID, "details-close").click()
    s.click_map(*offset_metres(*CENTRE, -150, 60))
    s.wait(lambda: s.text("details-title") == "bund", what="the region's details")
    s.wait(lambda: "phone-1" in s.text("details-body"), what="the region's state per device")
    assert "inside\nphone-1" in s.text("details-body").lower() or "inside phone-1" in s.text("details-body").lower(), \
        f"the region's details do not show phone-1 inside: {s.text('details-body')}"
    s.wait(lambda: [b for b in s.d.find_elements(By.CSS_SELECTOR, "#details-body .actions button") if b.text == "Edit"],
           what="the Edit button")[0].click()
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the region form")
    assert s.d.find_element(By.ID, "f-id").get_attribute("readonly") is not None, "the id of an existing region is editable"
    s.d.find_element(By.ID, "f-exit").click()                    # no exit notifications
    dwell = s.d.find_element(By.ID, "f-dwell")
    dwell.clear()
    dwell.send_keys("120")
    s.d.find_element(By.ID, "form-save").click()
    s.wait(lambda: not s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form to close")
    status, _, f = s.server.api("GET", "/v1/regions/bund")
    p = f["properties"]
    assert status == 200 and p.get("notifyOnExit") is False and p.get("dwell") == 120 and p["radius"] == RADIUS \
        and p["owner"] == "browser-test", f
    s.wait(lambda: "120 s" in s.text("details-body"), what="the details to show the new dwell")


def check_delete_region(s):
    before = s.loads()
    if s.d.find_element(By.ID, "details").is_displayed():
        s.d.find_element(By.ID, "details-close").click()
    s.click_map(*offset_metres(*CENTRE, -150, 60))
    s.wait(lambda: s.text("details-title") == "bund", what="the region's details")
    s.wait(lambda: "phone-1" in s.text("details-body"), what="the region's state per device")
    body = s.text("details-body")
    assert "owner" in body and "120 s" in body, body
    button = s.d.find_element(By.ID, "delete-region")
    button.click()
    assert "again" in button.text, button.text
    button.click()
    s.wait(lambda: s.server.api("GET", "/v1/regions/bund")[0] == 404, what="the region to be deleted")
    s.wait_for_load(before)
    s.wait(lambda: is_background(s.pixel(*offset_metres(*CENTRE, -150, 60))), timeout=3, what="the region to disappear")


def check_polygon_with_hole(s):
    lon, lat = offset_metres(*CENTRE, 0, -900)
    def ring(half):
        a, b = offset_metres(lon, lat, -half, -half), offset_metres(lon, lat, half, half)
        return [[a[0], a[1]], [b[0], a[1]], [b[0], b[1]], [a[0], b[1]], [a[0], a[1]]]
    feature = {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring(300), ring(100)]},
               "properties": {"id": "yard"}}
    before = s.loads()
    status, _, answer = s.server.api("POST", "/v1/regions", feature)
    assert status == 201, answer
    s.d.find_element(By.ID, "map").send_keys(Keys.ARROW_DOWN)   # a pan reloads the viewport
    s.wait_for_load(before)
    shot = s.screenshot()
    ring_px, hole_px = s.pixel(*offset_metres(lon, lat, 200, 0), shot), s.pixel(lon, lat, shot)
    assert is_region_blue(ring_px), f"the polygon's ring shows {ring_px}"
    assert is_background(hole_px), f"the polygon's hole shows {hole_px}"


def check_keyboard_polygon(s):
    """Draws a polygon with the keyboard only: Tab to the tool, Enter at the crosshair, arrows
    to move the map between vertices, Shift+Enter to finish, then the form."""
    tool = s.d.find_element(By.ID, "draw-polygon")
    s.js("arguments[0].focus()", tool)
    ActionChains(s.d).send_keys(Keys.ENTER).perform()                 # the tool, by keyboard
    assert tool.get_attribute("aria-pressed") == "true"
    assert s.d.switch_to.active_element.get_attribute("id") == "map", "drawing does not focus the map"
    for k in [Keys.ENTER, Keys.ARROW_RIGHT, Keys.ENTER, Keys.ARROW_DOWN, Keys.ENTER]:
        ActionChains(s.d).send_keys(k).perform()
    ActionChains(s.d).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the region form")
    ActionChains(s.d).send_keys("keyboard-triangle", Keys.ENTER).perform()   # focus starts in the id field
    s.wait(lambda: s.server.api("GET", "/v1/regions/keyboard-triangle")[0] == 200, what="the polygon to be stored")
    f = s.server.api("GET", "/v1/regions/keyboard-triangle")[2]
    assert f["geometry"]["type"] == "Polygon" and len(f["geometry"]["coordinates"][0]) == 4, f
    assert s.server.api("DELETE", "/v1/regions/keyboard-triangle")[0] == 204


def check_keyboard_circle(s):
    """A circle by keyboard: Enter at the crosshair for the centre, an arrow key to move the map,
    Enter for the edge; the form's radius is the distance the map moved."""
    def centre():
        z, lat, lon = s.js("return location.hash").split("=")[1].split("/")
        return float(lon), float(lat)
    tool = s.d.find_element(By.ID, "draw-circle")
    s.js("arguments[0].focus()", tool)
    ActionChains(s.d).send_keys(Keys.ENTER).perform()
    ActionChains(s.d).send_keys(Keys.ENTER).perform()
    a = centre()
    ActionChains(s.d).send_keys(Keys.ARROW_RIGHT).perform()
    s.wait(lambda: centre() != a, what="the map to move")
    b = centre()
    ActionChains(s.d).send_keys(Keys.ENTER).perform()
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the region form")
    radius = float(s.d.find_element(By.ID, "f-radius").get_attribute("value"))
    moved = math.hypot((b[0] - a[0]) * 111_320 * math.cos(math.radians(a[1])), (b[1] - a[1]) * 110_574)
    s.d.find_element(By.ID, "form-cancel").click()
    assert abs(radius - moved) < max(3, 0.01 * moved), f"radius {radius} m, the map moved {moved:.0f} m"


def check_stream_survives_restart(s):
    """The server restarts under the open page: the stream reconnects from the last id and the
    next event arrives, once."""
    s.server.restart()
    s.wait(lambda: s.text("live") == "Live", timeout=20, what="the stream to reconnect")
    lon, lat = offset_metres(*CENTRE, 0, -900)          # the yard of check_polygon_with_hole
    inside = offset_metres(lon, lat, 200, 0)
    now = time.time()
    fixes = [{"latitude": lat + 0.05, "longitude": lon, "timestamp": iso(now - 40), "horizontalAccuracy": 10}] + \
            [{"latitude": inside[1], "longitude": inside[0], "timestamp": iso(now - 30 + 5 * i), "horizontalAccuracy": 10} for i in range(4)]
    status, _, answer = s.server.api("POST", "/v1/devices/phone-2/locations", {"fixes": fixes})
    assert status == 200 and [e["event"] for e in answer["events"]] == ["enter"], answer
    sel = '#event-list .event[data-device="phone-2"][data-region="yard"]'
    s.wait(lambda: s.d.find_elements(By.CSS_SELECTOR, sel), timeout=10, what="the event after the restart")
    time.sleep(0.5)
    assert len(s.d.find_elements(By.CSS_SELECTOR, sel)) == 1, "the event is listed twice"
    enters = s.d.find_elements(By.CSS_SELECTOR, '#event-list .event[data-device="phone-1"][data-event="enter"]')
    assert len(enters) == 1, f"the events before the restart were repeated ({len(enters)} enters of phone-1)"


def make_screenshot(s, path):
    """A picture for the README: a few regions, devices with tracks, live events, details."""
    base = CENTRE
    feats = []
    spots = [("bund", 0, 0, 300), ("museum", -1400, -600, 220), ("station", -2300, 1500, 380), ("tower", 1100, -300, 180),
             ("ferry", 900, 700, 140), ("garden", -500, 900, 200)]
    for name, e, n, r in spots:
        lon, lat = offset_metres(*base, e, n)
        feats.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]}, "properties": {"id": name, "radius": r}})
    def square(e, n, half):
        pts = [offset_metres(*base, e + dx * half, n + dy * half) for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1))]
        return [[p[0], p[1]] for p in pts]
    feats.append({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [square(-1500, 1000, 450), square(-1500, 1000, 160)]},
                  "properties": {"id": "depot", "zone": "logistics"}})
    s.server.api("POST", "/v1/regions/import", {"type": "FeatureCollection", "features": feats})
    now = time.time() - 600
    walks = {"courier-7": [(-2600, 2400), (-2300, 1500), (-2000, 1300), (-1700, 1150), (-1300, 1150), (-1300, 1150)],
             "phone-1": [(2200, -900), (1400, -400), (1100, -300), (600, -100), (60, -30), (60, -30)],
             "van-12": [(-900, -1800), (-1300, -900), (-1400, -600), (-1400, -600)]}
    for dev, pts in walks.items():
        fixes = []
        for i, (e, n) in enumerate(pts):
            lon, lat = offset_metres(*base, e, n)
            fixes.append({"latitude": lat, "longitude": lon, "timestamp": iso(now + i * 40), "horizontalAccuracy": 8})
        s.server.api("POST", f"/v1/devices/{dev}/locations", {"fixes": fixes})
    s.open(*offset_metres(*base, -1000, 350), 14.35)
    s.wait(lambda: s.loads() >= 1, what="a load")
    s.wait(lambda: len(s.d.find_elements(By.CSS_SELECTOR, "#event-list .event")) > 3, what="events")
    s.click_map(*offset_metres(*base, -120, 80))
    s.wait(lambda: "DEVICES" in s.text("details-body").upper(), what="details")
    time.sleep(2.2)   # let the event flashes fade before the picture
    s.d.save_screenshot(path)
    print(f"    wrote {path} ({os.path.getsize(path):,} bytes)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geofence", required=True, help="the geofence executable to serve with")
    ap.add_argument("--regions", type=int, default=100_000, help="regions for the scale check (0 skips it)")
    ap.add_argument("--screenshot", help="write the README screenshot here instead of testing")
    ap.add_argument("--screenshots", help="also save a screenshot of each view at scale in this folder (docs/images)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--only", help="run only the checks whose names hold one of these comma-separated words "
                                   "(with sign-in and the scale set-up they need)")
    args = ap.parse_args()

    options = Options()
    options.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={WIDTH},{HEIGHT}",
                 "--force-device-scale-factor=1", "--hide-scrollbars", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    server = Server(os.path.abspath(args.geofence)).start()
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    driver.set_page_load_timeout(30)
    s = Session(server, driver)
    s.shots = args.screenshots
    passed = failed = 0
    try:
        if args.screenshot:
            s.open(*CENTRE, ZOOM)
            s.sign_in(server.key)
            make_screenshot(s, args.screenshot)
            return 0
        checks = [check_static_headers, check_wrong_key, check_sign_in, check_draw_circle, check_problem_shown,
                  check_enter_event_live, check_device_details, check_edit_region, check_delete_region, check_polygon_with_hole,
                  check_keyboard_polygon, check_keyboard_circle, check_stream_survives_restart, tiles.check_tile_policy_hosts,
                  tiles.check_base_map]
        setup = None
        if args.regions:
            # The dashboard at scale (fleet.py): 100,000 regions, 1,000 devices with a week of events.
            setup = lambda s: fleet.setup(s, args.regions)  # noqa: E731
            setup.__name__ = f"setup_{args.regions}_regions_{fleet.DEVICES}_devices"
            checks += [setup, fleet.check_map_at_scale, fleet.check_ingest_while_panning, fleet.check_devices_panel,
                       fleet.check_history_panel, fleet.check_regions_panel, operator_checks.check_replay_view,
                       fleet.check_import_export, fleet.check_move_and_reshape, fleet.check_antimeridian,
                       fleet.check_long_device_id, tracks.check_tracks_at_scale, tracks.check_tracks_cut_hidden_and_selected,
                       operator_checks.check_clusters_once_apart, operator_checks.check_history_times_whole,
                       operator_checks.check_long_region_name, operator_checks.check_battery_and_status,
                       operator_checks.check_export_selection, fleet.check_offline_state]
        if args.only:
            words = args.only.split(",")
            checks = [c for c in checks if c in (check_sign_in, setup) or any(w in c.__name__ for w in words)]
        for check in checks:
            started = time.monotonic()
            try:
                check(s)
                passed += 1
                print(f"ok   {check.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception as e:  # noqa: BLE001 - every failure is reported, then the next check runs
                failed += 1
                print(f"FAIL {check.__name__}: {e}", flush=True)
                traceback.print_exc()
                # Leave no form open or drawing tool on for the next check.
                driver.execute_script("const d = document.getElementById('region-dialog'); if (d && d.open) d.close();"
                                      "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));")
                try:
                    shot = os.path.join(server.dir, f"{check.__name__}.png")
                    driver.save_screenshot(shot)
                    logs = driver.get_log("browser")
                    print(f"     screenshot {shot}; console: {json.dumps(logs)[:800]}")
                except Exception:  # noqa: BLE001
                    pass
    finally:
        driver.quit()
        server.stop()
    print(f"browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
