#!/usr/bin/env bash
# Make sure wrk (the HTTP load generator of benchmarks/bench_status_wrk.py) is installed, with apt
# where missing, as ensure_redis.sh does for Redis. Benchmarks only: make test never needs it.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
echo "wrk not found: installing it with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq wrk >/dev/null
command -v wrk >/dev/null
