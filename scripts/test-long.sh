#!/usr/bin/env bash
# The long tier (README, "Tests"): every test of `swift test` plus the long ones it leaves out
# (whole-length drives and the other scenarios that take minutes, switched on by
# GEOFENCE_LONG_TESTS=1), in one parallel run, then the checks `swift test` cannot run
# (scripts/checks.sh: contract fuzzing, the Apple platform checks, the dashboard browser test).
#
# Environment: GEOFENCE_TEST_POSTGRES_URL (optional; `.ci/postgres.sh` starts a throw-away
# server): the server tests and the contract fuzzing also run against that PostgreSQL.
# Installs what the checks need when missing (scripts/install-test-tools.sh: apt-get and PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
GEOFENCE_LONG_TESTS=1 swift test
scripts/checks.sh
