"""The digits example through pause/activate and a SIGKILLed trial process: training resumes from the
latest checkpoint, without repeating finished batches, and the experiment completes."""
import json
import os
import re
import signal
import time

from conftest import REPO

DIGITS = REPO / "examples/digits"
# 8 epochs of 45 batches, validating and checkpointing every 15 batches: 24 checkpoints in ~10 s.
LONGER = ("--config", "hyperparameters.epochs=8", "--config", "data.validation_period_batches=15")


def create(cluster, *extra):
    out = cluster.det("experiment", "create", str(DIGITS / "const.yaml"), str(DIGITS), *LONGER, *extra)
    return int(re.search(r"Created experiment (\d+)", out.stdout).group(1))


def trial_of(cluster, exp_id):
    trials = cluster.get(f"/api/v1/experiments/{exp_id}/trials")["trials"]
    return trials[0] if trials else None


def logs(cluster, trial_id):
    return cluster.det("trial", "logs", str(trial_id)).stdout


def wait_for(predicate, what, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def validation_batches(cluster, trial_id):
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/trials/metrics/trial_metrics",
                               params={"trialIds": trial_id, "group": "validation"}, timeout=30)
    resp.raise_for_status()
    return [m["totalBatches"] for line in resp.text.splitlines() if line
            for m in json.loads(line)["result"]["metrics"]]


def test_pause_then_activate_resumes_without_repeating_batches(cluster):
    exp_id = create(cluster)
    trial = wait_for(lambda: trial_of(cluster, exp_id), "the trial")
    wait_for(lambda: re.search(r"saved checkpoint \S+ at batch 45\b", logs(cluster, trial["id"])), "batch 45")
    cluster.det("experiment", "pause", str(exp_id))
    text = wait_for(lambda: (lambda t: "is paused" in t and t)(logs(cluster, trial["id"])), "the pause")
    stopped = int(re.search(r"preemption requested; stopping at batch (\d+)", text).group(1))
    assert stopped < 360

    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    text = logs(cluster, trial["id"])
    assert re.search(rf"resumed from checkpoint \S+ at step {stopped}\b", text), text[-3000:]
    batches = validation_batches(cluster, trial["id"])
    assert batches == sorted(set(batches)), batches  # no batch was trained (and reported) twice
    assert batches[-1] == 360
    assert trial_of(cluster, exp_id)["restarts"] == 0


def test_killed_trial_process_restarts_from_its_checkpoint(cluster):
    exp_id = create(cluster, "--config", "max_restarts=1")
    trial = wait_for(lambda: trial_of(cluster, exp_id), "the trial")
    text = wait_for(lambda: (lambda t: re.search(r"saved checkpoint \S+ at batch 45\b", t) and t)(
        logs(cluster, trial["id"])), "batch 45")
    pid = int(re.search(r"Process started on agent \S+ \(pid (\d+)\)", text).group(1))
    os.killpg(pid, signal.SIGKILL)  # the whole process group: the trial crashes without a word

    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    after = trial_of(cluster, exp_id)
    assert after["restarts"] == 1
    text = logs(cluster, trial["id"])
    assert re.search(r"resumed from checkpoint \S+ at step \d+", text), text[-3000:]
    assert validation_batches(cluster, trial["id"])[-1] == 360
