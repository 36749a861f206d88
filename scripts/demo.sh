#!/usr/bin/env bash
# The README's main job: start a local cluster (master on SQLite + one agent with 2 CPU slots, free port),
# run examples/digits/const.yaml to completion, and show its final validation metrics and checkpoints.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$PWD/build/bin"
DATA="${DET_DEMO_DIR:-$PWD/.det-local}"
export DET_AUTH_FILE="$DATA/auth.json"

"$BIN/det" deploy local cluster-down --data-dir "$DATA" >/dev/null 2>&1 || true
"$BIN/det" deploy local cluster-up --agents 1 --slots 2 --master-port 0 --data-dir "$DATA"
DET_MASTER="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["master_url"])' "$DATA/cluster.json")"
export DET_MASTER

echo
echo "== Submitting examples/digits/const.yaml"
created="$("$BIN/det" experiment create examples/digits/const.yaml examples/digits)"
echo "$created"
exp_id="$(echo "$created" | sed -n 's/.*Created experiment \([0-9]*\).*/\1/p' | head -n1)"
trial_id="$("$BIN/det" experiment describe "$exp_id" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["trials"][0]["id"])')"

echo
echo "== Following trial $trial_id (det trial logs $trial_id --follow)"
"$BIN/det" trial logs "$trial_id" --follow || true

if "$BIN/det" experiment wait "$exp_id"; then status=0; else status=$?; fi

echo
echo "== Result"
"$BIN/det" experiment describe "$exp_id"
echo
echo "The cluster is still running at $DET_MASTER"
echo "  export DET_MASTER=$DET_MASTER DET_AUTH_FILE=$DET_AUTH_FILE"
echo "  $BIN/det experiment list"
echo "  stop it with: $BIN/det deploy local cluster-down --data-dir $DATA"
exit "$status"
