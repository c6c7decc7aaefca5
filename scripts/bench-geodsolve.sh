#!/usr/bin/env bash
# Times `geofence geodesic inverse` against GeographicLib's `GeodSolve -i` on the same
# 1,000,000 random lines (seeded), side by side, and checks that the answers agree.
#
#   apt-get install -y geographiclib-tools   # GeodSolve
#   scripts/bench-geodsolve.sh [LINES]
set -euo pipefail
cd "$(dirname "$0")/.."
LINES="${1:-1000000}"
WORK="${TMPDIR:-/tmp}/geofence-bench-geodsolve"
mkdir -p "$WORK"
command -v GeodSolve >/dev/null || { echo "GeodSolve not found: apt-get install geographiclib-tools" >&2; exit 1; }

python3 - "$LINES" "$WORK/input.txt" <<'PY'
import math, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(20131)
with open(path, "w") as f:
    for _ in range(n):
        lat1 = math.degrees(math.asin(rng.uniform(-1, 1)))
        lat2 = math.degrees(math.asin(rng.uniform(-1, 1)))
        f.write("%.9f %.9f %.9f %.9f\n" % (lat1, rng.uniform(-180, 180), lat2, rng.uniform(-180, 180)))
PY

swift build -c release --product geofence >/dev/null
BIN=.build/release/geofence

# run OUTFILE CMD... : prints "wall cpu" seconds of CMD < input > OUTFILE (cpu = user + sys,
# the fairer number when other jobs share the machine).
run() {
    local out=$1; shift
    python3 - "$WORK/input.txt" "$out" "$@" <<'PY'
import os, subprocess, sys, time
inp, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t0 = time.perf_counter(); r0 = os.times()
with open(inp, "rb") as i, open(out, "wb") as o:
    subprocess.run(cmd, stdin=i, stdout=o, check=True)
t1 = time.perf_counter(); r1 = os.times()
cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
print("%.3f %.3f" % (t1 - t0, cpu))
PY
}

echo "lines: $LINES ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
read -r GW GC < <(run "$WORK/geodsolve.txt" GeodSolve -i)
read -r FW FC < <(run "$WORK/geofence.txt" "$BIN" geodesic inverse)
printf "%-28s %10s %10s\n" "" "wall s" "cpu s"
printf "%-28s %10.3f %10.3f\n" "GeodSolve -i" "$GW" "$GC"
printf "%-28s %10.3f %10.3f\n" "geofence geodesic inverse" "$FW" "$FC"
printf "%-28s %9.1fx %9.1fx\n" "speed-up" "$(echo "$GW / $FW" | bc -l)" "$(echo "$GC / $FC" | bc -l)"

# Agreement: GeodSolve -i prints "azi1 azi2 s12" (s12 to 1 mm by default); we print
# "s12 azi1 azi2" (s12 to 1 nm). Compare against GeodSolve -i -p 9 for full precision.
GeodSolve -i -p 9 < "$WORK/input.txt" > "$WORK/geodsolve9.txt"
python3 - "$WORK/geodsolve9.txt" "$WORK/geofence.txt" <<'PY'
import sys
worst_s = worst_a = 0.0
n = 0
with open(sys.argv[1]) as g, open(sys.argv[2]) as f:
    for lg, lf in zip(g, f):
        a1, a2, s = map(float, lg.split())
        t, b1, b2 = map(float, lf.split())
        worst_s = max(worst_s, abs(s - t))
        da = max(abs((a1 - b1 + 180) % 360 - 180), abs((a2 - b2 + 180) % 360 - 180))
        if s < 19_900_000:   # away from the antipodal ambiguity
            worst_a = max(worst_a, da)
        n += 1
print("agreement with GeodSolve -i -p 9 over %d lines: max |Δs| = %.3g m, max |Δazimuth| = %.3g°" % (n, worst_s, worst_a))
PY
