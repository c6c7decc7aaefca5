#!/usr/bin/env bash
# Notification throughput and its cost to ingestion, for docs/performance.md: a release
# `geofence serve` on a fresh SQLite file sends to the APNs stand-in (`push-stand-in`, HTTP/2
# over TLS, every request's provider token, topic, headers and payload checked as Apple's
# documentation says), both on this machine.
#   1. Burst: one phone with one APNs token walks into N overlapping regions (N = 10,000 by
#      default) in ONE ingestion request; the rule greets every entry, so that request commits
#      N events and the worker sends N pushes. Figures: the request's time, and pushes per
#      second from the request's start to the stand-in's N-th accepted push.
#   The stand-in runs at the lowest priority (SCHED_IDLE, `chrt --idle 0`): it stands for Apple's
#   servers, which do not share the server's cores; at normal priority its TLS and checks take a
#   third of a core from the server during a burst, and the ingestion figures would measure the
#   stand-in. (Nice 19 is not enough: the scheduler lets a running thread finish its slice, about
#   a millisecond, before a request's thread that wakes.) It still gets every core the server
#   leaves, so the throughput figure counts its work against the server's time.
#   2. Ingestion with notifications off, then on (fresh store each; alternated ROUNDS times):
#      paced single fixes from 32 devices (RATE requests/s for DURATION s) through REGIONS random
#      regions plus the N circles, and the burst request of 1. one second in. "on" has the rule
#      and a token for the phone and every device, so the burst's N pushes (and any entry of the
#      devices) go out while the load runs. Figures: the load generator's p50 / p99, the
#      pushes the stand-in accepted meanwhile, the CPU seconds the server and the stand-in
#      used, and the latencies of the requests sent before the burst, in its second (its commit
#      holds the tenant's writes for a few hundred milliseconds, notifications or not) and after
#      it (while the pushes go out), and from the server's /metrics how the requests waited for
#      the SQLite writer's connection: how many arrived while the server's own work held it (the
#      notification worker's: today one queue delete per planned batch, and removing invalid
#      tokens), and how many of those and of the others waited over 0.5 ms.
#      With OLD=<another geofence binary>, each round measures that binary too, off then on,
#      before this one: old and new side by side in one run (this one's load generator for
#      both).
#   swift build -c release --product geofence && swift build -c release --product push-stand-in
#   scripts/bench-notifications.sh
#   N=2000 RATE=500 DURATION=5 ROUNDS=1 scripts/bench-notifications.sh   # a quicker look
#   SENDS_IN_FLIGHT=8 scripts/bench-notifications.sh   # the worker's window (default 64)
#   MODES="off on idle-load" ROUNDS=6 scripts/bench-notifications.sh
#   3. Summary: each figure's median over the rounds, and an exact Mann-Whitney test of "on"
#      against "off" (p near 1: the rounds cannot tell them apart; below 0.05: they differ).
#      "idle-load" is a control: notifications off, and for IDLE_LOAD_SECONDS (3) from the burst
#      two other processes at SCHED_IDLE touch 64 MB each, about the CPU the pushes take. It
#      shows what any work at the lowest priority costs the requests on this machine.
#      "idle-net", another control: notifications off, and for 3 s from the burst a process at
#      SCHED_IDLE exchanges IDLE_NET_RATE (3,500) request/answer pairs a second with itself over
#      loopback TCP, each message a write of its own (300 and 40 bytes): the pushes' packets,
#      without their TLS and HTTP/2 work. MODES="off on idle-load idle-net" runs all four.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GEOFENCE:-.build/release/geofence}
STANDIN=${STANDIN:-.build/release/push-stand-in}
N=${N:-10000}
REGIONS=${REGIONS:-20000}
RATE=${RATE:-1000}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-2}
PORT=${PORT:-18095}
TOPIC=org.example.geofence
TOKEN=$(printf 'ab12%.0s' $(seq 1 16))
DIR=$(mktemp -d)
SERVER=
STANDIN_PID=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ -n "$STANDIN_PID" ]; then kill "$STANDIN_PID" 2>/dev/null || true; wait "$STANDIN_PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT

# The team's signing key (a .p8 is a PKCS #8 P-256 key) and the stand-in's TLS certificate.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$DIR/AuthKey.p8" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$DIR/tls.key" -out "$DIR/tls.pem" \
  -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null

standin() {   # $1: pushes expected
  if [ -n "$STANDIN_PID" ]; then kill "$STANDIN_PID"; wait "$STANDIN_PID" 2>/dev/null || true; fi
  chrt --idle 0 "$STANDIN" --certificate "$DIR/tls.pem" --key "$DIR/tls.key" --signing-key "$DIR/AuthKey.p8" \
    --key-id ABC123DEFG --team-id DEF123GHIJ --topic "$TOPIC" --expect "$1" >"$DIR/standin.log" 2>&1 &
  STANDIN_PID=$!
  for _ in $(seq 1 100); do grep -q listening "$DIR/standin.log" && break; sleep 0.1; done
  local port
  port=$(awk '/listening/ {print $2; exit}' "$DIR/standin.log")
  cat >"$DIR/server.json" <<JSON
{"notifications":{"apns":{"teamID":"DEF123GHIJ","keyID":"ABC123DEFG","privateKeyPath":"$DIR/AuthKey.p8",
  "endpoint":"https://127.0.0.1:$port"},"additionalTrustRootsPath":"$DIR/tls.pem"${SENDS_IN_FLIGHT:+,\"sendsInFlight\":$SENDS_IN_FLIGHT}}}
JSON
}

serve() {   # fresh store; sets KEY and SERVER
  local db="$DIR/bench-$RANDOM.sqlite"
  KEY=$("$BIN" serve create-key --tenant bench --database "$db")
  "$BIN" serve --port "$PORT" --database "$db" --config "$DIR/server.json" >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do grep -q listening "$DIR/server.log" && return; sleep 0.1; done
  cat "$DIR/server.log"; exit 1
}

windows() {   # $1 latencies, $2 run label, $3 the server's /metrics: p50 / p90 / p99 of the requests
# sent before the burst, in its second, and after it, and how the requests waited for the SQLite
# connection; appends the run's figures to $DIR/results.csv for the summary
python3 - "$1" "$2" "$DIR/results.csv" "$3" <<'PY'
import csv, re, sys
rows = [(float(r["sent_s"]), float(r["latency_ms"])) for r in csv.DictReader(open(sys.argv[1]))]
samples = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\S+) (\S+)$", open(sys.argv[4]).read(), re.M)}
def sample(name): return samples.get(name, 0.0)
def waits(arrived):   # requests' closures that arrived so, and those of them that waited over 0.5 ms
    name = 'geofence_sqlite_request_wait_seconds%s{arrived="' + arrived + '"%s}'
    n = sample(name % ("_count", ""))
    return n, n - sample(name % ("_bucket", ',le="0.0005"'))
behind, behind_slow = waits("during_background")
other, other_slow = waits("otherwise")
hold = sample("geofence_sqlite_background_hold_seconds_sum")
holds = sample("geofence_sqlite_background_hold_seconds_count")
print("==   SQLite connection: %d request closures arrived while the server's own work held it (%d of them waited"
      " over 0.5 ms), %d otherwise (%d); its own work held it %.2f s in %d closures"
      % (behind, behind_slow, other, other_slow, hold, holds))
def q(v, f): return v[min(len(v) - 1, max(0, int(-(-f * len(v) // 1)) - 1))]
parts, figures = [], {"run": sys.argv[2], "p99": q(sorted(l for _, l in rows), .99),
                      "behind": behind, "behind_slow": behind_slow, "other_slow": other_slow}
for key, name, lo, hi in (("before", "before the burst", 0, 1), ("burst", "the burst's second", 1, 2),
                          ("after", "after it", 2, 1e9)):
    v = sorted(l for t, l in rows if lo <= t < hi)
    if v:
        parts.append("%s %d requests p50 %.2f p90 %.2f p99 %.2f" % (name, len(v), q(v, .5), q(v, .9), q(v, .99)))
        figures[key + "_p50"], figures[key + "_p99"] = q(v, .5), q(v, .99)
print("==   sent " + "; ".join(parts) + " (ms)")
with open(sys.argv[3], "a") as out:
    out.write(",".join("%s=%s" % kv for kv in figures.items()) + "\n")
PY
}

summary() {   # each run's figures across the rounds, and whether "on" differs from "off"
python3 - "$DIR/results.csv" <<'PY'
import itertools, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=") for kv in line.strip().split(","))
    runs.setdefault(f.pop("run"), []).append({k: float(v) for k, v in f.items()})
def u_test(a, b):
    """Two-sided exact Mann-Whitney U: the chance that labels drawn at random split the pooled
    rounds at least as unevenly as "on" and "off" do."""
    pooled, n = a + b, len(a)
    def stat(sel):
        x = [pooled[i] for i in sel]; y = [pooled[i] for i in range(len(pooled)) if i not in sel]
        return sum((xi > yi) + 0.5 * (xi == yi) for xi in x for yi in y)
    observed = stat(range(n))
    centre = n * len(b) / 2
    splits = list(itertools.combinations(range(len(pooled)), n))
    return sum(abs(stat(s) - centre) >= abs(observed - centre) - 1e-9 for s in splits) / len(splits)
print("== summary over the rounds: median (lowest-highest), ms unless a count")
for key, name in (("p99", "whole run p99"), ("burst_p50", "burst's second p50"), ("after_p99", "after it p99"),
                  ("behind", "requests arrived while the worker held the connection (count)"),
                  ("behind_slow", "of them, waited over 0.5 ms (count)"),
                  ("other_slow", "other requests that waited over 0.5 ms (count)")):
    for build in sorted({r.split(" ")[0] for r in runs if " " in r} or {""}):
        prefix = build + " " if build else ""
        cells = []
        for mode in ("off", "on", "idle-load", "idle-net"):
            v = [r[key] for r in runs.get(prefix + mode, []) if key in r]
            if v: cells.append("%s %.2f (%.2f-%.2f)" % (mode, statistics.median(v), min(v), max(v)))
        off = [r[key] for r in runs.get(prefix + "off", []) if key in r]
        on = [r[key] for r in runs.get(prefix + "on", []) if key in r]
        test = ""
        if len(off) >= 3 and len(on) >= 3:
            test = "; on against off: p = %.2f (exact Mann-Whitney, %d rounds each)" % (u_test(on, off), len(on))
        print("==   %s%s: %s%s" % (prefix, name, ", ".join(cells), test))
PY
}

idle_load() {   # as much CPU as a burst's pushes take, at SCHED_IDLE, from processes that are not the server
  for _ in 1 2; do
    timeout "${IDLE_LOAD_SECONDS:-3}" chrt --idle 0 python3 -c "
import array
a = array.array('q', range(8_000_000))   # 64 MB, touched a cache line at a time
while True:
    for i in range(0, len(a), 8): a[i] += 1
" &
  done
}

idle_net() {   # the pushes' loopback packets, without their CPU, at SCHED_IDLE (a control)
  timeout 5 chrt --idle 0 python3 -c "
import socket, sys, threading, time
rate, seconds = int(sys.argv[1]), 3.0
server = socket.create_server(('127.0.0.1', 0))
def answer():   # one answer per 300 bytes received, however TCP splits them
    c, _ = server.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pending = 0
    while (d := c.recv(65536)):
        pending += len(d)
        for _ in range(pending // 300): c.send(b'a' * 40)
        pending %= 300
def drain():
    while client.recv(65536): pass
threading.Thread(target=answer, daemon=True).start()
client = socket.create_connection(server.getsockname())
client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
threading.Thread(target=drain, daemon=True).start()
start, sent = time.time(), 0
while time.time() - start < seconds:
    while sent < int((time.time() - start) * rate):
        client.send(b'r' * 300); sent += 1
    time.sleep(0.0005)
" "${IDLE_NET_RATE:-3500}" &
}

cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"; }

stop() { kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=; }

api() {   # method path [body]
  curl -fsS -X "$1" "http://127.0.0.1:$PORT$2" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' ${3:+--data-binary "$3"} >/dev/null
}

rule() { api POST /v1/notification-rules '{"id":"welcome","events":["enter"],"title":"Welcome to {region.id}","body":"{device.id} entered {region.id}"}'; }
token() { api PUT "/v1/devices/$1/push-tokens/$TOKEN" "{\"service\":\"apns\",\"topic\":\"$TOPIC\",\"environment\":\"production\"}"; }

import_bund() {   # the N overlapping circles at the Bund
python3 - "$N" >"$DIR/regions.json" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"type": "FeatureCollection", "features": [
    {"type": "Feature", "geometry": {"type": "Point", "coordinates": [121.499781, 31.239394]},
     "properties": {"id": "b-%d" % i, "radius": 2000 + i % 500}} for i in range(n)]}))
PY
for part in $(seq 0 $(( (N - 1) / 10000 ))); do
  python3 -c "
import json,sys
d=json.load(open('$DIR/regions.json')); d['features']=d['features'][$part*10000:($part+1)*10000]; print(json.dumps(d))" >"$DIR/part.json"
  api POST /v1/regions/import "@$DIR/part.json"
done
}

burst() {   # one request: the phone walks into every circle; sets START and ANSWERED
# Outside, then six fixes 10 s apart inside every region: the entries are confirmed in this request.
FIXES=$(python3 -c "
import json, time
start=time.time()-600  # ten minutes ago: the server refuses fixes from its future
t=lambda s: time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(start+s))
f=[{'latitude':31.269394,'longitude':121.499781,'timestamp':t(0),'horizontalAccuracy':8}]
f+=[{'latitude':31.240394,'longitude':121.499781,'timestamp':t(10*i),'horizontalAccuracy':8} for i in range(1,7)]
print(json.dumps({'fixes':f}))")
START=$(date +%s.%N)
curl -fsS -o "$DIR/answer.json" -X POST "http://127.0.0.1:$PORT/v1/devices/bench-phone/locations" \
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary "$FIXES"
ANSWERED=$(date +%s.%N)
}

echo "== $(uptime)"
echo "== 1. burst: one request, $N entries, $N pushes"
standin "$N"
serve
import_bund
rule
token bench-phone
burst
EVENTS=$(python3 -c "import json; print(len(json.load(open('$DIR/answer.json')).get('events', [])))")
for _ in $(seq 1 1200); do grep -q "^accepted .* at" "$DIR/standin.log" && break; sleep 0.1; done
LAST=$(awk '/^accepted .* at/ {sub(/,$/, "", $4); print $4; exit}' "$DIR/standin.log")
FIRST=$(awk '/^first accepted at/ {print $4; exit}' "$DIR/standin.log")
if [ -z "$LAST" ]; then echo "the stand-in saw $(grep -c . "$DIR/standin.log") lines, not $N pushes:"; tail -3 "$DIR/standin.log"; exit 1; fi
python3 - "$N" "$EVENTS" "$START" "$ANSWERED" "$FIRST" "$LAST" <<'PY'
import sys
n, events, start, answered, first, last = int(sys.argv[1]), int(sys.argv[2]), *map(float, sys.argv[3:])
print("== request: %d events committed in %.2f s" % (events, answered - start))
print("== first push %.2f s after the request started, push %d after %.2f s" % (first - start, n, last - start))
print("== %.0f pushes/s from the request's start; %.0f pushes/s from the first push to the last"
      % (n / (last - start), (n - 1) / max(last - first, 1e-9)))
PY
grep "^accepted .* at" "$DIR/standin.log"
stop

echo "== 2. ingestion p99, notifications off / on ($ROUNDS rounds, $REGIONS regions + the $N, $RATE requests/s, $DURATION s)"
NEW=$BIN
for round in $(seq 1 "$ROUNDS"); do
  for run in ${OLD:+old} new; do
    if [ "$run" = old ]; then BIN=$OLD; else BIN=$NEW; fi
    for mode in ${MODES:-off on}; do
      standin 1000000000
      serve
      "$NEW" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --regions "$REGIONS" --devices 1 --rate 1 --duration 0.01 >/dev/null
      import_bund
      RUN="r$round$run$mode"
      if [ "$mode" = on ]; then
        rule
        token bench-phone
        for d in $(seq 0 31); do token "$RUN-$d"; done
      fi
      "$NEW" serve loadgen --url "http://127.0.0.1:$PORT" --key "$KEY" --run-id "$RUN" --devices 32 --batch 1 \
        --rate "$RATE" --duration "$DURATION" --latencies "$DIR/latencies.csv" >"$DIR/loadgen.txt" &
      LOADGEN_PID=$!
      sleep 1
      if [ "$mode" = idle-load ]; then idle_load; fi
      if [ "$mode" = idle-net ]; then idle_net; fi
      burst >/dev/null
      wait "$LOADGEN_PID"
      sleep 2
      echo "== ${OLD:+$run }$mode: $(tr '\n' ' ' <"$DIR/loadgen.txt")"
      echo "==   pushes accepted by the stand-in during the run: $(awk '/^accepted [0-9]+$/ {n=$2} END {print n+0}' "$DIR/standin.log");" \
        "CPU seconds: server $(cpu_seconds "$SERVER"), stand-in $(cpu_seconds "$STANDIN_PID")"
      curl -fsS "http://127.0.0.1:$PORT/metrics" -H "Authorization: Bearer $KEY" >"$DIR/metrics.txt" || :>"$DIR/metrics.txt"
      windows "$DIR/latencies.csv" "${OLD:+$run }$mode" "$DIR/metrics.txt"
      stop
    done
  done
done
BIN=$NEW
summary
echo "== $(uptime)"
