#!/usr/bin/env bash
# Make sure a Redis server answers on 127.0.0.1:6379 (the tests' broker).
# Starts a local redis-server when none answers, installing it with apt where missing.
set -euo pipefail

ping() {
  # Speak RESP over bash's /dev/tcp so that no client needs to be installed.
  exec 3<>/dev/tcp/127.0.0.1/6379 || return 1
  printf 'PING\r\n' >&3
  local reply
  read -r -t 2 reply <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  [[ "$reply" == +PONG* ]]
}

if ping 2>/dev/null; then
  exit 0
fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server not found: installing it with apt-get" >&2
  bash "$(dirname "$0")/apt_install.sh" redis-server
fi
echo "starting redis-server on 127.0.0.1:6379" >&2
redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
  --dir /tmp --logfile /tmp/rasklad-redis.log
for _ in $(seq 1 50); do
  if ping 2>/dev/null; then exit 0; fi
  sleep 0.1
done
echo "redis-server did not answer on 127.0.0.1:6379 (see /tmp/rasklad-redis.log)" >&2
exit 1
