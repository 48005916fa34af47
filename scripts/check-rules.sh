#!/usr/bin/env bash
# Checks the alert rules the way CI does, without jest: the generated file is up to
# date with alerts/thresholds.yaml, promtool accepts it, and the unit tests of
# test/rules/ pass (a firing case and a near miss for every alert).
# promtool comes from Debian's prometheus package (.ci/run installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool is not on PATH: apt-get install -y prometheus (see .ci/run)" >&2
  exit 1
fi

npx tsx scripts/build-rules.ts --check
promtool check rules alerts/*.rules.yml
(cd test/rules && promtool test rules ./*.test.yml)
