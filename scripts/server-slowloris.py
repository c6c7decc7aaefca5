#!/usr/bin/env python3
"""Slow-client check for docs/server.md ("Bounded work", connections).

Opens N connections to a running `geofence serve`, each sending half a request head and then
nothing; times three `/health` requests meanwhile; then waits up to WAIT seconds and counts
the connections the server closed.

    geofence serve --port 18111 --database /tmp/s.sqlite &
    python3 scripts/server-slowloris.py 3000 --port 18111 --wait 90
"""
import argparse
import socket
import time
import urllib.request


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("connections", type=int)
    ap.add_argument("--port", type=int, default=18111)
    ap.add_argument("--wait", type=float, default=90, help="seconds to wait for the server to close them")
    a = ap.parse_args()
    socks = []
    started = time.time()
    for _ in range(a.connections):
        s = socket.create_connection(("127.0.0.1", a.port))
        s.send(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # the blank line never comes
        socks.append(s)
    print(f"opened {a.connections} half-sent connections in {time.time() - started:.1f} s")
    for _ in range(3):
        t = time.time()
        with urllib.request.urlopen(f"http://127.0.0.1:{a.port}/health", timeout=30) as r:
            print(f"/health {r.status} in {(time.time() - t) * 1000:.1f} ms")
    deadline = time.time() + a.wait
    closed = 0
    for s in socks:
        s.settimeout(max(0.01, deadline - time.time()))
        try:
            if s.recv(100) == b"":
                closed += 1
        except OSError:
            pass
    print(f"closed by the server: {closed} of {a.connections} within {a.wait:.0f} s")


if __name__ == "__main__":
    main()
