#!/usr/bin/env bash
# The long tier (README, "Tests"): every test of `swift test` plus the long ones it leaves out
# (whole-length drives and the other scenarios that take minutes, switched on by
# GEOFENCE_LONG_TESTS=1), then contract fuzzing, the Apple platform checks and the dashboard
# browser test. CI runs this script (.ci/run); a failure anywhere fails it.
#
# Environment: GEOFENCE_TEST_POSTGRES_URL (optional; `.ci/postgres.sh` starts a throw-away
# server): the server tests and the contract fuzzing also run against that PostgreSQL.
# Needs python3 with venv and pip (PyPI), and Debian's chromium and chromium-driver for the
# browser test (installed here with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

# Contract fuzzing first (about 3 minutes; scripts/contract-fuzz.sh bounds each run), so that
# the test runner's summary is not buried: schemathesis (PyPI, pinned) against `geofence serve`.
python3 -m venv .build/schemathesis-venv
.build/schemathesis-venv/bin/pip install --quiet --disable-pip-version-check schemathesis==4.32.5
swift build --product geofence
ST=.build/schemathesis-venv/bin/st scripts/contract-fuzz.sh sqlite
if [ -n "${GEOFENCE_TEST_POSTGRES_URL:-}" ]; then
  ST=.build/schemathesis-venv/bin/st scripts/contract-fuzz.sh "$GEOFENCE_TEST_POSTGRES_URL"
fi
# The same with each narrower key: every operation its scope may not call must answer a listed 403.
for scope in read ingest device; do
  FUZZ_SECONDS=30 ST=.build/schemathesis-venv/bin/st scripts/contract-fuzz.sh sqlite "$scope"
done

# Both tiers in one parallel run: the long tests beside the others.
GEOFENCE_LONG_TESTS=1 swift test

# Apple platforms, checked on Linux (docs/ios.md, "How CI checks the Apple code"). An app's
# package with the Server trait off resolves no server dependency. Every file an app compiles
# (app products, example with SwiftUI, docs/ios.md's blocks, a consumer package), checked as
# Xcode would for iOS 17 and macOS 14: Apple availability of every declaration used (stubs, the
# toolchain's symbol graphs, FoundationAvailability.tsv) and, for what touches a stub, Swift 6
# mode with warnings as errors through SIL. Then the check's own snippets and the mistakes
# re-introduced into a copy.
Tests/LeanConsumer/check.sh
swift build --package-path Tests/AppleTypeCheck
python3 Tests/AppleTypeCheck/check-apple.py
python3 Tests/AppleTypeCheck/AvailabilityCheckTests/test_check_availability.py
python3 Tests/AppleTypeCheck/RegressionTests/test_reintroduced.py

# The dashboard in headless Chromium, driven by a pinned Selenium (Tests/Browser/run.py),
# against the `geofence` executable built above; bounded to 10 minutes; the last line printed
# is "browser: N passed, M failed".
echo "== dashboard browser test =="
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check "selenium==4.27.1"
timeout 600 python3 Tests/Browser/run.py --geofence "$(swift build --show-bin-path)/geofence"
