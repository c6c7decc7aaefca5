"""What an operator used to Traccar looks for, on fleet.py's data: replay in a view of its own,
clusters shown once and apart at low zoom, whole times in the history's filters, a long region
name beside a device id, battery and online / offline in the device's details, the list and on
the map, and an export of the regions ticked in the list.
"""
import datetime
import json
import math
import os
import tempfile
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import fleet

REPLAY_BLUE = (8, 145, 178)       # map.js COLORS.replay
DEVICE_RED = (225, 29, 72)        # COLORS.device
OFFLINE_GREY = (148, 163, 184)    # COLORS.offline


def epoch(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def near(a, b, tolerance=12):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def page_point(s, lon, lat):
    x, y, rect = s.screen_of(lon, lat)
    return rect[0] + x, rect[1] + y


def open_device(s, device):
    fleet.tab(s, "devices")
    box = s.d.find_element(By.ID, "devices-prefix")
    box.clear()
    box.send_keys(device, Keys.ENTER)
    row = s.wait(lambda: s.d.find_elements(By.CSS_SELECTOR, f'#device-list .device-row[data-device="{device}"]'), what=device)
    row[0].click()
    s.wait(lambda: s.text("details-title") == device and s.d.find_elements(By.ID, "replay-load"), what=f"{device}'s details")
    box.clear()


def check_replay_view(s):
    device = "dev-0007"
    sent = s.sent_fixes[device]
    open_device(s, device)
    s.js("arguments[0].value = arguments[1]", s.d.find_element(By.ID, "replay-from"),
         time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(epoch(sent[0]["timestamp"]) - 60)))
    s.d.find_element(By.ID, "replay-load").click()
    s.wait(lambda: s.d.find_element(By.ID, "replay-view").is_displayed(), timeout=10, what="the replay view")
    replay = s.wait(lambda: s.js("return window.geofenceDashboard.replay()"), what="the replay")
    got = replay["points"]
    assert len(got) == len(sent), f"{len(got)} fixes replayed, {len(sent)} sent"
    for g, f in zip(got, sent):
        assert abs(g[0] - f["longitude"]) < 1e-6 and abs(g[1] - f["latitude"]) < 1e-6 and abs(epoch(g[2]) - epoch(f["timestamp"])) < 1, (g, f)
    time.sleep(0.3)
    assert s.js("return window.geofenceDashboard.drawnDevices()") == [], "other devices are drawn in the replay view"
    events = s.server.api("GET", f"/v1/events/history?device={device}&limit=1000")[2]["events"]
    slider = s.d.find_element(By.ID, "replay-slider")
    for k in (0, len(sent) // 2, len(sent) - 1):
        s.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", slider, k)
        time.sleep(0.15)
        at = s.js("return window.geofenceDashboard.replay()")["at"]
        assert abs(at[0] - sent[k]["longitude"]) < 1e-6 and abs(at[1] - sent[k]["latitude"]) < 1e-6, (k, at, sent[k])
        x, y = page_point(s, sent[k]["longitude"], sent[k]["latitude"])
        top = s.js("const e = document.elementFromPoint(arguments[0], arguments[1]); return e && e.id", x, y)
        colour = s.pixel(sent[k]["longitude"], sent[k]["latitude"])
        assert top == "map" and near(colour, REPLAY_BLUE), f"fix {k}: the element on top is {top!r}, the pixel {colour}"
        passed = sum(1 for e in events if epoch(e["time"]) <= epoch(sent[k]["timestamp"]))
        marked = len(s.d.find_elements(By.CSS_SELECTOR, "#replay-events .replay-event.passed"))
        assert marked == passed, f"fix {k}: {marked} events marked passed, {passed} happened by then"
    # Elements of the bar are all in the window (the slider and the times are never below the fold).
    for name in ("replay-slider", "replay-start", "replay-end", "replay-play", "replay-speed"):
        r = s.js("const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom, innerHeight];", s.d.find_element(By.ID, name))
        assert 0 <= r[0] and r[1] <= r[2], f"{name} is outside the window: {r}"
    # Play, then pause: the position moves, then stays.
    s.js("arguments[0].value = 0; arguments[0].dispatchEvent(new Event('input'))", slider)
    s.js("arguments[0].value = '3600'", s.d.find_element(By.ID, "replay-speed"))
    s.d.find_element(By.ID, "replay-play").click()
    s.wait(lambda: s.js("return window.geofenceDashboard.replay()")["index"] > 0, timeout=5, what="playback to move")
    s.d.find_element(By.ID, "replay-play").click()
    paused = s.js("return window.geofenceDashboard.replay()")["index"]
    time.sleep(0.3)
    assert s.js("return window.geofenceDashboard.replay()")["index"] == paused, "pause did not stop the playback"
    fleet.shoot(s, "replay")
    s.d.find_element(By.ID, "replay-close").click()
    s.wait(lambda: not s.d.find_element(By.ID, "replay-view").is_displayed(), what="the live view")
    print(f"    {len(got)} fixes replayed = the {len(sent)} sent; the marker on top at fixes 0, {len(sent) // 2}, {len(sent) - 1}; "
          f"no other device drawn; paused at fix {paused}")


def check_clusters_once_apart(s):
    """At zoom 1 the world repeats across the view: each cluster is drawn once; at zooms 1–8 no
    two discs overlap, and their counts add up to every region."""
    n = s.loads()
    s.js("window.geofenceDashboard.setView(-58.5, 31.2, 1)")    # Shanghai half a world (256 px) either side
    s.wait_for_load(n)
    time.sleep(0.2)
    shot = s.screenshot()
    x, y, rect = s.screen_of(121.5, 31.2)
    copies = [dx for dx in (-512, 0, 512) if 0 <= x + dx < rect[2]]
    # Read below the count written in the disc's middle (a disc is 11 + 4 log10(count) px wide).
    blue = [dx for dx in copies if (lambda p: p[2] > 150 and p[2] - p[0] > 80)(shot.median(int(rect[0] + x + dx), int(rect[1] + y + 16)))]
    assert len(copies) >= 2 and len(blue) == 1, f"the Shanghai cluster is drawn at {len(blue)} of the {len(copies)} copies of the world in view"
    worst = None
    for zoom in range(1, 9):
        n = s.loads()
        s.js("window.geofenceDashboard.setView(121.5, 31.2, arguments[0])", zoom)
        load = s.wait_for_load(n)
        time.sleep(0.1)
        discs = s.js("return window.geofenceDashboard.clusters()")
        for i, a in enumerate(discs):
            for b in discs[i + 1:]:
                d = math.hypot(a["x"] - b["x"], a["y"] - b["y"])
                assert d >= a["r"] + b["r"], f"zoom {zoom}: discs of {a['count']} and {b['count']} overlap ({d:.0f} px apart)"
        if load["clusters"]:
            assert sum(c["count"] for c in discs) == load["matched"], (zoom, sum(c["count"] for c in discs), load["matched"])
            worst = (zoom, len(discs), load["clusters"])
    print(f"    zoom 1: one Shanghai cluster across {len(copies)} copies of the world; zooms 1–8: no discs overlap "
          f"(zoom {worst[0]}: {worst[2]} cells drawn as {worst[1]} discs)")


def check_history_times_whole(s):
    fleet.tab(s, "history")
    for name in ("history-from", "history-to"):
        field = s.d.find_element(By.ID, name)
        s.js("arguments[0].value = '2026-11-30T23:59:58'", field)
        width, needed = s.js("""const f = arguments[0], probe = document.createElement('input');
            probe.type = 'datetime-local'; probe.step = '1'; probe.value = f.value;
            probe.style.cssText = 'position:absolute;left:-9999px;width:auto';
            f.parentElement.append(probe);   // the same rules as the field, at its natural width
            const w = [f.getBoundingClientRect().width, probe.getBoundingClientRect().width];
            probe.remove(); return w;""", field)
        assert width >= needed, f"{name} is {width:.0f} px wide, its value with seconds needs {needed:.0f} px"
    print(f"    From / To are {width:.0f} px wide, a time with seconds needs {needed:.0f} px")


def check_long_region_name(s):
    long_region = "a-region-with-a-very-long-name-" + "y" * 120
    _, lon, lat, _ = s.regions[11]
    lon += 0.3
    feature = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]}, "properties": {"id": long_region, "radius": 200}}
    assert s.server.api("PUT", f"/v1/regions/{long_region}", feature)[0] in (200, 201)
    device = "van-12"
    status, _, answer = s.server.api("POST", f"/v1/devices/{device}/locations", {"fixes": fleet.visit_fixes(lon, lat, time.time() - 400)[:8]})
    assert status == 200 and any(e["event"] == "enter" for e in answer["events"]), answer
    fleet.tab(s, "live")
    row = s.wait(lambda: s.d.find_elements(By.CSS_SELECTOR, f'#event-list .event[data-device="{device}"]'), timeout=5, what="the event")[0]
    who = s.js("const e = arguments[0].querySelector('.who'); return [e.scrollWidth, e.clientWidth, e.textContent];", row)
    assert who[0] <= who[1], f"the device id {who[2]!r} is cut to {who[1]} of its {who[0]} px beside a long region name"
    print(f"    beside a {len(long_region)}-character region, the device id “{who[2]}” is whole ({who[1]} px)")


def check_battery_and_status(s):
    """A device that reported a minute ago with its battery: online with its battery in the list,
    in its details and as a red dot; one silent for two hours: offline in the list and a grey dot."""
    _, lon, lat, _ = s.regions[21]
    now = time.time()
    fixes = {"courier-3": (lon, lat + 0.01, now - 60), "parked-1": (lon + 0.01, lat + 0.01, now - 7200)}
    for device, (flon, flat, t) in fixes.items():
        fix = {"latitude": flat, "longitude": flon, "timestamp": fleet.iso(t), "horizontalAccuracy": 8}
        assert s.server.api("POST", f"/v1/devices/{device}/locations", {"fixes": [fix]})[0] == 200
    assert s.server.raw(f"/v1/ingest/osmand?key={s.server.key}&id=courier-3&batt=64")[0] == 200
    rows = {}
    for device in fixes:
        fleet.tab(s, "devices")
        box = s.d.find_element(By.ID, "devices-prefix")
        box.clear()
        box.send_keys(device, Keys.ENTER)
        rows[device] = s.wait(lambda: [r.text for r in s.d.find_elements(By.CSS_SELECTOR, f'#device-list .device-row[data-device="{device}"]')],
                              what=device)[0]
        box.clear()
    assert "online" in rows["courier-3"] and "battery 64 %" in rows["courier-3"], rows["courier-3"]
    assert "offline" in rows["parked-1"], rows["parked-1"]
    open_device(s, "courier-3")
    assert s.text("device-status") == "online" and "64 %" in s.text("device-battery"), s.text("details-body")[:300]
    s.d.find_element(By.ID, "details-close").click()
    # The map: the page's poll places both (fed here as the poll would, not to wait 5 s).
    s.js("window.geofenceDashboard.feed(arguments[0])", {d: [[flon, flat, fleet.iso(t)]] for d, (flon, flat, t) in fixes.items()})
    n = s.loads()
    s.js("window.geofenceDashboard.setView(arguments[0], arguments[1], 15)", lon + 0.005, lat + 0.01)
    s.wait_for_load(n)
    time.sleep(0.2)
    shot = s.screenshot()
    colours = {d: s.pixel(flon, flat, shot) for d, (flon, flat, _) in fixes.items()}
    assert near(colours["courier-3"], DEVICE_RED, 20) and near(colours["parked-1"], OFFLINE_GREY, 20), colours
    print(f"    courier-3: online, battery 64 % in the list and details, dot {colours['courier-3']}; "
          f"parked-1 (two hours silent): offline, dot {colours['parked-1']}")


def check_export_selection(s):
    fleet.tab(s, "regions")
    q = s.d.find_element(By.ID, "regions-q")
    q.clear()
    q.send_keys("Site 4242", Keys.ENTER)
    wanted = {rid for rid, *_ in s.regions if f"Site {int(rid[1:])}".startswith("Site 4242")}
    picks = s.wait(lambda: (lambda ps: ps if ps and all(p.get_attribute("data-region") in wanted for p in ps) else None)(
        s.d.find_elements(By.CSS_SELECTOR, "#region-list .region-pick")), what="the search's rows")
    chosen = [p.get_attribute("data-region") for p in picks[:2]]
    for p in picks[:2]:
        p.click()
    downloads = tempfile.mkdtemp(prefix="downloads-")
    s.d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    button = s.d.find_element(By.ID, "export-selected")
    assert "(2)" in button.text, button.text
    button.click()
    out = os.path.join(downloads, "regions.geojson")
    s.wait(lambda: os.path.exists(out) and os.path.getsize(out) > 0, timeout=10, what="the exported file")
    ids = sorted(f["properties"]["id"] for f in json.load(open(out))["features"])
    assert ids == sorted(chosen), (ids, chosen)
    for p in picks[:2]:
        p.click()
    q.clear()
    print(f"    ticked {chosen}; exported exactly those")
