#!/usr/bin/env bash
# Contract fuzzing: runs schemathesis against `geofence serve` on a fresh store and fails on
# any finding (a 5xx, a status or header the OpenAPI document does not list, a response that
# breaks its schema, a request the schema refuses that the server accepts).
#
#   scripts/contract-fuzz.sh sqlite                 # a fresh SQLite file
#   scripts/contract-fuzz.sh postgres://…/geofence  # a fresh schema in that database
#   scripts/contract-fuzz.sh sqlite device          # with a device key (admin, read, ingest, device)
#
# The second argument is the scope of the key the fuzzer holds (default admin): with a read,
# ingest or device key every operation the scope may not call must answer a listed 403, and
# the ones it may call their listed statuses. The device key is bound to `phone-7`; the ids the
# fuzzer makes up are other devices' (403), the reads of its own plan and settings come from
# the admin run's coverage of the same routes.
#
# Environment: BIN (the geofence executable, default .build/debug/geofence), ST (the
# schemathesis `st` command, default: st on PATH), FUZZ_SECONDS (time budget, default 90),
# FUZZ_EXAMPLES (cases per operation, default 40). Seeded, so a run can be repeated.
#
# Every check is on, "schema-valid data is accepted" (positive_data_acceptance) included: a
# finding fails unless it falls under one of the rules JSON Schema cannot state, listed with
# their reasons in openapi/schemathesis.toml (geometry, the server's clock and a device's history,
# parameters that depend on each other, an id composed of several fields, the webhook
# allow-list). The stateful checks (use_after_free, ensure_resource_availability,
# object_level_authorization) need OpenAPI links, which the document does not declare, and a
# second tenant's key: they stay off (FUZZ_EXCLUDE overrides that list).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug/geofence}
ST=${ST:-st}
target=${1:?usage: contract-fuzz.sh sqlite|postgres://URL [admin|read|ingest|device]}
scope=${2:-admin}
case "$scope" in
  admin) scope_options=() ;;
  read | ingest) scope_options=(--scope "$scope") ;;
  device) scope_options=(--scope device --device phone-7) ;;
  *) echo "contract-fuzz.sh: the scope must be admin, read, ingest or device, not \"$scope\"" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
pid=
if [ "$target" = sqlite ]; then
  db="$work/fuzz.sqlite"
else
  schema="fuzz_$(date +%s)_$$"
  db="${target}?search_path=${schema}"
  # A schema of its own, so the run starts empty and leaves the database as it found it.
  PSQL=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql | tail -1)
  "$PSQL" -q "$target" -c "CREATE SCHEMA $schema"
  trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; "$PSQL" -q "$target" -c "DROP SCHEMA $schema CASCADE" >/dev/null 2>&1 || true' EXIT
fi
key=$("$BIN" serve create-key --tenant fuzz --database "$db" "${scope_options[@]}")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --port "$port" --database "$db" --allow-webhook-host 127.0.0.1 >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.1
done
status=0
"$ST" --config-file openapi/schemathesis.toml run openapi/openapi.json --url "http://127.0.0.1:$port" \
  -H "Authorization: Bearer $key" \
  --checks all --exclude-checks "${FUZZ_EXCLUDE:-use_after_free,ensure_resource_availability,object_level_authorization}" \
  --phases examples,coverage,fuzzing \
  --max-examples "${FUZZ_EXAMPLES:-40}" --max-time "${FUZZ_SECONDS:-90}" --seed 21 --workers 1 \
  --request-timeout 15 --suppress-health-check all --output-truncate true || status=$?
if [ "$status" -ne 0 ]; then
  echo "contract fuzzing found problems against $target with a $scope key; server log:" >&2
  grep -iE "error|critical" "$work/server.log" | tail -20 >&2 || true
fi
exit "$status"
