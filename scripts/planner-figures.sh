#!/usr/bin/env bash
# The planner's per-scenario figures (docs/planner.md, "Numbers" and "Event latency"; docs/power.md):
# events, missed / extra, time in hybrid mode, energy per hour next to continuous reporting.
# Debug build, fixed seeds; about 5 minutes on two cores once built.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test --filter "DriveEquivalenceTests|GPSWhereNeededTests|LatencyTests|OrderEquivalenceTests|RelaunchEquivalenceTests|SpeedTests" 2>&1 \
    | grep -E '^\[(scenario|latency)\]|passed after|failed after|recorded an issue'
