"""ASHA vs random search on the digits example: total batches trained to reach the same best accuracy.

Starts a real local cluster (master + 1 agent with 2 slots), runs examples/digits/adaptive.yaml
(adaptive_asha, 16 trials, up to 800 batches each) and a random search over the same space with the
same max_trials, each trial trained for the same 800 batches. Both validate every 25 batches. The
target is the lower of the two searches' best accuracies; for each search the figure is the number of
batches trained by all its trials, in report order, until some validation reached the target.
Prints both figures and their ratio (goal: ASHA / random <= 1/3).
Usage: /usr/bin/python3 bench/asha_vs_random.py [--bin-dir build/bin]
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import tempfile
import time

import requests
import yaml

REPO = pathlib.Path(__file__).resolve().parents[1]
DIGITS = REPO / "examples" / "digits"


def run(det_bin, env, s, master, config_path):
    out = subprocess.run([det_bin, "experiment", "create", str(config_path), str(DIGITS)],
                         check=True, env=env, capture_output=True, text=True)
    exp_id = int(re.search(r"Created experiment (\d+)", out.stdout).group(1))
    start = time.monotonic()
    while True:
        state = s.get(f"{master}/api/v1/experiments/{exp_id}").json()["experiment"]["state"]
        if state in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"):
            break
        time.sleep(1)
    elapsed = time.monotonic() - start
    trials = s.get(f"{master}/api/v1/experiments/{exp_id}/trials", params={"limit": 1000}).json()["trials"]
    # Every validation of every trial: (report time, trial, batches so far, accuracy).
    events = []
    for t in trials:
        r = s.get(f"{master}/api/v1/trials/metrics/trial_metrics",
                  params={"trialIds": t["id"], "group": "validation"})
        for line in r.text.splitlines():
            for m in json.loads(line)["result"]["metrics"]:
                events.append((m["endTime"], t["id"], m["totalBatches"], m["metrics"]["validation_metrics"]["accuracy"]))
    events.sort()
    return {"state": state, "seconds": elapsed, "trials": len(trials), "events": events,
            "total_batches": sum(t["totalBatchesProcessed"] for t in trials),
            "best": max(e[3] for e in events)}


def batches_to_reach(events, target):
    trained = {}
    for _, trial, batches, accuracy in events:
        trained[trial] = batches
        if accuracy >= target:
            return sum(trained.values())
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default=str(REPO / "build" / "bin"))
    args = parser.parse_args()
    det_bin = str(pathlib.Path(args.bin_dir) / "det")

    with tempfile.TemporaryDirectory() as tmp:
        adaptive = yaml.safe_load((DIGITS / "adaptive.yaml").read_text())
        random_cfg = dict(adaptive, name="digits-random-800")
        random_cfg["searcher"] = {"name": "random", "metric": "accuracy", "smaller_is_better": False,
                                  "max_trials": adaptive["searcher"]["max_trials"]}
        random_cfg["data"] = dict(adaptive["data"], max_batches=adaptive["searcher"]["max_time"])
        random_path = pathlib.Path(tmp, "random.yaml")
        random_path.write_text(yaml.safe_dump(random_cfg))

        env = dict(os.environ, DET_AUTH_FILE=os.path.join(tmp, "auth.json"))
        subprocess.run([det_bin, "deploy", "local", "cluster-up", "--agents", "1", "--slots", "2",
                        "--master-port", "0", "--data-dir", tmp], check=True, env=env, capture_output=True)
        try:
            master = json.loads(pathlib.Path(tmp, "cluster.json").read_text())["master_url"]
            env["DET_MASTER"] = master
            s = requests.Session()
            token = s.post(f"{master}/api/v1/auth/login", json={"username": "determined", "password": ""}).json()["token"]
            s.headers["Authorization"] = f"Bearer {token}"
            asha = run(det_bin, env, s, master, DIGITS / "adaptive.yaml")
            rand = run(det_bin, env, s, master, random_path)
        finally:
            subprocess.run([det_bin, "deploy", "local", "cluster-down", "--data-dir", tmp], env=env,
                           capture_output=True)

    target = min(asha["best"], rand["best"])
    a, r = batches_to_reach(asha["events"], target), batches_to_reach(rand["events"], target)
    for name, res, to_target in (("adaptive_asha", asha, a), ("random", rand, r)):
        print(f"{name}: {res['state']}, {res['trials']} trials, best accuracy {res['best']:.4f}, "
              f"{res['total_batches']} batches in all, {to_target} batches to reach {target:.4f}, "
              f"{res['seconds']:.0f} s")
    print(f"ratio (asha / random) of batches to reach the target: {a / r:.3f} (goal <= 0.333)")
    print(f"ratio (asha / random) of all batches trained: {asha['total_batches'] / rand['total_batches']:.3f}")


if __name__ == "__main__":
    main()
