#!/usr/bin/env bash
# Builds the web UI (webui/, React + TypeScript + Vite) into webui/build, which the master serves at
# /det/. `npm ci` runs only when package-lock.json changed since the last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../webui"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "build-webui: npm ci"
  npm ci --no-audit --no-fund
fi
npm run build --silent
