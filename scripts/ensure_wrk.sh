#!/usr/bin/env bash
# Make sure wrk (the HTTP load generator of benchmarks/bench_status_wrk.py) is installed, with apt
# where missing, as ensure_redis.sh does for Redis. Benchmarks only: make test never needs it.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
echo "wrk not found: installing it with apt-get" >&2
bash "$(dirname "$0")/apt_install.sh" wrk
command -v wrk >/dev/null
