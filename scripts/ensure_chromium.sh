#!/usr/bin/env bash
# Make sure Debian's Chromium is at /usr/bin/chromium for the browser tests (tests/web), installing
# it with apt where missing, as ensure_redis.sh does for Redis. Playwright drives this browser
# (executable_path); its own browser download is never used.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "chromium not found: installing it with apt-get" >&2
bash "$(dirname "$0")/apt_install.sh" chromium
test -x /usr/bin/chromium
