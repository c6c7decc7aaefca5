"""The dashboard at scale (issue 34): 100,000 regions over 2° × 2° around Shanghai, 1,000
devices with a week of visits, and the checks of the views built on them — the device list,
the event history, the region list, replay, import / export, move and reshape, the figures,
the map's paint and pan times, and ingestion while the map is panned.

Every check prints what it measured; the thresholds are the issue's (first paint ≤ 0.5 s,
each pan frame ≤ 50 ms, any zoom painted ≤ 0.5 s after the last input, the whole-world map
answer ≤ 50 ms).
"""
import calendar
import concurrent.futures
import json
import math
import os
import random
import statistics
import tempfile
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from colours import is_region_blue

DEVICES = 1_000
DAYS = 7
VISITS_PER_DAY = 2
WEST, SOUTH = 120.5, 30.2        # the regions' box: 2° × 2° from here


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def import_regions(s, count):
    rnd = random.Random(7)
    s.regions = []
    started = time.monotonic()
    for chunk in range(0, count, 10_000):
        feats = []
        for i in range(chunk, min(count, chunk + 10_000)):
            lon, lat, r = round(WEST + rnd.random() * 2, 6), round(SOUTH + rnd.random() * 2, 6), round(50 + rnd.random() * 450)
            s.regions.append((f"r{i:06d}", lon, lat, r))
            feats.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]},
                          "properties": {"id": f"r{i:06d}", "radius": r, "name": f"Site {i}", "source": "seed"}})
        status, _, answer = s.server.api("POST", "/v1/regions/import", {"type": "FeatureCollection", "features": feats})
        assert status == 200, answer
    print(f"    imported {count:,} regions in {time.monotonic() - started:.1f} s")


def visit_fixes(lon, lat, start):
    """Three fixes 900 m north, five at the centre 30 s apart, three 900 m north again."""
    north = lat + 900 / 110_574
    pts = [(lon, north)] * 3 + [(lon, lat)] * 5 + [(lon, north)] * 3
    return [{"latitude": p[1], "longitude": p[0], "timestamp": iso(start + 30 * i), "horizontalAccuracy": 5 + (i % 4) * 5}
            for i, p in enumerate(pts)]


def ingest_fleet(s):
    """1,000 devices, each visiting two regions a day for a week (one batch per device)."""
    now = time.time()
    # Half an hour inside the week, so that the first day's visits are still "the last 7 days"
    # when a slow machine reaches the figures' check minutes later.
    start = now - DAYS * 86_400 + 1_800
    s.fleet_start = start
    s.sent_fixes = {}
    def send(i):
        fixes = []
        for day in range(DAYS):
            for v in range(VISITS_PER_DAY):
                _, lon, lat, _ = s.regions[(i * 97 + day * 13 + v * 7) % len(s.regions)]
                fixes += visit_fixes(lon, lat, start + day * 86_400 + v * 43_200 + (i % 600) * 60)
        # The last fix of each device in its last minutes, so that "last seen" differs per device.
        _, lon, lat, _ = s.regions[(i * 31) % len(s.regions)]
        fixes.append({"latitude": lat, "longitude": lon, "timestamp": iso(now - 3_600 + i * 3), "horizontalAccuracy": 12})
        s.sent_fixes[f"dev-{i:04d}"] = fixes
        status, _, answer = s.server.api("POST", f"/v1/devices/dev-{i:04d}/locations", {"fixes": fixes})
        assert status == 200, answer
        return len(answer["events"])
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        events = sum(pool.map(send, range(DEVICES)))
    print(f"    {DEVICES:,} devices, {DAYS} days: {DEVICES * (DAYS * VISITS_PER_DAY * 11 + 1):,} fixes, {events:,} events "
          f"in {time.monotonic() - started:.1f} s")
    assert events > DEVICES * DAYS * VISITS_PER_DAY, events


def setup(s, count):
    import_regions(s, count)
    ingest_fleet(s)


def shoot(s, name):
    """Saves a screenshot for docs/images when the run was asked for them (--screenshots DIR)."""
    folder = getattr(s, "shots", None)
    if folder:
        path = os.path.join(folder, f"dashboard-{name}.png")
        s.d.save_screenshot(path)
        print(f"    screenshot {path}")


def tab(s, name):
    s.d.find_element(By.ID, f"tab-{name}").click()
    s.wait(lambda: s.d.find_element(By.ID, f"panel-{name}").is_displayed(), what=f"the {name} panel")


def fresh_page(s, lon, lat, zoom):
    s.d.get("about:blank")
    s.open(lon, lat, zoom)
    s.wait(lambda: s.loads() >= 1, timeout=20, what="the first viewport load")


# MARK: Map

def check_map_at_scale(s):
    # First paint: a fresh page at zoom 15 in the densest part of the box.
    s.d.execute_cdp_cmd("Network.clearBrowserCache", {})
    fresh_page(s, 121.47, 31.23, 15)
    first = s.js("const l = window.geofenceDashboard.loads; return l[l.length - 1];")
    since_nav = s.js("return window.geofenceDashboard.lastPaintedAt")
    print(f"    first paint since navigation (page, modules, sign-in, recent events, regions): {since_nav:.0f} ms; "
          f"{first['regions']:,} regions, fetched in {first['fetchMs']:.0f} ms, layer drawn in {first['layerMs']:.1f} ms")
    assert first["regions"] > 5 and not first["clusters"], first
    overlap = check_overlaps_stay_light(s)
    # Pan frames: drags in small steps at zoom 15 (regions) and 13 (a city: 900 regions).
    results = {}
    for zoom in (15, 13):
        results[zoom] = clean_drag(s, zoom)
        if zoom == 15:
            shoot(s, "city")
    # Zoom: every level from 3 to 17, painted after the last input.
    worst = 0
    for zoom in (3, 5, 7, 9, 11, 12, 13, 14, 15, 16, 17):
        n = s.loads()
        s.js("window.geofenceDashboard.setView(121.47, 31.23, arguments[0])", zoom)
        s.wait_for_load(n, timeout=10)
        s.wait(lambda: s.js("const l = window.geofenceDashboard.loads; return l[l.length - 1].inputAt") ==
               s.js("return window.geofenceDashboard.inputAt"), what="the load of the last input")
        load = s.js("const l = window.geofenceDashboard.loads; return l[l.length - 1];")
        worst = max(worst, load["sinceInputMs"])
        kind = f"{load['clusters']} clusters of {load['matched']:,}" if load["clusters"] else f"{load['regions']} regions"
        print(f"    zoom {zoom:>2}: painted {load['sinceInputMs']:.0f} ms after the input ({kind}; fetch {load['fetchMs']:.0f} ms, "
              f"layer {load['layerMs']:.1f} ms)")
    # Low zoom shows clusters counting every region, never an arbitrary subset.
    n = s.loads()
    s.js("window.geofenceDashboard.setView(121.5, 31.2, 8)")
    s.wait_for_load(n)
    low = s.wait(lambda: (lambda l: l if l["clusters"] else None)(s.js("const l = window.geofenceDashboard.loads; return l[l.length - 1];")),
                 what="clusters at zoom 8")
    coverage = s.text("coverage")
    print(f"    zoom 8: {low['clusters']} clusters counting {low['matched']:,} regions; shown: “{coverage}”")
    assert low["matched"] >= 99_000 and "clusters" in coverage, (low, coverage)
    shoot(s, "clusters")
    # The server alone.
    timings = []
    for _ in range(7):
        t = time.monotonic()
        status, _, answer = s.server.api("GET", "/v1/regions/map?bbox=-180,-90,180,90&zoom=1")
        timings.append((time.monotonic() - t) * 1000)
        assert status == 200 and sum(c["count"] for c in answer["clusters"]) >= 100_000, answer
    t = time.monotonic()
    status, _, answer = s.server.api("GET", "/v1/regions?bbox=-180,-90,180,90&limit=1")
    scan = (time.monotonic() - t) * 1000
    print(f"    GET /v1/regions/map (the world, zoom 1): {statistics.median(timings):.0f} ms median, {max(timings):.0f} ms worst of 7; "
          f"GET /v1/regions?bbox=(the world)&limit=1 (every region matched, off the lock): {scan:.0f} ms")
    assert since_nav <= 500, f"first paint {since_nav:.0f} ms"
    # Every frame of a drag: the page's main thread ran no task over 50 ms (a long task), no
    # frame's drawing took over 50 ms, and no two frames were over 50 ms apart.
    for zoom, (_, problem) in results.items():
        assert not problem, problem
    assert worst <= 500, f"a zoom level painted {worst:.0f} ms after its input"
    assert statistics.median(timings) <= 50, f"the whole-world map answer took {statistics.median(timings):.0f} ms"



# The browser shares this 2-core machine with other work: a fixed loop timed in the page before
# and after a measurement says whether the browser was starved (the loop over STARVED_FACTOR ×
# its quickest time in this run). A drag is measured once; only when it fails and the loop
# proves the browser was starved is it measured once more, and the run says so. A failure
# without starvation fails the check.
FRAME_MS = 50
STARVED_FACTOR = 2.0
# The calibration: a fixed loop (the page's main thread's share of the CPU), then 30 animation
# frames with nothing to draw and no input (whether the browser's other threads, which raster
# and present each frame, get the CPU in time: on an idle page every gap is the display's
# 16.7 ms).
CALIBRATE = """
const done = arguments[arguments.length - 1];
const t0 = performance.now();
let x = 0;
for (let i = 0; i < 3e6; i++) x += Math.sqrt(i) * 1e-9;
const loop = performance.now() - t0;
let last = 0, longest = 0, n = 0;
const tick = (t) => {
  if (last) longest = Math.max(longest, t - last);
  last = t;
  if (++n <= 30) requestAnimationFrame(tick); else done([loop, longest, x]);
};
requestAnimationFrame(tick);
"""

def calibrate(s):
    loop, idle, _ = s.d.execute_async_script(CALIBRATE)
    s.calibrations = getattr(s, "calibrations", []) + [(loop, idle)]
    return loop


def starved(s):
    """Whether the calibrations just before and just after the last measurement prove the
    browser was starved: the loop over STARVED_FACTOR × its quickest in the run, or an idle
    page's frame gap over FRAME_MS."""
    quickest = min(c[0] for c in s.calibrations)
    loop, idle = (max(c[i] for c in s.calibrations[-2:]) for i in (0, 1))
    return loop > STARVED_FACTOR * quickest or idle > FRAME_MS


def starved_note(s):
    """What the calibrations just before and just after the measurement say."""
    quickest = min(c[0] for c in s.calibrations)
    loop, idle = (max(c[i] for c in s.calibrations[-2:]) for i in (0, 1))
    said = (f"the calibration loop took {loop:.0f} ms ({loop / quickest:.1f} × its quickest, {quickest:.0f} ms), "
            f"an idle page's longest frame gap {idle:.1f} ms")
    return f" — the browser was starved: {said}" if starved(s) else f" (not starved: {said})"


def drag_problem(r, zoom):
    """What is wrong with drag_frames' result `r`, or None when every frame gap and drawing is
    within FRAME_MS and no task was long."""
    if r["long"] or max(r["draw"]) > FRAME_MS or max(r["gaps"]) > FRAME_MS:
        return (f"drag at zoom {zoom}: long tasks {r['long']}, slowest drawing {max(r['draw']):.1f} ms, "
                f"longest gap {max(r['gaps']):.1f} ms")
    return None


def clean_drag(s, zoom):
    """drag_frames at `zoom`, once, between two calibrations; measured once more only when it
    failed and the calibration proves the browser was starved (printed). Answers the result and
    its problem (None when clean), the problem saying whether the browser was starved."""
    calibrate(s)
    r = drag_frames(s, zoom)
    calibrate(s)
    problem = drag_problem(r, zoom)
    if problem and starved(s):
        print(f"    measured again: {problem}{starved_note(s)}")
        s.starved_repeats = getattr(s, "starved_repeats", 0) + 1
        calibrate(s)
        r = drag_frames(s, zoom)
        calibrate(s)
        problem = drag_problem(r, zoom)
    return r, (problem + starved_note(s)) if problem else None

PROBE = """
const p = window.frameProbe = {gaps: [], long: [], on: true, last: 0, releasedAt: Infinity};
p.obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) p.long.push([e.startTime, e.duration]); });
p.obs.observe({type: 'longtask'});
p.frames = [];
p.loaf = new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.duration > 50) p.frames.push({
  start: e.startTime, duration: e.duration, blocking: e.blockingDuration, render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
  style: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
  scripts: e.scripts.map((x) => [x.invoker, x.invokerType, x.sourceFunctionName, (x.sourceURL || '').split('/').pop(), x.sourceCharPosition, Math.round(x.duration), Math.round(x.forcedStyleAndLayoutDuration)]) }); });
p.loaf.observe({type: 'long-animation-frame'});
document.getElementById('map').addEventListener('pointerup', (e) => {
  p.releasedAt = Math.min(p.releasedAt, e.timeStamp);
  p.releasedFrames = window.geofenceDashboard.framesDrawn();
}, {once: true});
const tick = (t) => {
  if (!p.on) return;
  if (p.last && t <= p.releasedAt) p.gaps.push(t - p.last);
  p.last = t;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"""


def drag_frames(s, zoom):
    """A 240 px drag in 24 steps over the city at `zoom`, measured in the page: the gaps between
    animation frames (requestAnimationFrame's timestamps), the main thread's long tasks
    (PerformanceObserver 'longtask': a task over 50 ms) and each frame's drawing time, from the
    press to the release. Then the paint of the view after the release."""
    n = s.loads()       # read before the view changes: a quick load could otherwise be missed
    s.js("window.geofenceDashboard.setView(121.47, 31.23, arguments[0])", zoom)
    s.wait_for_load(n)
    time.sleep(0.3)
    before = s.js("return window.geofenceDashboard.framesDrawn()")
    s.js(PROBE)
    n = s.loads()
    canvas = s.d.find_element(By.ID, "map")
    chain = ActionChains(s.d, duration=30).move_to_element(canvas).click_and_hold()
    for i in range(24):
        chain = chain.move_by_offset(-10, 4 if i % 2 else -4)
    chain.release().perform()
    load = s.wait_for_load(n)
    time.sleep(0.1)   # the observer reports long tasks after they end
    probe = s.js("const p = window.frameProbe; p.on = false; p.obs.disconnect(); p.loaf.disconnect(); "
                 "return {gaps: p.gaps, long: p.long.filter(([t]) => t <= p.releasedAt).map(([, d]) => d), "
                 "loaf: p.frames.filter((f) => f.start <= p.releasedAt), releasedFrames: p.releasedFrames};")
    if probe["long"]:
        # What the page ran in the frames over 50 ms (the Long Animation Frames API): scripts by
        # invoker, source and duration, the rendering's share; none listed: not the page's work.
        print(f"    long animation frames: {json.dumps(probe['loaf'])}")
    # The drawing times of the frames from the press to the release (the page keeps the last 240).
    total = s.js("return window.geofenceDashboard.framesDrawn()")
    during, after = probe["releasedFrames"] - before, total - probe["releasedFrames"]
    frames = s.js("return window.geofenceDashboard.frames()")
    draw = frames[len(frames) - during - after:len(frames) - after] if during > 0 else []
    gaps = probe["gaps"]
    assert len(gaps) >= 20 and draw, (len(gaps), len(draw))
    def q(xs, f):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(len(xs) * f))]
    print(f"    pan at zoom {zoom}: {len(gaps)} frame gaps, median {statistics.median(gaps):.1f} ms, 95th percentile {q(gaps, 0.95):.1f}, "
          f"longest {max(gaps):.1f} ms; drawing median {statistics.median(draw):.1f} ms, slowest {max(draw):.1f} ms; "
          f"long tasks {probe['long']}; after the release: {load['regions'] or load['clusters']} "
          f"{'regions' if load['regions'] else 'clusters'} painted {load['sinceInputMs']:.0f} ms after it (layer {load['layerMs']:.1f} ms)")
    return {"gaps": gaps, "long": probe["long"], "draw": draw}


def check_overlaps_stay_light(s):
    """Where three or more regions overlap, the map shows the same light fill as under one
    region (each colour is one path filled once), not a darker block."""
    _, _, page = s.server.api("GET", "/v1/devices?limit=1000")
    occupied = {r for d in page["devices"] for r in d["inside"]}
    dots = [(d["lastFix"]["longitude"], d["lastFix"]["latitude"]) for d in page["devices"]]
    near = [(rid, clon, clat, r) for rid, clon, clat, r in s.regions if 121.45 < clon < 121.49 and 31.215 < clat < 31.245]
    def covering(lon, lat):
        """The regions containing the point by more than 15 m; None for one whose edge is within 15 m."""
        out = []
        for rid, clon, clat, r in near:
            d = math.hypot((lon - clon) * 111_320 * math.cos(math.radians(lat)), (lat - clat) * 110_574)
            if d < r - 15:
                out.append(rid)
            elif d <= r + 15:
                out.append(None)
        return out
    many = single = None
    for i in range(60):
        for j in range(40):
            lon, lat = 121.458 + i * 0.0004, 31.222 + j * 0.0004
            c = covering(lon, lat)
            if None in c or any(r in occupied for r in c) or any(abs(x - lon) < 0.002 and abs(y - lat) < 0.002 for x, y in dots):
                continue
            if len(c) >= 3 and many is None:
                many = (lon, lat, len(c))
            if len(c) == 1 and single is None:
                single = (lon, lat)
    assert many and single, "no sample points in the view"
    shot = s.screenshot()
    a, b = s.pixel(many[0], many[1], shot), s.pixel(*single, shot)
    assert is_region_blue(a) and max(abs(x - y) for x, y in zip(a, b)) <= 10, f"{many[2]} overlapping regions show {a}, one shows {b}"
    print(f"    {many[2]} overlapping regions show {a}, one region {b}: the same light fill")
    return a, b


def pan_map(base, key, panning, stop, every):
    """Another process (so that its reading does not hold this one's interpreter lock): while
    `panning` is set, requests map views — the whole world at zoom 1, then two city views at
    zoom 13 (clusters of 0.3° × 0.2°) — one every `every` seconds (0: back to back), reading each
    answer whole."""
    import urllib.request
    rnd, n = random.Random(3), 0
    while not stop.is_set():
        if not panning.wait(0.05):
            continue
        started = time.monotonic()
        w = WEST + rnd.random() * 1.7
        box = "-180,-90,180,90&zoom=1" if n % 3 == 0 else f"{w:.4f},{SOUTH + 0.5:.4f},{w + 0.3:.4f},{SOUTH + 0.7:.4f}&zoom=13"
        req = urllib.request.Request(f"{base}/v1/regions/map?bbox={box}", headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
        n += 1
        time.sleep(max(0.0, every - (time.monotonic() - started)))


ROUNDS, PER_WINDOW = 10, 100
# The dashboard reads the map once per drag released (and once per zoom step settled): a user
# panning hard makes 2–4 reads a second. "Panned" is 10 reads a second; "flooded" is one client
# reading back to back (60–150 a second), which no dashboard does.
PANNED_EVERY_S = 0.1
# Asserted, on the p99 of all the rounds' windows of each kind (1,000 batches, interleaved, so
# that the machine's other load falls on all three alike): panned ≤ 1.25 × alone + 2 ms
# (unchanged, within this machine's noise); flooded ≤ 2.5 × alone + 2 ms (the server, this
# client and the reading client share two cores, so a flood costs ingestion CPU time — × 1.3–1.8
# measured — never a wait for the map). docs/server.md gives the figures behind both bounds.
PANNED_RATIO, PANNED_SLACK_MS = 1.25, 2.0
FLOODED_RATIO, FLOODED_SLACK_MS = 2.5, 2.0


def check_ingest_while_panning(s):
    """Ingestion latency in alternating windows of 100 one-fix batches: alone, while another
    process pans the map as a dashboard does (10 reads a second), and while it floods it (back
    to back), ten rounds. The map reads never take the tenant's lock, and cost little CPU."""
    import multiprocessing
    def p99(xs):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(len(xs) * 0.99))]
    t0 = time.time() - 10_000
    counter = [0]
    def window():
        out = []
        for _ in range(PER_WINDOW):
            i = counter[0]
            counter[0] += 1
            lon, lat = WEST + 1 + (i % 50) * 0.001, SOUTH + 1
            fixes = [{"latitude": lat, "longitude": lon, "timestamp": iso(t0 + i), "horizontalAccuracy": 10}]
            t = time.monotonic()
            status, _, _ = s.server.api("POST", "/v1/devices/latency-probe/locations", {"fixes": fixes})
            out.append((time.monotonic() - t) * 1000)
            assert status == 200
        return out
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    clients = {}
    for name, every in (("panned", PANNED_EVERY_S), ("flooded", 0.0)):
        on = ctx.Event()
        proc = ctx.Process(target=pan_map, args=(s.server.base, s.server.key, on, stop, every), daemon=True)
        proc.start()
        clients[name] = (on, proc)
    windows = {"alone": [], "panned": [], "flooded": []}
    try:
        window()                                 # warm-up, not counted
        for _ in range(ROUNDS):
            for name in windows:
                on = clients[name][0] if name in clients else None
                if on:
                    on.set()
                    time.sleep(0.1)
                windows[name].append(window())
                if on:
                    on.clear()
                    time.sleep(0.1)
    finally:
        stop.set()
        for on, proc in clients.values():
            on.set()
            proc.join(10)
    pooled = {name: p99(sum(ws, [])) for name, ws in windows.items()}
    for name, ws in windows.items():
        print(f"    {name:>7}: p99 {pooled[name]:.1f} ms (× {pooled[name] / pooled['alone']:.2f}), p50 {statistics.median(sum(ws, [])):.1f} ms "
              f"of {len(ws) * PER_WINDOW} batches; the windows' p99: {' '.join(f'{p99(w):.0f}' for w in ws)} ms")
    assert pooled["panned"] <= PANNED_RATIO * pooled["alone"] + PANNED_SLACK_MS, pooled
    assert pooled["flooded"] <= FLOODED_RATIO * pooled["alone"] + FLOODED_SLACK_MS, pooled


# MARK: Panels

def check_devices_panel(s):
    # The newest device's app reports its battery (Traccar Client's heartbeat: id and batt).
    newest = s.server.api("GET", "/v1/devices?limit=1")[2]["devices"][0]["id"]
    assert s.server.raw(f"/v1/ingest/osmand?key={s.server.key}&id={newest}&batt=73")[0] == 200
    tab(s, "devices")
    rows = s.wait(lambda: s.d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"), timeout=10, what="device rows")
    status, _, api = s.server.api("GET", "/v1/devices?limit=50")
    shown = [r.get_attribute("data-device") for r in rows]
    assert shown == [d["id"] for d in api["devices"]], (shown[:5], [d["id"] for d in api["devices"]][:5])
    first = rows[0].text
    assert "ago" in first and "±" in first and "battery 73 %" in first, first
    assert api["devices"][0]["battery"]["percent"] == 73 and "battery" not in rows[1].text, (api["devices"][0], rows[1].text)
    assert s.d.find_element(By.ID, "devices-more").is_displayed()
    s.d.find_element(By.ID, "devices-more").click()
    s.wait(lambda: len(s.d.find_elements(By.CSS_SELECTOR, "#device-list .device-row")) == 100, what="the second page")
    # Inside a region: the devices the API says are inside it.
    inside_id = next(d["inside"][0] for d in api["devices"] if d["inside"]) if any(d["inside"] for d in api["devices"]) else None
    if inside_id:
        box = s.d.find_element(By.ID, "devices-inside")
        box.clear()
        box.send_keys(inside_id, Keys.ENTER)
        s.wait(lambda: all(inside_id in r.text for r in s.d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
               and s.d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"), what="devices inside the region")
        box.clear()
    prefix = s.d.find_element(By.ID, "devices-prefix")
    prefix.send_keys("dev-099", Keys.ENTER)
    s.wait(lambda: sorted(r.get_attribute("data-device") for r in s.d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
           == [f"dev-{i:04d}" for i in range(990, 1000)], what="the prefix filter")
    s.d.find_elements(By.CSS_SELECTOR, "#device-list .device-row")[0].click()
    s.wait(lambda: s.text("details-title").startswith("dev-099"), what="the device's details")
    shoot(s, "devices")
    print(f"    {len(shown)} devices a page, newest first: {first.splitlines()[0]} — {' · '.join(first.splitlines()[1:])[:80]}")
    prefix.clear()


def check_history_panel(s):
    tab(s, "history")
    s.wait(lambda: len(s.d.find_elements(By.CSS_SELECTOR, "#history-list .event")) == 50, timeout=10, what="a page of history")
    s.d.find_element(By.ID, "history-more").click()
    s.wait(lambda: len(s.d.find_elements(By.CSS_SELECTOR, "#history-list .event")) == 100, what="the older page")
    _, _, newest = s.server.api("GET", "/v1/events/history?limit=100")
    listed = [r.get_attribute("data-device") + "/" + r.get_attribute("data-region")
              for r in s.d.find_elements(By.CSS_SELECTOR, "#history-list .event")]
    assert listed == [e["device"] + "/" + e["region"] for e in newest["events"]], "the two pages are not the newest 100 events"
    s.d.find_element(By.ID, "history-device").send_keys("dev-0042")
    s.d.find_element(By.ID, "history-kind").send_keys("enter")
    s.d.find_element(By.CSS_SELECTOR, "#history-form button[type=submit]").click()
    def rows():
        return s.d.find_elements(By.CSS_SELECTOR, "#history-list .event")
    s.wait(lambda: rows() and all(r.get_attribute("data-device") == "dev-0042" and r.get_attribute("data-event") == "enter"
                                  for r in rows()), what="the filtered history")
    _, _, api = s.server.api("GET", "/v1/events/history?device=dev-0042&kind=enter&limit=1000")
    assert len(rows()) == min(50, len(api["events"])), (len(rows()), len(api["events"]))
    # A time range: the third day only.
    day = s.fleet_start + 2 * 86_400
    for field, t in (("history-from", day), ("history-to", day + 86_400)):
        s.js("arguments[0].value = arguments[1]", s.d.find_element(By.ID, field),
             time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t)))
    s.d.find_element(By.CSS_SELECTOR, "#history-form button[type=submit]").click()
    def when(r):
        return calendar.timegm(time.strptime(r.find_element(By.TAG_NAME, "time").get_attribute("datetime")[:19], "%Y-%m-%dT%H:%M:%S"))
    s.wait(lambda: rows() and all(int(day) <= when(r) < day + 86_400 for r in rows()), what="the day's events")
    shoot(s, "history")
    # Export: the whole filtered history as CSV, saved by the browser.
    downloads = tempfile.mkdtemp(prefix="downloads-")
    s.d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    s.d.find_element(By.ID, "export-csv").click()
    path = os.path.join(downloads, "events.csv")
    s.wait(lambda: os.path.exists(path) and os.path.getsize(path) > 0, timeout=10, what="the CSV file")
    lines = open(path, newline="").read().strip().split("\r\n")
    assert lines[0].startswith("cursor,time,event,device,region") and len(lines) - 1 == len(rows()), (lines[:2], len(rows()))
    print(f"    dev-0042's entries: {len(api['events'])}; on the third day {len(rows())}, exported as {path} ({len(lines) - 1} rows)")
    for field in ("history-device", "history-from", "history-to"):
        s.js("arguments[0].value = ''", s.d.find_element(By.ID, field))
    s.d.find_element(By.ID, "history-kind").send_keys("Any kind")


def check_regions_panel(s):
    tab(s, "regions")
    q = s.d.find_element(By.ID, "regions-q")
    q.clear()
    # Site 97: the first visit of dev-0001 (ingest_fleet), so its figures are not all zero.
    q.send_keys("Site 97", Keys.ENTER)
    rows = s.wait(lambda: [r for r in s.d.find_elements(By.CSS_SELECTOR, "#region-list .region-row")
                           if r.get_attribute("data-region") == "r000097"], what="the region in the list")
    status = s.text("regions-status")
    n = s.loads()
    rows[0].click()
    s.wait_for_load(n)
    _, lon, lat, _ = s.regions[97]
    view = s.js("return window.geofenceDashboard.view()")
    w, south, e, north = view["bbox"]
    assert w < lon < e and south < lat < north and view["zoom"] > 13, (view, lon, lat)
    s.wait(lambda: s.text("details-title") == "r000097", what="the region's details")
    figures = s.wait(lambda: s.d.find_element(By.ID, "region-figures").text, what="the region's figures")
    _, _, api = s.server.api("GET", "/v1/regions/r000097/figures")
    assert api["entriesThisWeek"] >= 1 and f"{api['entriesThisWeek']}\nentries, 7 days" in figures, (figures, api)
    shoot(s, "regions")
    print(f"    “Site 97”: {status}; flew to zoom {view['zoom']:.1f}; figures {figures.replace(chr(10), ' ')}")


def check_import_export(s):
    tab(s, "regions")
    doc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [121.3, 31.0]}, "properties": {"id": "imp-good-1", "radius": 80}},
        {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[121.3, 31.0], [121.31, 31.01], [121.31, 31.0], [121.3, 31.01], [121.3, 31.0]]]},
         "properties": {"id": "imp-bowtie"}},
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [121.3, 31.0]}, "properties": {"id": "imp-bad-radius", "radius": -4}},
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [121.31, 31.0]}, "properties": {"id": "imp-good-2", "radius": 90}},
    ]}
    path = os.path.join(s.server.dir, "import.geojson")
    with open(path, "w") as f:
        json.dump(doc, f)
    s.d.find_element(By.ID, "import-file").send_keys(path)
    report = s.wait(lambda: "Imported" in s.text("import-report") and s.text("import-report"), timeout=10, what="the import report")
    assert "Imported 2" in report and "Feature 1 (imp-bowtie)" in report and "Feature 2 (imp-bad-radius)" in report, report
    # In the file's order, whatever order the server refused them in; a bow-tie named for what it is.
    assert report.index("Feature 1 (imp-bowtie)") < report.index("Feature 2 (imp-bad-radius)"), report
    bowtie = next(line for line in report.splitlines() if "imp-bowtie" in line)
    assert "crosses itself" in bowtie and "collinear" not in bowtie, bowtie
    shoot(s, "import")
    assert s.server.api("GET", "/v1/regions/imp-good-2")[0] == 200 and s.server.api("GET", "/v1/regions/imp-bowtie")[0] == 404
    # Export of the regions in view (the two imported ones, at zoom 16 there).
    n = s.loads()
    s.js("window.geofenceDashboard.setView(121.305, 31.0, 16)")
    s.wait_for_load(n)
    downloads = tempfile.mkdtemp(prefix="downloads-")
    s.d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    s.d.find_element(By.ID, "export-view").click()
    out = os.path.join(downloads, "regions.geojson")
    s.wait(lambda: os.path.exists(out) and os.path.getsize(out) > 0, timeout=10, what="the exported file")
    ids = sorted(f["properties"]["id"] for f in json.load(open(out))["features"])
    assert {"imp-good-1", "imp-good-2"} <= set(ids), ids
    print(f"    import report: {' / '.join(report.splitlines())[:240]}; exported {ids}")


def check_move_and_reshape(s):
    def open_region(rid):
        """Opens rid's details afresh from the region list (the old details emptied first, so no
        button of an earlier version of the region can be clicked)."""
        if s.d.find_element(By.ID, "details").is_displayed():
            s.d.find_element(By.ID, "details-close").click()
        s.js("document.getElementById('details-body').replaceChildren()")
        tab(s, "regions")
        q = s.d.find_element(By.ID, "regions-q")
        q.clear()
        q.send_keys(rid, Keys.ENTER)
        s.wait(lambda: [r for r in s.d.find_elements(By.CSS_SELECTOR, "#region-list .region-row")
                        if r.get_attribute("data-region") == rid], what=f"{rid} in the list")[0].click()
        s.wait(lambda: s.text("details-title") == rid and s.d.find_elements(By.ID, "region-figures"), what=f"{rid}'s details")
    def button(label):
        return s.wait(lambda: [b for b in s.d.find_elements(By.CSS_SELECTOR, "#details-body .actions button") if b.text == label],
                      what=f"the {label} button")[0]
    open_region("imp-good-1")
    button("Move").click()
    target = (121.302, 31.001)
    s.click_map(*target)
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form")
    s.d.find_element(By.ID, "form-save").click()
    s.wait(lambda: not s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form to close")
    f = s.server.api("GET", "/v1/regions/imp-good-1")[2]
    lon, lat = f["geometry"]["coordinates"]
    assert abs(lon - target[0]) < 2e-5 and abs(lat - target[1]) < 2e-5, f
    open_region("imp-good-1")          # the details of the moved circle, not the ones before
    button("Reshape").click()
    s.click_map(target[0] + 200 / (111_320 * math.cos(math.radians(31))), target[1])
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form")
    s.d.find_element(By.ID, "form-save").click()
    s.wait(lambda: not s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form to close")
    radius = s.server.api("GET", "/v1/regions/imp-good-1")[2]["properties"]["radius"]
    assert 190 <= radius <= 210, radius
    # A polygon: one vertex dragged out by two clicks, then the whole polygon moved.
    def square(lon, lat, half):
        dlon, dlat = half / (111_320 * math.cos(math.radians(lat))), half / 110_574
        return [[lon - dlon, lat - dlat], [lon + dlon, lat - dlat], [lon + dlon, lat + dlat], [lon - dlon, lat + dlat], [lon - dlon, lat - dlat]]
    ring = square(121.32, 31.0, 150)
    assert s.server.api("PUT", "/v1/regions/imp-poly", {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring]},
                                                       "properties": {"id": "imp-poly"}})[0] in (200, 201)
    open_region("imp-poly")
    button("Reshape").click()
    corner = (ring[0][0] - 0.0008, ring[0][1] - 0.0006)
    s.click_map(*ring[0])
    s.click_map(*corner)
    s.d.find_element(By.ID, "hint-finish").click()
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form")
    s.d.find_element(By.ID, "form-save").click()
    s.wait(lambda: not s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form to close")
    moved_vertex = s.server.api("GET", "/v1/regions/imp-poly")[2]["geometry"]["coordinates"][0][0]
    assert abs(moved_vertex[0] - corner[0]) < 3e-5 and abs(moved_vertex[1] - corner[1]) < 3e-5, moved_vertex
    open_region("imp-poly")            # the details of the reshaped polygon, not the ones before
    button("Move").click()
    target = (121.321, 31.0012)
    s.click_map(*target)
    s.wait(lambda: s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form")
    s.d.find_element(By.ID, "form-save").click()
    s.wait(lambda: not s.d.find_element(By.ID, "region-dialog").is_displayed(), what="the form to close")
    pts = s.server.api("GET", "/v1/regions/imp-poly")[2]["geometry"]["coordinates"][0]
    centre = ((min(p[0] for p in pts) + max(p[0] for p in pts)) / 2, (min(p[1] for p in pts) + max(p[1] for p in pts)) / 2)
    assert abs(centre[0] - target[0]) < 3e-5 and abs(centre[1] - target[1]) < 3e-5, (centre, target)
    print(f"    moved imp-good-1 to {lon:.5f}, {lat:.5f}; reshaped to a radius of {radius} m; "
          f"imp-poly's corner dragged to {moved_vertex[0]:.5f}, {moved_vertex[1]:.5f}, then moved to centre {centre[0]:.5f}, {centre[1]:.5f}")


# MARK: Defects of the issue

def check_antimeridian(s):
    """A polygon across 180° (Fiji), seen from the east and from the west, and a pan past 180°."""
    feature = {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[179.6, -17.2], [-179.6, -17.2], [-179.6, -16.8],
                                                                                     [179.6, -16.8], [179.6, -17.2]]]},
               "properties": {"id": "fiji-dateline"}}
    assert s.server.api("PUT", "/v1/regions/fiji-dateline", feature)[0] in (200, 201)
    seen = {}
    for name, lon in (("from the east", -179.8), ("from the west", 179.8)):
        n = s.loads()
        s.js("window.geofenceDashboard.setView(arguments[0], -17, 9)", lon)
        s.wait_for_load(n)
        time.sleep(0.2)
        shot = s.screenshot()
        seen[name] = (s.pixel(179.8, -17.0, shot), s.pixel(-179.8, -17.0, shot))
        assert all(is_region_blue(p) for p in seen[name]), (name, seen[name])
    shoot(s, "antimeridian")
    # Pan east across 180° by keyboard: the view keeps going.
    s.js("window.geofenceDashboard.setView(179.0, -17, 6)")
    for _ in range(8):
        s.d.find_element(By.ID, "map").send_keys(Keys.SHIFT + Keys.ARROW_RIGHT)
    view = s.js("return window.geofenceDashboard.view()")
    lon = view["u"] * 360 - 180
    assert -170 < lon < -100, f"the view stopped at {lon:.1f}°"
    print(f"    the polygon is blue either side of 180° {seen}; panned east to {lon:.1f}°")


def check_long_device_id(s):
    long_id = "tracker-" + "x" * 200
    _, lon, lat, _ = s.regions[5]
    now = time.time()
    fixes = visit_fixes(lon, lat, now - 400)[:8]
    status, _, answer = s.server.api("POST", f"/v1/devices/{long_id}/locations", {"fixes": fixes})
    assert status == 200 and any(e["event"] == "enter" for e in answer["events"]), answer
    tab(s, "live")
    row = s.wait(lambda: [r for r in s.d.find_elements(By.CSS_SELECTOR, "#event-list .event") if r.get_attribute("data-device") == long_id],
                 timeout=5, what="the long id's event")[0]
    box = s.js("""const r = arguments[0].getBoundingClientRect(), e = arguments[0].querySelector('.where'), w = e.getBoundingClientRect();
                  return [r.left, r.right, w.left, w.right, e.textContent, e.scrollWidth <= e.clientWidth];""", row)
    assert box[3] <= box[1] + 0.5 and box[5], f"the region name is pushed out or cut: row {box[:2]}, region {box[2:]}"
    print(f"    a 208-character device id: the region “{box[4]}” is whole ({box[3] - box[2]:.0f} px) inside the row")


def check_offline_state(s):
    s.server.stop()
    banner = s.wait(lambda: s.d.find_element(By.ID, "offline").is_displayed() and s.d.find_element(By.ID, "offline"), timeout=15,
                    what="the offline banner")
    colour = s.js("return getComputedStyle(arguments[0]).backgroundColor", banner)
    height = s.js("return arguments[0].getBoundingClientRect().height", banner)
    assert height < 80, f"the banner is {height} px tall"   # a banner, not the page
    live = s.text("live")
    text = banner.text
    shoot(s, "offline")
    s.server.launch()
    s.wait(lambda: s.text("live") == "Live" and not s.d.find_element(By.ID, "offline").is_displayed(), timeout=25,
           what="the stream back and the banner gone")
    assert colour.startswith("rgb(185, 28, 28") and "Offline" in live, (colour, live)
    print(f"    while the server was down: “{text.splitlines()[0]}…” on {colour}; top bar “{live}”")
