#!/usr/bin/env bash
# One tenant's batched ingestion on 1 core and on 2 cores (`taskset`), the server's engine as
# one engine (--engine-shards 1: every batch through one actor, as before issue 35) and split
# into shards (--engine-shards 2), in one run, the four settings alternated ROUNDS times.
#   swift build -c release --product geofence && scripts/server-scaling.sh
#   OLD=path/to/older/geofence scripts/server-scaling.sh   # adds that build (server and client), same cores
#
# Each run: a fresh SQLite file, REGIONS random circles (imported first, not timed), then DEVICES
# devices posting batches of BATCH fixes unpaced for DURATION seconds (the load generator of
# `geofence serve loadgen`, not pinned, its first PREPARE_MB megabytes of requests encoded before
# the timed run: the same requests, only sent while timed). Reported per run: fixes/s, the
# server's CPU seconds per million fixes (from /proc, over the timed load only) and the load
# generator's (over the timed run where it reports that, else over its whole process). On a 2-core
# machine the generator shares the cores with the 2-core server but has the second core to itself
# beside the 1-core one, so the 2-core figures are, if anything, understated; the CPU seconds per
# million fixes show whether a speed-up came from using more cores or from doing less.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GEOFENCE:-.build/release/geofence}
LOADGEN=${LOADGEN:-$BIN}
OLD=${OLD:-}
# The old build's runs use its own load generator (before --prepare-mb: OLD_PREPARE_MB=0).
OLD_LOADGEN=${OLD_LOADGEN:-$OLD}
PREPARE_MB=${PREPARE_MB:-1024}
OLD_PREPARE_MB=${OLD_PREPARE_MB:-0}
REGIONS=${REGIONS:-20000}
DEVICES=${DEVICES:-16}
BATCH=${BATCH:-10000}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-2}
ONE=${ONE:-0}
TWO=${TWO:-0,1}
# On a machine shared with other work (builds), NICE=-20 (as root) gives the server and the load
# generator the cores they are pinned to before anything else, so that "2 cores" means two cores:
# the processes' nice value and, where the kernel groups tasks by session (autogroup: there a
# process's nice weighs only against its own session), this session's group's.
NICE=${NICE:-0}
if [ "$NICE" != 0 ] && [ -w /proc/self/autogroup ]; then
  AUTOGROUP_NICE=$(sed -n 's/.* nice //p' /proc/$$/autogroup)
  echo "$NICE" >/proc/$$/autogroup || true
fi
PORT=${PORT:-18095}
DIR=$(mktemp -d)
SERVER=
TICKS=$(getconf CLK_TCK)
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$DIR"
  if [ -n "${AUTOGROUP_NICE:-}" ]; then echo "$AUTOGROUP_NICE" >/proc/$$/autogroup || true; fi
}
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

one() {   # $1 label, $2 executable, $3 cores, $4 extra `serve` arguments, $5 load generator, $6 its --prepare-mb
  local db="$DIR/$RANDOM$RANDOM.sqlite" key before after out
  key=$("$2" serve create-key --tenant load --database "$db")
  # shellcheck disable=SC2086 # $4 is a list of arguments
  nice -n "$NICE" taskset -c "$3" "$2" serve --port "$PORT" --database "$db" $4 >"$DIR/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do grep -q listening "$DIR/server.log" && break; sleep 0.1; done
  local prepare=()
  if [ "$6" != 0 ]; then prepare=(--prepare-mb "$6"); fi
  "$5" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" --regions "$REGIONS" --devices 1 --rate 1 \
    --duration 0.01 >/dev/null
  before=$(cpu_ticks "$SERVER")
  out=$( { /usr/bin/time -f "loadgen-cpu %U %S" nice -n "$NICE" "$5" serve loadgen --url "http://127.0.0.1:$PORT" --key "$key" \
    --devices "$DEVICES" --batch "$BATCH" --rate 0 --duration "$DURATION" "${prepare[@]}" ; } 2>&1 | tr '\n' ' ')
  after=$(cpu_ticks "$SERVER")
  echo "== $1 cores $3: server-cpu $(( after - before )) ticks $out" | tee -a "$DIR/results"
  kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=
}

echo "== $(uptime)"
echo "== nice $NICE; $REGIONS regions, $DEVICES devices, batches of $BATCH, $DURATION s a run, cores '$ONE' vs '$TWO'"
: >"$DIR/results"
for _ in $(seq 1 "$ROUNDS"); do
  for cores in "$ONE" "$TWO"; do
    one one-engine "$BIN" "$cores" "--engine-shards 1" "$LOADGEN" "$PREPARE_MB"
    one shards "$BIN" "$cores" "--engine-shards 2" "$LOADGEN" "$PREPARE_MB"
    if [ -n "$OLD" ]; then one old "$OLD" "$cores" "" "$OLD_LOADGEN" "$OLD_PREPARE_MB"; fi
  done
done
echo "== $(uptime)"
python3 - "$DIR/results" "$TICKS" "$ONE" "$TWO" <<'PY'
import re, sys
rows = {}
ticks = float(sys.argv[2])
for line in open(sys.argv[1]):
    m = re.match(r"== (\S+) cores (\S+): server-cpu (\d+) ticks .*fixes accepted (\d+) \(([\d.]+) fixes/s\)", line)
    if not m:
        continue
    label, cores, cpu, fixes, rate = m.groups()
    lg = re.search(r"loadgen-cpu ([\d.]+) ([\d.]+)", line)
    timed = re.search(r"generator CPU ([\d.]+) s during the run, requests encoded during the run (\d+) of (\d+)", line)
    fixes = max(1, int(fixes))
    lg_cpu = float(timed.group(1)) if timed else (float(lg.group(1)) + float(lg.group(2)) if lg else 0)
    live = "%s/%s" % (timed.group(2), timed.group(3)) if timed else "-"
    rows.setdefault((label, cores), []).append((float(rate), int(cpu) / ticks / fixes * 1e6, lg_cpu / fixes * 1e6, live))
print("== %-10s %-5s %-24s %-22s %-24s %s" % ("build", "cores", "fixes/s (runs)", "server CPU-s / M fixes",
      "loadgen CPU-s / M fixes", "requests encoded while timed"))
for (label, cores), runs in rows.items():
    print("== %-10s %-5s %-24s %-22s %-24s %s" % (label, cores, " ".join("%.0f" % r[0] for r in runs),
          " ".join("%.2f" % r[1] for r in runs), " ".join("%.2f" % r[2] for r in runs), " ".join(r[3] for r in runs)))
for label in sorted({k[0] for k in rows}):
    a, b = rows.get((label, sys.argv[3])), rows.get((label, sys.argv[4]))
    if a and b:
        ratios = [y[0] / x[0] for x, y in zip(a, b)]
        print("== %-10s 2 cores / 1 core, per round: %s" % (label, " ".join("%.2f" % r for r in ratios)))
PY
