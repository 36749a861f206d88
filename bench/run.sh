#!/usr/bin/env bash
# Runs every benchmark against the current build and prints the figures (see bench/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
/usr/bin/python3 bench/create_to_first_metric.py "$@"
