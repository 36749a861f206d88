"""Seconds from `det experiment create` to the first metric the trial reports, for a no-op trial.

Starts a real local cluster (master + 1 agent), submits examples/noop N times, and for each run polls the
metrics API until the first training metric is visible. Prints each run and the median/min/max.
Usage: /usr/bin/python3 bench/create_to_first_metric.py [--runs N] [--bin-dir build/bin]
"""
import argparse
import pathlib
import re
import statistics
import subprocess
import sys
import time

from local_cluster import local_cluster

REPO = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bin-dir", default=str(REPO / "build" / "bin"))
    args = parser.parse_args()
    det_bin = str(pathlib.Path(args.bin_dir) / "det")

    with local_cluster(det_bin) as cluster:
        master, s, env = cluster.master, cluster.session, cluster.env
        figures = []
        for i in range(args.runs):
            start = time.monotonic()
            out = subprocess.run([det_bin, "experiment", "create", str(REPO / "examples/noop/noop.yaml"),
                                  str(REPO / "examples/noop")], check=True, env=env, capture_output=True, text=True)
            exp_id = int(re.search(r"Created experiment (\d+)", out.stdout).group(1))
            trial_id = None
            while True:
                if trial_id is None:
                    trials = s.get(f"{master}/api/v1/experiments/{exp_id}/trials").json()["trials"]
                    trial_id = trials[0]["id"] if trials else None
                if trial_id is not None:
                    r = s.get(f"{master}/api/v1/trials/metrics/training_metrics", params={"trialIds": trial_id})
                    if '"loss"' in r.text:
                        break
                if time.monotonic() - start > 60:
                    sys.exit(f"run {i}: no metric after 60 s")
                time.sleep(0.005)
            elapsed = time.monotonic() - start
            figures.append(elapsed)
            print(f"run {i + 1}: {elapsed:.3f} s (experiment {exp_id})")
            # Let the trial finish so the next run has the slot.
            while s.get(f"{master}/api/v1/experiments/{exp_id}").json()["experiment"]["state"] not in (
                    "STATE_COMPLETED", "STATE_ERROR"):
                time.sleep(0.05)
        print(f"create -> first metric: median {statistics.median(figures):.3f} s, "
              f"min {min(figures):.3f} s, max {max(figures):.3f} s over {len(figures)} runs "
              f"(goal < 0.5 s; upstream's container start alone costs 10-60 s)")


if __name__ == "__main__":
    main()
