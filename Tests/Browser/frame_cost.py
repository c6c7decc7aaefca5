#!/usr/bin/env python3
"""What a frame of the dashboard's map costs the page's main thread, read from Chromium's own
trace (the DevTools protocol's `Tracing` domain) rather than from the page's clocks.

    python3 Tests/Browser/frame_cost.py --geofence .build/debug/geofence [--runs 2]

Starts `geofence serve` on a fresh file, signs in, and for each run traces (a) 1.5 s of drags
over the map (real pointer input, 30 ms a step) and (b) 1.5 s of the same page left idle. For
each it prints the renderer main thread's frames (`ProxyMain::BeginMainFrame`) and their
`Commit` step: count, median, 95th percentile and longest, in ms. The page's own drawing is
well under a millisecond a frame; what this shows is the rest of each frame, which the
browser test's long tasks are made of on a starved machine (docs/performance.md).
"""
import argparse
import json
import os
import statistics
import sys
import time
import urllib.request

import websocket
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import Server  # noqa: E402

CATEGORIES = ["toplevel", "cc", "blink", "devtools.timeline", "disabled-by-default-devtools.timeline"]


class Trace:
    """A trace of the whole browser through its DevTools endpoint (the driver's own session
    cannot receive the protocol's events)."""

    def __init__(self, driver):
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version") as r:
            url = json.load(r)["webSocketDebuggerUrl"]
        self.ws = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.ws.send(json.dumps({"id": 1, "method": "Tracing.start",
                                 "params": {"traceConfig": {"includedCategories": CATEGORIES}, "transferMode": "ReportEvents"}}))

    def stop(self):
        self.ws.send(json.dumps({"id": 2, "method": "Tracing.end"}))
        events = []
        while True:
            m = json.loads(self.ws.recv())
            if m.get("method") == "Tracing.dataCollected":
                events += m["params"]["value"]
            elif m.get("method") == "Tracing.tracingComplete":
                self.ws.close()
                return events


def main_thread_spans(events, name):
    """The durations (ms) of complete events `name` on the renderer main threads."""
    mains = {(e["pid"], e["tid"]) for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    return [e["dur"] / 1000 for e in events if e.get("ph") == "X" and e.get("name") == name and (e["pid"], e["tid"]) in mains]


def figures(xs):
    if not xs:
        return "none"
    xs = sorted(xs)
    return (f"{len(xs)} × median {statistics.median(xs):.1f}, 95th percentile {xs[min(len(xs) - 1, int(len(xs) * 0.95))]:.1f}, "
            f"longest {xs[-1]:.1f} ms")


def drag(driver, seconds):
    canvas = driver.find_element(By.ID, "map")
    deadline = time.monotonic() + seconds
    step = 1
    while time.monotonic() < deadline:
        chain = ActionChains(driver, duration=30).move_to_element(canvas).click_and_hold()
        for i in range(20):
            chain = chain.move_by_offset(-8 * step, 3 if i % 2 else -3)
        chain.release().perform()
        step = -step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geofence", required=True)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = ap.parse_args()
    options = Options()
    options.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900",
                 "--force-device-scale-factor=1", "--hide-scrollbars", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    server = Server(os.path.abspath(args.geofence)).start()
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    try:
        driver.get(f"{server.base}/#map=13/31.23/121.47")
        driver.find_element(By.ID, "api-key").send_keys(server.key)
        driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        deadline = time.monotonic() + 20
        while not driver.execute_script("return (window.geofenceDashboard && window.geofenceDashboard.loadCount) || 0"):
            assert time.monotonic() < deadline, "the dashboard did not load"
            time.sleep(0.05)
        time.sleep(1)
        for run in range(1, args.runs + 1):
            for what in ("drag", "idle"):
                trace = Trace(driver)
                time.sleep(0.3)
                if what == "drag":
                    drag(driver, 1.5)
                else:
                    time.sleep(1.5)
                events = trace.stop()
                print(f"run {run}, {what}: BeginMainFrame {figures(main_thread_spans(events, 'ProxyMain::BeginMainFrame'))}; "
                      f"Commit {figures(main_thread_spans(events, 'Commit'))}", flush=True)
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
