#!/usr/bin/env bash
# The rule, dashboard, metric-lint and end-to-end tests run Debian's promtool and prometheus.
# Installs Debian's prometheus package when either is missing (root or sudo needed), so that
# `npm test` works on a fresh clone; elsewhere it says what to install.
set -euo pipefail
if command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else
    echo "promtool/prometheus missing: install Debian's 'prometheus' package (apt-get install prometheus)" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "promtool/prometheus missing and no apt-get: install Prometheus 2.x so that both are on PATH" >&2
  exit 1
fi
echo "installing Debian's prometheus package (promtool, prometheus) for the tests" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
# Where systemd runs, the package starts a Prometheus on :9090; the tests start their own.
$SUDO systemctl stop prometheus 2>/dev/null || true
