#!/usr/bin/env bash
# Install Debian packages with apt (as root, or through sudo): the one way the ensure_*.sh scripts
# add what a machine lacks. Usage: apt_install.sh PACKAGE...
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "$@" >/dev/null
