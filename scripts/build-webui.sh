#!/usr/bin/env bash
# Builds the web UI (webui/, React + TypeScript + Vite) into webui/build, which the master serves at
# /det/, with a .gz beside each text file. `npm ci` runs only when package-lock.json changed since the
# last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../webui"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "build-webui: npm ci"
  npm ci --no-audit --no-fund
fi
npm run build --silent
# Precompressed copies the master sends to browsers that accept gzip (src/master/handlers/webui.cc).
find build -type f \( -name '*.js' -o -name '*.css' -o -name '*.html' -o -name '*.svg' \) -exec gzip -9 -k -f {} +
