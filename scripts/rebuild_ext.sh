#!/usr/bin/env bash
# Rebuild the Cython core out of tree and swap the module in atomically (mv), so that
# processes that already loaded the old module keep running on it.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
cp setup.py pyproject.toml README.md "$tmp"/
mkdir "$tmp/ext" && cp ext/*.pyx ext/*.py ext/*.pyi "$tmp/ext/" 2>/dev/null || true
(cd "$tmp" && "$OLDPWD/.venv/bin/python" setup.py -q build_ext --inplace)
for so in "$tmp"/ext/*.so; do mv "$so" ext/; done
rm -rf "$tmp"
