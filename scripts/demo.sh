#!/usr/bin/env bash
# The README's main job: start a local cluster (master on SQLite + one agent with 2 CPU slots, free port),
# run the adaptive ASHA search of examples/digits/adaptive.yaml to completion, and show the best trial
# with its hyperparameters, metrics and checkpoint.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${DET_BIN_DIR:-$PWD/build/bin}"
DATA="${DET_DEMO_DIR:-$PWD/.det-local}"
CONFIG="${DET_DEMO_CONFIG:-examples/digits/adaptive.yaml}"
export DET_AUTH_FILE="$DATA/auth.json"

"$BIN/det" deploy local cluster-down --data-dir "$DATA" >/dev/null 2>&1 || true
"$BIN/det" deploy local cluster-up --agents 1 --slots 2 --master-port 0 --data-dir "$DATA"
DET_MASTER="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["master_url"])' "$DATA/cluster.json")"
export DET_MASTER

echo
echo "== What the searcher will do (det preview-search $CONFIG)"
"$BIN/det" preview-search "$CONFIG" || true

echo
echo "== Submitting $CONFIG"
created="$("$BIN/det" experiment create "$CONFIG" examples/digits)"
echo "$created"
exp_id="$(echo "$created" | sed -n 's/.*Created experiment \([0-9]*\).*/\1/p' | head -n1)"

echo
echo "== Waiting for experiment $exp_id (trials are listed as the search goes)"
if "$BIN/det" experiment wait "$exp_id"; then status=0; else status=$?; fi

echo
echo "== Trials"
"$BIN/det" experiment list-trials "$exp_id"

echo
echo "== Best trial"
"$BIN/det" experiment describe "$exp_id" --json | /usr/bin/python3 -c '
import json, sys
exp = json.load(sys.stdin)
searcher = exp["config"]["searcher"]
sign = 1 if searcher.get("smaller_is_better", True) else -1
scored = [t for t in exp["trials"] if t.get("bestValidation")]
if not scored:
    sys.exit("no trial reported a validation metric")
metric = searcher["metric"]
best = min(scored, key=lambda t: sign * t["bestValidation"]["metrics"]["avgMetrics"][metric])
value = best["bestValidation"]["metrics"]["avgMetrics"][metric]
print("trial %d: %s = %.4f after %d batches" % (best["id"], metric, value, best["totalBatchesProcessed"]))
print("hyperparameters:", json.dumps(best["hparams"], sort_keys=True))
trials = len(exp["trials"])
trained = sum(t["totalBatchesProcessed"] for t in exp["trials"])
print("%d trials trained %d batches in all (every trial to the end would be %d)"
      % (trials, trained, trials * searcher.get("max_time", 0)))
'
echo
echo "The cluster is still running at $DET_MASTER"
echo "  export DET_MASTER=$DET_MASTER DET_AUTH_FILE=$DET_AUTH_FILE"
echo "  $BIN/det experiment list"
echo "  stop it with: $BIN/det deploy local cluster-down --data-dir $DATA"
exit "$status"
