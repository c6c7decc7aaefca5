"""Starts a `geofence serve` on a fresh SQLite file and a free loopback port, and talks to its
/v1 API with the standard library."""
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request


class Server:
    def __init__(self, binary, extra=()):
        self.binary = binary
        self.extra = list(extra)      # more `geofence serve` arguments, e.g. ["--config", PATH]
        self.dir = tempfile.mkdtemp(prefix="geofence-browser-")
        self.db = os.path.join(self.dir, "geofence.sqlite")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.key = None

    def start(self):
        self.key = subprocess.run([self.binary, "serve", "create-key", "--tenant", "browser", "--database", self.db],
                                  check=True, capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[-1]
        return self.launch()

    def restart(self):
        """Stops the server and starts it again on the same port and file (same keys)."""
        self.stop()
        return self.launch()

    def launch(self):
        self.log = open(os.path.join(self.dir, "server.log"), "a")
        self.proc = subprocess.Popen([self.binary, "serve", "--port", str(self.port), "--database", self.db] + self.extra,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=1):
                    return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"geofence serve exited with {self.proc.returncode}; log in {self.dir}")
                time.sleep(0.1)
        raise RuntimeError("geofence serve did not answer /health within 60 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def api(self, method, path, body=None, key=None):
        """(status, headers, parsed JSON or None)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {key or self.key}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                text = r.read()
                return r.status, dict(r.headers), (json.loads(text) if text else None)
        except urllib.error.HTTPError as e:
            text = e.read()
            return e.code, dict(e.headers), (json.loads(text) if text else None)

    def raw(self, path, headers=None):
        """(status, headers, bytes) of an unauthenticated GET."""
        req = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()
