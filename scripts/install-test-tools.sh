#!/usr/bin/env bash
# Installs what the checks beyond `swift test` need, when it is missing: Debian's postgresql,
# chromium and chromium-driver (apt-get, as root), and a Python environment in
# .build/test-tools with the pinned contract fuzzer (schemathesis) and Selenium (PyPI).
# Idempotent and quick when everything is there. scripts/checks.sh and .ci/run call it.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv=.build/test-tools
if [ ! -x "$venv/bin/st" ] || ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis==4.32.5 selenium==4.27.1
fi
